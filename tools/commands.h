/* The subcommands of the pscan tool. Each takes the arguments after the command name
 * (argv[0] is the command name itself) and returns the process exit status. */
#ifndef PSCAN_TOOL_COMMANDS_H
#define PSCAN_TOOL_COMMANDS_H

int cmd_selfcheck(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_trace(int argc, char **argv);

#endif /* PSCAN_TOOL_COMMANDS_H */
