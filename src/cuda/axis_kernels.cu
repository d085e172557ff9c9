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

/* tile_segment[t]: the first s in [1, num_segments] with offsets[s] >= t * tile_items, by a
   binary search per tile (one thread each: a few dependent loads, the upper levels shared in
   L2). The by-key kernel reads the tile's heads from there on (by_key_tile.cuh). */
static __global__ void tile_segments_kernel(const int64_t *offsets, uint64_t num_segments,
                                            uint64_t num_tiles, unsigned tile_items,
                                            uint64_t *tile_segment) {
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= num_tiles)
    return;
  const int64_t start = (int64_t)(t * tile_items);
  uint64_t lo = 1, hi = num_segments; /* the answer is in [lo, hi]; offsets[num_segments] == n */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] >= start)
      hi = mid;
    else
      lo = mid + 1;
  }
  tile_segment[t] = lo;
}

extern "C" int pscan__cuda_tile_segments(const int64_t *offsets, uint64_t num_segments,
                                         uint64_t num_tiles, unsigned tile_items,
                                         uint64_t *tile_segment, void *stream) {
  tile_segments_kernel<<<(unsigned)((num_tiles + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      offsets, num_segments, num_tiles, tile_items, tile_segment);
  return (int)cudaGetLastError();
}
