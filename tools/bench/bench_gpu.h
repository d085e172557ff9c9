/* `pscan bench --gpu` (bench_gpu.c): the CUDA backend's inclusive sum, every algorithm, against
 * CUB and Thrust (peers_cub.cu) and cudaMemcpy device to device on the same buffers, timed with
 * CUDA events. In a build without CUDA, bench_gpu_none.c says so. */
#ifndef PSCAN_TOOL_BENCH_GPU_H
#define PSCAN_TOOL_BENCH_GPU_H

#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether the GPU benchmark can run here: built with CUDA and a GPU usable. */
bool bench_gpu_usable(void);

/* Prints one table per (type, size) and writes csv_path (NULL: none) in the CSV format of the CPU
   rows, and with plot_prefix (NULL: none) the throughput charts (bench_plot.c); returns the exit
   status (1 with one line on stderr when no GPU is usable). */
int bench_gpu_run(const pscan_dtype *types, int ntypes, const size_t *sizes, int nsizes, int reps,
                  const char *csv_path, const char *plot_prefix);

/* `pscan bench --gpu --user-op` (bench_user_op.c): operators from source against a device copy
   of the same bytes, CUB with the same functor and (i32 SUM) the built-in scan, at each of sizes;
   then the compile, cache and per-call costs (quick: fewer rounds of those). CSV columns
   op,elem_bytes,n,impl,seconds_median,gbs,frac_copy,machine; the plot PREFIX-user-op.png. The
   exit status as bench_gpu_run's. */
int bench_user_op_run(const size_t *sizes, int nsizes, int reps, bool quick, const char *csv_path,
                      const char *plot_prefix);

/* The device in a line: "NAME (sm_XY, N SMs, M GiB)" (CUDA builds only). */
void bench_gpu_describe(char *buf, size_t len);

#endif /* PSCAN_TOOL_BENCH_GPU_H */
