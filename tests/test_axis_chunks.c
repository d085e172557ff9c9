/* The axis suite's row chunks and DETERMINISTIC (test_axis.c says what the suite covers; shared
 * pieces in test_axis.h). */
#include "test_axis.h"

#include <stdlib.h>
#include <string.h>

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

void test_side_chunks(uint64_t seed) {
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
  bool quick = axis_quick();
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
void test_deterministic(uint64_t seed) {
  /* side by side in row chunks of 13107, 21845 and 218 rows; lines; lines in chunks */
  static const int64_t shapes[][3] = {
      {70000, 5, 0}, {65536, 3, 0}, {5000, 300, 0}, {5, 300000, 1}, {3, 300000, 1}};
  const int runs = axis_light() ? 3 : 9; /* 1 thread, then 2 and 3 threads alternately */
  for (int k = 0; k < 5; k++)
    for (int reverse = 0; reverse < 2; reverse++) {
      size_t n = (size_t)(shapes[k][0] * shapes[k][1]);
      float *in = test_malloc(n * sizeof *in), *out[2];
      test_rng r = test_fork(seed, 50 + (uint64_t)k);
      for (size_t i = 0; i < n; i++)
        in[i] = (float)(test_uniform(&r) * 2 - 1);
      out[0] = test_malloc(n * sizeof *in), out[1] = test_malloc(n * sizeof *in);
      int differ = 0;
      for (int run = 0; run < runs; run++) {
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
