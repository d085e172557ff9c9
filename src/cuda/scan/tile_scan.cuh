/* Include-template, part 4: the kernels of one (input type, accumulation type, op) stamp.
 *
 * One tile = PSCAN__THREADS threads x ITEMS_TOTAL consecutive items per thread, up to 32 KB.
 * The whole tile is copied into shared memory with 16-byte cp.async copies (coalesced, no
 * registers), so a block has its entire tile in flight at once. Each thread then walks its items
 * in register batches of ITEMS: it reduces them, the block scans the per-thread totals
 * (block_scan.cuh), the tile learns its exclusive prefix (lookback.cuh, or by mode: launch.h),
 * and each thread scans its items again from shared memory, from its own prefix, writing the
 * results back in place; the tile leaves with coalesced 16-byte stores.
 *
 * Single-pass strategies run one tile per block with tile ids from an atomic counter: a tile
 * starts the moment its id is taken, so a tile that others wait for is always being worked on
 * (docs/PERFORMANCE.md, "One tile per block, 32 KB tiles": holding a prefetched tile id made
 * look-backs wait and cost 40%). Grids of at
 * most one block per multiprocessor are launched cooperatively instead (every block resident at
 * once, so every predecessor is running) and take their block's index: no atomic round trip. */

enum {
  /* A batch holds at most 16 items and 64 bytes of accumulators (16 of 4 bytes, 8 of 8 bytes:
     small types would otherwise need more registers than 5 blocks per SM leave), and at least 16
     bytes of input. */
  TNAME(BATCH_BYTES) = TILE_THREAD_BYTES < 64 ? TILE_THREAD_BYTES : 64,
  TNAME(ITEMS_A) = TNAME(BATCH_BYTES) / ACC_SIZE > 16 ? 16 : TNAME(BATCH_BYTES) / ACC_SIZE,
  TNAME(ITEMS_B) = 16 / sizeof(IN_T) > (unsigned)TNAME(ITEMS_A) ? 16 / sizeof(IN_T) : TNAME(ITEMS_A),
  TNAME(ITEMS) = TNAME(ITEMS_B) > 32 ? 32 : TNAME(ITEMS_B),
  /* Batches per tile: up to TILE_THREAD_BYTES per thread (128: 32 KB tiles). A widening scan
     writes results over input that other batches have not read yet, so it keeps to one batch. */
  TNAME(ELEM_MAX) = sizeof(IN_T) > ACC_SIZE ? sizeof(IN_T) : ACC_SIZE,
  TNAME(BATCHES_A) = TILE_THREAD_BYTES / (TNAME(ITEMS) * TNAME(ELEM_MAX)),
  TNAME(BATCHES) = ACC_SIZE > sizeof(IN_T) || TNAME(BATCHES_A) < 1 ? 1 : TNAME(BATCHES_A),
  TNAME(ITEMS_TOTAL) = TNAME(ITEMS) * TNAME(BATCHES),
  TNAME(TILE) = PSCAN__THREADS * TNAME(ITEMS_TOTAL),
  TNAME(IN_CHUNKS) = TNAME(ITEMS) * sizeof(IN_T) / 16, /* 16-byte chunks of input per batch */
  TNAME(OUT_CHUNKS) = TNAME(ITEMS) * ACC_SIZE / 16,    /* ... and of output */
  TNAME(TILE_BYTES) = TNAME(TILE) * TNAME(ELEM_MAX)
};
#define ITEMS TNAME(ITEMS)
#define BATCHES TNAME(BATCHES)
#define TILE TNAME(TILE)

typedef struct TNAME(smem) {
  __align__(16) unsigned char tile[TNAME(TILE_BYTES)];
  ACC_T scan[2 * PSCAN__THREADS];
  ACC_T prefix; /* the tile's exclusive prefix, broadcast by warp 0 */
  unsigned long long tile_id;
  unsigned warp_heads[PSCAN__WARPS]; /* scan_lines_kernel: a line starts in the warp's items */
} TNAME(smem);

static __device__ __forceinline__ unsigned TNAME(tile_valid)(const pscan__cuda_scan_params *p,
                                                            unsigned long long tile) {
  return pscan__tile_items(p->n, tile * (unsigned long long)TILE, TILE);
}

/* One element global -> shared, asynchronously where cp.async copies its size (4 or 8 bytes). */
static __device__ __forceinline__ void TNAME(copy_item)(unsigned char *dst, const IN_T *src) {
  if (sizeof(IN_T) >= 4)
    pscan__cp_async_unit(dst, src, (unsigned)sizeof(IN_T));
  else
    *(IN_T *)dst = *src;
}

/* Global -> shared (swizzled) for tile elements [start, start + valid): the copies are issued
   (16-byte cp.async where whole); load_tile_wait completes them. p->mirror: item i is at in[-i]
   (a reversed view). A whole tile of a span whose chunks are aligned (p->mirror_vec) is copied
   in 16-byte chunks, shared chunk c from the span's c-th chunk counted from its top, each
   chunk's elements still in reverse (load_tile_wait puts them in order); otherwise element by
   element toward lower addresses (a warp's copies still cover one contiguous span). */
static __device__ __forceinline__ void TNAME(load_tile_issue)(const pscan__cuda_scan_params *p,
                                                             unsigned char *buf,
                                                             unsigned long long start,
                                                             unsigned valid) {
  if (p->mirror) {
    const IN_T *in = (const IN_T *)p->in - start;
    if (p->mirror_vec && valid == TILE) {
      pscan__mirror_chunks_issue(buf, (const uint4 *)(in - (TILE - 1)),
                                 TNAME(IN_CHUNKS) * BATCHES * PSCAN__THREADS);
    } else if (valid == TILE) {
#pragma unroll 8
      for (unsigned j = 0; j < TILE / PSCAN__THREADS; j++) {
        const unsigned i = threadIdx.x + j * PSCAN__THREADS;
        TNAME(copy_item)(buf + pscan__swz(i * (unsigned)sizeof(IN_T)), in - i);
      }
    } else {
      for (unsigned i = threadIdx.x; i < valid; i += PSCAN__THREADS)
        TNAME(copy_item)(buf + pscan__swz(i * (unsigned)sizeof(IN_T)), in - i);
    }
    pscan__cp_async_commit();
    return;
  }
  const IN_T *in = (const IN_T *)p->in + start;
  if (p->vector_io && valid == TILE) {
    const uint4 *src = (const uint4 *)in;
#pragma unroll
    for (int v = 0; v < TNAME(IN_CHUNKS) * BATCHES; v++) {
      unsigned c = threadIdx.x + v * PSCAN__THREADS;
      pscan__cp_async16(buf + pscan__swz(c * 16), src + c);
    }
    pscan__cp_async_commit();
  } else {
    for (unsigned i = threadIdx.x; i < valid; i += PSCAN__THREADS)
      *(IN_T *)(buf + pscan__swz(i * (unsigned)sizeof(IN_T))) = in[i];
  }
}
/* Waits for this thread's copies of load_tile_issue; a mirrored tile copied in chunks has its
   chunks' elements put in order, each thread the chunks it copied (no barrier needed). */
static __device__ __forceinline__ void TNAME(load_tile_wait)(const pscan__cuda_scan_params *p,
                                                            unsigned char *buf, unsigned valid) {
  pscan__cp_async_wait_all();
  if (p->mirror_vec && valid == TILE)
    pscan__mirror_chunks_order(buf, TNAME(IN_CHUNKS) * BATCHES * PSCAN__THREADS,
                               (unsigned)sizeof(IN_T));
}
static __device__ __forceinline__ void TNAME(load_tile)(const pscan__cuda_scan_params *p,
                                                       unsigned char *buf, unsigned long long start,
                                                       unsigned valid) {
  TNAME(load_tile_issue)(p, buf, start, valid);
  TNAME(load_tile_wait)(p, buf, valid);
}

/* Shared -> batch b of this thread's items, in the accumulation type. Items past the end of a
   partial tile read as the identity. */
static __device__ __forceinline__ void TNAME(read_batch)(const unsigned char *buf, unsigned valid,
                                                        int b, ACC_T items[ITEMS]) {
  enum { PER_CHUNK = 16 / sizeof(IN_T) };
  const unsigned first_chunk = (threadIdx.x * BATCHES + b) * TNAME(IN_CHUNKS);
#pragma unroll
  for (int q = 0; q < TNAME(IN_CHUNKS); q++) {
    uint4 c = *(const uint4 *)(buf + pscan__swz((first_chunk + q) * 16));
    IN_T v[PER_CHUNK];
    memcpy(v, &c, 16);
#pragma unroll
    for (int k = 0; k < PER_CHUNK; k++)
      items[q * PER_CHUNK + k] = (ACC_T)v[k];
  }
  if (valid < TILE) {
    const unsigned first_item = (threadIdx.x * BATCHES + b) * ITEMS;
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      if (first_item + i >= valid)
        items[i] = NAME(identity)();
  }
}

/* Batch b of this thread's results -> shared (swizzled, accumulation type), over the input. */
static __device__ __forceinline__ void TNAME(write_batch)(unsigned char *out_buf, int b,
                                                         const ACC_T items[ITEMS]) {
  const unsigned first_chunk = (threadIdx.x * BATCHES + b) * TNAME(OUT_CHUNKS);
#pragma unroll
  for (int q = 0; q < TNAME(OUT_CHUNKS); q++) {
    uint4 c;
    memcpy(&c, items + q * (16 / ACC_SIZE), 16);
    *(uint4 *)(out_buf + pscan__swz((first_chunk + q) * 16)) = c;
  }
}

/* Shared -> global for a tile of reversed lines going into forward ones (p->out_line_step):
   item i of the mirrored span to out[i % len + (i / len) * step], in 16-byte chunks where
   vector_io (the host checked that len and step are whole chunks) or element by element; a
   warp's stores stay contiguous within a line. */
static __device__ __forceinline__ void TNAME(store_tile_lines)(const pscan__cuda_scan_params *p,
                                                              const unsigned char *buf,
                                                              unsigned long long start,
                                                              unsigned valid) {
  ACC_T *out = (ACC_T *)p->out;
  const int64_t step = p->out_line_step;
  if (p->vector_io && valid == TILE) {
    enum { PER = 16 / ACC_SIZE };
    pscan__line_walk w = pscan__line_walk_at(start + threadIdx.x * PER, PSCAN__THREADS * PER,
                                             p->segment_len);
#pragma unroll 4
    for (int v = 0; v < TNAME(OUT_CHUNKS) * BATCHES; v++) {
      const unsigned c = threadIdx.x + v * PSCAN__THREADS;
      pscan__st_stream16((uint4 *)(out + (int64_t)w.col + (int64_t)w.line * step),
                         *(const uint4 *)(buf + pscan__swz(c * 16)));
      pscan__line_walk_next(&w);
    }
    return;
  }
  pscan__line_walk w = pscan__line_walk_at(start + threadIdx.x, PSCAN__THREADS, p->segment_len);
  for (unsigned i = threadIdx.x; i < valid; i += PSCAN__THREADS) {
    out[(int64_t)w.col + (int64_t)w.line * step] =
        *(const ACC_T *)(buf + pscan__swz(i * (unsigned)ACC_SIZE));
    pscan__line_walk_next(&w);
  }
}

/* Shared -> global for the tile's results (p->mirror: item i to out[-i], unless p->out_forward;
   with p->mirror_vec a whole tile in 16-byte chunks, each reversed on its way, shared chunk c to
   the span's c-th chunk counted from its top). */
static __device__ __forceinline__ void TNAME(store_tile)(const pscan__cuda_scan_params *p,
                                                        const unsigned char *buf,
                                                        unsigned long long start, unsigned valid) {
  if (p->out_line_step) {
    TNAME(store_tile_lines)(p, buf, start, valid);
    return;
  }
  if (p->mirror && !p->out_forward) {
    ACC_T *out = (ACC_T *)p->out - start;
    if (p->mirror_vec && valid == TILE) {
      pscan__mirror_chunks_store((uint4 *)(out - (TILE - 1)), buf,
                                 TNAME(OUT_CHUNKS) * BATCHES * PSCAN__THREADS, (unsigned)ACC_SIZE);
    } else if (valid == TILE) {
#pragma unroll 8
      for (unsigned j = 0; j < TILE / PSCAN__THREADS; j++) {
        const unsigned i = threadIdx.x + j * PSCAN__THREADS;
        *(out - i) = *(const ACC_T *)(buf + pscan__swz(i * (unsigned)ACC_SIZE));
      }
    } else {
      for (unsigned i = threadIdx.x; i < valid; i += PSCAN__THREADS)
        *(out - i) = *(const ACC_T *)(buf + pscan__swz(i * (unsigned)ACC_SIZE));
    }
    return;
  }
  ACC_T *out = (ACC_T *)p->out + start;
  if (p->vector_io && valid == TILE) {
    uint4 *dst = (uint4 *)out;
#pragma unroll
    for (int v = 0; v < TNAME(OUT_CHUNKS) * BATCHES; v++) {
      unsigned c = threadIdx.x + v * PSCAN__THREADS;
      pscan__st_stream16(dst + c, *(const uint4 *)(buf + pscan__swz(c * 16)));
    }
  } else {
    for (unsigned i = threadIdx.x; i < valid; i += PSCAN__THREADS)
      out[i] = *(const ACC_T *)(buf + pscan__swz(i * (unsigned)ACC_SIZE));
  }
}

/* Whether the stamp sums 1- or 2-byte integers into their own type: a full tile's thread total
   then adds four (two) items per instruction, straight from the packed words (dp4a, dp2a), where
   the general loop unpacks each item first (docs/PERFORMANCE.md, "Packed sums of 8- and 16-bit
   items"). Wrapping sums in any order give the same bits, so mirrored tiles take it too. */
#if IS_FLOAT
#define TILE_PACKED_SUM 0
#else
#define TILE_PACKED_SUM (OP == PSCAN_SUM && ACC_SIZE == sizeof(IN_T) && ACC_SIZE <= 2)
#endif

/* A full tile's reduction of this thread's items, a packed word at a time (TILE_PACKED_SUM). */
static __device__ __forceinline__ ACC_T TNAME(thread_sum_packed)(const unsigned char *buf) {
  const unsigned first_chunk = threadIdx.x * BATCHES * TNAME(IN_CHUNKS);
  unsigned sum = 0;
#pragma unroll
  for (int q = 0; q < TNAME(IN_CHUNKS) * BATCHES; q++) {
    const uint4 c = *(const uint4 *)(buf + pscan__swz((first_chunk + q) * 16));
    if (sizeof(IN_T) == 1) {
      sum = __dp4a(c.x, 0x01010101u, sum);
      sum = __dp4a(c.y, 0x01010101u, sum);
      sum = __dp4a(c.z, 0x01010101u, sum);
      sum = __dp4a(c.w, 0x01010101u, sum);
    } else {
      sum = __dp2a_lo(c.x, 0x0101u, sum);
      sum = __dp2a_lo(c.y, 0x0101u, sum);
      sum = __dp2a_lo(c.z, 0x0101u, sum);
      sum = __dp2a_lo(c.w, 0x0101u, sum);
    }
  }
  return (ACC_T)sum; /* the sum modulo 2^(8 ACC_SIZE), as the wrapping op gives it */
}

/* A full tile's scan of this thread's 8-bit items over the input, four to a word, from carry. */
static __device__ __forceinline__ void TNAME(scan_packed8)(unsigned char *buf, ACC_T carry,
                                                           bool exclusive) {
  const unsigned first_chunk = threadIdx.x * BATCHES * TNAME(IN_CHUNKS);
  unsigned c = (unsigned char)carry;
#pragma unroll
  for (int q = 0; q < TNAME(IN_CHUNKS) * BATCHES; q++) {
    uint4 *at = (uint4 *)(buf + pscan__swz((first_chunk + q) * 16));
    uint4 v = *at;
    v.x = pscan__scan_word8(v.x, &c, exclusive);
    v.y = pscan__scan_word8(v.y, &c, exclusive);
    v.z = pscan__scan_word8(v.z, &c, exclusive);
    v.w = pscan__scan_word8(v.w, &c, exclusive);
    *at = v;
  }
}

/* The reduction of this thread's items (all batches). */
static __device__ __forceinline__ ACC_T TNAME(thread_total)(const unsigned char *buf,
                                                           unsigned valid) {
  if (TILE_PACKED_SUM && valid == TILE)
    return TNAME(thread_sum_packed)(buf);
  ACC_T items[ITEMS];
  ACC_T mine = NAME(identity)();
#pragma unroll
  for (int b = 0; b < BATCHES; b++) {
    TNAME(read_batch)(buf, valid, b, items);
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      mine = NAME(op)(mine, items[i]);
  }
  return mine;
}

/* This thread's items of the tile in buf scanned from carry, the results over the input. A wider
   output (one batch) lands over other threads' input, so it waits until every thread has read
   its own. */
static __device__ __forceinline__ void TNAME(scan_thread_items)(const pscan__cuda_scan_params *p,
                                                                unsigned char *buf,
                                                                unsigned long long tile,
                                                                unsigned valid, ACC_T carry) {
  /* (An integer sum's identity is its API identity: the exclusive tile 0 needs no case.) */
  if (TILE_PACKED_SUM && sizeof(IN_T) == 1 && valid == TILE) {
    TNAME(scan_packed8)(buf, carry, p->exclusive);
    return;
  }
  const bool widen = ACC_SIZE > sizeof(IN_T);
  ACC_T items[ITEMS];
#pragma unroll
  for (int b = 0; b < BATCHES; b++) {
    TNAME(read_batch)(buf, valid, b, items);
    if (p->exclusive) {
#pragma unroll
      for (int i = 0; i < ITEMS; i++) {
        ACC_T x = items[i];
        items[i] = carry;
        carry = NAME(op)(carry, x);
      }
      if (b == 0 && tile == 0 && threadIdx.x == 0 && !p->has_init)
        items[0] = NAME(api_identity)();
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; i++) {
        carry = NAME(op)(carry, items[i]);
        items[i] = carry;
      }
    }
    if (widen)
      __syncthreads(); /* every thread has read its input chunks of this batch region */
    TNAME(write_batch)(buf, b, items);
  }
}

/* Scans a tile already in sm->tile and stores it. */
static __device__ __forceinline__ void TNAME(scan_loaded_tile)(const pscan__cuda_scan_params *p,
                                                               TNAME(smem) *sm,
                                                               unsigned long long tile,
                                                               ACC_T *running, const bool ordered) {
  const unsigned long long start = tile * (unsigned long long)TILE;
  const unsigned valid = TNAME(tile_valid)(p, tile);
  ACC_T before, total;
  /* (The small tiles serve PSCAN_BLOCK_AUTO only: warp scans.) */
  const int block_algo = TILE_SCAN_ONLY ? (int)PSCAN_BLOCK_WARP_SCANS : p->block_algo;
  NAME(block_scan)(block_algo, TNAME(thread_total)(sm->tile, valid), sm->scan, &before, &total);
  const ACC_T carry =
      NAME(op)(NAME(tile_prefix)(p, &sm->prefix, sm->scan, tile, total, running, ordered), before);
  TNAME(scan_thread_items)(p, sm->tile, tile, valid, carry);
  __syncthreads();
  TNAME(store_tile)(p, sm->tile, start, valid);
  __syncthreads(); /* the buffer is reused by the next tile (single-block mode) */
}

static __device__ __forceinline__ void TNAME(scan_one_tile)(const pscan__cuda_scan_params *p,
                                                            TNAME(smem) *sm,
                                                            unsigned long long tile,
                                                            ACC_T *running, const bool ordered) {
  TNAME(load_tile)(p, sm->tile, tile * (unsigned long long)TILE, TNAME(tile_valid)(p, tile));
  __syncthreads();
  TNAME(scan_loaded_tile)(p, sm, tile, running, ordered);
}

/* Resident blocks per multiprocessor: a tile's block spends about half its life waiting on its
   look-back (ncu; docs/PERFORMANCE.md, "Blocks per multiprocessor"), so a sixth block per
   multiprocessor (40 registers;
   six 32 KB tiles still fit in shared memory) keeps more bytes in flight. Measured (A/Bs, same
   call): i32 +0.5 to +2 points, f64 +0.5 to +1.9, and — once the ordered look-back left the
   plain kernels — f32 +0.4 to +1.8 and i64 +0.3 to +2.4 at 2^24-2^28 (with it compiled in, f32
   and i64 had lost). Small tiles keep five (at most one wave). */
#if TILE_SCAN_ONLY
#define TILE_MIN_BLOCKS PSCAN__MIN_BLOCKS
#else
#define TILE_MIN_BLOCKS PSCAN__MIN_BLOCKS_HIGH
#endif

/* The tile a block of a multi-block launch scans: in the single-pass modes the next id from
   the counter (L2 starts fetching the likely tile first), else (and in a cooperative launch)
   its block index. */
static __device__ __forceinline__ unsigned long long TNAME(take_tile)(const pscan__cuda_scan_params *p,
                                                                      TNAME(smem) *sm) {
  unsigned long long tile = blockIdx.x;
  if ((p->mode == PSCAN__MODE_LOOKBACK || p->mode == PSCAN__MODE_CHAINED) && !p->tile_from_block) {
    if (threadIdx.x == 0) {
      pscan__stagger_first_wave(p);
      if (p->mirror && (tile + 1) * TILE <= p->n) /* its span, widened to 16 bytes */
        pscan__prefetch_l2_span((const IN_T *)p->in - (tile * TILE + TILE - 1),
                                TILE * (unsigned long long)sizeof(IN_T));
      else if (p->vector_io && (tile + 1) * TILE <= p->n) /* the likely tile (common.cuh) */
        pscan__prefetch_l2((const IN_T *)p->in + tile * TILE, TILE * (unsigned)sizeof(IN_T));
      sm->tile_id = atomicAdd(p->tile_counter, 1ull) - p->tile_base;
    }
    __syncthreads();
    tile = sm->tile_id;
  }
  return tile;
}

/* ordered: whether deterministic mode's ordered look-back is compiled in (scan_kernel_ordered). */
static __device__ __forceinline__ void TNAME(scan_body)(const pscan__cuda_scan_params *p,
                                                        TNAME(smem) *sm, const bool ordered) {
  if (p->mode == PSCAN__MODE_SINGLE) {
    ACC_T running = p->has_init ? NAME(from_bits)((NAME(bits_t))p->init) : NAME(identity)();
    for (unsigned long long tile = 0; tile < p->num_tiles; tile++)
      TNAME(scan_one_tile)(p, sm, tile, &running, ordered);
    return;
  }
  TNAME(scan_one_tile)(p, sm, TNAME(take_tile)(p, sm), NULL, ordered);
}

#if !TILE_KEYS_ONLY
__global__ void __launch_bounds__(PSCAN__THREADS, TILE_MIN_BLOCKS)
    TNAME(scan_kernel)(const pscan__cuda_scan_params p) {
  __shared__ TNAME(smem) sm;
  pscan__wait_for_predecessor();
  TNAME(scan_body)(&p, &sm, false);
}
#if STAMP_ORDERED
/* Deterministic mode (float sums and products): the same with the ordered look-back. */
__global__ void __launch_bounds__(PSCAN__THREADS, TILE_MIN_BLOCKS)
    TNAME(scan_kernel_ordered)(const pscan__cuda_scan_params p) {
  __shared__ TNAME(smem) sm;
  pscan__wait_for_predecessor();
  TNAME(scan_body)(&p, &sm, true);
}
#define TILE_SCAN_KERNEL(det) ((det) ? TNAME(scan_kernel_ordered) : TNAME(scan_kernel))
#else
#define TILE_SCAN_KERNEL(det) TNAME(scan_kernel)
#endif
#endif /* !TILE_KEYS_ONLY */

/* lines back to back, segments by offsets or keys: the large tiles; keys: the half tiles too */
#define TILE_BY_KEY PSCAN__PAIR_SAME_SIZE
#if !TILE_SCAN_ONLY
#include "tile_lines.cuh"
#endif

#if !TILE_SCAN_ONLY && !TILE_KEYS_ONLY /* the multi-pass strategies: the large tiles only */
/* Reduce-then-scan, first pass: tile totals (tile 0 without init). */
__global__ void __launch_bounds__(PSCAN__THREADS)
    TNAME(reduce_kernel)(const pscan__cuda_scan_params p) {
  __shared__ TNAME(smem) sm;
  pscan__wait_for_predecessor();
  const unsigned long long tile = blockIdx.x;
  const unsigned valid = TNAME(tile_valid)(&p, tile);
  TNAME(load_tile)(&p, sm.tile, tile * (unsigned long long)TILE, valid);
  __syncthreads();
  ACC_T total = NAME(block_reduce)(TNAME(thread_total)(sm.tile, valid), sm.scan);
  if (threadIdx.x == 0)
    ((ACC_T *)p.tile_values)[tile] = total;
}

/* Scan-then-propagate, last pass: out = prefix(tile) ⊕ out for tiles 1 .. num_tiles-1. */
__global__ void __launch_bounds__(PSCAN__THREADS)
    TNAME(propagate_kernel)(const pscan__cuda_scan_params p) {
  pscan__wait_for_predecessor();
  const unsigned long long tile = blockIdx.x + 1ull, start = tile * (unsigned long long)TILE;
  const unsigned valid = TNAME(tile_valid)(&p, tile);
  const ACC_T e = ((const ACC_T *)p.tile_values)[tile];
  ACC_T *out = (ACC_T *)p.out + start;
  for (unsigned i = threadIdx.x; i < valid; i += PSCAN__THREADS)
    out[i] = NAME(op)(e, out[i]);
}
#endif

static int TNAME(launch_tiles)(void (*kernel)(const pscan__cuda_scan_params),
                               const pscan__cuda_scan_params *p, uint64_t grid, void *stream) {
  pscan__cuda_scan_params q = *p;
  if (q.stagger_ns && !q.tile_from_block)
    q.stagger_rows = (unsigned)pscan__wave_rows((const void *)kernel, 0);
  /* (tile_from_block: cooperative, host/scan.c: launch_single_pass) */
  return pscan__launch((const void *)kernel, grid, PSCAN__THREADS, 0, stream, &q, q.pdl,
                       q.tile_from_block);
}
#if !TILE_KEYS_ONLY
static int TNAME(launch_scan)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream) {
  return TNAME(launch_tiles)(TILE_SCAN_KERNEL(p->deterministic), p, grid, stream);
}
#endif
#if !TILE_SCAN_ONLY && !TILE_KEYS_ONLY
static int TNAME(launch_scan_lines)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream) {
  return TNAME(launch_tiles)(TNAME(scan_lines_kernel), p, grid, stream);
}
static int TNAME(launch_scan_segments)(const pscan__cuda_scan_params *p, uint64_t grid,
                                       void *stream) {
  return TNAME(launch_tiles)(TNAME(scan_segments_kernel), p, grid, stream);
}
#endif
#if !TILE_SCAN_ONLY && TILE_BY_KEY
static int TNAME(launch_scan_keys)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream) {
  return TNAME(launch_tiles)(TNAME(scan_keys_kernel), p, grid, stream);
}
#endif
#undef TILE_BY_KEY
#if !TILE_SCAN_ONLY && !TILE_KEYS_ONLY
static int TNAME(launch_reduce)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream) {
  return pscan__launch((const void *)TNAME(reduce_kernel), grid, PSCAN__THREADS, 0, stream, p,
                       p->pdl, 0);
}
static int TNAME(launch_propagate)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream) {
  return pscan__launch((const void *)TNAME(propagate_kernel), grid, PSCAN__THREADS, 0, stream, p,
                       p->pdl, 0);
}
#endif

#undef ITEMS
#undef BATCHES
#undef TILE
#undef TILE_MIN_BLOCKS
#undef TILE_SCAN_KERNEL
#undef TILE_PACKED_SUM
#undef TNAME
#undef TILE_THREAD_BYTES
#undef TILE_SCAN_ONLY
#undef TILE_KEYS_ONLY
