/* Include-template: reduce_by_key in the decoupled look-back mode, by persistent blocks with a
 * look-back warp (the design of compact_heads.cuh, which says why). Included by by_key_tile.cuh
 * before its launcher: the same stamp (V_T, ITEMS, TILE, by_key_smem, head_mask, block_pairs,
 * read_values, close_last_run).
 *
 * The tile threads stage a tile's keys and values, find its heads, publish its aggregate, and
 * for a tile of at most NAME(RBK_SPARSE) heads put into a slot each head's key and the value of
 * the run it closes (the first head's run is partial: it began in a predecessor); then they take
 * the next tile and stage it. The look-back warp looks back, publishes the inclusive prefix and
 * stores the keys and run values at their ranks. A tile of more heads waits for the prefix the
 * look-back warp hands back and stores as reduce_tile_direct does.
 *
 * Deterministic mode keeps by_key_reduce_kernel (by_key_tile.cuh: its ordered look-back needs
 * the whole block's scratch only there); scan_by_key keeps by_key_kernel (a tile's results are
 * the whole tile). */

/* A slot holds the heads of a tile that has at most an eighth of its items as heads (512 of a
   4096-item tile, 256 of a 2048-item one): with 256 for both, runs of 8-16 items made 4096-item
   tiles dense (docs/PERFORMANCE.md, "Wider slots for run heads"). */
enum { NAME(RBK_SPARSE) = TILE / 8 };
/* Blocks per multiprocessor the kernel is built for (its register bound). */
#define PSCAN__RBK_MIN_BLOCKS 4

typedef struct NAME(rbk_slot) {
  unsigned long long tile; /* PSCAN__LBW_STOP: no more tiles */
  ACC_T total;             /* the tile's (heads, values since its last head) */
  ACC_T prefix;            /* a dense tile's exclusive prefix, for the tile threads */
  int dense;               /* more heads than the slot holds */
  V_T first_run;           /* the tile's part of the run its first head closes */
  unsigned long long key[NAME(RBK_SPARSE)]; /* head r's key (its bits) */
  V_T run[NAME(RBK_SPARSE)];                /* [r - 1]: the run closed by head r, r > 0 */
} NAME(rbk_slot);

typedef struct NAME(rbk_smem) {
  NAME(by_key_smem) k;
  NAME(rbk_slot) slot[2];
} NAME(rbk_smem);

/* A dense tile's closed runs, gathered over its values by rank ([r - 1]: the run closed by head
   r), padded by one value every 32 so that threads writing consecutive ranks hit distinct banks.
   The launch gives the values this many entries, then RBK_AT_ENTRIES offsets in the tile of
   the heads by rank (rbk_heads_at; padded by one every 16: a thread writes its heads' offsets at
   consecutive ranks, and at run length 1 the threads' ranks lie 16 apart).
   (Written by a warp walking rows, pscan__rank_offsets, the offsets cost reduce_by_key 10-25%
   at run lengths 4-16: its tile threads' instructions are its limit.) */
enum { NAME(RBK_RUN_ENTRIES) = TILE + TILE / 32, NAME(RBK_AT_ENTRIES) = TILE + TILE / 16 };
static __device__ __forceinline__ unsigned NAME(rbk_run_index)(unsigned r) { return r + (r >> 5); }
static __device__ __forceinline__ unsigned NAME(rbk_at_index)(unsigned r) { return r + (r >> 4); }
static __device__ __forceinline__ unsigned short *NAME(rbk_heads_at)(const unsigned char *vals) {
  return (unsigned short *)(void *)(vals + NAME(RBK_RUN_ENTRIES) * sizeof(V_T));
}

/* Whether the tile's fold leaves each head's closed run in the tile for the walks over the heads
   (values of 4 bytes or less); with 8-byte values the walks fold every item again from the
   thread's prefix, as before (the closing form read 2-3% slower there at run lengths 1-4:
   docs/PERFORMANCE.md, "Closed runs left in the tile"). */
enum { NAME(RBK_CLOSING) = sizeof(V_T) <= 4 };

/* The fold of tile_pairs, which also leaves at each item the reduction of its thread's values
   before it since the last head (from the thread's first item): at a head, the run it closes, all
   of it but for the thread's first head, whose run began before the thread (rbk_closed). */
static __device__ __forceinline__ V_T NAME(rbk_fold_closing)(V_T v[ITEMS], unsigned heads,
                                                             unsigned mine) {
  V_T x = CX_IDENTITY();
#pragma unroll
  for (unsigned i = 0; i < ITEMS; i++)
    if (i < mine) {
      const V_T closing = x;
      x = (heads >> i & 1u) ? v[i] : CX_OP(x, v[i]);
      v[i] = closing;
    }
  return x;
}

/* tile_pairs, in the closing form its values written back over the tile's (a full tile's threads
   fold all their items with no test per item). */
static __device__ __forceinline__ void NAME(rbk_tile_pairs)(NAME(by_key_smem) *sm, unsigned char *vals,
                                                            unsigned heads, unsigned mine,
                                                            ACC_T *before, ACC_T *total) {
  if (!NAME(RBK_CLOSING)) {
    NAME(tile_pairs)(sm, vals, heads, mine, before, total, true);
    return;
  }
  V_T v[ITEMS];
  NAME(read_values)(vals, v);
  const V_T x = mine == ITEMS ? NAME(rbk_fold_closing)(v, heads, ITEMS)
                              : NAME(rbk_fold_closing)(v, heads, mine);
  NAME(write_values)(vals, v);
  NAME(block_pairs)(sm, (unsigned)__popc(heads), x, before, total, true);
}

/* The run closed by this thread's head of rank h in the tile, from the value rbk_tile_pairs left
   at it: the thread's first head (rank before.count) closes a run that began before the thread. */
static __device__ __forceinline__ V_T NAME(rbk_closed)(V_T left, unsigned h, ACC_T before) {
  return h == (unsigned)before.count ? CX_OP(before.x, left) : left;
}

/* Walks this thread's heads in order (v: its values as rbk_tile_pairs left them): the statements
   ON_HEAD run with i (the head's index in the thread), h (its rank in the tile) and run (the run
   it closes). */
#define RBK_FOR_HEADS(v, heads, mine, before, ...)                                                \
  if (NAME(RBK_CLOSING)) {                                                                        \
    unsigned h = (unsigned)(before).count;                                                        \
    _Pragma("unroll") for (unsigned i = 0; i < ITEMS; i++) if ((heads) >> i & 1u) {               \
      const V_T run = NAME(rbk_closed)((v)[i], h, (before));                                      \
      __VA_ARGS__                                                                                 \
      h++;                                                                                        \
    }                                                                                             \
  } else {                                                                                        \
    ACC_T carry_ = (before);                                                                      \
    BY_KEY_FOR_HEADS(v, heads, mine, carry_, {                                                    \
      const unsigned h = (unsigned)r;                                                             \
      const V_T run = carry_.x;                                                                   \
      __VA_ARGS__                                                                                 \
    })                                                                                            \
  }

/* Dense tile, before its look-back: every thread's values into registers, then the runs that
   close inside the tile (heads of rank >= 1: they began inside it, no predecessor needed) into
   run_value by rank, the tile's part of the run its first head closes into sm->k.first_run, and
   the heads' offsets by rank. */
static __device__ __forceinline__ void NAME(rbk_gather_runs)(NAME(rbk_smem) *sm, unsigned char *vals,
                                                             unsigned heads, unsigned mine,
                                                             ACC_T before) {
  V_T v[ITEMS];
  NAME(read_values)(vals, v);
  pscan__lbw_tile_sync(); /* every thread holds its values: the gather writes over them */
  V_T *run_value = (V_T *)(void *)vals;
  unsigned short *heads_at = NAME(rbk_heads_at)(vals);
  const unsigned first = threadIdx.x * ITEMS;
  RBK_FOR_HEADS(v, heads, mine, before, {
    heads_at[NAME(rbk_at_index)(h)] = (unsigned short)(first + i);
    if (h > 0)
      run_value[NAME(rbk_run_index)(h - 1)] = run;
    else
      sm->k.first_run = run;
  })
}

/* Sparse tile: head h (item `at` of the tile) puts its key and the run it closes into the slot. */
static __device__ __forceinline__ void NAME(rbk_put_head)(NAME(rbk_slot) *slot, const unsigned char *keys,
                                                          unsigned ks, unsigned at, unsigned h, V_T run) {
  slot->key[h] = pscan__elem_bits(keys, at, ks);
  if (h > 0)
    slot->run[h - 1] = run;
  else
    slot->first_run = run;
}

/* Sparse tile: this thread's heads into the slot; in the closing form one loop turn a head, its
   run read from the tile. */
static __device__ __forceinline__ void NAME(rbk_fill_slot)(NAME(rbk_slot) *slot, const unsigned char *keys,
                                                           const unsigned char *vals, unsigned ks,
                                                           unsigned heads, unsigned mine,
                                                           ACC_T before) {
  const unsigned first = threadIdx.x * ITEMS;
  if (NAME(RBK_CLOSING)) {
    unsigned h = (unsigned)before.count;
    for (unsigned m = heads; m != 0; m &= m - 1u, h++) {
      const unsigned at = first + (unsigned)__ffs((int)m) - 1u;
      const V_T left = *(const V_T *)(const void *)(vals + pscan__swz(at * (unsigned)sizeof(V_T)));
      NAME(rbk_put_head)(slot, keys, ks, at, h, NAME(rbk_closed)(left, h, before));
    }
  } else if (heads) {
    V_T v[ITEMS];
    NAME(read_values)(vals, v);
    RBK_FOR_HEADS(v, heads, mine, before, { NAME(rbk_put_head)(slot, keys, ks, first + i, h, run); })
  }
}

/* Dense tile, once its prefix is known: head j's key and the run it closes, j striding over the
   threads. */
static __device__ __forceinline__ void NAME(rbk_store_runs)(const pscan__cuda_compact_params *p,
                                                            const NAME(rbk_smem) *sm,
                                                            const unsigned char *keys,
                                                            const unsigned char *vals,
                                                            unsigned tile_heads, ACC_T tile_before) {
  const unsigned ks = (unsigned)p->key_size;
  const V_T *run_value = (const V_T *)(const void *)vals;
  const unsigned long long base = tile_before.count;
  if (threadIdx.x == 0 && base > 0)
    ((V_T *)p->vals_out)[base - 1] = CX_OP(tile_before.x, sm->k.first_run);
  const unsigned short *heads_at = NAME(rbk_heads_at)(vals);
  for (unsigned j = threadIdx.x; j < tile_heads; j += PSCAN__THREADS) {
    const unsigned at = heads_at[NAME(rbk_at_index)(j)];
    pscan__store_bits(p->out, base + j, ks, pscan__elem_bits(keys, at, ks));
    if (j > 0)
      ((V_T *)p->vals_out)[base + j - 1] = run_value[NAME(rbk_run_index)(j - 1)];
  }
}

/* Starts staging `tile`'s keys and values (and reading the key before it: the last thread's
   load, so that thread 0 never waits for it). */
static __device__ __forceinline__ void NAME(rbk_stage)(const pscan__cuda_compact_params *p,
                                                       NAME(rbk_smem) *sm, unsigned long long tile) {
  const unsigned long long n = p->lb.n, start = tile * (unsigned long long)TILE;
  const unsigned valid = pscan__tile_items(n, start, TILE);
  const unsigned ks = (unsigned)p->key_size;
  unsigned char *keys = pscan__by_key_tiles, *vals = pscan__by_key_tiles + TILE * ks;
  pscan__stage_start(keys, p->in, start, valid, ks, p->keys_vector_io && valid == TILE);
  pscan__stage_start(vals, p->vals_in, start, valid, sizeof(V_T), p->vals_vector_io && valid == TILE);
  if (threadIdx.x == PSCAN__THREADS - 1 && start > 0)
    sm->k.key_before = pscan__load_bits(p->in, start - 1, ks);
}

/* Thread 0 of a dense tile: the block's next tile id -> *slot, and L2 starts fetching that
   tile's keys and values. */
static __device__ __forceinline__ void NAME(rbk_take_fetch)(const pscan__cuda_compact_params *p,
                                                            unsigned long long *slot) {
  const unsigned long long next = pscan__take_tile(&p->lb), first = next * (unsigned long long)TILE;
  const unsigned ks = (unsigned)p->key_size;
  *slot = next;
  if (next < p->lb.num_tiles && pscan__tile_items(p->lb.n, first, TILE) == TILE) {
    if (p->keys_vector_io)
      pscan__prefetch_l2((const unsigned char *)p->in + first * ks, TILE * ks);
    if (p->vals_vector_io)
      pscan__prefetch_l2((const V_T *)p->vals_in + first, TILE * (unsigned)sizeof(V_T));
  }
}

/* The tile threads: every tile of the block, from the first id it takes until the ids run out. */
static __device__ void NAME(rbk_tiles)(const pscan__cuda_compact_params *p, NAME(rbk_smem) *sm) {
  const unsigned long long n = p->lb.n, num_tiles = p->lb.num_tiles;
  const unsigned first = threadIdx.x * ITEMS, ks = (unsigned)p->key_size;
  const unsigned char *keys = pscan__by_key_tiles, *vals = pscan__by_key_tiles + TILE * ks;
  unsigned long long tile = pscan__lbw_first_tile(&p->lb, &sm->k.tile_id);
  if (tile < num_tiles)
    NAME(rbk_stage)(p, sm, tile);
  for (unsigned s = 0;; s ^= 1u) {
    NAME(rbk_slot) *slot = &sm->slot[s];
    if (tile >= num_tiles) {
      pscan__lbw_stop(s, &slot->tile);
      return;
    }
    const unsigned long long start = tile * (unsigned long long)TILE;
    const unsigned valid = pscan__tile_items(n, start, TILE);
    const unsigned mine = pscan__thread_items(valid, first, ITEMS);
    pscan__stage_wait();
    pscan__lbw_tile_sync();
    const unsigned heads = NAME(head_mask)(p, &sm->k, keys, start, mine);
    ACC_T before, total;
    NAME(rbk_tile_pairs)(&sm->k, (unsigned char *)vals, heads, mine, &before, &total);
    if (tile > 0 && threadIdx.x == 0)
      NAME(publish)(p->lb.agg_words, tile, total, p->lb.epoch);
    const bool dense = total.count > pscan__lbw_slot_items(p, NAME(RBK_SPARSE));
    pscan__lbw_wait_empty(s);
    if (dense)
      NAME(rbk_gather_runs)(sm, (unsigned char *)vals, heads, mine, before);
    else
      NAME(rbk_fill_slot)(slot, keys, vals, ks, heads, mine, before);
    PSCAN__LBW_HAND_OVER(p, sm, s, slot, tile, total, dense);
    if (dense) {
      /* Wait for the prefix, take the next id (L2 fetches that tile during the stores), then
         each head writes its key and closes its run. The id is taken only now for the reason
         compact_heads.cuh gives. */
      pscan__lbw_wait_prefix();
      const ACC_T tile_before = slot->prefix;
      if (threadIdx.x == 0)
        NAME(rbk_take_fetch)(p, &sm->k.tile_id);
      NAME(rbk_store_runs)(p, sm, keys, vals, (unsigned)total.count, tile_before);
      NAME(close_last_run)(p, tile, tile_before, total, threadIdx.x == 0);
      pscan__lbw_tile_sync(); /* the tile has been read; the next id is known */
    }
    const unsigned long long next = sm->k.tile_id;
    if (next < num_tiles)
      NAME(rbk_stage)(p, sm, next);
    tile = next;
  }
}

/* The look-back warp: the block's tiles in the order they were taken. */
static __device__ void NAME(rbk_look_back)(const pscan__cuda_compact_params *p, NAME(rbk_smem) *sm) {
  const unsigned lane = threadIdx.x & 31, ks = (unsigned)p->key_size;
  PSCAN__LBW_LOOK_BACK(NAME(rbk_slot), p, sm, 2, {
    const unsigned long long base = before.count;
    for (unsigned j = lane; j < (unsigned)total.count; j += 32) {
      pscan__store_bits(p->out, base + j, ks, slot->key[j]);
      if (j > 0)
        ((V_T *)p->vals_out)[base + j - 1] = slot->run[j - 1];
      else if (base > 0)
        ((V_T *)p->vals_out)[base - 1] = CX_OP(before.x, slot->first_run);
    }
    NAME(close_last_run)(p, tile, before, total, lane == 0);
  })
}

PSCAN__LBW_KERNEL(NAME(rbk_kernel), PSCAN__RBK_MIN_BLOCKS, NAME(rbk_smem), NAME(rbk_tiles),
                  NAME(rbk_look_back))

static int NAME(launch_rbk)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream,
                            uint64_t *taken) {
  const size_t smem = (size_t)TILE * p->key_size + NAME(RBK_RUN_ENTRIES) * sizeof(V_T) +
                      NAME(RBK_AT_ENTRIES) * sizeof(unsigned short);
  static int opted_in; /* above 48 KB a kernel must opt in (once; repeating it is harmless) */
  if (!opted_in) {
    cudaError_t e = cudaFuncSetAttribute(NAME(rbk_kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         TILE * 8 + NAME(RBK_RUN_ENTRIES) * (int)sizeof(V_T) +
                                             NAME(RBK_AT_ENTRIES) * (int)sizeof(unsigned short));
    if (e != cudaSuccess)
      return (int)e;
    opted_in = 1;
  }
  pscan__cuda_compact_params q = *p;
  grid = pscan__lbw_grid((const void *)NAME(rbk_kernel), smem, &q.lb, grid, taken);
  return pscan__launch((const void *)NAME(rbk_kernel), grid, PSCAN__LBW_THREADS, smem, stream, &q,
                       q.lb.pdl, 0);
}

#undef RBK_FOR_HEADS
