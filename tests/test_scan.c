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
 * program prints SKIP and exits 77, which ctest reports as skipped.
 *
 * One program in two files (what they share: test_scan.h): this one holds the engine, the
 * sections and main; test_scan_profiles.c the backends' profiles (sizes, settings, own checks). */
#include "test_scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[NMODES] = {"incl", "excl", "excl+init", "incl+init"};

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
      ref_store_bits(c->in_type, draw_int(r, c->op, small), s->in + i * size);
  }
  /* The init value, in the output type. */
  if (!ref_is_float(c->out_type)) {
    ref_store_bits(c->out_type, draw_int(r, c->op, test_below(r, 2) == 0), s->init);
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
void prepare(suite *s, const scan_case *c) {
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

/* pscan_reduce of the same input (the inclusive kinds, out of place): the scan oracle's last
   element (init, or the identity, when n is 0). Where the backend takes device memory, the total
   goes to the library's out[n] every other time (asynchronous there), else to host memory. */
static void check_reduce(suite *s, pscan_ctx *ctx, const scan_case *c, const char *what) {
  size_t out_size = ref_dtype_size(c->out_type);
  unsigned char want[8], got[8];
  if (c->n > 0)
    memcpy(want, s->want + (c->n - 1) * out_size, out_size);
  else if (case_init(s, c))
    memcpy(want, case_init(s, c), out_size);
  else
    ref_identity(c->out_type, c->op, want);
  pscan_scan_args a = {.in = s->lib_in, .in_type = c->in_type, .out_type = c->out_type, .n = c->n,
                       .op = c->op, .init = case_init(s, c)};
  bool on_device = s->b->kind != PSCAN_BACKEND_CPU && s->scans % 4 < 2;
  void *total = on_device ? (char *)s->lib_out + c->n * out_size : (void *)got;
  memset(got, TEST_POISON_BYTE, sizeof got);
  pscan_status st = pscan_reduce(ctx, &a, total);
  if (st == PSCAN_OK)
    st = pscan_synchronize(ctx);
  if (!CHECK(st == PSCAN_OK, "%s: pscan_reduce: %s: %s", what, pscan_status_name(st),
             pscan_last_error(ctx)))
    return;
  if (on_device)
    test_backend_get(s->b, got, total, out_size);
  if (!ref_same(c->out_type, got, want)) {
    char g[64], w[64];
    ref_format(c->out_type, got, g, sizeof g);
    ref_format(c->out_type, want, w, sizeof w);
    CHECK(false, "%s: pscan_reduce gave %s, expected %s", what, g, w);
  } else {
    CHECK(true, "reduce");
  }
}

/* Runs c (prepared) under st and checks everything it wrote. */
void run_one(suite *s, const scan_case *c, const setting *st, bool in_place) {
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
    if (c->mode == MODE_INCL || c->mode == MODE_INCL_INIT)
      check_reduce(s, ctx, c, what);
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
  CHECK(s->pairs == REF_CONTRACT_PAIRS && s->pair_ops == REF_CONTRACT_PAIR_OPS,
        "expected %d type pairs and %d (pair, op), got %u, %u", REF_CONTRACT_PAIRS,
        REF_CONTRACT_PAIR_OPS, s->pairs, s->pair_ops);
}

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
    if (ai == 0) /* the largest reduction: several levels of tile totals on the GPU in full mode */
      check_reduce(s, s->ctx[st.ctx], &c, "stress");
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
