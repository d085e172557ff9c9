/* bench_sweep.h's GPU backend in a pscan built without CUDA. */
#include "bench_sweep.h"
#include "cli/cli.h"

int sweep_gpu_backend(sweep_backend *b, const sweep_opts *o) {
  (void)b, (void)o;
  cli_error("bench", "no GPU sweep: built without CUDA");
  return 1;
}
