/* The axis kernels (axis_stamp.cuh) for every (input, accumulation) pair of PSCAN_SCAN_PAIRS and
 * every operator of its kind, their launcher tables, and the type-independent kernels of scans by
 * offsets. */
#include "common.cuh"
#include "axis_launch.h"

#define PAIR_IN I8
#define PAIR_OUT I8
#include "axis_pair.cuh"
#define PAIR_IN I8
#define PAIR_OUT I16
#include "axis_pair.cuh"
#define PAIR_IN I8
#define PAIR_OUT I32
#include "axis_pair.cuh"
#define PAIR_IN I8
#define PAIR_OUT I64
#include "axis_pair.cuh"
#define PAIR_IN I16
#define PAIR_OUT I16
#include "axis_pair.cuh"
#define PAIR_IN I16
#define PAIR_OUT I32
#include "axis_pair.cuh"
#define PAIR_IN I16
#define PAIR_OUT I64
#include "axis_pair.cuh"
#define PAIR_IN I32
#define PAIR_OUT I32
#include "axis_pair.cuh"
#define PAIR_IN I32
#define PAIR_OUT I64
#include "axis_pair.cuh"
#define PAIR_IN I64
#define PAIR_OUT I64
#include "axis_pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U8
#include "axis_pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U16
#include "axis_pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U32
#include "axis_pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U64
#include "axis_pair.cuh"
#define PAIR_IN U16
#define PAIR_OUT U16
#include "axis_pair.cuh"
#define PAIR_IN U16
#define PAIR_OUT U32
#include "axis_pair.cuh"
#define PAIR_IN U16
#define PAIR_OUT U64
#include "axis_pair.cuh"
#define PAIR_IN U32
#define PAIR_OUT U32
#include "axis_pair.cuh"
#define PAIR_IN U32
#define PAIR_OUT U64
#include "axis_pair.cuh"
#define PAIR_IN U64
#define PAIR_OUT U64
#include "axis_pair.cuh"
#define PAIR_IN F32
#define PAIR_OUT F32
#include "axis_pair.cuh"
#define PAIR_IN F32
#define PAIR_OUT F64
#include "axis_pair.cuh"
#define PAIR_IN F64
#define PAIR_OUT F64
#include "axis_pair.cuh"

extern "C" const pscan__cuda_axis_kernels *pscan__cuda_axis_kernels_for(int in_type, int acc_type,
                                                                        int op) {
  if (op < 0 || op >= PSCAN_OP_COUNT)
    return NULL;
#define X(IN, OUT)                                                                   \
  if (in_type == PSCAN_##IN && acc_type == PSCAN_##OUT) {                            \
    const pscan__cuda_axis_kernels *k = &pscan__cuda_axis_##IN##_##OUT##_table[op];  \
    return k->lines ? k : NULL;                                                      \
  }
  PSCAN_SCAN_PAIRS(X)
#undef X
  return NULL;
}

/* ---- scans by offsets ---- */

static __global__ void offsets_check_kernel(const int64_t *offsets, uint64_t num_segments,
                                            unsigned *bad) {
  const uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s == 0 && offsets[0] != 0)
    atomicOr(bad, 1u);
  if (s < num_segments && offsets[s + 1] < offsets[s])
    atomicOr(bad, 2u);
}

extern "C" int pscan__cuda_offsets_check(const int64_t *offsets, uint64_t num_segments,
                                         unsigned *bad, void *stream) {
  const uint64_t blocks = num_segments / 256 + 1;
  offsets_check_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(offsets, num_segments,
                                                                           bad);
  return (int)cudaGetLastError();
}

/* KEYS_PER_THREAD consecutive elements per thread: a binary search for the first (the last s
   with offsets[s] <= i), then a walk. Work by element count: a huge segment is no slower. */
#define KEYS_PER_THREAD 16
static __global__ void segment_keys_kernel(const int64_t *offsets, uint64_t num_segments,
                                           uint64_t n, uint32_t *keys) {
  const uint64_t first = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * KEYS_PER_THREAD;
  if (first >= n)
    return;
  uint64_t lo = 0, hi = num_segments; /* offsets[lo] <= first < offsets[hi] */
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if ((uint64_t)offsets[mid] <= first)
      lo = mid;
    else
      hi = mid;
  }
  uint64_t end = first + KEYS_PER_THREAD < n ? first + KEYS_PER_THREAD : n;
  for (uint64_t i = first; i < end; i++) {
    while ((uint64_t)offsets[lo + 1] <= i)
      lo++;
    keys[i] = (uint32_t)lo;
  }
}

extern "C" int pscan__cuda_segment_keys(const int64_t *offsets, uint64_t num_segments, uint64_t n,
                                        uint32_t *keys, void *stream) {
  const uint64_t threads = (n + KEYS_PER_THREAD - 1) / KEYS_PER_THREAD;
  segment_keys_kernel<<<(unsigned)((threads + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      offsets, num_segments, n, keys);
  return (int)cudaGetLastError();
}
