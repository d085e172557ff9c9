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
 * memory, in order, 16 bytes at a time where its row is whole and aligned: a warp's reads cover
 * whole lines that L1 serves to the following items. The scan moves n keys and n values in, n
 * values out.
 *
 * The reduction keeps each item's fold in shared memory (only each thread's first run, which its
 * fold began mid-run, takes the carry after the look-back, at its end) and writes each run's
 * last value, to vals_out[run], and each run's first key, to keys_out[run]; a run's index is
 * the number of heads before it, found by a second look-back, the built-in 64-bit sum over the
 * tiles' head counts (as user_select.cuh finds its positions) in status words of its own
 * (count_words), run by warp 1 while warp 0 looks back over the values. The outputs leave a warp's 32 consecutive
 * runs at a time: lane l finds the position of the warp's l-th head from its threads' head masks
 * (shuffles; no shared memory), writes its key and the value of the run that ends before it. It
 * moves n keys and n values in, a key and a value per run out.
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
   run. T: the key's type, compared with ==. (Word by word, so that mask stays in registers.) A
   thread with a whole row of aligned keys reads them 16 bytes at a time: its neighbours' rows
   are ITEMS_TOTAL keys apart, so each load of a warp spans many lines, and 4-byte loads would
   ask L1 for them four times as often. */
#define PU_KEY_HEADS(T)                                                                     \
  {                                                                                         \
    enum { PER = 16 / sizeof(T) }; /* keys in 16 bytes */                                   \
    const T *kp = (const T *)keys + first;                                                  \
    T prev = first && count ? kp[-1] : (T)0; /* (a thread past the end reads nothing) */    \
    if (PU_ITEMS_TOTAL % PER == 0 && count == PU_ITEMS_TOTAL &&                             \
        ((unsigned long long)kp & 15u) == 0) {                                              \
      _Pragma("unroll") for (int w = 0; w < PU_MASK_WORDS; w++) {                           \
        unsigned bits = 0;                                                                  \
        _Pragma("unroll") for (int j = 0; j < 32 && w * 32 + j < PU_ITEMS_TOTAL; j += PER) { \
          const uint4 raw = *(const uint4 *)(kp + w * 32 + j);                              \
          T got[PER];                                                                       \
          memcpy(got, &raw, 16);                                                            \
          _Pragma("unroll") for (int q = 0; q < PER; q++) {                                 \
            if (!(got[q] == prev))                                                          \
              bits |= 1u << (j + q);                                                        \
            prev = got[q];                                                                  \
          }                                                                                 \
        }                                                                                   \
        mask[w] = bits;                                                                     \
      }                                                                                     \
    } else {                                                                                \
      _Pragma("unroll") for (int w = 0; w < PU_MASK_WORDS; w++) {                           \
        unsigned bits = 0;                                                                  \
        for (unsigned j = 0; j < 32 && w * 32 + j < count; j++) {                           \
          const T cur = kp[w * 32 + j];                                                     \
          if (!(cur == prev))                                                               \
            bits |= 1u << j;                                                                \
          prev = cur;                                                                       \
        }                                                                                   \
        mask[w] = bits;                                                                     \
      }                                                                                     \
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
  const bool inclusive = NAME(poll)(p, (long long)tile - 1 - lane, &v, PSCAN__LB_AS_LAUNCH);
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
   (lookback.cuh) finds it, with the ordered search of deterministic mode: warp 0 writes it to
   *broadcast, which the block reads after its next barrier (the caller's; the reduction's count
   look-back runs in warp 1 meanwhile). */
static __device__ __forceinline__ void pu_by_key_search(const pscan__cuda_scan_params *p,
                                                        pscan_user_acc *broadcast,
                                                        pscan_user_acc *window,
                                                        unsigned long long tile, bool total_head,
                                                        pscan_user_acc total, bool starts_run) {
  if (total_head && threadIdx.x == 0) {
    pscan__perturb(tile, 1);
    NAME(publish)(p->incl_words, tile, total, p->epoch);
  }
  if (threadIdx.x >= 32)
    return;
  if (starts_run) {
    if (threadIdx.x == 0)
      *broadcast = NAME(identity)();
    return;
  }
  if (!total_head && threadIdx.x == 0) {
    pscan__perturb(tile, 2);
    NAME(publish)(p->agg_words, tile, total, p->epoch);
  }
  const pscan_user_acc e =
      p->deterministic ? pu_by_key_ordered(p, tile, window) : NAME(look_back)(p, tile);
  if (threadIdx.x == 0) {
    if (!total_head) {
      pscan__perturb(tile, 3);
      NAME(publish)(p->incl_words, tile, NAME(op)(e, total), p->epoch);
    }
    *broadcast = e;
  }
}

typedef struct pscan_user_by_key_smem {
  pscan_user_smem base;
  pscan_user_acc window[32]; /* the ordered look-back's */
  unsigned warp_heads[PSCAN__WARPS];
  PSCAN__CTYPE_U64 counts[32]; /* reduce: the block scan of the head counts, */
  PSCAN__CTYPE_U64 runs_before; /* and the runs before the tile */
} pscan_user_by_key_smem;

/* A tile in flight: this thread's items (count from `first`, in shared memory), their heads, the
   tile's value total (the pair total_head, total) and the value carried into the thread's first
   item (within the tile: before, before_head; then from the look-back: carry). */
typedef struct pu_by_key_tile {
  unsigned long long tile, first;
  unsigned valid, count, kind;
  unsigned mask[PU_MASK_WORDS];
  bool starts_run, before_head, total_head;
  pscan_user_acc before, total, carry;
} pu_by_key_tile;

/* Takes a tile, loads it, finds its heads, folds each thread's items within their runs (from init
   where the scan has one) and scans the folds over the block. keep: each item's fold (from its
   run's head, or from the thread's first item) replaces it in shared memory. */
static __device__ __forceinline__ void pu_by_key_fold(const pscan_user_params *up,
                                                      pscan_user_by_key_smem *sm,
                                                      pu_by_key_tile *t, const bool keep) {
  const pscan__cuda_scan_params *p = &up->base;
  t->tile = pu_take_tile(p, &sm->base.tile_id);
  t->valid = pu_tile_valid(p, t->tile);
  pu_load_tile(p, sm->base.tile, t->tile, t->valid);
  t->count = pscan__thread_items(t->valid, threadIdx.x * PU_ITEMS_TOTAL, PU_ITEMS_TOTAL);
  t->kind = (unsigned)(up->flags >> PU_KEY_SHIFT);
  const unsigned long long start = t->tile * (unsigned long long)PU_TILE;
  t->first = start + threadIdx.x * PU_ITEMS_TOTAL;
  pu_key_heads(up->keys, t->kind, t->first, t->count, t->mask);
  t->starts_run = t->tile == 0 || pu_key_differs(up->keys, t->kind, start);
  __syncthreads();
  const bool has_init = (up->flags & PU_HAS_INIT) != 0;
  pscan_user_t value, items[PU_ITEMS], c;
  memcpy(&value, up->value, PU_SIZE);
  bool has = false, mine_head = false;
  PU_FOR_ITEMS(sm->base.tile, t->count, items, if (keep) pu_write_batch(sm->base.tile, b, items);, {
    if (pu_bit(t->mask, k)) {
      has = has_init;
      c = value;
      mine_head = true;
    }
    c = has ? pscan_user_combine(c, items[i]) : items[i];
    items[i] = c;
    has = true;
  })
  pscan_user_acc mine = NAME(identity)();
  if (has)
    mine = NAME(make)(c);
  NAME(block_seg_scan)(mine_head, mine, sm->base.scan, sm->warp_heads, &t->before_head,
                       &t->before, &t->total_head, &t->total);
}

/* After the look-back (*broadcast: the tile's exclusive prefix, read after a barrier): the value
   carried into this thread's first item. */
static __device__ __forceinline__ void pu_by_key_carry(pu_by_key_tile *t,
                                                       const pscan_user_acc *broadcast) {
  t->carry = t->before_head ? t->before : NAME(op)(*broadcast, t->before);
}

#if PSCAN_USER_BY_KEY == 1
/* Rescans this thread's items in shared memory, in place: each becomes its inclusive (or, with
   exclusive, exclusive) value within its run. */
static __device__ __forceinline__ void pu_by_key_rescan(const pscan_user_params *up,
                                                        pscan_user_by_key_smem *sm,
                                                        const pu_by_key_tile *t, int exclusive) {
  const bool has_init = (up->flags & PU_HAS_INIT) != 0;
  pscan_user_t value, items[PU_ITEMS]; /* init, or the identity an exclusive run starts with */
  memcpy(&value, up->value, PU_SIZE);
  pscan_user_t c = t->carry.v;
  bool has = NAME(has)(t->carry);
  PU_FOR_ITEMS(sm->base.tile, t->count, items, pu_write_batch(sm->base.tile, b, items);, {
    if (pu_bit(t->mask, k)) {
      has = has_init;
      c = value;
    }
    const pscan_user_t x = items[i];
    const pscan_user_t through = has ? pscan_user_combine(c, x) : x;
    items[i] = exclusive ? (has ? c : value) : through;
    c = through;
    has = true;
  })
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_scan_by_key(const pscan_user_params up) {
  __shared__ pscan_user_by_key_smem sm;
  pscan__wait_for_predecessor();
  pu_by_key_tile t;
  pu_by_key_fold(&up, &sm, &t, false);
  pu_by_key_search(&up.base, &sm.base.prefix, sm.window, t.tile, t.total_head, t.total,
                   t.starts_run);
  __syncthreads();
  pu_by_key_carry(&t, &sm.base.prefix);
  pu_by_key_rescan(&up, &sm, &t, up.base.exclusive);
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

/* Item j of a tile in shared memory. */
static __device__ __forceinline__ void pu_read_item(const unsigned char *buf, unsigned j,
                                                    pscan_user_t *x) {
  unsigned char bytes[PU_SIZE];
#pragma unroll
  for (int w = 0; w < PU_SIZE / PU_UNIT; w++)
    pu_move(bytes + w * PU_UNIT, buf + pscan__swz(j * PU_SIZE + w * PU_UNIT), PU_UNIT);
  memcpy(x, bytes, PU_SIZE);
}

/* Item j of a tile in shared memory, written. */
static __device__ __forceinline__ void pu_write_item(unsigned char *buf, unsigned j,
                                                     const pscan_user_t *x) {
  unsigned char bytes[PU_SIZE];
  memcpy(bytes, x, PU_SIZE);
#pragma unroll
  for (int w = 0; w < PU_SIZE / PU_UNIT; w++)
    pu_move(buf + pscan__swz(j * PU_SIZE + w * PU_UNIT), bytes + w * PU_UNIT, PU_UNIT);
}

/* After a keeping fold, the run ends in shared memory hold their runs' values but for the run each
   thread's first item continues (its fold started at that item): that one's end, the item before
   the thread's first head (else its last item), takes the carry. Then a barrier. */
static __device__ __forceinline__ void pu_by_key_finish_first_run(pscan_user_by_key_smem *sm,
                                                                  const pu_by_key_tile *t) {
  if (t->count && !pu_bit(t->mask, 0) && NAME(has)(t->carry)) {
    unsigned end = t->count - 1;
#pragma unroll
    for (int w = PU_MASK_WORDS - 1; w >= 0; w--) /* the first head: the lowest word's lowest bit */
      if (t->mask[w])
        end = 32u * w + (unsigned)__ffs(t->mask[w]) - 2u;
    const unsigned j = threadIdx.x * PU_ITEMS_TOTAL + end;
    pscan_user_t x;
    pu_read_item(sm->base.tile, j, &x);
    x = pscan_user_combine(t->carry.v, x);
    pu_write_item(sm->base.tile, j, &x);
  }
  __syncthreads();
}

/* The position of the n-th (from 0) set bit of m; n < popc(m). */
static __device__ __forceinline__ unsigned pu_nth_bit(unsigned m, unsigned n) {
  unsigned pos = 0;
#pragma unroll
  for (unsigned half = 16; half; half >>= 1) {
    const unsigned low = __popc(m & ((1u << half) - 1u));
    if (n >= low) {
      n -= low;
      m >>= half;
      pos += half;
    }
  }
  return pos;
}

/* The tile's position of the h-th head (from 0) among the warp's threads' (a warp-wide call):
   lane l holds `before`, the heads of the warp's threads before it, and its thread's mask. */
static __device__ __forceinline__ unsigned pu_warp_head(unsigned h, unsigned before,
                                                        const unsigned mask[PU_MASK_WORDS]) {
  unsigned owner = 0; /* the last lane whose heads start at or before h */
#pragma unroll
  for (unsigned step = 16; step; step >>= 1) {
    const unsigned from = __shfl_sync(PSCAN__FULL_MASK, before, owner + step);
    if (from <= h)
      owner += step;
  }
  unsigned r = h - __shfl_sync(PSCAN__FULL_MASK, before, owner), pos = 0;
  bool found = false;
#pragma unroll
  for (int w = 0; w < PU_MASK_WORDS; w++) {
    const unsigned m = __shfl_sync(PSCAN__FULL_MASK, mask[w], owner), c = __popc(m);
    if (!found && r < c) {
      pos = 32u * w + pu_nth_bit(m, r);
      found = true;
    } else if (!found) {
      r -= c;
    }
  }
  return ((threadIdx.x & ~31u) + owner) * PU_ITEMS_TOTAL + pos;
}

/* The reduction's outputs, from a tile rescanned in place: each warp writes its threads' heads'
   keys and the values of the runs ending just before them, 32 consecutive runs at a time (so a
   warp's stores are contiguous); the run ending at the tile's end, where the next item starts a
   run, is thread 0's. runs: the runs before the warp's first head; before: the heads of the
   warp's threads before this one; heads: this thread's. */
static __device__ __forceinline__ void pu_store_runs(const pscan_user_params *up,
                                                     const pscan_user_by_key_smem *sm,
                                                     const pu_by_key_tile *t,
                                                     unsigned long long runs, unsigned before,
                                                     unsigned heads, unsigned long long tile_runs) {
  const unsigned char *keys = (const unsigned char *)up->keys;
  unsigned char *keys_out = (unsigned char *)up->keys_out;
  unsigned char *vals_out = (unsigned char *)up->base.out;
  const unsigned u = pu_unit_of((unsigned long long)vals_out, PU_SIZE), ks = t->kind & 15u;
  const unsigned long long start = t->tile * (unsigned long long)PU_TILE;
  const unsigned warp_heads = __shfl_sync(PSCAN__FULL_MASK, before, 31) +
                              __shfl_sync(PSCAN__FULL_MASK, heads, 31);
  pscan_user_t x;
  for (unsigned h0 = 0; h0 < warp_heads; h0 += 32) {
    const unsigned h = h0 + (threadIdx.x & 31);
    const unsigned j = pu_warp_head(h < warp_heads ? h : warp_heads - 1, before, t->mask);
    if (h < warp_heads) {
      pu_copy_key(keys_out + (runs + h) * ks, keys, t->kind, start + j);
      if (j > 0) {
        pu_read_item(sm->base.tile, j - 1, &x);
        pu_store_item(vals_out + (runs + h - 1) * PU_SIZE, &x, u);
      }
    }
  }
  if (threadIdx.x == 0) {
    const unsigned long long after = start + t->valid;
    if (after >= up->base.n || pu_key_differs(up->keys, t->kind, after)) {
      pu_read_item(sm->base.tile, t->valid - 1, &x);
      pu_store_item(vals_out + (tile_runs - 1) * PU_SIZE, &x, u);
    }
  }
}

extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_reduce_by_key(const pscan_user_params up) {
  __shared__ pscan_user_by_key_smem sm;
  pscan__wait_for_predecessor();
  pu_by_key_tile t;
  pu_by_key_fold(&up, &sm, &t, true);
  /* the runs before each thread's first item: a block scan of the head counts, then the tiles'
     look-back over them (the built-in count, in count_words) in warp 1 while warp 0 looks back
     over the values */
  unsigned heads = 0;
#pragma unroll
  for (int w = 0; w < PU_MASK_WORDS; w++)
    heads += __popc(t.mask[w]);
  PSCAN__CTYPE_U64 before, total;
  CNAME(block_warp_scans)((PSCAN__CTYPE_U64)heads, sm.counts, &before, &total);
  pu_by_key_search(&up.base, &sm.base.prefix, sm.window, t.tile, t.total_head, t.total,
                   t.starts_run);
  if (threadIdx.x / 32 == 1) {
    pscan__cuda_scan_params q = up.base;
    q.agg_words = up.count_words;
    q.incl_words = (char *)up.count_words + 16 * up.base.num_tiles;
    if (t.tile > 0 && threadIdx.x == 32)
      CNAME(publish)(q.agg_words, t.tile, total, q.epoch);
    const PSCAN__CTYPE_U64 runs_before = CNAME(warp_prefix)(&q, t.tile, total, false);
    if (threadIdx.x == 32)
      sm.runs_before = runs_before;
  }
  __syncthreads();
  pu_by_key_carry(&t, &sm.base.prefix);
  pu_by_key_finish_first_run(&sm, &t);
  const unsigned long long runs_before = sm.runs_before;
  const unsigned warp_before = __shfl_sync(PSCAN__FULL_MASK, (unsigned)before, 0);
  pu_store_runs(&up, &sm, &t, runs_before + warp_before, (unsigned)before - warp_before,
                heads, runs_before + total);
  if (t.tile == up.base.num_tiles - 1 && threadIdx.x == 0)
    *up.count_out = runs_before + total;
}
#endif
#undef CNAME
