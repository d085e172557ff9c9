/* Include-template, part of axis_stamp.cuh (its names and macros): narrow lines side by side in
 * one pass, in tiles of whole row segments.
 *
 * Decoupled look-back (Merrill & Garland, NVR-2016-002) along the axis with a vector of
 * accumulators per tile: a C-order (rows x cols) array scanned along axis 0 with few columns is a
 * flat scan whose element is a row. Tile t, taken in order from a counter, is chunk k = t / ncb
 * (p.rows rows) of column block cb = t % ncb (p.width columns). Its rows are read with flat
 * coalesced loads into shared memory, whatever the width, so the loads look like the flat scan's.
 * The block's threads split each column into groups of rows and reduce them. Each column of each
 * chunk has one status word, value and state together (1: the chunk's reduction, 2: the inclusive
 * prefix, written over it; 0: not yet), so a reader needs no fence and no flag. The look-back
 * reads a window of predecessors per round trip, spread over every thread of the block (a window
 * shorter than the predecessors that publish during one round trip would let the lag grow without
 * bound: docs/PERFORMANCE.md, "Narrow arrays side by side in one pass"). Then every group scans
 * its rows in shared memory from its prefix. A tile waits only on tiles taken before it, so every
 * wait ends. Where every column block's rows are whole 16-byte vectors (p.vec), the tile moves
 * in 16-byte copies, a quarter (4-byte) or half (8-byte) of the per-element instructions. */

#define AX_ROWS_TILE PSCAN__AXIS_ROWS_TILE(ACC_SIZE)
#define AX_ROWS_ITEMS (AX_ROWS_TILE / AX_THREADS)
#define AX_ROWS_BATCH 8
#define AX_ROWS_SPAN (ACC_SIZE == 8 ? 8 : 16) /* window positions per thread */
#define AX_ROWS_VEC (16 / ACC_SIZE)           /* elements per 16-byte vector (p.vec) */

/* Row and column within the tile of this thread's j-th flat item (j = 0, 1, ... in turn). */
typedef struct {
  unsigned r, c;
} NAME(ax_rc);

static __device__ __forceinline__ void NAME(ax_rows_next)(NAME(ax_rc) *rc, unsigned width) {
  rc->r += AX_THREADS / width;
  rc->c += AX_THREADS % width;
  if (rc->c >= width)
    rc->c -= width, rc->r++;
}

/* An asynchronous copy of one element (4 or 8 bytes) from global to shared memory. */
static __device__ __forceinline__ void NAME(ax_rows_copy)(void *smem, const void *g) {
  pscan__cp_async_unit(smem, g, ACC_SIZE);
}

#if ACC_SIZE >= 4
/* The tile's rows (rows x live of the block's width) between global and shared memory in
   16-byte vectors, AX_ROWS_ITEMS / AX_ROWS_VEC a thread: load (into s with cp.async, every copy
   in flight at once, not committed; the rest of the tile identity) or store (from s to out).
   p->vec: the width, live, the strides and both addresses are whole vectors, so vector q of the
   tile is row q / (width / VEC). */
static __device__ __forceinline__ void NAME(ax_rows_move_vec)(ACC_T *s, const IN_T *in,
                                                             ACC_T *out,
                                                             const pscan__cuda_axis_params *p,
                                                             unsigned rows, unsigned live,
                                                             bool load) {
  const unsigned wv = p->width / AX_ROWS_VEC;
  NAME(ax_rc) q = {threadIdx.x / wv, threadIdx.x % wv};
#pragma unroll 4
  for (unsigned j = 0; j < AX_ROWS_ITEMS / AX_ROWS_VEC; j++) {
    ACC_T *sv = s + (threadIdx.x + j * AX_THREADS) * AX_ROWS_VEC;
    const bool here = q.r < rows && q.c * AX_ROWS_VEC < live;
    const int64_t at = (int64_t)q.r * (load ? p->si : p->so) + q.c * AX_ROWS_VEC;
    if (load && here)
      pscan__cp_async16(sv, in + at);
    else if (load)
      for (int v = 0; v < AX_ROWS_VEC; v++)
        sv[v] = NAME(identity)();
    else if (here)
      *(uint4 *)(out + at) = *(const uint4 *)sv;
    NAME(ax_rows_next)(&q, wv);
  }
}
#endif

/* A group's rows of one column in shared memory (stride width), combined onto acc in order;
   with write, scanned in place (exclusive: the value before each row). AX_ROWS_BATCH rows are
   read before they are combined, so the reads overlap. Returns the fold. */
static __device__ __forceinline__ ACC_T NAME(ax_rows_pass)(ACC_T *column, unsigned width,
                                                          unsigned count, ACC_T acc, bool write,
                                                          int exclusive) {
  unsigned i = 0;
  for (; i + AX_ROWS_BATCH <= count; i += AX_ROWS_BATCH) {
    ACC_T y[AX_ROWS_BATCH];
#pragma unroll
    for (int u = 0; u < AX_ROWS_BATCH; u++)
      y[u] = column[(i + u) * width];
#pragma unroll
    for (int u = 0; u < AX_ROWS_BATCH; u++) {
      const ACC_T next = NAME(op)(acc, y[u]);
      if (write)
        column[(i + u) * width] = exclusive ? acc : next;
      acc = next;
    }
  }
  for (; i < count; i++) {
    const ACC_T next = NAME(op)(acc, column[i * width]);
    if (write)
      column[i * width] = exclusive ? acc : next;
    acc = next;
  }
  return acc;
}

/* A status word's state (0, 1 or 2) and value. */
static __device__ __forceinline__ unsigned NAME(ax_rows_read)(const void *words, uint64_t at,
                                                              ACC_T *v) {
#if ACC_SIZE == 8
  unsigned long long value, state;
  pscan__ld_word128((const char *)words + 16 * at, &value, &state);
  *v = NAME(from_bits)(value);
  return (unsigned)state;
#else
  const unsigned long long w = pscan__ld_word64((const char *)words + 8 * at);
  *v = NAME(from_bits)((NAME(bits_t))(w & 0xffffffffu));
  return (unsigned)(w >> 32);
#endif
}

/* The block's view of one tile for the look-back. */
typedef struct {
  uint64_t k, col;       /* chunk; this thread's column */
  unsigned width, groups, g, c;
  bool active, lead;     /* in a group of a live column; thread c of the block */
} NAME(ax_rows_tile);

/* Folds the predecessors of chunk k back to each column's nearest inclusive prefix. A round
   covers a window of groups x AX_ROWS_SPAN predecessors: thread (g, c) owns positions g,
   g + groups, ... (position i is chunk hi - 1 - i) of column c. It reads them, then again only
   those up to its own nearest inclusive prefix, until they are all published; the column's
   stop is the least inclusive position over its groups (the columns of a chunk are published
   one by one, so they may stop at different chunks), and every position before it was read
   published in its thread's last read. The groups' folds are then folded by the lead thread;
   the built-in operators commute, so the order of the predecessors' combination is free.
   Uniform across the block; returns the lead's prefix. */
static __device__ __forceinline__ ACC_T NAME(ax_rows_lookback)(const pscan__cuda_axis_params *p,
                                               const NAME(ax_rows_tile) *t) {
  __shared__ unsigned stop_s[AX_THREADS];
  __shared__ ACC_T part_s[AX_THREADS];
  ACC_T back = NAME(identity)();
  bool col_done = false;
  const unsigned win = t->groups * AX_ROWS_SPAN;
  for (uint64_t hi = t->k;;) {
    const unsigned n = hi < win ? (unsigned)hi : win;
    stop_s[threadIdx.x] = n;
    __syncthreads();
    const bool reading = t->active && !col_done;
    ACC_T v[AX_ROWS_SPAN];
    if (reading) {
      /* last: the farthest position this thread still needs (its nearest inclusive prefix) */
      unsigned last = n - 1, nearest, ns = PSCAN__BACKOFF_FIRST_NS;
      for (;;) {
        unsigned pending = 0; /* bit s: position s read unpublished */
        nearest = n;
#pragma unroll
        for (int s = 0; s < AX_ROWS_SPAN; s++) {
          const unsigned i = t->g + s * t->groups;
          unsigned st = 1;
          v[s] = NAME(identity)();
          if (i <= last)
            st = NAME(ax_rows_read)(p->agg, (hi - 1 - i) * p->nlines + t->col, &v[s]);
          pending |= (unsigned)(st == 0) << s;
          if (st == 2 && nearest == n)
            nearest = i;
        }
        last = nearest < n ? nearest : last;
        bool ready = true; /* every position up to last published (those past it not needed) */
#pragma unroll
        for (int s = 0; s < AX_ROWS_SPAN; s++)
          ready &= !(pending >> s & 1) || t->g + s * t->groups > last;
        if (ready)
          break;
        pscan__backoff(&ns);
      }
      if (nearest < n)
        atomicMin(&stop_s[t->c], nearest);
    }
    __syncthreads();
    const unsigned stop = stop_s[t->c];
    ACC_T part = NAME(identity)();
    if (reading)
#pragma unroll
      for (int s = 0; s < AX_ROWS_SPAN; s++)
        if (t->g + s * t->groups <= stop && t->g + s * t->groups < n)
          part = NAME(op)(part, v[s]);
    part_s[threadIdx.x] = part;
    __syncthreads();
    if (t->lead && !col_done)
      for (unsigned gg = 0; gg < t->groups; gg++)
        back = NAME(op)(back, part_s[gg * t->width + threadIdx.x]);
    col_done = col_done || stop < n;
    hi -= n;
    /* also: stop_s and part_s read before the next round writes them */
    if (!__syncthreads_or(t->active && !col_done))
      return back; /* an inclusive prefix already holds init */
  }
}

/* Where tile t lies: chunk k = t / ncb (rows rows from r0) of column block t % ncb (live
   columns from c0). */
typedef struct {
  uint64_t k, c0;
  int64_t r0;
  unsigned rows, live;
} NAME(ax_rows_at);

static __device__ __forceinline__ NAME(ax_rows_at) NAME(ax_rows_locate)(const pscan__cuda_axis_params *p,
                                                                       uint64_t tile) {
  const uint64_t ncb = (p->nlines + p->width - 1) / p->width;
  NAME(ax_rows_at) a;
  a.k = tile / ncb;
  a.r0 = (int64_t)a.k * p->rows;
  a.rows = p->len - a.r0 < p->rows ? (unsigned)(p->len - a.r0) : (unsigned)p->rows;
  a.c0 = tile % ncb * p->width;
  a.live = p->nlines - a.c0 < p->width ? (unsigned)(p->nlines - a.c0) : p->width;
  return a;
}

/* Asks L2 for chunk k, if there is one (p->prefetch: chunks are contiguous, no conversion). */
static __device__ __forceinline__ void NAME(ax_rows_prefetch)(const pscan__cuda_axis_params *p, uint64_t k) {
  if (sizeof(IN_T) == sizeof(ACC_T) && p->prefetch && k < p->nchunks) {
    const uint64_t r = k * (uint64_t)p->rows, n = (uint64_t)p->len - r;
    pscan__prefetch_l2((const IN_T *)p->in + r * p->si,
                       (unsigned)((n < (uint64_t)p->rows ? n : (uint64_t)p->rows) * p->width * sizeof(IN_T)));
  }
}

/* The block's tile id, the same in every thread. */
static __device__ __forceinline__ uint64_t NAME(ax_rows_take)(const pscan__cuda_axis_params *p) {
  __shared__ unsigned long long tile_s;
  if (threadIdx.x == 0)
    tile_s = atomicAdd(p->lb_counter, 1ull);
  __syncthreads();
  return tile_s;
}

/* Everything after the load of tile `tile` (at a) into s: the groups' reductions, the
   look-back, the scan in place, the store. Uniform across the block. */
static __device__ __forceinline__ void NAME(ax_rows_scan_tile)(const pscan__cuda_axis_params *p,
                                                              ACC_T *s, uint64_t tile,
                                                              const NAME(ax_rows_at) *a) {
  __shared__ ACC_T group_s[AX_THREADS]; /* [group][column]: reductions, then inclusive prefixes */
  __shared__ ACC_T prefix_s[AX_THREADS];
  /* groups of rows per column: reductions, then their inclusive prefixes (Kogge-Stone over the
     groups of a column) */
  NAME(ax_rows_tile) t;
  t.k = a->k;
  t.width = p->width;
  t.groups = AX_THREADS / t.width;
  t.g = threadIdx.x / t.width, t.c = threadIdx.x % t.width;
  t.active = t.g < t.groups && t.c < a->live;
  t.lead = threadIdx.x < a->live;
  t.col = a->c0 + t.c; /* the lead threads' (g 0) is c0 + threadIdx.x */
  const unsigned per_group = ((unsigned)p->rows + t.groups - 1) / t.groups, first = t.g * per_group;
  const unsigned count = a->rows <= first ? 0 : a->rows - first < per_group ? a->rows - first : per_group;
  ACC_T *column = s + first * t.width + t.c; /* this group's rows of column c */
  ACC_T v = NAME(identity)();
  if (t.active)
    v = NAME(ax_rows_pass)(column, t.width, count, v, false, 0);
  group_s[threadIdx.x] = v;
  for (unsigned d = 1; d < t.groups; d <<= 1) {
    __syncthreads();
    const bool add = t.active && t.g >= d;
    const ACC_T y = add ? group_s[threadIdx.x - d * t.width] : NAME(identity)();
    __syncthreads();
    if (add)
      group_s[threadIdx.x] = v = NAME(op)(y, v);
  }
  __syncthreads();

  /* the look-back: one status word per column of the block */
  const ACC_T agg = t.lead ? group_s[(t.groups - 1) * t.width + threadIdx.x] : NAME(identity)();
  ACC_T prefix = NAME(ax_start)(p);
  pscan__perturb(tile, 1);
  if (t.k > 0) {
    if (t.lead)
      NAME(publish)(p->agg, t.k * p->nlines + t.col, agg, 1);
    prefix = NAME(ax_rows_lookback)(p, &t);
  }
  pscan__perturb(tile, 2);
  if (t.lead) {
    NAME(publish)(p->agg, t.k * p->nlines + t.col, NAME(op)(prefix, agg), 2);
    prefix_s[threadIdx.x] = prefix;
  }
  __syncthreads();

  /* each group scans its rows in place from the column's prefix and the groups before it */
  if (t.active) {
    ACC_T acc = prefix_s[t.c];
    if (t.g > 0)
      acc = NAME(op)(acc, group_s[threadIdx.x - t.width]);
    NAME(ax_rows_pass)(column, t.width, count, acc, true, p->exclusive);
    if (p->exclusive && t.k == 0 && first == 0 && !p->has_init && count > 0)
      column[0] = NAME(api_identity)(); /* the API's identity first */
  }
  __syncthreads();
  ACC_T *out = (ACC_T *)p->out + a->r0 * p->so + (int64_t)a->c0;
#if ACC_SIZE >= 4
  if (p->vec) {
    NAME(ax_rows_move_vec)(s, NULL, out, p, a->rows, a->live, false);
    return;
  }
#endif
  NAME(ax_rc) rc = {threadIdx.x / t.width, threadIdx.x % t.width};
#pragma unroll 8
  for (int j = 0; j < AX_ROWS_ITEMS; j++) {
    if (rc.r < a->rows && rc.c < a->live)
      out[(int64_t)rc.r * p->so + rc.c] = s[threadIdx.x + j * AX_THREADS];
    NAME(ax_rows_next)(&rc, t.width);
  }
}

static __global__ void __launch_bounds__(AX_THREADS, 3) NAME(ax_side_rows_kernel)(const pscan__cuda_axis_params p) {
  extern __shared__ __align__(16) unsigned char ax_rows_smem[];
  ACC_T *s = (ACC_T *)ax_rows_smem; /* the tile, s[r * width + c] */
  /* L2 fetches the likely chunk (ids are taken in nearly blockIdx order) while thread 0 waits
     for the id */
  if (threadIdx.x == 0)
    NAME(ax_rows_prefetch)(&p, blockIdx.x);
  const uint64_t tile = NAME(ax_rows_take)(&p);
  const NAME(ax_rows_at) a = NAME(ax_rows_locate)(&p, tile);
  const IN_T *in = (const IN_T *)p.in + a.r0 * p.si + (int64_t)a.c0;

  /* rows into shared memory: the same type (PSCAN_SCAN_PAIRS widens otherwise) of 4 or 8 bytes
     copied straight there, every copy in flight at once; else AX_ROWS_BATCH loads in flight per
     thread */
  NAME(ax_rc) rc = {threadIdx.x / p.width, threadIdx.x % p.width};
#if ACC_SIZE >= 4
  if (sizeof(IN_T) == sizeof(ACC_T) && p.vec) {
    NAME(ax_rows_move_vec)(s, in, NULL, &p, a.rows, a.live, true);
    pscan__cp_async_commit();
    pscan__cp_async_wait_all();
  } else if (sizeof(IN_T) == sizeof(ACC_T)) {
#pragma unroll 8
    for (int j = 0; j < AX_ROWS_ITEMS; j++) {
      ACC_T *dst = &s[threadIdx.x + j * AX_THREADS];
      if (rc.r < a.rows && rc.c < a.live)
        NAME(ax_rows_copy)(dst, in + (int64_t)rc.r * p.si + rc.c);
      else
        *dst = NAME(identity)();
      NAME(ax_rows_next)(&rc, p.width);
    }
    pscan__cp_async_commit();
    pscan__cp_async_wait_all();
  } else
#endif
#pragma unroll 1
  for (int j0 = 0; j0 < AX_ROWS_ITEMS; j0 += AX_ROWS_BATCH) {
    ACC_T x[AX_ROWS_BATCH];
#pragma unroll
    for (int j = 0; j < AX_ROWS_BATCH; j++) {
      x[j] = rc.r < a.rows && rc.c < a.live ? (ACC_T)in[(int64_t)rc.r * p.si + rc.c] : NAME(identity)();
      NAME(ax_rows_next)(&rc, p.width);
    }
#pragma unroll
    for (int j = 0; j < AX_ROWS_BATCH; j++)
      s[threadIdx.x + (j0 + j) * AX_THREADS] = x[j];
  }
  __syncthreads();
  NAME(ax_rows_scan_tile)(&p, s, tile, &a);
}

/* Zeroes the counter and the status words (p->lb_counter, then p->agg) first. */
static int NAME(ax_launch_side_rows)(const pscan__cuda_axis_params *p, void *stream) {
  const uint64_t ncb = (p->nlines + p->width - 1) / p->width, ntiles = p->nchunks * ncb;
  int e = (int)cudaMemsetAsync(p->lb_counter, 0,
                               (char *)p->agg - (char *)p->lb_counter +
                                   p->nchunks * p->nlines * PSCAN__AXIS_ROWS_WORD(ACC_SIZE),
                               (cudaStream_t)stream);
  if (e)
    return e;
  const size_t smem = AX_ROWS_TILE * sizeof(ACC_T);
  e = (int)cudaFuncSetAttribute(NAME(ax_side_rows_kernel),
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e)
    return e;
  NAME(ax_side_rows_kernel)<<<(unsigned)ntiles, AX_THREADS, smem, (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}

#undef AX_ROWS_TILE
#undef AX_ROWS_ITEMS
#undef AX_ROWS_BATCH
#undef AX_ROWS_SPAN
#undef AX_ROWS_VEC
