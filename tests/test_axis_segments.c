/* The axis suite's segmented scans and the bad input of pscan_scan_axis and pscan_segmented_scan
 * (test_axis.c says what the suite covers; shared pieces in test_axis.h). */
#include "test_axis.h"

#include <stdlib.h>
#include <string.h>

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

/* SEG_TILE_EDGES: segments ending on, just before and just after multiples of the CUDA tiles
   (4096 items: the by-key scan's; 2048-32768 by type: the flat scan's, which the segmented scan
   runs on), with empty ones repeated on the edges. */
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
  static const size_t edge_lengths[] = {4096, 0,     4095, 1,     0,     0,    4097,
                                        8191, 2,     4096, 1,     8192,  8193, 16383,
                                        0,    16385, 32768, 32767, 2048, 2049};
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

static int cmp_int64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* A case's buffers (out is in when the case ran in place). */
static void free_case(char *in, char *out, char *want, char *in_copy) {
  if (out != in)
    free(out);
  free(in);
  free(want);
  free(in_copy);
}

void test_segmented(uint64_t seed) {
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
        free_case(in, out, want, in_copy);
      }
  free(offsets);
}

/* The same offsets buffer scanned again and again on one context, rewritten between calls: the
   CUDA backend remembers the last offsets' n and trusts it the next time (the check compares it
   on the device; the scan writes nothing unless the verdict is clean, and a changed n runs the
   call again the usual way). Steps: offsets scanned twice; rewritten to a smaller n, the same n
   with other segments, bad (decreasing) with the same n (refused, the output untouched), and a
   larger n; forward and reversed, exclusive with init, two types. Every step against the
   reference, the output past n as the steps before left it. */
void test_segmented_reused(uint64_t seed) {
  test_rng r = test_fork(seed, 11);
  enum { NSEG = 5000, CAP = 200000 };
  static const size_t steps_n[] = {150000, 150000, 90001, 90001, 90001, 199999};
  static const pscan_dtype types[] = {PSCAN_I32, PSCAN_F64};
  int64_t *offsets = test_malloc((NSEG + 1) * sizeof *offsets);
  for (size_t ti = 0; ti < 2; ti++)
    for (int mode = 0; mode < 2; mode++) {
      const pscan_dtype t = types[ti];
      const pscan_op op = ti ? PSCAN_MAX : PSCAN_SUM;
      const int reverse = mode, exclusive = mode;
      const size_t size = ref_dtype_size(t), bytes = CAP * size;
      char *in = test_malloc(bytes), *out = test_malloc(bytes), *want = test_malloc(bytes);
      fill_values(&r, t, op, in, CAP);
      uint64_t init = 0;
      fill_init(&r, t, op, &init);
      pscan_ctx *ctx = ctx_for(2);
      void *d_in = test_backend_alloc(B, bytes), *d_out = test_backend_alloc(B, bytes);
      void *d_off = test_backend_alloc(B, (NSEG + 1) * sizeof *offsets);
      test_backend_put(B, d_in, in, bytes);
      test_poison(out, bytes);
      test_backend_put(B, d_out, out, bytes);
      memcpy(want, out, bytes);
      for (size_t k = 0; k < sizeof steps_n / sizeof *steps_n; k++) {
        const size_t n = steps_n[k];
        const bool bad = k == 4;
        if (k != 1) { /* k == 1: the same offsets again */
          offsets[0] = 0;
          for (size_t sg = 1; sg < NSEG; sg++)
            offsets[sg] = (int64_t)test_below(&r, n + 1);
          offsets[NSEG] = (int64_t)n;
          qsort(offsets + 1, NSEG - 1, sizeof *offsets, cmp_int64);
          if (bad) /* one pair out of order (and distinct), n unchanged */
            offsets[NSEG / 2] = offsets[NSEG / 2 + 1] + 1;
        }
        test_backend_put(B, d_off, offsets, (NSEG + 1) * sizeof *offsets);
        if (!bad)
          ref_segmented(in, want, t, op, offsets, NSEG, exclusive, reverse, &init);
        pscan_status st = pscan_segmented_scan(ctx, d_in, d_out, t, op, d_off, NSEG, exclusive,
                                               reverse, &init);
        if (st == PSCAN_OK)
          st = pscan_synchronize(ctx);
        test_backend_get(B, out, d_out, bytes);
        const size_t diff = ref_first_difference(t, out, want, CAP);
        if (!CHECK((bad ? st == PSCAN_ERR_INVALID_ARGUMENT : st == PSCAN_OK) && diff == CAP,
                   "segmented offsets reused, step %zu (n %zu) %s %s%s: %s, first difference "
                   "at %zu (%s)",
                   k, n, ref_dtype_name(t), ref_op_name(op), reverse ? " reverse exclusive" : "",
                   pscan_status_name(st), diff, pscan_last_error(ctx)))
          break;
      }
      test_backend_free(B, d_in), test_backend_free(B, d_out), test_backend_free(B, d_off);
      free(in), free(out), free(want);
    }
  free(offsets);
}

/* Inclusive sums without init over a million items (2^17 quick), segment lengths uniform in
   [0, 2k]: on the CPU with AVX-512 the route of the by-key segmented sum (bit arrays of
   4096-item blocks, sums carried between blocks and chunks, the chunk rule's threshold at 128
   items a segment on either side of k = 127 and 129), elsewhere the segs kernels.
   Integer-valued floats: exact. */
void test_segmented_sums(uint64_t seed) {
  test_rng r = test_fork(seed, 6);
  static const size_t ks[] = {1, 5, 40, 127, 129, 1000};
  static const pscan_dtype types[] = {PSCAN_I32, PSCAN_U32, PSCAN_F32,
                                      PSCAN_I64, PSCAN_U64, PSCAN_F64};
  /* quick: 2^17 items, still chunks of several 4096-item blocks */
  const size_t n = ((size_t)1 << (axis_quick() ? 17 : 20)) + 37;
  const size_t cap = 2 * n; /* segments of mean length 1: about n of them */
  int64_t *offsets = test_malloc((cap + 1) * sizeof *offsets);
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
      size_t nseg = 0, pos = 0;
      offsets[0] = 0;
      while (pos < n && nseg < cap) {
        pos += (size_t)test_below(&r, 2 * ks[ki] + 1);
        offsets[++nseg] = (int64_t)(pos < n ? pos : n);
      }
      offsets[nseg] = (int64_t)n;
      pscan_dtype t = types[ti];
      size_t bytes = n * ref_dtype_size(t);
      int in_place = (int)test_below(&r, 2), threads = 2 + (int)test_below(&r, 2);
      char *in = test_malloc(bytes), *out = in_place ? in : test_malloc(bytes);
      char *want = test_malloc(bytes), *in_copy = test_malloc(bytes);
      fill_values(&r, t, PSCAN_SUM, in, n);
      memcpy(in_copy, in, bytes);
      ref_segmented(in_copy, want, t, PSCAN_SUM, offsets, nseg, 0, 0, NULL);
      pscan_status st = call_segmented(ctx_for(threads), in, out, bytes, t, PSCAN_SUM, offsets,
                                       nseg, 0, 0, NULL);
      size_t diff = ref_first_difference(t, out, want, n);
      CHECK(st == PSCAN_OK && diff == n,
            "segmented sum, lengths in [0, %zu], %s, %s, %d threads: %s, first difference at %zu",
            2 * ks[ki], ref_dtype_name(t), in_place ? "in place" : "out of place", threads,
            pscan_status_name(st), diff);
      free_case(in, out, want, in_copy);
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

/* Many one-item segments: the CPU backend checks the offsets' order on all its threads (the API
   leaves it to the backend); two decreases in different parts, the first one named, nothing
   written; then the same offsets in order (out = in: every segment one item). */
static void many_segments_order(pscan_ctx *ctx) {
  enum { MANY = 1 << 18 };
  int64_t *off = test_malloc((MANY + 1) * sizeof *off);
  int32_t *in = test_malloc(MANY * sizeof *in), *out = test_malloc(MANY * sizeof *out);
  for (size_t s = 0; s <= MANY; s++)
    off[s] = (int64_t)s;
  for (size_t i = 0; i < MANY; i++)
    in[i] = (int32_t)(i % 1000) - 500;
  off[100001] = 7;   /* decreases at segment 100000 */
  off[200001] = 5;   /* and at 200000 */
  test_poison(out, MANY * sizeof *out);
  pscan_status st = pscan_segmented_scan(ctx, in, out, PSCAN_I32, PSCAN_SUM, off, MANY, 0, 0, NULL);
  CHECK(st == PSCAN_ERR_INVALID_ARGUMENT, "many segments, decreasing: %s", pscan_status_name(st));
  CHECK(strstr(pscan_last_error(ctx), "segment 100000 ") != NULL,
        "many segments: the first decrease not named: %s", pscan_last_error(ctx));
  CHECK(test_is_poisoned(out, MANY * sizeof *out), "many segments, decreasing: out written");
  off[100001] = 100001, off[200001] = 200001;
  CHECK_STATUS(pscan_segmented_scan(ctx, in, out, PSCAN_I32, PSCAN_SUM, off, MANY, 0, 0, NULL),
               PSCAN_OK);
  CHECK(memcmp(in, out, MANY * sizeof *out) == 0, "many one-item segments: out != in");
  free(off);
  free(in);
  free(out);
}

void test_bad_input(void) {
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
    int64_t zero_bad[3] = {0, 3, 0}; /* n = 0, the order still checked */
    CHECK_STATUS(
        pscan_segmented_scan(ctx, NULL, NULL, PSCAN_I32, PSCAN_SUM, zero_bad, 2, 0, 0, NULL),
        PSCAN_ERR_INVALID_ARGUMENT);
    many_segments_order(ctx);
  }
  free(in);
  free(out);
}
