/* The CPU engine for lines side by side (see axis.c): rows walked along the axis carrying a
 * vector of running values. */
#include "axis_plan.h"

#include <stdlib.h>
#include <string.h>

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

pscan_status pscan__cpu_axis_side(pscan_ctx *ctx, const axis_plan *p) {
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
