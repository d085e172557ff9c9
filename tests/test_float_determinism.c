/* Floating point: determinism (part 4 of test_float.c's list; shared pieces in test_float.h). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "test_float.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------
 * 4. Determinism
 * ---------------------------------------------------------------------------------------- */

/* A custom float operator: a double sum (order-sensitive, like the built-in one). user: NULL, or
   a period: one call in that many sleeps a little, which leaves partitions in flight (aggregate
   published, inclusive prefix not yet) long enough for their successors to see them. */
static void custom_fsum(void *out, const void *a, const void *b, void *user) {
  static atomic_uint calls;
  double x, y;
  if (user && atomic_fetch_add(&calls, 1) % *(const unsigned *)user == 0) {
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  x += y;
  memcpy(out, &x, sizeof x);
}

typedef struct det_config {
  const char *name;
  pscan_dtype in_t, out_t; /* out_t F64 with custom: the custom double sum */
  pscan_op op;
  bool custom;
  unsigned sleep_period; /* custom only: see custom_fsum */
} det_config;

static pscan_status det_scan(pscan_ctx *ctx, const det_config *d, int mode, const void *in,
                             void *out, size_t n, const void *init) {
  if (d->custom)
    return pscan_scan_custom(ctx, in, out, n, sizeof(double), custom_fsum,
                             d->sleep_period ? (void *)&d->sleep_period : NULL,
                             is_exclusive(mode), has_init(mode) ? init : NULL);
  return scan(ctx, d->in_t, d->out_t, d->op, mode, in, out, n, init);
}

/* Runs (algo, every thread count, twice for some) and compares each result with base, bit for
   bit; base NULL: the first run becomes the base. */
static void det_compare(const det_config *d, int mode, const void *in, size_t n,
                        const void *init, int64_t part, int algo, void *base, bool *have_base,
                        void *out) {
  size_t bytes = n * ref_dtype_size(d->out_t);
  for (int t = 0; t < NCTX; t++)
    for (int rep = 0; rep < (t % 2 ? 2 : 1); rep++) { /* run to run: twice on 2, 4, 16 */
      configure(ctxs[t], algo, part, 1);
      test_poison(out, bytes);
      pscan_status s = det_scan(ctxs[t], d, mode, in, out, n, init);
      if (!CHECK(s == PSCAN_OK, "%s: %s", d->name, pscan_status_name(s)))
        continue;
      if (!*have_base) {
        memcpy(base, out, bytes);
        *have_base = true;
        continue;
      }
      size_t bad = 0;
      size_t size = ref_dtype_size(d->out_t);
      while (bad < n && memcmp((char *)out + bad * size, (char *)base + bad * size, size) == 0)
        bad++;
      CHECK(bad == n,
            "deterministic %s %s n=%zu partition=%lld algo=%s threads=%d run %d: out[%zu] = %a "
            "differs from %a",
            d->name, mode_names[mode], n, (long long)part, ref_algo_name(algo), thread_counts[t],
            rep + 1, bad, bad < n ? load(d->out_t, out, bad) : 0.0,
            bad < n ? load(d->out_t, base, bad) : 0.0);
    }
}

/* Look-back that folds several predecessors happens only when they are still in flight
   (timing-dependent). Partitions of 1 to 3 elements, a slow operator and more threads than cores
   make it common: the fixed order of DETERMINISTIC = 1 must hold even then. */
static void determinism_stress(void *in, void *out, void *base) {
  static const det_config stress[] = {
      {"f32 sum", PSCAN_F32, PSCAN_F32, PSCAN_SUM, false, 0},
      {"slow custom f64 sum", PSCAN_F64, PSCAN_F64, PSCAN_SUM, true, 37},
  };
  enum { N = 3000 };
  int reps = quick ? 3 : 8;
  for (int rep = 0; rep < reps; rep++)
    for (size_t c = 0; c < 2; c++) {
      const det_config *d = &stress[c];
      for (size_t i = 0; i < N; i++)
        store(d->in_t, in, i, (2.0 * test_uniform(&rng) - 1.0) *
                                  ldexp(1.0, (int)test_below(&rng, 41) - 20));
      int64_t part = 1 + rep % 3;
      configure(ctxs[0], PSCAN_ALGO_CHAINED, part, 1);
      size_t bytes = N * ref_dtype_size(d->out_t);
      if (!CHECK(det_scan(ctxs[0], d, MODE_INCL, in, base, N, NULL) == PSCAN_OK, "stress base"))
        continue;
      for (int algo = PSCAN_ALGO_AUTO; algo <= PSCAN_ALGO_DECOUPLED_LOOKBACK; algo += 2)
        for (int t = 4; t < NCTX; t++) { /* 8 and 16 threads */
          configure(ctxs[t], algo, part, 1);
          pscan_status s = det_scan(ctxs[t], d, MODE_INCL, in, out, N, NULL);
          CHECK(s == PSCAN_OK && memcmp(out, base, bytes) == 0,
                "deterministic %s, partition %lld, %s, %d threads: %s or other bits than "
                "chained on one thread", d->name, (long long)part, ref_algo_name(algo),
                thread_counts[t], pscan_status_name(s));
        }
    }
}

void test_determinism(void) {
  static const det_config configs[] = {
      {"f32 sum", PSCAN_F32, PSCAN_F32, PSCAN_SUM, false, 0},
      {"f64 sum", PSCAN_F64, PSCAN_F64, PSCAN_SUM, false, 0},
      {"f32->f64 sum", PSCAN_F32, PSCAN_F64, PSCAN_SUM, false, 0},
      {"f32 prod", PSCAN_F32, PSCAN_F32, PSCAN_PROD, false, 0},
      {"custom f64 sum", PSCAN_F64, PSCAN_F64, PSCAN_SUM, true, 0},
  };
  static const int fixed_order[] = {PSCAN_ALGO_AUTO, PSCAN_ALGO_DECOUPLED_LOOKBACK,
                                    PSCAN_ALGO_CHAINED, PSCAN_ALGO_REDUCE_THEN_SCAN};
  size_t sizes[] = {1000, 100003, (1 << 20) - 1};
  size_t nsizes = 3;
  if (quick) { /* quick: a small and a middle size (still a few partitions of the default) */
    sizes[1] = 30011;
    nsizes = 2;
  }
  size_t cap = (1 << 20) + 1;
  void *in = test_malloc(cap * 8), *out = test_malloc(cap * 8), *base = test_malloc(cap * 8);
  void *stp = test_malloc(cap * 8);
  unsigned long differ_stp = 0, differ_seq = 0;
  for (size_t c = 0; c < sizeof configs / sizeof *configs; c++) {
    const det_config *d = &configs[c];
    for (size_t si = 0; si < nsizes; si++) {
      size_t n = sizes[si];
      /* Reals of many magnitudes: the rounding depends on the order of combination. */
      for (size_t i = 0; i < n; i++) {
        double u = 2.0 * test_uniform(&rng) - 1.0;
        store(d->in_t, in, i,
              d->op == PSCAN_PROD ? 1.0 + u * 1e-3 : u * ldexp(1.0, (int)test_below(&rng, 41) - 20));
      }
      unsigned char init[8];
      store(d->out_t, init, 0, d->op == PSCAN_PROD ? 1.0009765625 : 0.1);
      /* The default partition, and small ones: many partitions in flight at once, so that a
         look-back that folds several predecessors (timing-dependent) would show. */
      static const int64_t parts[] = {0, 1000, 64};
      for (int pi = 0; pi < 3; pi++)
        for (int mode = 0; mode < NMODES; mode++) {
          int64_t part = parts[pi];
          if (part == 64 && (n > 200000 || quick))
            continue; /* 2^14 partitions and more: slow, and the stress below does it better */
          if (n > 200000 && (mode == MODE_EXCL || mode == MODE_INCL_INIT))
            continue; /* the largest size: two kinds of scan are enough */
          if (d->custom && mode == MODE_EXCL)
            continue; /* a custom exclusive scan needs init */
          bool have = false;
          for (size_t a = 0; a < 4; a++)
            det_compare(d, mode, in, n, init, part, fixed_order[a], base, &have, out);
          /* Evidence that the input is order-sensitive (information only, not a contract):
             the other strategies usually round differently. */
          configure(ctxs[0], PSCAN_ALGO_SEQUENTIAL, part, 1);
          if (det_scan(ctxs[0], d, mode, in, out, n, init) == PSCAN_OK &&
              memcmp(out, base, n * ref_dtype_size(d->out_t)) != 0)
            differ_seq++;
          /* SCAN_THEN_PROPAGATE: its own bits, the same for every thread count. */
          have = false;
          det_compare(d, mode, in, n, init, part, PSCAN_ALGO_SCAN_THEN_PROPAGATE, stp, &have,
                      out);
          if (memcmp(stp, base, n * ref_dtype_size(d->out_t)) != 0)
            differ_stp++;
        }
    }
  }
  determinism_stress(in, out, base);
  printf("determinism: sequential differed from the fixed-order result in %lu cases, "
         "scan-then-propagate in %lu (expected for order-sensitive data)\n",
         differ_seq, differ_stp);
  free(in), free(out), free(base), free(stp);
}
