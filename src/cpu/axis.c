/* Scans along an axis of a strided array, and scans by segments, on the CPU.
 *
 * A call is first normalised (../axis_norm.h: reverse becomes a negative axis stride, the base
 * moving to the axis's last element, no copy; batch dimensions merged where contiguous). Then one
 * of three engines runs:
 *  - lines side by side (run_side): when the innermost batch dimension is closer in memory than
 *    the axis (e.g. (1048576, 64) along axis 0), rows are walked along the axis carrying a vector
 *    of running values, out[i, :] = out[i-1, :] ⊕ in[i, :], so every access is a contiguous row.
 *    Threads take column chunks (several outer slices and column chunks side by side); when those
 *    are too few for the threads the axis is also cut into row chunks (three phases, ~3n data
 *    movement; see run_side).
 *  - many lines (run_lines): lines are split over the threads, each line scanned sequentially
 *    (the flat SIMD kernels where the line is contiguous, the strided kernel otherwise);
 *  - few long lines: one line after another, each scanned in parallel: by the flat single-pass
 *    scan (backend.c) when it is contiguous, else by the segment engine below with one segment.
 * Segmented scans (pscan_segmented_scan) run the segment engine (run_segments) on a 1-D view:
 * the view is cut into equal chunks by element count, whatever the segments (one huge segment
 * and many empty ones parallelise alike); a first pass reduces the tail piece of each chunk whose
 * last segment runs into the next chunk, the carries are chained on one thread (one value per
 * chunk), and a second pass scans every piece of every chunk. Reverse segmented scans mirror the
 * offsets on the fly.
 *
 * DETERMINISTIC with an order-sensitive operator (float SUM, PROD): every engine cuts its work at
 * boundaries that depend on the data's shape only (AXIS_FIXED_CHUNK elements, AXIS_FIXED_ROWS
 * rows), never on the thread count, so the order of combination is the same for any thread
 * count. */
#include "axis.h"
#include "../axis_norm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Work below this many elements runs on one thread (waking the pool costs more). */
enum { AXIS_MIN_ELEMS_PER_THREAD = 1 << 15 };
/* A line at least this long, with fewer than AXIS_FEW_LINES_PER_THREAD lines per thread, is
   scanned by all threads together rather than one thread per line. */
enum { AXIS_LONG_LINE = 1 << 16, AXIS_FEW_LINES_PER_THREAD = 4 };
/* Lines side by side: running values per chunk of columns (16 KiB: stays in L1). */
enum { AXIS_SIDE_BYTES = 16 << 10 };
/* Fixed-order cuts (deterministic order-sensitive scans). */
enum { AXIS_FIXED_CHUNK = 1 << 14, AXIS_FIXED_ROWS = 256 };

typedef struct axis_dim {
  int64_t len, is, os; /* extent; input and output strides in elements */
} axis_dim;

typedef struct axis_plan {
  const pscan__cpu_axis_kernels *k;
  const pscan__cpu_op *flat; /* contiguous lines */
  const pscan__axis_call *c;
  const char *in;
  char *out;
  size_t in_size, acc_size;
  int64_t len, si, so; /* the axis, forward (reverse folded into the strides) */
  int nb;              /* batch dimensions, outermost first, merged */
  axis_dim b[PSCAN_MAX_DIMS];
  size_t nlines;
  int threads;
  bool fixed; /* deterministic and order-sensitive: fixed cuts */
} axis_plan;

static const char *at_in(const axis_plan *p, const char *base, int64_t i) {
  return base + i * (int64_t)p->in_size;
}
static char *at_out(const axis_plan *p, char *base, int64_t i) {
  return base + i * (int64_t)p->acc_size;
}

static void take_views(axis_plan *p, const pscan__axis_norm *v) {
  p->in = v->in, p->out = v->out, p->len = v->len, p->si = v->si, p->so = v->so, p->nb = v->nb;
  p->nlines = v->nlines;
  for (int d = 0; d < v->nb; d++)
    p->b[d] = (axis_dim){v->b[d].len, v->b[d].is, v->b[d].os};
}

/* Input and output offsets (elements) of index idx over dims[0..nd) (the last varies fastest). */
static void decode(const axis_dim *dims, int nd, size_t idx, int64_t *io, int64_t *oo) {
  *io = 0, *oo = 0;
  for (int d = nd; d-- > 0;) {
    int64_t i = (int64_t)(idx % (size_t)dims[d].len);
    idx /= (size_t)dims[d].len;
    *io += i * dims[d].is, *oo += i * dims[d].os;
  }
}

static int threads_for(const axis_plan *p, size_t elems, size_t units) {
  size_t t = elems / AXIS_MIN_ELEMS_PER_THREAD;
  if (t > (size_t)p->threads)
    t = (size_t)p->threads;
  if (t > units)
    t = units;
  return t < 1 ? 1 : (int)t;
}

static size_t claim_task(_Atomic size_t *next) {
  return atomic_fetch_add_explicit(next, 1, memory_order_relaxed);
}

/* ---- Segment engine: one 1-D view cut into segments ---- */

typedef struct seg_view {
  const char *in;
  char *out;
  int64_t is, os;
  size_t n;
  const int64_t *offsets; /* NULL: one segment, the whole view */
  size_t nseg;
  bool mirrored;          /* the view runs backwards over the offsets' positions */
} seg_view;

/* A cursor on the segment holding view position pos: [start, end) in view positions. */
typedef struct seg_cursor {
  size_t s; /* index into offsets */
  size_t start, end;
} seg_cursor;

static void cursor_set(const seg_view *v, size_t s, seg_cursor *cur) {
  cur->s = s;
  if (!v->offsets) {
    cur->start = 0, cur->end = v->n;
  } else if (!v->mirrored) {
    cur->start = (size_t)v->offsets[s], cur->end = (size_t)v->offsets[s + 1];
  } else {
    cur->start = v->n - (size_t)v->offsets[s + 1], cur->end = v->n - (size_t)v->offsets[s];
  }
}

/* The segment holding pos (< n): the last s with offsets[s] <= q, where q is pos's position in
   the offsets' order; the segment after it is never empty. */
static void cursor_find(const seg_view *v, size_t pos, seg_cursor *cur) {
  if (!v->offsets) {
    cursor_set(v, 0, cur);
    return;
  }
  int64_t q = (int64_t)(v->mirrored ? v->n - 1 - pos : pos);
  size_t lo = 0, hi = v->nseg; /* offsets[lo] <= q < offsets[hi] */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->offsets[mid] <= q)
      lo = mid;
    else
      hi = mid;
  }
  cursor_set(v, lo, cur);
}

/* Steps the cursor to the segment holding pos (< n), pos being the end of the current one. */
static void cursor_next(const seg_view *v, size_t pos, seg_cursor *cur) {
  size_t s = cur->s;
  if (!v->mirrored) {
    while ((size_t)v->offsets[s + 1] <= pos)
      s++;
  } else {
    int64_t q = (int64_t)(v->n - 1 - pos);
    while (v->offsets[s] > q)
      s--;
  }
  cursor_set(v, s, cur);
}

typedef struct seg_job {
  const axis_plan *p;
  seg_view v;
  size_t chunk, nchunks;
  /* Per chunk: its tail's state (TAIL_*), its tail reduction, and the carry into its first
     piece (valid where the chunk starts inside a segment). */
  unsigned char *tail;
  char *agg, *carry;
} seg_job;

enum { TAIL_CLOSED, TAIL_STARTS, TAIL_CONTINUES };

static void seg_reduce(const axis_plan *p, const seg_view *v, size_t from, size_t len, void *acc) {
  const char *src = at_in(p, v->in, (int64_t)from * v->is);
  if (v->is == 1)
    p->flat->reduce(p->flat, src, len, acc);
  else
    p->k->line_reduce(src, (ptrdiff_t)v->is, len, acc);
}

static void seg_scan(const axis_plan *p, const seg_view *v, size_t from, size_t len,
                     const void *carry) {
  const char *src = at_in(p, v->in, (int64_t)from * v->is);
  char *dst = at_out(p, v->out, (int64_t)from * v->os);
  if (v->is == 1 && v->os == 1) {
    _Alignas(64) unsigned char scratch[128];
    pscan__cpu_scan(p->flat, p->c->exclusive, false, src, dst, len, carry, scratch, NULL);
  } else {
    p->k->line(src, (ptrdiff_t)v->is, dst, (ptrdiff_t)v->os, len, carry, p->c->exclusive);
  }
}

static void seg_tail_task(void *arg, int tid, int nthreads) {
  seg_job *j = arg;
  const axis_plan *p = j->p;
  for (size_t ch = (size_t)tid; ch + 1 < j->nchunks; ch += (size_t)nthreads) {
    size_t cs = ch * j->chunk, ce = cs + j->chunk;
    seg_cursor cur;
    cursor_find(&j->v, ce - 1, &cur);
    if (cur.end == ce) {
      j->tail[ch] = TAIL_CLOSED;
      continue;
    }
    size_t from = cur.start > cs ? cur.start : cs;
    j->tail[ch] = cur.start >= cs ? TAIL_STARTS : TAIL_CONTINUES;
    seg_reduce(p, &j->v, from, ce - from, j->agg + ch * p->acc_size);
  }
}

/* The carry into chunk ch + 1 from chunk ch's tail, in chunk order. */
static void seg_chain(seg_job *j) {
  const axis_plan *p = j->p;
  const void *init = p->c->init;
  for (size_t ch = 0; ch + 1 < j->nchunks; ch++) {
    char *agg = j->agg + ch * p->acc_size, *next = j->carry + (ch + 1) * p->acc_size;
    if (j->tail[ch] == TAIL_CLOSED)
      continue;
    const void *left = j->tail[ch] == TAIL_STARTS ? init : j->carry + ch * p->acc_size;
    if (left)
      p->flat->combine(p->flat, next, left, agg);
    else
      memcpy(next, agg, p->acc_size);
  }
}

static void seg_scan_task(void *arg, int tid, int nthreads) {
  seg_job *j = arg;
  const axis_plan *p = j->p;
  for (size_t ch = (size_t)tid; ch < j->nchunks; ch += (size_t)nthreads) {
    size_t cs = ch * j->chunk, ce = cs + j->chunk < j->v.n ? cs + j->chunk : j->v.n;
    seg_cursor cur;
    cursor_find(&j->v, cs, &cur);
    for (size_t pos = cs; pos < ce;) {
      size_t end = cur.end < ce ? cur.end : ce;
      const void *carry = cur.start < pos ? j->carry + ch * p->acc_size : p->c->init;
      seg_scan(p, &j->v, pos, end - pos, carry);
      pos = end;
      if (pos < ce)
        cursor_next(&j->v, pos, &cur);
    }
  }
}

static pscan_status run_segments(pscan_ctx *ctx, const axis_plan *p, const seg_view *v) {
  seg_job j = {.p = p, .v = *v};
  size_t want = p->fixed ? (v->n - 1) / AXIS_FIXED_CHUNK + 1 : (size_t)threads_for(p, v->n, v->n);
  j.chunk = (v->n - 1) / want + 1;
  if (p->fixed)
    j.chunk = AXIS_FIXED_CHUNK;
  j.nchunks = (v->n - 1) / j.chunk + 1;
  int threads = threads_for(p, v->n, j.nchunks);
  size_t acc = p->acc_size, align = 64;
  size_t tail_bytes = (j.nchunks + align - 1) / align * align;
  char *scratch;
  PSCAN__CHECK(pscan__cpu_scratch(ctx, tail_bytes + 2 * j.nchunks * acc, &scratch));
  j.tail = (unsigned char *)scratch;
  j.agg = scratch + tail_bytes;
  j.carry = j.agg + j.nchunks * acc;
  pscan__pool *pool = NULL;
  if (threads > 1)
    PSCAN__CHECK(pscan__cpu_pool(ctx, &pool));
  if (j.nchunks > 1) {
    pscan__pool_run(pool, seg_tail_task, &j, threads);
    seg_chain(&j);
  }
  pscan__pool_run(pool, seg_scan_task, &j, threads);
  return PSCAN_OK;
}

/* ---- Lines, one thread per line ---- */

typedef struct lines_job {
  const axis_plan *p;
} lines_job;

static void line_at(const axis_plan *p, size_t idx) {
  int64_t io, oo;
  decode(p->b, p->nb, idx, &io, &oo);
  seg_view v = {.in = at_in(p, p->in, io), .out = at_out(p, p->out, oo), .is = p->si,
                .os = p->so, .n = (size_t)p->len};
  seg_scan(p, &v, 0, v.n, p->c->init);
}

static void lines_task(void *arg, int tid, int nthreads) {
  const axis_plan *p = ((lines_job *)arg)->p;
  size_t from = p->nlines * (size_t)tid / (size_t)nthreads;
  size_t to = p->nlines * (size_t)(tid + 1) / (size_t)nthreads;
  for (size_t idx = from; idx < to; idx++)
    line_at(p, idx);
}

static pscan_status run_lines(pscan_ctx *ctx, const axis_plan *p) {
  lines_job j = {p};
  int threads = threads_for(p, p->nlines * (size_t)p->len, p->nlines);
  pscan__pool *pool = NULL;
  if (threads > 1)
    PSCAN__CHECK(pscan__cpu_pool(ctx, &pool));
  pscan__pool_run(pool, lines_task, &j, threads);
  return PSCAN_OK;
}

/* ---- Few long lines, one after another, each on all threads ---- */

static pscan_status run_long_lines(pscan_ctx *ctx, const axis_plan *p) {
  const pscan__axis_call *c = p->c;
  for (size_t idx = 0; idx < p->nlines; idx++) {
    int64_t io, oo;
    decode(p->b, p->nb, idx, &io, &oo);
    const char *in = at_in(p, p->in, io);
    char *out = at_out(p, p->out, oo);
    if (p->si == 1 && p->so == 1) {
      pscan__scan_call flat = {.in = in, .out = out, .n = (size_t)p->len, .in_type = c->in_type,
                               .out_type = c->out_type, .op = c->op, .exclusive = c->exclusive,
                               .init = c->init, .in_size = c->in_size, .out_size = c->out_size,
                               .fn = c->fn, .user = c->user};
      PSCAN__CHECK(pscan__cpu_backend.scan(ctx, &flat));
    } else {
      seg_view v = {.in = in, .out = out, .is = p->si, .os = p->so, .n = (size_t)p->len};
      PSCAN__CHECK(run_segments(ctx, p, &v));
    }
  }
  return PSCAN_OK;
}

/* ---- Lines side by side ----
 * Work units are (outer slice, chunk of columns). When the units are too few for the threads, a
 * unit's rows are cut into chunks too, in three phases with no waiting between threads: column
 * reductions of every chunk but the last, per unit a prefix over them (init folded in), then the
 * scan of every chunk from its carry (~3n data movement). The order of combination depends on
 * the chunk size alone. (A chained look-back along the axis, ~2n, was measured here first: on
 * this machine's shared cores every hand-over waited on a descheduled thread, up to 100x slower.)
 */

typedef struct side_job {
  const axis_plan *p;
  const axis_dim *inner; /* the dimension across the lines */
  int nouter;            /* batch dimensions outside it: p->b[0..nouter) */
  size_t cols;           /* columns per chunk: AXIS_SIDE_BYTES of accumulators, or the inner extent */
  size_t ncols, units;   /* column chunks per outer slice; outer slices x column chunks */
  size_t rows, nrows;    /* rows per row chunk; row chunks */
  char *prefix;          /* units x nrows x cols accumulators: reductions, then prefixes */
  char *thread_vecs;     /* per thread: cols accumulators */
  char *init_vec;        /* cols copies of init (init set only) */
  int stream;            /* rows kernel: non-temporal stores */
  _Atomic size_t next;
} side_job;

typedef struct side_unit {
  const char *in;
  char *out;
  size_t w;
} side_unit;

static side_unit unit_at(const side_job *j, size_t u) {
  const axis_plan *p = j->p;
  int64_t io, oo;
  decode(p->b, j->nouter, u / j->ncols, &io, &oo);
  size_t col = u % j->ncols * j->cols, left = (size_t)j->inner->len - col;
  io += (int64_t)col * j->inner->is, oo += (int64_t)col * j->inner->os;
  side_unit s = {at_in(p, p->in, io), at_out(p, p->out, oo), left < j->cols ? left : j->cols};
  return s;
}

static char *prefix_at(const side_job *j, size_t u, size_t r) {
  return j->prefix + (u * j->nrows + r) * j->cols * j->p->acc_size;
}

static size_t chunk_rows(const side_job *j, size_t r) {
  size_t left = (size_t)j->p->len - r * j->rows;
  return left < j->rows ? left : j->rows;
}

static void side_reduce_task(void *arg, int tid, int nthreads) {
  side_job *j = arg;
  const axis_plan *p = j->p;
  (void)tid, (void)nthreads;
  size_t tasks = j->units * (j->nrows - 1);
  for (size_t t = claim_task(&j->next); t < tasks; t = claim_task(&j->next)) {
    size_t u = t / (j->nrows - 1), r = t % (j->nrows - 1);
    side_unit s = unit_at(j, u);
    p->k->rows_reduce(at_in(p, s.in, (int64_t)(r * j->rows) * p->si), (ptrdiff_t)p->si,
                      (ptrdiff_t)j->inner->is, chunk_rows(j, r), s.w, prefix_at(j, u, r), 1);
  }
}

/* Each unit's chunk reductions become inclusive prefixes, init folded into the first. */
static void side_prefix_task(void *arg, int tid, int nthreads) {
  side_job *j = arg;
  const axis_plan *p = j->p;
  for (size_t u = (size_t)tid; u < j->units; u += (size_t)nthreads) {
    size_t w = unit_at(j, u).w;
    if (p->c->init)
      p->k->vec_combine(j->init_vec, prefix_at(j, u, 0), w);
    for (size_t r = 1; r + 1 < j->nrows; r++)
      p->k->vec_combine(prefix_at(j, u, r - 1), prefix_at(j, u, r), w);
  }
}

static void side_scan_task(void *arg, int tid, int nthreads) {
  side_job *j = arg;
  const axis_plan *p = j->p;
  char *acc = j->thread_vecs + (size_t)tid * j->cols * p->acc_size;
  (void)nthreads;
  size_t tasks = j->units * j->nrows;
  for (size_t t = claim_task(&j->next); t < tasks; t = claim_task(&j->next)) {
    size_t u = t / j->nrows, r = t % j->nrows;
    side_unit s = unit_at(j, u);
    int fresh = 0;
    if (r > 0)
      memcpy(acc, prefix_at(j, u, r - 1), s.w * p->acc_size);
    else if (p->c->init)
      memcpy(acc, j->init_vec, s.w * p->acc_size);
    else
      fresh = 1;
    int64_t row0 = (int64_t)(r * j->rows);
    p->k->rows(at_in(p, s.in, row0 * p->si), (ptrdiff_t)p->si, (ptrdiff_t)j->inner->is,
               at_out(p, s.out, row0 * p->so), (ptrdiff_t)p->so, (ptrdiff_t)j->inner->os,
               chunk_rows(j, r), s.w, acc, fresh, p->c->exclusive, j->stream);
  }
}

static void run_phase(pscan__pool *pool, pscan__task_fn fn, side_job *j, int threads) {
  atomic_store_explicit(&j->next, 0, memory_order_relaxed);
  pscan__pool_run(pool, fn, j, threads);
}

static pscan_status run_side(pscan_ctx *ctx, const axis_plan *p) {
  side_job j = {.p = p, .inner = &p->b[p->nb - 1], .nouter = p->nb - 1};
  size_t len = (size_t)p->len;
  size_t cols_max = AXIS_SIDE_BYTES / p->acc_size;
  j.cols = (size_t)j.inner->len < cols_max ? (size_t)j.inner->len : cols_max;
  j.ncols = ((size_t)j.inner->len - 1) / j.cols + 1;
  j.units = p->nlines / (size_t)j.inner->len * j.ncols;
  int threads = threads_for(p, p->nlines * len, SIZE_MAX);
  if (p->fixed)
    j.rows = AXIS_FIXED_ROWS;
  else if (threads == 1 || j.units >= 2 * (size_t)threads)
    j.rows = len;
  else /* about two chunks per thread */
    j.rows = (len - 1) / ((2 * (size_t)threads - 1) / j.units + 1) + 1;
  if (j.rows > len)
    j.rows = len;
  j.nrows = (len - 1) / j.rows + 1;
  if (threads > (int)(j.units * j.nrows))
    threads = (int)(j.units * j.nrows);
  /* Streaming stores pay off for outputs beyond the cache, written in rows of 1 KiB or more (each
     row's copy ends with a store fence). */
  j.stream = pscan__cpu_stream_output(p->nlines * len * p->acc_size) &&
             j.cols * p->acc_size >= 1024;
  size_t vec = j.cols * p->acc_size;
  char *scratch;
  PSCAN__CHECK(pscan__cpu_scratch(ctx, (j.units * j.nrows + (size_t)threads + 1) * vec, &scratch));
  j.init_vec = scratch;
  j.thread_vecs = j.init_vec + vec;
  j.prefix = j.thread_vecs + (size_t)threads * vec;
  if (p->c->init)
    for (size_t i = 0; i < j.cols; i++)
      memcpy(j.init_vec + i * p->acc_size, p->c->init, p->acc_size);
  pscan__pool *pool = NULL;
  if (threads > 1)
    PSCAN__CHECK(pscan__cpu_pool(ctx, &pool));
  if (j.nrows > 1) {
    run_phase(pool, side_reduce_task, &j, threads);
    run_phase(pool, side_prefix_task, &j, threads);
  }
  run_phase(pool, side_scan_task, &j, threads);
  return PSCAN_OK;
}

/* ---- Dispatch ---- */

static bool order_sensitive(const pscan__axis_call *c) {
  pscan__scan_call s = {.op = c->op, .in_type = c->in_type, .out_type = c->out_type};
  return pscan__order_sensitive(&s);
}

static pscan_status run_axis(pscan_ctx *ctx, axis_plan *p) {
  const pscan__axis_call *c = p->c;
  pscan__axis_norm v;
  pscan__axis_normalise(c, &v);
  take_views(p, &v);
  if (pscan__axis_side_by_side(&v))
    return run_side(ctx, p);
  bool contiguous = p->si == 1 && p->so == 1;
  bool long_lines;
  if (p->fixed) { /* the cut must not depend on the thread count */
    pscan__scan_call s = {.n = (size_t)p->len, .op = c->op, .in_type = c->in_type,
                          .out_type = c->out_type, .in_size = c->in_size, .out_size = c->out_size};
    size_t part = contiguous ? pscan__cpu_partition_size(ctx, &s) : AXIS_FIXED_CHUNK;
    long_lines = (size_t)p->len > part;
  } else {
    long_lines = p->len >= AXIS_LONG_LINE &&
                 p->nlines < AXIS_FEW_LINES_PER_THREAD * (size_t)p->threads;
  }
  return long_lines ? run_long_lines(ctx, p) : run_lines(ctx, p);
}

pscan_status pscan__cpu_scan_axis(pscan_ctx *ctx, const pscan__axis_call *c) {
  if (c->op == PSCAN__OP_CUSTOM) /* the seam: generic-combine kernels come with user operators */
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "axis scans with a custom operator: not yet");
  axis_plan p = {.c = c, .in_size = c->in_size, .acc_size = c->out_size,
                 .threads = pscan__cpu_threads(ctx)};
  p.k = pscan__cpu_axis_kernels_for(c->in_type, c->out_type, (pscan_op)c->op);
  p.flat = pscan__cpu_builtin_op(c->in_type, c->out_type, (pscan_op)c->op);
  if (!p.k || !p.flat)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CPU axis kernel for %s -> %s %s",
                       pscan__dtype_name(c->in_type), pscan__dtype_name(c->out_type),
                       pscan__op_name(c->op));
  p.fixed = ctx->params[PSCAN_PARAM_DETERMINISTIC] && order_sensitive(c);
  if (!c->offsets)
    return run_axis(ctx, &p);
  seg_view v = {.in = c->in, .out = c->out, .is = 1, .os = 1, .n = c->n, .offsets = c->offsets,
                .nseg = c->num_segments, .mirrored = c->reverse != 0};
  p.len = (int64_t)c->n;
  if (c->reverse) {
    v.in = at_in(&p, v.in, (int64_t)c->n - 1), v.out = at_out(&p, v.out, (int64_t)c->n - 1);
    v.is = v.os = -1;
  }
  return run_segments(ctx, &p, &v);
}
