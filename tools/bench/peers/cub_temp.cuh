// CUB's temporary storage for the GPU peers (peers_cub.cu, peers_cub_sweep.cu): kept between
// calls, grown when a call needs more, released by the peer's release function.
#ifndef PSCAN_TOOL_CUB_TEMP_CUH
#define PSCAN_TOOL_CUB_TEMP_CUH

#include <cuda_runtime_api.h>

#include <cstddef>

struct cub_temp {
  void *p = nullptr;
  size_t bytes = 0;

  cudaError_t grow(size_t need) {
    if (need <= bytes)
      return cudaSuccess;
    release();
    cudaError_t e = cudaMalloc(&p, need ? need : 1);
    if (e == cudaSuccess)
      bytes = need;
    return e;
  }

  void release() {
    cudaFree(p);
    p = nullptr;
    bytes = 0;
  }
};

#endif // PSCAN_TOOL_CUB_TEMP_CUH
