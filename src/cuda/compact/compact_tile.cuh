/* Include-template: the single-pass kernel of select_if, select_flagged, partition_if, unique and
 * run_length_encode for one item type (Merrill & Garland, NVR-2016-002, section 5: selection
 * fused into the scan of the selection flags). The includer defines KEY (a type suffix) and has
 * stamped the pair accumulator (compact_ops.cuh) and lookback.cuh under NAME.
 *
 * One tile = PSCAN__THREADS threads x ITEMS consecutive items (32 KB of 4- and 8-byte items: as
 * much in flight per block as the scan's tiles). A block copies its tile into shared memory
 * (16-byte cp.async when aligned), each thread reads its items in batches of 16 and decides which
 * it keeps (a bit mask: no flags array ever goes to memory), the block scans the
 * per-thread counts, the tile learns how many items the tiles before it kept by the scan's
 * decoupled look-back, and the kept items are gathered, in order, at the front of the shared
 * buffer (partition_if: the rejected ones behind them, reversed) and leave with coalesced stores.
 *
 * unique and run-length encoding keep the run heads, in[i] != in[i-1]. A tile's first item
 * compares with the item before the tile, read from global memory before the tile publishes
 * anything. Run-length encoding closes a run where the next head is: the pair accumulator
 * carries the position of the last head, so the tile holding head r writes counts_out[r-1], and
 * the last tile closes the last run.
 *
 * In place (out == in: select_if, select_flagged, unique, run-length values) in the same single
 * pass, as on the CPU backend (cpu/compact.c, where the argument is spelled out):
 *  - a tile reads its own input (and the item before it) before it publishes its aggregate: the
 *    aggregate is computed from every item it read, so the reads are complete by then;
 *  - a tile writes only after its look-back returned, i.e. after every predecessor published,
 *    so no predecessor can still be reading what it writes;
 *  - tile k writes out[E_k .. E_k + kept) with E_k + kept <= its own end: never a successor's
 *    input. The item before tile k may be overwritten by a predecessor while k reads it, but only
 *    with itself: position start-1 receives the kept item of rank start-1, which (every item
 *    before it kept) is in[start-1].
 * The scan's status words are relaxed; the aggregate's data dependency on every item read and the
 * look-back's wait before any write order the accesses. */

#define T PSCAN__CAT(PSCAN__CTYPE_, KEY)
/* Blocks per multiprocessor the keys kernels are built for (docs/PERFORMANCE.md,
   "Compaction tiles and the keys kernel"): five,
   but six for the partition kernel of 2- and 4-byte items (40 registers, 4 bytes of spills; six
   35 KB tiles fit). The select kernel at six spills 36 bytes (i32) and loses 6 points. */
#define PSCAN__COMPACT_MIN_BLOCKS 5
#define PSCAN__PARTITION_MIN_BLOCKS 6
enum {
  NAME(BATCH) = 16, /* items per register batch */
  NAME(ITEMS) = sizeof(T) == 8 ? 16 : 32, /* per thread: at most 32 (one bit each in a mask) */
  NAME(TILE) = PSCAN__THREADS * NAME(ITEMS),
  /* The gathered items are padded by one word (of at least the item's size) every 128 bytes, so
     that threads writing runs of consecutive ranks (a selection near 100%) hit distinct banks. */
  NAME(GPAD) = sizeof(T) > 4 ? sizeof(T) : 4,
  NAME(TILE_BYTES) = NAME(TILE) * sizeof(T) + NAME(GPAD) * (NAME(TILE) * sizeof(T) / 128),
  /* A tile of keys_kernel that keeps at most this many items (unique and run-length encoding
     with long runs) gathers them into a buffer of their own, straight from the staged input:
     no copy of every item into registers, no barrier before the gather. */
  NAME(SPARSE) = PSCAN__THREADS,
  NAME(PARTITION_BLOCKS) = sizeof(T) == 2 || sizeof(T) == 4 ? PSCAN__PARTITION_MIN_BLOCKS
                                                             : PSCAN__COMPACT_MIN_BLOCKS
};
#define BATCH NAME(BATCH)
#define ITEMS NAME(ITEMS)
#define TILE NAME(TILE)

typedef struct NAME(keys_smem) {
  __align__(16) unsigned char tile[NAME(TILE_BYTES)];
  ACC_T scan[32]; /* the look-back's window (ordered mode) */
  unsigned warp_count[PSCAN__WARPS];
  int warp_last[PSCAN__WARPS];
  ACC_T prefix;
  unsigned long long tile_id;
  T before_tile; /* the item before the tile (unique, run-length encoding) */
  /* The kept items of a sparse tile (compact_tile). */
  __align__(16) T sparse[NAME(SPARSE)];
} NAME(keys_smem);

/* The keep bits of a batch under cmp: one loop per comparison, so the switch is decided once a
   batch rather than once an item. */
#define PSCAN__KEEP_WHERE(COND)                   \
  _Pragma("unroll") for (int i = 0; i < BATCH; i++) { \
    const T v = items[i];                         \
    keep |= ((COND) ? 1u : 0u) << i;              \
  }
static __device__ __forceinline__ unsigned NAME(keep_where)(int cmp, const T items[BATCH], T x) {
  unsigned keep = 0;
  switch (cmp) {
  case PSCAN_LT: PSCAN__KEEP_WHERE(v < x); break;
  case PSCAN_LE: PSCAN__KEEP_WHERE(v <= x); break;
  case PSCAN_GT: PSCAN__KEEP_WHERE(v > x); break;
  case PSCAN_GE: PSCAN__KEEP_WHERE(v >= x); break;
  case PSCAN_EQ: PSCAN__KEEP_WHERE(v == x); break;
  default: PSCAN__KEEP_WHERE(v != x); break;
  }
  return keep;
}
#undef PSCAN__KEEP_WHERE

/* The block's exclusive scan (and total) of the per-thread (kept count, offset in the tile of the
   last head, -1 for none), in 32-bit words: a tile has at most 8192 items, so two shuffles a step
   do what the pair accumulator's 64-bit halves would do in four. The last head is the maximum
   offset, heads lying in thread order; only run-length encoding needs it (with_last false: the
   last offsets come back -1, and their shuffles are not compiled). tile_sync: the tile threads'
   named barrier instead of __syncthreads (the block has a look-back warp too: compact_heads.cuh). */
static __device__ __forceinline__ void NAME(block_counts)(NAME(keys_smem) *sm, unsigned count,
                                                          int last, unsigned *excl_count,
                                                          int *excl_last, unsigned *tot_count,
                                                          int *tot_last, const bool tile_sync,
                                                          const bool with_last) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned c = count;
  int l = with_last ? last : -1;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned c2 = __shfl_up_sync(PSCAN__FULL_MASK, c, d);
    const int l2 = with_last ? __shfl_up_sync(PSCAN__FULL_MASK, l, d) : -1;
    if (lane >= d) {
      c += c2;
      l = max(l, l2);
    }
  }
  if (lane == 31) {
    sm->warp_count[warp] = c;
    sm->warp_last[warp] = l;
  }
  int l_before = with_last ? __shfl_up_sync(PSCAN__FULL_MASK, l, 1) : -1;
  if (tile_sync)
    pscan__lbw_tile_sync();
  else
    __syncthreads();
  unsigned wc = 0, tc = 0;
  int wl = -1, tl = -1;
#pragma unroll
  for (unsigned w = 0; w < PSCAN__WARPS; w++) {
    const unsigned cw = sm->warp_count[w];
    const int lw = with_last ? sm->warp_last[w] : -1;
    if (w < warp) {
      wc += cw;
      wl = max(wl, lw);
    }
    tc += cw;
    tl = max(tl, lw);
  }
  *excl_count = wc + c - count;
  *excl_last = max(wl, lane > 0 ? l_before : -1);
  *tot_count = tc;
  *tot_last = tl;
}

/* Items [at, at + count) of a staged (swizzled) buffer that starts on a 1024-byte boundary of
   the tile. */
static __device__ __forceinline__ void NAME(read_at)(const unsigned char *buf, unsigned at,
                                                     unsigned count, T *items) {
  pscan__read_chunks(buf, at * (unsigned)sizeof(T), count * (unsigned)sizeof(T), items);
}
/* Items [from, from + count) of this thread from the shared tile. */
static __device__ __forceinline__ void NAME(read_items)(const unsigned char *buf, unsigned from,
                                                        unsigned count, T *items) {
  NAME(read_at)(buf, threadIdx.x * ITEMS + from, count, items);
}

/* The gathered item of rank j (padded layout, see GPAD: GPAD / sizeof(T) items of padding after
   every 128 / sizeof(T) items). Counted in items, not bytes: j + j / 32 for 4-byte items is one
   instruction, and nothing can overflow. */
static __device__ __forceinline__ T *NAME(gathered)(unsigned char *buf, unsigned j) {
  enum { ROW = 128 / sizeof(T), PAD = NAME(GPAD) / sizeof(T) };
  return (T *)(void *)buf + j + j / ROW * PAD;
}

/* The thread's kept items (bit i of keep: items[i]) -> gathered ranks rank, rank + 1, ... Each
   item is one predicated store: no branch, nothing computed for the rejected ones (the loop with
   partition_if's second destination in it cost select_if half of its instructions,
   docs/PERFORMANCE.md,
   "Selection kernels"). */
static __device__ __forceinline__ void NAME(gather_kept)(unsigned char *buf, const T items[ITEMS],
                                                         unsigned keep, unsigned rank) {
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    const unsigned bit = keep >> i & 1u;
    if (bit)
      *NAME(gathered)(buf, rank) = items[i];
    rank += bit;
  }
}

/* partition_if: kept items as gather_kept, the rejected ones of the thread (bits of valid_bits not
   in keep) to gathered positions back, back - 1, ... (the back of the tile's range, reversed). */
static __device__ __forceinline__ void NAME(gather_partition)(unsigned char *buf,
                                                              const T items[ITEMS], unsigned keep,
                                                              unsigned rank, unsigned back,
                                                              unsigned valid_bits) {
  const unsigned rejected = ~keep & valid_bits;
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    const unsigned bit = keep >> i & 1u, rbit = rejected >> i & 1u;
    if (bit)
      *NAME(gathered)(buf, rank) = items[i];
    if (rbit)
      *NAME(gathered)(buf, back) = items[i];
    rank += bit;
    back -= rbit;
  }
}

/* Bits b*16 .. b*16+15 of the keep mask: which items of batch b this thread keeps (items past
   the end of the tile are cut off by the caller). prev: the item before the batch (run heads). */
static __device__ __forceinline__ unsigned NAME(keep_batch)(const pscan__cuda_compact_params *p,
                                                            const T items[BATCH], unsigned long long at,
                                                            bool full, T *prev, const bool dense) {
  unsigned keep = 0;
  if (p->kind == PSCAN__COMPACT_SELECT_FLAGGED) {
    const uint8_t *f = p->flags + at;
    if (full && ((uintptr_t)f & 15) == 0) {
      uint4 c = __ldg((const uint4 *)f);
      uint8_t b[16];
      memcpy(b, &c, 16);
#pragma unroll
      for (int i = 0; i < BATCH; i++)
        keep |= (b[i] != 0 ? 1u : 0u) << i;
    } else {
      for (unsigned i = 0; i < BATCH && at + i < p->lb.n; i++)
        keep |= (f[i] != 0 ? 1u : 0u) << i;
    }
  } else if (dense) { /* select_if, partition_if */
    T x;
    memcpy(&x, &p->value, sizeof x);
    keep = NAME(keep_where)(p->cmp, items, x);
  } else { /* run heads */
#pragma unroll
    for (int i = 0; i < BATCH; i++) {
      keep |= (items[i] != *prev ? 1u : 0u) << i;
      *prev = items[i];
    }
    if (at == 0)
      keep |= 1u; /* the first item of the input always starts a run */
  }
  return keep;
}

/* Bit i: this thread keeps its item i (items past the end of the tile are never kept). */
static __device__ __forceinline__ unsigned NAME(keep_mask)(const pscan__cuda_compact_params *p,
                                                           const NAME(keys_smem) *sm,
                                                           unsigned long long start,
                                                           unsigned mine, const bool dense) {
  const unsigned first = threadIdx.x * ITEMS;
  T prev = sm->before_tile;
  if (threadIdx.x > 0)
    prev = *(const T *)(sm->tile + pscan__swz((first - 1) * (unsigned)sizeof(T)));
  unsigned keep = 0;
#pragma unroll
  for (unsigned b = 0; b < ITEMS / BATCH; b++) {
    T items[BATCH];
    NAME(read_items)(sm->tile, b * BATCH, BATCH, items);
    keep |= NAME(keep_batch)(p, items, start + first + b * BATCH, mine == ITEMS, &prev, dense)
            << (b * BATCH);
  }
  return mine >= ITEMS ? keep : keep & ((1u << mine) - 1u);
}

/* Run-length encoding: each of this thread's heads closes the run before it. */
static __device__ __forceinline__ void NAME(close_runs)(const pscan__cuda_compact_params *p,
                                                        ACC_T carry, unsigned keep,
                                                        unsigned long long first_pos) {
  while (keep) {
    int i = __ffs(keep) - 1;
    keep &= keep - 1;
    unsigned long long pos = first_pos + (unsigned)i;
    if (carry.count > 0)
      p->counts_out[carry.count - 1] = pos - carry.x;
    carry = NAME(make)(carry.count + 1, pos);
  }
}

/* The kept items, gathered at the front of buf, -> out[0 .. kept) (out: where this tile's first
   kept item goes): 16-byte streaming stores for the destination's whole 16-byte chunks, item
   stores at both ends. The bytes written are the ones the item stores would write (in place
   stays safe). Only the selection kernels (keys_kernel_select, keys_kernel_partition) carry it:
   the extra registers cost the read-bound run-head kinds more than they gain (docs/PERFORMANCE.md,
   "Dense stores for selections"). tid, threads: this thread among those storing (the block's
   tile threads, or the look-back warp of compact_select.cuh). */
static __device__ __forceinline__ void NAME(store_kept_packed)(T *out, unsigned char *buf,
                                                               unsigned kept, unsigned tid,
                                                               unsigned threads) {
  enum { V = 16 / sizeof(T) };
  unsigned head = (unsigned)((0u - (uintptr_t)out) & 15u) / (unsigned)sizeof(T);
  if (head > kept)
    head = kept;
  const unsigned chunks = (kept - head) / V, tail = head + chunks * V;
  if (tid < head)
    out[tid] = *NAME(gathered)(buf, tid);
  uint4 *dst = (uint4 *)(void *)(out + head);
  for (unsigned c = tid; c < chunks; c += threads) {
    T v[V];
#pragma unroll
    for (int k = 0; k < V; k++)
      v[k] = *NAME(gathered)(buf, head + c * V + (unsigned)k);
    uint4 u;
    memcpy(&u, v, 16);
    pscan__st_stream16(dst + c, u);
  }
  for (unsigned j = tail + tid; j < kept; j += threads)
    out[j] = *NAME(gathered)(buf, j);
}

/* variant (PSCAN__KEYS_*, a constant where inlined): which kinds the kernel serves. The
   selection variants' kept items leave with store_kept_packed. */
static __device__ __forceinline__ void NAME(compact_tile)(const pscan__cuda_compact_params *p,
                                                          NAME(keys_smem) *sm,
                                                          unsigned long long tile, ACC_T *running,
                                                          const int variant) {
  const bool dense = variant != PSCAN__KEYS_ANY;
  const unsigned long long n = p->lb.n, start = tile * (unsigned long long)TILE;
  /* (pscan__tile_items / pscan__thread_items written out: through the helpers, ptxas allocates
     these kernels' registers differently; measured, the f64 partition kernel then spills
     12/36 bytes instead of none.) */
  const unsigned valid = n - start < (unsigned long long)TILE ? (unsigned)(n - start) : TILE;
  const unsigned first = threadIdx.x * ITEMS;
  const unsigned mine = valid > first ? (valid - first < ITEMS ? valid - first : ITEMS) : 0;
  /* (The selection kernels serve selections only: the run-head code is compiled out of them.) */
  const bool heads =
      !dense && (p->kind == PSCAN__COMPACT_UNIQUE || p->kind == PSCAN__COMPACT_RUN_LENGTH);
  const bool rle = !dense && p->kind == PSCAN__COMPACT_RUN_LENGTH;
  const bool partition = variant == PSCAN__KEYS_PARTITION;
  /* 1. Read the tile (and the item before it) once. */
  pscan__stage(sm->tile, p->in, start, valid, sizeof(T), p->keys_vector_io && valid == TILE);
  if (heads && threadIdx.x == 0 && start > 0)
    sm->before_tile = ((const T *)p->in)[start - 1];
  __syncthreads();
  const unsigned keep = NAME(keep_mask)(p, sm, start, mine, dense);
  /* 2. The thread's prefix within the tile, the tile's by look-back. */
  unsigned before_count, total_count;
  int before_last, total_last;
  NAME(block_counts)(sm, __popc(keep), keep ? (int)(first + 31u - __clz(keep)) : -1, &before_count,
                     &before_last, &total_count, &total_last, false, rle);
  const ACC_T before = NAME(make)(before_count, start + (unsigned)max(before_last, 0));
  const ACC_T total = NAME(make)(total_count, start + (unsigned)max(total_last, 0));
  /* The aggregate goes out now, so that successors can pass this tile while it gathers;
     tile_prefix publishes it again (the same word) before its look-back. */
  if (p->lb.mode == PSCAN__MODE_LOOKBACK && tile > 0 && threadIdx.x == 0)
    NAME(publish)(p->lb.agg_words, tile, total, p->lb.epoch);
  /* 3. Gather, with the ranks within the tile (no need to wait for the predecessors): kept items
     at the front, in order; partition_if's rejected ones at the back of the tile's valid range,
     reversed. Every thread takes its items into registers first: the gather writes over the
     staged input. A sparse tile (few kept, nothing rejected to place) gathers into sm->sparse
     instead, reading each kept item where it was staged. */
  const bool sparse = !dense && total_count <= NAME(SPARSE);
  if (sparse) {
    unsigned kept_rank = (unsigned)before.count;
    for (unsigned k = keep; k; k &= k - 1) {
      const unsigned i = (unsigned)__ffs(k) - 1u;
      sm->sparse[kept_rank++] = *(const T *)(sm->tile + pscan__swz((first + i) * (unsigned)sizeof(T)));
    }
  } else {
    T items[ITEMS];
    NAME(read_items)(sm->tile, 0, ITEMS, items);
    __syncthreads();
    if (variant == PSCAN__KEYS_SELECT)
      NAME(gather_kept)(sm->tile, items, keep, (unsigned)before.count);
    else /* (no rejected items to place but partition_if's) */
      NAME(gather_partition)(sm->tile, items, keep, (unsigned)before.count,
                             valid - 1 - (first - (unsigned)before.count),
                             !partition ? 0u : mine >= ITEMS ? ~0u : (1u << mine) - 1u);
  }
  /* 4. The tile's prefix by look-back (warp 0); then the coalesced stores. */
  const ACC_T tile_before =
      NAME(tile_prefix)(&p->lb, &sm->prefix, sm->scan, tile, total, running, true);
  if (rle)
    NAME(close_runs)(p, NAME(op)(tile_before, before), keep, start + first);
  __syncthreads();
  const unsigned long long kept_before = tile_before.count;
  const unsigned kept = (unsigned)total.count, written = partition ? valid : kept;
  T *out = (T *)p->out;
  if (dense)
    NAME(store_kept_packed)(out + kept_before, sm->tile, kept, threadIdx.x, PSCAN__THREADS);
  for (unsigned j = (dense ? kept : 0u) + threadIdx.x; j < written; j += PSCAN__THREADS) {
    if (j < kept)
      out[kept_before + j] = sparse ? sm->sparse[j] : *NAME(gathered)(sm->tile, j);
    else /* rejected: the r-th of the input goes to out[n-1-r] */
      out[n - (start - kept_before) - (valid - kept) + (j - kept)] = *NAME(gathered)(sm->tile, j);
  }
  if (tile == p->lb.num_tiles - 1 && threadIdx.x == 0) {
    const ACC_T through = NAME(op)(tile_before, total);
    if (rle)
      p->counts_out[through.count - 1] = n - through.x;
    *p->count_out = through.count;
  }
  if (running)
    __syncthreads(); /* single-block mode: the buffer is reused by the next tile */
}

static __device__ __forceinline__ void NAME(keys_body)(const pscan__cuda_compact_params *p,
                                                       NAME(keys_smem) *sm, const int variant) {
  if (p->lb.mode == PSCAN__MODE_SINGLE) {
    ACC_T running = NAME(identity)();
    for (unsigned long long tile = 0; tile < p->lb.num_tiles; tile++)
      NAME(compact_tile)(p, sm, tile, &running, variant);
    return;
  }
  NAME(compact_tile)(p, sm,
                     pscan__compact_tile_id(&p->lb, &sm->tile_id, TILE, p->keys_vector_io, p->in,
                                            sizeof(T), NULL, 0),
                     NULL, variant);
}

__global__ void __launch_bounds__(PSCAN__THREADS, PSCAN__COMPACT_MIN_BLOCKS)
    NAME(keys_kernel)(const pscan__cuda_compact_params p) {
  __shared__ NAME(keys_smem) sm;
  pscan__wait_for_predecessor();
  NAME(keys_body)(&p, &sm, PSCAN__KEYS_ANY);
}

/* select_if and select_flagged. */
__global__ void __launch_bounds__(PSCAN__THREADS, PSCAN__COMPACT_MIN_BLOCKS)
    NAME(keys_kernel_select)(const pscan__cuda_compact_params p) {
  __shared__ NAME(keys_smem) sm;
  pscan__wait_for_predecessor();
  NAME(keys_body)(&p, &sm, PSCAN__KEYS_SELECT);
}

/* partition_if. */
__global__ void __launch_bounds__(PSCAN__THREADS, NAME(PARTITION_BLOCKS))
    NAME(keys_kernel_partition)(const pscan__cuda_compact_params p) {
  __shared__ NAME(keys_smem) sm;
  pscan__wait_for_predecessor();
  NAME(keys_body)(&p, &sm, PSCAN__KEYS_PARTITION);
}

#include "compact_heads.cuh"
#include "compact_select.cuh"

/* In look-back mode, unique and run-length encoding run in heads_kernel (compact_heads.cuh),
   select_if and select_flagged in select_kernel (compact_select.cuh); otherwise (one tile, or
   chained) and for partition_if, one tile per block: unique and run-length encoding in
   keys_kernel, the selections in keys_kernel_select, partition_if in keys_kernel_partition. */
static int NAME(launch_keys)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream,
                             uint64_t *taken) {
  const bool heads = p->kind == PSCAN__COMPACT_UNIQUE || p->kind == PSCAN__COMPACT_RUN_LENGTH;
  const bool lookback = p->lb.mode == PSCAN__MODE_LOOKBACK;
  if (heads && lookback)
    return NAME(launch_heads)(p, grid, stream, taken);
  if ((p->kind == PSCAN__COMPACT_SELECT_IF || p->kind == PSCAN__COMPACT_SELECT_FLAGGED) && lookback)
    return NAME(launch_select)(p, grid, stream, taken);
  *taken = p->lb.mode == PSCAN__MODE_SINGLE ? 0 : grid; /* one tile per block */
  void (*kernel)(const pscan__cuda_compact_params) =
      heads ? NAME(keys_kernel)
      : p->kind == PSCAN__COMPACT_PARTITION_IF ? NAME(keys_kernel_partition)
                                               : NAME(keys_kernel_select);
  pscan__cuda_compact_params q = *p;
  if (q.lb.stagger_ns)
    q.lb.stagger_rows = (unsigned)pscan__wave_rows((const void *)kernel, 0);
  return pscan__launch((const void *)kernel, grid, PSCAN__THREADS, 0, stream, &q, q.lb.pdl, 0);
}

#undef BATCH
#undef ITEMS
#undef TILE
#undef T
