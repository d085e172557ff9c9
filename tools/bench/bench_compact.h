/* `pscan bench --compact` (bench_compact.c): CPU compaction against std::copy_if /
 * std::partition_copy (sequential and parallel) and a plain loop, in the same run. */
#ifndef PSCAN_TOOL_BENCH_COMPACT_H
#define PSCAN_TOOL_BENCH_COMPACT_H

#include <stddef.h>

/* Prints a table per (size, threads), writes csv_path and, with plot_prefix,
   PLOT_PREFIX-compact.png (each NULL: none); returns the exit status. */
int bench_compact_run(const size_t *sizes, int nsizes, const int *threads, int nthreads, int reps,
                      const char *csv_path, const char *plot_prefix);

#endif /* PSCAN_TOOL_BENCH_COMPACT_H */
