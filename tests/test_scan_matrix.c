/* The differential matrix: every algorithm x (in, out) type pair x operator x kind of scan
 * (inclusive, exclusive, exclusive with init, inclusive with init) x in-place x thread count x a
 * range of sizes, each result compared element by element with the sequential oracle.
 *
 * Most cases run with a small PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE (64, 1000) so that
 * partition boundaries and many partitions come cheaply; some run at the default partition size. Inputs are drawn so
 * that every algorithm must give exactly the oracle's bits: integers wrap (exact in any order);
 * float sums and products stay small integers and powers of two (exact in any order); float
 * MIN/MAX are exact anyway (NaN, +-0.0 and infinities included).
 *
 * Cost: each (pair, op, kind, size) generates its input and oracle once, then runs every
 * algorithm and thread count on it. PSCAN_TEST_QUICK=1 keeps every algorithm, pair and op but
 * fewer sizes and one rotating thread count per run. */
#include "reference.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_INCL, MODE_EXCL, MODE_EXCL_INIT, MODE_INCL_INIT, NMODES };
static const char *const mode_names[NMODES] = {"incl", "excl", "excl+init", "incl+init"};

#define NTHREADS 4
static const int thread_counts[NTHREADS] = {1, 2, 3, 8};

enum { MAX_N = (1 << 17) + 2 }; /* the largest size of any case */

typedef struct scan_case {
  pscan_dtype in_type, out_type;
  pscan_op op;
  int mode;
  size_t n;
  int64_t partition; /* PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE; 0 is the default */
} scan_case;

typedef struct matrix {
  pscan_ctx *ctx[NTHREADS];
  test_rng rng;
  bool quick;
  unsigned long scans;  /* library calls made */
  unsigned long rotate; /* picks the thread count in quick mode */
  unsigned char *in, *in_copy, *out, *want; /* MAX_N + 1 elements of up to 8 bytes */
  unsigned char init[8];
} matrix;

/* ---- inputs ---- */

/* Stores the low bits of x as an element of the integer type t. */
static void store_bits(pscan_dtype t, uint64_t x, void *dst) {
  uint8_t b8 = (uint8_t)x;
  uint16_t b16 = (uint16_t)x;
  uint32_t b32 = (uint32_t)x;
  switch (ref_dtype_size(t)) {
  case 1: memcpy(dst, &b8, 1); break;
  case 2: memcpy(dst, &b16, 2); break;
  case 4: memcpy(dst, &b32, 4); break;
  default: memcpy(dst, &x, 8); break;
  }
}

static void store_float(pscan_dtype t, double d, void *dst) {
  if (t == PSCAN_F32) {
    float f = (float)d;
    memcpy(dst, &f, sizeof f);
  } else {
    memcpy(dst, &d, sizeof d);
  }
}

/* An integer drawn for op: bits that keep the scan from collapsing at once. small: values in
   [-64, 64), so that MIN/MAX see many ties and changes. */
static uint64_t draw_int(test_rng *r, pscan_op op, bool small) {
  uint64_t x = small ? test_below(r, 128) - 64 : test_rand(r);
  switch (op) {
  case PSCAN_PROD: /* mostly odd: a wrapping product of odd numbers never becomes 0 */
    return test_below(r, 8) ? x | 1 : x;
  case PSCAN_AND: /* each bit clear with probability 1/64 */
    return ~(test_rand(r) & test_rand(r) & test_rand(r) & test_rand(r) & test_rand(r) &
             test_rand(r));
  case PSCAN_OR: /* each bit set with probability 1/64 */
    return test_rand(r) & test_rand(r) & test_rand(r) & test_rand(r) & test_rand(r) &
           test_rand(r);
  default: return x;
  }
}

/* A float for MIN/MAX: small integers, signed zeros, infinities and reals of any magnitude. */
static double draw_minmax(test_rng *r) {
  uint64_t k = test_below(r, 100);
  if (k < 40)
    return (double)test_below(r, 101) - 50.0;
  if (k < 50)
    return k & 1 ? -0.0 : 0.0;
  if (k < 52)
    return k & 1 ? -INFINITY : INFINITY;
  return (test_uniform(r) * 2.0 - 1.0) * ldexp(1.0, (int)test_below(r, 61) - 30);
}

/* Float inputs whose scans are exact in any combination order:
   SUM: integers in [-16, 16] (and -0.0): every partial sum is an integer below 2^24.
   PROD: +-1, and at most 24 factors of 2 or 1/2 (and rarely a signed zero): every partial
   product is +-2^k with |k| <= 24, or a zero whose sign does not depend on the order.
   MIN/MAX: anything, and in a quarter of the cases one or two NaNs. */
static void fill_float(test_rng *r, pscan_dtype t, pscan_op op, unsigned char *in, size_t n) {
  size_t size = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    double d;
    if (op == PSCAN_SUM)
      d = test_below(r, 64) == 0 ? -0.0 : (double)test_below(r, 33) - 16.0;
    else if (op == PSCAN_PROD)
      d = test_below(r, 8192) == 0 ? (test_below(r, 2) ? 0.0 : -0.0)
                                   : (test_below(r, 2) ? 1.0 : -1.0);
    else
      d = draw_minmax(r);
    store_float(t, d, in + i * size);
  }
  if (op == PSCAN_PROD && n > 0)
    for (int k = 0; k < 24; k++)
      store_float(t, test_below(r, 2) ? 2.0 : 0.5, in + test_below(r, n) * size);
  if ((op == PSCAN_MIN || op == PSCAN_MAX) && n > 0 && test_below(r, 4) == 0)
    for (int k = (int)test_below(r, 2); k < 2; k++)
      store_float(t, NAN, in + test_below(r, n) * size);
}

static void fill_input(matrix *m, const scan_case *c) {
  test_rng *r = &m->rng;
  if (ref_is_float(c->in_type)) {
    fill_float(r, c->in_type, c->op, m->in, c->n);
  } else {
    bool small = test_below(r, 2) == 0;
    size_t size = ref_dtype_size(c->in_type);
    for (size_t i = 0; i < c->n; i++)
      store_bits(c->in_type, draw_int(r, c->op, small), m->in + i * size);
  }
  /* The init value, in the output type. */
  if (!ref_is_float(c->out_type)) {
    store_bits(c->out_type, draw_int(r, c->op, test_below(r, 2) == 0), m->init);
  } else {
    double d;
    switch (c->op) {
    case PSCAN_SUM: d = (double)test_below(r, 33) - 16.0; break;
    case PSCAN_PROD: d = test_below(r, 3) == 0 ? 2.0 : test_below(r, 2) ? 1.0 : -1.0; break;
    default: d = test_below(r, 16) == 0 ? NAN : draw_minmax(r); break;
    }
    store_float(c->out_type, d, m->init);
  }
  memcpy(m->in_copy, m->in, c->n * ref_dtype_size(c->in_type));
}

/* ---- one library call ---- */

static const void *case_init(const matrix *m, const scan_case *c) {
  return c->mode == MODE_EXCL_INIT || c->mode == MODE_INCL_INIT ? m->init : NULL;
}

/* Same-type scans without an inclusive init go through the short entry points half of the time
   (both forms are public); the rest can only be expressed with pscan_scan. (scans / 2: the calls
   come in pairs, out-of-place then in-place, and each of the two should see both forms.) */
static pscan_status call_scan(matrix *m, pscan_ctx *ctx, const scan_case *c, const void *in,
                              void *out) {
  bool exclusive = c->mode == MODE_EXCL || c->mode == MODE_EXCL_INIT;
  const void *init = case_init(m, c);
  m->scans++;
  if (c->in_type == c->out_type && c->mode != MODE_INCL_INIT && m->scans / 2 % 2) {
    if (exclusive)
      return pscan_exclusive_scan(ctx, in, out, c->n, c->in_type, c->op, init);
    return pscan_inclusive_scan(ctx, in, out, c->n, c->in_type, c->op);
  }
  pscan_scan_args a = {.in = in, .in_type = c->in_type, .out = out, .out_type = c->out_type,
                       .n = c->n, .op = c->op, .exclusive = exclusive, .init = init};
  return pscan_scan(ctx, &a);
}

static void describe(const scan_case *c, int algo, int threads, bool in_place, char *buf,
                     size_t len) {
  snprintf(buf, len, "%s->%s %s %s n=%zu algo=%s threads=%d partition=%lld%s",
           ref_dtype_name(c->in_type), ref_dtype_name(c->out_type), ref_op_name(c->op),
           mode_names[c->mode], c->n, ref_algo_name(algo), threads, (long long)c->partition,
           in_place ? " in-place" : "");
}

/* Runs one (algorithm, thread count, in-place) combination and checks everything it wrote. */
static void run_one(matrix *m, const scan_case *c, int algo, int t, bool in_place) {
  pscan_ctx *ctx = m->ctx[t];
  size_t in_size = ref_dtype_size(c->in_type), out_size = ref_dtype_size(c->out_type);
  test_set(ctx, PSCAN_PARAM_ALGO, algo);
  test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, c->partition);
  /* out[n] stays poisoned unless the call overruns. */
  test_poison(m->out, (c->n + 1) * out_size);
  if (in_place)
    memcpy(m->out, m->in, c->n * in_size);
  pscan_status s = call_scan(m, ctx, c, in_place ? m->out : m->in, m->out);

  char what[160];
  describe(c, algo, thread_counts[t], in_place, what, sizeof what);
  if (!CHECK(s == PSCAN_OK, "%s: %s: %s", what, pscan_status_name(s), pscan_last_error(ctx)))
    return;
  size_t bad = ref_first_difference(c->out_type, m->out, m->want, c->n);
  if (bad < c->n) {
    char got[64], want[64];
    ref_format(c->out_type, m->out + bad * out_size, got, sizeof got);
    ref_format(c->out_type, m->want + bad * out_size, want, sizeof want);
    CHECK(false, "%s: out[%zu] = %s, expected %s", what, bad, got, want);
  } else {
    CHECK(true, "result");
  }
  CHECK(test_is_poisoned(m->out + c->n * out_size, out_size), "%s: wrote past out[n-1]", what);
  if (!in_place)
    CHECK(memcmp(m->in, m->in_copy, c->n * in_size) == 0, "%s: modified its input", what);
}

/* One (pair, op, kind, size, partition): a fresh input and its oracle, then every algorithm,
   thread count and (same type only) in-place. */
static void run_case(matrix *m, const scan_case *c) {
  fill_input(m, c);
  ref_scan(m->in, c->in_type, m->want, c->out_type, c->n, c->op,
           c->mode == MODE_EXCL || c->mode == MODE_EXCL_INIT, case_init(m, c));
  for (int algo = 0; algo < REF_NALGOS; algo++) {
    for (int t = 0; t < NTHREADS; t++) {
      if (m->quick && t != (int)(m->rotate % NTHREADS))
        continue;
      run_one(m, c, algo, t, false);
      if (c->in_type == c->out_type)
        run_one(m, c, algo, t, true);
    }
    m->rotate++;
  }
}

/* ---- the sizes ---- */

/* 2^k +- 1 for a random k in [lo, hi]. */
static size_t pow2_pm1(test_rng *r, int lo, int hi) {
  size_t p = (size_t)1 << (lo + (int)test_below(r, (uint64_t)(hi - lo + 1)));
  return test_below(r, 2) ? p + 1 : p - 1;
}

static void run_sizes(matrix *m, scan_case c, const size_t *sizes, size_t count) {
  for (size_t i = 0; i < count; i++) {
    c.n = sizes[i];
    run_case(m, &c);
  }
}

/* The sizes of one (pair, op, kind): the edges of one and of a few partitions of 64 and of 1000,
   2^k +- 1, and random sizes from the seed. */
static void run_all_sizes(matrix *m, scan_case c) {
  test_rng *r = &m->rng;
  if (m->quick) {
    size_t s64[] = {0, 1, 2, 33, 63, 64, 65, 129, pow2_pm1(r, 8, 12)};
    size_t s1000[] = {1001, pow2_pm1(r, 10, 13), 1 + test_below(r, 5000)};
    c.partition = 64;
    run_sizes(m, c, s64, sizeof s64 / sizeof *s64);
    c.partition = 1000;
    run_sizes(m, c, s1000, sizeof s1000 / sizeof *s1000);
    return;
  }
  size_t s64[] = {0,   1,   2,   31,  32,  33,  63,  64, 65, 127,
                  128, 129, 321, pow2_pm1(r, 8, 17), 1 + test_below(r, 4096)};
  size_t s1000[] = {999, 1000, 1001, 2001, 3000, pow2_pm1(r, 10, 17), 1 + test_below(r, 30000)};
  c.partition = 64;
  run_sizes(m, c, s64, sizeof s64 / sizeof *s64);
  c.partition = 1000;
  run_sizes(m, c, s1000, sizeof s1000 / sizeof *s1000);
}

/* The default partition size (0) for one kind of scan per (pair, op), the kind rotating. The
   sizes are the edges of the current default (64 KiB of input); were it to change, they would
   still be valid cases, and 2^17 + 1 has several partitions for every type. */
static void run_default_partition(matrix *m, scan_case c) {
  size_t guess = (size_t)(64 << 10) / ref_dtype_size(c.in_type);
  c.partition = 0;
  if (m->quick) {
    size_t s[] = {(size_t)1 << 17 | 1};
    run_sizes(m, c, s, 1);
    return;
  }
  size_t s[] = {guess - 1, guess + 1, 2 * guess + 1, (size_t)1 << 17 | 1};
  run_sizes(m, c, s, sizeof s / sizeof *s);
}

int main(void) {
  uint64_t seed = test_init("test_scan_matrix");
  matrix m = {.rng = {seed}, .quick = test_quick()};
  for (int t = 0; t < NTHREADS; t++)
    m.ctx[t] = test_ctx(thread_counts[t]);
  m.in = test_malloc((MAX_N + 1) * 8);
  m.in_copy = test_malloc((MAX_N + 1) * 8);
  m.out = test_malloc((MAX_N + 1) * 8);
  m.want = test_malloc((MAX_N + 1) * 8);

  double t0 = test_seconds();
  unsigned pairs = 0, pair_ops = 0;
  for (int in = 0; in < REF_NTYPES; in++) {
    for (int out = 0; out < REF_NTYPES; out++) {
      if (!ref_pair_valid((pscan_dtype)in, (pscan_dtype)out))
        continue;
      pairs++;
      for (int op = 0; op < REF_NOPS; op++) {
        if (!ref_op_valid((pscan_dtype)in, (pscan_op)op))
          continue;
        pair_ops++;
        scan_case c = {(pscan_dtype)in, (pscan_dtype)out, (pscan_op)op, 0, 0, 0};
        for (c.mode = 0; c.mode < NMODES; c.mode++)
          run_all_sizes(&m, c);
        c.mode = (int)(pair_ops % NMODES);
        run_default_partition(&m, c);
      }
    }
  }
  printf("scan matrix: %lu scans: %u type pairs, %u (pair, op), %d kinds, %d algorithms, threads "
         "%s, in %.1f s\n",
         m.scans, pairs, pair_ops, NMODES, REF_NALGOS,
         m.quick ? "{1,2,3,8} rotating" : "{1,2,3,8}", test_seconds() - t0);
  CHECK(pairs == 23 && pair_ops == 152, "expected 23 type pairs and 152 (pair, op), got %u, %u",
        pairs, pair_ops);

  for (int t = 0; t < NTHREADS; t++)
    pscan_destroy(m.ctx[t]);
  free(m.in);
  free(m.in_copy);
  free(m.out);
  free(m.want);
  return test_finish();
}
