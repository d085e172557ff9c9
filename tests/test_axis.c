/* pscan_scan_axis and pscan_segmented_scan against a plain per-line loop (the sequential oracle
 * of reference.c applied to each line, gathered and scattered through the views' strides):
 *  - every regime of the CPU engines: lines side by side (inner dimension closer than the axis,
 *    with and without row chunks, at the chunks' edges), many short lines, few long lines (contiguous: the flat scan;
 *    reversed or strided: the segment engine), on 1, 2 and 3 threads;
 *  - shapes with one line and with many, line lengths 0, 1, 2^k +- 1, transposed, padded
 *    (non-contiguous) and negative strides, C order given as NULL strides, in place;
 *  - every (in, out) type pair x op x inclusive/exclusive x init x reverse;
 *  - segments: none, empty, single, one huge among many empty, tiny, random; reverse, in place;
 *  - DETERMINISTIC: float sums bitwise identical on 1, 2 and 3 threads;
 *  - random shapes, layouts, types and ops from the printed seed;
 *  - bad input: each status, with out poisoned and checked untouched.
 * Outputs live in poisoned buffers larger than the view, so a write outside the view (or a
 * missing write inside it) is caught.
 *
 * One program for every backend: `test_axis --backend cpu|cuda` (or PSCAN_TEST_BACKEND;
 * backend.h). On the CUDA backend every call mirrors its buffers to the GPU and back, thread
 * counts are the CPU's only, and the checks that need host pointers (out inside in's buffer) are
 * the CPU's; without a usable device the program prints SKIP and exits 77. */
#include "backend.h"
#include "reference.h"
#include "test.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXD = PSCAN_MAX_DIMS };

/* ---- views ---- */

typedef struct view {
  int ndim;
  int64_t shape[MAXD];
  int64_t strides[MAXD]; /* elements */
  size_t base;           /* element index of (0, ..., 0) in the buffer */
  size_t elems;          /* buffer length in elements */
} view;

enum { LAYOUT_PERMUTE = 1, LAYOUT_PAD = 2, LAYOUT_NEGATE = 4 };

static void make_view(test_rng *r, int ndim, const int64_t *shape, int layout, view *v) {
  int order[MAXD];
  v->ndim = ndim;
  for (int d = 0; d < ndim; d++)
    order[d] = d, v->shape[d] = shape[d];
  if (layout & LAYOUT_PERMUTE)
    for (int d = ndim - 1; d > 0; d--) {
      int e = (int)test_below(r, (uint64_t)d + 1), t = order[d];
      order[d] = order[e], order[e] = t;
    }
  int64_t run = 1;
  v->base = 0;
  for (int k = ndim; k-- > 0;) { /* order[ndim - 1] is innermost */
    int d = order[k];
    int64_t pad = (layout & LAYOUT_PAD) ? (int64_t)test_below(r, 3) : 0;
    bool neg = (layout & LAYOUT_NEGATE) && test_below(r, 2);
    v->strides[d] = neg ? -run : run;
    if (neg && shape[d] > 0)
      v->base += (size_t)((shape[d] - 1) * run);
    run *= shape[d] + pad > 0 ? shape[d] + pad : 1;
  }
  v->elems = (size_t)run;
}

static size_t view_count(const view *v) {
  size_t n = 1;
  for (int d = 0; d < v->ndim; d++)
    n *= (size_t)v->shape[d];
  return n;
}

/* Element index in the buffer of multi-index idx. */
static size_t view_at(const view *v, const int64_t *idx) {
  int64_t e = (int64_t)v->base;
  for (int d = 0; d < v->ndim; d++)
    e += idx[d] * v->strides[d];
  return (size_t)e;
}

/* ---- values ---- */

static void put_int(pscan_dtype t, void *p, uint64_t bits) { memcpy(p, &bits, ref_dtype_size(t)); }

static void put_float(pscan_dtype t, void *p, double x) {
  if (t == PSCAN_F32) {
    float f = (float)x;
    memcpy(p, &f, sizeof f);
  } else {
    memcpy(p, &x, sizeof x);
  }
}

/* Values that keep float results exact (small integers for SUM, powers of two for PROD) and
   reach the corner cases (NaN and signed zeros for MIN and MAX). */
static void fill_values(test_rng *r, pscan_dtype t, pscan_op op, void *buf, size_t count) {
  size_t size = ref_dtype_size(t);
  for (size_t i = 0; i < count; i++) {
    char *p = (char *)buf + i * size;
    if (!ref_is_float(t)) {
      uint64_t bits = test_rand(r);
      if (op == PSCAN_PROD && test_below(r, 4)) /* mostly +-1, so products do not all vanish */
        bits = test_below(r, 2) ? 1 : (uint64_t)-1;
      put_int(t, p, bits);
      continue;
    }
    double x;
    if (op == PSCAN_SUM) {
      x = (double)((int)test_below(r, 17) - 8);
    } else if (op == PSCAN_PROD) { /* rare powers of two: no overflow or underflow */
      static const double f[] = {2, -2, 0.5, -0.5};
      x = test_below(r, 512) ? (test_below(r, 2) ? 1.0 : -1.0) : f[test_below(r, 4)];
    } else {
      uint64_t k = test_below(r, 400);
      x = k == 0 ? NAN : k == 1 ? -0.0 : k == 2 ? 0.0 : (double)((int)test_below(r, 2001) - 1000);
    }
    put_float(t, p, x);
  }
}

static void fill_init(test_rng *r, pscan_dtype t, pscan_op op, void *init) {
  fill_values(r, t, op, init, 1);
}

/* ---- the calls, on the backend's own buffers ---- */

static const test_backend *B; /* the backend under test */
static pscan_ctx *ctxs[4];    /* by thread count on the CPU; [0] for any other backend */

/* A context with threads workers (the backend's one context where threads are not the CPU's). */
static pscan_ctx *ctx_for(int threads) {
  int k = B->kind == PSCAN_BACKEND_CPU ? threads : 0;
  if (!ctxs[k])
    ctxs[k] = test_backend_ctx(B, threads);
  return ctxs[k];
}

/* The library's copy of bytes of host memory: host itself where the backend takes host
   buffers, else a buffer of the backend holding a copy (no copy where host is NULL). */
static char *lib_buffer(const void *host, size_t bytes) {
  if (!B->device)
    return (char *)(uintptr_t)host;
  char *lib = test_backend_alloc(B, bytes);
  if (host)
    test_backend_put(B, lib, host, bytes);
  return lib;
}

/* Releases a lib_buffer, first copying it back into host where host is not NULL. */
static void lib_release(char *lib, void *host, size_t bytes) {
  if (!B->device)
    return;
  if (host)
    test_backend_get(B, host, lib, bytes);
  test_backend_free(B, lib);
}

/* The call's status, and on success what pscan_synchronize says of the work it queued. */
static pscan_status finished(pscan_ctx *ctx, pscan_status s) {
  return s == PSCAN_OK ? pscan_synchronize(ctx) : s;
}

/* pscan_scan_axis on a's views of in_buf and out_buf (out_buf == in_buf: in place). */
static pscan_status call_axis(pscan_ctx *ctx, pscan_axis_args a, const void *in_buf,
                              size_t in_bytes, void *out_buf, size_t out_bytes) {
  char *l_in = lib_buffer(in_buf, in_bytes);
  char *l_out = out_buf == in_buf ? l_in : lib_buffer(out_buf, out_bytes);
  if (a.in)
    a.in = l_in + ((const char *)a.in - (const char *)in_buf);
  if (a.out)
    a.out = l_out + ((char *)a.out - (char *)out_buf);
  pscan_status s = finished(ctx, pscan_scan_axis(ctx, &a));
  lib_release(l_out, out_buf, out_bytes);
  if (l_in != l_out)
    lib_release(l_in, NULL, in_bytes);
  return s;
}

/* pscan_segmented_scan of in into out, both bytes long (out == in: in place). */
static pscan_status call_segmented(pscan_ctx *ctx, const void *in, void *out, size_t bytes,
                                   pscan_dtype t, pscan_op op, const int64_t *offsets,
                                   size_t nseg, int exclusive, int reverse, const void *init) {
  char *l_in = lib_buffer(in, bytes);
  char *l_out = out == in ? l_in : lib_buffer(out, bytes);
  size_t off_bytes = offsets ? (nseg + 1) * sizeof *offsets : 0;
  char *l_off = offsets ? lib_buffer(offsets, off_bytes) : NULL;
  pscan_status s = finished(ctx, pscan_segmented_scan(ctx, in ? l_in : NULL, out ? l_out : NULL,
                                                      t, op, (const int64_t *)(void *)l_off, nseg,
                                                      exclusive, reverse, init));
  if (l_out != l_in)
    lib_release(l_out, out, bytes);
  lib_release(l_in, out == in ? out : NULL, bytes);
  if (l_off)
    lib_release(l_off, NULL, off_bytes);
  return s;
}

/* ---- the per-line reference ---- */

typedef struct spec {
  int ndim;
  int64_t shape[MAXD];
  int axis; /* as passed: -1 allowed */
  pscan_dtype in_type, out_type;
  pscan_op op;
  int exclusive, reverse, use_init, in_place, null_strides;
  int in_layout, out_layout;
  int threads;
  int deterministic;
} spec;

/* want (out's buffer, already holding out's poisoned contents) gets every line's scan. */
static void ref_axis(const spec *s, const view *vi, const char *in_buf, const view *vo,
                     char *want, const void *init) {
  int axis = s->axis < 0 ? s->ndim - 1 : s->axis;
  size_t len = (size_t)s->shape[axis], isz = ref_dtype_size(s->in_type),
         osz = ref_dtype_size(s->out_type);
  if (len == 0 || view_count(vi) == 0)
    return;
  char *line_in = test_malloc(len * isz), *line_out = test_malloc(len * osz);
  int64_t idx[MAXD] = {0};
  for (;;) {
    for (size_t i = 0; i < len; i++) {
      idx[axis] = (int64_t)(s->reverse ? len - 1 - i : i);
      memcpy(line_in + i * isz, in_buf + view_at(vi, idx) * isz, isz);
    }
    ref_scan(line_in, s->in_type, line_out, s->out_type, len, s->op, s->exclusive, init);
    for (size_t i = 0; i < len; i++) {
      idx[axis] = (int64_t)(s->reverse ? len - 1 - i : i);
      memcpy(want + view_at(vo, idx) * osz, line_out + i * osz, osz);
    }
    idx[axis] = 0;
    int d = s->ndim - 1; /* next line: odometer over the other dimensions */
    for (; d >= 0; d--) {
      if (d == axis)
        continue;
      if (++idx[d] < s->shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
  free(line_in);
  free(line_out);
}

static void describe(const spec *s, char *buf, size_t len) {
  int k = snprintf(buf, len, "shape (");
  for (int d = 0; d < s->ndim; d++)
    k += snprintf(buf + k, len - (size_t)k, "%s%" PRId64, d ? "," : "", s->shape[d]);
  snprintf(buf + k, len - (size_t)k,
           ") axis %d %s->%s %s%s%s%s%s layouts %d/%d%s threads %d%s", s->axis,
           ref_dtype_name(s->in_type), ref_dtype_name(s->out_type), ref_op_name(s->op),
           s->exclusive ? " exclusive" : "", s->reverse ? " reverse" : "",
           s->use_init ? " init" : "", s->in_place ? " in-place" : "", s->in_layout,
           s->out_layout, s->null_strides ? " null-strides" : "", s->threads,
           s->deterministic ? " deterministic" : "");
}

/* Runs one case and checks it; returns false on a failure. */
static bool run_case(test_rng *r, spec s) {
  if (s.in_place)
    s.out_type = s.in_type, s.out_layout = s.in_layout;
  if (s.null_strides)
    s.in_layout = s.out_layout = 0;
  size_t isz = ref_dtype_size(s.in_type), osz = ref_dtype_size(s.out_type);
  view vi, vo;
  make_view(r, s.ndim, s.shape, s.in_layout, &vi);
  if (s.in_place)
    vo = vi;
  else
    make_view(r, s.ndim, s.shape, s.out_layout, &vo);
  enum { SLACK = 8 };
  char *in_buf = test_malloc((vi.elems + SLACK) * isz);
  fill_values(r, s.in_type, s.op, in_buf, vi.elems + SLACK);
  char *out_buf = s.in_place ? in_buf : test_malloc((vo.elems + SLACK) * osz);
  if (!s.in_place)
    test_poison(out_buf, (vo.elems + SLACK) * osz);
  char *want = test_malloc((vo.elems + SLACK) * osz);
  memcpy(want, out_buf, (vo.elems + SLACK) * osz);
  uint64_t init_store = 0;
  fill_init(r, s.out_type, s.op, &init_store);
  const void *init = s.use_init ? &init_store : NULL;
  char *in_copy = test_malloc((vi.elems + SLACK) * isz);
  memcpy(in_copy, in_buf, (vi.elems + SLACK) * isz);
  ref_axis(&s, &vi, in_copy, &vo, want, init);

  pscan_ctx *ctx = ctx_for(s.threads);
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, s.deterministic);
  pscan_axis_args a = {.in = in_buf + vi.base * isz, .in_type = s.in_type,
                       .in_strides = s.null_strides ? NULL : vi.strides,
                       .out = out_buf + vo.base * osz, .out_type = s.out_type,
                       .out_strides = s.null_strides ? NULL : vo.strides, .ndim = s.ndim,
                       .shape = s.shape, .axis = s.axis, .op = s.op, .exclusive = s.exclusive,
                       .reverse = s.reverse, .init = init};
  pscan_status st = call_axis(ctx, a, in_buf, (vi.elems + SLACK) * isz, out_buf,
                              (vo.elems + SLACK) * osz);
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 0);
  char what[256];
  describe(&s, what, sizeof what);
  bool ok = CHECK(st == PSCAN_OK, "%s: %s (%s)", what, pscan_status_name(st),
                  pscan_last_error(ctx));
  if (ok) {
    size_t diff = ref_first_difference(s.out_type, out_buf, want, vo.elems + SLACK);
    char got_s[64] = "", want_s[64] = "";
    if (diff < vo.elems + SLACK) {
      ref_format(s.out_type, out_buf + diff * osz, got_s, sizeof got_s);
      ref_format(s.out_type, want + diff * osz, want_s, sizeof want_s);
    }
    ok = CHECK(diff == vo.elems + SLACK, "%s: buffer element %zu is %s, want %s", what, diff,
               got_s, want_s);
  }
  free(in_copy);
  free(want);
  if (!s.in_place)
    free(out_buf);
  free(in_buf);
  return ok;
}

static spec spec2(int64_t a, int64_t b, int axis, pscan_dtype t, pscan_op op) {
  spec s = {.ndim = 2, .shape = {a, b}, .axis = axis, .in_type = t, .out_type = t, .op = op,
            .threads = 2};
  return s;
}

/* ---- the regimes, on every thread count and layout ---- */

static void test_regimes(uint64_t seed) {
  test_rng r = test_fork(seed, 1);
  static const int64_t shapes[][3] = {
      /* ndim, a, b */
      {2, 70000, 3},   /* side by side, row chunks */
      {2, 1025, 1100}, /* side by side, two column chunks */
      {2, 1000, 33},   /* many short lines (axis 1) / side (axis 0) */
      {2, 6000, 40},   /* side by side, 188 chunks (CUDA: one pass, look-back along the axis,
                          with PSCAN_CUDA_AXIS_LB_MIN_LINES=32) */
      {2, 9000, 37},   /* side by side, narrow, many chunks */
      {2, 33000, 32},
      {2, 3, 70001},   /* few long lines (axis 1) */
      {2, 1, 65537},   /* one line */
      {2, 65537, 1},   /* one line along axis 0 */
      {2, 0, 5},       /* empty */
      {2, 5, 0},
      {1, 131073, 0},  /* 1-D */
  };
  bool quick = test_quick();
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
    for (int axis = -1; axis < (int)shapes[k][0]; axis++)
      for (int layout = 0; layout < 8; layout++)
        for (int threads = 1; threads <= 3; threads++) {
          if (quick && (threads == 3 || layout % 3))
            continue;
          for (int mode = 0; mode < 4; mode++) {
            spec s = {.ndim = (int)shapes[k][0], .shape = {shapes[k][1], shapes[k][2]},
                      .axis = axis, .in_type = PSCAN_I32, .out_type = PSCAN_I32,
                      .op = PSCAN_SUM, .threads = threads, .in_layout = layout,
                      .out_layout = (layout * 5) % 8, .exclusive = mode & 1,
                      .reverse = (mode >> 1) & 1, .use_init = (int)test_below(&r, 2),
                      .in_place = layout == 3 || layout == 6};
            if (!run_case(&r, s))
              return;
          }
        }
  /* 3-D: side by side with an outer dimension, lines with gaps */
  static const int64_t shapes3[][3] = {{5, 300, 7}, {7, 5, 300}, {300, 7, 5}, {2, 40000, 2}};
  for (size_t k = 0; k < 4; k++)
    for (int axis = 0; axis < 3; axis++)
      for (int layout = 0; layout < 8; layout++) {
        spec s = {.ndim = 3, .shape = {shapes3[k][0], shapes3[k][1], shapes3[k][2]},
                  .axis = axis, .in_type = PSCAN_F64, .out_type = PSCAN_F64, .op = PSCAN_SUM,
                  .threads = 1 + (int)test_below(&r, 3), .in_layout = layout,
                  .out_layout = 7 - layout, .exclusive = (int)test_below(&r, 2),
                  .reverse = (int)test_below(&r, 2), .use_init = (int)test_below(&r, 2),
                  .null_strides = layout == 0};
        if (!run_case(&r, s))
          return;
      }
}

/* Line lengths 0, 1, 2^k +- 1, one line and many. */
static void test_lengths(uint64_t seed) {
  test_rng r = test_fork(seed, 2);
  int64_t lens[40];
  int nl = 0;
  lens[nl++] = 0, lens[nl++] = 1, lens[nl++] = 2;
  for (int k = 2; k <= 17; k += test_quick() ? 5 : 1)
    lens[nl++] = ((int64_t)1 << k) - 1, lens[nl++] = ((int64_t)1 << k) + 1;
  for (int i = 0; i < nl; i++)
    for (int lines = 1; lines <= 9; lines += 8)
      for (int axis = 0; axis < 2; axis++) {
        int64_t a = axis == 0 ? lens[i] : lines, b = axis == 0 ? lines : lens[i];
        if (a * b > 600000)
          continue;
        spec s = spec2(a, b, axis, PSCAN_U16, PSCAN_MAX);
        s.out_type = PSCAN_U64;
        s.threads = 1 + (int)test_below(&r, 3);
        s.exclusive = (int)test_below(&r, 2), s.reverse = (int)test_below(&r, 2);
        s.in_layout = (int)test_below(&r, 8), s.out_layout = (int)test_below(&r, 8);
        if (!run_case(&r, s))
          return;
      }
}

/* Every (in, out) pair x op x inclusive/exclusive x init x reverse, on four regimes (side by
   side with 17 and with 40 columns, short lines, long lines), the shape varying with the case. */
static void test_types(uint64_t seed) {
  test_rng r = test_fork(seed, 3);
  static const int64_t shapes[][3] = {{300, 17, 0}, {17, 300, 1}, {2, 70001, 1}, {300, 40, 0}};
  ref_pair_op po[REF_MAX_PAIR_OPS];
  size_t npo = ref_pair_ops(po);
  for (size_t k = 0; k < npo; k++)
    for (int mode = 0; mode < 8; mode++) {
      const int64_t *sh = shapes[(mode + (int)po[k].op + (int)po[k].in + (int)po[k].out) % 4];
      spec s = spec2(sh[0], sh[1], (int)sh[2], po[k].in, po[k].op);
      s.out_type = po[k].out;
      s.exclusive = mode & 1, s.use_init = (mode >> 1) & 1, s.reverse = (mode >> 2) & 1;
      s.threads = 1 + (int)test_below(&r, 3);
      s.in_layout = (int)test_below(&r, 8), s.out_layout = (int)test_below(&r, 8);
      s.in_place = po[k].in == po[k].out && test_below(&r, 3) == 0;
      if (!run_case(&r, s))
        return;
    }
}

/* Random shapes (1..8 dimensions), layouts, types, ops and flags. */
static void test_random(uint64_t seed) {
  test_rng r = test_fork(seed, 4);
  int cases = test_quick() ? 60 : 600;
  for (int c = 0; c < cases; c++) {
    spec s = {.ndim = 1 + (int)test_below(&r, MAXD)};
    size_t budget = 1 + test_below(&r, 200000), n = 1;
    for (int d = 0; d < s.ndim; d++) {
      int64_t len = 1 + (int64_t)test_below(&r, test_below(&r, 4) == 0 ? 300 : 6);
      if (n * (size_t)len > budget)
        len = 1;
      if (test_below(&r, 60) == 0)
        len = 0;
      s.shape[d] = len;
      n *= (size_t)(len ? len : 1);
    }
    s.axis = (int)test_below(&r, (uint64_t)s.ndim + 1) - 1;
    do {
      s.in_type = (pscan_dtype)test_below(&r, REF_NTYPES);
      s.out_type = (pscan_dtype)test_below(&r, REF_NTYPES);
      s.op = (pscan_op)test_below(&r, REF_NOPS);
    } while (!ref_pair_valid(s.in_type, s.out_type) || !ref_op_valid(s.in_type, s.op));
    s.exclusive = (int)test_below(&r, 2), s.reverse = (int)test_below(&r, 2);
    s.use_init = (int)test_below(&r, 2), s.in_place = test_below(&r, 4) == 0;
    s.in_layout = (int)test_below(&r, 8), s.out_layout = (int)test_below(&r, 8);
    s.null_strides = test_below(&r, 8) == 0;
    s.threads = 1 + (int)test_below(&r, 3);
    if (!run_case(&r, s))
      return;
  }
}

/* Lines side by side cut into row chunks (axis_side.c): AXIS_CHUNK_BYTES (256 KiB) of input a
   chunk, so chunk_rows below rows; row counts of 1, 2 and 3 chunks +- 1 row; one column, widths
   off the vector length, columns cut narrower for the threads (units of their own), an outer
   dimension (several units, each its own chain); exclusive, init, reverse, negative and padded
   strides, in place, deterministic or not, 1-3 threads. */
enum { SIDE_CHUNK_BYTES = 256 << 10 };

static int64_t chunk_rows(int64_t cols, pscan_dtype in) {
  int64_t unit = cols < 4096 ? cols : 4096; /* AXIS_SIDE_BYTES of 4-byte accumulators at most */
  int64_t rows = SIDE_CHUNK_BYTES / (unit * (int64_t)ref_dtype_size(in));
  return rows < 1 ? 1 : rows;
}

static void test_side_chunks(uint64_t seed) {
  test_rng r = test_fork(seed, 7);
  static const struct {
    int64_t outer, cols;
    pscan_dtype in, out;
    pscan_op op;
  } cases[] = {
      {1, 1, PSCAN_I32, PSCAN_I32, PSCAN_SUM},   {1, 3, PSCAN_I32, PSCAN_I32, PSCAN_SUM},
      {1, 17, PSCAN_F64, PSCAN_F64, PSCAN_SUM},  {1, 64, PSCAN_I32, PSCAN_I32, PSCAN_MAX},
      {1, 300, PSCAN_U16, PSCAN_U64, PSCAN_SUM}, {3, 5, PSCAN_I64, PSCAN_I64, PSCAN_MIN},
      {2, 40, PSCAN_F32, PSCAN_F32, PSCAN_SUM},  {1, 7, PSCAN_U8, PSCAN_U32, PSCAN_XOR},
  };
  bool quick = test_quick();
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int64_t rows = chunk_rows(cases[c].cols, cases[c].in);
    for (int chunks = 1; chunks <= 3; chunks++)
      for (int delta = -1; delta <= 1; delta++) {
        if (quick && chunks == 2 && delta != 0)
          continue;
        int64_t len = chunks * rows + delta;
        if (len < 1 || len * cases[c].cols * cases[c].outer > 3000000)
          continue;
        spec s = {.ndim = cases[c].outer > 1 ? 3 : 2, .in_type = cases[c].in,
                  .out_type = cases[c].out, .op = cases[c].op};
        if (s.ndim == 3) {
          s.shape[0] = cases[c].outer, s.shape[1] = len, s.shape[2] = cases[c].cols, s.axis = 1;
        } else {
          s.shape[0] = len, s.shape[1] = cases[c].cols, s.axis = 0;
        }
        s.threads = 1 + (int)test_below(&r, 3);
        s.exclusive = (int)test_below(&r, 2), s.reverse = (int)test_below(&r, 2);
        s.use_init = (int)test_below(&r, 2), s.deterministic = (int)test_below(&r, 2);
        s.in_layout = (int)test_below(&r, 2) * LAYOUT_NEGATE | (int)test_below(&r, 2) * LAYOUT_PAD;
        s.out_layout = (int)test_below(&r, 2) * LAYOUT_NEGATE;
        s.in_place = s.in_type == s.out_type && test_below(&r, 4) == 0;
        if (!run_case(&r, s))
          return;
      }
  }
  /* wide rows: 3 threads cut 2000 columns into 6 units of 336 (the last 320), one pass each;
     deterministic: units of 4096 columns (and 904), chunks of 16 rows */
  for (int mode = 0; mode < 8; mode++) {
    spec s = spec2(mode < 4 ? 150 : 70, mode < 4 ? 2000 : 5000, 0, PSCAN_I32, PSCAN_SUM);
    s.threads = 1 + mode % 3, s.exclusive = mode & 1, s.reverse = (mode >> 1) & 1;
    s.use_init = (int)test_below(&r, 2), s.deterministic = mode >= 4;
    s.in_layout = (int)test_below(&r, 8), s.out_layout = (int)test_below(&r, 8);
    if (!run_case(&r, s))
      return;
  }
}

/* DETERMINISTIC: random real floats summed give the same bits on 1, 2 and 3 threads (2 and 3
   run four times each: the look-backs of chunked shapes fold different runs of totals each time,
   and every one must give the bits of one thread). */
static void test_deterministic(uint64_t seed) {
  /* side by side in row chunks of 13107, 21845 and 218 rows; lines; lines in chunks */
  static const int64_t shapes[][3] = {
      {70000, 5, 0}, {65536, 3, 0}, {5000, 300, 0}, {5, 300000, 1}, {3, 300000, 1}};
  enum { RUNS = 9 }; /* 1 thread, then 2 and 3 threads alternately */
  for (int k = 0; k < 5; k++)
    for (int reverse = 0; reverse < 2; reverse++) {
      size_t n = (size_t)(shapes[k][0] * shapes[k][1]);
      float *in = test_malloc(n * sizeof *in), *out[2];
      test_rng r = test_fork(seed, 50 + (uint64_t)k);
      for (size_t i = 0; i < n; i++)
        in[i] = (float)(test_uniform(&r) * 2 - 1);
      out[0] = test_malloc(n * sizeof *in), out[1] = test_malloc(n * sizeof *in);
      int differ = 0;
      for (int run = 0; run < RUNS; run++) {
        int threads = run == 0 ? 1 : 2 + run % 2;
        char *o = (char *)out[run > 0];
        test_poison(o, n * 4);
        pscan_ctx *ctx = ctx_for(threads);
        test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 1);
        pscan_axis_args a = {.in = in, .in_type = PSCAN_F32, .out = o,
                             .out_type = PSCAN_F32, .ndim = 2, .shape = shapes[k],
                             .axis = (int)shapes[k][2], .op = PSCAN_SUM, .reverse = reverse};
        CHECK_STATUS(call_axis(ctx, a, in, n * 4, o, n * 4), PSCAN_OK);
        test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 0);
        if (run > 0 && memcmp(out[0], out[1], n * 4) != 0 && !differ)
          differ = threads;
      }
      CHECK(!differ, "deterministic shape %d reverse %d: %d threads differ from 1", k, reverse,
            differ);
      free(out[0]);
      free(out[1]);
      free(in);
    }
}

/* ---- segmented ---- */

static void ref_segmented(const char *in, char *out, pscan_dtype t, pscan_op op,
                          const int64_t *offsets, size_t nseg, int exclusive, int reverse,
                          const void *init) {
  size_t size = ref_dtype_size(t);
  for (size_t s = 0; s < nseg; s++) {
    size_t a = (size_t)offsets[s], len = (size_t)(offsets[s + 1] - offsets[s]);
    if (!len)
      continue;
    char *li = test_malloc(len * size), *lo = test_malloc(len * size);
    for (size_t i = 0; i < len; i++)
      memcpy(li + i * size, in + (a + (reverse ? len - 1 - i : i)) * size, size);
    ref_scan(li, t, lo, t, len, op, exclusive, init);
    for (size_t i = 0; i < len; i++)
      memcpy(out + (a + (reverse ? len - 1 - i : i)) * size, lo + i * size, size);
    free(li);
    free(lo);
  }
}

/* SEG_TILE_EDGES: segments ending on, just before and just after multiples of 4096 items (the
   CUDA by-key tile), with empty ones repeated on the edges. */
/* SEG_SHORT_MIXED: lengths 0-33 with one in eight of 20-319 (about 36 on average: under the CPU's
   short-segment average of 40, so longer segments go through its element-by-element kernel). */
enum {
  SEG_EMPTY_SET, SEG_SINGLE, SEG_HUGE, SEG_TINY, SEG_RANDOM, SEG_TILE_EDGES, SEG_SHORT_MIXED,
  SEG_KINDS
};

/* Segment lengths of kind over about n elements; returns the count, offsets filled. */
static size_t make_offsets(test_rng *r, int kind, size_t n, int64_t *offsets, size_t cap) {
  size_t s = 0;
  offsets[0] = 0;
  if (kind == SEG_EMPTY_SET)
    return 0;
  if (kind == SEG_SINGLE) {
    offsets[1] = (int64_t)n;
    return 1;
  }
  size_t pos = 0;
  if (kind == SEG_HUGE) { /* many empty, one huge in the middle, many empty */
    for (; s < cap / 2 - 1; s++)
      offsets[s + 1] = 0;
    offsets[++s] = (int64_t)n;
    for (; s < cap - 1; s++)
      offsets[s + 1] = (int64_t)n;
    return s;
  }
  static const size_t edge_lengths[] = {4096, 0, 4095, 1, 0, 0, 4097, 8191, 2, 4096, 1};
  for (size_t e = 0; pos < n && s + 1 < cap; e++) {
    size_t len = kind == SEG_TINY   ? test_below(r, 3)
                 : kind == SEG_SHORT_MIXED
                     ? (test_below(r, 8) == 0 ? 20 + test_below(r, 300) : test_below(r, 34))
                 : kind == SEG_TILE_EDGES ? edge_lengths[e % (sizeof edge_lengths / sizeof *edge_lengths)]
                                      : test_below(r, 2 * (n / 8) + 2);
    if (len > n - pos)
      len = n - pos;
    pos += len;
    offsets[++s] = (int64_t)pos;
  }
  offsets[s] = (int64_t)n; /* the last one ends at n */
  return s;
}

static void test_segmented(uint64_t seed) {
  test_rng r = test_fork(seed, 5);
  static const size_t sizes[] = {0, 1, 2, 1000, 65537, 300001};
  size_t cap = 400000;
  int64_t *offsets = test_malloc((cap + 1) * sizeof *offsets);
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int kind = 0; kind < SEG_KINDS; kind++)
      for (int mode = 0; mode < 16; mode++) {
        size_t n = sizes[si];
        if (kind == SEG_EMPTY_SET && n)
          continue;
        size_t nseg = make_offsets(&r, kind, n, offsets, kind == SEG_HUGE ? 1000 : cap);
        if (kind == SEG_SINGLE && n == 0)
          nseg = 1;
        pscan_dtype t = (pscan_dtype)test_below(&r, REF_NTYPES);
        pscan_op op = (pscan_op)test_below(&r, 4);
        int exclusive = mode & 1, reverse = (mode >> 1) & 1, use_init = (mode >> 2) & 1,
            in_place = (mode >> 3) & 1;
        size_t size = ref_dtype_size(t), bytes = (n + 8) * size;
        char *in = test_malloc(bytes), *out = in_place ? in : test_malloc(bytes);
        char *want = test_malloc(bytes);
        fill_values(&r, t, op, in, n + 8);
        if (!in_place)
          test_poison(out, bytes);
        memcpy(want, out, bytes);
        char *in_copy = test_malloc(bytes);
        memcpy(in_copy, in, bytes);
        uint64_t init = 0;
        fill_init(&r, t, op, &init);
        ref_segmented(in_copy, want, t, op, offsets, nseg, exclusive, reverse,
                      use_init ? &init : NULL);
        int threads = 1 + (int)test_below(&r, 3);
        pscan_status st = call_segmented(ctx_for(threads), in, out, bytes, t, op, offsets, nseg,
                                         exclusive, reverse, use_init ? &init : NULL);
        size_t diff = ref_first_difference(t, out, want, n + 8);
        CHECK(st == PSCAN_OK && diff == n + 8,
              "segmented n %zu kind %d (%zu segments) %s %s mode %d threads %d: %s, first "
              "difference at %zu (%s)",
              n, kind, nseg, ref_dtype_name(t), ref_op_name(op), mode, threads,
              pscan_status_name(st), diff, pscan_last_error(ctx_for(threads)));
        free(in_copy);
        free(want);
        if (!in_place)
          free(out);
        free(in);
      }
  free(offsets);
}

/* ---- bad input: the status, and out untouched ---- */

static void expect_refused(pscan_ctx *ctx, pscan_axis_args a, const char *in_buf, size_t in_bytes,
                           char *out_buf, size_t out_bytes, pscan_status want, const char *what) {
  test_poison(out_buf, out_bytes);
  pscan_status st = call_axis(ctx, a, in_buf, in_bytes, out_buf, out_bytes);
  CHECK(st == want, "%s: %s, want %s (%s)", what, pscan_status_name(st), pscan_status_name(want),
        pscan_last_error(ctx));
  CHECK(st == PSCAN_OK || test_is_poisoned(out_buf, out_bytes), "%s: out was written", what);
  CHECK(st == PSCAN_OK || pscan_last_error(ctx)[0] != '\0', "%s: no message", what);
}

/* A pscan_segmented_scan call for the refusals: in is the test's buffer of 4 n int32, out
   starts n elements into its out buffer (or, out_in_in, 5 elements into in's). */
typedef struct seg_call {
  int64_t o[5];
  size_t nseg;
  pscan_dtype t;
  pscan_op op;
  int null_offsets, excl, rev, out_in_in;
} seg_call;

static void expect_seg_refused(pscan_ctx *ctx, const seg_call *c, int32_t *in, int32_t *out,
                               size_t n, pscan_status want, const char *what) {
  size_t bytes = 4 * n * sizeof *out;
  int32_t *o = c->out_in_in ? in + 5 : out + n;
  test_poison(out, bytes);
  int32_t *keep = test_malloc(bytes);
  memcpy(keep, in, bytes);
  pscan_status st = call_segmented(ctx, in, o, bytes - n * sizeof *out, c->t, c->op,
                                   c->null_offsets ? NULL : c->o, c->nseg, c->excl, c->rev, NULL);
  CHECK(st == want, "segmented %s: %s, want %s (%s)", what, pscan_status_name(st),
        pscan_status_name(want), pscan_last_error(ctx));
  CHECK(test_is_poisoned(out, bytes) && memcmp(keep, in, bytes) == 0, "segmented %s: out written",
        what);
  free(keep);
}

static void test_bad_input(void) {
  pscan_ctx *ctx = ctx_for(2);
  enum { N = 64 };
  int32_t *in = test_malloc(N * 4 * sizeof *in);
  int32_t *out = test_malloc(N * 4 * sizeof *out);
  for (int i = 0; i < N * 4; i++)
    in[i] = i;
  size_t ib = N * 4 * sizeof *in, ob = N * 4 * sizeof *out;
  int64_t shape[MAXD + 1] = {8, 8, 1, 1, 1, 1, 1, 1, 1};
  pscan_axis_args good = {.in = in, .in_type = PSCAN_I32, .out = out, .out_type = PSCAN_I32,
                          .ndim = 2, .shape = shape, .axis = 1, .op = PSCAN_SUM};
  expect_refused(ctx, good, (char *)in, ib, (char *)out, ob, PSCAN_OK, "good call");
  CHECK_STATUS(pscan_scan_axis(NULL, &good), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_axis(ctx, NULL), PSCAN_ERR_INVALID_ARGUMENT);
#define BAD(field_change, status, what)                                           \
  do {                                                                            \
    pscan_axis_args a = good;                                                     \
    field_change;                                                                 \
    expect_refused(ctx, a, (char *)in, ib, (char *)out, ob, status, what);        \
  } while (0)
  BAD(a.ndim = 0, PSCAN_ERR_INVALID_ARGUMENT, "ndim 0");
  BAD(a.ndim = MAXD + 1, PSCAN_ERR_INVALID_ARGUMENT, "ndim 9");
  BAD(a.shape = NULL, PSCAN_ERR_INVALID_ARGUMENT, "shape NULL");
  BAD(a.axis = 2, PSCAN_ERR_INVALID_ARGUMENT, "axis 2 of 2");
  BAD(a.axis = -2, PSCAN_ERR_INVALID_ARGUMENT, "axis -2");
  BAD(a.in_type = (pscan_dtype)99, PSCAN_ERR_INVALID_ARGUMENT, "unknown in_type");
  BAD(a.out_type = (pscan_dtype)-1, PSCAN_ERR_INVALID_ARGUMENT, "unknown out_type");
  BAD(a.op = (pscan_op)7, PSCAN_ERR_INVALID_ARGUMENT, "unknown op");
  BAD((a.in_type = a.out_type = PSCAN_F32, a.op = PSCAN_XOR), PSCAN_ERR_INVALID_ARGUMENT,
      "xor on f32");
  BAD(a.out_type = PSCAN_I16, PSCAN_ERR_INVALID_ARGUMENT, "narrowing i32 -> i16");
  BAD(a.out_type = PSCAN_F64, PSCAN_ERR_INVALID_ARGUMENT, "i32 -> f64");
  BAD(a.out_type = PSCAN_U64, PSCAN_ERR_INVALID_ARGUMENT, "i32 -> u64");
  BAD(a.exclusive = 2, PSCAN_ERR_INVALID_ARGUMENT, "exclusive 2");
  BAD(a.reverse = -1, PSCAN_ERR_INVALID_ARGUMENT, "reverse -1");
  /* user_op: its checks and refusals are test_user_op.c's (test_axis) */
  int64_t neg[2] = {8, -1};
  BAD(a.shape = neg, PSCAN_ERR_INVALID_ARGUMENT, "negative shape");
  int64_t huge[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 0};
  BAD((a.shape = huge, a.in = a.out = NULL), PSCAN_ERR_OVERFLOW, "size product overflow");
  int64_t huge2[3] = {(int64_t)1 << 30, (int64_t)1 << 30, 4};
  BAD((a.ndim = 3, a.shape = huge2, a.in = a.out = NULL), PSCAN_ERR_OVERFLOW,
      "byte size overflow");
  int64_t far[2] = {(int64_t)1 << 62, 1};
  BAD(a.in_strides = far, PSCAN_ERR_OVERFLOW, "extent overflow");
  BAD(a.in = NULL, PSCAN_ERR_INVALID_ARGUMENT, "in NULL");
  BAD(a.out = NULL, PSCAN_ERR_INVALID_ARGUMENT, "out NULL");
  BAD(a.out = (char *)out + 2, PSCAN_ERR_INVALID_ARGUMENT, "out misaligned");
  int64_t zero[2] = {8, 0};
  BAD(a.out_strides = zero, PSCAN_ERR_OVERLAP, "out zero stride");
  int64_t inter[2] = {1, 2}; /* rows interleave with columns */
  BAD(a.out_strides = inter, PSCAN_ERR_OVERLAP, "out interleaved strides");
  BAD(a.in_strides = zero, PSCAN_OK, "broadcast input");
  int64_t empty[2] = {0, 8};
  BAD((a.shape = empty, a.in = a.out = NULL), PSCAN_OK, "empty with NULL pointers");
  BAD((a.ndim = MAXD, a.axis = -1), PSCAN_OK, "8 dimensions");
  if (!B->device) { /* out inside in's buffer: host pointers only */
    BAD(a.out = (int32_t *)in + 3, PSCAN_ERR_OVERLAP, "out shifted into in");
    int64_t tr[2] = {1, 8};
    BAD((a.out = (int32_t *)in, a.out_strides = tr), PSCAN_ERR_OVERLAP, "in place transposed");
    BAD((a.out = (int32_t *)in, a.out_type = PSCAN_I64), PSCAN_ERR_OVERLAP, "in place widening");
    int64_t negs[2] = {-8, 1}; /* reaches below out: out's view covers in's buffer end */
    BAD((a.out = (int32_t *)in + 63, a.out_strides = negs), PSCAN_ERR_OVERLAP,
        "negative strides into in");
    BAD((a.out = (int32_t *)in, a.in = in), PSCAN_OK, "in place");
  }
#undef BAD

  /* segmented */
  int64_t off[5] = {0, 3, 3, 10, 16};
  CHECK_STATUS(call_segmented(ctx, in, out, ib, PSCAN_I32, PSCAN_SUM, off, 4, 0, 0, NULL),
               PSCAN_OK);
  CHECK_STATUS(pscan_segmented_scan(NULL, in, out, PSCAN_I32, PSCAN_SUM, off, 4, 0, 0, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  /* Each refusal: the good call above with one change; out poisoned and checked untouched. */
  seg_call seg_good = {.o = {0, 3, 3, 10, 16}, .nseg = 4, .t = PSCAN_I32, .op = PSCAN_SUM};
#define SEG_BAD(change, status, what)                                                 \
  do {                                                                                \
    seg_call c = seg_good;                                                            \
    change;                                                                           \
    expect_seg_refused(ctx, &c, in, out, N, status, what);                            \
  } while (0)
  SEG_BAD(c.o[0] = 1, PSCAN_ERR_INVALID_ARGUMENT, "offsets[0] != 0");
  SEG_BAD(c.o[2] = 2, PSCAN_ERR_INVALID_ARGUMENT, "decreasing offsets");
  SEG_BAD(c.o[4] = 9, PSCAN_ERR_INVALID_ARGUMENT, "last offset below the one before");
  SEG_BAD(c.null_offsets = 1, PSCAN_ERR_INVALID_ARGUMENT, "offsets NULL");
  SEG_BAD((c.t = PSCAN_F64, c.op = PSCAN_AND), PSCAN_ERR_INVALID_ARGUMENT, "and on f64");
  SEG_BAD(c.excl = 3, PSCAN_ERR_INVALID_ARGUMENT, "exclusive 3");
  SEG_BAD(c.rev = 2, PSCAN_ERR_INVALID_ARGUMENT, "reverse 2");
  if (!B->device) /* out inside in's buffer: host pointers only */
    SEG_BAD(c.out_in_in = 1, PSCAN_ERR_OVERLAP, "out overlapping in");
  SEG_BAD((c.o[1] = c.o[2] = c.o[3] = 0, c.o[4] = INT64_MAX), PSCAN_ERR_OVERFLOW, "n overflows");
#undef SEG_BAD
  if (!B->device) { /* host pointers */
    int64_t *off_out = (int64_t *)(void *)out;
    test_poison(out, ob);
    off_out[0] = 0, off_out[1] = 4;
    CHECK_STATUS(pscan_segmented_scan(ctx, in, out, PSCAN_I32, PSCAN_SUM, off_out, 1, 0, 0, NULL),
                 PSCAN_ERR_OVERLAP);
    CHECK_STATUS(
        pscan_segmented_scan(ctx, in, out, PSCAN_I32, PSCAN_SUM, off, SIZE_MAX, 0, 0, NULL),
        PSCAN_ERR_OVERFLOW);
    int64_t zero_n[3] = {0, 0, 0};
    CHECK_STATUS(
        pscan_segmented_scan(ctx, NULL, NULL, PSCAN_I32, PSCAN_SUM, zero_n, 2, 0, 0, NULL),
        PSCAN_OK);
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  B = test_backend_pick(argc, argv);
  ctx_for(1); /* SKIP (77) here without the backend */
  char program[64];
  snprintf(program, sizeof program, "test_axis --backend %s", B->name);
  uint64_t seed = test_init(program);
  test_bad_input();
  test_regimes(seed);
  test_side_chunks(seed);
  test_lengths(seed);
  test_types(seed);
  test_segmented(seed);
  test_deterministic(seed);
  test_random(seed);
  for (int t = 0; t < 4; t++)
    pscan_destroy(ctxs[t]);
  return test_finish();
}
