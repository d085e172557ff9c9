/* bench_gpu.h in a pscan built without CUDA. */
#include "bench_gpu.h"
#include "bench_user_op.h"
#include "cli/cli.h"

bool bench_gpu_usable(void) { return false; }

int bench_gpu_run(const pscan_dtype *types, int ntypes, const size_t *sizes, int nsizes, int reps,
                  const char *csv_path, const char *plot_prefix) {
  (void)types, (void)ntypes, (void)sizes, (void)nsizes, (void)reps, (void)csv_path, (void)plot_prefix;
  cli_error("bench", "no GPU benchmark: built without CUDA");
  return 1;
}

int bench_user_op_run(const size_t *sizes, int nsizes, int reps, bool quick, const char *csv_path,
                      const char *plot_prefix) {
  (void)sizes, (void)nsizes, (void)reps, (void)quick, (void)csv_path, (void)plot_prefix;
  cli_error("bench", "no GPU benchmark: built without CUDA");
  return 1;
}
