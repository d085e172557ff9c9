/* `pscan bench --help` (help.c): what the options mean. */
#ifndef PSCAN_TOOL_BENCH_HELP_H
#define PSCAN_TOOL_BENCH_HELP_H

/* Prints the help of `pscan bench` on stdout. */
void bench_print_help(void);

#endif /* PSCAN_TOOL_BENCH_HELP_H */
