/* The scan differential suite, one program for every backend: `test_scan --backend cpu|cuda`
 * (or PSCAN_TEST_BACKEND; backend.h). Every result is compared element by element with the
 * sequential oracle (reference.c); every output is poisoned before the call and one element past
 * the end must stay poisoned; an out-of-place call must leave its input as it was.
 *
 * The engine (inputs, the oracle, one library call and its checks) and the sections are shared;
 * a backend's profile says which sizes and settings each section runs:
 * - type matrix: every (in, out) type pair x operator x kind of scan (inclusive, exclusive,
 *   exclusive with init, inclusive with init) x in-place, at sizes around the backend's work
 *   units. CPU: partitions of 64 and 1000 elements (PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE),
 *   every algorithm at 1, 2, 3 and 8 threads. CUDA: tile and wave edges, the default strategy.
 * - strategy matrix: CPU: every (pair, op) at the default partition size, every algorithm and
 *   thread count. CUDA: every global strategy x every tile strategy on five type pairs.
 * - determinism: float sums of random reals, bitwise identical from run to run with
 *   PSCAN_PARAM_DETERMINISTIC = 1, for every strategy that has a deterministic mode.
 * - stress: far more partitions or tiles than run at once, for the single-pass strategies.
 * - n > 2^32 (PSCAN_TEST_BIG=1 only: about 13 GB of host memory, 17 GB on the CPU backend, and
 *   on CUDA 4.3 GB of device memory): 64-bit sizes and tile ids, in place.
 * - the backend's own: CUDA refuses host buffers, the sequential algorithm and custom operators;
 *   a CUDA stream destroyed after a call on it is never touched again.
 *
 * Inputs are drawn so that every algorithm must give exactly the oracle's bits: integers wrap
 * (exact in any order); float sums and products stay small integers and powers of two (exact in
 * any order); float MIN/MAX are exact anyway (NaN, +-0.0 and infinities included).
 *
 * PSCAN_TEST_QUICK=1 keeps every algorithm, pair and op but fewer sizes (and on the CPU one
 * rotating thread count per case); PSCAN_TEST_SANITIZE=1 is the smallest run that still reaches
 * every kernel (for compute-sanitizer). Without the backend (a build without it, no GPU) the
 * program prints SKIP and exits 77, which ctest reports as skipped. */
#include "backend.h"
#include "reference.h"
#include "test.h"

#ifdef TEST_HAVE_CUDA
#include "cuda_ok.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_INCL, MODE_EXCL, MODE_EXCL_INIT, MODE_INCL_INIT, NMODES };
static const char *const mode_names[NMODES] = {"incl", "excl", "excl+init", "incl+init"};

enum { MAX_CTX = 4 };

typedef struct scan_case {
  pscan_dtype in_type, out_type;
  pscan_op op;
  int mode;
  size_t n;
} scan_case;

/* How one call runs: the context (its thread count on the CPU) and the parameters. */
typedef struct setting {
  int ctx;
  int algo;
  int64_t partition; /* CPU: PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE; 0 is the default */
  int block_algo;    /* CUDA: PSCAN_PARAM_BLOCK_ALGO */
  int deterministic;
} setting;

typedef struct suite suite;

/* What a backend runs in each section (see the top of the file). */
typedef struct profile {
  const char *backend;
  int nctx;
  const int *threads;                     /* the contexts' thread counts (CPU) */
  void (*type_sizes)(suite *, scan_case); /* the sizes and settings of one (pair, op, kind) */
  void (*strategy_matrix)(suite *);
  size_t determinism_n[3], stress_n[3]; /* sanitize, quick, full */
  void (*own)(suite *);                 /* the backend's own checks; may be NULL */
} profile;

struct suite {
  const test_backend *b;
  const profile *p;
  pscan_ctx *ctx[MAX_CTX];
  test_rng rng;
  bool quick, light;
  unsigned long scans;  /* library calls checked */
  unsigned long rotate; /* picks the thread count in quick mode */
  unsigned pairs, pair_ops;
  /* Host: the input, the oracle's result, what came back (output, input). */
  unsigned char *in, *want, *got, *back;
  size_t in_cap, want_cap, got_cap, back_cap;
  /* The library's buffers (backend memory): its input (out-of-place calls) and output. */
  void *lib_in, *lib_out;
  size_t lib_in_cap, lib_out_cap;
  unsigned char init[8];
};

/* ---- buffers ---- */

static void grow_host(unsigned char **p, size_t *cap, size_t bytes) {
  if (bytes <= *cap && *p)
    return;
  free(*p);
  *p = test_malloc(bytes);
  *cap = bytes;
}

static void grow_lib(suite *s, void **p, size_t *cap, size_t bytes) {
  if (bytes <= *cap && *p)
    return;
  test_backend_free(s->b, *p);
  *p = test_backend_alloc(s->b, bytes);
  *cap = bytes;
}

static void free_buffers(suite *s) {
  free(s->in), free(s->want), free(s->got), free(s->back);
  s->in = s->want = s->got = s->back = NULL;
  s->in_cap = s->want_cap = s->got_cap = s->back_cap = 0;
  test_backend_free(s->b, s->lib_in);
  test_backend_free(s->b, s->lib_out);
  s->lib_in = s->lib_out = NULL;
  s->lib_in_cap = s->lib_out_cap = 0;
}

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

static void fill_input(suite *s, const scan_case *c) {
  test_rng *r = &s->rng;
  if (ref_is_float(c->in_type)) {
    fill_float(r, c->in_type, c->op, s->in, c->n);
  } else {
    bool small = test_below(r, 2) == 0;
    size_t size = ref_dtype_size(c->in_type);
    for (size_t i = 0; i < c->n; i++)
      store_bits(c->in_type, draw_int(r, c->op, small), s->in + i * size);
  }
  /* The init value, in the output type. */
  if (!ref_is_float(c->out_type)) {
    store_bits(c->out_type, draw_int(r, c->op, test_below(r, 2) == 0), s->init);
  } else {
    double d;
    switch (c->op) {
    case PSCAN_SUM: d = (double)test_below(r, 33) - 16.0; break;
    case PSCAN_PROD: d = test_below(r, 3) == 0 ? 2.0 : test_below(r, 2) ? 1.0 : -1.0; break;
    default: d = test_below(r, 16) == 0 ? NAN : draw_minmax(r); break;
    }
    store_float(c->out_type, d, s->init);
  }
}

static const void *case_init(const suite *s, const scan_case *c) {
  return c->mode == MODE_EXCL_INIT || c->mode == MODE_INCL_INIT ? s->init : NULL;
}

/* A fresh input for c, its oracle, and the library's copy of it (out-of-place calls). */
static void prepare(suite *s, const scan_case *c) {
  size_t in_bytes = c->n * ref_dtype_size(c->in_type);
  size_t out_bytes = (c->n + 1) * ref_dtype_size(c->out_type);
  grow_host(&s->in, &s->in_cap, in_bytes + 1);
  grow_host(&s->want, &s->want_cap, out_bytes);
  grow_host(&s->got, &s->got_cap, out_bytes);
  grow_lib(s, &s->lib_out, &s->lib_out_cap, out_bytes);
  fill_input(s, c);
  ref_scan(s->in, c->in_type, s->want, c->out_type, c->n, c->op,
           c->mode == MODE_EXCL || c->mode == MODE_EXCL_INIT, case_init(s, c));
  if (c->n < ((size_t)1 << 32)) { /* the n > 2^32 case runs in place only */
    grow_host(&s->back, &s->back_cap, in_bytes + 1);
    grow_lib(s, &s->lib_in, &s->lib_in_cap, in_bytes + 1);
    test_backend_put(s->b, s->lib_in, s->in, in_bytes);
  }
}

/* ---- one library call ---- */

static void apply(suite *s, pscan_ctx *ctx, const setting *st) {
  test_set(ctx, PSCAN_PARAM_ALGO, st->algo);
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, st->deterministic);
  if (s->b->kind == PSCAN_BACKEND_CPU)
    test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, st->partition);
  else
    test_set(ctx, PSCAN_PARAM_BLOCK_ALGO, st->block_algo);
}

/* Same-type scans without an inclusive init go through the short entry points half of the time
   (both forms are public); the rest can only be expressed with pscan_scan. (scans / 2: the calls
   come in pairs, out-of-place then in-place, and each of the two should see both forms.) */
static pscan_status call_scan(suite *s, pscan_ctx *ctx, const scan_case *c, const void *in,
                              void *out) {
  bool exclusive = c->mode == MODE_EXCL || c->mode == MODE_EXCL_INIT;
  const void *init = case_init(s, c);
  s->scans++;
  if (c->in_type == c->out_type && c->mode != MODE_INCL_INIT && s->scans / 2 % 2) {
    if (exclusive)
      return pscan_exclusive_scan(ctx, in, out, c->n, c->in_type, c->op, init);
    return pscan_inclusive_scan(ctx, in, out, c->n, c->in_type, c->op);
  }
  pscan_scan_args a = {.in = in, .in_type = c->in_type, .out = out, .out_type = c->out_type,
                       .n = c->n, .op = c->op, .exclusive = exclusive, .init = init};
  return pscan_scan(ctx, &a);
}

static void describe(const suite *s, const scan_case *c, const setting *st, bool in_place,
                     char *buf, size_t len) {
  char how[64];
  if (s->b->kind == PSCAN_BACKEND_CPU)
    snprintf(how, sizeof how, "threads=%d partition=%lld", s->p->threads[st->ctx],
             (long long)st->partition);
  else
    snprintf(how, sizeof how, "block=%d", st->block_algo);
  snprintf(buf, len, "%s: %s->%s %s %s n=%zu algo=%s %s%s%s", s->b->name,
           ref_dtype_name(c->in_type), ref_dtype_name(c->out_type), ref_op_name(c->op),
           mode_names[c->mode], c->n, ref_algo_name(st->algo), how,
           st->deterministic ? " deterministic" : "", in_place ? " in-place" : "");
}

/* Runs c (prepared) under st and checks everything it wrote. */
static void run_one(suite *s, const scan_case *c, const setting *st, bool in_place) {
  const test_backend *b = s->b;
  pscan_ctx *ctx = s->ctx[st->ctx];
  size_t in_size = ref_dtype_size(c->in_type), out_size = ref_dtype_size(c->out_type);
  apply(s, ctx, st);
  /* out[n] stays poisoned unless the call overruns. */
  test_backend_fill(b, s->lib_out, TEST_POISON_BYTE, (c->n + 1) * out_size);
  if (in_place)
    test_backend_put(b, s->lib_out, s->in, c->n * in_size);
  pscan_status st_call = call_scan(s, ctx, c, in_place ? s->lib_out : s->lib_in, s->lib_out);
  if (st_call == PSCAN_OK)
    st_call = pscan_synchronize(ctx);

  char what[200];
  describe(s, c, st, in_place, what, sizeof what);
  if (!CHECK(st_call == PSCAN_OK, "%s: %s: %s", what, pscan_status_name(st_call),
             pscan_last_error(ctx)))
    return;
  test_backend_get(b, s->got, s->lib_out, (c->n + 1) * out_size);
  size_t bad = ref_first_difference(c->out_type, s->got, s->want, c->n);
  if (bad < c->n) {
    char got[64], want[64];
    ref_format(c->out_type, s->got + bad * out_size, got, sizeof got);
    ref_format(c->out_type, s->want + bad * out_size, want, sizeof want);
    CHECK(false, "%s: out[%zu] = %s, expected %s", what, bad, got, want);
  } else {
    CHECK(true, "result");
  }
  CHECK(test_is_poisoned(s->got + c->n * out_size, out_size), "%s: wrote past out[n-1]", what);
  if (!in_place) {
    test_backend_get(b, s->back, s->lib_in, c->n * in_size);
    if (!CHECK(memcmp(s->back, s->in, c->n * in_size) == 0, "%s: modified its input", what))
      test_backend_put(b, s->lib_in, s->in, c->n * in_size); /* the next call's input */
  }
}

/* ---- the type matrix ---- */

static void type_matrix(suite *s) {
  ref_pair_op po[REF_MAX_PAIR_OPS];
  size_t npo = ref_pair_ops(po);
  for (size_t k = 0; k < npo; k++) {
    s->pairs += k == 0 || po[k].in != po[k - 1].in || po[k].out != po[k - 1].out;
    s->pair_ops++;
    scan_case c = {po[k].in, po[k].out, po[k].op, 0, 0};
    for (c.mode = 0; c.mode < NMODES; c.mode++)
      s->p->type_sizes(s, c);
  }
  CHECK(s->pairs == 23 && s->pair_ops == 152,
        "expected 23 type pairs and 152 (pair, op), got %u, %u", s->pairs, s->pair_ops);
}

/* ---- CPU: sizes around partitions, every algorithm at every thread count ---- */

static const int cpu_threads[] = {1, 2, 3, 8};
enum { CPU_NCTX = sizeof cpu_threads / sizeof cpu_threads[0] };

/* Every algorithm and thread count (quick: one rotating thread count), out of place and (same
   type only) in place, on one prepared case. */
static void cpu_settings(suite *s, const scan_case *c, int64_t partition) {
  for (int algo = 0; algo < REF_NALGOS; algo++) {
    for (int t = 0; t < CPU_NCTX; t++) {
      if (s->quick && t != (int)(s->rotate % CPU_NCTX))
        continue;
      setting st = {t, algo, partition, 0, 0};
      run_one(s, c, &st, false);
      if (c->in_type == c->out_type)
        run_one(s, c, &st, true);
    }
    s->rotate++;
  }
}

static void cpu_sizes(suite *s, scan_case c, int64_t partition, const size_t *sizes,
                      size_t count) {
  for (size_t i = 0; i < count; i++) {
    c.n = sizes[i];
    prepare(s, &c);
    cpu_settings(s, &c, partition);
  }
}

/* 2^k +- 1 for a random k in [lo, hi]. */
static size_t pow2_pm1(test_rng *r, int lo, int hi) {
  size_t p = (size_t)1 << (lo + (int)test_below(r, (uint64_t)(hi - lo + 1)));
  return test_below(r, 2) ? p + 1 : p - 1;
}

/* The edges of one and of a few partitions of 64 and of 1000 (which are also the edges of the
   SIMD vectors: 16, 32 and 64 elements of 1 to 8 bytes), 2^k +- 1, and random sizes from the
   seed. */
static void cpu_type_sizes(suite *s, scan_case c) {
  test_rng *r = &s->rng;
  if (s->quick) {
    size_t s64[] = {0, 1, 2, 33, 63, 64, 65, 129, pow2_pm1(r, 8, 12)};
    size_t s1000[] = {1001, pow2_pm1(r, 10, 13), 1 + test_below(r, 5000)};
    cpu_sizes(s, c, 64, s64, sizeof s64 / sizeof *s64);
    cpu_sizes(s, c, 1000, s1000, sizeof s1000 / sizeof *s1000);
    return;
  }
  size_t s64[] = {0,  1,   2,   15,  16,  17,  31,  32, 33, 63, 64, 65,
                  127, 128, 129, 321, pow2_pm1(r, 8, 17), 1 + test_below(r, 4096)};
  size_t s1000[] = {999, 1000, 1001, 2001, 3000, pow2_pm1(r, 10, 17), 1 + test_below(r, 30000)};
  cpu_sizes(s, c, 64, s64, sizeof s64 / sizeof *s64);
  cpu_sizes(s, c, 1000, s1000, sizeof s1000 / sizeof *s1000);
}

/* The default partition size (0) for one kind of scan per (pair, op), the kind rotating. The
   sizes are the edges of the current default (64 KiB of input); were it to change, they would
   still be valid cases, and 2^17 + 1 has several partitions for every type. */
static void cpu_strategy_matrix(suite *s) {
  ref_pair_op po[REF_MAX_PAIR_OPS];
  size_t npo = ref_pair_ops(po);
  for (size_t k = 0; k < npo; k++) {
    scan_case c = {po[k].in, po[k].out, po[k].op, (int)((k + 1) % NMODES), 0};
    size_t guess = (size_t)(64 << 10) / ref_dtype_size(c.in_type);
    size_t full[] = {guess - 1, guess + 1, 2 * guess + 1, (size_t)1 << 17 | 1};
    size_t quick[] = {(size_t)1 << 17 | 1};
    if (s->quick)
      cpu_sizes(s, c, 0, quick, 1);
    else
      cpu_sizes(s, c, 0, full, sizeof full / sizeof *full);
  }
}

/* ---- CUDA: sizes around tiles and waves, then every strategy on a few pairs ---- */

/* Sizes around the tile sizes of every type (large tiles: 2048 .. 32768 elements; small tiles:
   1024 .. 8192), around a wave of resident tiles (132 SMs x 5 blocks), around the largest input
   scanned in small tiles (132 of them: the last four, used by the strategy matrix), and random
   ones. */
static size_t cuda_size(suite *s, int i) {
  static const size_t fixed[] = {1, 2, 31, 32, 33, 255, 257, 2047, 2048, 2049, 4095, 4096, 4097,
                                 8191, 8192, 8193, 16383, 16385, 32767, 32769, 3 * 8192 + 5,
                                 (1 << 16) + 1, 132 * 5 * 4096 + 1, 132 * 5 * 8192 - 1,
                                 132 * 1024 + 1, 132 * 2048, 132 * 2048 + 1, 132 * 4096 - 3};
  size_t nfixed = sizeof fixed / sizeof fixed[0];
  if (s->light)
    return i % 2 ? 3 * 8192 + 5 : 1000; /* one tile, and several tiles with a look-back */
  if ((size_t)i < nfixed)
    return fixed[i];
  return 1 + (size_t)test_below(&s->rng, (uint64_t)1 << (8 + test_below(&s->rng, 13)));
}

/* The default strategy, out of place and (same type) in place; under the sanitizer in place
   only on every other size. */
static void cuda_type_sizes(suite *s, scan_case c) {
  int nsizes = s->light ? 1 : s->quick ? 4 : 12;
  for (int k = 0; k < nsizes; k++) {
    c.n = cuda_size(s, k * 3 % 24);
    prepare(s, &c);
    setting st = {0, PSCAN_ALGO_AUTO, 0, PSCAN_BLOCK_AUTO, 0};
    bool in_place = c.in_type == c.out_type && (!s->light || k % 2);
    if (!in_place || !s->light)
      run_one(s, &c, &st, false);
    if (in_place)
      run_one(s, &c, &st, true);
  }
}

/* Every global x tile strategy on a few pairs. */
static void cuda_strategy_matrix(suite *s) {
  static const pscan_dtype in[] = {PSCAN_I32, PSCAN_U8, PSCAN_F64, PSCAN_I64, PSCAN_I16};
  static const pscan_dtype out[] = {PSCAN_I32, PSCAN_U64, PSCAN_F64, PSCAN_I64, PSCAN_I32};
  static const int algos[] = {PSCAN_ALGO_AUTO, PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED,
                              PSCAN_ALGO_REDUCE_THEN_SCAN, PSCAN_ALGO_SCAN_THEN_PROPAGATE};
  int nsizes = s->light ? 2 : s->quick ? 3 : 28;
  for (int t = 0; t < 5; t++)
    for (int ai = 0; ai < 5; ai++)
      for (int b = 0; b < PSCAN_BLOCK_ALGO_COUNT; b++)
        for (int k = 0; k < nsizes; k++) {
          pscan_op op = k % 3 == 2 ? PSCAN_MAX : PSCAN_SUM;
          scan_case c = {in[t], out[t], op, k & 3, cuda_size(s, k)};
          setting st = {0, algos[ai], 0, b, k % 7 == 3};
          prepare(s, &c);
          run_one(s, &c, &st, in[t] == out[t] && k % 5 == 0);
        }
}

#ifdef TEST_HAVE_CUDA
static void never_called(void *out, const void *a, const void *b, void *user) {
  (void)out, (void)a, (void)b, (void)user;
  CHECK(0, "a custom operator ran on the CUDA backend");
}

/* Host buffers, the sequential algorithm and custom operators are refused; the CPU backend
   refuses a device buffer; the context is still usable after the refusals. */
static void cuda_refusals(suite *s) {
  pscan_ctx *gpu = s->ctx[0];
  int32_t host[4] = {1, 2, 3, 4}, back[4];
  int32_t *dev;
  CUDA_OK(cudaMalloc((void **)&dev, sizeof host));
  CUDA_OK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
  test_set(gpu, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO);
  CHECK_STATUS(pscan_inclusive_scan(gpu, host, dev, 4, PSCAN_I32, PSCAN_SUM), PSCAN_ERR_WRONG_MEMORY);
  CHECK_STATUS(pscan_inclusive_scan(gpu, dev, host, 4, PSCAN_I32, PSCAN_SUM), PSCAN_ERR_WRONG_MEMORY);
  CHECK(host[0] == 1 && host[3] == 4, "refused call wrote host output");
  CHECK_STATUS(pscan_set_param(gpu, PSCAN_PARAM_ALGO, PSCAN_ALGO_SEQUENTIAL), PSCAN_ERR_UNSUPPORTED);
  CHECK_STATUS(pscan_scan_custom(gpu, dev, dev, 4, 4, never_called, NULL, 0, NULL),
               PSCAN_ERR_UNSUPPORTED);
  pscan_ctx *cpu = test_ctx(1);
  CHECK_STATUS(pscan_inclusive_scan(cpu, dev, back, 4, PSCAN_I32, PSCAN_SUM), PSCAN_ERR_WRONG_MEMORY);
  CHECK(strlen(pscan_last_error(cpu)) > 0, "no message for a device pointer on the CPU backend");
  pscan_destroy(cpu);
  /* still usable after the refusals */
  CHECK_STATUS(pscan_inclusive_scan(gpu, dev, dev, 4, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
  CUDA_OK(cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost));
  CHECK(back[0] == 1 && back[1] == 3 && back[2] == 6 && back[3] == 10, "scan after refusals");
  cudaFree(dev);
}

/* A stream destroyed after a call on it: switching away from it and destroying the context must
   not touch it (Python frameworks destroy their streams as a matter of course). */
static void cuda_dead_streams(void) {
  enum { N = 100003 };
  pscan_ctx *ctx;
  if (!CHECK_STATUS(pscan_create(&ctx, PSCAN_BACKEND_CUDA), PSCAN_OK))
    return;
  int32_t *d, last = 0;
  CUDA_OK(cudaMalloc((void **)&d, N * sizeof *d));
  for (int round = 0; round < 3; round++) {
    CUDA_OK(cudaMemset(d, 0, N * sizeof *d));
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CHECK_STATUS(pscan_set_stream(ctx, st), PSCAN_OK);
    CHECK_STATUS(pscan_inclusive_scan(ctx, d, d, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
    size_t k = 0;
    CHECK_STATUS(pscan_unique(ctx, d, d, N, PSCAN_I32, &k), PSCAN_OK);
    CHECK(k == 1, "unique of zeros on a stream: %zu items", k);
    CUDA_OK(cudaStreamDestroy(st));
    /* round 0: back to the default stream; 1: to another new stream; 2: destroy right away */
    if (round == 0)
      CHECK_STATUS(pscan_set_stream(ctx, NULL), PSCAN_OK);
    else if (round == 1) {
      cudaStream_t s2;
      CUDA_OK(cudaStreamCreate(&s2));
      CHECK_STATUS(pscan_set_stream(ctx, s2), PSCAN_OK);
      CHECK_STATUS(pscan_inclusive_scan(ctx, d, d, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
      CHECK_STATUS(pscan_synchronize(ctx), PSCAN_OK);
      CUDA_OK(cudaStreamDestroy(s2));
    }
    if (round < 2) {
      CUDA_OK(cudaMemset(d, 0, N * sizeof *d));
      CUDA_OK(cudaMemcpy(d + N - 1, &(int32_t){7}, sizeof *d, cudaMemcpyHostToDevice));
      CHECK_STATUS(pscan_set_stream(ctx, NULL), PSCAN_OK);
      CHECK_STATUS(pscan_inclusive_scan(ctx, d, d, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
      CUDA_OK(cudaMemcpy(&last, d + N - 1, sizeof last, cudaMemcpyDeviceToHost));
      CHECK(last == 7, "scan after a destroyed stream (round %d): last item %d", round, last);
    }
  }
  pscan_destroy(ctx); /* its stream is the one destroyed in round 2 */
  cudaFree(d);
  CHECK(cudaGetLastError() == cudaSuccess, "a CUDA error left behind by the dead streams");
}

static void cuda_own(suite *s) {
  cuda_refusals(s);
  cuda_dead_streams();
}
#else
#define cuda_own NULL
#endif

/* ---- sections shared by every backend ---- */

static size_t by_mode(const suite *s, const size_t n[3]) {
  return s->light ? n[0] : s->quick ? n[1] : n[2];
}

/* Float sums of random reals: bitwise identical from run to run in deterministic mode (on the
   CPU at the most threads). */
static void determinism(suite *s) {
  const test_backend *b = s->b;
  pscan_ctx *ctx = s->ctx[s->p->nctx - 1];
  size_t n = by_mode(s, s->p->determinism_n), bytes = n * sizeof(float);
  float *h = test_malloc(bytes), *first = test_malloc(bytes), *again = test_malloc(bytes);
  for (size_t i = 0; i < n; i++)
    h[i] = (float)(test_uniform(&s->rng) * 2 - 1);
  void *d_in = test_backend_alloc(b, bytes), *d_out = test_backend_alloc(b, bytes);
  test_backend_put(b, d_in, h, bytes);
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_REDUCE_THEN_SCAN,
                              PSCAN_ALGO_SCAN_THEN_PROPAGATE};
  for (int ai = 0; ai < 3; ai++) {
    setting st = {s->p->nctx - 1, algos[ai], 0, PSCAN_BLOCK_AUTO, 1};
    apply(s, ctx, &st);
    for (int rep = 0; rep < 5; rep++) {
      CHECK_STATUS(pscan_inclusive_scan(ctx, d_in, d_out, n, PSCAN_F32, PSCAN_SUM), PSCAN_OK);
      test_backend_get(b, rep ? again : first, d_out, bytes);
      if (rep)
        CHECK(memcmp(first, again, bytes) == 0, "%s: deterministic %s: run %d differs from run 0",
              b->name, ref_algo_name(algos[ai]), rep);
    }
  }
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 0);
  test_backend_free(b, d_in);
  test_backend_free(b, d_out);
  free(h);
  free(first);
  free(again);
}

/* Far more partitions or tiles than run at once, for every single-pass strategy (in place, i32
   sum; CHAINED deterministic). On CUDA the quick size (2^24: 2048 tiles of i32) stays above both
   launch thresholds of the backend, so the quick and perturbed-scheduling runs still take tile
   ids from the counter, with the staggered first wave. Grids of at most one block per SM launch
   cooperatively where programmatic dependent launch is off (PSCAN_CUDA_PDL=0, or before sm_90)
   and are then covered by the small sizes (scripts/gpu-check.sh quicktest runs the suite so). */
static void stress(suite *s) {
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED};
  for (int ai = 0; ai < 2; ai++) {
    scan_case c = {PSCAN_I32, PSCAN_I32, PSCAN_SUM, MODE_INCL, by_mode(s, s->p->stress_n) + 3};
    setting st = {s->p->nctx - 1, algos[ai], 0, PSCAN_BLOCK_AUTO, ai};
    prepare(s, &c);
    run_one(s, &c, &st, true);
  }
}

/* n > 2^32: 64-bit sizes and tile ids (u8, in place, wrapping sum). */
static void huge(suite *s) {
  free_buffers(s); /* the big buffers replace the small ones */
  scan_case c = {PSCAN_U8, PSCAN_U8, PSCAN_SUM, MODE_INCL, ((size_t)1 << 32) + 12345};
  setting st = {s->p->nctx - 1, PSCAN_ALGO_AUTO, 0, PSCAN_BLOCK_AUTO, 0};
  prepare(s, &c);
  run_one(s, &c, &st, true);
}

/* ---- the backends ---- */

static const int one_ctx[] = {0};

static const profile profiles[] = {
    {"cpu", CPU_NCTX, cpu_threads, cpu_type_sizes, cpu_strategy_matrix,
     {(1 << 16) + 7, (1 << 16) + 7, (1 << 22) + 7}, {1 << 18, 1 << 20, 1 << 24}, NULL},
    {"cuda", 1, one_ctx, cuda_type_sizes, cuda_strategy_matrix,
     {3 * 8192 + 7, (1 << 16) + 7, (1 << 24) + 7}, {1 << 18, 1 << 24, 1 << 28}, cuda_own},
};

static const profile *profile_for(const test_backend *b) {
  for (size_t k = 0; k < sizeof profiles / sizeof profiles[0]; k++)
    if (strcmp(profiles[k].backend, b->name) == 0)
      return &profiles[k];
  printf("test_scan: no profile for backend %s\n", b->name);
  exit(2);
}

static bool env_is_1(const char *name) {
  const char *v = getenv(name);
  return v && v[0] == '1';
}

int main(int argc, char **argv) {
  const test_backend *b = test_backend_pick(argc, argv);
  char program[64];
  snprintf(program, sizeof program, "test_scan --backend %s", b->name);
  suite s = {.b = b, .p = profile_for(b), .quick = test_quick(),
             .light = env_is_1("PSCAN_TEST_SANITIZE")};
  s.ctx[0] = test_backend_ctx(b, s.p->threads[0]); /* SKIP (77) here without the backend */
  uint64_t seed = test_init(program);
  s.rng = test_fork(seed, 1);
  for (int t = 1; t < s.p->nctx; t++)
    s.ctx[t] = test_backend_ctx(b, s.p->threads[t]);

  double t0 = test_seconds();
  if (s.p->own)
    s.p->own(&s);
  type_matrix(&s);
  unsigned long type_scans = s.scans;
  s.p->strategy_matrix(&s);
  determinism(&s);
  stress(&s);
  if (env_is_1("PSCAN_TEST_BIG"))
    huge(&s);
  printf("test_scan (%s): %lu scan cases (type matrix %lu: %u type pairs, %u (pair, op), %d "
         "kinds) in %.1f s\n",
         b->name, s.scans, type_scans, s.pairs, s.pair_ops, NMODES, test_seconds() - t0);

  for (int t = 0; t < s.p->nctx; t++)
    pscan_destroy(s.ctx[t]);
  free_buffers(&s);
  return test_finish();
}
