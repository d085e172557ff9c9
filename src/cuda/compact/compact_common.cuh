/* Device helpers of the compaction family that do not depend on a stamp: moving a tile of any
 * element size between global and shared memory, and keys of a type known only at run time (the
 * by-key kernels are stamped per value type and op, and read every key type).
 *
 * Shared tile buffers use the scan's swizzle (common.cuh: 16-byte chunks permuted within each
 * 128-byte row); an element never straddles a chunk, so element i of size s lives at
 * pscan__swz(i * s). */
#ifndef PSCAN_CUDA_COMPACT_COMMON_CUH
#define PSCAN_CUDA_COMPACT_COMMON_CUH

/* The compaction kernels without a look-back warp never poll eagerly (scan/lookback.cuh,
   PSCAN__LB_EAGER; the branch moved their spills), but in a build with
   -DPSCAN_CUDA_COMPACT_LB_EAGER=1 run with PSCAN_CUDA_COMPACT_EAGER set (an A/B switch:
   docs/PERFORMANCE.md, "Knobs"). The look-back warp kernels build it in (PSCAN__LBW_LOOK_BACK). */
#ifndef PSCAN_CUDA_COMPACT_LB_EAGER
#define PSCAN_CUDA_COMPACT_LB_EAGER 0
#endif
#define PSCAN__LB_EAGER PSCAN_CUDA_COMPACT_LB_EAGER

#include "../common.cuh"
#include "../../internal.h"

/* Starts copying global elements [first, first + count) of size bytes -> buf; the copy is done
   (for this thread's part) after pscan__stage_wait(). Several stagings may be in flight at once.
   vec: the range starts 16-byte aligned and is a whole number of 16-byte chunks (a full tile of
   an aligned array); otherwise the elements are copied through registers at once. */
static __device__ __forceinline__ void pscan__stage_start(unsigned char *buf, const void *g,
                                                          unsigned long long first, unsigned count,
                                                          unsigned size, bool vec) {
  const unsigned char *src = (const unsigned char *)g + first * size;
  if (vec) {
    for (unsigned c = threadIdx.x; c < count * size / 16; c += PSCAN__THREADS)
      pscan__cp_async16(buf + pscan__swz(c * 16), src + 16 * c);
    pscan__cp_async_commit();
    return;
  }
  for (unsigned i = threadIdx.x; i < count; i += PSCAN__THREADS) {
    unsigned char *d = buf + pscan__swz(i * size);
    switch (size) {
    case 1: *d = src[i]; break;
    case 2: *(uint16_t *)d = ((const uint16_t *)src)[i]; break;
    case 4: *(uint32_t *)d = ((const uint32_t *)src)[i]; break;
    default: *(uint64_t *)d = ((const uint64_t *)src)[i]; break;
    }
  }
}

/* Waits for this thread's stagings; a barrier then makes the whole tile visible. */
static __device__ __forceinline__ void pscan__stage_wait(void) { pscan__cp_async_wait_all(); }

/* pscan__stage_start, then pscan__stage_wait. */
static __device__ __forceinline__ void pscan__stage(unsigned char *buf, const void *g,
                                                    unsigned long long first, unsigned count,
                                                    unsigned size, bool vec) {
  pscan__stage_start(buf, g, first, count, size, vec);
  pscan__stage_wait();
}

/* buf -> global elements [first + from, first + count), the reverse of pscan__stage (vec: from is
   a whole number of 16-byte chunks). */
static __device__ __forceinline__ void pscan__unstage_from(void *g, const unsigned char *buf,
                                                           unsigned long long first, unsigned count,
                                                           unsigned size, bool vec, unsigned from) {
  unsigned char *dst = (unsigned char *)g + first * size;
  if (vec) {
    for (unsigned c = from * size / 16 + threadIdx.x; c < count * size / 16; c += PSCAN__THREADS)
      pscan__st_stream16((uint4 *)(dst + 16 * c), *(const uint4 *)(buf + pscan__swz(c * 16)));
    return;
  }
  for (unsigned i = from + threadIdx.x; i < count; i += PSCAN__THREADS) {
    const unsigned char *s = buf + pscan__swz(i * size);
    switch (size) {
    case 1: dst[i] = *s; break;
    case 2: ((uint16_t *)dst)[i] = *(const uint16_t *)s; break;
    case 4: ((uint32_t *)dst)[i] = *(const uint32_t *)s; break;
    default: ((uint64_t *)dst)[i] = *(const uint64_t *)s; break;
    }
  }
}

/* bytes (a multiple of 8) of a swizzled buffer from byte `from` to registers and back, 16-byte
   chunks at a time: conflict-free when each thread reads consecutive chunks of its own. */
static __device__ __forceinline__ void pscan__read_chunks(const unsigned char *buf, unsigned from,
                                                          unsigned bytes, void *dst) {
#pragma unroll
  for (unsigned q = 0; q < bytes / 16; q++) {
    uint4 c = *(const uint4 *)(buf + pscan__swz(from + 16 * q));
    memcpy((char *)dst + 16 * q, &c, 16);
  }
  if (bytes % 16 == 8) { /* half a chunk (1-byte keys of 8-item threads) */
    uint2 c = *(const uint2 *)(buf + pscan__swz(from + bytes - 8));
    memcpy((char *)dst + bytes - 8, &c, 8);
  }
}
static __device__ __forceinline__ void pscan__write_chunks(unsigned char *buf, unsigned from,
                                                           unsigned bytes, const void *src) {
#pragma unroll
  for (unsigned q = 0; q < bytes / 16; q++) {
    uint4 c;
    memcpy(&c, (const char *)src + 16 * q, 16);
    *(uint4 *)(buf + pscan__swz(from + 16 * q)) = c;
  }
  if (bytes % 16 == 8) {
    uint2 c;
    memcpy(&c, (const char *)src + bytes - 8, 8);
    *(uint2 *)(buf + pscan__swz(from + bytes - 8)) = c;
  }
}

/* One element's bits (zero-extended) from a swizzled buffer, and from / to global memory. */
static __device__ __forceinline__ unsigned long long pscan__elem_bits(const unsigned char *buf,
                                                                      unsigned i, unsigned size) {
  const unsigned char *s = buf + pscan__swz(i * size);
  switch (size) {
  case 1: return *s;
  case 2: return *(const uint16_t *)s;
  case 4: return *(const uint32_t *)s;
  default: return *(const uint64_t *)s;
  }
}
static __device__ __forceinline__ unsigned long long pscan__load_bits(const void *g,
                                                                      unsigned long long i,
                                                                      unsigned size) {
  switch (size) {
  case 1: return ((const uint8_t *)g)[i];
  case 2: return ((const uint16_t *)g)[i];
  case 4: return ((const uint32_t *)g)[i];
  default: return ((const uint64_t *)g)[i];
  }
}
static __device__ __forceinline__ void pscan__store_bits(void *g, unsigned long long i,
                                                         unsigned size, unsigned long long b) {
  switch (size) {
  case 1: ((uint8_t *)g)[i] = (uint8_t)b; break;
  case 2: ((uint16_t *)g)[i] = (uint16_t)b; break;
  case 4: ((uint32_t *)g)[i] = (uint32_t)b; break;
  default: ((uint64_t *)g)[i] = b; break;
  }
}

/* The next tile id from the single-pass modes' tile counter. */
static __device__ __forceinline__ unsigned long long pscan__take_tile(const pscan__cuda_scan_params *lb) {
  return atomicAdd(lb->tile_counter, 1ull) - lb->tile_base;
}

/* The tile a block works on: from the tile counter in the single-pass modes (so that every
   predecessor of a waiting tile has started), else the block index. */
/* While waiting, L2 fetches the likely tile (pscan__prefetch_l2): `tile` elements of a_size bytes
   from a (and of b_size bytes from b, unless b_size is 0); vec: both arrays are 16-byte aligned. */
static __device__ __forceinline__ unsigned long long pscan__compact_tile_id(
    const pscan__cuda_scan_params *lb, unsigned long long *slot, unsigned tile, bool vec,
    const void *a, unsigned a_size, const void *b, unsigned b_size) {
  if (lb->mode != PSCAN__MODE_LOOKBACK && lb->mode != PSCAN__MODE_CHAINED)
    return blockIdx.x;
  if (threadIdx.x == 0) {
    pscan__stagger_first_wave(lb);
    const unsigned long long first = (unsigned long long)blockIdx.x * tile;
    if (vec && first + tile <= lb->n) {
      pscan__prefetch_l2((const char *)a + first * a_size, tile * a_size);
      if (b_size)
        pscan__prefetch_l2((const char *)b + first * b_size, tile * b_size);
    }
    *slot = pscan__take_tile(lb);
  }
  __syncthreads();
  return *slot;
}

/* The keys kernels (compact_tile.cuh), by what they are compiled for: run heads (unique and
   run-length encoding outside look-back mode) with item stores, or one kind of selection with
   16-byte stores. Each kernel compiles only its own gather: the register
   allocation of one selection kernel is what decides its spills (docs/PERFORMANCE.md,
   "Selection kernels"). */
enum { PSCAN__KEYS_ANY, PSCAN__KEYS_SELECT, PSCAN__KEYS_PARTITION };

/* ---- Kernels with a look-back warp (compact_heads.cuh, by_key_heads.cuh) ----
   PSCAN__THREADS tile threads, then one look-back warp; two slots pass tiles from the first to
   the second. Named barriers (common.cuh): TILE, the tile threads among themselves; FULL + s, slot
   s filled (tile threads arrive, look-back warp waits); EMPTY + s, slot s free (look-back warp
   arrives, once for each slot at the start, tile threads wait); PREFIX, a dense tile's prefix
   handed back (look-back warp arrives, tile threads wait); GATHERED, a slot handed over before its
   items were gathered is complete (tile threads arrive, look-back warp waits). */
#define PSCAN__LBW_THREADS (PSCAN__THREADS + 32)
#define PSCAN__LBW_STOP (~0ull) /* a slot's tile id that stops the look-back warp */
enum {
  PSCAN__BAR_TILE = 1,
  PSCAN__BAR_FULL = 2,
  PSCAN__BAR_EMPTY = 4,
  PSCAN__BAR_PREFIX = 6,
  PSCAN__BAR_GATHERED = 7 /* compact_select.cuh: the slot's output buffer is complete */
};

static __device__ __forceinline__ void pscan__lbw_tile_sync(void) {
  pscan__bar_sync(PSCAN__BAR_TILE, PSCAN__THREADS);
}

/* Tile threads: the most kept items (heads) a tile hands to the look-back warp in a slot of
   slot_items (p->sparse_max caps it for A/B runs and tests); a tile keeping more is dense. */
static __device__ __forceinline__ unsigned pscan__lbw_slot_items(const pscan__cuda_compact_params *p,
                                                                 unsigned slot_items) {
  return p->sparse_max && p->sparse_max < slot_items ? p->sparse_max : slot_items;
}

/* Tile threads: the block's first tile id (after the first wave's stagger). */
static __device__ __forceinline__ unsigned long long pscan__lbw_first_tile(
    const pscan__cuda_scan_params *lb, unsigned long long *shared_id) {
  if (threadIdx.x == 0) {
    pscan__stagger_first_wave(lb);
    *shared_id = pscan__take_tile(lb);
  }
  pscan__lbw_tile_sync();
  return *shared_id;
}

/* Tile threads: tell the look-back warp to stop, in slot s (slot_tile: its tile id), which they
   have waited for (pscan__lbw_wait_empty) ... */
static __device__ __forceinline__ void pscan__lbw_stop_free(unsigned s, unsigned long long *slot_tile) {
  if (threadIdx.x == 0)
    *slot_tile = PSCAN__LBW_STOP;
  /* (As after a filled slot: the arrive alone orders the write, but compute-sanitizer's racecheck
     reports the look-back warp's read as a race unless a tile-thread barrier comes between.) */
  pscan__lbw_tile_sync();
  pscan__bar_arrive(PSCAN__BAR_FULL + s, PSCAN__LBW_THREADS);
}
/* ... or not yet. */
static __device__ __forceinline__ void pscan__lbw_stop(unsigned s, unsigned long long *slot_tile) {
  pscan__bar_sync(PSCAN__BAR_EMPTY + s, PSCAN__LBW_THREADS);
  pscan__lbw_stop_free(s, slot_tile);
}

/* Tile threads: slot s is filled (after a tile-thread barrier). */
static __device__ __forceinline__ void pscan__lbw_filled(unsigned s) {
  pscan__bar_arrive(PSCAN__BAR_FULL + s, PSCAN__LBW_THREADS);
}
/* Tile threads: wait until slot s is free. */
static __device__ __forceinline__ void pscan__lbw_wait_empty(unsigned s) {
  pscan__bar_sync(PSCAN__BAR_EMPTY + s, PSCAN__LBW_THREADS);
}
/* Look-back warp: its slots (one or two) start free; wait for slot s; free it; hand a prefix
   back. */
static __device__ __forceinline__ void pscan__lbw_start(unsigned slots) {
  for (unsigned s = 0; s < slots; s++)
    pscan__bar_arrive(PSCAN__BAR_EMPTY + s, PSCAN__LBW_THREADS);
}
static __device__ __forceinline__ void pscan__lbw_wait_full(unsigned s) {
  pscan__bar_sync(PSCAN__BAR_FULL + s, PSCAN__LBW_THREADS);
}
static __device__ __forceinline__ void pscan__lbw_release(unsigned s) {
  pscan__bar_arrive(PSCAN__BAR_EMPTY + s, PSCAN__LBW_THREADS);
}
static __device__ __forceinline__ void pscan__lbw_prefix_ready(void) {
  pscan__bar_arrive(PSCAN__BAR_PREFIX, PSCAN__LBW_THREADS);
}
static __device__ __forceinline__ void pscan__lbw_wait_prefix(void) {
  pscan__bar_sync(PSCAN__BAR_PREFIX, PSCAN__LBW_THREADS);
}

/* A kernel with a look-back warp: `name`, built for min_blocks blocks per multiprocessor, whose
   tile threads run tiles(&p, sm) and whose look-back warp runs look_back(&p, sm), over shared
   memory sm of type SMEM_T: static (PSCAN__LBW_KERNEL) or the launch's dynamic shared memory
   (PSCAN__LBW_KERNEL_DYNAMIC, for a layout whose size depends on the launch). */
#define PSCAN__LBW_RUN(p, sm, tiles, look_back)                                                   \
  pscan__wait_for_predecessor();                                                                  \
  if (threadIdx.x < PSCAN__THREADS)                                                               \
    tiles(&(p), sm);                                                                              \
  else                                                                                            \
    look_back(&(p), sm);
#define PSCAN__LBW_KERNEL(name, min_blocks, SMEM_T, tiles, look_back)                             \
  __global__ void __launch_bounds__(PSCAN__LBW_THREADS, min_blocks)                               \
      name(const pscan__cuda_compact_params p) {                                                  \
    __shared__ SMEM_T sm;                                                                         \
    PSCAN__LBW_RUN(p, &sm, tiles, look_back)                                                      \
  }
extern __shared__ __align__(16) unsigned char pscan__lbw_dynamic_smem[];
#define PSCAN__LBW_KERNEL_DYNAMIC(name, min_blocks, SMEM_T, tiles, look_back)                     \
  __global__ void __launch_bounds__(PSCAN__LBW_THREADS, min_blocks)                               \
      name(const pscan__cuda_compact_params p) {                                                  \
    PSCAN__LBW_RUN(p, (SMEM_T *)pscan__lbw_dynamic_smem, tiles, look_back)                        \
  }

/* Tile threads: hand tile tile_ to the look-back warp in slot s (slot_: sm->slot[s]) with its
   total and whether it is dense. A sparse tile's block takes its next id now; a dense tile's
   takes it once its prefix is known (compact_heads.cuh says why). */
#define PSCAN__LBW_HAND_OVER(p, sm, s, slot_, tile_, total_, dense_)                              \
  do {                                                                                            \
    if (threadIdx.x == 0) {                                                                       \
      (slot_)->tile = (tile_);                                                                    \
      (slot_)->total = (total_);                                                                  \
      (slot_)->dense = (dense_);                                                                  \
      if (!(dense_))                                                                              \
        (sm)->k.tile_id = pscan__take_tile(&(p)->lb);                                             \
    }                                                                                             \
    pscan__lbw_tile_sync(); /* the slot is complete (a sparse tile's next id known) */            \
    pscan__lbw_filled(s);                                                                         \
  } while (0)

/* The look-back warp's loop: the block's tiles in the order they were taken, from its SLOTS
   slots (1 or 2), sm->slot[s] of type SLOT_T (fields tile, total, prefix, dense). A dense tile's
   exclusive prefix goes back to its tile threads; a sparse tile's outputs are the warp's to
   write: the statements SPARSE, with slot, tile, total and before (the tile's exclusive prefix)
   in scope. Used where NAME and ACC_T are the kernel's. The look-back polls eagerly where
   lb.lb_eager asks for it (bit 0: for sparse tiles, bit 1: for dense ones; host/backend.c), in
   every build: docs/PERFORMANCE.md, "The eager poll in the look-back warp". */
#define PSCAN__LBW_LOOK_BACK(SLOT_T, p, sm, SLOTS, ...)                                           \
  pscan__lbw_start(SLOTS);                                                                        \
  for (unsigned s = 0;; s = (SLOTS) > 1 ? s ^ 1u : 0u) {                                          \
    SLOT_T *slot = &(sm)->slot[s];                                                                \
    pscan__lbw_wait_full(s);                                                                      \
    const unsigned long long tile = slot->tile;                                                   \
    if (tile == PSCAN__LBW_STOP)                                                                  \
      return;                                                                                     \
    const ACC_T total = slot->total;                                                              \
    const ACC_T before = NAME(warp_prefix)(&(p)->lb, tile, total,                                 \
                                           ((p)->lb.lb_eager & (slot->dense ? 2 : 1)) != 0);      \
    if (slot->dense) {                                                                            \
      if ((threadIdx.x & 31) == 0)                                                                \
        slot->prefix = before;                                                                    \
      pscan__lbw_prefix_ready();                                                                  \
    } else {                                                                                      \
      __VA_ARGS__                                                                                 \
    }                                                                                             \
    pscan__lbw_release(s);                                                                        \
  }

/* Host: the grid of a look-back warp kernel (one wave of persistent blocks; every tile's block if
   the runtime cannot say how many fit), its first wave's stagger rows, and how far the launch
   moves the tile counter (each block's last take finds no tile). */
static uint64_t pscan__lbw_grid(const void *kernel, size_t dynamic_smem, pscan__cuda_scan_params *lb,
                                uint64_t tiles, uint64_t *taken) {
  const unsigned rows = (unsigned)pscan__resident_blocks(kernel, PSCAN__LBW_THREADS, dynamic_smem);
  if (lb->stagger_ns)
    lb->stagger_rows = rows;
  uint64_t grid = tiles;
  if (rows && grid > (uint64_t)rows * lb->sm_count)
    grid = (uint64_t)rows * lb->sm_count;
  *taken = tiles + grid;
  return grid;
}

/* ---- Dense tiles: the offsets of the kept items (run heads) by rank ----
   Read after the tile's prefix is known, so that the stores of rank j stride over the threads
   (coalesced) with no search for the item of rank j. A thread holds `items` consecutive items and
   a mask of those it keeps; the warp walks its threads' items row by row (row r: lane r's items,
   lane i on item i), so that the kept items of a row have consecutive ranks in consecutive lanes
   (no bank conflicts) and a rank is the row's count plus a popcount. */

/* at[rank] = the offset in the tile of the kept item of that rank, for the kept items of this
   warp's threads. keep, before_count: this thread's mask and the number of items the tile keeps
   before its first one. Every lane of the warp calls it. */
static __device__ __forceinline__ void pscan__rank_offsets(unsigned short *at, unsigned keep,
                                                           unsigned before_count, unsigned items) {
  const unsigned lane = threadIdx.x & 31, below = (1u << lane) - 1u;
#pragma unroll 4
  for (unsigned r = 0; r < 32; r++) {
    const unsigned m = __shfl_sync(PSCAN__FULL_MASK, keep, r);
    const unsigned b = __shfl_sync(PSCAN__FULL_MASK, before_count, r);
    if (m >> lane & 1u)
      at[b + (unsigned)__popc(m & below)] = (unsigned short)(((threadIdx.x & ~31u) + r) * items + lane);
  }
}

#endif /* PSCAN_CUDA_COMPACT_COMMON_CUH */
