/* `pscan bench --user-op`: user operators from source (pscan_op_create) against a copy of the
 * same bytes and what a user of each backend writes instead — on the CPU (bench_user_op_cpu.c)
 * the one-thread C loop with the operator inlined, on the GPU (bench_user_op.c, CUDA builds;
 * bench_gpu_none.c says why not elsewhere) CUB with the same operator as a C++ functor — then
 * the compile, cache and per-call costs (user_op_report.h). CSV columns: UOP_CSV_HEADER; the
 * plot PREFIX-user-op.png. Both return the exit status (1 after printing why). */
#ifndef PSCAN_TOOL_BENCH_USER_OP_H
#define PSCAN_TOOL_BENCH_USER_OP_H

#include <stdbool.h>
#include <stddef.h>

/* On the GPU at each of sizes, the flat scans then the by-key calls (bench_user_op_by_key.h)
   (quick: fewer rounds of the costs). */
int bench_user_op_run(const size_t *sizes, int nsizes, int reps, bool quick, const char *csv_path,
                      const char *plot_prefix);
/* On the CPU at each of sizes and thread counts (the C loop on one thread, once a size). */
int bench_user_op_cpu_run(const size_t *sizes, int nsizes, const int *threads, int nthreads,
                          int reps, bool quick, const char *csv_path, const char *plot_prefix);

#endif /* PSCAN_TOOL_BENCH_USER_OP_H */
