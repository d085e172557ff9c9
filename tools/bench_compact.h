/* `pscan bench --compact` (bench_compact.c): CPU compaction against std::copy_if /
 * std::partition_copy (sequential and parallel) and a plain loop, in the same run. */
#ifndef PSCAN_TOOL_BENCH_COMPACT_H
#define PSCAN_TOOL_BENCH_COMPACT_H

#include <stddef.h>

/* Prints a table per (size, threads) and writes csv_path (NULL: none); returns the exit status. */
int bench_compact_run(const size_t *sizes, int nsizes, const int *threads, int nthreads, int reps,
                      const char *csv_path);

#endif /* PSCAN_TOOL_BENCH_COMPACT_H */
