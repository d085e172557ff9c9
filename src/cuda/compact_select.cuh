/* Include-template: select_if, select_flagged and partition_if in the decoupled look-back mode, by
 * persistent blocks with two tile buffers and a warp of their own for the look-back. The includer
 * has included compact_tile.cuh (the same stamp: KEY, T, TILE, keep_mask, block_counts, gathered,
 * store_packed).
 *
 * Why: in keys_kernel_dense a tile's block loads its tile, then waits for its look-back with the
 * loads done and nothing new in flight, then stores and exits; a new block starts only then. A
 * selection writes what it keeps, so its buffer must wait for the prefix somewhere: here it waits
 * in the look-back warp's hands while the tile threads load and gather the block's next tile into
 * the other buffer:
 *  - the tile threads (PSCAN__THREADS) take an id when a buffer is free, stage the tile into it,
 *    find what it keeps, publish its aggregate, gather its kept items at the front of the buffer
 *    (partition_if: the rejected ones behind, reversed) and hand the buffer over;
 *  - the look-back warp takes the buffers in order: looks back, publishes the inclusive prefix,
 *    stores the gathered items with 16-byte streaming stores and frees the buffer.
 * Compare compact_heads.cuh (unique, run-length encoding), whose tiles keep few items and hand
 * over small slots instead of their buffers.
 *
 * A tile id is taken only when its buffer is free, so a tile is staged the moment its id exists
 * (a tile whose id waits behind another tile's look-back holds up every successor: bench/NOTES.md,
 * session 7).
 *
 * Forward progress: ids are taken in order and each look-back warp handles its block's tiles in
 * the order they were taken. The smallest unfinished tile m is either with its block's tile
 * threads (which wait only for loads and for a buffer that the look-back warp frees after an
 * older tile) or at the head of its look-back warp's queue, where every predecessor has
 * published: m finishes.
 *
 * In place (select_if, select_flagged): a tile is read before its aggregate is published and
 * written, by the look-back warp, only after its look-back returned, into out[E_k .. E_k + kept)
 * below its own end: the argument of compact_tile.cuh holds unchanged. partition_if is never in
 * place.
 *
 * Synchronisation: the named barriers of compact_common.cuh; a buffer is slot s. */

/* Blocks per multiprocessor the kernel is built for: two 33 KB buffers each, so three fit. */
#ifndef PSCAN__SELECT_MIN_BLOCKS
#define PSCAN__SELECT_MIN_BLOCKS 3
#endif

typedef struct NAME(select_slot) {
  unsigned long long tile; /* PSCAN__LBW_STOP: no more tiles */
  ACC_T total;             /* the tile's kept count (.count) */
  unsigned valid;          /* items in the tile */
} NAME(select_slot);

typedef struct NAME(select_smem) {
  __align__(16) unsigned char buf[2][NAME(TILE_BYTES)];
  NAME(select_slot) slot[2];
  NAME(warp_counts) warps;
  unsigned long long tile_id;
} NAME(select_smem);

/* The tile threads: stage, decide, publish, gather, hand over; until the ids run out. */
static __device__ void NAME(select_tiles)(const pscan__cuda_compact_params *p, NAME(select_smem) *sm) {
  const unsigned long long n = p->lb.n, num_tiles = p->lb.num_tiles;
  const unsigned first = threadIdx.x * ITEMS;
  const bool partition = p->kind == PSCAN__COMPACT_PARTITION_IF;
  for (unsigned s = 0, taken = 0;; s ^= 1u, taken++) {
    unsigned char *buf = sm->buf[s];
    NAME(select_slot) *slot = &sm->slot[s];
    pscan__lbw_wait_empty(s);
    const unsigned long long tile = pscan__lbw_take(&p->lb, &sm->tile_id, taken == 0);
    if (tile >= num_tiles) {
      pscan__lbw_send_stop(s, &slot->tile);
      return;
    }
    const unsigned long long start = tile * (unsigned long long)TILE;
    const unsigned valid = n - start < (unsigned long long)TILE ? (unsigned)(n - start) : TILE;
    const unsigned mine = valid > first ? (valid - first < ITEMS ? valid - first : ITEMS) : 0;
    pscan__stage(buf, p->in, start, valid, sizeof(T), p->keys_vector_io && valid == TILE);
    pscan__lbw_tile_sync();
    const unsigned keep = NAME(keep_mask)(p, buf, (T)0, start, mine, true);
    unsigned before_count, total_count;
    int before_last, total_last;
    NAME(block_counts)(&sm->warps, __popc(keep), -1, &before_count, &before_last, &total_count,
                       &total_last, true);
    const ACC_T total = NAME(make)(total_count, start);
    if (tile > 0 && threadIdx.x == 0)
      NAME(publish)(p->lb.agg_words, tile, total, p->lb.epoch);
    /* Gather in the buffer: every item into registers first (the gather writes over them). */
    T items[ITEMS];
    NAME(read_items)(buf, 0, ITEMS, items);
    pscan__lbw_tile_sync();
    unsigned kept_rank = before_count, rejected_rank = first - before_count;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
      if (keep >> i & 1u)
        *NAME(gathered)(buf, kept_rank++) = items[i];
      else if (partition && (unsigned)i < mine)
        *NAME(gathered)(buf, valid - 1 - rejected_rank++) = items[i];
    }
    if (threadIdx.x == 0) {
      slot->tile = tile;
      slot->total = total;
      slot->valid = valid;
    }
    pscan__lbw_tile_sync(); /* the buffer and the slot are complete */
    pscan__lbw_filled(s);
  }
}

/* The look-back warp: the block's tiles in the order they were taken. */
static __device__ void NAME(select_look_back)(const pscan__cuda_compact_params *p, NAME(select_smem) *sm) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long n = p->lb.n;
  pscan__lbw_start();
  for (unsigned s = 0;; s ^= 1u) {
    const NAME(select_slot) *slot = &sm->slot[s];
    pscan__lbw_wait_full(s);
    const unsigned long long tile = slot->tile;
    if (tile == PSCAN__LBW_STOP)
      return;
    const ACC_T total = slot->total;
    const unsigned valid = slot->valid, kept = (unsigned)total.count;
    const ACC_T before = NAME(warp_prefix)(&p->lb, tile, total);
    T *out = (T *)p->out;
    NAME(store_packed)(out + before.count, sm->buf[s], 0, kept, lane, 32);
    if (p->kind == PSCAN__COMPACT_PARTITION_IF) { /* rejected: the r-th of the input -> out[n-1-r] */
      const unsigned long long rejected_before = tile * (unsigned long long)TILE - before.count;
      NAME(store_packed)(out + (n - rejected_before - (valid - kept)), sm->buf[s], kept, valid - kept,
                         lane, 32);
    }
    if (tile == p->lb.num_tiles - 1 && lane == 0)
      *p->count_out = before.count + kept;
    pscan__lbw_release(s);
  }
}

__global__ void __launch_bounds__(PSCAN__LBW_THREADS, PSCAN__SELECT_MIN_BLOCKS)
    NAME(select_kernel)(const pscan__cuda_compact_params p) {
  extern __shared__ __align__(16) unsigned char select_dynamic_smem[];
  NAME(select_smem) *sm = (NAME(select_smem) *)(void *)select_dynamic_smem;
  if (threadIdx.x < PSCAN__THREADS)
    NAME(select_tiles)(&p, sm);
  else
    NAME(select_look_back)(&p, sm);
}

static int NAME(launch_select)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream,
                               uint64_t *taken) {
  const size_t smem = sizeof(NAME(select_smem));
  static int opted_in; /* above 48 KB a kernel must opt in (once; repeating it is harmless) */
  if (!opted_in) {
    cudaError_t e = cudaFuncSetAttribute(NAME(select_kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess)
      return (int)e;
    opted_in = 1;
  }
  pscan__cuda_compact_params q = *p;
  grid = pscan__lbw_grid((const void *)NAME(select_kernel), smem, &q.lb, grid, taken);
  NAME(select_kernel)<<<(unsigned)grid, PSCAN__LBW_THREADS, smem, (cudaStream_t)stream>>>(q);
  return (int)cudaGetLastError();
}
