/* The report of `pscan bench` (report.c): the table on stdout and the CSV file. */
#ifndef PSCAN_TOOL_BENCH_REPORT_H
#define PSCAN_TOOL_BENCH_REPORT_H

#include "result.h"

#include <stdbool.h>
#include <stdio.h>

/* Prints the group as a table on stdout: rows by thread count, with Gelem/s, GB/s and the
   fractions of the streaming copy and of memcpy at the same thread count (for GPU rows, of
   cudaMemcpy; their thread count shows as "-"). */
void bench_print_group(const bench_group *g);

/* The CSV goes to a temporary file beside FILE first (safe_out.h) and is renamed to FILE when the
   run is complete, so a failed run never leaves a file that looks finished. */
struct sout;
typedef struct bench_csv {
  FILE *f;
  struct sout *out; /* malloc'd while open */
} bench_csv;
/* Opens the temporary file and writes the header; false after printing why. */
bool bench_csv_open(bench_csv *c, const char *path);
/* The same with another header (a line ending in '\n'), for runs of other columns. */
bool bench_csv_open_header(bench_csv *c, const char *path, const char *header);
/* One row per result of g; machine names the machine in every row. */
void bench_csv_group(FILE *f, const bench_group *g, const char *machine);
/* Closes; when ok, renames to path (false after printing why if that fails), else removes the
   temporary file and returns false. A bench_csv never opened closes as ok. */
bool bench_csv_close(bench_csv *c, const char *path, bool ok);

#endif /* PSCAN_TOOL_BENCH_REPORT_H */
