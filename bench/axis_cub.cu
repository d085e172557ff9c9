// The CUB peer of pscan_segmented_scan for bench/axis_bench.c. CUB (CUDA 13.0) has no scan by
// offsets, so the peer is what a CUB user writes: DeviceScan::InclusiveSumByKey over segment ids
// (the keys array is built beforehand, outside the timing). Bench code may be C++: the library
// never uses CUB.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "pscan.h"

template <typename T>
static double time_by_key(const void *in, void *out, const int32_t *keys, size_t n, int reps,
                          int sync_each) {
  size_t temp_bytes = 0;
  const T *d_in = static_cast<const T *>(in);
  T *d_out = static_cast<T *>(out);
  cub::DeviceScan::InclusiveSumByKey(nullptr, temp_bytes, keys, d_in, d_out, (int64_t)n);
  void *temp = nullptr;
  if (cudaMalloc(&temp, temp_bytes ? temp_bytes : 1) != cudaSuccess)
    return -1;
  cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, keys, d_in, d_out, (int64_t)n); // warm-up
  std::vector<double> t;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  // samples as pscan's (axis_bench.c time_ms): a batch of calls back to back, ~2 ms, unless
  // sync_each; the first sample (one call) sizes the batch
  int inner = 1;
  for (int i = -1; i < reps; i++) {
    float ms = 0;
    cudaEventRecord(e0);
    for (int j = 0; j < inner; j++)
      cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, keys, d_in, d_out, (int64_t)n);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    if (i < 0) {
      inner = sync_each || ms <= 0 ? 1 : std::min(64, std::max(1, (int)(2.0 / ms)));
      continue;
    }
    t.push_back(ms / inner);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(temp);
  if (cudaGetLastError() != cudaSuccess)
    return -1;
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

extern "C" double axis_cub_scan_by_key_ms(int dtype, const void *in, void *out,
                                          const int32_t *keys, size_t n, int reps, int sync_each) {
  switch (dtype) {
  case PSCAN_F32: return time_by_key<float>(in, out, keys, n, reps, sync_each);
  case PSCAN_I32: return time_by_key<int32_t>(in, out, keys, n, reps, sync_each);
  case PSCAN_F64: return time_by_key<double>(in, out, keys, n, reps, sync_each);
  default: return -1;
  }
}
