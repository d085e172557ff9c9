/* Small helpers shared by the subcommands of the pscan tool: option matching, list parsing,
 * one-line usage errors, and the names of types and algorithms (from src/lists.h, so the tool
 * and the library spell them the same way).
 *
 * Exit statuses of every subcommand: 0 success, 1 the work failed (a check, memory, a file),
 * 2 the command line was wrong. */
#ifndef PSCAN_TOOL_CLI_H
#define PSCAN_TOOL_CLI_H

#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>

enum { EXIT_USAGE = 2, CLI_MAX_LIST = 64, CLI_MAX_THREADS = 1024 };

/* Prints "pscan CMD: message (try 'pscan CMD --help')" on stderr, on one line; returns
   EXIT_USAGE. cmd may be NULL for the top level. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "pscan CMD: message" on stderr, on one line (no usage hint). */
void cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

bool cli_is_help(const char *arg); /* -h or --help */

/* Matches argv[*i] against an option that takes a value, written "--name VALUE" or
   "--name=VALUE". Returns 0 if argv[*i] is another argument; 1 with *value set (and *i moved past
   a separate value); -1 after printing a usage error when the value is missing. */
int cli_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value);

/* Parses a comma-separated list into out[0..*count). Each returns false after printing a usage
   error naming the option and the bad item. */
/* Sizes: decimal ("1000"), a power of two ("2^20"), or binary suffixes ("64K", "16M", "1G");
   each at least 1. */
bool cli_parse_sizes(const char *cmd, const char *opt, const char *list, size_t *out, int *count);
/* Thread counts from 1 to CLI_MAX_THREADS. */
bool cli_parse_threads(const char *cmd, const char *opt, const char *list, int *out, int *count);
/* dtype names (i8 ... f64). */
bool cli_parse_types(const char *cmd, const char *opt, const char *list, pscan_dtype *out,
                     int *count);
/* A whole number in [lo, hi] (0 <= lo <= hi). */
bool cli_parse_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

const char *cli_dtype_name(pscan_dtype t); /* "i32"; "?" if unknown */
const char *cli_algo_name(pscan_algo a);   /* "decoupled-lookback"; "?" if unknown */
bool cli_dtype_is_float(pscan_dtype t);

/* "2^26" for a power of two, else the decimal number, into buf. Returns buf. */
const char *cli_format_count(size_t n, char *buf, size_t len);

/* "256 MiB", "1000 B", "1.5 GiB" into buf. Returns buf. */
const char *cli_format_bytes(double bytes, char *buf, size_t len);

#endif /* PSCAN_TOOL_CLI_H */
