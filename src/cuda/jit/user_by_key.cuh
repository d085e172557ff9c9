/* By key with a user operator (NVRTC only; PSCAN_USER_BY_KEY 1: pscan_scan_by_key_op, 2:
 * pscan_reduce_by_key_op on the GPU). The scan restarts at every run of equal consecutive keys:
 * it is the lines kernel (user_scan.cuh's pu_lines_body: a segmented tile scan, block_seg_scan
 * after Sengupta et al. 2007, and the look-back of lines_tile_prefix, Merrill & Garland 2016)
 * with its fixed line starts replaced by heads read from the keys: item g starts a run where
 * g == 0 or keys[g] != keys[g - 1] (floats by ==, so NaN never equals NaN and -0.0 equals +0.0).
 * A tile holding a head publishes its inclusive prefix at once, so a look-back never walks past
 * the tile where the run began.
 *
 * A thread reads its own items' keys (and the one before its first) straight from global
 * memory, in order: a warp's reads cover whole lines that L1 serves to the following items.
 * The scan moves n keys and n values in, n values out.
 *
 * The reduction runs the same scan and writes only each run's last value, to vals_out[run], and
 * each run's first key, to keys_out[run]; a run's index is the number of heads before it,
 * found by a second look-back, the built-in 64-bit sum over the tiles' head counts (as
 * user_select.cuh finds its positions) in status words of its own (count_words). It moves n keys
 * and n values in, a key and a value per run out; the outputs are written item by item.
 *
 * Deterministic mode (float operators whose bracketing must not depend on timing): a tile's
 * prefix is the left fold of its predecessors' values from the nearest published inclusive
 * prefix in a window of 32, else its predecessor's inclusive prefix, waited for. Every inclusive
 * prefix is then the left fold from its run's head, whichever way it was found. */
#define CNAME(f) PSCAN__NAME5(f, U64, U64, SUM)

/* Key kinds (the launch's flags >> PU_KEY_SHIFT, from jit_cuda.c): the key's size in bytes, plus
   PU_KEY_FLOAT for float and double keys. */
enum { PU_KEY_SHIFT = 8, PU_KEY_FLOAT = 16 };

/* The heads among keys[first .. first + count): bit k of mask set where item first + k starts a
   run. T: the key's type, compared with ==. (Word by word, so that mask stays in registers.) */
#define PU_KEY_HEADS(T)                                                                     \
  {                                                                                         \
    const T *kp = (const T *)keys + first;                                                  \
    T prev = first && count ? kp[-1] : (T)0; /* (a thread past the end reads nothing) */    \
    _Pragma("unroll") for (int w = 0; w < PU_MASK_WORDS; w++) {                             \
      unsigned bits = 0;                                                                    \
      for (unsigned j = 0; j < 32 && w * 32 + j < count; j++) {                             \
        const T cur = kp[w * 32 + j];                                                       \
        if (!(cur == prev))                                                                 \
          bits |= 1u << j;                                                                  \
        prev = cur;                                                                         \
      }                                                                                     \
      mask[w] = bits;                                                                       \
    }                                                                                       \
    if (first == 0)                                                                         \
      mask[0] |= 1u; /* (its comparison with 0 above may have said otherwise) */           \
  }

static __device__ __forceinline__ void pu_key_heads(const void *keys, unsigned kind,
                                                    unsigned long long first, unsigned count,
                                                    unsigned mask[PU_MASK_WORDS]) {
  switch (kind) {
  case 1: PU_KEY_HEADS(unsigned char) break;
  case 2: PU_KEY_HEADS(unsigned short) break;
  case 4: PU_KEY_HEADS(unsigned) break;
  case 8: PU_KEY_HEADS(unsigned long long) break;
  case 4 | PU_KEY_FLOAT: PU_KEY_HEADS(float) break;
  default: PU_KEY_HEADS(double) break;
  }
}
#undef PU_KEY_HEADS

/* Whether item g (> 0) starts a run, for the tile's first item (every thread asks: the answer
   must be the block's). */
static __device__ __forceinline__ bool pu_key_differs(const void *keys, unsigned kind,
                                                      unsigned long long g) {
  switch (kind) {
  case 1: return ((const unsigned char *)keys)[g] != ((const unsigned char *)keys)[g - 1];
  case 2: return ((const unsigned short *)keys)[g] != ((const unsigned short *)keys)[g - 1];
  case 4: return ((const unsigned *)keys)[g] != ((const unsigned *)keys)[g - 1];
  case 8: return ((const unsigned long long *)keys)[g] != ((const unsigned long long *)keys)[g - 1];
  case 4 | PU_KEY_FLOAT: return !(((const float *)keys)[g] == ((const float *)keys)[g - 1]);
  default: return !(((const double *)keys)[g] == ((const double *)keys)[g - 1]);
  }
}

static __device__ __forceinline__ bool pu_bit(const unsigned mask[PU_MASK_WORDS], unsigned k) {
  return (mask[k / 32] >> (k % 32) & 1u) != 0;
}

/* Warp 0, deterministic mode: the exclusive prefix of a tile that opens inside a run (above). */
static __device__ pscan_user_acc pu_by_key_ordered(const pscan__cuda_scan_params *p,
                                                   unsigned long long tile,
                                                   pscan_user_acc *window) {
  const int lane = threadIdx.x & 31;
  pscan_user_acc v;
  const bool inclusive = NAME(poll)(p, (long long)tile - 1 - lane, &v);
  const unsigned pmask = __ballot_sync(PSCAN__FULL_MASK, inclusive);
  if (!pmask)
    return NAME(wait_predecessor)(p, tile);
  const int stop = __ffs(pmask) - 1; /* lane 0 is tile - 1: fold lanes stop .. 0 in that order */
  window[lane] = v;
  __syncwarp();
  pscan_user_acc acc = window[stop];
  if (lane == 0)
    for (int l = stop - 1; l >= 0; l--)
      acc = NAME(op)(acc, window[l]);
  acc = NAME(shfl)(acc, 0);
  __syncwarp();
  return acc;
}

/* The exclusive prefix of the tile's first item within its run, as lines_tile_prefix
   (lookback.cuh) finds it, with the ordered search of deterministic mode. */
static __device__ __forceinline__ pscan_user_acc pu_by_key_prefix(
    const pscan__cuda_scan_params *p, pscan_user_acc *broadcast, pscan_user_acc *window,
    unsigned long long tile, bool total_head, pscan_user_acc total, bool starts_run) {
  if (!p->deterministic)
    return NAME(lines_tile_prefix)(p, broadcast, tile, total_head, total, starts_run, NULL);
  if (total_head && threadIdx.x == 0)
    NAME(publish)(p->incl_words, tile, total, p->epoch);
  if (starts_run)
    return NAME(identity)();
  if (threadIdx.x < 32) {
    if (!total_head && threadIdx.x == 0)
      NAME(publish)(p->agg_words, tile, total, p->epoch);
    const pscan_user_acc e = pu_by_key_ordered(p, tile, window);
    if (threadIdx.x == 0) {
      if (!total_head)
        NAME(publish)(p->incl_words, tile, NAME(op)(e, total), p->epoch);
      *broadcast = e;
    }
  }
  __syncthreads();
  return *broadcast;
}

typedef struct pscan_user_by_key_smem {
  pscan_user_smem base;
  pscan_user_acc window[32]; /* the ordered look-back's */
  unsigned warp_heads[PSCAN__WARPS];
  PSCAN__CTYPE_U64 counts[32]; /* reduce: the block scan of the head counts, */
  PSCAN__CTYPE_U64 runs_before; /* and the runs before the tile */
} pscan_user_by_key_smem;

/* A tile after its look-back: this thread's items (count from `first`, in shared memory), their
   heads, and the run value carried into its first item. */
typedef struct pu_by_key_tile {
  unsigned long long tile, first;
  unsigned valid, count, kind;
  unsigned mask[PU_MASK_WORDS];
  pscan_user_acc carry;
} pu_by_key_tile;

/* Takes a tile, loads it, finds its heads and the value carried into each thread's first item
   (from init where the scan has one). */
static __device__ __forceinline__ void pu_by_key_front(const pscan_user_params *up,
                                                       pscan_user_by_key_smem *sm,
                                                       pu_by_key_tile *t) {
  const pscan__cuda_scan_params *p = &up->base;
  t->tile = pu_take_tile(p, &sm->base.tile_id);
  t->valid = pu_tile_valid(p, t->tile);
  pu_load_tile(p, sm->base.tile, t->tile, t->valid);
  t->count = pscan__thread_items(t->valid, threadIdx.x * PU_ITEMS_TOTAL, PU_ITEMS_TOTAL);
  t->kind = (unsigned)(up->flags >> PU_KEY_SHIFT);
  const unsigned long long start = t->tile * (unsigned long long)PU_TILE;
  t->first = start + threadIdx.x * PU_ITEMS_TOTAL;
  pu_key_heads(up->keys, t->kind, t->first, t->count, t->mask);
  const bool starts_run = t->tile == 0 || pu_key_differs(up->keys, t->kind, start);
  __syncthreads();
  const bool has_init = (up->flags & PU_HAS_INIT) != 0;
  pscan_user_t value, items[PU_ITEMS], c;
  memcpy(&value, up->value, PU_SIZE);
  bool has = false, mine_head = false;
  PU_FOR_ITEMS(sm->base.tile, t->count, items, , {
    if (pu_bit(t->mask, k)) {
      has = has_init;
      c = value;
      mine_head = true;
    }
    c = has ? pscan_user_combine(c, items[i]) : items[i];
    has = true;
  })
  pscan_user_acc mine = NAME(identity)(), before, total;
  if (has)
    mine = NAME(make)(c);
  bool before_head, total_head;
  NAME(block_seg_scan)(mine_head, mine, sm->base.scan, sm->warp_heads, &before_head, &before,
                       &total_head, &total);
  const pscan_user_acc e = pu_by_key_prefix(p, &sm->base.prefix, sm->window, t->tile, total_head,
                                            total, starts_run);
  t->carry = before_head ? before : NAME(op)(e, before);
}

#if PSCAN_USER_BY_KEY == 1
extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_scan_by_key(const pscan_user_params up) {
  __shared__ pscan_user_by_key_smem sm;
  pscan__wait_for_predecessor();
  pu_by_key_tile t;
  pu_by_key_front(&up, &sm, &t);
  const bool has_init = (up.flags & PU_HAS_INIT) != 0;
  pscan_user_t value, items[PU_ITEMS]; /* init, or the identity an exclusive run starts with */
  memcpy(&value, up.value, PU_SIZE);
  pscan_user_t c = t.carry.v;
  bool has = NAME(has)(t.carry);
  PU_FOR_ITEMS(sm.base.tile, t.count, items, pu_write_batch(sm.base.tile, b, items);, {
    if (pu_bit(t.mask, k)) {
      has = has_init;
      c = value;
    }
    const pscan_user_t x = items[i];
    const pscan_user_t through = has ? pscan_user_combine(c, x) : x;
    items[i] = up.base.exclusive ? (has ? c : value) : through;
    c = through;
    has = true;
  })
  __syncthreads();
  pu_store_tile(&up.base, sm.base.tile, t.tile, t.valid);
}
#else
/* Key i of keys to out (kind's size). */
static __device__ __forceinline__ void pu_copy_key(void *out, const void *keys, unsigned kind,
                                                   unsigned long long i) {
  switch (kind & 15u) {
  case 1: ((unsigned char *)out)[0] = ((const unsigned char *)keys)[i]; break;
  case 2: ((unsigned short *)out)[0] = ((const unsigned short *)keys)[i]; break;
  case 4: ((unsigned *)out)[0] = ((const unsigned *)keys)[i]; break;
  default: ((unsigned long long *)out)[0] = ((const unsigned long long *)keys)[i]; break;
  }
}

extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_reduce_by_key(const pscan_user_params up) {
  __shared__ pscan_user_by_key_smem sm;
  pscan__wait_for_predecessor();
  pu_by_key_tile t;
  pu_by_key_front(&up, &sm, &t);
  /* the runs before this thread's first item: a block scan of the head counts, then the tiles'
     look-back over them (in the count words) */
  unsigned heads = 0;
#pragma unroll
  for (int w = 0; w < PU_MASK_WORDS; w++)
    heads += __popc(t.mask[w]);
  PSCAN__CTYPE_U64 before, total;
  CNAME(block_warp_scans)((PSCAN__CTYPE_U64)heads, sm.counts, &before, &total);
  pscan__cuda_scan_params q = up.base;
  q.agg_words = up.count_words;
  q.incl_words = (char *)up.count_words + 16 * up.base.num_tiles;
  const PSCAN__CTYPE_U64 runs_before =
      CNAME(tile_prefix)(&q, &sm.runs_before, sm.counts, t.tile, total, NULL, false);
  unsigned long long run = runs_before + before; /* heads before the next item */
  /* whether this thread's last item ends a run */
  const unsigned long long after = t.first + t.count;
  const bool last_ends = t.count && (after >= up.base.n || pu_key_differs(up.keys, t.kind, after));
  unsigned char *vals_out = (unsigned char *)up.base.out;
  const unsigned u = pu_unit_of((unsigned long long)vals_out, PU_SIZE), ks = t.kind & 15u;
  pscan_user_t items[PU_ITEMS], c = t.carry.v;
  bool has = NAME(has)(t.carry);
  PU_FOR_ITEMS(sm.base.tile, t.count, items, , {
    if (pu_bit(t.mask, k)) {
      has = false;
      pu_copy_key((unsigned char *)up.keys_out + run * ks, up.keys, t.kind, t.first + k);
      run++;
    }
    c = has ? pscan_user_combine(c, items[i]) : items[i];
    has = true;
    if (k + 1 < t.count ? pu_bit(t.mask, k + 1) : last_ends)
      pu_store_item(vals_out + (run - 1) * PU_SIZE, &c, u);
  })
  if (t.tile == up.base.num_tiles - 1 && threadIdx.x == 0)
    *up.count_out = runs_before + total;
}
#endif
#undef CNAME
