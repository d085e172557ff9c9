/* Include-template: the single-pass kernel of reduce_by_key and scan_by_key (the segmented scan)
 * for one value type and operator; keys of any type (read by size, compared by type at run
 * time). The includer has stamped the value operator under VNAME (scan_ops.cuh), the pair
 * accumulator with the value reduction as x (compact_ops.cuh, CX_BY_KEY) and lookback.cuh under
 * NAME, and set BY_KEY_ITEMS (by_key_stamp.cuh: 8-byte values have a second stamp of half-size
 * tiles).
 *
 * Each item is the pair (head, value), head = the item starts a run of equal keys; the scan of
 * these pairs under the pair operator gives, at every item, the number of heads so far and the
 * reduction of the values since the last one (Blelloch's segmented scan as an ordinary scan of
 * pairs; Sengupta et al. 2007). A tile of PSCAN__THREADS x 16 items is staged in shared memory
 * (keys, then values, in dynamic shared memory sized for the call's key type), each thread
 * reduces its items, the block scans the per-thread pairs and the
 * tile learns its prefix by the scan's decoupled look-back; then each thread walks its items
 * again from its own prefix:
 *  - reduce_by_key: a head closes the run before it (vals_out[r-1] for head r, its key goes to
 *    keys_out[r]); the last tile closes the last run;
 *  - scan_by_key: every item's result goes back over its value in shared memory, and the tile
 *    leaves with coalesced stores (in place is safe: a tile writes only its own range).
 * The first item of a tile compares with the key before the tile, read from global memory
 * (keys are never written). With init, every segment starts from init. */

#define V_T PSCAN__CAT(PSCAN__CTYPE_, VAL)
/* BY_KEY_ITEMS (the includer's): items a thread holds, 16 or 8 (a power of two, at most 32: one
   bit each in a mask). */
enum { NAME(ITEMS) = BY_KEY_ITEMS, NAME(TILE) = PSCAN__THREADS * NAME(ITEMS) };
#define ITEMS NAME(ITEMS)
#define TILE NAME(TILE)

/* Walks this thread's first `mine` items in order, carry holding the pair before the item: at
   a head, the statements ON_HEAD run with i (the item's index in the thread) and r (the head's
   rank, carry.count: the runs before it); the run the head closes is carry.x. Every path that
   stores runs walks them so. */
#define BY_KEY_FOR_HEADS(v, heads, mine, carry, ...)                                              \
  _Pragma("unroll") for (unsigned i = 0; i < ITEMS; i++) {                                        \
    if (i >= (mine))                                                                              \
      break;                                                                                      \
    const bool head_ = (heads) >> i & 1u;                                                         \
    if (head_) {                                                                                  \
      const unsigned long long r = (carry).count;                                                 \
      __VA_ARGS__                                                                                 \
    }                                                                                             \
    (carry) = NAME(op)((carry), NAME(make)(head_, (v)[i]));                                       \
  }

/* The tile itself (TILE keys, then TILE values) is in dynamic shared memory, sized for the
   call's key type: pscan__by_key_tiles. */
extern __shared__ __align__(16) unsigned char pscan__by_key_tiles[];

typedef struct NAME(by_key_smem) {
  ACC_T scan[32]; /* the look-back's window (ordered mode) */
  unsigned warp_count[PSCAN__WARPS];
  V_T warp_x[PSCAN__WARPS];
  ACC_T prefix;
  unsigned long long tile_id;
  unsigned long long key_before; /* the bits of the key before the tile */
  unsigned first_head;           /* scan_by_key: the tile's first run head (valid if none) */
  V_T first_run;                 /* reduce_by_key: the tile's part of the run its first head closes */
} NAME(by_key_smem);

/* Bit i: this thread's item i starts a run (items past the end never do). The thread's keys are
   read in 16-byte chunks, as integers of the key's size, and compared as EQ says, C's == in the
   key's type (equal bits for integers; NaN never equal, -0.0 == +0.0 for floats): the key type's
   test is made once, not per item. */
#define PSCAN__HEADS_OF(KT, EQ)                                                              \
  do {                                                                                       \
    KT k[ITEMS];                                                                             \
    pscan__read_chunks(keys, first * (unsigned)sizeof(KT), ITEMS * (unsigned)sizeof(KT), k); \
    KT prev_ = (KT)prev;                                                                     \
    _Pragma("unroll") for (unsigned i = 0; i < ITEMS; i++) {                                 \
      if (i < mine && !EQ(prev_, k[i]))                                                      \
        heads |= 1u << i;                                                                    \
      prev_ = k[i];                                                                          \
    }                                                                                        \
  } while (0)
#define PSCAN__BITS_EQ(a, b) ((a) == (b))
#define PSCAN__F32_EQ(a, b) (__uint_as_float(a) == __uint_as_float(b))
#define PSCAN__F64_EQ(a, b) (__longlong_as_double((long long)(a)) == __longlong_as_double((long long)(b)))

static __device__ __forceinline__ unsigned NAME(head_mask)(const pscan__cuda_compact_params *p,
                                                           const NAME(by_key_smem) *sm,
                                                           const unsigned char *keys,
                                                           unsigned long long start,
                                                           unsigned mine) {
  const unsigned first = threadIdx.x * ITEMS, ks = (unsigned)p->key_size;
  unsigned long long prev = threadIdx.x > 0 ? pscan__elem_bits(keys, first - 1, ks)
                                            : sm->key_before;
  unsigned heads = 0;
  switch (ks) {
  case 1: PSCAN__HEADS_OF(uint8_t, PSCAN__BITS_EQ); break;
  case 2: PSCAN__HEADS_OF(uint16_t, PSCAN__BITS_EQ); break;
  case 4:
    if (p->key_type == PSCAN_F32)
      PSCAN__HEADS_OF(uint32_t, PSCAN__F32_EQ);
    else
      PSCAN__HEADS_OF(uint32_t, PSCAN__BITS_EQ);
    break;
  default:
    if (p->key_type == PSCAN_F64)
      PSCAN__HEADS_OF(unsigned long long, PSCAN__F64_EQ);
    else
      PSCAN__HEADS_OF(unsigned long long, PSCAN__BITS_EQ);
    break;
  }
  if (start == 0 && threadIdx.x == 0)
    heads |= 1u;
  return heads;
}
#undef PSCAN__HEADS_OF
#undef PSCAN__BITS_EQ
#undef PSCAN__F32_EQ
#undef PSCAN__F64_EQ

/* Segments by offsets (pscan_segmented_scan): the heads are the segment starts in the tile,
   in a bitmap of the tile in the keys' buffer (TILE bytes: a key of one byte); each thread takes
   its ITEMS bits (ITEMS divides 32). */
static __device__ __forceinline__ unsigned NAME(head_mask_offsets)(
    const pscan__cuda_compact_params *p, unsigned *bitmap, unsigned long long tile,
    unsigned long long start, unsigned valid) {
  pscan__segment_bitmap(bitmap, TILE / 32, p->offsets, p->num_segments, p->tile_segment[tile],
                        start, start + valid);
  const unsigned first = threadIdx.x * ITEMS;
  return (bitmap[first / 32] >> (first % 32)) & (ITEMS == 32 ? ~0u : (1u << ITEMS) - 1u);
}

/* A value shuffled up d lanes, in one 32-bit shuffle when it fits. */
static __device__ __forceinline__ V_T NAME(shfl_up_value)(V_T v, unsigned d) {
  if (sizeof(V_T) <= 4) {
    unsigned b = 0;
    memcpy(&b, &v, sizeof v);
    b = __shfl_up_sync(PSCAN__FULL_MASK, b, d);
    memcpy(&v, &b, sizeof v);
    return v;
  }
  return NAME(x_from)(__shfl_up_sync(PSCAN__FULL_MASK, NAME(x_bits)(v), d));
}

/* The pair operator on a 32-bit head count (a tile has at most 4096 items): (c, v) = (c1, v1) . (c2, v2). */
static __device__ __forceinline__ void NAME(combine32)(unsigned *c, V_T *v, unsigned c2, V_T v2) {
  *v = c2 ? v2 : CX_OP(*v, v2);
  *c += c2;
}

/* The block's exclusive scan (and total) of the per-thread pairs (heads, values since the last
   head), with 32-bit counts: fewer shuffles than the 64-bit pair accumulator, and the same fixed
   order of combination (so deterministic for floats). tile_sync: the tile threads' named barrier
   instead of __syncthreads (the block has a look-back warp too: by_key_heads.cuh). */
static __device__ __forceinline__ void NAME(block_pairs)(NAME(by_key_smem) *sm, unsigned count,
                                                         V_T x, ACC_T *excl, ACC_T *total,
                                                         const bool tile_sync) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned c = count;
  V_T v = x;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    unsigned c_up = __shfl_up_sync(PSCAN__FULL_MASK, c, d);
    V_T v_up = NAME(shfl_up_value)(v, d);
    if (lane >= d) { /* (c_up, v_up) . (c, v) */
      NAME(combine32)(&c_up, &v_up, c, v);
      c = c_up;
      v = v_up;
    }
  }
  if (lane == 31) {
    sm->warp_count[warp] = c;
    sm->warp_x[warp] = v;
  }
  unsigned c_lane = __shfl_up_sync(PSCAN__FULL_MASK, c, 1); /* the lanes before mine */
  V_T v_lane = NAME(shfl_up_value)(v, 1);
  if (lane == 0) {
    c_lane = 0;
    v_lane = CX_IDENTITY();
  }
  if (tile_sync)
    pscan__lbw_tile_sync();
  else
    __syncthreads();
  unsigned c_warps = 0, c_all = 0;
  V_T v_warps = CX_IDENTITY(), v_all = CX_IDENTITY();
#pragma unroll
  for (unsigned w = 0; w < PSCAN__WARPS; w++) {
    if (w < warp)
      NAME(combine32)(&c_warps, &v_warps, sm->warp_count[w], sm->warp_x[w]);
    NAME(combine32)(&c_all, &v_all, sm->warp_count[w], sm->warp_x[w]);
  }
  NAME(combine32)(&c_warps, &v_warps, c_lane, v_lane);
  *excl = NAME(make)(c_warps, v_warps);
  *total = NAME(make)(c_all, v_all);
}

/* This thread's values, from and to the shared tile. */
static __device__ __forceinline__ void NAME(read_values)(const unsigned char *vals, V_T v[ITEMS]) {
  pscan__read_chunks(vals, threadIdx.x * ITEMS * (unsigned)sizeof(V_T), ITEMS * (unsigned)sizeof(V_T), v);
}
static __device__ __forceinline__ void NAME(write_values)(unsigned char *vals, const V_T v[ITEMS]) {
  pscan__write_chunks(vals, threadIdx.x * ITEMS * (unsigned)sizeof(V_T), ITEMS * (unsigned)sizeof(V_T), v);
}

/* x continued over this thread's first `mine` items, each head restarting it: the value half of
   the pair operator's fold (the count half is the heads' population count). */
static __device__ __forceinline__ V_T NAME(fold_items)(V_T x, const V_T v[ITEMS], unsigned heads,
                                                       unsigned mine) {
#pragma unroll
  for (unsigned i = 0; i < ITEMS; i++)
    if (i < mine)
      x = (heads >> i & 1u) ? v[i] : CX_OP(x, v[i]);
  return x;
}

/* The tile's pairs: this thread's (heads, values since its last head) over its items, scanned
   across the block (block_pairs): the thread's exclusive prefix within the tile and the tile's
   total. Heads lie only among the first `mine` items (head_mask, head_mask_offsets). */
static __device__ __forceinline__ void NAME(tile_pairs)(NAME(by_key_smem) *sm,
                                                        const unsigned char *vals, unsigned heads,
                                                        unsigned mine, ACC_T *before, ACC_T *total,
                                                        const bool tile_sync) {
  V_T v[ITEMS];
  NAME(read_values)(vals, v);
  NAME(block_pairs)(sm, (unsigned)__popc(heads), NAME(fold_items)(CX_IDENTITY(), v, heads, mine),
                    before, total, tile_sync);
}

/* scan_by_key's results over this thread's items, in place in v, from the pair before the
   thread (x: the values since the last head; seen: a head lies before, within the tile).
   Results at and after the tile's first head are final; before it they are partial (the values
   since the tile's start), completed by the tile's prefix later. (A copy of the loop for each
   exclusive / has_init pair spilled more: docs/PERFORMANCE.md, "One kernel per by-key path".) */
static __device__ __forceinline__ void NAME(segment_results)(V_T v[ITEMS], V_T x, bool seen,
                                                             unsigned heads, unsigned mine,
                                                             V_T init, const bool exclusive,
                                                             const bool has_init) {
#pragma unroll
  for (unsigned i = 0; i < ITEMS; i++) {
    if (i >= mine)
      break;
    const bool head = heads >> i & 1u;
    const V_T through = head ? v[i] : CX_OP(x, v[i]);
    seen = seen || head;
    V_T r = through;
    if (exclusive)
      r = head ? (has_init ? init : VNAME(api_identity)()) : x;
    if (has_init && seen && !(exclusive && head))
      r = VNAME(op)(init, r);
    v[i] = r;
    x = through;
  }
}
static __device__ __forceinline__ void NAME(segment_results_for)(const pscan__cuda_compact_params *p,
                                                                 V_T v[ITEMS], ACC_T before,
                                                                 unsigned heads, unsigned mine) {
  V_T init;
  memcpy(&init, &p->init, sizeof init);
  const bool seen = before.count > 0;
  NAME(segment_results)(v, before.x, seen, heads, mine, init, p->exclusive, p->has_init);
}

/* scan_by_key's second half. An item after the tile's first head (its run starts inside the
   tile) has its result without the predecessors: those results are stored while warp 0 looks
   back, and only the items before the first head wait for the tile's prefix. */
static __device__ __forceinline__ void NAME(scan_tile)(const pscan__cuda_compact_params *p,
                                                       NAME(by_key_smem) *sm,
                                                       unsigned long long tile,
                                                       unsigned char *vals,
                                                       unsigned long long start, unsigned valid,
                                                       unsigned heads, unsigned mine, ACC_T before,
                                                       ACC_T total, ACC_T *running) {
  const unsigned first = threadIdx.x * ITEMS;
  if (before.count == 0 && heads != 0)
    sm->first_head = first + (unsigned)__ffs(heads) - 1; /* default (no head): valid */
  /* 1. Results from the thread's prefix within the tile. Before the first head they are partial
     (the values since the tile's start): the tile's prefix completes them below. */
  V_T v[ITEMS];
  NAME(read_values)(vals, v);
  NAME(segment_results_for)(p, v, before, heads, mine);
  NAME(write_values)(vals, v);
  __syncthreads();
  /* 2. The final results go out: whole 16-byte chunks from the first head on. */
  const unsigned h = sm->first_head;
  const bool vec = p->vals_vector_io && valid == TILE;
  enum { PER_CHUNK = 16 / sizeof(V_T) };
  const unsigned late = vec ? (h + PER_CHUNK - 1) / PER_CHUNK * PER_CHUNK : h;
  pscan__unstage_from(p->vals_out, vals, start, valid, sizeof(V_T), vec, late);
  /* 3. The tile's prefix (warp 0 looks back), then the items before the chunk of the first head. */
  const ACC_T tile_before = NAME(tile_prefix)(&p->lb, &sm->prefix, sm->scan, tile, total, running, true);
  V_T init;
  memcpy(&init, &p->init, sizeof init);
  for (unsigned i = threadIdx.x; i < late; i += PSCAN__THREADS) {
    V_T x = *(const V_T *)(vals + pscan__swz(i * (unsigned)sizeof(V_T)));
    if (i < h) {
      x = CX_OP(tile_before.x, x);
      if (p->has_init)
        x = VNAME(op)(init, x);
    }
    ((V_T *)p->vals_out)[start + i] = x;
  }
  if (running)
    __syncthreads(); /* single-block mode: the buffers are reused by the next tile */
}

/* reduce_by_key's last tile closes the last run and writes the count (one thread: leader). */
static __device__ __forceinline__ void NAME(close_last_run)(const pscan__cuda_compact_params *p,
                                                            unsigned long long tile,
                                                            ACC_T tile_before, ACC_T total,
                                                            bool leader) {
  if (tile == p->lb.num_tiles - 1 && leader) {
    const ACC_T through = NAME(op)(tile_before, total);
    ((V_T *)p->vals_out)[through.count - 1] = through.x;
    *p->count_out = through.count;
  }
}

/* Each of this thread's heads writes its key and closes the run before it, straight to global
   memory (carry: the pair before the thread's first item, the tile's prefix included). */
static __device__ __forceinline__ void NAME(store_runs_direct)(const pscan__cuda_compact_params *p,
                                                               const unsigned char *keys,
                                                               const unsigned char *vals,
                                                               unsigned heads, unsigned mine,
                                                               ACC_T carry) {
  const unsigned first = threadIdx.x * ITEMS, ks = (unsigned)p->key_size;
  V_T v[ITEMS];
  NAME(read_values)(vals, v);
  BY_KEY_FOR_HEADS(v, heads, mine, carry, {
    if (r > 0)
      ((V_T *)p->vals_out)[r - 1] = carry.x;
    pscan__store_bits(p->out, r, ks, pscan__elem_bits(keys, first + i, ks));
  })
}

/* reduce_by_key, the plain way: look back, then store_runs_direct. */
static __device__ __forceinline__ void NAME(reduce_tile_direct)(
    const pscan__cuda_compact_params *p, NAME(by_key_smem) *sm, unsigned long long tile,
    const unsigned char *keys, const unsigned char *vals, unsigned heads, unsigned mine,
    ACC_T before, ACC_T total, ACC_T *running) {
  const ACC_T tile_before = NAME(tile_prefix)(&p->lb, &sm->prefix, sm->scan, tile, total, running, true);
  NAME(store_runs_direct)(p, keys, vals, heads, mine, NAME(op)(tile_before, before));
  NAME(close_last_run)(p, tile, tile_before, total, threadIdx.x == 0);
}

/* Whether a tile with `heads` run heads can gather its results over its values: heads - 1
   closed runs' values from the front, the heads' positions (16 bits) from the back. */
static __device__ __forceinline__ bool NAME(gather_fits)(unsigned long long heads) {
  return heads > 0 && (heads - 1) * sizeof(V_T) + 2 * heads <= (unsigned long long)TILE * sizeof(V_T);
}

/* reduce_by_key when the results fit over the values (runs longer than ~1.5 items): like the
   keys kernel, the block gathers its heads' positions and the values of the runs that close
   inside the tile with ranks within the tile (no predecessor needed), and only then looks back,
   so that its predecessors have had that long to publish; the stores follow. The run that
   closes at the tile's first head began in a predecessor: it alone waits for the prefix. */
static __device__ __forceinline__ void NAME(reduce_tile_gathered)(
    const pscan__cuda_compact_params *p, NAME(by_key_smem) *sm, unsigned long long tile,
    const unsigned char *keys, unsigned char *vals, unsigned heads, unsigned mine, ACC_T before,
    ACC_T total, ACC_T *running) {
  const unsigned first = threadIdx.x * ITEMS, ks = (unsigned)p->key_size;
  const unsigned tile_heads = (unsigned)total.count;
  V_T v[ITEMS];
  NAME(read_values)(vals, v);
  __syncthreads(); /* every thread has its values: the gather writes over them */
  V_T *run_value = (V_T *)vals; /* [r - 1]: the run closed by the tile's head r */
  unsigned short *head_at = (unsigned short *)(vals + TILE * sizeof(V_T)) - tile_heads;
  ACC_T carry = before;
  BY_KEY_FOR_HEADS(v, heads, mine, carry, {
    const unsigned h = (unsigned)r;
    head_at[h] = (unsigned short)(first + i);
    if (h > 0)
      run_value[h - 1] = carry.x;
    else
      sm->first_run = carry.x; /* to be completed by the tile's prefix */
  })
  __syncthreads();
  const ACC_T tile_before = NAME(tile_prefix)(&p->lb, &sm->prefix, sm->scan, tile, total, running, true);
  const unsigned long long base = tile_before.count;
  for (unsigned j = threadIdx.x; j < tile_heads; j += PSCAN__THREADS) {
    pscan__store_bits(p->out, base + j, ks, pscan__elem_bits(keys, head_at[j], ks));
    if (j > 0)
      ((V_T *)p->vals_out)[base + j - 1] = run_value[j - 1];
    else if (base > 0)
      ((V_T *)p->vals_out)[base - 1] = CX_OP(tile_before.x, sm->first_run);
  }
  NAME(close_last_run)(p, tile, tile_before, total, threadIdx.x == 0);
}

/* One tile. computed_heads and scan (constants in each kernel): the heads come from the offsets
   instead of keys; the tile is scanned (scan_by_key, segments) rather than reduced. Each kernel
   is compiled without the other paths' code (with the offsets' code the by-key scan lost 2-4
   points at 2^28: docs/PERFORMANCE.md, "The restructuring at the same speed"; with the
   reduction's, its registers spilled: "One kernel per by-key path"). */
static __device__ __forceinline__ void NAME(by_key_tile)(const pscan__cuda_compact_params *p,
                                                         NAME(by_key_smem) *sm,
                                                         unsigned long long tile, ACC_T *running,
                                                         const bool computed_heads,
                                                         const bool scan) {
  const unsigned long long n = p->lb.n, start = tile * (unsigned long long)TILE;
  const unsigned valid = pscan__tile_items(n, start, TILE);
  const unsigned first = threadIdx.x * ITEMS;
  const unsigned mine = pscan__thread_items(valid, first, ITEMS);
  const unsigned ks = (unsigned)p->key_size;
  unsigned char *keys = pscan__by_key_tiles, *vals = pscan__by_key_tiles + TILE * ks;
  /* 1. Read the tile's keys and values (and the key before the tile) once, both in flight; by
     segments, the values while the heads come from the offsets. */
  const bool keyed = !computed_heads;
  if (keyed)
    pscan__stage_start(keys, p->in, start, valid, ks, p->keys_vector_io && valid == TILE);
  pscan__stage_start(vals, p->vals_in, start, valid, sizeof(V_T), p->vals_vector_io && valid == TILE);
  if (threadIdx.x == 0) {
    if (start > 0 && keyed)
      sm->key_before = pscan__load_bits(p->in, start - 1, ks);
    sm->first_head = valid;
  }
  const unsigned heads_by_offsets =
      computed_heads && p->offsets
          ? NAME(head_mask_offsets)(p, (unsigned *)(void *)keys, tile, start, valid)
          : 0u;
  pscan__stage_wait();
  __syncthreads();
  const unsigned heads = keyed ? NAME(head_mask)(p, sm, keys, start, mine) : heads_by_offsets;
  /* 2. The thread's prefix within the tile; the tile's aggregate goes out at once. */
  ACC_T before, total;
  NAME(tile_pairs)(sm, vals, heads, mine, &before, &total, false);
  if (p->lb.mode == PSCAN__MODE_LOOKBACK && tile > 0 && threadIdx.x == 0)
    NAME(publish)(p->lb.agg_words, tile, total, p->lb.epoch);
  if (scan) {
    NAME(scan_tile)(p, sm, tile, vals, start, valid, heads, mine, before, total, running);
    return;
  }
  if (NAME(gather_fits)(total.count))
    NAME(reduce_tile_gathered)(p, sm, tile, keys, vals, heads, mine, before, total, running);
  else
    NAME(reduce_tile_direct)(p, sm, tile, keys, vals, heads, mine, before, total, running);
  if (running)
    __syncthreads(); /* single-block mode: the buffers are reused by the next tile */
}

/* 8-byte values take 32 registers a thread: four blocks per multiprocessor (five measured
   +3 points for reduce_by_key but -10 for scan_by_key). 4-byte values: six, measured +1.2 to
   +2.1 points over five (docs/PERFORMANCE.md, "Blocks per multiprocessor"; spills then 124
   bytes for SUM, 8 since "One kernel per by-key path"). */
#define PSCAN__BY_KEY_KERNEL(KERNEL, COMPUTED_HEADS, SCAN)                                      \
  __global__ void __launch_bounds__(PSCAN__THREADS, sizeof(V_T) == 8 ? PSCAN__MIN_BLOCKS - 1      \
                                                                     : PSCAN__MIN_BLOCKS_HIGH)    \
      KERNEL(const pscan__cuda_compact_params p) {                                                \
    __shared__ NAME(by_key_smem) sm;                                                              \
    pscan__wait_for_predecessor();                                                                \
    if (p.lb.mode == PSCAN__MODE_SINGLE) {                                                        \
      ACC_T running = NAME(identity)();                                                           \
      for (unsigned long long tile = 0; tile < p.lb.num_tiles; tile++)                            \
        NAME(by_key_tile)(&p, &sm, tile, &running, COMPUTED_HEADS, SCAN);                         \
      return;                                                                                     \
    }                                                                                             \
    NAME(by_key_tile)(&p, &sm,                                                                    \
                      pscan__compact_tile_id(&p.lb, &sm.tile_id, TILE,                            \
                                             p.keys_vector_io && p.vals_vector_io,                \
                                             p.in ? p.in : p.vals_in,                             \
                                             p.in ? (unsigned)p.key_size : (unsigned)sizeof(V_T), \
                                             p.in ? p.vals_in : NULL,                             \
                                             p.in ? (unsigned)sizeof(V_T) : 0u),                  \
                      NULL, COMPUTED_HEADS, SCAN);                                                \
  }
/* scan_by_key; segmented scans (heads from offsets, p.in is NULL); the deterministic or chained
   reduce_by_key. */
PSCAN__BY_KEY_KERNEL(NAME(by_key_kernel), false, true)
PSCAN__BY_KEY_KERNEL(NAME(by_key_heads_kernel), true, true)
PSCAN__BY_KEY_KERNEL(NAME(by_key_reduce_kernel), false, false)
#undef PSCAN__BY_KEY_KERNEL

#include "by_key_heads.cuh"

/* reduce_by_key in look-back mode, unless deterministic: rbk_kernel (by_key_heads.cuh). */
static int NAME(launch_by_key)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream,
                               uint64_t *taken) {
  if (p->kind == PSCAN__COMPACT_REDUCE_BY_KEY && p->lb.mode == PSCAN__MODE_LOOKBACK &&
      !p->lb.deterministic)
    return NAME(launch_rbk)(p, grid, stream, taken);
  *taken = p->lb.mode == PSCAN__MODE_SINGLE ? 0 : grid; /* one tile per block */
  const size_t smem = (size_t)TILE * ((size_t)p->key_size + sizeof(V_T));
  const int which = p->offsets ? 1 : p->kind == PSCAN__COMPACT_REDUCE_BY_KEY ? 2 : 0;
  const void *kernel = which == 1   ? (const void *)NAME(by_key_heads_kernel)
                       : which == 2 ? (const void *)NAME(by_key_reduce_kernel)
                                    : (const void *)NAME(by_key_kernel);
  static int opted_in[3]; /* above 48 KB a kernel must opt in (once; repeating it is harmless) */
  if (!opted_in[which]) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         TILE * (8 + (int)sizeof(V_T)));
    if (e != cudaSuccess)
      return (int)e;
    opted_in[which] = 1;
  }
  pscan__cuda_compact_params q = *p;
  if (q.lb.stagger_ns)
    q.lb.stagger_rows = (unsigned)pscan__wave_rows(kernel, smem);
  return pscan__launch(kernel, grid, PSCAN__THREADS, smem, stream, &q, q.lb.pdl, 0);
}

#undef BY_KEY_FOR_HEADS
#undef ITEMS
#undef TILE
#undef V_T
