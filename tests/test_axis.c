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
 * the CPU's; without a usable device the program prints SKIP and exits 77. PSCAN_TEST_QUICK=1 runs
 * a reduced matrix, PSCAN_TEST_SANITIZE=1 a thinner slice of it for compute-sanitizer.
 *
 * One program in three files (what they share: test_axis.h): this one holds the views, the calls
 * on the backend's buffers, the per-line reference and the regimes, lengths, types and random
 * cases; test_axis_chunks.c lines side by side in row chunks and DETERMINISTIC;
 * test_axis_segments.c the segmented scans and the bad input of both calls. */
#include "test_axis.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- views ---- */

typedef struct view {
  int ndim;
  int64_t shape[MAXD];
  int64_t strides[MAXD]; /* elements */
  size_t base;           /* element index of (0, ..., 0) in the buffer */
  size_t elems;          /* buffer length in elements */
} view;

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
    bool neg = ((layout & LAYOUT_FLIP_LAST) && d == ndim - 1) ||
               ((layout & LAYOUT_NEGATE) && test_below(r, 2));
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
void fill_values(test_rng *r, pscan_dtype t, pscan_op op, void *buf, size_t count) {
  size_t size = ref_dtype_size(t);
  for (size_t i = 0; i < count; i++) {
    char *p = (char *)buf + i * size;
    if (!ref_is_float(t)) {
      uint64_t bits = test_rand(r);
      if (op == PSCAN_PROD && test_below(r, 4)) /* mostly +-1, so products do not all vanish */
        bits = test_below(r, 2) ? 1 : (uint64_t)-1;
      ref_store_bits(t, bits, p);
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

void fill_init(test_rng *r, pscan_dtype t, pscan_op op, void *init) {
  fill_values(r, t, op, init, 1);
}

/* ---- the calls, on the backend's own buffers ---- */

const test_backend *B;
static pscan_ctx *ctxs[4];    /* by thread count on the CPU; [0] for any other backend */

/* A context with threads workers (the backend's one context where threads are not the CPU's). */
pscan_ctx *ctx_for(int threads) {
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
pscan_status call_axis(pscan_ctx *ctx, pscan_axis_args a, const void *in_buf,
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
pscan_status call_segmented(pscan_ctx *ctx, const void *in, void *out, size_t bytes,
                            pscan_dtype t, pscan_op op, const int64_t *offsets, size_t nseg,
                            int exclusive, int reverse, const void *init) {
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
  k += snprintf(buf + k, len - (size_t)k,
           ") axis %d %s->%s %s%s%s%s%s layouts %d/%d%s threads %d%s", s->axis,
           ref_dtype_name(s->in_type), ref_dtype_name(s->out_type), ref_op_name(s->op),
           s->exclusive ? " exclusive" : "", s->reverse ? " reverse" : "",
           s->use_init ? " init" : "", s->in_place ? " in-place" : "", s->in_layout,
           s->out_layout, s->null_strides ? " null-strides" : "", s->threads,
           s->deterministic ? " deterministic" : "");
  if (s->algo && k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, " algo %d", s->algo);
}

/* Runs one case and checks it; returns false on a failure. */
bool run_case(test_rng *r, spec s) {
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
  test_set(ctx, PSCAN_PARAM_ALGO, s.algo);
  pscan_axis_args a = {.in = in_buf + vi.base * isz, .in_type = s.in_type,
                       .in_strides = s.null_strides ? NULL : vi.strides,
                       .out = out_buf + vo.base * osz, .out_type = s.out_type,
                       .out_strides = s.null_strides ? NULL : vo.strides, .ndim = s.ndim,
                       .shape = s.shape, .axis = s.axis, .op = s.op, .exclusive = s.exclusive,
                       .reverse = s.reverse, .init = init};
  pscan_status st = call_axis(ctx, a, in_buf, (vi.elems + SLACK) * isz, out_buf,
                              (vo.elems + SLACK) * osz);
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 0);
  test_set(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO);
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

bool axis_light(void) {
  const char *e = getenv("PSCAN_TEST_SANITIZE");
  return e && strcmp(e, "1") == 0;
}

bool axis_quick(void) { return test_quick() || axis_light(); }

spec spec2(int64_t a, int64_t b, int axis, pscan_dtype t, pscan_op op) {
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
      {2, 45, 8196},   /* side by side, wide (CUDA: each block walks a strip of columns down
                          the axis, axis_strips.cuh) */
      {2, 300, 3000},  /* side by side (CPU, 2 threads: one unit of a page and more a thread) */
      {2, 3, 70001},   /* few long lines (axis 1) */
      {2, 1, 65537},   /* one line */
      {2, 65537, 1},   /* one line along axis 0 */
      {2, 0, 5},       /* empty */
      {2, 5, 0},
      {1, 131073, 0},  /* 1-D */
  };
  bool quick = axis_quick(), light = axis_light();
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
    for (int axis = -1; axis < (int)shapes[k][0]; axis++)
      for (int layout = 0; layout < 8; layout++)
        for (int threads = 1; threads <= 3; threads++) {
          if ((quick && (threads == 3 || layout % 3)) || (light && threads > 1))
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
  for (int k = 2; k <= 17; k += axis_quick() ? 5 : 1)
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
    for (int mode = 0; mode < 8; mode += axis_light() ? 3 : 1) {
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
  int cases = axis_light() ? 20 : axis_quick() ? 60 : 600;
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

int main(int argc, char **argv) {
  B = test_backend_pick(argc, argv);
  ctx_for(1); /* SKIP (77) here without the backend */
  char program[64];
  snprintf(program, sizeof program, "test_axis --backend %s", B->name);
  uint64_t seed = test_init(program);
  test_bad_input();
  test_regimes(seed);
  test_side_chunks(seed);
  test_lines_back_to_back(seed);
  test_reversed_strategies(seed);
  test_reversed_into_lines(seed);
  test_lengths(seed);
  test_types(seed);
  test_segmented(seed);
  test_segmented_sums(seed);
  test_segmented_reused(seed);
  test_deterministic(seed);
  test_random(seed);
  for (int t = 0; t < 4; t++)
    pscan_destroy(ctxs[t]);
  return test_finish();
}
