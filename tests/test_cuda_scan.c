/* The CUDA backend against the sequential oracle (reference.c).
 *
 * Matrix: every (in, out) type pair x op x {inclusive, exclusive, exclusive+init, inclusive+init}
 * x in-place on the default strategy; every global strategy x every tile strategy on a subset of
 * types; sizes around tile and wave boundaries and random sizes from the seed. Outputs are
 * poisoned before each run and one element past the end must stay poisoned. Then: determinism,
 * a many-tile stress run, n > 2^32, and the backend's refusals.
 *
 * Without a usable GPU (or in a build without CUDA) the test prints SKIP and exits 77, which
 * ctest reports as skipped, never as passed. PSCAN_TEST_QUICK=1 shrinks the matrix for
 * compute-sanitizer; PSCAN_TEST_BIG=1 adds the n > 2^32 case (about 9 GB of device memory). */
#include "reference.h"
#include "test.h"

#include "cuda_ok.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SKIP = 77 };

static pscan_ctx *gpu;

/* PSCAN_TEST_SANITIZE=1: the smallest matrix that still reaches every kernel (compute-sanitizer
   slows every launch down a lot). */
static bool light(void) {
  const char *v = getenv("PSCAN_TEST_SANITIZE");
  return v && v[0] == '1';
}
static unsigned long cases;


/* Small integers (|x| <= 3; +-1 for products) keep every float result exact in any order. */
static void fill(test_rng *r, void *buf, pscan_dtype t, pscan_op op, size_t n) {
  size_t size = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    int64_t v = op == PSCAN_PROD && ref_is_float(t) ? (test_below(r, 2) ? 1 : -1)
                                                    : (int64_t)test_below(r, 7) - 3;
    if (!ref_is_float(t) || op == PSCAN_MIN || op == PSCAN_MAX)
      v = (int64_t)test_rand(r); /* any bits: integer results wrap exactly */
    char *dst = (char *)buf + i * size;
    switch (t) {
    case PSCAN_F32: { float f = (float)(op == PSCAN_MIN || op == PSCAN_MAX ? (double)(v % 1000) : (double)v); memcpy(dst, &f, 4); break; }
    case PSCAN_F64: { double d = op == PSCAN_MIN || op == PSCAN_MAX ? (double)(v % 100000) : (double)v; memcpy(dst, &d, 8); break; }
    default: memcpy(dst, &v, size); break; /* little-endian: the low bytes */
    }
  }
}

typedef struct scan_case {
  pscan_dtype in_type, out_type;
  pscan_op op;
  int exclusive, with_init, in_place;
  int algo, block_algo, deterministic;
  size_t n;
} scan_case;

static void describe(const scan_case *c, char *buf, size_t len) {
  snprintf(buf, len, "%s->%s %s %s%s%s algo=%s block=%d n=%zu", ref_dtype_name(c->in_type),
           ref_dtype_name(c->out_type), ref_op_name(c->op), c->exclusive ? "exclusive" : "inclusive",
           c->with_init ? "+init" : "", c->in_place ? " in-place" : "", ref_algo_name(c->algo),
           c->block_algo, c->n);
}

/* Runs one case on the GPU and the oracle; true when they agree. */
static bool run_case(const scan_case *c, test_rng *r) {
  size_t in_size = ref_dtype_size(c->in_type), out_size = ref_dtype_size(c->out_type);
  size_t n = c->n;
  char *h_in = test_malloc(n * in_size + 1), *want = test_malloc(n * out_size + 1);
  char *got = test_malloc((n + 1) * out_size);
  fill(r, h_in, c->in_type, c->op, n);
  char init[8] = {0};
  fill(r, init, c->out_type, c->op, 1);
  ref_scan(h_in, c->in_type, want, c->out_type, n, c->op, c->exclusive, c->with_init ? init : NULL);

  void *d_in, *d_out;
  CUDA_OK(cudaMalloc(&d_in, n * in_size + 16));
  CUDA_OK(cudaMemcpy(d_in, h_in, n * in_size, cudaMemcpyHostToDevice));
  if (c->in_place) {
    d_out = d_in;
    CUDA_OK(cudaMemset((char *)d_out + n * out_size, TEST_POISON_BYTE, out_size));
  } else {
    CUDA_OK(cudaMalloc(&d_out, (n + 1) * out_size));
    CUDA_OK(cudaMemset(d_out, TEST_POISON_BYTE, (n + 1) * out_size));
  }
  test_set(gpu, PSCAN_PARAM_ALGO, c->algo);
  test_set(gpu, PSCAN_PARAM_BLOCK_ALGO, c->block_algo);
  test_set(gpu, PSCAN_PARAM_DETERMINISTIC, c->deterministic);
  pscan_scan_args a = {.in = d_in, .in_type = c->in_type, .out = d_out, .out_type = c->out_type,
                       .n = n, .op = c->op, .exclusive = c->exclusive,
                       .init = c->with_init ? init : NULL};
  char what[160];
  describe(c, what, sizeof what);
  bool ok = CHECK_STATUS(pscan_scan(gpu, &a), PSCAN_OK);
  ok = ok && CHECK_STATUS(pscan_synchronize(gpu), PSCAN_OK);
  if (ok) {
    CUDA_OK(cudaMemcpy(got, d_out, (n + 1) * out_size, cudaMemcpyDeviceToHost));
    size_t at = ref_first_difference(c->out_type, got, want, n);
    char g[64] = "", w[64] = "";
    if (at < n) {
      ref_format(c->out_type, got + at * out_size, g, sizeof g);
      ref_format(c->out_type, want + at * out_size, w, sizeof w);
    }
    ok = CHECK(at == n, "%s: out[%zu] = %s, want %s", what, at, g, w);
    ok = CHECK(test_is_poisoned(got + n * out_size, out_size), "%s: wrote past the end", what) && ok;
  }
  cases++;
  if (!c->in_place)
    cudaFree(d_out);
  cudaFree(d_in);
  free(h_in);
  free(want);
  free(got);
  return ok;
}

static const pscan_dtype all_types[] = {PSCAN_I8,  PSCAN_I16, PSCAN_I32, PSCAN_I64, PSCAN_U8,
                                        PSCAN_U16, PSCAN_U32, PSCAN_U64, PSCAN_F32, PSCAN_F64};

/* Sizes around the tile sizes of every type (large tiles: 2048 .. 32768 elements; small tiles:
   1024 .. 8192), around a wave of resident tiles (132 SMs x 5 blocks), around the largest input
   scanned in small tiles (132 of them: the last four, used by the strategy matrix), and random
   ones. */
static size_t pick_size(test_rng *r, int i) {
  static const size_t fixed[] = {1, 2, 31, 32, 33, 255, 257, 2047, 2048, 2049, 4095, 4096, 4097,
                                 8191, 8192, 8193, 16383, 16385, 32767, 32769, 3 * 8192 + 5,
                                 (1 << 16) + 1, 132 * 5 * 4096 + 1, 132 * 5 * 8192 - 1,
                                 132 * 1024 + 1, 132 * 2048, 132 * 2048 + 1, 132 * 4096 - 3};
  size_t nfixed = sizeof fixed / sizeof fixed[0];
  if (light())
    return i % 2 ? 3 * 8192 + 5 : 1000; /* one tile, and several tiles with a look-back */
  if ((size_t)i < nfixed)
    return fixed[i];
  return 1 + (size_t)test_below(r, (uint64_t)1 << (8 + test_below(r, 13)));
}

/* Every pair x op x mode x in-place on the default strategy. */
static void type_matrix(test_rng *r) {
  int nsizes = light() ? 1 : test_quick() ? 4 : 12;
  for (size_t a = 0; a < 10; a++)
    for (size_t b = 0; b < 10; b++) {
      if (!ref_pair_valid(all_types[a], all_types[b]))
        continue;
      for (int op = 0; op < REF_NOPS; op++) {
        if (!ref_op_valid(all_types[b], (pscan_op)op))
          continue;
        for (int mode = 0; mode < 4; mode++)
          for (int s = 0; s < nsizes; s++) {
            scan_case c = {all_types[a], all_types[b], (pscan_op)op, mode & 1, mode >> 1,
                           a == b && (s & 1), PSCAN_ALGO_AUTO, PSCAN_BLOCK_AUTO, 0,
                           pick_size(r, s * 3 % 24)};
            run_case(&c, r);
          }
      }
    }
}

/* Every global x tile strategy on a few types. */
static void strategy_matrix(test_rng *r) {
  static const pscan_dtype in[] = {PSCAN_I32, PSCAN_U8, PSCAN_F64, PSCAN_I64, PSCAN_I16};
  static const pscan_dtype out[] = {PSCAN_I32, PSCAN_U64, PSCAN_F64, PSCAN_I64, PSCAN_I32};
  static const int algos[] = {PSCAN_ALGO_AUTO, PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED,
                              PSCAN_ALGO_REDUCE_THEN_SCAN, PSCAN_ALGO_SCAN_THEN_PROPAGATE};
  int nsizes = light() ? 2 : test_quick() ? 3 : 28;
  for (int t = 0; t < 5; t++)
    for (int ai = 0; ai < 5; ai++)
      for (int b = 0; b < PSCAN_BLOCK_ALGO_COUNT; b++)
        for (int s = 0; s < nsizes; s++) {
          pscan_op op = s % 3 == 2 ? PSCAN_MAX : PSCAN_SUM;
          scan_case c = {in[t], out[t], op, s & 1, (s >> 1) & 1, in[t] == out[t] && s % 5 == 0,
                         algos[ai], b, s % 7 == 3, pick_size(r, s)};
          run_case(&c, r);
        }
}

/* Float sums of random reals: bitwise identical from run to run in deterministic mode. */
static void determinism(test_rng *r) {
  size_t n = light() ? 3 * 8192 + 7 : test_quick() ? (1 << 16) + 7 : (1 << 24) + 7;
  float *h = test_malloc(n * sizeof *h), *first = test_malloc(n * sizeof *h);
  float *again = test_malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++)
    h[i] = (float)(test_uniform(r) * 2 - 1);
  float *d_in, *d_out;
  CUDA_OK(cudaMalloc((void **)&d_in, n * sizeof *h));
  CUDA_OK(cudaMalloc((void **)&d_out, n * sizeof *h));
  CUDA_OK(cudaMemcpy(d_in, h, n * sizeof *h, cudaMemcpyHostToDevice));
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_REDUCE_THEN_SCAN,
                              PSCAN_ALGO_SCAN_THEN_PROPAGATE};
  test_set(gpu, PSCAN_PARAM_DETERMINISTIC, 1);
  test_set(gpu, PSCAN_PARAM_BLOCK_ALGO, PSCAN_BLOCK_AUTO);
  for (int ai = 0; ai < 3; ai++) {
    test_set(gpu, PSCAN_PARAM_ALGO, algos[ai]);
    for (int rep = 0; rep < 5; rep++) {
      CHECK_STATUS(pscan_inclusive_scan(gpu, d_in, d_out, n, PSCAN_F32, PSCAN_SUM), PSCAN_OK);
      CUDA_OK(cudaMemcpy(rep ? again : first, d_out, n * sizeof *h, cudaMemcpyDeviceToHost));
      if (rep)
        CHECK(memcmp(first, again, n * sizeof *h) == 0,
              "deterministic %s: run %d differs from run 0", ref_algo_name(algos[ai]), rep);
    }
  }
  test_set(gpu, PSCAN_PARAM_DETERMINISTIC, 0);
  cudaFree(d_in);
  cudaFree(d_out);
  free(h);
  free(first);
  free(again);
}

/* Far more tiles than can be resident at once, for every single-pass strategy. The quick size
   (2^24: 2048 tiles of i32) stays above both launch thresholds of backend.c, so the quick and
   perturbed-scheduling runs still take tile ids from the counter, with the staggered first wave.
   Grids of at most one block per SM launch cooperatively where programmatic dependent launch is
   off (PSCAN_CUDA_PDL=0, or before sm_90) and are then covered by the small sizes
   (scripts/gpu-check.sh quicktest runs the suite so). */
static void stress(test_rng *r) {
  size_t n = light() ? (size_t)1 << 18 : test_quick() ? (size_t)1 << 24 : (size_t)1 << 28;
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED};
  for (int ai = 0; ai < 2; ai++) {
    scan_case c = {PSCAN_I32, PSCAN_I32, PSCAN_SUM, 0, 0, 1, algos[ai], PSCAN_BLOCK_AUTO, ai,
                   n + 3};
    run_case(&c, r);
  }
}

/* n > 2^32: 64-bit sizes and tile ids (u8, in place, wrapping sum). */
static void huge(test_rng *r) {
  scan_case c = {PSCAN_U8, PSCAN_U8, PSCAN_SUM, 0, 0, 1, PSCAN_ALGO_AUTO, PSCAN_BLOCK_AUTO, 0,
                 ((size_t)1 << 32) + 12345};
  run_case(&c, r);
}

static void never_called(void *out, const void *a, const void *b, void *user) {
  (void)out, (void)a, (void)b, (void)user;
  CHECK(0, "a custom operator ran on the CUDA backend");
}

static void refusals(void) {
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
static void dead_streams(void) {
  enum { N = 100003 };
  pscan_ctx *ctx;
  if (!CHECK_STATUS(pscan_create(&ctx, PSCAN_BACKEND_CUDA), PSCAN_OK))
    return;
  int32_t *d, last = 0;
  CUDA_OK(cudaMalloc((void **)&d, N * sizeof *d));
  for (int round = 0; round < 3; round++) {
    CUDA_OK(cudaMemset(d, 0, N * sizeof *d));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_STATUS(pscan_set_stream(ctx, s), PSCAN_OK);
    CHECK_STATUS(pscan_inclusive_scan(ctx, d, d, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
    size_t k = 0;
    CHECK_STATUS(pscan_unique(ctx, d, d, N, PSCAN_I32, &k), PSCAN_OK);
    CHECK(k == 1, "unique of zeros on a stream: %zu items", k);
    CUDA_OK(cudaStreamDestroy(s));
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

int main(void) {
  uint64_t seed = test_init("test_cuda_scan");
  pscan_status s = pscan_create(&gpu, PSCAN_BACKEND_CUDA);
  if (s == PSCAN_ERR_UNSUPPORTED || s == PSCAN_ERR_NO_DEVICE) {
    printf("SKIP: no CUDA backend or no GPU: %s\n", pscan_last_error(NULL));
    return SKIP;
  }
  if (!CHECK_STATUS(s, PSCAN_OK))
    return test_finish();
  test_rng r = test_fork(seed, 1);
  refusals();
  dead_streams();
  type_matrix(&r);
  strategy_matrix(&r);
  determinism(&r);
  stress(&r);
  const char *big = getenv("PSCAN_TEST_BIG");
  if (big && big[0] == '1')
    huge(&r);
  printf("test_cuda_scan: %lu scan cases on %s\n", cases, pscan_version_string());
  pscan_destroy(gpu);
  return test_finish();
}
