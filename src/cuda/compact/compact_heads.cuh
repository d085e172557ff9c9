/* Include-template: unique and run-length encoding in the decoupled look-back mode, by persistent
 * blocks with a warp of their own for the look-back. The includer has included compact_tile.cuh
 * (the same stamp: KEY, T, the keys_smem layout, keep_mask, block_counts, close_runs).
 *
 * Why: in keys_kernel a tile's block waits for its look-back holding its 32 KB tile buffer, and
 * for unique and run-length encoding (input read, almost nothing written) that wait is most of a
 * tile's life (Nsight Compute: a third of the warps' samples at the barrier after the look-back),
 * so the multiprocessor has few loads in flight. Here the tile buffer never waits for a
 * predecessor:
 *  - the tile warps (PSCAN__THREADS threads) stage a tile, find its run heads, publish its
 *    aggregate and copy its kept items (and their offsets) into a slot, then take the next tile
 *    id and start staging that tile at once;
 *  - the look-back warp (one more warp) takes the slots in order: looks back, publishes the
 *    inclusive prefix, stores the kept items (and the closed runs' lengths) and frees the slot.
 * A tile that keeps more than NAME(HEADS_SPARSE) items (an eighth of the tile: runs shorter than
 * ~8) does not fit a slot: it gathers in its tile buffer as in keys_kernel, and the tile warps wait
 * for the prefix that the look-back warp hands back, then store (run-length encoding: its heads'
 * offsets by rank, written before, over both slots' kept items once the look-back warp has
 * stored them). What can be done before the prefix is known is: what is left after it is the
 * tile's critical path (a walk storing the heads row by row after the prefix, with no gather
 * before it, was slower for unique at every run length: docs/PERFORMANCE.md).
 *
 * A tile id is taken only when the tile warps can stage that tile at once: a tile whose id waits
 * behind another tile's look-back holds up every successor's look-back (tried: a block that took
 * its next id early ran at half the speed, docs/PERFORMANCE.md, "A tile id is never taken
 * early").
 *
 * Forward progress: ids are taken in order and each block's look-back warp handles its tiles in
 * the order its tile warps took them. The smallest unfinished tile m is therefore either with its
 * block's tile warps (which wait only for loads, for a slot the look-back warp frees after
 * finishing an older tile, or for m's own prefix) or at the head of its look-back warp's queue,
 * where every predecessor has published: m finishes.
 *
 * In place: a tile is read before its aggregate is published and written (by the look-back warp)
 * only after its look-back returned, into out[E_k .. E_k + kept) below its own end: the argument
 * of compact_tile.cuh holds unchanged; that a block stages a later tile while its look-back warp
 * still writes an earlier one changes nothing, the earlier tile's writes lying below both.
 *
 * Synchronisation: the named barriers of compact_common.cuh (look-back warp kernels). */

/* Blocks per multiprocessor the kernel is built for (its register bound). */
#define PSCAN__HEADS_MIN_BLOCKS 4

/* A slot holds the kept items of a tile that keeps at most an eighth of its items. Tiles that
   keep more are dense: their tile warps wait for the prefix, and with slots of 256 items
   (the keys kernel's NAME(SPARSE)) runs of 8-16 items were all dense and ran at 59-73% of the copy
   against ~90% from runs of 64 (docs/PERFORMANCE.md, "Wider slots for run heads"). Two slots of
   4-byte items take 12 KB; run-length encoding's offsets by rank (a dense tile's) lie over them,
   so that both unique and run-length encoding keep four blocks a multiprocessor. */
enum { NAME(HEADS_SPARSE) = TILE / 8 };

typedef struct NAME(heads_slot) {
  unsigned long long tile; /* PSCAN__LBW_STOP: no more tiles */
  ACC_T total;             /* the tile's (kept count, offset of its last head) */
  ACC_T prefix;            /* a dense tile's exclusive prefix, for the tile warps */
  int dense;               /* the kept items stayed in the tile buffer */
} NAME(heads_slot);

typedef struct NAME(heads_kept) {
  T items[NAME(HEADS_SPARSE)];           /* a sparse tile's kept items, in order ... */
  unsigned short at[NAME(HEADS_SPARSE)]; /* ... and their offsets in the tile */
} NAME(heads_kept);

/* In the launch's dynamic shared memory: unique's launch ends after kept[], run-length
   encoding's after heads_at[] (NAME(heads_smem_bytes)). */
typedef struct NAME(heads_smem) {
  NAME(keys_smem) k;
  NAME(heads_slot) slot[2];
  union {
    NAME(heads_kept) kept[2];          /* slot s's kept items: kept[s] */
    unsigned short heads_at[TILE];     /* run-length encoding, a dense tile: offsets by rank */
  } u;
} NAME(heads_smem);

/* Tile threads of a look-back-warp kernel (this one and compact_select.cuh): start staging
   `tile`; run heads also read the item before it (the last thread's load, so that thread 0 never
   waits for it). */
static __device__ __forceinline__ void NAME(lbw_stage)(const pscan__cuda_compact_params *p,
                                                       NAME(keys_smem) *k, unsigned long long tile,
                                                       const bool heads) {
  const unsigned long long n = p->lb.n, start = tile * (unsigned long long)TILE;
  const unsigned valid = pscan__tile_items(n, start, TILE);
  pscan__stage_start(k->tile, p->in, start, valid, sizeof(T), p->keys_vector_io && valid == TILE);
  if (heads && threadIdx.x == PSCAN__THREADS - 1 && start > 0)
    k->before_tile = ((const T *)p->in)[start - 1];
}

/* Thread 0 of a dense tile: the block's next tile id -> *slot, and L2 starts fetching that tile. */
static __device__ __forceinline__ void NAME(lbw_take_fetch)(const pscan__cuda_compact_params *p,
                                                               unsigned long long *slot) {
  const unsigned long long next = pscan__take_tile(&p->lb), first = next * (unsigned long long)TILE;
  *slot = next;
  if (p->keys_vector_io && next < p->lb.num_tiles && pscan__tile_items(p->lb.n, first, TILE) == TILE)
    pscan__prefetch_l2((const T *)p->in + first, TILE * sizeof(T));
}

/* The count of kept items; run-length encoding also closes its last run. */
static __device__ __forceinline__ void NAME(heads_finish)(const pscan__cuda_compact_params *p,
                                                          ACC_T through) {
  if (p->kind == PSCAN__COMPACT_RUN_LENGTH)
    p->counts_out[through.count - 1] = p->lb.n - through.x;
  *p->count_out = through.count;
}

/* Tile threads of a look-back-warp kernel, once a tile's staging is under way: wait for it, decide
   what the tile keeps (selection: select_if/select_flagged, else run heads), count it across the
   block and publish its aggregate. Returns the thread's keep mask. */
static __device__ __forceinline__ unsigned NAME(lbw_decide)(const pscan__cuda_compact_params *p,
                                                           NAME(keys_smem) *k,
                                                           unsigned long long tile,
                                                           const bool selection,
                                                           unsigned *before_count, int *before_last,
                                                           unsigned *total_count, ACC_T *total) {
  const unsigned first = threadIdx.x * ITEMS;
  const unsigned long long start = tile * (unsigned long long)TILE;
  const unsigned mine = pscan__thread_items(pscan__tile_items(p->lb.n, start, TILE), first, ITEMS);
  pscan__stage_wait();
  pscan__lbw_tile_sync();
  const unsigned keep = NAME(keep_mask)(p, k, start, mine, selection);
  int total_last;
  NAME(block_counts)(k, __popc(keep), keep ? (int)(first + 31u - __clz(keep)) : -1, before_count,
                     before_last, total_count, &total_last, true,
                     !selection && p->kind == PSCAN__COMPACT_RUN_LENGTH);
  *total = NAME(make)(*total_count, start + (unsigned)max(total_last, 0));
  if (tile > 0 && threadIdx.x == 0)
    NAME(publish)(p->lb.agg_words, tile, *total, p->lb.epoch);
  return keep;
}

/* A dense tile, once its prefix is known: its gathered heads, and (run-length encoding) the runs
   they close, from the heads' offsets by rank (heads_at), rank j striding over the
   threads. */
static __device__ __forceinline__ void NAME(store_dense)(const pscan__cuda_compact_params *p,
                                                         unsigned char *tile,
                                                         const unsigned short *heads_at,
                                                         unsigned long long start,
                                                         unsigned total_count, ACC_T tile_before) {
  const bool rle = p->kind == PSCAN__COMPACT_RUN_LENGTH;
  for (unsigned j = threadIdx.x; j < total_count; j += PSCAN__THREADS) {
    const unsigned long long rank = tile_before.count + j;
    ((T *)p->out)[rank] = *NAME(gathered)(tile, j);
    if (rle && rank > 0) /* head `rank` closes the run before it */
      p->counts_out[rank - 1] = j > 0 ? (unsigned long long)(heads_at[j] - heads_at[j - 1])
                                      : start + heads_at[0] - tile_before.x;
  }
}

/* The tile warps: every tile of the block, from the first id it takes until the ids run out. */
static __device__ void NAME(heads_tiles)(const pscan__cuda_compact_params *p, NAME(heads_smem) *sm) {
  const unsigned long long num_tiles = p->lb.num_tiles;
  const unsigned first = threadIdx.x * ITEMS;
  const unsigned sparse_max = pscan__lbw_slot_items(p, NAME(HEADS_SPARSE));
  unsigned long long tile = pscan__lbw_first_tile(&p->lb, &sm->k.tile_id);
  if (tile < num_tiles)
    NAME(lbw_stage)(p, &sm->k, tile, true);
  bool waited = false; /* slot s is known free (a dense tile of run-length encoding waited) */
  for (unsigned s = 0;; s ^= 1u) {
    NAME(heads_slot) *slot = &sm->slot[s];
    if (tile >= num_tiles) {
      if (!waited)
        pscan__lbw_wait_empty(s);
      pscan__lbw_stop_free(s, &slot->tile);
      return;
    }
    const unsigned long long start = tile * (unsigned long long)TILE;
    unsigned before_count, total_count;
    int before_last;
    ACC_T total;
    const unsigned keep = NAME(lbw_decide)(p, &sm->k, tile, false, &before_count, &before_last,
                                           &total_count, &total);
    const bool dense = total_count > sparse_max;
    if (!waited)
      pscan__lbw_wait_empty(s);
    waited = false;
    if (!dense) {
      NAME(heads_kept) *kept = &sm->u.kept[s];
      unsigned r = before_count;
      for (unsigned k = keep; k; k &= k - 1) {
        const unsigned at = first + (unsigned)__ffs(k) - 1u;
        kept->items[r] = *(const T *)(sm->k.tile + pscan__swz(at * (unsigned)sizeof(T)));
        kept->at[r++] = (unsigned short)at;
      }
    } else {
      T items[ITEMS];
      NAME(read_items)(sm->k.tile, 0, ITEMS, items);
      pscan__lbw_tile_sync(); /* the gather writes over the staged input */
      NAME(gather_kept)(sm->k.tile, items, keep, before_count);
      if (p->kind == PSCAN__COMPACT_RUN_LENGTH) {
        /* The offsets lie over both slots' kept items: wait for the other slot too (the
           look-back warp has stored the previous tile's kept items; after a dense tile, long
           since), and the next tile fills a slot only after this tile's stores. */
        pscan__lbw_wait_empty(s ^ 1u);
        waited = true;
        pscan__rank_offsets(sm->u.heads_at, keep, before_count, ITEMS);
      }
    }
    PSCAN__LBW_HAND_OVER(p, sm, s, slot, tile, total, dense);
    if (dense) {
      /* Wait for the prefix, take the next id (L2 starts fetching that tile during the stores),
         store from the tile buffer, then stage the next tile. Taking the id before the prefix
         is known makes the new tile's aggregate wait behind this tile's look-back, and the waits
         feed each other (the select kernel lost 57 points that way: docs/PERFORMANCE.md). */
      pscan__lbw_wait_prefix();
      const ACC_T tile_before = slot->prefix;
      if (threadIdx.x == 0)
        NAME(lbw_take_fetch)(p, &sm->k.tile_id);
      NAME(store_dense)(p, sm->k.tile, sm->u.heads_at, start, total_count, tile_before);
      if (tile == num_tiles - 1 && threadIdx.x == 0)
        NAME(heads_finish)(p, NAME(op)(tile_before, total));
      pscan__lbw_tile_sync(); /* the stores have read the buffer; the next id is known */
    }
    const unsigned long long next = sm->k.tile_id;
    if (next < num_tiles)
      NAME(lbw_stage)(p, &sm->k, next, true);
    tile = next;
  }
}

/* The look-back warp: the block's tiles in the order they were taken. (The compaction family's
   keys kernels are never in deterministic mode: counts and positions are integers.) */
static __device__ void NAME(heads_look_back)(const pscan__cuda_compact_params *p, NAME(heads_smem) *sm) {
  const unsigned lane = threadIdx.x & 31;
  const bool rle = p->kind == PSCAN__COMPACT_RUN_LENGTH;
  PSCAN__LBW_LOOK_BACK(NAME(heads_slot), p, sm, 2, {
    const unsigned long long start = tile * (unsigned long long)TILE;
    const NAME(heads_kept) *kept = &sm->u.kept[s];
    for (unsigned j = lane; j < (unsigned)total.count; j += 32) {
      const unsigned long long rank = before.count + j;
      ((T *)p->out)[rank] = kept->items[j];
      if (rle && rank > 0) /* head `rank` closes the run before it */
        p->counts_out[rank - 1] = start + kept->at[j] - (j > 0 ? start + kept->at[j - 1] : before.x);
    }
    if (tile == p->lb.num_tiles - 1 && lane == 0)
      NAME(heads_finish)(p, NAME(op)(before, total));
  })
}

PSCAN__LBW_KERNEL_DYNAMIC(NAME(heads_kernel), PSCAN__HEADS_MIN_BLOCKS, NAME(heads_smem),
                          NAME(heads_tiles), NAME(heads_look_back))

/* The launch's shared memory: unique's ends after the slots' kept items. */
static size_t NAME(heads_smem_bytes)(const bool rle) {
  return rle ? sizeof(NAME(heads_smem))
             : offsetof(NAME(heads_smem), u) + sizeof(NAME(heads_kept)) * 2;
}

static int NAME(launch_heads)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream,
                              uint64_t *taken) {
  const size_t smem = NAME(heads_smem_bytes)(p->kind == PSCAN__COMPACT_RUN_LENGTH);
  static int opted_in; /* above 48 KB a kernel must opt in (once; repeating is harmless) */
  if (!opted_in) {
    cudaError_t e = cudaFuncSetAttribute(NAME(heads_kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)NAME(heads_smem_bytes)(true));
    if (e != cudaSuccess)
      return (int)e;
    opted_in = 1;
  }
  pscan__cuda_compact_params q = *p;
  grid = pscan__lbw_grid((const void *)NAME(heads_kernel), smem, &q.lb, grid, taken);
  return pscan__launch((const void *)NAME(heads_kernel), grid, PSCAN__LBW_THREADS, smem, stream,
                       &q, q.lb.pdl, 0);
}

