/* Include-template: select_if, select_flagged and partition_if in the decoupled look-back mode, by
 * persistent blocks with a ring of tile buffers and a warp of their own for the look-back. The
 * includer has included compact_tile.cuh (the same stamp: KEY, T, keep_mask, block_counts,
 * gathered, store_packed). Its tiles are smaller than keys_kernel's (SEL_TILE items; the host
 * counts tiles with the select table's size).
 *
 * Why: a selection's kernel is bound by how much it has in flight while it reads (select_if
 * keeping nothing read at 82% of the copy in keys_kernel_dense, unique at 98% in heads_kernel:
 * bench/NOTES.md, session 8). A selection writes what it keeps, so each tile's buffer must wait
 * for the tile's prefix; with one buffer per tile the waits and the loads share the shared
 * memory. Here each block owns SEL_BUFS small buffers in a ring: while the look-back warp holds
 * one and the tile threads work on the next, the others are loading (cp.async, SEL_BUFS - 2
 * tiles ahead):
 *  - the tile threads (PSCAN__THREADS) take an id the moment a buffer is free and start staging
 *    that tile into it; then, in order, wait for a staged tile, find what it keeps, publish its
 *    aggregate, gather its kept items at the front of the buffer (partition_if: the rejected ones
 *    behind, reversed) and hand the buffer over;
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
 * threads (which wait only for loads, and for a buffer that the look-back warp frees after an
 * older tile of the same block, which therefore finishes first) or at the head of its look-back
 * warp's queue, where every predecessor has published: m finishes. The tile threads stop taking
 * ids after the first one past the last tile (so each block moves the counter one id too far, as
 * pscan__lbw_grid counts).
 *
 * In place (select_if, select_flagged): a tile is read before its aggregate is published and
 * written, by the look-back warp, only after its look-back returned, into out[E_k .. E_k + kept)
 * below its own end: the argument of compact_tile.cuh holds unchanged. partition_if is never in
 * place.
 *
 * Synchronisation: the named barriers of compact_common.cuh; buffer b is slot b. */

enum {
  NAME(SEL_ITEMS) = 16, /* per thread (a multiple of BATCH) */
  NAME(SEL_TILE) = PSCAN__THREADS * NAME(SEL_ITEMS),
  NAME(SEL_BYTES) = NAME(SEL_TILE) * sizeof(T) + NAME(GPAD) * (NAME(SEL_TILE) * sizeof(T) / 128),
  /* 8-byte items: 32 KB tiles, two buffers (the ring then loads nothing ahead); else four. */
  NAME(SEL_BUFS) = sizeof(T) == 8 ? 2 : 4
};
/* Blocks per multiprocessor the kernel is built for (its register bound; the buffers of three
   fit the shared memory). */
#ifndef PSCAN__SELECT_MIN_BLOCKS
#define PSCAN__SELECT_MIN_BLOCKS 3
#endif

typedef struct NAME(select_slot) {
  unsigned long long tile; /* the buffer's tile (>= num_tiles: none; PSCAN__LBW_STOP: stop) */
  ACC_T total;             /* the tile's kept count (.count) */
  unsigned valid;          /* items in the tile */
} NAME(select_slot);

typedef struct NAME(select_smem) {
  __align__(16) unsigned char buf[NAME(SEL_BUFS)][NAME(SEL_BYTES)];
  NAME(select_slot) slot[NAME(SEL_BUFS)];
  NAME(warp_counts) warps;
} NAME(select_smem);

/* Tile threads, buffer b free: take the next id into slot b (unless the block's last take was
   already past the last tile) and start staging that tile. Always one cp.async group. */
static __device__ __forceinline__ void NAME(select_stage)(const pscan__cuda_compact_params *p,
                                                          NAME(select_smem) *sm, unsigned b,
                                                          unsigned long long last_taken, bool first) {
  const unsigned long long n = p->lb.n, num_tiles = p->lb.num_tiles;
  if (threadIdx.x == 0) {
    if (first)
      pscan__stagger_first_wave(&p->lb);
    sm->slot[b].tile = last_taken < num_tiles ? pscan__take_tile(&p->lb) : last_taken;
  }
  pscan__lbw_tile_sync();
  const unsigned long long tile = sm->slot[b].tile, start = tile * (unsigned long long)NAME(SEL_TILE);
  if (tile >= num_tiles) {
    pscan__cp_async_commit();
    return;
  }
  const unsigned valid = n - start < (unsigned long long)NAME(SEL_TILE) ? (unsigned)(n - start)
                                                                        : NAME(SEL_TILE);
  pscan__stage_start(sm->buf[b], p->in, start, valid, sizeof(T),
                     p->keys_vector_io && valid == NAME(SEL_TILE));
}

/* Tile threads: the staged tile of buffer b -> its aggregate published, its items gathered in the
   buffer, the slot filled. */
static __device__ __forceinline__ void NAME(select_tile)(const pscan__cuda_compact_params *p,
                                                         NAME(select_smem) *sm, unsigned b,
                                                         unsigned long long tile) {
  enum { K = NAME(SEL_ITEMS) };
  const unsigned long long n = p->lb.n, start = tile * (unsigned long long)NAME(SEL_TILE);
  const unsigned valid = n - start < (unsigned long long)NAME(SEL_TILE) ? (unsigned)(n - start)
                                                                        : NAME(SEL_TILE);
  const unsigned first = threadIdx.x * K;
  const unsigned mine = valid > first ? (valid - first < K ? valid - first : K) : 0;
  const bool partition = p->kind == PSCAN__COMPACT_PARTITION_IF;
  unsigned char *buf = sm->buf[b];
  const unsigned keep = NAME(keep_mask)(p, buf, (T)0, start, mine, true, K);
  unsigned before_count, total_count;
  int before_last, total_last;
  NAME(block_counts)(&sm->warps, __popc(keep), -1, &before_count, &before_last, &total_count,
                     &total_last, true);
  const ACC_T total = NAME(make)(total_count, start);
  if (tile > 0 && threadIdx.x == 0)
    NAME(publish)(p->lb.agg_words, tile, total, p->lb.epoch);
  T items[K];
  NAME(read_items)(buf, 0, K, items, K);
  pscan__lbw_tile_sync(); /* the gather writes over the staged input */
  unsigned kept_rank = before_count, rejected_rank = first - before_count;
#pragma unroll
  for (int i = 0; i < K; i++) {
    if (keep >> i & 1u)
      *NAME(gathered)(buf, kept_rank++) = items[i];
    else if (partition && (unsigned)i < mine)
      *NAME(gathered)(buf, valid - 1 - rejected_rank++) = items[i];
  }
  if (threadIdx.x == 0) {
    sm->slot[b].total = total;
    sm->slot[b].valid = valid;
  }
  pscan__lbw_tile_sync(); /* the buffer and the slot are complete */
  pscan__lbw_filled(b);
}

/* The tile threads: buffers in ring order, SEL_BUFS - 2 staging ahead of the one worked on. */
static __device__ void NAME(select_tiles)(const pscan__cuda_compact_params *p, NAME(select_smem) *sm) {
  enum { B = NAME(SEL_BUFS) };
  const unsigned long long num_tiles = p->lb.num_tiles;
  unsigned long long last_taken = 0;
  for (unsigned b = 0; b + 1 < B; b++) {
    pscan__lbw_wait_empty(b);
    NAME(select_stage)(p, sm, b, last_taken, b == 0);
    last_taken = sm->slot[b].tile;
  }
  for (unsigned i = 0;; i++) {
    const unsigned b = i % B, r = (i + B - 1) % B;
    const unsigned long long tile = sm->slot[b].tile;
    if (tile >= num_tiles) {
      pscan__lbw_send_stop(b, &sm->slot[b].tile);
      return;
    }
    pscan__cp_async_wait_pending(B - 2); /* this tile's group (the newer ones may still load) */
    pscan__lbw_tile_sync();
    NAME(select_tile)(p, sm, b, tile);
    pscan__lbw_wait_empty(r); /* the buffer of the tile handed over before this one */
    NAME(select_stage)(p, sm, r, last_taken, false);
    last_taken = sm->slot[r].tile;
  }
}

/* The look-back warp: the block's tiles in the order they were taken. */
static __device__ void NAME(select_look_back)(const pscan__cuda_compact_params *p, NAME(select_smem) *sm) {
  enum { B = NAME(SEL_BUFS) };
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long n = p->lb.n;
  pscan__lbw_start_slots(B);
  for (unsigned i = 0;; i++) {
    const unsigned b = i % B;
    const NAME(select_slot) *slot = &sm->slot[b];
    pscan__lbw_wait_full(b);
    const unsigned long long tile = slot->tile;
    if (tile == PSCAN__LBW_STOP)
      return;
    const ACC_T total = slot->total;
    const unsigned valid = slot->valid, kept = (unsigned)total.count;
    const ACC_T before = NAME(warp_prefix)(&p->lb, tile, total);
    T *out = (T *)p->out;
    NAME(store_packed)(out + before.count, sm->buf[b], 0, kept, lane, 32);
    if (p->kind == PSCAN__COMPACT_PARTITION_IF) { /* rejected: the r-th of the input -> out[n-1-r] */
      const unsigned long long rejected_before = tile * (unsigned long long)NAME(SEL_TILE) - before.count;
      NAME(store_packed)(out + (n - rejected_before - (valid - kept)), sm->buf[b], kept,
                         valid - kept, lane, 32);
    }
    if (tile == p->lb.num_tiles - 1 && lane == 0)
      *p->count_out = before.count + kept;
    pscan__lbw_release(b);
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

/* Look-back mode only (the host picks this kernel when the input has more than one SEL_TILE). */
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
