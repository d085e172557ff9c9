/* The scan suite's backends (test_scan.c says what each section covers; shared pieces in
 * test_scan.h): which sizes and settings each section runs on the CPU and on CUDA, and each
 * backend's own checks. */
#include "test_scan.h"

#ifdef TEST_HAVE_CUDA
#include "cuda_ok.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  /* pscan_reduce: a device total on the CPU backend, a misaligned device total on the GPU; an
     empty reduction into device memory writes init there */
  int32_t seven = 7;
  pscan_scan_args a = {.in = host, .in_type = PSCAN_I32, .out_type = PSCAN_I32, .n = 4,
                       .op = PSCAN_SUM};
  CHECK_STATUS(pscan_reduce(cpu, &a, dev), PSCAN_ERR_WRONG_MEMORY);
  a.in = dev;
  CHECK_STATUS(pscan_reduce(gpu, &a, (char *)dev + 2), PSCAN_ERR_INVALID_ARGUMENT);
  CUDA_OK(cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost));
  CHECK(back[0] == 1 && back[1] == 2 && back[2] == 3 && back[3] == 4, "refused reduce wrote");
  a.n = 0, a.init = &seven;
  CHECK_STATUS(pscan_reduce(gpu, &a, dev + 3), PSCAN_OK);
  CHECK_STATUS(pscan_synchronize(gpu), PSCAN_OK);
  CUDA_OK(cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost));
  CHECK(back[3] == 7, "empty reduction into device memory: %d, expected the init 7", back[3]);
  CUDA_OK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
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

/* A context made while device 0 is current and then moved to the last device: scans on that
   device's legacy stream and on a stream of its own, with the caller's current device left on
   device 0 in between (the state in which a second GPU's context is made in practice: MPI ranks,
   Python contexts per device). Needs two devices; says so when there is one. */
/* Whether the calling thread's current device is still `want` after a pscan call (every call
   gives the caller's device back: pscan.h, PSCAN_PARAM_DEVICE). */
static void device_still(int want, const char *after) {
  int current = -1;
  CUDA_OK(cudaGetDevice(&current));
  CHECK(current == want, "after %s the current device is %d, was %d", after, current, want);
}

static void cuda_other_device(void) {
  enum { N = 300007 };
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    printf("cuda_other_device: %d device(s), the case needs 2: not run\n", count);
    return;
  }
  const int dev = count - 1;
  CUDA_OK(cudaSetDevice(0));
  pscan_ctx *ctx;
  if (!CHECK_STATUS(pscan_create(&ctx, PSCAN_BACKEND_CUDA), PSCAN_OK))
    return;
  device_still(0, "pscan_create");
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_DEVICE, dev), PSCAN_OK);
  device_still(0, "pscan_set_param(DEVICE)");
  int32_t *d = NULL, last = 0;
  CUDA_OK(cudaSetDevice(dev));
  CUDA_OK(cudaMalloc((void **)&d, N * sizeof *d));
  cudaStream_t st;
  CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (int round = 0; round < 2; round++) {
    CUDA_OK(cudaSetDevice(dev));
    CUDA_OK(cudaMemset(d, 0, N * sizeof *d));
    CUDA_OK(cudaMemcpy(d + 5, &(int32_t){3}, sizeof *d, cudaMemcpyHostToDevice));
    CUDA_OK(cudaSetDevice(0));
    CHECK_STATUS(pscan_set_stream(ctx, round == 0 ? NULL : st), PSCAN_OK);
    device_still(0, "pscan_set_stream");
    CHECK_STATUS(pscan_inclusive_scan(ctx, d, d, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
    device_still(0, "pscan_inclusive_scan");
    int64_t total = 0;
    const pscan_scan_args sum = {.in = d, .in_type = PSCAN_I32, .out_type = PSCAN_I64, .n = N,
                                 .op = PSCAN_SUM};
    CHECK_STATUS(pscan_reduce(ctx, &sum, &total), PSCAN_OK);
    device_still(0, "pscan_reduce");
    CHECK(total == 3LL * (N - 5), "reduce on device %d: %lld", dev, (long long)total);
    CHECK_STATUS(pscan_synchronize(ctx), PSCAN_OK);
    device_still(0, "pscan_synchronize");
    CUDA_OK(cudaMemcpy(&last, d + N - 1, sizeof last, cudaMemcpyDeviceToHost));
    CHECK(last == 3, "scan on device %d (%s stream): last item %d", dev,
          round == 0 ? "default" : "own", last);
  }
  CHECK_STATUS(pscan_set_stream(ctx, NULL), PSCAN_OK);
  pscan_destroy(ctx);
  device_still(0, "pscan_destroy");
  CUDA_OK(cudaSetDevice(dev));
  CUDA_OK(cudaStreamDestroy(st));
  cudaFree(d);
  CUDA_OK(cudaSetDevice(0));
  CHECK(cudaGetLastError() == cudaSuccess, "a CUDA error left behind on device %d", dev);
}

/* 8- and 16-bit sums into their own type, whose full tiles are reduced from packed words and
   (8-bit) scanned four items to a word (tile_scan.cuh): small tiles (several full ones and a
   partial one) and large ones (past the small-tile bound of 132 multiprocessors' worth), every
   scan kind, out of place and in place. */
static void cuda_packed_sums(suite *s) {
  static const pscan_dtype types[] = {PSCAN_I8, PSCAN_U8, PSCAN_I16, PSCAN_U16};
  static const size_t sizes[] = {3 * 8192 + 5, 132 * 8192 + 2 * 32768 + 5};
  for (int t = 0; t < 4; t++)
    for (int k = 0; k < 2; k++)
      for (int mode = 0; mode < 4; mode++) {
        scan_case c = {types[t], types[t], PSCAN_SUM, mode, sizes[k]};
        setting st = {0, PSCAN_ALGO_AUTO, 0, PSCAN_BLOCK_AUTO, 0};
        prepare(s, &c);
        run_one(s, &c, &st, mode & 1);
      }
}

static void cuda_own(suite *s) {
  cuda_packed_sums(s);
  cuda_refusals(s);
  cuda_dead_streams();
  cuda_other_device();
}
#else
#define cuda_own NULL
#endif

/* ---- the backends ---- */

static const int one_ctx[] = {0};

static const profile profiles[] = {
    {"cpu", CPU_NCTX, cpu_threads, cpu_type_sizes, cpu_strategy_matrix,
     {(1 << 16) + 7, (1 << 16) + 7, (1 << 22) + 7}, {1 << 18, 1 << 20, 1 << 24}, NULL},
    {"cuda", 1, one_ctx, cuda_type_sizes, cuda_strategy_matrix,
     {3 * 8192 + 7, (1 << 16) + 7, (1 << 24) + 7}, {1 << 18, 1 << 24, 1 << 28}, cuda_own},
};

const profile *profile_for(const test_backend *b) {
  for (size_t k = 0; k < sizeof profiles / sizeof profiles[0]; k++)
    if (strcmp(profiles[k].backend, b->name) == 0)
      return &profiles[k];
  printf("test_scan: no profile for backend %s\n", b->name);
  exit(2);
}
