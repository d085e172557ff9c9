/* Timing a batch of calls with CUDA events (gpu_timer.h). */
#include "gpu_timer.h"

#include <math.h>

int gpu_timer_open(gpu_timer *t) {
  cudaError_t e = cudaEventCreate(&t->start);
  if (e == cudaSuccess && (e = cudaEventCreate(&t->stop)) != cudaSuccess)
    cudaEventDestroy(t->start);
  t->made = e == cudaSuccess;
  return (int)e;
}

void gpu_timer_close(gpu_timer *t) {
  if (!t->made)
    return;
  cudaEventDestroy(t->start);
  cudaEventDestroy(t->stop);
  t->made = false;
}

int gpu_timer_batch(gpu_timer *t, long inner, int (*call)(void *arg), void *arg,
                    double *seconds) {
  int e = (int)cudaEventRecord(t->start, 0);
  for (long j = 0; j < inner && e == 0; j++)
    e = call(arg);
  if (e != 0)
    return e;
  float ms = 0;
  cudaError_t c;
  if ((c = cudaEventRecord(t->stop, 0)) != cudaSuccess ||
      (c = cudaEventSynchronize(t->stop)) != cudaSuccess ||
      (c = cudaEventElapsedTime(&ms, t->start, t->stop)) != cudaSuccess)
    return (int)c;
  *seconds = (double)ms * 1e-3 / (double)inner;
  return 0;
}

long gpu_timer_inner(double one_call_s) {
  double want = GPU_TIMER_MIN_BATCH_MS * 1e-3 / (one_call_s > 0 ? one_call_s : 1e-9);
  return want < 1 ? 1 : want > GPU_TIMER_MAX_INNER ? GPU_TIMER_MAX_INNER : (long)ceil(want);
}
