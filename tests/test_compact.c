/* Compaction on the backend of `--backend cpu|cuda` (backend.h): pscan_select_if,
 * pscan_select_flagged, pscan_partition_if, pscan_unique, pscan_run_length_encode,
 * pscan_reduce_by_key, pscan_scan_by_key.
 *
 * Differential against the sequential references below (written from pscan.h): every type, every
 * cmp, selection ratios 0%, ~1%, 50%, ~99%, 100%, runs of length ~1, ~500 and the whole input,
 * NaN (never equal) and signed zeros in float data, in place (select_if, select_flagged, unique,
 * the values of run_length_encode), threads 1, 2, 3, 8 (and 64 on few cores), partition sizes 1, 7, 64
 * and the default, the decoupled and the chained look-back, sizes 0, 1, 2, partition - 1,
 * partition, partition + 1 and random ones from the seed. Outputs are poisoned: nothing may be
 * written past num_selected (past n for partition_if; in place, the tail keeps the input). Refusals
 * (NULL count, partial overlap, unknown cmp, partition_if in place, flags overlapping out) write
 * nothing, not even the count. reduce_by_key and scan_by_key (inclusive, exclusive, with and
 * without init, in place): every key type x value type, every op, values whose reductions are
 * exact in any order. Every op on runs of exactly 1, 2, 3, tile - 1 and tile + 1 items at n =
 * tile +- 1 and 2 tile +- 1, for the CPU's partitions and the CUDA kernels' tiles. On CUDA the
 * buffers are mirrored to the device (compact_mirrors.h), and device arrays that start off a
 * 16-byte boundary and (PSCAN_TEST_BIG=1) n > 2^32 are added. */
#include "backend.h"
#include "reference.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const test_backend *backend;
static test_rng rng;
static bool quick;
/* PSCAN_TEST_SANITIZE=1 (compute-sanitizer on the CUDA build): a thin slice of every part, still
   reaching every kernel. */
static bool light;

static const pscan_dtype all_types[] = {PSCAN_I8,  PSCAN_I16, PSCAN_I32, PSCAN_I64, PSCAN_U8,
                                        PSCAN_U16, PSCAN_U32, PSCAN_U64, PSCAN_F32, PSCAN_F64};
static const char *const cmp_names[] = {"LT", "LE", "GT", "GE", "EQ", "NE"};
/* Thresholds on data in [0, 100): LT gives 0%, ~1%, 50%, ~99%, 100%. */
static const int thresholds[] = {0, 1, 50, 99, 100};

/* ---- element helpers ---- */

/* Stores the small integer v as one element of type t. */
static void put(pscan_dtype t, void *p, long v) {
  switch (t) {
  case PSCAN_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); } break;
  case PSCAN_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); } break;
  case PSCAN_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); } break;
  case PSCAN_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); } break;
  case PSCAN_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); } break;
  case PSCAN_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); } break;
  case PSCAN_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); } break;
  case PSCAN_U64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); } break;
  case PSCAN_F32: { float x = (float)v; memcpy(p, &x, 4); } break;
  case PSCAN_F64: { double x = (double)v; memcpy(p, &x, 8); } break;
  }
}

/* Data in [0, 100); for floats, with nan_every > 0, every so often a NaN or a -0.0. */
static void fill(pscan_dtype t, void *p, size_t n, unsigned nan_every) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    char *e = (char *)p + i * s;
    put(t, e, (long)test_below(&rng, 100));
    if (ref_is_float(t) && nan_every && test_below(&rng, nan_every) == 0) {
      bool nan = test_below(&rng, 2) == 0;
      if (t == PSCAN_F32) {
        float x = nan ? NAN : -0.0f;
        memcpy(e, &x, 4);
      } else {
        double x = nan ? NAN : -0.0;
        memcpy(e, &x, 8);
      }
    }
  }
}

/* Flags with P(nonzero) = permille / 1000, nonzero values anywhere in 1..255. */
static void fill_flags(uint8_t *f, size_t n, unsigned permille) {
  for (size_t i = 0; i < n; i++)
    f[i] = test_below(&rng, 1000) < permille ? (uint8_t)(1 + test_below(&rng, 255)) : 0;
}

/* Run-structured data. mode 0: independent values in [0, 100) (runs of ~1, some of 2 or more);
   mode 1: runs of random length, ~500 on average; mode 2: one value. Floats get NaN runs (each
   NaN is a run of its own) and -0.0 inside runs of 0.0 (equal, so the same run). */
static void fill_runs(pscan_dtype t, void *p, size_t n, int mode) {
  size_t s = ref_dtype_size(t);
  long v = (long)test_below(&rng, 100);
  int special = 0; /* 1: NaN, 2: alternate 0.0 and -0.0 */
  for (size_t i = 0; i < n; i++) {
    bool change = mode == 0 || (mode == 1 && test_below(&rng, 500) == 0);
    if (change) {
      v = (long)test_below(&rng, 100);
      special = ref_is_float(t) && test_below(&rng, 10) == 0 ? 1 + (int)test_below(&rng, 2) : 0;
    }
    char *e = (char *)p + i * s;
    put(t, e, special == 2 ? 0 : v);
    if (special) {
      double x = special == 1 ? NAN : (i % 2 ? -0.0 : 0.0);
      if (t == PSCAN_F32) {
        float f = (float)x;
        memcpy(e, &f, 4);
      } else {
        memcpy(e, &x, 8);
      }
    }
  }
}

/* ---- sequential references ---- */

typedef ref_compact_op op_kind;
static const char *const op_names[] = {"select_if", "select_flagged", "partition_if", "unique",
                                       "run_length_encode"};

/* ---- one checked call ---- */

typedef struct config {
  int threads;
  int64_t part;
  int algo;
} config;

static pscan_ctx *ctx_for(const config *c) {
  static pscan_ctx *ctx;
  if (backend->device) { /* one context: SKIP (77) where the backend cannot run */
    if (!ctx)
      ctx = test_backend_ctx(backend, 0);
    test_set(ctx, PSCAN_PARAM_ALGO, c->algo);
    return ctx;
  }
  static int threads = -1;
  if (!ctx || threads != c->threads) {
    pscan_destroy(ctx);
    ctx = test_ctx(c->threads);
    threads = c->threads;
  }
  test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, c->part);
  test_set(ctx, PSCAN_PARAM_ALGO, c->algo);
  return ctx;
}

enum { SLACK = 16 }; /* poisoned elements past n */

#include "compact_mirrors.h"

/* Partition sizes at boundaries (with 0, the default); on CUDA the kernels' tiles instead (8192
   items of 1-, 2- and 4-byte types in the selection and run-head kernels, 4096 of 8-byte ones and
   by key; 2048, half a by-key tile). */
static const int64_t *boundaries(void) {
  static const int64_t cpu[] = {1, 7, 64, 0}, cuda[] = {8192, 4096, 2048, 0};
  return backend->device ? cuda : cpu;
}

/* Runs op on in[0..n) (in place when in_place) and checks it against the reference. */
static void run_one(const config *c, op_kind op, pscan_dtype t, const void *in,
                    const uint8_t *flags, size_t n, pscan_cmp cmp, int threshold, bool in_place) {
  size_t s = ref_dtype_size(t);
  char value[8];
  put(t, value, threshold);
  char *want = test_malloc((n + 1) * s);
  char *out = test_malloc((n + SLACK) * s);
  uint64_t *want_counts = test_malloc((n + 1) * sizeof *want_counts);
  uint64_t *counts = test_malloc((n + SLACK) * sizeof *counts);
  test_poison(counts, (n + SLACK) * sizeof *counts);
  size_t want_count = ref_compact(op, t, in, flags, n, cmp, value, want, want_counts);
  test_poison(out, (n + SLACK) * s);
  if (in_place)
    memcpy(out, in, n * s);
  pscan_ctx *ctx = ctx_for(c);
  const void *src = in_place ? (const void *)out : in;
  size_t count = (size_t)-1;
  pscan_status st = PSCAN_OK;
  switch (op) {
  case REF_SELECT_IF: st = pscan_select_if(ctx, src, out, n, t, cmp, value, &count); break;
  case REF_SELECT_FLAGGED: st = pscan_select_flagged(ctx, src, flags, out, n, t, &count); break;
  case REF_PARTITION_IF: st = pscan_partition_if(ctx, src, out, n, t, cmp, value, &count); break;
  case REF_UNIQUE: st = pscan_unique(ctx, src, out, n, t, &count); break;
  case REF_RLE: st = pscan_run_length_encode(ctx, src, out, counts, n, t, &count); break;
  }
  size_t written = op == REF_PARTITION_IF ? n : want_count;
  bool ok = st == PSCAN_OK && count == want_count && memcmp(out, want, written * s) == 0;
  /* Past the result: in place the rest of the input, untouched; else the poison. */
  if (ok && in_place)
    ok = memcmp(out + written * s, (const char *)in + written * s, (n - written) * s) == 0 &&
         test_is_poisoned(out + n * s, SLACK * s);
  else if (ok)
    ok = test_is_poisoned(out + written * s, (n + SLACK - written) * s);
  if (ok && op == REF_RLE)
    ok = memcmp(counts, want_counts, want_count * sizeof *counts) == 0 &&
         test_is_poisoned(counts + want_count, (n + SLACK - want_count) * sizeof *counts);
  else if (ok)
    ok = test_is_poisoned(counts, (n + SLACK) * sizeof *counts);
  CHECK(ok,
        "%s%s %s cmp %s value %d n %zu threads %d partition %lld algo %s: %s, count %zu (want "
        "%zu)%s",
        op_names[op], in_place ? " in place" : "", ref_dtype_name(t),
        op == REF_SELECT_IF || op == REF_PARTITION_IF ? cmp_names[cmp] : "-", threshold, n,
        c->threads,
        (long long)c->part, ref_algo_name(c->algo), pscan_status_name(st), count, want_count,
        st == PSCAN_OK && count == want_count ? ", wrong items or a write past the result" : "");
  free(want);
  free(out);
  free(want_counts);
  free(counts);
}

/* Every op (and in place where allowed) on fresh data of n elements. */
static void run_all_ops(const config *c, pscan_dtype t, size_t n, pscan_cmp cmp, int threshold,
                        unsigned permille) {
  size_t s = ref_dtype_size(t);
  char *in = test_malloc(n * s + 1);
  uint8_t *flags = test_malloc(n + 1);
  fill(t, in, n, 7);
  fill_flags(flags, n, permille);
  for (int op = 0; op < 3; op++) {
    run_one(c, (op_kind)op, t, in, flags, n, cmp, threshold, false);
    if (op != REF_PARTITION_IF)
      run_one(c, (op_kind)op, t, in, flags, n, cmp, threshold, true);
  }
  /* Runs of length ~1, ~500 and the whole input. */
  for (int mode = 0; mode < 3; mode++) {
    fill_runs(t, in, n, mode);
    for (int op = REF_UNIQUE; op <= REF_RLE; op++) {
      run_one(c, (op_kind)op, t, in, flags, n, cmp, threshold, false);
      run_one(c, (op_kind)op, t, in, flags, n, cmp, threshold, true);
    }
  }
  free(in);
  free(flags);
}

/* unique and run-length encoding where each block of 8192 items (one CUDA tile of 4-byte
   items, two of 8-byte ones) holds a chosen number of run heads: around 256, where the CUDA
   keys kernel switches between its sparse gather (at most 256 kept) and the dense one, and
   with the block's first item starting a run or continuing the one before. */
static void test_heads_per_tile(void) {
  enum { BLOCK = 8192 };
  static const unsigned heads[] = {256, 257, 255, 1, 300, 128, 256, 8192};
  const size_t n = BLOCK * (sizeof heads / sizeof heads[0]) - 37;
  const pscan_dtype types[] = {PSCAN_I32, PSCAN_U8, PSCAN_F32, PSCAN_I64};
  const config c = {2, 0, PSCAN_ALGO_AUTO};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    pscan_dtype t = types[k];
    size_t s = ref_dtype_size(t);
    char *in = test_malloc(n * s);
    long run = 0;
    for (size_t i = 0; i < n; i++) {
      size_t b = i / BLOCK, j = i % BLOCK;
      unsigned h = heads[b];
      /* Heads at j = ceil(m * BLOCK / h), shifted by one in odd blocks (whose first item then
         continues the previous block's last run). */
      size_t off = (b & 1) ? 1 : 0;
      bool head = i == 0 || (j >= off && ((j - off) * h) % BLOCK < h && j - off < BLOCK);
      if (head && i > 0)
        run++;
      put(t, in + i * s, 1 + run % 3); /* neighbouring runs always differ */
    }
    for (int op = REF_UNIQUE; op <= REF_RLE; op++) {
      run_one(&c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, false);
      run_one(&c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, true);
    }
    free(in);
  }
}

/* ---- the matrix: every type, cmp and ratio ---- */

static void test_matrix(void) {
  static const config configs[] = {{1, 0, PSCAN_ALGO_AUTO},
                                   {3, 7, PSCAN_ALGO_DECOUPLED_LOOKBACK},
                                   {2, 64, PSCAN_ALGO_CHAINED}};
  static const unsigned permilles[] = {0, 10, 500, 990, 1000};
  size_t max_n = quick ? 300 : 3000;
  for (size_t ci = 0; ci < (light ? 1 : sizeof configs / sizeof *configs); ci++)
    for (int ti = 0; ti < 10; ti++)
      for (int cmp = 0; cmp < PSCAN_CMP_COUNT; cmp += light ? 5 : 1)
        for (int r = light ? 1 : 0; r < 5; r += light ? 2 : 1) {
          size_t sizes[] = {0, 1, 2, 1 + (size_t)test_below(&rng, max_n)};
          for (int si = 0; si < 4; si++)
            run_all_ops(&configs[ci], all_types[ti], sizes[si], (pscan_cmp)cmp, thresholds[r],
                        permilles[r]);
        }
}

/* ---- threads x partition sizes x look-back, sizes at partition boundaries ---- */

static void test_configs(void) {
  static const int threads[] = {1, 2, 3, 8};
  const int64_t *parts = boundaries();
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED, PSCAN_ALGO_AUTO};
  unsigned round = 0;
  for (int th = 0; th < (light ? 1 : 4); th++)
    for (int p = 0; p < 4; p++)
      for (int a = 0; a < 3; a++) {
        config c = {threads[th], parts[p], algos[a]};
        pscan_dtype t = all_types[round % 10];
        /* The default partition is 64 KiB of input. */
        size_t part = parts[p] ? (size_t)parts[p] : (size_t)65536 / ref_dtype_size(t);
        size_t rnd = 1 + (size_t)test_below(&rng, quick ? 2000 : 20000);
        size_t sizes[] = {0, 1, 2, part - 1, part, part + 1, 3 * part + 1, rnd};
        for (int si = 0; si < 8; si++) {
          if (sizes[si] > (quick ? 20000u : 200000u))
            continue;
          int r = (int)((round + (unsigned)si) % 5);
          run_all_ops(&c, t, sizes[si], (pscan_cmp)((round + (unsigned)si) % 6), thresholds[r],
                      (unsigned[]){0, 10, 500, 990, 1000}[r]);
        }
        round++;
      }
}

/* ---- in place under contention: many tiny partitions, many threads, repeated ---- */

static void test_in_place_stress(void) {
  static const int threads[] = {8, 64};
  int reps = light ? 1 : quick ? 3 : 6;
  for (int th = 0; th < 2; th++)
    for (int64_t part = 1; part <= 7; part += 3)
      for (int rep = 0; rep < reps; rep++) {
        /* 64 threads on a few cores wait by sleeping: fewer partitions keep it quick. */
        size_t n = (quick ? 10000 : 40000) / (threads[th] > 8 ? 10 : 1);
        double t0 = test_seconds();
        config c = {threads[th], part, rep % 2 ? PSCAN_ALGO_CHAINED
                                               : PSCAN_ALGO_DECOUPLED_LOOKBACK};
        pscan_dtype t = rep % 3 ? PSCAN_I32 : PSCAN_U8;
        size_t s = ref_dtype_size(t);
        char *in = test_malloc(n * s);
        uint8_t *flags = test_malloc(n);
        fill(t, in, n, 0);
        fill_flags(flags, n, rep % 2 ? 900 : 500);
        run_one(&c, REF_SELECT_IF, t, in, flags, n, PSCAN_GE, rep % 2 ? 10 : 50, true);
        run_one(&c, REF_SELECT_FLAGGED, t, in, flags, n, PSCAN_EQ, 0, true);
        fill_runs(t, in, n, rep % 3 == 2 ? 1 : 0);
        run_one(&c, REF_UNIQUE, t, in, flags, n, PSCAN_EQ, 0, true);
        run_one(&c, REF_RLE, t, in, flags, n, PSCAN_EQ, 0, true);
        if (rep == 0)
          printf("in place, %d threads, partition %lld, n %zu: %.3f s\n", c.threads,
                 (long long)part, n, test_seconds() - t0);
        free(in);
        free(flags);
      }
}

/* In place with the value inside the array: the call must use the value as it was on entry,
   though the array position holding it is overwritten while the call runs (CPU: on CUDA value
   is host memory, never inside the array). */
static void test_value_inside(void) {
  size_t n = quick ? 5000 : 50000;
  int32_t *a = test_malloc(n * sizeof *a), *want = test_malloc(n * sizeof *want);
  static const int threads[] = {1, 3, 8};
  for (int th = 0; th < 3; th++)
    for (int pi = 0; pi < 2; pi++) {
      config c = {threads[th], pi ? 7 : 1, PSCAN_ALGO_DECOUPLED_LOOKBACK};
      pscan_ctx *ctx = ctx_for(&c);
      for (size_t i = 0; i < n; i++)
        a[i] = (int32_t)(i % 1000); /* a[999] = 999: after compaction a[999] holds 0 */
      size_t at = 999, w = 0;
      int32_t v = a[at];
      for (size_t i = 0; i < n; i++)
        if (a[i] < v)
          want[w++] = a[i];
      size_t count = 0;
      pscan_status s = pscan_select_if(ctx, a, a, n, PSCAN_I32, PSCAN_LT, &a[at], &count);
      CHECK(s == PSCAN_OK && count == w && memcmp(a, want, w * sizeof *a) == 0,
            "select_if in place, value inside the array, %d threads, partition %d: %s, count "
            "%zu (want %zu)",
            c.threads, (int)c.part, pscan_status_name(s), count, w);
    }
  free(a);
  free(want);
}

/* ---- reduce_by_key ---- */

/* Values for op: small integers (float SUM exact), +-1 for float PROD (exact in any order). */
static void fill_vals(pscan_dtype t, pscan_op op, void *p, size_t n) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    long v = ref_is_float(t) && op == PSCAN_PROD ? (test_below(&rng, 2) ? 1 : -1)
             : op == PSCAN_PROD                  ? (long)test_below(&rng, 4)
                                                 : (long)test_below(&rng, 100);
    put(t, (char *)p + i * s, v);
  }
}

static void run_by_key(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op,
                       const void *keys, const void *vals, size_t n) {
  size_t ks = ref_dtype_size(kt), vs = ref_dtype_size(vt);
  char *want_k = test_malloc((n + 1) * ks), *want_v = test_malloc((n + 1) * vs);
  char *out_k = test_malloc((n + SLACK) * ks), *out_v = test_malloc((n + SLACK) * vs);
  size_t runs = ref_reduce_by_key(keys, kt, vals, vt, n, op, want_k, want_v);
  test_poison(out_k, (n + SLACK) * ks);
  test_poison(out_v, (n + SLACK) * vs);
  size_t count = (size_t)-1;
  pscan_status st = pscan_reduce_by_key(ctx_for(c), keys, kt, vals, vt, out_k, out_v, n, op, &count);
  bool ok = st == PSCAN_OK && count == runs && memcmp(out_k, want_k, runs * ks) == 0 &&
            test_is_poisoned(out_k + runs * ks, (n + SLACK - runs) * ks) &&
            test_is_poisoned(out_v + runs * vs, (n + SLACK - runs) * vs);
  for (size_t r = 0; ok && r < runs; r++)
    ok = ref_same(vt, out_v + r * vs, want_v + r * vs);
  CHECK(ok, "reduce_by_key keys %s values %s op %s n %zu threads %d partition %lld algo %s: %s, "
            "count %zu (want %zu)",
        ref_dtype_name(kt), ref_dtype_name(vt), ref_op_name(op), n, c->threads,
        (long long)c->part, ref_algo_name(c->algo), pscan_status_name(st), count, runs);
  free(want_k), free(want_v), free(out_k), free(out_v);
}

static void by_key_case(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, size_t n,
                        int mode) {
  char *keys = test_malloc(n * ref_dtype_size(kt) + 1), *vals = test_malloc(n * ref_dtype_size(vt) + 1);
  fill_runs(kt, keys, n, mode);
  fill_vals(vt, op, vals, n);
  run_by_key(c, kt, vt, op, keys, vals, n);
  free(keys), free(vals);
}

/* Every key type x value type with the ops in turn (every op for i32 keys), sizes 0, 1, 2 and
   random, on three configurations; calls fn for each case. Shared by reduce_by_key and
   scan_by_key. */
typedef void (*by_key_fn)(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, size_t n,
                          int mode, unsigned variant);

static void for_each_by_key_case(by_key_fn fn) {
  static const config configs[] = {{3, 7, PSCAN_ALGO_DECOUPLED_LOOKBACK},
                                   {2, 64, PSCAN_ALGO_CHAINED},
                                   {1, 0, PSCAN_ALGO_AUTO}};
  size_t max_n = quick ? 300 : 3000;
  unsigned round = 0;
  for (int ci = 0; ci < (light ? 1 : 3); ci++)
    for (int kt = 0; kt < 10; kt++)
      for (int vt = 0; vt < 10; vt++)
        for (int opi = 0; opi < REF_NOPS; opi++) {
          pscan_op op = (pscan_op)opi;
          if (!ref_op_valid(all_types[vt], op) || (kt != 2 && (unsigned)opi != round % REF_NOPS))
            continue;
          size_t sizes[] = {0, 1, 2, 1 + (size_t)test_below(&rng, max_n)};
          for (int si = 0; si < 4; si++)
            fn(&configs[ci], all_types[kt], all_types[vt], op, sizes[si],
               (int)((round + (unsigned)si) % 3), round + (unsigned)si);
          round++;
        }
}

static void by_key_variant(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, size_t n,
                           int mode, unsigned variant) {
  (void)variant;
  by_key_case(c, kt, vt, op, n, mode);
}

static void test_by_key(void) { for_each_by_key_case(by_key_variant); }

/* reduce_by_key on blocks of 4096 items (the CUDA tile) with 255, 256 and 257 heads (the
   look-back warp kernel's slot holds 256: by_key_heads.cuh), one head, every item a head, blocks
   starting on or inside a run; several key sizes, 4- and 8-byte values. */
static void test_by_key_heads_per_tile(void) {
  enum { BLOCK = 4096 };
  static const unsigned heads[] = {256, 257, 255, 1, 300, 128, 256, 4096, 2};
  const size_t n = BLOCK * (sizeof heads / sizeof heads[0]) - 53;
  static const struct {
    pscan_dtype kt, vt;
    pscan_op op;
  } cases[] = {{PSCAN_I32, PSCAN_F32, PSCAN_SUM}, {PSCAN_U8, PSCAN_I32, PSCAN_MAX},
               {PSCAN_I64, PSCAN_F64, PSCAN_SUM}, {PSCAN_F32, PSCAN_U16, PSCAN_XOR}};
  const config c = {2, 0, PSCAN_ALGO_AUTO};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const size_t ks = ref_dtype_size(cases[k].kt), vs = ref_dtype_size(cases[k].vt);
    char *keys = test_malloc(n * ks), *vals = test_malloc(n * vs);
    long run = 0;
    for (size_t i = 0; i < n; i++) {
      size_t b = i / BLOCK, j = i % BLOCK;
      unsigned h = heads[b];
      size_t off = (b & 1) ? 1 : 0;
      bool head = i == 0 || (j >= off && ((j - off) * h) % BLOCK < h);
      if (head && i > 0)
        run++;
      put(cases[k].kt, keys + i * ks, 1 + run % 3); /* neighbouring runs always differ */
    }
    fill_vals(cases[k].vt, cases[k].op, vals, n);
    run_by_key(&c, cases[k].kt, cases[k].vt, cases[k].op, keys, vals, n);
    free(keys), free(vals);
  }
}

/* ---- scan_by_key ---- */

static void run_scan_by_key(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op,
                            int exclusive, const void *init, const void *keys, const void *vals,
                            size_t n, bool in_place) {
  size_t vs = ref_dtype_size(vt);
  char *want = test_malloc((n + 1) * vs), *out = test_malloc((n + SLACK) * vs);
  ref_scan_by_key(keys, kt, vals, want, n, vt, op, exclusive, init);
  test_poison(out, (n + SLACK) * vs);
  if (in_place)
    memcpy(out, vals, n * vs);
  pscan_status st = pscan_scan_by_key(ctx_for(c), keys, kt, in_place ? out : vals, out, n, vt, op,
                                      exclusive, init);
  bool ok = st == PSCAN_OK && test_is_poisoned(out + n * vs, SLACK * vs);
  size_t bad = n;
  for (size_t i = 0; ok && i < n; i++)
    if (!ref_same(vt, out + i * vs, want + i * vs))
      ok = false, bad = i;
  CHECK(ok, "scan_by_key%s keys %s values %s op %s %s%s n %zu threads %d partition %lld algo %s: "
            "%s, first wrong at %zu",
        in_place ? " in place" : "", ref_dtype_name(kt), ref_dtype_name(vt), ref_op_name(op),
        exclusive ? "exclusive" : "inclusive", init ? " with init" : "", n, c->threads,
        (long long)c->part, ref_algo_name(c->algo), pscan_status_name(st), bad);
  free(want), free(out);
}

static void scan_by_key_case(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op,
                             size_t n, int mode, unsigned variant) {
  char *keys = test_malloc(n * ref_dtype_size(kt) + 1), *vals = test_malloc(n * ref_dtype_size(vt) + 1);
  char init[8];
  fill_runs(kt, keys, n, mode);
  fill_vals(vt, op, vals, n);
  fill_vals(vt, op, init, 1);
  int exclusive = (int)(variant & 1);
  bool with_init = variant & 2, in_place = variant & 4;
  run_scan_by_key(c, kt, vt, op, exclusive, with_init ? init : NULL, keys, vals, n, in_place);
  free(keys), free(vals);
}

static void test_scan_by_key(void) {
  for_each_by_key_case(scan_by_key_case);
  unsigned round = 0;
  static const int threads[] = {1, 2, 3, 8};
  const int64_t *parts = boundaries();
  for (int th = 0; th < (light ? 1 : 4); th++)
    for (int p = 0; p < 4; p++)
      for (int a = 0; a < 2; a++) {
        config c = {threads[th], parts[p], a ? PSCAN_ALGO_CHAINED : PSCAN_ALGO_DECOUPLED_LOOKBACK};
        pscan_dtype kt = all_types[round % 10], vt = all_types[(round / 10 + 3) % 10];
        size_t part = parts[p] ? (size_t)parts[p] : (size_t)65536 / (ref_dtype_size(kt) + 8);
        size_t sizes[] = {1, 2, part - 1, part, part + 1, 3 * part + 1,
                          1 + (size_t)test_below(&rng, quick ? 2000 : 20000)};
        for (int si = 0; si < 7; si++)
          if (sizes[si] > 0 && sizes[si] <= (quick ? 20000u : 200000u))
            for (unsigned v = 0; v < 8; v++)
              scan_by_key_case(&c, kt, vt, ref_is_float(vt) ? PSCAN_MAX : PSCAN_SUM, sizes[si],
                               (int)(v % 3), v);
        round++;
      }
}

/* ---- nearly everything kept, over whole tiles in look-back mode ----
   The CUDA select kernel gathers the last warp's items after its look-back; the other warps'
   padded gather then reaches into the last warp's staged input (docs/PERFORMANCE.md, "Selection
   kernels") only
   when they keep nearly all of theirs: 97-100% selected, on several whole tiles and a partial
   one, every item size, in and out of place. (On the CPU backend: more of the same.) */
static void test_nearly_all_kept(void) {
  static const pscan_dtype types[] = {PSCAN_I8, PSCAN_U16, PSCAN_I32, PSCAN_F32, PSCAN_U64};
  static const int thresholds_high[] = {100, 99, 97};
  static const size_t sizes[] = {3 * 8192, 3 * 8192 + 77};
  const config c = {2, 7, PSCAN_ALGO_DECOUPLED_LOOKBACK};
  uint8_t *flags = test_malloc(sizes[1] + 1);
  char *in = test_malloc(sizes[1] * 8 + 1);
  for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
    for (int h = 0; h < 3; h++)
      for (int si = 0; si < 2; si++) {
        fill(types[ti], in, sizes[si], 0);
        fill_flags(flags, sizes[si], (unsigned)thresholds_high[h] * 10u);
        for (int in_place = 0; in_place < 2; in_place++) {
          run_one(&c, REF_SELECT_IF, types[ti], in, flags, sizes[si], PSCAN_LT,
                  thresholds_high[h], in_place);
          run_one(&c, REF_SELECT_FLAGGED, types[ti], in, flags, sizes[si], PSCAN_LT,
                  thresholds_high[h], in_place);
        }
      }
  free(in);
  free(flags);
}

/* Selections whose tiles keep about as many items as the CUDA select kernel's output buffer
   holds (64% of an 8192-item tile of 4-byte items, 56% of a 4096-item tile of 8-byte ones): some
   tiles gather into that buffer, others keep their items in the tile buffer and wait for their
   prefix, in the same persistent blocks (more tiles than resident blocks). */
static void test_kept_around_out_buffer(void) {
  static const pscan_dtype types[] = {PSCAN_I32, PSCAN_F32, PSCAN_U64};
  static const int percents[] = {55, 57, 63, 64, 65, 70};
  /* CUDA: 1025 tiles of 8192, 2049 of 4096 */
  const size_t n = ((size_t)1 << (backend->device ? 23 : quick ? 16 : 19)) + 77;
  const config c = {0, 0, PSCAN_ALGO_DECOUPLED_LOOKBACK};
  uint8_t *flags = test_malloc(n);
  char *in = test_malloc(n * 8);
  for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
    for (size_t h = 0; h < sizeof percents / sizeof *percents; h++) {
      fill(types[ti], in, n, 0);
      fill_flags(flags, n, (unsigned)percents[h] * 10u);
      const bool in_place = h % 2 == 1;
      run_one(&c, REF_SELECT_IF, types[ti], in, flags, n, PSCAN_LT, percents[h], in_place);
      run_one(&c, REF_SELECT_FLAGGED, types[ti], in, flags, n, PSCAN_LT, percents[h], !in_place);
    }
  free(in);
  free(flags);
}

/* ---- large: AUTO runs several threads on the default partition ---- */

static void test_large(void) {
  /* CUDA: 2048 tiles of 8192, far more than are resident */
  size_t n = (size_t)1 << (quick ? 18 : backend->device ? 24 : 22);
  config c = {0, 0, PSCAN_ALGO_AUTO};
  char *in = test_malloc(n * 4);
  uint8_t *flags = test_malloc(n);
  fill(PSCAN_I32, in, n, 0);
  fill_flags(flags, n, 500);
  double t0 = test_seconds();
  run_one(&c, REF_SELECT_IF, PSCAN_I32, in, flags, n, PSCAN_LT, 50, false);
  run_one(&c, REF_SELECT_IF, PSCAN_I32, in, flags, n, PSCAN_LT, 50, true);
  run_one(&c, REF_SELECT_FLAGGED, PSCAN_I32, in, flags, n, PSCAN_LT, 50, false);
  run_one(&c, REF_PARTITION_IF, PSCAN_I32, in, flags, n, PSCAN_LT, 50, false);
  fill_runs(PSCAN_I32, in, n, 1);
  run_one(&c, REF_UNIQUE, PSCAN_I32, in, flags, n, PSCAN_LT, 50, true);
  run_one(&c, REF_RLE, PSCAN_I32, in, flags, n, PSCAN_LT, 50, false);
  char *vals = test_malloc(n * 8);
  fill_vals(PSCAN_I64, PSCAN_SUM, vals, n);
  run_by_key(&c, PSCAN_I32, PSCAN_I64, PSCAN_SUM, in, vals, n);
  const int64_t init = 3;
  run_scan_by_key(&c, PSCAN_I32, PSCAN_I64, PSCAN_SUM, 0, NULL, in, vals, n, false);
  run_scan_by_key(&c, PSCAN_I32, PSCAN_I64, PSCAN_SUM, 1, &init, in, vals, n, true);
  free(vals);
  printf("large: 9 checked calls on %zu i32 in %.3f s\n", n, test_seconds() - t0);
  free(in);
  free(flags);
}

/* ---- n > 2^32 on the GPU (PSCAN_TEST_BIG=1: ~4.3 GB of host and ~43 GB of device memory) ----
   u8 items; the library is called directly on device buffers (no mirrors); results are checked
   against closed forms. */
static void test_big(void) {
  const char *big = getenv("PSCAN_TEST_BIG");
  if (!big || big[0] != '1')
    return;
  size_t n = ((size_t)1 << 32) + 12345, count = 0;
  pscan_ctx *ctx = ctx_for(&(config){1, 0, PSCAN_ALGO_AUTO});
  uint8_t *h = test_malloc(n), *d_in = test_backend_alloc(backend, n),
          *d_out = test_backend_alloc(backend, n);
  double t0 = test_seconds();
  /* select_if: in[i] = i % 251, keep < 100: the kept items are 0..99 over and over. */
  for (size_t i = 0; i < n; i++)
    h[i] = (uint8_t)(i % 251);
  test_backend_put(backend, d_in, h, n);
  const uint8_t v = 100;
  pscan_status st = (pscan_select_if)(ctx, d_in, d_out, n, PSCAN_U8, PSCAN_LT, &v, &count);
  size_t want = n / 251 * 100 + (n % 251 < 100 ? n % 251 : 100);
  bool ok = st == PSCAN_OK && count == want;
  if (ok) {
    test_backend_get(backend, h, d_out, count);
    for (size_t j = 0; ok && j < count; j++)
      ok = h[j] == (uint8_t)(j % 100);
  }
  CHECK(ok, "select_if u8 n = 2^32 + 12345: %s, count %zu (want %zu)", pscan_status_name(st),
        count, want);
  /* unique and run-length encoding: runs of 300 equal items, values (run index) & 0xff. */
  size_t runs = (n + 299) / 300;
  for (size_t i = 0; i < n; i++)
    h[i] = (uint8_t)((i / 300) & 0xff);
  test_backend_put(backend, d_in, h, n);
  /* (counts_out must have room for n counts: api.c checks it overlaps nothing over that length) */
  uint64_t *d_counts = test_backend_alloc(backend, n * sizeof *d_counts);
  st = (pscan_run_length_encode)(ctx, d_in, d_out, d_counts, n, PSCAN_U8, &count);
  ok = st == PSCAN_OK && count == runs;
  if (ok) {
    uint64_t *counts = test_malloc(runs * sizeof *counts);
    test_backend_get(backend, h, d_out, runs);
    test_backend_get(backend, counts, d_counts, runs * sizeof *counts);
    for (size_t r = 0; ok && r < runs; r++)
      ok = h[r] == (uint8_t)(r & 0xff) && counts[r] == (r + 1 < runs ? 300 : n - 300 * (runs - 1));
    free(counts);
  }
  CHECK(ok, "run_length_encode u8 n = 2^32 + 12345: %s, count %zu (want %zu)",
        pscan_status_name(st), count, runs);
  printf("n > 2^32: select_if and run_length_encode on %zu u8 in %.1f s\n", n, test_seconds() - t0);
  test_backend_free(backend, d_in);
  test_backend_free(backend, d_out);
  test_backend_free(backend, d_counts);
  free(h);
}

/* ---- device arrays that do not start on a 16-byte boundary ----
   The mirrors of the other tests are fresh device allocations (256-byte aligned); here in and out
   start 0..V-1 items past one, so that the selections' 16-byte chunk stores (compact_tile.cuh:
   store_kept_packed) meet every head length, and the keys are read item by item. i32 and u8
   items, ~50% kept, several tiles; select_if, select_flagged and partition_if against a loop,
   called directly on the device buffers (the parentheses skip compact_mirrors.h's mirrors). */
static void unaligned_case(pscan_ctx *ctx, size_t size, size_t n, size_t in_off, size_t out_off) {
  unsigned char *h_in = test_malloc(n * size), *want = test_malloc(n * size);
  unsigned char *got = test_malloc(n * size);
  uint8_t *h_flags = test_malloc(n);
  for (size_t i = 0; i < n; i++) {
    uint32_t x = (uint32_t)test_rand(&rng);
    memcpy(h_in + i * size, &x, size);
    h_flags[i] = (uint8_t)(x >> 31);
  }
  const int32_t v32 = 0;
  const uint8_t v8 = 128;
  const pscan_dtype t = size == 4 ? PSCAN_I32 : PSCAN_U8;
  /* the reference: items < value (i32 < 0, u8 < 128), flagged ones, and partition's order */
  size_t kept_lt = 0, kept_fl = 0;
  for (size_t i = 0; i < n; i++) {
    const unsigned char *x = h_in + i * size;
    bool lt = size == 4 ? *(const int32_t *)(const void *)x < v32 : *x < v8;
    if (lt)
      kept_lt++;
    if (h_flags[i])
      kept_fl++;
  }
  unsigned char *d_in = test_backend_alloc(backend, (n + 16) * size),
                *d_out = test_backend_alloc(backend, (n + 16) * size);
  uint8_t *d_flags = test_backend_alloc(backend, n);
  test_backend_put(backend, d_in + in_off * size, h_in, n * size);
  test_backend_put(backend, d_flags, h_flags, n);
  for (int op = 0; op < 3; op++) {
    size_t count = 0, w = 0, r = 0;
    const void *value = size == 4 ? (const void *)&v32 : (const void *)&v8;
    pscan_status st =
        op == 0 ? (pscan_select_if)(ctx, d_in + in_off * size, d_out + out_off * size, n, t, PSCAN_LT,
                                  value, &count)
        : op == 1 ? (pscan_select_flagged)(ctx, d_in + in_off * size, d_flags,
                                         d_out + out_off * size, n, t, &count)
                  : (pscan_partition_if)(ctx, d_in + in_off * size, d_out + out_off * size, n, t,
                                       PSCAN_LT, value, &count);
    for (size_t i = 0; i < n; i++) {
      const unsigned char *x = h_in + i * size;
      bool keep = op == 1 ? h_flags[i] != 0
                          : size == 4 ? *(const int32_t *)(const void *)x < v32 : *x < v8;
      if (keep)
        memcpy(want + w++ * size, x, size);
      else if (op == 2) /* rejected: from the back, reversed */
        memcpy(want + (n - 1 - r++) * size, x, size);
    }
    size_t written = op == 2 ? n : w;
    test_backend_get(backend, got, d_out + out_off * size, written * size);
    CHECK(st == PSCAN_OK && count == (op == 1 ? kept_fl : kept_lt) &&
              memcmp(got, want, written * size) == 0,
          "%s %s n=%zu, in +%zu, out +%zu items: %s, count %zu (want %zu) or items differ",
          op == 0 ? "select_if" : op == 1 ? "select_flagged" : "partition_if", size == 4 ? "i32" : "u8",
          n, in_off, out_off, pscan_status_name(st), count, op == 1 ? kept_fl : kept_lt);
  }
  test_backend_free(backend, d_in);
  test_backend_free(backend, d_out);
  test_backend_free(backend, d_flags);
  free(h_in);
  free(want);
  free(got);
  free(h_flags);
}

static void test_unaligned_device(void) {
  pscan_ctx *ctx = ctx_for(&(config){1, 0, PSCAN_ALGO_AUTO});
  for (size_t off = 0; off < 4; off++) /* i32: every offset within 16 bytes */
    unaligned_case(ctx, 4, 3 * 8192 + 77, off, (off * 3) % 4);
  for (size_t off = 0; off < 16; off += 5) /* u8 */
    unaligned_case(ctx, 1, 3 * 32768 + 77, off, (off * 7) % 16);
}

/* ---- refusals write nothing, not even the count ---- */

enum { RN = 100 };

static void test_refusals(void) {
  static int32_t in[RN], out[RN + 1];
  static uint8_t flags[RN];
  static uint64_t counts[RN];
  const int32_t v = 50;
  pscan_ctx *ctx = test_ctx(2);
  for (int i = 0; i < RN; i++)
    in[i] = i;
  memset(flags, 1, sizeof flags);
  size_t count;
#define REFUSED(want, call)                                                                       \
  do {                                                                                            \
    test_poison(out, sizeof out);                                                                 \
    test_poison(&count, sizeof count);                                                            \
    pscan_status s_ = (call);                                                                     \
    CHECK(s_ == (want) && test_is_poisoned(out, sizeof out) &&                                    \
              test_is_poisoned(&count, sizeof count),                                             \
          "%s gave %s (want %s) or wrote to its outputs", #call, pscan_status_name(s_),          \
          pscan_status_name(want));                                                               \
  } while (0)
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(ctx, in, out, RN, PSCAN_I32, PSCAN_LT, &v, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_flagged(ctx, in, flags, out, RN, PSCAN_I32, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_partition_if(ctx, in, out, RN, PSCAN_I32, PSCAN_LT, &v, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(ctx, in, out, RN, PSCAN_I32, (pscan_cmp)6, &v, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(ctx, in, out, RN, PSCAN_I32, (pscan_cmp)-1, &v, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_partition_if(ctx, in, out, RN, PSCAN_I32, (pscan_cmp)6, &v, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(ctx, in, out, RN, PSCAN_I32, PSCAN_LT, NULL, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_flagged(ctx, in, NULL, out, RN, PSCAN_I32, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(ctx, in, out, RN, (pscan_dtype)10, PSCAN_LT, &v, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(NULL, in, out, RN, PSCAN_I32, PSCAN_LT, &v, &count));
  /* Partial overlap of in and out (out shifted by one element inside in's copy). */
  {
    static int32_t buf[2 * RN];
    memcpy(buf, in, sizeof in);
    test_poison(&count, sizeof count);
    pscan_status s = pscan_select_if(ctx, buf, buf + 1, RN, PSCAN_I32, PSCAN_LT, &v, &count);
    CHECK(s == PSCAN_ERR_OVERLAP && memcmp(buf, in, sizeof in) == 0 &&
              test_is_poisoned(&count, sizeof count),
          "select_if with out = in + 1: %s or wrote", pscan_status_name(s));
    s = pscan_select_flagged(ctx, buf + 1, flags, buf, RN, PSCAN_I32, &count);
    CHECK(s == PSCAN_ERR_OVERLAP && memcmp(buf, in, sizeof in) == 0 &&
              test_is_poisoned(&count, sizeof count),
          "select_flagged with in = out + 1: %s or wrote", pscan_status_name(s));
    s = pscan_partition_if(ctx, buf, buf, RN, PSCAN_I32, PSCAN_LT, &v, &count);
    CHECK(s == PSCAN_ERR_OVERLAP && memcmp(buf, in, sizeof in) == 0 &&
              test_is_poisoned(&count, sizeof count),
          "partition_if in place: %s (want PSCAN_ERR_OVERLAP) or wrote", pscan_status_name(s));
    /* flags inside out */
    uint8_t *f = (uint8_t *)(buf + RN);
    memset(f, 1, RN);
    s = pscan_select_flagged(ctx, in, f - 8, buf + RN - 4, RN / 2, PSCAN_I32, &count);
    CHECK(s == PSCAN_ERR_OVERLAP && test_is_poisoned(&count, sizeof count),
          "select_flagged with flags overlapping out: %s", pscan_status_name(s));
  }
  /* n == 0: OK, count 0, nothing else written; NULL pointers allowed. */
  count = 5;
  CHECK_STATUS(pscan_select_if(ctx, NULL, NULL, 0, PSCAN_I32, PSCAN_LT, &v, &count), PSCAN_OK);
  CHECK(count == 0, "select_if n = 0: count %zu", count);
  count = 5;
  CHECK_STATUS(pscan_select_flagged(ctx, NULL, NULL, NULL, 0, PSCAN_F64, &count), PSCAN_OK);
  CHECK(count == 0, "select_flagged n = 0: count %zu", count);
  count = 5;
  CHECK_STATUS(pscan_partition_if(ctx, NULL, NULL, 0, PSCAN_U8, PSCAN_NE, &v, &count), PSCAN_OK);
  CHECK(count == 0, "partition_if n = 0: count %zu", count);
  count = 5;
  CHECK_STATUS(pscan_unique(ctx, NULL, NULL, 0, PSCAN_I32, &count), PSCAN_OK);
  CHECK(count == 0, "unique n = 0: count %zu", count);
  count = 5;
  CHECK_STATUS(pscan_run_length_encode(ctx, NULL, NULL, NULL, 0, PSCAN_I32, &count), PSCAN_OK);
  CHECK(count == 0, "run_length_encode n = 0: count %zu", count);
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_unique(ctx, in, out, RN, PSCAN_I32, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_run_length_encode(ctx, in, out, counts, RN, PSCAN_I32, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_run_length_encode(ctx, in, out, NULL, RN, PSCAN_I32, &count));
  REFUSED(PSCAN_ERR_OVERLAP, pscan_unique(ctx, in, (int32_t *)in + 1, RN - 1, PSCAN_I32, &count));
  REFUSED(PSCAN_ERR_OVERLAP, pscan_run_length_encode(ctx, in, out, (uint64_t *)(void *)out, RN / 2, PSCAN_I32, &count));
  REFUSED(PSCAN_ERR_OVERLAP, pscan_run_length_encode(ctx, out, out, (uint64_t *)(void *)out, RN / 2, PSCAN_I32, &count));
  REFUSED(PSCAN_ERR_OVERLAP,
          pscan_reduce_by_key(ctx, in, PSCAN_I32, in, PSCAN_I32, out, out + 1, RN / 4, PSCAN_SUM, &count));
  REFUSED(PSCAN_ERR_OVERLAP,
          pscan_reduce_by_key(ctx, out, PSCAN_I32, in, PSCAN_I32, out, flags, RN / 4, PSCAN_SUM, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT,
          pscan_reduce_by_key(ctx, in, PSCAN_I32, in, PSCAN_F32, flags, out, RN / 4, PSCAN_XOR, &count));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT,
          pscan_reduce_by_key(ctx, in, PSCAN_I32, in, PSCAN_I32, flags, out, RN / 4, PSCAN_SUM, NULL));
  count = 5;
  CHECK_STATUS(pscan_reduce_by_key(ctx, NULL, PSCAN_I32, NULL, PSCAN_I64, NULL, NULL, 0, PSCAN_SUM, &count), PSCAN_OK);
  CHECK(count == 0, "reduce_by_key n = 0: count %zu", count);
  REFUSED(PSCAN_ERR_OVERLAP,
          pscan_scan_by_key(ctx, out + 1, PSCAN_I32, in, out, RN - 1, PSCAN_I32, PSCAN_SUM, 0, NULL));
  REFUSED(PSCAN_ERR_OVERLAP,
          pscan_scan_by_key(ctx, in, PSCAN_I32, out + 1, out, RN - 1, PSCAN_I32, PSCAN_SUM, 0, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT,
          pscan_scan_by_key(ctx, in, PSCAN_I32, in, out, RN, PSCAN_I32, PSCAN_SUM, 2, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT,
          pscan_scan_by_key(ctx, in, PSCAN_I32, in, out, RN, PSCAN_F32, PSCAN_XOR, 0, NULL));
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT,
          pscan_scan_by_key(ctx, NULL, PSCAN_I32, in, out, RN, PSCAN_I32, PSCAN_SUM, 0, NULL));
  CHECK_STATUS(pscan_scan_by_key(ctx, NULL, PSCAN_I32, NULL, NULL, 0, PSCAN_I32, PSCAN_SUM, 1, NULL),
               PSCAN_OK);
#undef REFUSED
  pscan_destroy(ctx);
}

/* ---- exact run lengths at tile boundaries ----
   Every op on data in runs of exactly L items (L = 1, 2, 3, tile - 1, tile + 1): for unique,
   run-length encoding and the by-key ops, runs of equal keys; for the selections, runs of kept
   and rejected items (values 10 and 90 against LT 50, flags to match), at n = tile - 1, tile,
   tile + 1, 2 tile - 1, 2 tile + 1 for each tile of the backend (CPU: a 64-item partition and
   the default 64 KiB one; CUDA: the 8192- and 4096-item tiles of compact_tile.cuh and
   by_key_tile.cuh). */

static void fill_exact_runs(pscan_dtype t, void *p, uint8_t *flags, size_t n, size_t L) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    size_t r = i / L;
    put(t, (char *)p + i * s, flags ? (r % 2 ? 90 : 10) : 1 + (long)(r % 3));
    if (flags)
      flags[i] = r % 2 ? 0 : (uint8_t)(1 + r % 255);
  }
}

static void exact_runs_case(const config *c, pscan_dtype t, size_t n, size_t L) {
  size_t s = ref_dtype_size(t);
  pscan_dtype vt = s == 8 ? PSCAN_F64 : PSCAN_I32;
  char *in = test_malloc(n * s + 1), *vals = test_malloc(n * 8 + 1);
  uint8_t *flags = test_malloc(n + 1);
  fill_exact_runs(t, in, flags, n, L);
  for (int op = REF_SELECT_IF; op <= REF_PARTITION_IF; op++) {
    run_one(c, (op_kind)op, t, in, flags, n, PSCAN_LT, 50, false);
    if (op != REF_PARTITION_IF)
      run_one(c, (op_kind)op, t, in, flags, n, PSCAN_LT, 50, true);
  }
  fill_exact_runs(t, in, NULL, n, L);
  for (int op = REF_UNIQUE; op <= REF_RLE; op++) {
    run_one(c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, false);
    run_one(c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, true);
  }
  fill_vals(vt, PSCAN_SUM, vals, n);
  run_by_key(c, t, vt, PSCAN_SUM, in, vals, n);
  char init[8];
  put(vt, init, 5);
  run_scan_by_key(c, t, vt, PSCAN_SUM, 0, NULL, in, vals, n, false);
  run_scan_by_key(c, t, vt, PSCAN_SUM, 1, init, in, vals, n, true);
  free(in), free(vals), free(flags);
}

typedef struct tile_config {
  config c;
  size_t tile; /* 0: the CPU's default partition, 64 KiB of input */
} tile_config;

static void test_exact_runs(void) {
  enum { NTILES = 2 };
  static const tile_config cpu_tiles[NTILES] = {{{3, 64, PSCAN_ALGO_DECOUPLED_LOOKBACK}, 64},
                                                {{2, 0, PSCAN_ALGO_CHAINED}, 0}},
                           cuda_tiles[NTILES] = {{{1, 0, PSCAN_ALGO_AUTO}, 8192},
                                                 {{1, 0, PSCAN_ALGO_AUTO}, 4096}};
  const tile_config *tiles = backend->device ? cuda_tiles : cpu_tiles;
  /* quick: one type of each item size; light: i32 and i64 */
  static const pscan_dtype quick_types[] = {PSCAN_I8, PSCAN_U16, PSCAN_I32, PSCAN_F64};
  static const pscan_dtype light_types[] = {PSCAN_I32, PSCAN_I64};
  const pscan_dtype *types = light ? light_types : quick ? quick_types : all_types;
  int ntypes = light ? 2 : quick ? 4 : 10;
  unsigned cases = 0;
  for (size_t k = 0; k < NTILES; k++)
    for (int ti = 0; ti < ntypes; ti++) {
      pscan_dtype t = types[ti];
      size_t tile = tiles[k].tile ? tiles[k].tile : (size_t)65536 / ref_dtype_size(t);
      size_t sizes[] = {tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1};
      size_t lengths[] = {1, 2, 3, tile - 1, tile + 1};
      for (int si = 0; si < 5; si++)
        for (int li = 0; li < 5; li++) {
          if (light && li > 2 && si != 4)
            continue;
          exact_runs_case(&tiles[k].c, t, sizes[si], lengths[li]);
          cases++;
        }
    }
  printf("exact run lengths at tile boundaries: %u cases\n", cases);
}

/* ---- runs of random length, every vector lane position ----
   Keys in runs of geometric length with mean L (a new run with probability 1/L, L = 1 .. 5000),
   the run keys distinct from their neighbours (NaN runs and alternating 0.0 / -0.0 among float
   keys), so that heads fall on every lane of the CPU's 16- and 8-lane vector kernels and on
   partition edges (partitions of 15, 16, 17, 1000, 4097 items and the default). unique,
   run-length encoding, reduce_by_key (SUM, exact values) and inclusive scan_by_key (also in
   place), against the references. */
static void fill_geometric(pscan_dtype t, void *p, size_t n, unsigned mean) {
  size_t s = ref_dtype_size(t);
  long v = 0;
  int special = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || test_below(&rng, mean) == 0) {
      v = (v + 1 + (long)test_below(&rng, 50)) % 120; /* never the previous run's value */
      special = ref_is_float(t) && test_below(&rng, 12) == 0 ? 1 + (int)test_below(&rng, 2) : 0;
    }
    char *e = (char *)p + i * s;
    put(t, e, special ? 0 : v);
    if (special && t == PSCAN_F32) {
      float f = special == 1 ? NAN : (i % 2 ? -0.0f : 0.0f);
      memcpy(e, &f, 4);
    } else if (special) {
      double x = special == 1 ? NAN : (i % 2 ? -0.0 : 0.0);
      memcpy(e, &x, 8);
    }
  }
}

static void test_geometric_runs(void) {
  static const pscan_dtype keys[] = {PSCAN_I32, PSCAN_U64, PSCAN_F32, PSCAN_F64};
  static const pscan_dtype vals[] = {PSCAN_F32, PSCAN_F64, PSCAN_I32, PSCAN_U64};
  static const unsigned means[] = {1, 2, 3, 7, 16, 33, 100, 5000};
  static const int64_t parts[] = {0, 15, 16, 17, 1000, 4097};
  unsigned cases = 0;
  for (int pi = 0; pi < 6; pi++)
    for (int ki = 0; ki < 4; ki++) {
      config c = {1 + 2 * (pi % 2), parts[pi], pi % 3 == 2 ? PSCAN_ALGO_CHAINED : PSCAN_ALGO_DECOUPLED_LOOKBACK};
      pscan_dtype kt = keys[ki], vt = vals[(ki + (unsigned)pi) % 4];
      unsigned mean = means[(ki + 3 * (unsigned)pi) % 8];
      size_t n = 1 + (size_t)test_below(&rng, quick ? 20000 : 120000);
      char *k = test_malloc(n * ref_dtype_size(kt) + 1), *v = test_malloc(n * ref_dtype_size(vt) + 1);
      fill_geometric(kt, k, n, mean);
      fill_vals(vt, PSCAN_SUM, v, n);
      run_one(&c, REF_UNIQUE, kt, k, NULL, n, PSCAN_EQ, 0, pi % 2 == 1);
      run_one(&c, REF_RLE, kt, k, NULL, n, PSCAN_EQ, 0, pi % 2 == 1);
      run_by_key(&c, kt, vt, PSCAN_SUM, k, v, n);
      run_scan_by_key(&c, kt, vt, PSCAN_SUM, 0, NULL, k, v, n, pi % 2 == 1);
      free(k), free(v);
      cases++;
    }
  printf("geometric runs: %u cases\n", cases);
}

/* ---- run-length encoding's one pass at vector and partition edges (CPU) ----
   Exact runs of L items shifted by a phase (the first run phase items short), so that run ends
   fall on every lane of the 16- and 8-lane kernels and of their 8-lane halves of positions: L =
   1, 2, 7, 8, 9, 15, 16, 17, 33 and one run over the input, on partitions of 1, 8, 16, 17, 31
   and 48 items and the default, runs crossing partitions and whole partitions inside one run;
   1-, 4- and 8-byte keys (the portable and the AVX-512 kernels; n = 25 and 95 end in a span of
   16 items whose second vector of 8-byte keys holds 1 and 7 items). run_length_encode (in place
   too), unique and reduce_by_key (SUM) against the references. */
static void test_run_edges(void) {
  static const pscan_dtype keys[] = {PSCAN_I8, PSCAN_I32, PSCAN_F32, PSCAN_I64, PSCAN_F64};
  static const size_t lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 33, 0};
  static const int64_t parts[] = {1, 8, 16, 17, 31, 48, 0};
  static const size_t sizes[] = {1, 16, 17, 25, 95, 1000};
  unsigned cases = 0;
  for (int ki = 0; ki < 5; ki++)
    for (int li = 0; li < 10; li++)
      for (int pi = 0; pi < 7; pi++)
        for (int si = 0; si < 6; si++) {
          if (quick && (si + li + pi) % 3 != 0)
            continue;
          pscan_dtype kt = keys[ki], vt = ref_dtype_size(kt) == 8 ? PSCAN_F64 : PSCAN_I32;
          size_t n = sizes[si], L = lengths[li] ? lengths[li] : n, phase = (size_t)(li + pi) % L;
          config c = {1 + 2 * (pi % 2), parts[pi],
                      si % 2 ? PSCAN_ALGO_CHAINED : PSCAN_ALGO_DECOUPLED_LOOKBACK};
          size_t s = ref_dtype_size(kt);
          char *k = test_malloc(n * s + 1), *v = test_malloc(n * 8 + 1);
          for (size_t i = 0; i < n; i++)
            put(kt, k + i * s, 1 + (long)((i + phase) / L % 3));
          fill_vals(vt, PSCAN_SUM, v, n);
          run_one(&c, REF_RLE, kt, k, NULL, n, PSCAN_EQ, 0, false);
          run_one(&c, REF_RLE, kt, k, NULL, n, PSCAN_EQ, 0, true);
          run_one(&c, REF_UNIQUE, kt, k, NULL, n, PSCAN_EQ, 0, false);
          run_by_key(&c, kt, vt, PSCAN_SUM, k, v, n);
          free(k), free(v);
          cases++;
        }
  printf("run edges: %u cases\n", cases);
}

/* The program's phases in order: on which backends each runs, and the name under which the time
   so far is printed after it (NULL: not printed). */
enum { ON_BOTH, ON_HOST, ON_DEVICE };
typedef struct phase {
  void (*run)(void);
  int on;
  const char *timed;
} phase;
static const phase phases[] = {
    {test_refusals, ON_HOST, NULL}, /* api.c's checks, the same for both backends */
    {test_matrix, ON_BOTH, "matrix"},
    {test_configs, ON_BOTH, "configs"},
    {test_in_place_stress, ON_BOTH, "in place stress"},
    {test_heads_per_tile, ON_BOTH, NULL},
    {test_nearly_all_kept, ON_BOTH, NULL},
    {test_kept_around_out_buffer, ON_BOTH, NULL},
    {test_value_inside, ON_HOST, NULL},
    {test_by_key, ON_BOTH, NULL},
    {test_by_key_heads_per_tile, ON_BOTH, "reduce_by_key"},
    {test_scan_by_key, ON_BOTH, "scan_by_key"},
    {test_exact_runs, ON_BOTH, "exact runs"},
    {test_geometric_runs, ON_BOTH, NULL},
    {test_run_edges, ON_HOST, NULL},
    {test_large, ON_BOTH, NULL},
    {test_unaligned_device, ON_DEVICE, "unaligned device arrays"},
    {test_big, ON_DEVICE, NULL},
};

int main(int argc, char **argv) {
  backend = test_backend_pick(argc, argv);
  char program[64];
  snprintf(program, sizeof program, "test_compact --backend %s", backend->name);
  uint64_t seed = test_init(program);
  quick = test_quick();
  light = getenv("PSCAN_TEST_SANITIZE") && getenv("PSCAN_TEST_SANITIZE")[0] == '1';
  quick = quick || light;
  rng = test_fork(seed, 1);
  double t0 = test_seconds();
  if (backend->device)
    ctx_for(&(config){1, 0, PSCAN_ALGO_AUTO}); /* SKIP (77) here without a GPU */
  for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
    const phase *ph = &phases[i];
    if (ph->on != ON_BOTH && (ph->on == ON_DEVICE) != backend->device)
      continue;
    ph->run();
    if (ph->timed)
      printf("%s: %.2f s\n", ph->timed, test_seconds() - t0);
  }
  pscan_destroy(ctx_for(&(config){1, 0, PSCAN_ALGO_AUTO}));
  return test_finish();
}
