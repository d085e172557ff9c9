/* Reversal of an array of n elements of 1, 2, 4 or 8 bytes, and of the offsets of segments, for
 * the reverse scans by offsets (axis_host.c: the values and the offsets are reversed, scanned
 * forward by segments, and the result reversed back). In the reversal thread i swaps elements i
 * and n - 1 - i, so dst may be src (in place) or lie apart from it. */
#include "axis_launch.h"

#include <cuda_runtime.h>

#define PSCAN__REVERSE_KERNEL(NAME, T)                                                     \
  static __global__ void NAME(T *dst, const T *src, uint64_t n) {                          \
    const uint64_t half = (n + 1) / 2;                                                     \
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < half;           \
         i += (uint64_t)gridDim.x * blockDim.x) {                                          \
      const T a = src[i], b = src[n - 1 - i];                                              \
      dst[i] = b;                                                                          \
      dst[n - 1 - i] = a;                                                                  \
    }                                                                                      \
  }
PSCAN__REVERSE_KERNEL(reverse_1, uint8_t)
PSCAN__REVERSE_KERNEL(reverse_2, uint16_t)
PSCAN__REVERSE_KERNEL(reverse_4, uint32_t)
PSCAN__REVERSE_KERNEL(reverse_8, uint64_t)
#undef PSCAN__REVERSE_KERNEL

extern "C" int pscan__cuda_reverse(void *dst, const void *src, uint64_t n, size_t size,
                                   void *stream) {
  if (n == 0)
    return 0;
  const uint64_t half = (n + 1) / 2, want = (half + 255) / 256;
  const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
  cudaStream_t s = (cudaStream_t)stream;
  switch (size) {
  case 1: reverse_1<<<blocks, 256, 0, s>>>((uint8_t *)dst, (const uint8_t *)src, n); break;
  case 2: reverse_2<<<blocks, 256, 0, s>>>((uint16_t *)dst, (const uint16_t *)src, n); break;
  case 4: reverse_4<<<blocks, 256, 0, s>>>((uint32_t *)dst, (const uint32_t *)src, n); break;
  case 8: reverse_8<<<blocks, 256, 0, s>>>((uint64_t *)dst, (const uint64_t *)src, n); break;
  default: return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

static __global__ void reverse_offsets_kernel(int64_t *dst, const int64_t *src,
                                              uint64_t num_segments, uint64_t n) {
  for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j <= num_segments;
       j += (uint64_t)gridDim.x * blockDim.x)
    dst[j] = (int64_t)n - src[num_segments - j];
}

extern "C" int pscan__cuda_reverse_offsets(int64_t *dst, const int64_t *src, uint64_t num_segments,
                                           uint64_t n, void *stream) {
  const uint64_t want = (num_segments + 1 + 255) / 256;
  const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
  reverse_offsets_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>(dst, src, num_segments, n);
  return (int)cudaGetLastError();
}
