/* The compaction suite's cases at the edges of size and memory (test_compact.c says what the
 * suite covers; shared pieces in test_compact.h): nearly everything kept, selections around the
 * CUDA select kernel's output buffer, large inputs, n > 2^32 and unaligned device arrays on the
 * GPU, and the refusals (through compact_mirrors.h, as every call of test_compact.c). */
#include "test_compact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact_mirrors.h"

/* ---- nearly everything kept, over whole tiles in look-back mode ----
   The CUDA select kernel gathers the last warp's items after its look-back; the other warps'
   padded gather then reaches into the last warp's staged input (docs/PERFORMANCE.md, "Selection
   kernels") only
   when they keep nearly all of theirs: 97-100% selected, on several whole tiles and a partial
   one, every item size, in and out of place. (On the CPU backend: more of the same.) */
void test_nearly_all_kept(void) {
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
void test_kept_around_out_buffer(void) {
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

void test_large(void) {
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
void test_big(void) {
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

/* scan_by_key of i32 keys and f32 values (the flat tiles of 8192 items: keys read in 16-byte
   loads only where they are 16-byte aligned, else item by item) with keys, values and out
   0..3 items past an aligned start, runs of 1-3 items and longer ones, against the reference. */
static void unaligned_scan_by_key(pscan_ctx *ctx, size_t n, size_t k_off, size_t v_off) {
  int32_t *keys = test_malloc(n * 4);
  float *vals = test_malloc(n * 4), *want = test_malloc(n * 4), *got = test_malloc(n * 4);
  for (size_t i = 0, run = 0; i < n; i++) {
    if (test_below(&rng, i < n / 2 ? 2 : 300) == 0)
      run++;
    keys[i] = (int32_t)run;
    vals[i] = (float)test_below(&rng, 100);
  }
  ref_scan_by_key(keys, PSCAN_I32, vals, want, n, PSCAN_F32, PSCAN_SUM, 0, NULL);
  int32_t *d_keys = test_backend_alloc(backend, (n + 4) * 4);
  float *d_vals = test_backend_alloc(backend, (n + 4) * 4),
        *d_out = test_backend_alloc(backend, (n + 4) * 4);
  test_backend_put(backend, d_keys + k_off, keys, n * 4);
  test_backend_put(backend, d_vals + v_off, vals, n * 4);
  pscan_status st = (pscan_scan_by_key)(ctx, d_keys + k_off, PSCAN_I32, d_vals + v_off,
                                        d_out + (3 - v_off), n, PSCAN_F32, PSCAN_SUM, 0, NULL);
  test_backend_get(backend, got, d_out + (3 - v_off), n * 4);
  CHECK(st == PSCAN_OK && memcmp(got, want, n * 4) == 0,
        "scan_by_key i32 keys +%zu, f32 values +%zu, out +%zu items, n=%zu: %s or results differ",
        k_off, v_off, 3 - v_off, n, pscan_status_name(st));
  test_backend_free(backend, d_keys);
  test_backend_free(backend, d_vals);
  test_backend_free(backend, d_out);
  free(keys), free(vals), free(want), free(got);
}

void test_unaligned_device(void) {
  pscan_ctx *ctx = ctx_for(&(config){1, 0, PSCAN_ALGO_AUTO});
  for (size_t off = 0; off < 4; off++) /* i32: every offset within 16 bytes */
    unaligned_case(ctx, 4, 3 * 8192 + 77, off, (off * 3) % 4);
  for (size_t off = 0; off < 16; off += 5) /* u8 */
    unaligned_case(ctx, 1, 3 * 32768 + 77, off, (off * 7) % 16);
  for (size_t off = 0; off < 4; off++)
    unaligned_scan_by_key(ctx, 5 * 8192 + 13, off, (off + 1) % 4);
}

/* ---- refusals write nothing, not even the count ---- */

enum { RN = 100 };

void test_refusals(void) {
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
  REFUSED(PSCAN_ERR_INVALID_ARGUMENT, pscan_select_if(ctx, in, out, RN, (pscan_dtype)PSCAN_DTYPE_COUNT, PSCAN_LT, &v, &count));
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
