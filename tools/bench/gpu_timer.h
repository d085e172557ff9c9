/* Timing a batch of calls on the GPU with two CUDA events on the default stream (where the
 * library's calls and the peers' go): the timer of `pscan bench --gpu` (bench_gpu.c) and of its
 * sweep (bench_sweep_gpu.c). CUDA builds only. */
#ifndef PSCAN_TOOL_GPU_TIMER_H
#define PSCAN_TOOL_GPU_TIMER_H

#include <cuda_runtime_api.h>
#include <stdbool.h>

typedef struct gpu_timer {
  cudaEvent_t start, stop;
  bool made;
} gpu_timer;

/* Creates the two events: 0, or the cudaError_t (then nothing is left to close). */
int gpu_timer_open(gpu_timer *t);
/* Destroys the events, if open. */
void gpu_timer_close(gpu_timer *t);

/* Records start, enqueues `inner` calls of call(arg), records stop and waits for it; the time
   of one call through *seconds. 0; a negative value that a call returned (it said why); or a
   positive cudaError_t, that a call returned or that the events met. */
int gpu_timer_batch(gpu_timer *t, long inner, int (*call)(void *arg), void *arg,
                    double *seconds);

/* Calls per batch so that a batch lasts GPU_TIMER_MIN_BATCH_MS (launch overhead amortised as in a
   stream of calls), from the time of one call: 1 to GPU_TIMER_MAX_INNER. */
#define GPU_TIMER_MIN_BATCH_MS 2.0
enum { GPU_TIMER_MAX_INNER = 1 << 14 };
long gpu_timer_inner(double one_call_s);

#endif /* PSCAN_TOOL_GPU_TIMER_H */
