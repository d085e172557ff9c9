/* The benchmark's GPU peers (peers_cub.cu, compiled only in a CUDA build): what a CUDA C++
 * user would call instead of the library, cub::DeviceScan::InclusiveSum and
 * thrust::inclusive_scan, on device buffers the caller owns. Both compute the inclusive SUM of
 * the plain loop; small integer types wrap on the store, and the benchmark's data (running sums
 * within +-100) never overflow an accumulator. */
#ifndef PSCAN_TOOL_PEERS_CUB_H
#define PSCAN_TOOL_PEERS_CUB_H

#include "pscan.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum peer_gpu {
  PEER_CUB,    /* cub::DeviceScan::InclusiveSum, its temporary storage cached between calls */
  PEER_THRUST  /* thrust::inclusive_scan(thrust::cuda::par.on(stream), ...) */
} peer_gpu;

/* Enqueues d_out[i] = d_in[0] + ... + d_in[i] (type t) on stream (a cudaStream_t, NULL: the
   default stream); returns a cudaError_t (0: success). CUB's temporary storage grows as needed,
   with a synchronous cudaMalloc, so warm up at the largest size before timing. */
int peer_gpu_scan(peer_gpu p, pscan_dtype t, const void *d_in, void *d_out, size_t n,
                  void *stream);
/* Frees CUB's cached temporary storage. */
void peer_gpu_release(void);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_TOOL_PEERS_CUB_H */
