/* Scans along an axis of a strided array, and scans by segments, on the CPU.
 *
 * A call is first normalised (../axis_norm.h: reverse becomes a negative axis stride, the base
 * moving to the axis's last element, no copy; batch dimensions merged where contiguous). Then one
 * of three engines runs:
 *  - lines side by side (axis_side.c): when the innermost batch dimension is closer in memory than
 *    the axis (e.g. (1048576, 64) along axis 0), rows are walked along the axis carrying a vector
 *    of running values, out[i, :] = out[i-1, :] ⊕ in[i, :], so every access is a contiguous row.
 *    Threads take units (outer slices x column chunks), each scanned in one pass; columns are cut
 *    narrower (to 1 KiB a row at least) until every thread has two units. When that is not enough
 *    (narrow arrays), each unit's rows are cut into chunks of ~256 KiB of input, scanned in one
 *    pass (~2n data movement) with a look-back along the axis: a chunk reduces its column totals,
 *    folds its predecessors' totals forward from the nearest published prefix, publishes its own
 *    prefix and rescans itself from cache; a predecessor that is late is reduced by the waiter
 *    rather than waited for, so a descheduled thread never stalls the others (see axis_side.c).
 *  - many lines (run_lines): lines are split over the threads, each line scanned sequentially
 *    (the flat SIMD kernels where the line is contiguous, streaming their stores when lines are
 *    4 KiB or more and the output is beyond the cache; the strided kernel otherwise);
 *  - few long lines: one line after another, each scanned in parallel: by the flat single-pass
 *    scan (backend.c) when it is contiguous, forward or reversed (mirror.c's kernels), else by
 *    the segment engine below with one segment.
 * Segmented scans (pscan_segmented_scan) run the segment engine (axis_segments.c) on a 1-D view:
 * the view is cut into equal chunks by element count, whatever the segments (one huge segment
 * and many empty ones parallelise alike); a first pass reduces the tail piece of each chunk whose
 * last segment runs into the next chunk, the carries are chained on one thread (one value per
 * chunk), and a second pass scans every piece of every chunk. Reverse segmented scans mirror the
 * offsets on the fly.
 *
 * DETERMINISTIC with an order-sensitive operator (float SUM, PROD): every engine cuts its work at
 * boundaries that depend on the data's shape only (AXIS_FIXED_CHUNK elements; side by side, row
 * chunks of AXIS_CHUNK_BYTES of input, used then for any thread count, one included), never on
 * the thread count, so the order of combination is the same for any thread count. */
#include "axis_plan.h"
#include "../axis_norm.h"

#include <stdlib.h>
#include <string.h>

static void take_views(axis_plan *p, const pscan__axis_norm *v) {
  p->in = v->in, p->out = v->out, p->len = v->len, p->si = v->si, p->so = v->so, p->nb = v->nb;
  p->nlines = v->nlines;
  for (int d = 0; d < v->nb; d++)
    p->b[d] = (axis_dim){v->b[d].len, v->b[d].is, v->b[d].os};
}

/* ---- Lines, one thread per line ---- */

typedef struct lines_job {
  const axis_plan *p;
  bool stream; /* contiguous lines (forward or reversed) of AXIS_STREAM_LINE_BYTES or more,
                  output beyond the cache */
  /* Short reversed lines back to back (a C-order array reversed along its last axis): `batch`
     lines at a time in one mirrored block (mirror.c; 0: none), streamed where batch_stream. */
  size_t batch;
  bool batch_stream;
  pscan__cpu_mirror mirror;
} lines_job;

static void line_at(const lines_job *j, size_t idx) {
  const axis_plan *p = j->p;
  int64_t io, oo;
  if (p->nb == 1) /* one batch dimension (the usual case once merged): no division */
    io = (int64_t)idx * p->b[0].is, oo = (int64_t)idx * p->b[0].os;
  else
    decode(p->b, p->nb, idx, &io, &oo);
  seg_view v = {.in = at_in(p, p->in, io), .out = at_out(p, p->out, oo), .is = p->si,
                .os = p->so, .n = (size_t)p->len};
  if (j->stream && p->si == 1) { /* the flat kernel, streaming, prefetching ahead of its reads */
    _Alignas(64) unsigned char scratch[128];
    pscan__cpu_scan(p->flat, p->c->exclusive, true, v.in, v.out, v.n, p->c->init, scratch,
                    (const void *)((uintptr_t)v.in + PSCAN__PREFETCH_AHEAD));
    return;
  }
  pscan__cpu_axis_seg_scan(p, &v, 0, v.n, p->c->init, j->stream);
}

/* Lines [from, to), reversed and back to back, `batch` at a time: together they are one span
   read from the last line's item 0 down, each line forward in the mirrored block. */
static void mirrored_line_batches(const lines_job *j, size_t from, size_t to) {
  const axis_plan *p = j->p;
  const size_t len = (size_t)p->len;
  size_t starts[PSCAN__CPU_MIRROR_BLOCK];
  const void *carries[PSCAN__CPU_MIRROR_BLOCK];
  for (size_t k = 0; k < j->batch; k++)
    starts[k] = k * len, carries[k] = p->c->init;
  for (size_t idx = from; idx < to; idx += j->batch) {
    size_t lines = to - idx < j->batch ? to - idx : j->batch, top = idx + lines - 1;
    pscan__cpu_mirror_pieces(&j->mirror, p->c->exclusive, j->batch_stream,
                             at_in(p, p->in, (int64_t)top * p->b[0].is),
                             at_out(p, p->out, (int64_t)top * p->b[0].os), lines * len, lines,
                             starts, carries);
  }
  if (j->batch_stream)
    pscan__cpu_stream_fence();
}

static void lines_task(void *arg, int tid, int nthreads) {
  const lines_job *j = arg;
  const axis_plan *p = j->p;
  size_t from = p->nlines * (size_t)tid / (size_t)nthreads;
  size_t to = p->nlines * (size_t)(tid + 1) / (size_t)nthreads;
  if (j->batch) {
    mirrored_line_batches(j, from, to);
    return;
  }
  for (size_t idx = from; idx < to; idx++)
    line_at(j, idx);
}

/* Reversed lines shorter than AXIS_MIRROR_MIN whose lines follow each other in memory (in and
   out): mirrored blocks of whole lines (the lines' own kernel call would run element by element
   at a stride of -1). PSCAN_CPU_AXIS_MIRROR_LINES=0: the strided kernel, for A/B runs. */
static void plan_line_batches(lines_job *j) {
  const axis_plan *p = j->p;
  const size_t elems = p->nlines * (size_t)p->len;
  if (p->si != -1 || p->so != -1 || p->nb != 1 || p->len < 1 || p->len >= AXIS_MIRROR_MIN ||
      p->b[0].is != p->len || p->b[0].os != p->len || !pscan__cpu_mirror_op(&j->mirror, p->flat) ||
      !pscan__env_uint("PSCAN_CPU_AXIS_MIRROR_LINES", 1))
    return;
  j->batch = PSCAN__CPU_MIRROR_BLOCK / (size_t)p->len;
  j->batch_stream = j->batch * (size_t)p->len * p->acc_size >= AXIS_STREAM_LINE_BYTES &&
                    pscan__cpu_stream_output(elems * p->acc_size);
}

static pscan_status run_lines(pscan_ctx *ctx, const axis_plan *p) {
  size_t elems = p->nlines * (size_t)p->len;
  lines_job j = {.p = p,
                 .stream = (p->si == 1 || p->si == -1) && p->so == p->si &&
                           (size_t)p->len * p->acc_size >= AXIS_STREAM_LINE_BYTES &&
                           pscan__cpu_stream_output(elems * p->acc_size)};
  plan_line_batches(&j);
  int threads = threads_for(p, elems, p->nlines);
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
    /* reversed (so = -1), or a reversed view into a forward output (so = +1) */
    bool mirrored = p->si == -1 && (p->so == -1 || p->so == 1) &&
                    pscan__cpu_mirrored_strategy(ctx);
    if ((p->si == 1 && p->so == 1) || mirrored) {
      pscan__scan_call flat = {.in = in, .out = out, .n = (size_t)p->len, .in_type = c->in_type,
                               .out_type = c->out_type, .op = c->op, .exclusive = c->exclusive,
                               .init = c->init, .in_size = c->in_size, .out_size = c->out_size,
                               .fn = c->fn, .user = c->user,
                               .out_forward = mirrored && p->so == 1};
      PSCAN__CHECK(mirrored ? pscan__cpu_scan_mirrored(ctx, &flat)
                            : pscan__cpu_backend.scan(ctx, &flat));
    } else {
      seg_view v = {.in = in, .out = out, .is = p->si, .os = p->so, .n = (size_t)p->len};
      PSCAN__CHECK(pscan__cpu_axis_segments(ctx, p, &v));
    }
  }
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
    return pscan__cpu_axis_side(ctx, p);
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
  return pscan__cpu_axis_segments(ctx, &p, &v);
}
