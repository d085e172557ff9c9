/* Threads: oversubscription (64 workers on a machine of a few cores must still finish promptly:
 * waits spin, then yield, then sleep), THREADS changed between calls, many contexts used at once
 * from several threads, and contexts created and destroyed in a loop (leaks show under ASan). */
#include "reference.h"
#include "test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static test_rng rng;
static bool quick;

static void fill_i32(int32_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (int32_t)test_below(&rng, 2001) - 1000;
}

/* ---- oversubscription ---- */

static void test_oversubscription(void) {
  /* 2^24 elements; quick (sanitizer) builds run 10x slower, so they take 2^21. */
  size_t n = (size_t)1 << (quick ? 21 : 24);
  const double limit_s = 30.0;
  int32_t *in = test_malloc(n * sizeof *in), *out = test_malloc(n * sizeof *out);
  int32_t *want = test_malloc(n * sizeof *want);
  fill_i32(in, n);
  ref_scan(in, PSCAN_I32, want, PSCAN_I32, n, PSCAN_SUM, 0, NULL);
  pscan_ctx *ctx = test_ctx(64);
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED,
                              PSCAN_ALGO_REDUCE_THEN_SCAN, PSCAN_ALGO_SCAN_THEN_PROPAGATE};
  /* The default partition, then a small one: more partitions, more waiting on predecessors. */
  static const int64_t parts[] = {0, 4096};
  for (int p = 0; p < 2; p++)
    for (int a = 0; a < 4; a++) {
      test_set(ctx, PSCAN_PARAM_ALGO, algos[a]);
      test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, parts[p]);
      test_poison(out, n * sizeof *out);
      double t0 = test_seconds();
      pscan_status s = pscan_inclusive_scan(ctx, in, out, n, PSCAN_I32, PSCAN_SUM);
      double dt = test_seconds() - t0;
      printf("64 threads, %zu elements, %s, partition %lld: %.3f s\n", n, ref_algo_name(algos[a]),
             (long long)parts[p], dt);
      CHECK(s == PSCAN_OK && memcmp(out, want, n * sizeof *out) == 0,
            "64 threads %s partition %lld: %s or a wrong result", ref_algo_name(algos[a]),
            (long long)parts[p], pscan_status_name(s));
      CHECK(dt < limit_s, "64 threads %s partition %lld took %.1f s (limit %.0f s)",
            ref_algo_name(algos[a]), (long long)parts[p], dt, limit_s);
    }
  pscan_destroy(ctx);
  free(in), free(out), free(want);
}

/* ---- THREADS changed between calls ---- */

static void test_thread_changes(void) {
  enum { N = 200003 };
  int32_t *in = test_malloc(N * sizeof *in), *out = test_malloc(N * sizeof *out);
  int64_t *want = test_malloc(N * sizeof *want), *wide = test_malloc(N * sizeof *wide);
  fill_i32(in, N);
  ref_scan(in, PSCAN_I32, want, PSCAN_I64, N, PSCAN_SUM, 1, NULL);
  pscan_ctx *ctx = test_ctx(1);
  static const int threads[] = {1, 8, 2, 0, 64, 3, 1, 5, 16, 2, 0, 1};
  unsigned calls = quick ? 12 : 48;
  for (unsigned i = 0; i < calls; i++) {
    int t = threads[i % 12];
    int algo = (int)(i % REF_NALGOS);
    test_set(ctx, PSCAN_PARAM_THREADS, t);
    test_set(ctx, PSCAN_PARAM_ALGO, algo);
    test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, i % 2 ? 1000 : 0);
    int64_t got = -1;
    CHECK(pscan_get_param(ctx, PSCAN_PARAM_THREADS, &got) == PSCAN_OK && got == t,
          "THREADS reads %lld after setting %d", (long long)got, t);
    pscan_scan_args a = {.in = in, .in_type = PSCAN_I32, .out = wide, .out_type = PSCAN_I64,
                         .n = N, .op = PSCAN_SUM, .exclusive = 1};
    pscan_status s = pscan_scan(ctx, &a);
    CHECK(s == PSCAN_OK && memcmp(wide, want, N * sizeof *wide) == 0,
          "call %u (threads %d, %s): %s or a wrong result", i, t, ref_algo_name(algo),
          pscan_status_name(s));
  }
  pscan_destroy(ctx);
  free(in), free(out), free(want), free(wide);
}

/* ---- many contexts at once ---- */

typedef struct worker {
  pthread_t thread;
  uint64_t seed;
  int threads, iterations;
  unsigned long failures; /* counted here, reported by the main thread */
  char first_failure[200];
} worker;

/* Each thread: its own context, its own data, a mix of types, operators and algorithms. */
static void *worker_main(void *arg) {
  worker *w = arg;
  test_rng r = {w->seed};
  enum { MAXN = 50000 };
  int64_t *in = malloc(MAXN * 8), *out = malloc((MAXN + 1) * 8), *want = malloc(MAXN * 8);
  pscan_ctx *ctx = NULL;
  if (!in || !out || !want || pscan_create(&ctx, PSCAN_BACKEND_CPU) != PSCAN_OK ||
      pscan_set_param(ctx, PSCAN_PARAM_THREADS, w->threads) != PSCAN_OK) {
    w->failures++;
    snprintf(w->first_failure, sizeof w->first_failure, "setup failed");
    goto done;
  }
  for (int it = 0; it < w->iterations; it++) {
    static const pscan_dtype types[] = {PSCAN_I32, PSCAN_U8, PSCAN_I64, PSCAN_U16};
    pscan_dtype t = types[test_below(&r, 4)];
    pscan_op op = (pscan_op)test_below(&r, REF_NOPS);
    int algo = (int)test_below(&r, REF_NALGOS), exclusive = (int)test_below(&r, 2);
    size_t n = 1 + test_below(&r, MAXN);
    for (size_t i = 0; i < n; i++)
      in[i] = (int64_t)test_rand(&r); /* random bytes, read as n elements of t */
    ref_scan(in, t, want, t, n, op, exclusive, NULL);
    pscan_set_param(ctx, PSCAN_PARAM_ALGO, algo);
    pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, (int64_t)test_below(&r, 3) * 500);
    test_poison(out, (n + 1) * 8);
    pscan_scan_args a = {.in = in, .in_type = t, .out = out, .out_type = t, .n = n, .op = op,
                         .exclusive = exclusive};
    pscan_status s = pscan_scan(ctx, &a);
    size_t size = ref_dtype_size(t);
    if (s != PSCAN_OK || memcmp(out, want, n * size) != 0 ||
        !test_is_poisoned((char *)out + n * size, size)) {
      if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure,
                 "%s %s %s n=%zu algo=%s threads=%d: %s or a wrong result", ref_dtype_name(t),
                 ref_op_name(op), exclusive ? "excl" : "incl", n, ref_algo_name(algo), w->threads,
                 pscan_status_name(s));
    }
  }
done:
  pscan_destroy(ctx);
  free(in), free(out), free(want);
  return NULL;
}

static void test_concurrent_contexts(void) {
  enum { NW = 6 };
  worker w[NW];
  for (int i = 0; i < NW; i++) {
    w[i] = (worker){.seed = test_rand(&rng), .threads = 1 + i % 4, .iterations = quick ? 10 : 60};
    if (!CHECK(pthread_create(&w[i].thread, NULL, worker_main, &w[i]) == 0, "pthread_create"))
      w[i].iterations = -1;
  }
  for (int i = 0; i < NW; i++) {
    if (w[i].iterations < 0)
      continue;
    pthread_join(w[i].thread, NULL);
    CHECK(w[i].failures == 0, "context in thread %d (%d workers): %lu failures, first: %s", i,
          w[i].threads, w[i].failures, w[i].first_failure);
  }
}

/* ---- create and destroy in a loop ---- */

static void test_create_destroy(void) {
  int32_t in[5000], out[5000], want[5000];
  fill_i32(in, 5000);
  ref_scan(in, PSCAN_I32, want, PSCAN_I32, 5000, PSCAN_SUM, 0, NULL);
  int loops = quick ? 50 : 300;
  for (int i = 0; i < loops; i++) {
    pscan_ctx *ctx = NULL;
    if (!CHECK(pscan_create(&ctx, PSCAN_BACKEND_CPU) == PSCAN_OK, "create %d", i))
      break;
    if (i % 3 != 0) { /* some never scan: destroyed before their pool exists */
      pscan_set_param(ctx, PSCAN_PARAM_THREADS, 1 + i % 5);
      pscan_set_param(ctx, PSCAN_PARAM_ALGO, i % REF_NALGOS);
      pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 100);
      CHECK(pscan_inclusive_scan(ctx, in, out, 5000, PSCAN_I32, PSCAN_SUM) == PSCAN_OK &&
                memcmp(out, want, sizeof out) == 0,
            "scan on context %d", i);
    }
    pscan_destroy(ctx);
  }
}

int main(void) {
  rng.state = test_init("test_threads");
  quick = test_quick();
  double t0 = test_seconds();
  test_oversubscription();
  double t1 = test_seconds();
  test_thread_changes();
  test_concurrent_contexts();
  test_create_destroy();
  printf("threads: oversubscription %.1f s, the rest %.1f s\n", t1 - t0, test_seconds() - t1);
  return test_finish();
}
