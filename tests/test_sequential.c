/* PSCAN_ALGO_SEQUENTIAL is the left-to-right loop, bit for bit: for float SUM and PROD (where the
 * order of the additions changes the bits) the result of pscan_scan with ALGO = SEQUENTIAL must
 * equal, bit for bit, the plain loop written here: acc = in[0]; acc = acc + in[1]; ... (with init:
 * acc = init first), for f32, f64 and f32 -> f64, inclusive and exclusive, with and without init,
 * for sizes around the SIMD widths and large ones, and whatever THREADS says. The SIMD kernels
 * (AVX2, AVX-512) combine lanes in another bracketing, so ctest runs this program once per
 * PSCAN_CPU_ISA (scalar, avx2, avx512): each must give the plain loop's bits. numpy.cumsum is
 * this loop. (scan_by_key continues a segment across partitions from a reduced carry, so its
 * float sums are not promised in this order.) */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static test_rng rng;

/* A value whose sums round: random magnitudes over a few decades, random signs. */
static double draw(void) {
  double m = test_uniform(&rng) * 1000.0 + 1e-3;
  return test_below(&rng, 2) ? m : -m;
}

static double near_one(void) { return 1.0 + (test_uniform(&rng) - 0.5) * 1e-3; }

/* The plain loop, in the accumulation type acc_t (PSCAN_F32 or PSCAN_F64). */
static void plain_scan(pscan_dtype in_t, pscan_dtype acc_t, pscan_op op, bool exclusive,
                       const double *init, const void *in, void *out, size_t n) {
  if (acc_t == PSCAN_F32) {
    const float *x = in;
    float *y = out, acc = init ? (float)*init : op == PSCAN_SUM ? -0.0f : 1.0f;
    bool started = init != NULL;
    for (size_t i = 0; i < n; i++) {
      if (exclusive)
        y[i] = acc;
      acc = !started && !exclusive ? x[i] : op == PSCAN_SUM ? acc + x[i] : acc * x[i];
      started = true;
      if (!exclusive)
        y[i] = acc;
    }
    if (exclusive && !init && n > 0)
      y[0] = op == PSCAN_SUM ? 0.0f : 1.0f;
    return;
  }
  double *y = out, acc = init ? *init : op == PSCAN_SUM ? -0.0 : 1.0;
  bool started = init != NULL;
  for (size_t i = 0; i < n; i++) {
    double xi = in_t == PSCAN_F32 ? (double)((const float *)in)[i] : ((const double *)in)[i];
    if (exclusive)
      y[i] = acc;
    acc = !started && !exclusive ? xi : op == PSCAN_SUM ? acc + xi : acc * xi;
    started = true;
    if (!exclusive)
      y[i] = acc;
  }
  if (exclusive && !init && n > 0)
    y[0] = op == PSCAN_SUM ? 0.0 : 1.0;
}

static void fill(pscan_dtype t, pscan_op op, void *in, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double v = op == PSCAN_SUM ? draw() : near_one();
    if (t == PSCAN_F32)
      ((float *)in)[i] = (float)v;
    else
      ((double *)in)[i] = v;
  }
}

static void check_case(pscan_ctx *ctx, pscan_dtype in_t, pscan_dtype acc_t, pscan_op op,
                       bool exclusive, bool with_init, size_t n) {
  size_t isz = pscan_dtype_size(in_t), osz = pscan_dtype_size(acc_t);
  void *in = test_malloc(n * isz + 1), *out = test_malloc(n * osz + 1),
       *want = test_malloc(n * osz + 1);
  fill(in_t, op, in, n);
  double init = op == PSCAN_SUM ? draw() : near_one();
  float init32 = (float)init;
  if (acc_t == PSCAN_F32)
    init = init32;
  test_poison(out, n * osz);
  plain_scan(in_t, acc_t, op, exclusive, with_init ? &init : NULL, in, want, n);
  pscan_scan_args a = {.in = in, .in_type = in_t, .out = out, .out_type = acc_t, .n = n,
                       .op = op, .exclusive = exclusive,
                       .init = with_init ? (acc_t == PSCAN_F32 ? (const void *)&init32
                                                               : (const void *)&init)
                                         : NULL};
  CHECK_STATUS(pscan_scan(ctx, &a), PSCAN_OK);
  size_t bad = n;
  for (size_t i = 0; i < n && bad == n; i++)
    if (memcmp((char *)out + i * osz, (char *)want + i * osz, osz) != 0)
      bad = i;
  CHECK(bad == n, "%s -> %s %s %s%s n=%zu: element %zu differs from the plain loop",
        in_t == PSCAN_F32 ? "f32" : "f64", acc_t == PSCAN_F32 ? "f32" : "f64",
        op == PSCAN_SUM ? "sum" : "prod", exclusive ? "exclusive" : "inclusive",
        with_init ? " +init" : "", n, bad);
  free(in);
  free(out);
  free(want);
}

int main(void) {
  rng.state = test_init("test_sequential");
  static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1000, 4099,
                                 (1 << 16) + 5, (1 << 20) + 3};
  const char *isa = getenv("PSCAN_CPU_ISA");
  printf("PSCAN_CPU_ISA=%s\n", isa ? isa : "(unset: the best this CPU has)");
  static const int threads[] = {1, 0};
  for (int t = 0; t < 2; t++) {
    pscan_ctx *ctx = test_ctx(threads[t]);
    test_set(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_SEQUENTIAL);
    size_t nsizes = sizeof sizes / sizeof sizes[0] - (test_quick() ? 1 : 0); /* sanitizers */
    for (size_t s = 0; s < nsizes; s++)
      for (int op = 0; op < 2; op++)
        for (int mode = 0; mode < 4; mode++) {
          pscan_op o = op ? PSCAN_PROD : PSCAN_SUM;
          bool excl = mode & 1, init = mode & 2;
          check_case(ctx, PSCAN_F32, PSCAN_F32, o, excl, init, sizes[s]);
          check_case(ctx, PSCAN_F64, PSCAN_F64, o, excl, init, sizes[s]);
          check_case(ctx, PSCAN_F32, PSCAN_F64, o, excl, init, sizes[s]);
        }
    pscan_destroy(ctx);
  }
  return test_finish();
}
