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
 * 16-byte boundary and (PSCAN_TEST_BIG=1) n > 2^32 are added.
 *
 * One program in three files (what they share: test_compact.h): this one holds the data helpers,
 * the checked calls against the references, the selection cases (matrix, configurations, in
 * place) and main; test_compact_runs.c the run and by-key cases (heads per tile, reduce_by_key,
 * scan_by_key, exact, geometric and edge runs); test_compact_edges.c nearly everything kept,
 * large inputs, n > 2^32, unaligned device arrays and the refusals. */
#include "test_compact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const test_backend *backend;
test_rng rng;
bool quick;
bool light;

static const char *const cmp_names[] = {"LT", "LE", "GT", "GE", "EQ", "NE"};
/* Thresholds on data in [0, 100): LT gives 0%, ~1%, 50%, ~99%, 100%. */
static const int thresholds[] = {0, 1, 50, 99, 100};

/* ---- element helpers ---- */

/* Data in [0, 100); for floats, with nan_every > 0, every so often a NaN or a -0.0. */
void fill(pscan_dtype t, void *p, size_t n, unsigned nan_every) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    char *e = (char *)p + i * s;
    ref_store_int(t, (long)test_below(&rng, 100), e);
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
void fill_flags(uint8_t *f, size_t n, unsigned permille) {
  for (size_t i = 0; i < n; i++)
    f[i] = test_below(&rng, 1000) < permille ? (uint8_t)(1 + test_below(&rng, 255)) : 0;
}

/* Run-structured data. mode 0: independent values in [0, 100) (runs of ~1, some of 2 or more);
   mode 1: runs of random length, ~500 on average; mode 2: one value. Floats get NaN runs (each
   NaN is a run of its own) and -0.0 inside runs of 0.0 (equal, so the same run). */
void fill_runs(pscan_dtype t, void *p, size_t n, int mode) {
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
    ref_store_int(t, special == 2 ? 0 : v, e);
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

static const char *const op_names[] = {"select_if", "select_flagged", "partition_if", "unique",
                                       "run_length_encode"};

/* ---- one checked call ---- */

int deterministic;

pscan_ctx *ctx_for(const config *c) {
  static pscan_ctx *ctx;
  if (backend->device) { /* one context: SKIP (77) where the backend cannot run */
    if (!ctx)
      ctx = test_backend_ctx(backend, 0);
    test_set(ctx, PSCAN_PARAM_ALGO, c->algo);
    test_set(ctx, PSCAN_PARAM_DETERMINISTIC, deterministic);
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
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, deterministic);
  return ctx;
}

#include "compact_mirrors.h"

/* Partition sizes at boundaries (with 0, the default); on CUDA the kernels' tiles instead (8192
   items of 1-, 2- and 4-byte types in the selection and run-head kernels, 4096 of 8-byte ones and
   by key; 2048, half a by-key tile). */
const int64_t *boundaries(void) {
  static const int64_t cpu[] = {1, 7, 64, 0}, cuda[] = {8192, 4096, 2048, 0};
  return backend->device ? cuda : cpu;
}

/* Runs op on in[0..n) (in place when in_place) and checks it against the reference. */
void run_one(const config *c, op_kind op, pscan_dtype t, const void *in,
                    const uint8_t *flags, size_t n, pscan_cmp cmp, int threshold, bool in_place) {
  size_t s = ref_dtype_size(t);
  char value[8];
  ref_store_int(t, threshold, value);
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


/* ---- the matrix: every type, cmp and ratio ---- */

static void test_matrix(void) {
  static const config configs[] = {{1, 0, PSCAN_ALGO_AUTO},
                                   {3, 7, PSCAN_ALGO_DECOUPLED_LOOKBACK},
                                   {2, 64, PSCAN_ALGO_CHAINED}};
  static const unsigned permilles[] = {0, 10, 500, 990, 1000};
  size_t max_n = quick ? 300 : 3000;
  for (size_t ci = 0; ci < (light ? 1 : sizeof configs / sizeof *configs); ci++)
    for (int ti = 0; ti < REF_NTYPES; ti++)
      for (int cmp = 0; cmp < PSCAN_CMP_COUNT; cmp += light ? 5 : 1)
        for (int r = light ? 1 : 0; r < 5; r += light ? 2 : 1) {
          size_t sizes[] = {0, 1, 2, 1 + (size_t)test_below(&rng, max_n)};
          for (int si = 0; si < 4; si++)
            run_all_ops(&configs[ci], (pscan_dtype)ti, sizes[si], (pscan_cmp)cmp, thresholds[r],
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
        pscan_dtype t = (pscan_dtype)(round % REF_NTYPES);
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
void fill_vals(pscan_dtype t, pscan_op op, void *p, size_t n) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    long v = ref_is_float(t) && op == PSCAN_PROD ? (test_below(&rng, 2) ? 1 : -1)
             : op == PSCAN_PROD                  ? (long)test_below(&rng, 4)
                                                 : (long)test_below(&rng, 100);
    ref_store_int(t, v, (char *)p + i * s);
  }
}

void run_by_key(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op,
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

/* ---- scan_by_key ---- */

void run_scan_by_key(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op,
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

/* The program's phases in order: on which backends each runs, its name (PSCAN_TEST_PARTS=name,...
   runs only those named, tests/test.c), and whether the time so far is printed after it. */
enum { ON_BOTH, ON_HOST, ON_DEVICE };
typedef struct phase {
  void (*run)(void);
  int on;
  const char *name;
  bool timed;
} phase;
static const phase phases[] = {
    {test_refusals, ON_HOST, "refusals", false}, /* api.c's checks, the same for both backends */
    {test_matrix, ON_BOTH, "matrix", true},
    {test_configs, ON_BOTH, "configs", true},
    {test_in_place_stress, ON_BOTH, "in place stress", true},
    {test_heads_per_tile, ON_BOTH, "heads_per_tile", false},
    {test_nearly_all_kept, ON_BOTH, "nearly_all_kept", false},
    {test_kept_around_out_buffer, ON_BOTH, "kept_around_out_buffer", false},
    {test_value_inside, ON_HOST, "value_inside", false},
    {test_by_key, ON_BOTH, "by_key", false},
    {test_by_key_heads_per_tile, ON_BOTH, "reduce_by_key", true},
    {test_scan_by_key, ON_BOTH, "scan_by_key", true},
    {test_by_key_deterministic, ON_BOTH, "by_key_deterministic", false},
    {test_exact_runs, ON_BOTH, "exact runs", true},
    {test_scan_by_key_tiles, ON_BOTH, "scan_by_key_tiles", false},
    {test_geometric_runs, ON_BOTH, "geometric_runs", false},
    {test_run_edges, ON_HOST, "run_edges", false},
    {test_large, ON_BOTH, "large", false},
    {test_unaligned_device, ON_DEVICE, "unaligned device arrays", true},
    {test_big, ON_DEVICE, "big", false},
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
    if ((ph->on != ON_BOTH && (ph->on == ON_DEVICE) != backend->device) || !test_part(ph->name))
      continue;
    ph->run();
    if (ph->timed)
      printf("%s: %.2f s\n", ph->name, test_seconds() - t0);
  }
  pscan_destroy(ctx_for(&(config){1, 0, PSCAN_ALGO_AUTO}));
  return test_finish();
}
