/* The command line of a file subcommand (file_args.c), for the driver (file_cmd.c): the option
 * table, --help, the parsing, and the checks of the arguments made before any file is read. */
#ifndef PSCAN_TOOL_FILE_ARGS_H
#define PSCAN_TOOL_FILE_ARGS_H

#include "file_cmd.h"

/* Fills job->o and the positional arguments; returns -1 (usage error), 0 (done: help), 1 (go
   on). */
int file_parse_args(const file_cmd *cmd, int argc, char **argv, file_job *job);
/* Usage errors found in the arguments alone: '-' more than once either way, two outputs that are
   one file, options that cannot go together. Each reports itself and answers false. */
bool file_check_dashes(const file_job *job);
bool file_check_distinct_outputs(const file_job *job);
bool file_check_combinations(const file_job *job);
/* Each output can be written; false after reporting why (not a usage error). */
bool file_check_outputs(const file_job *job);
/* The spelling of a backend in --backend: auto, cpu, cuda. */
const char *file_backend_name(pscan_backend b);

#endif /* PSCAN_TOOL_FILE_ARGS_H */
