/* The lookup of the axis kernels (stamped by axis_stamp.cuh in the generated units axis_<t>.cu,
 * every (input, accumulation) pair of PSCAN_SCAN_PAIRS and every operator of its kind), and the
 * type-independent kernels of scans by offsets. */
#include "common.cuh"
#include "axis_launch.h"

/* The launcher tables of the generated units (axis_<t>.cu, one per input type; every operator
   in PSCAN_OPS order, an empty entry for one the pair does not offer). */
#define X(IN, OUT) extern "C" const pscan__cuda_axis_kernels pscan__cuda_axis_##IN##_##OUT##_table[];
PSCAN_SCAN_PAIRS(X)
#undef X

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

/* expect_n >= 0: also sets bit 4 unless offsets[num_segments] == expect_n. */
static __global__ void offsets_check_kernel(const int64_t *offsets, uint64_t num_segments,
                                            int64_t expect_n, unsigned *bad) {
  const uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s == 0 && offsets[0] != 0)
    atomicOr(bad, 1u);
  if (s < num_segments && offsets[s + 1] < offsets[s])
    atomicOr(bad, 2u);
  if (s == num_segments && expect_n >= 0 && offsets[s] != expect_n)
    atomicOr(bad, 4u);
}

extern "C" int pscan__cuda_offsets_check(const int64_t *offsets, uint64_t num_segments,
                                         int64_t expect_n, unsigned *bad, void *stream) {
  const uint64_t blocks = num_segments / 256 + 1;
  offsets_check_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(offsets, num_segments,
                                                                           expect_n, bad);
  return (int)cudaGetLastError();
}

/* The check of offsets_check_kernel, which also sets the segment starts in head_bits (one bit
   an item, n items, zeroed by the caller), for the scan to read instead of the offsets: at short
   segments the offsets are most of the bytes, and this reads them once. Forward, segment s starts
   at offsets[s]; mirrored (item i the element n - 1 - i), at n - offsets[s + 1]. A warp's starts
   are in order (when the offsets are), so the lanes of one word are neighbours: a segmented OR
   over them leaves the word's bits in its last such lane, which alone writes. Positions outside
   [0, n) (offsets that the check refuses) set nothing; offsets[num_segments] != n sets bit 4. */
static __global__ void offsets_heads_kernel(const int64_t *offsets, uint64_t num_segments,
                                            uint64_t n, int mirror, unsigned *bad,
                                            unsigned *head_bits) {
  const uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31;
  uint64_t at = ~0ull; /* no start here */
  if (s == num_segments && (uint64_t)offsets[s] != n)
    atomicOr(bad, 4u);
  if (s < num_segments) {
    const int64_t o0 = offsets[s], o1 = offsets[s + 1];
    if (s == 0 && o0 != 0)
      atomicOr(bad, 1u);
    if (o1 < o0)
      atomicOr(bad, 2u);
    if (!mirror && (uint64_t)o0 < n)
      at = (uint64_t)o0;
    else if (mirror && (uint64_t)o1 - 1u < n)
      at = n - (uint64_t)o1;
  }
  const uint64_t word = at / 32;
  unsigned bits = at == ~0ull ? 0u : 1u << (at % 32);
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    const uint64_t w = __shfl_up_sync(~0u, word, d);
    const unsigned b = __shfl_up_sync(~0u, bits, d);
    if (lane >= d && w == word)
      bits |= b;
  }
  const uint64_t next = __shfl_down_sync(~0u, word, 1);
  if (bits && (lane == 31 || next != word))
    atomicOr(&head_bits[word], bits);
}

extern "C" int pscan__cuda_offsets_heads(const int64_t *offsets, uint64_t num_segments, uint64_t n,
                                         int mirror, unsigned *bad, unsigned *head_bits,
                                         void *stream) {
  const uint64_t blocks = num_segments / 256 + 1;
  offsets_heads_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(
      offsets, num_segments, n, mirror, bad, head_bits);
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
