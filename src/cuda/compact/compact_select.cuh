/* Include-template: select_if and select_flagged in the decoupled look-back mode, by persistent
 * blocks with a warp of their own for the look-back (the design of compact_heads.cuh, which says
 * why). The includer has included compact_tile.cuh (the same stamp: KEY, T, TILE, keys_smem,
 * keep_mask, block_counts, read_items, gather_kept, store_kept_packed).
 *
 * Why: keys_kernel_select holds its 32 KB tile buffer from the moment it loads until its kept
 * items are stored, i.e. through the look-back; the multiprocessor then has few loads in flight.
 * A selection's kept items must wait for the tile's prefix somewhere; here they wait in an output
 * buffer of their own while the tile buffer loads the block's next tile:
 *  - the tile warps stage a tile, decide what it keeps, publish its aggregate, take the items into
 *    registers, hand the tile to the look-back warp, take the next tile id and start staging that
 *    tile, then gather the kept items, in order, into the output buffer;
 *  - the look-back warp looks back (meanwhile), publishes the inclusive prefix, waits for the
 *    gather, stores the gathered items with 16-byte streaming stores and frees the output buffer.
 * The output buffer holds MEDIUM items (all of a 1- or 2-byte tile, ~60% of a 4- or 8-byte one:
 * four blocks' buffers fit a multiprocessor). A tile that keeps more gathers in its tile buffer
 * as keys_kernel_select does, and the tile warps wait for the prefix, store, and only then take
 * the next id (a tile whose id waits behind another tile's look-back holds up every successor:
 * docs/PERFORMANCE.md, "A tile id is never taken early").
 *
 * Forward progress: as in compact_heads.cuh — ids are taken in order and each block's look-back
 * warp handles its tiles in the order they were taken; the tile warps wait only for loads, for
 * the output buffer (freed after an older tile) or for their own tile's prefix.
 *
 * In place (out == in): a tile is read before its aggregate is published and written only after
 * its look-back returned, into out[E_k .. E_k + kept) below its own end: the argument of
 * compact_tile.cuh holds unchanged; the block staging a later tile while its look-back warp
 * still writes an earlier one changes nothing, the earlier tile's writes lying below both.
 *
 * Synchronisation: the named barriers of compact_common.cuh with one slot (s = 0). */

/* Blocks per multiprocessor the kernel is built for (its register bound, and its shared memory:
   NAME(SELECT_SMEM) bytes each). */
#define PSCAN__SELECT_MIN_BLOCKS 4

enum {
  /* Shared memory per block: a multiprocessor's 228 KB, less 1 KB reserved per block, for four. */
  NAME(SELECT_SMEM) = 57344,
  NAME(SELECT_META) = 64,
  NAME(SEL_ROW) = 128 / sizeof(T), /* items per row of the gathered layout (gathered) */
  NAME(SEL_PAD) = NAME(GPAD) / sizeof(T),
  NAME(SEL_ROOM) = (NAME(SELECT_SMEM) - (int)sizeof(NAME(keys_smem)) - NAME(SELECT_META)) /
                   (int)sizeof(T) * NAME(SEL_ROW) / (NAME(SEL_ROW) + NAME(SEL_PAD)) /
                   NAME(SEL_ROW) * NAME(SEL_ROW),
  /* Kept items the output buffer holds. */
  NAME(MEDIUM) = NAME(SEL_ROOM) < TILE ? NAME(SEL_ROOM) : TILE,
  NAME(MEDIUM_BYTES) =
      ((NAME(MEDIUM) + NAME(MEDIUM) / NAME(SEL_ROW) * NAME(SEL_PAD)) * (int)sizeof(T) + 15) / 16 * 16
};

typedef struct NAME(select_slot) {
  unsigned long long tile; /* PSCAN__LBW_STOP: no more tiles */
  ACC_T total;             /* the tile's kept count (.count) */
  ACC_T prefix;            /* a dense tile's exclusive prefix, for the tile warps */
  int dense;               /* the kept items stayed in the tile buffer */
} NAME(select_slot);

typedef struct NAME(select_smem) {
  NAME(keys_smem) k;
  NAME(select_slot) slot[1];
  __align__(16) unsigned char out[NAME(MEDIUM_BYTES)]; /* the kept items, gathered layout */
} NAME(select_smem);

/* The tile warps: every tile of the block, from the first id it takes until the ids run out. */
static __device__ void NAME(select_tiles)(const pscan__cuda_compact_params *p, NAME(select_smem) *sm) {
  const unsigned long long num_tiles = p->lb.num_tiles;
  unsigned long long tile = pscan__lbw_first_tile(&p->lb, &sm->k.tile_id);
  if (tile < num_tiles)
    NAME(lbw_stage)(p, &sm->k, tile, false);
  for (;;) {
    if (tile >= num_tiles) {
      pscan__lbw_stop(0, &sm->slot[0].tile);
      return;
    }
    unsigned before_count, total_count;
    int before_last;
    ACC_T total;
    const unsigned keep = NAME(lbw_decide)(p, &sm->k, tile, true, &before_count, &before_last,
                                           &total_count, &total);
    const bool dense = total_count > NAME(MEDIUM);
    pscan__lbw_wait_empty(0);
    T items[ITEMS];
    NAME(read_items)(sm->k.tile, 0, ITEMS, items);
    /* (The look-back starts while the items are gathered: the tile buffer has been read.) */
    PSCAN__LBW_HAND_OVER(p, sm, 0, &sm->slot[0], tile, total, dense);
    if (!dense) {
      tile = sm->k.tile_id;
      if (tile < num_tiles)
        NAME(lbw_stage)(p, &sm->k, tile, false);
      NAME(gather_kept)(sm->out, items, keep, before_count);
      /* (The arrive alone orders the gather's writes, but racecheck reports the look-back warp's
         reads as races unless a tile-thread barrier comes between, as in pscan__lbw_stop.) */
      pscan__lbw_tile_sync();
      pscan__bar_arrive(PSCAN__BAR_GATHERED, PSCAN__LBW_THREADS);
      continue;
    }
    /* Dense: gather in the tile buffer, wait for the prefix, take the next id (L2 starts
       fetching that tile: nothing but the stores stands between the id and its staging), store,
       then stage the next tile. (Taking the id before the prefix is known lost 57 points at
       75-100% selected: the new tile's aggregate then waits for this tile's look-back, and the
       waits feed each other; docs/PERFORMANCE.md, "Selection kernels".) */
    NAME(gather_kept)(sm->k.tile, items, keep, before_count);
    pscan__lbw_wait_prefix(); /* (then a barrier: every thread's gather is done) */
    pscan__lbw_tile_sync();
    const ACC_T tile_before = sm->slot[0].prefix;
    if (threadIdx.x == 0) {
      if (tile == num_tiles - 1)
        *p->count_out = tile_before.count + total_count;
      NAME(lbw_take_fetch)(p, &sm->k.tile_id);
    }
    NAME(store_kept_packed)((T *)p->out + tile_before.count, sm->k.tile, total_count, threadIdx.x,
                            PSCAN__THREADS);
    pscan__lbw_tile_sync(); /* the stores have read the buffer; the next id is known */
    tile = sm->k.tile_id;
    if (tile < num_tiles)
      NAME(lbw_stage)(p, &sm->k, tile, false);
  }
}

/* The look-back warp: the block's tiles in the order they were taken. */
static __device__ void NAME(select_look_back)(const pscan__cuda_compact_params *p,
                                              NAME(select_smem) *sm) {
  const unsigned lane = threadIdx.x & 31;
  PSCAN__LBW_LOOK_BACK(NAME(select_slot), p, sm, 1, {
    pscan__bar_sync(PSCAN__BAR_GATHERED, PSCAN__LBW_THREADS);
    NAME(store_kept_packed)((T *)p->out + before.count, sm->out, (unsigned)total.count, lane, 32);
    if (tile == p->lb.num_tiles - 1 && lane == 0)
      *p->count_out = before.count + total.count;
  })
}

__global__ void __launch_bounds__(PSCAN__LBW_THREADS, PSCAN__SELECT_MIN_BLOCKS)
    NAME(select_kernel)(const pscan__cuda_compact_params p) {
  extern __shared__ __align__(16) unsigned char pscan__select_dynamic_smem[];
  NAME(select_smem) *sm = (NAME(select_smem) *)(void *)pscan__select_dynamic_smem;
  pscan__wait_for_predecessor();
  if (threadIdx.x < PSCAN__THREADS)
    NAME(select_tiles)(&p, sm);
  else
    NAME(select_look_back)(&p, sm);
}

static int NAME(launch_select)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream,
                               uint64_t *taken) {
  static_assert(sizeof(NAME(select_smem)) <= NAME(SELECT_SMEM), "four blocks fit");
  const size_t smem = sizeof(NAME(select_smem));
  /* Above 48 KB a kernel must opt in; repeating it is harmless (and cheap next to a launch that
     only pays off for large inputs). */
  cudaError_t e = cudaFuncSetAttribute((const void *)NAME(select_kernel),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess)
    return (int)e;
  pscan__cuda_compact_params q = *p;
  grid = pscan__lbw_grid((const void *)NAME(select_kernel), smem, &q.lb, grid, taken);
  return pscan__launch((const void *)NAME(select_kernel), grid, PSCAN__LBW_THREADS, smem, stream,
                       &q, q.lb.pdl, 0);
}
