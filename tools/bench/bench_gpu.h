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

/* A CUDA context for a GPU run: 0, or 1 after printing "no usable GPU: ..." (CUDA builds only). */
int bench_gpu_context(pscan_ctx **ctx);
/* The device in a line: "NAME (sm_XY, N SMs, M GiB)" (CUDA builds only). */
void bench_gpu_describe(char *buf, size_t len);

#endif /* PSCAN_TOOL_BENCH_GPU_H */
