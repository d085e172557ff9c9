/* Floating point beyond the exact cases of the matrix:
 *  1. random real inputs (sums of reals, products of values near 1), f32, f64 and f32 -> f64,
 *     within a rigorous error bound of a long double reference: k * eps * (sum of |terms|) for a
 *     sum of k terms, k * eps * |product| for a product (valid for any order of evaluation);
 *  2. NaN propagation through MIN and MAX, wherever the NaN is (and in init);
 *  3. signed zeros: MIN/MAX keep the later of two equal operands, a sum starts from in[0];
 *  4. determinism: with PSCAN_PARAM_DETERMINISTIC = 1, AUTO, DECOUPLED_LOOKBACK, CHAINED and
 *     REDUCE_THEN_SCAN give the same bits as one another, from run to run and for every thread
 *     count (f32, f64, f32 -> f64, a custom float operator); SCAN_THEN_PROPAGATE gives the same
 *     bits for every thread count.
 * One program in two files (what they share: test_float.h): this one holds 1 to 3 and main,
 * test_float_determinism.c holds 4. */
#include "test_float.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int thread_counts[NCTX] = {1, 2, 3, 4, 8, 16};
pscan_ctx *ctxs[NCTX];
test_rng rng;
bool quick;

const char *const mode_names[NMODES] = {"incl", "excl", "incl+init", "excl+init"};

enum { BIG = (1 << 20) - 3 };

double load(pscan_dtype t, const void *base, size_t i) {
  if (t == PSCAN_F32) {
    float f;
    memcpy(&f, (const char *)base + i * sizeof f, sizeof f);
    return f;
  }
  double d;
  memcpy(&d, (const char *)base + i * sizeof d, sizeof d);
  return d;
}

void store(pscan_dtype t, void *base, size_t i, double d) {
  if (t == PSCAN_F32) {
    float f = (float)d;
    memcpy((char *)base + i * sizeof f, &f, sizeof f);
  } else {
    memcpy((char *)base + i * sizeof d, &d, sizeof d);
  }
}

pscan_status scan(pscan_ctx *ctx, pscan_dtype in_t, pscan_dtype out_t, pscan_op op,
                  int mode, const void *in, void *out, size_t n, const void *init) {
  pscan_scan_args a = {.in = in, .in_type = in_t, .out = out, .out_type = out_t, .n = n,
                       .op = op, .exclusive = is_exclusive(mode),
                       .init = has_init(mode) ? init : NULL};
  return pscan_scan(ctx, &a);
}

void configure(pscan_ctx *ctx, int algo, int64_t partition, int deterministic) {
  test_set(ctx, PSCAN_PARAM_ALGO, algo);
  test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, partition);
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, deterministic);
}

/* ------------------------------------------------------------------------------------------
 * 1. Random reals within a rigorous bound of a long double reference
 * ---------------------------------------------------------------------------------------- */

typedef struct tolerance_case {
  pscan_dtype in_t, out_t;
  pscan_op op;
  int mode;
  size_t n;
  void *in, *out;
  unsigned char init[8];
  long double *want, *tol;
} tolerance_case;

static void draw_reals(tolerance_case *c) {
  bool positive = test_below(&rng, 2) == 0; /* values in [0.5, 1.5], or in [-1, 1] */
  for (size_t i = 0; i < c->n; i++) {
    double u = test_uniform(&rng);
    double d = c->op == PSCAN_PROD ? 1.0 + (2.0 * u - 1.0) * 1e-3 : positive ? 0.5 + u : 2.0 * u - 1.0;
    store(c->in_t, c->in, i, d);
  }
  store(c->out_t, c->init, 0, c->op == PSCAN_PROD ? 1.0 + test_uniform(&rng) * 1e-3 : test_uniform(&rng));
}

/* want[i] and tol[i]: the exact result (to long double precision) and the bound on the error of
   any evaluation order: a sum of k terms is off by at most ~(k-1)u * sum|terms| (u = eps/2), a
   product of k factors by ~(k-1)u * |product|; k * eps covers both with room to spare. */
static void reference(tolerance_case *c) {
  long double eps = c->out_t == PSCAN_F32 ? FLT_EPSILON : DBL_EPSILON;
  bool prod = c->op == PSCAN_PROD;
  long double acc = prod ? 1.0L : 0.0L, mag = prod ? 1.0L : 0.0L;
  size_t k = 0; /* terms so far */
  if (has_init(c->mode)) {
    long double x = load(c->out_t, c->init, 0);
    acc = x;
    mag = fabsl(x);
    k = 1;
  }
  for (size_t i = 0; i < c->n; i++) {
    long double x = load(c->in_t, c->in, i);
    if (is_exclusive(c->mode)) {
      c->want[i] = acc;
      c->tol[i] = (long double)k * eps * (prod ? fabsl(acc) : mag);
    }
    acc = prod ? acc * x : acc + x;
    mag = prod ? fabsl(acc) : mag + fabsl(x);
    k++;
    if (!is_exclusive(c->mode)) {
      c->want[i] = acc;
      c->tol[i] = (long double)k * eps * mag;
    }
  }
}

static void check_tolerance(tolerance_case *c, int algo, int t, int64_t part) {
  store(c->out_t, c->out, c->n, 12345.0); /* a sentinel past the end */
  pscan_status s = scan(ctxs[t], c->in_t, c->out_t, c->op, c->mode, c->in, c->out, c->n, c->init);
  char what[128];
  snprintf(what, sizeof what, "%s->%s %s %s n=%zu algo=%s threads=%d partition=%lld",
           ref_dtype_name(c->in_t), ref_dtype_name(c->out_t), ref_op_name(c->op),
           mode_names[c->mode], c->n, ref_algo_name(algo), thread_counts[t], (long long)part);
  if (!CHECK(s == PSCAN_OK, "%s: %s", what, pscan_status_name(s)))
    return;
  size_t bad = c->n;
  for (size_t i = 0; i < c->n && bad == c->n; i++)
    if (!(fabsl((long double)load(c->out_t, c->out, i) - c->want[i]) <= c->tol[i]))
      bad = i;
  if (bad < c->n)
    CHECK(false, "%s: out[%zu] = %.17g, reference %.17Lg, tolerance %.3Lg", what, bad,
          load(c->out_t, c->out, bad), c->want[bad], c->tol[bad]);
  else
    CHECK(true, "tolerance");
  CHECK(load(c->out_t, c->out, c->n) == 12345.0, "%s: wrote past out[n-1]", what);
}

static void test_tolerance(void) {
  static const pscan_dtype pairs[3][2] = {
      {PSCAN_F32, PSCAN_F32}, {PSCAN_F64, PSCAN_F64}, {PSCAN_F32, PSCAN_F64}};
  static const int tol_threads[] = {0, 2, 4}; /* indices into ctxs: 1, 3 and 8 threads */
  size_t sizes[] = {1, 2, 1000, 65537, BIG};
  size_t nsizes = quick ? 4 : 5;
  tolerance_case c = {.in = test_malloc((BIG + 1) * 8), .out = test_malloc((BIG + 1) * 8),
                      .want = test_malloc(BIG * sizeof(long double)),
                      .tol = test_malloc(BIG * sizeof(long double))};
  unsigned long runs = 0;
  for (int p = 0; p < 3; p++)
    for (int op = PSCAN_SUM; op <= PSCAN_PROD; op++)
      for (int mode = 0; mode < NMODES; mode++)
        for (size_t si = 0; si < nsizes; si++) {
          c.in_t = pairs[p][0], c.out_t = pairs[p][1], c.op = (pscan_op)op, c.mode = mode;
          c.n = sizes[si];
          draw_reals(&c);
          reference(&c);
          for (int64_t part = 0; part <= 1000; part += 1000)
            for (int algo = 0; algo < REF_NALGOS; algo++)
              for (int t = 0; t < 3; t++) {
                /* The largest size: one thread count per algorithm, rotating. */
                if (c.n == BIG && t != (int)((runs / 3 + (size_t)algo) % 3)) {
                  runs++;
                  continue;
                }
                runs++;
                configure(ctxs[tol_threads[t]], algo, part, 0);
                check_tolerance(&c, algo, tol_threads[t], part);
              }
        }
  free(c.in), free(c.out), free(c.want), free(c.tol);
}

/* ------------------------------------------------------------------------------------------
 * 2. NaN propagation through MIN and MAX
 * ---------------------------------------------------------------------------------------- */

/* Checks one scan against the oracle and against the rule itself: out[i] is NaN exactly when a
   NaN (init included) is among its operands. */
static void check_nan_scan(pscan_dtype in_t, pscan_dtype out_t, pscan_op op, int mode,
                           const void *in, size_t n, const void *init, size_t first_nan,
                           bool init_nan, void *out, void *want) {
  ref_scan(in, in_t, want, out_t, n, op, is_exclusive(mode), has_init(mode) ? init : NULL);
  static const int64_t parts[] = {7, 64, 0};
  for (int pi = 0; pi < 3; pi++)
    for (int algo = 0; algo < REF_NALGOS; algo++)
      for (int t = 0; t < NCTX; t++) {
        if (thread_counts[t] == 4 || thread_counts[t] == 16 || (quick && thread_counts[t] == 2))
          continue;
        configure(ctxs[t], algo, parts[pi], 0);
        pscan_status s = scan(ctxs[t], in_t, out_t, op, mode, in, out, n, init);
        char what[128];
        snprintf(what, sizeof what, "%s->%s %s %s n=%zu first NaN %zu%s algo=%s threads=%d "
                 "partition=%lld", ref_dtype_name(in_t), ref_dtype_name(out_t), ref_op_name(op),
                 mode_names[mode], n, first_nan, init_nan ? " (init NaN)" : "",
                 ref_algo_name(algo), thread_counts[t], (long long)parts[pi]);
        if (!CHECK(s == PSCAN_OK, "%s: %s", what, pscan_status_name(s)))
          continue;
        size_t bad_nan = n;
        for (size_t i = 0; i < n && bad_nan == n; i++) {
          bool before = is_exclusive(mode) ? i > first_nan : i >= first_nan; /* first_nan may be n */
          if ((bool)isnan(load(out_t, out, i)) != ((has_init(mode) && init_nan) || before))
            bad_nan = i;
        }
        CHECK(bad_nan == n, "%s: out[%zu] = %g breaks NaN propagation", what, bad_nan,
              bad_nan < n ? load(out_t, out, bad_nan) : 0.0);
        size_t bad = ref_first_difference(out_t, out, want, n);
        CHECK(bad == n, "%s: out[%zu] = %g, expected %g", what, bad,
              bad < n ? load(out_t, out, bad) : 0.0, bad < n ? load(out_t, want, bad) : 0.0);
      }
}

static void test_nan(void) {
  static const pscan_dtype pairs[3][2] = {
      {PSCAN_F32, PSCAN_F32}, {PSCAN_F64, PSCAN_F64}, {PSCAN_F32, PSCAN_F64}};
  size_t sizes[] = {1, 2, 100, 5000};
  double *in = test_malloc(5000 * sizeof(double)), *out = test_malloc(5000 * sizeof(double));
  double *want = test_malloc(5000 * sizeof(double));
  for (int p = 0; p < 3; p++)
    for (int op = PSCAN_MIN; op <= PSCAN_MAX; op++)
      for (size_t si = 0; si < 4; si++) {
        size_t n = sizes[si];
        /* Where the NaNs go: first, last, middle, at a partition edge (63, 64), two of them,
           none (with a NaN init), none at all. */
        size_t spots[][2] = {{0, n}, {n - 1, n}, {n / 2, n}, {63, n}, {64, n},
                             {n / 3, 2 * n / 3}, {n, n}, {n, n}};
        for (size_t k = 0; k < sizeof spots / sizeof *spots; k++) {
          if (spots[k][0] > n || (spots[k][0] == n && k + 1 < sizeof spots / sizeof *spots - 1))
            continue;
          if (quick && k % 2)
            continue;
          bool init_nan = k == sizeof spots / sizeof *spots - 2;
          for (size_t i = 0; i < n; i++)
            store(pairs[p][0], in, i, (double)test_below(&rng, 1000) - 500.0);
          for (int j = 0; j < 2; j++)
            if (spots[k][j] < n)
              store(pairs[p][0], in, spots[k][j], NAN);
          unsigned char init[8];
          store(pairs[p][1], init, 0, init_nan ? NAN : (double)test_below(&rng, 1000) - 500.0);
          for (int mode = 0; mode < NMODES; mode++)
            check_nan_scan(pairs[p][0], pairs[p][1], (pscan_op)op, mode, in, n, init,
                           spots[k][0], init_nan, out, want);
        }
      }
  /* Two hand-written cases, read straight from the rule. */
  pscan_ctx *ctx = ctxs[0];
  configure(ctx, PSCAN_ALGO_AUTO, 0, 0);
  double x[3] = {1.0, NAN, 0.0}, y[3];
  CHECK_STATUS(pscan_inclusive_scan(ctx, x, y, 3, PSCAN_F64, PSCAN_MIN), PSCAN_OK);
  CHECK(y[0] == 1.0 && isnan(y[1]) && isnan(y[2]), "min {1, nan, 0} = {%g, %g, %g}", y[0], y[1],
        y[2]);
  float xf[3] = {3.0f, NAN, 9.0f}, yf[3];
  CHECK_STATUS(pscan_exclusive_scan(ctx, xf, yf, 3, PSCAN_F32, PSCAN_MAX, NULL), PSCAN_OK);
  CHECK(yf[0] == -INFINITY && yf[1] == 3.0f && isnan(yf[2]),
        "exclusive max {3, nan, 9} = {%g, %g, %g}", yf[0], yf[1], yf[2]);
  free(in), free(out), free(want);
}

/* ------------------------------------------------------------------------------------------
 * 3. Signed zeros
 * ---------------------------------------------------------------------------------------- */

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A scan of three doubles on every algorithm; out must equal want bit for bit. */
static void check_zeros3(pscan_op op, int mode, const double in[3], double init,
                         const double want[3]) {
  for (int algo = 0; algo < REF_NALGOS; algo++) {
    double out[3];
    configure(ctxs[2], algo, 1, 0); /* partitions of one element: every combination is a carry */
    CHECK_STATUS(scan(ctxs[2], PSCAN_F64, PSCAN_F64, op, mode, in, out, 3, &init), PSCAN_OK);
    bool ok = true;
    for (int i = 0; i < 3; i++)
      ok = ok && same_bits(out[i], want[i]);
    CHECK(ok, "%s %s of {%g, %g, %g} (algo %s) = {%g, %g, %g}, expected {%g, %g, %g}",
          ref_op_name(op), mode_names[mode], in[0], in[1], in[2], ref_algo_name(algo), out[0],
          out[1], out[2], want[0], want[1], want[2]);
  }
}

static void test_signed_zeros(void) {
  const double p = 0.0, m = -0.0, inf = INFINITY;
  /* MIN and MAX return the later of two equal operands. */
  check_zeros3(PSCAN_MIN, MODE_INCL, (double[]){m, p, m}, 0, (double[]){m, p, m});
  check_zeros3(PSCAN_MAX, MODE_INCL, (double[]){p, m, p}, 0, (double[]){p, m, p});
  check_zeros3(PSCAN_MIN, MODE_INCL, (double[]){m, 1, p}, 0, (double[]){m, m, p});
  check_zeros3(PSCAN_MAX, MODE_INCL, (double[]){p, -1, m}, 0, (double[]){p, p, m});
  check_zeros3(PSCAN_MIN, MODE_EXCL, (double[]){m, p, 5}, 0, (double[]){inf, m, p});
  check_zeros3(PSCAN_MAX, MODE_INCL_INIT, (double[]){p, 1, m}, m, (double[]){p, 1, 1});
  check_zeros3(PSCAN_MIN, MODE_EXCL_INIT, (double[]){p, m, m}, m, (double[]){m, p, m});
  /* A sum starts from in[0] itself: the sum of -0.0s is -0.0; the exclusive identity is +0.0. */
  check_zeros3(PSCAN_SUM, MODE_INCL, (double[]){m, m, m}, 0, (double[]){m, m, m});
  check_zeros3(PSCAN_SUM, MODE_EXCL, (double[]){m, m, m}, 0, (double[]){p, m, m});
  check_zeros3(PSCAN_SUM, MODE_INCL_INIT, (double[]){m, m, m}, m, (double[]){m, m, m});
  check_zeros3(PSCAN_SUM, MODE_INCL_INIT, (double[]){m, m, m}, p, (double[]){p, p, p});
  check_zeros3(PSCAN_SUM, MODE_EXCL_INIT, (double[]){m, m, m}, m, (double[]){m, m, m});
  check_zeros3(PSCAN_SUM, MODE_INCL, (double[]){m, p, m}, 0, (double[]){m, p, p});

  /* Long runs of zeros of random signs, across partitions and threads: an inclusive MIN or MAX
     of equal values is each element itself (the later operand wins), in f32 and f32 -> f64. */
  enum { N = 3000 };
  float *in = test_malloc(N * sizeof(float));
  double *out = test_malloc(N * sizeof(double));
  for (size_t i = 0; i < N; i++)
    in[i] = test_below(&rng, 2) ? 0.0f : -0.0f;
  for (int op = PSCAN_MIN; op <= PSCAN_MAX; op++)
    for (int wide = 0; wide < 2; wide++)
      for (int algo = 0; algo < REF_NALGOS; algo++)
        for (int t = 1; t < NCTX; t += 2) {
          pscan_dtype out_t = wide ? PSCAN_F64 : PSCAN_F32;
          configure(ctxs[t], algo, 64, 0);
          CHECK_STATUS(scan(ctxs[t], PSCAN_F32, out_t, (pscan_op)op, MODE_INCL, in, out, N, NULL),
                       PSCAN_OK);
          size_t bad = N;
          for (size_t i = 0; i < N && bad == N; i++)
            if (!signbit(load(out_t, out, i)) != !signbit(in[i]) || load(out_t, out, i) != 0.0)
              bad = i;
          CHECK(bad == N, "%s of signed zeros f32->%s algo %s threads %d: out[%zu] has the wrong sign",
                ref_op_name((pscan_op)op), ref_dtype_name(out_t), ref_algo_name(algo),
                thread_counts[t], bad);
        }
  /* The sum of all -0.0 stays -0.0 across partitions; the exclusive one starts at +0.0. */
  for (size_t i = 0; i < N; i++)
    in[i] = -0.0f;
  for (int mode = MODE_INCL; mode <= MODE_EXCL; mode++)
    for (int algo = 0; algo < REF_NALGOS; algo++) {
      configure(ctxs[4], algo, 64, 0);
      CHECK_STATUS(scan(ctxs[4], PSCAN_F32, PSCAN_F32, PSCAN_SUM, mode, in, out, N, NULL),
                   PSCAN_OK);
      size_t bad = N;
      for (size_t i = 0; i < N && bad == N; i++) {
        float f = load(PSCAN_F32, out, i);
        bool neg = !(mode == MODE_EXCL && i == 0);
        if (f != 0.0f || (bool)signbit(f) != neg)
          bad = i;
      }
      CHECK(bad == N, "%s sum of -0.0s algo %s: out[%zu] wrong", mode_names[mode],
            ref_algo_name(algo), bad);
    }
  free(in), free(out);
}

int main(void) {
  uint64_t seed = test_init("test_float");
  rng.state = seed;
  quick = test_quick();
  for (int t = 0; t < NCTX; t++)
    ctxs[t] = test_ctx(thread_counts[t]);

  double t0 = test_seconds();
  test_tolerance();
  double t1 = test_seconds();
  test_nan();
  test_signed_zeros();
  double t2 = test_seconds();
  test_determinism();
  printf("float: tolerance %.1f s, NaN and zeros %.1f s, determinism %.1f s\n", t1 - t0, t2 - t1,
         test_seconds() - t2);

  for (int t = 0; t < NCTX; t++)
    pscan_destroy(ctxs[t]);
  return test_finish();
}
