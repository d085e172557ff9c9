/* The subcommands of the pscan tool. Each takes the arguments after the command name
 * (argv[0] is the command name itself) and returns the process exit status. */
#ifndef PSCAN_TOOL_COMMANDS_H
#define PSCAN_TOOL_COMMANDS_H

int cmd_selfcheck(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* the file subcommands (cmd_files.c) */
int cmd_scan(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_select_flagged(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_unique(int argc, char **argv);
int cmd_rle(int argc, char **argv);
int cmd_reduce_by_key(int argc, char **argv);
int cmd_scan_by_key(int argc, char **argv);
int cmd_reduce(int argc, char **argv);

#endif /* PSCAN_TOOL_COMMANDS_H */
