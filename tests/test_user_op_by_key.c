/* The user operator suite's by-key cases (test_user_op.c says what the suite covers; shared
 * pieces in test_user_op.h): pscan_reduce_by_key_op and pscan_scan_by_key_op against a sequential
 * loop over the runs of equal keys, for every operator of user_ops.h (affine maps of f32 and f64
 * and 2x2 / 3x3 matrices, which are not commutative, complex numbers, arg-max, a 3-byte and a
 * 1-byte one), compiled and as host_fn, on 1 and 3
 * threads with small and default partitions, runs of 1, up to 3, up to 50 items and one run,
 * sizes 0, 1, 2, around the partitions and random (the suite's printed seed); inclusive, with
 * init, exclusive with init and with the identity, in place. Then the refusals: elements over
 * 64 bytes, a predicate, overlapping buffers, an exclusive scan with neither init nor identity;
 * nothing written. The CUDA program runs both calls on the device (sizes around the operator's
 * tile, runs of 1 item to whole, keys of every dtype and NaN keys, the count in host and in
 * device memory, deterministic mode's results twice alike). */
#include "test_user_op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys in runs of 1 to max_run items; neighbouring runs differ. */
static void fill_keys(test_rng *r, int32_t *keys, size_t n, size_t max_run) {
  int32_t key = (int32_t)test_below(r, 100);
  size_t left = 0;
  for (size_t i = 0; i < n; i++) {
    if (left == 0) {
      key += 1 + (int32_t)test_below(r, 3);
      left = 1 + (size_t)test_below(r, max_run);
    }
    keys[i] = key;
    left--;
  }
}

/* *acc = *acc ⊕ *x through the reference function (which may not allow out to alias). */
static void combine_into(const uo_case *c, void *acc, const void *x) {
  char r[64];
  c->fn(r, acc, x, NULL);
  memcpy(acc, r, c->size);
}

static bool same(const uo_case *c, const void *a, const void *b) {
  return c->equal ? c->equal(a, b) : memcmp(a, b, c->size) == 0;
}

/* Each run scanned alone: init ⊕ (its values so far), exclusive from init (or the identity);
   head(keys, i): whether item i > 0 starts a run. */
static void uo_ref_scan_by_key(const uo_case *c, const void *keys,
                               bool (*head)(const void *, size_t), const char *vals, char *out,
                               size_t n, int exclusive, const void *init) {
  size_t s = c->size;
  char acc[64];
  bool have = false;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || head(keys, i))
      have = false;
    char *o = out + i * s;
    if (exclusive) {
      memcpy(o, init ? init : c->identity, s);
      if (have && init)
        combine_into(c, o, acc);
      else if (have)
        memcpy(o, acc, s);
    }
    if (have)
      combine_into(c, acc, vals + i * s);
    else
      memcpy(acc, vals + i * s, s);
    have = true;
    if (!exclusive) {
      memcpy(o, init ? init : acc, s);
      if (init)
        combine_into(c, o, acc);
    }
  }
}

/* A scan's variant: mode 0 inclusive, 1 with init, 2 exclusive with init, 3 exclusive from the
   identity (2 where the operator has none); in place by bit 2. Returns the init to pass. */
static const void *scan_variant(const uo_case *c, unsigned variant, const void *init, int *mode,
                                int *exclusive, bool *in_place) {
  *mode = (int)(variant % 4);
  *in_place = variant & 4;
  if (*mode == 3 && !c->identity)
    *mode = 2;
  *exclusive = *mode >= 2;
  return *mode == 1 || *mode == 2 ? init : NULL;
}

static bool head_i32(const void *keys, size_t i) {
  return ((const int32_t *)keys)[i] != ((const int32_t *)keys)[i - 1];
}

#ifndef TEST_USER_OP_ON_CUDA

static size_t uo_ref_reduce_by_key(const uo_case *c, const int32_t *keys, const char *vals,
                                   size_t n, int32_t *keys_out, char *vals_out) {
  size_t s = c->size, runs = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      keys_out[runs] = keys[i];
      memcpy(vals_out + runs++ * s, vals + i * s, s);
    } else {
      combine_into(c, vals_out + (runs - 1) * s, vals + i * s);
    }
  }
  return runs;
}

/* One reduce_by_key_op and one scan_by_key_op (mode: 0 inclusive, 1 with init, 2 exclusive
   with init, 3 exclusive from the identity; in place by the variant) of n values. */
static void check_by_key(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op, size_t n,
                         size_t max_run, unsigned variant, test_rng *rng, const char *how) {
  size_t s = c->size;
  int32_t *keys = test_malloc((n + 1) * sizeof *keys);
  int32_t *keys_out = test_malloc((n + SLACK) * sizeof *keys);
  int32_t *keys_want = test_malloc((n + 1) * sizeof *keys);
  char *vals = test_malloc((n + 1) * s), *out = test_malloc((n + SLACK) * s);
  char *want = test_malloc((n + 1) * s), init[64];
  fill_keys(rng, keys, n, max_run);
  for (size_t i = 0; i < n; i++)
    c->fill(rng, vals + i * s);
  c->fill(rng, init);

  size_t runs = uo_ref_reduce_by_key(c, keys, vals, n, keys_want, want), count = (size_t)-1;
  test_poison(keys_out, (n + SLACK) * sizeof *keys);
  test_poison(out, (n + SLACK) * s);
  pscan_status st =
      pscan_reduce_by_key_op(ctx, keys, PSCAN_I32, vals, keys_out, out, n, op, &count);
  bool ok = st == PSCAN_OK && count == runs && memcmp(keys_out, keys_want, runs * 4) == 0 &&
            test_is_poisoned(out + runs * s, (n + SLACK - runs) * s) &&
            test_is_poisoned(keys_out + runs, (n + SLACK - runs) * sizeof *keys);
  for (size_t r = 0; ok && r < runs; r++)
    ok = same(c, out + r * s, want + r * s);
  CHECK(ok, "reduce_by_key_op %s %s n %zu runs <= %zu: %s, %zu runs (want %zu)", c->label, how, n,
        max_run, pscan_status_name(st), count, runs);

  int mode = 0, exclusive = 0;
  bool in_place = false;
  const void *from = scan_variant(c, variant, init, &mode, &exclusive, &in_place);
  uo_ref_scan_by_key(c, keys, head_i32, vals, want, n, exclusive, from);
  test_poison(out, (n + SLACK) * s);
  if (in_place)
    memcpy(out, vals, n * s);
  st = pscan_scan_by_key_op(ctx, keys, PSCAN_I32, in_place ? out : vals, out, n, op, exclusive,
                            from);
  size_t bad = n;
  ok = st == PSCAN_OK && test_is_poisoned(out + n * s, SLACK * s);
  for (size_t i = 0; ok && i < n; i++)
    if (!same(c, out + i * s, want + i * s))
      ok = false, bad = i;
  CHECK(ok, "scan_by_key_op %s %s n %zu runs <= %zu mode %d%s: %s, first wrong at %zu", c->label,
        how, n, max_run, mode, in_place ? " in place" : "", pscan_status_name(st), bad);
  free(keys), free(keys_out), free(keys_want), free(vals), free(out), free(want);
}

static void by_key_case(const uo_case *c, bool host, test_rng *rng) {
  static const struct {
    int threads;
    int64_t partition;
  } cfgs[] = {{1, 0}, {3, 7}, {3, 64}, {3, 0}};
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .identity = c->identity,
                     .host_fn = host ? c->fn : NULL};
  unsigned variant = 0;
  for (size_t k = 0; k < sizeof cfgs / sizeof *cfgs; k++) {
    pscan_ctx *ctx = make_ctx(cfgs[k].threads);
    test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, cfgs[k].partition);
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
    size_t p = cfgs[k].partition ? (size_t)cfgs[k].partition : 4096;
    const size_t sizes[] = {0, 1, 2, p - 1, p, p + 1, 3 * p + 2,
                            1 + (size_t)test_below(rng, quick ? 20000 : 200000)};
    const size_t max_runs[] = {1, 3, 50, SIZE_MAX};
    char how[64];
    snprintf(how, sizeof how, "%s, %d threads, partition %lld", host ? "host_fn" : "compiled",
             cfgs[k].threads, (long long)cfgs[k].partition);
    for (size_t si = 0; op && si < sizeof sizes / sizeof *sizes; si++)
      for (size_t ri = 0; ri < 4; ri++)
        check_by_key(ctx, c, op, sizes[si], max_runs[ri], variant++, rng, how);
    pscan_op_destroy(op);
    pscan_destroy(ctx);
  }
}

/* Refused calls write nothing. */
static void by_key_refusals(void) {
  pscan_ctx *ctx = make_ctx(2);
  enum { N = 100 };
  int32_t keys[N], keys_out[N];
  _Alignas(16) char vals[N * 72];
  _Alignas(16) char out[N * 72];
  size_t count = 7;
  for (size_t i = 0; i < N; i++)
    keys[i] = (int32_t)(i / 3);
  memset(vals, 1, sizeof vals);
  const uo_case *f32 = &uo_cases[0];
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE,
                     .source = "typedef struct { unsigned m[18]; } big;\n"
                               "big keep_right(big a, big b) { (void)a; return b; }\n",
                     .type_name = "big", .name = "keep_right", .elem_size = 72};
  pscan_user_op *wide = NULL, *affine = NULL, *noid = NULL, *pred = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &d, &wide), PSCAN_OK);
  d = (pscan_op_desc){.kind = PSCAN_KIND_COMBINE, .source = f32->source,
                      .type_name = f32->type_name, .name = f32->name, .elem_size = f32->size,
                      .identity = f32->identity};
  CHECK_STATUS(pscan_op_create(ctx, &d, &affine), PSCAN_OK);
  d.identity = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &d, &noid), PSCAN_OK);
  d = (pscan_op_desc){.kind = PSCAN_KIND_PREDICATE, .source = "int pos(int x) { return x > 0; }",
                      .type_name = "int", .name = "pos", .elem_size = 4};
  CHECK_STATUS(pscan_op_create(ctx, &d, &pred), PSCAN_OK);
  test_poison(out, sizeof out);
  test_poison(keys_out, sizeof keys_out);
  CHECK_STATUS(pscan_reduce_by_key_op(ctx, keys, PSCAN_I32, vals, keys_out, out, N, wide, &count),
               PSCAN_ERR_UNSUPPORTED);
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, PSCAN_I32, vals, out, N, wide, 0, NULL),
               PSCAN_ERR_UNSUPPORTED);
  CHECK_STATUS(pscan_reduce_by_key_op(ctx, keys, PSCAN_I32, vals, keys_out, out, N, pred, &count),
               PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, PSCAN_I32, vals, out, N, NULL, 0, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, PSCAN_I32, vals, out, N, noid, 1, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, PSCAN_I32, vals, out, N, affine, 2, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, (pscan_dtype)99, vals, out, N, affine, 0, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_by_key_op(ctx, keys, PSCAN_I32, vals, keys_out, out, N, affine, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  /* out over the values shifted by one element; keys_out over the values */
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, PSCAN_I32, vals, vals + 8, N - 1, affine, 0, NULL),
               PSCAN_ERR_OVERLAP);
  CHECK_STATUS(pscan_reduce_by_key_op(ctx, keys, PSCAN_I32, vals, (int32_t *)(void *)vals, out, N,
                                      affine, &count),
               PSCAN_ERR_OVERLAP);
  CHECK_STATUS(pscan_scan_by_key_op(ctx, keys, PSCAN_I32, keys, keys_out, N / 2, affine, 0, NULL),
               PSCAN_OK); /* keys as values: inputs may overlap each other */
  test_poison(keys_out, sizeof keys_out);
  CHECK(test_is_poisoned(out, sizeof out) && count == 7, "a refused by-key call wrote");
  pscan_op_destroy(wide), pscan_op_destroy(affine), pscan_op_destroy(noid), pscan_op_destroy(pred);
  pscan_destroy(ctx);
}

void test_by_key_op(void) {
  test_rng rng = test_fork(seed, 5000);
  for (int i = 0; i < UO_NCASES; i++) {
    by_key_case(&uo_cases[i], false, &rng);
    if (!quick || i == 0)
      by_key_case(&uo_cases[i], true, &rng);
  }
  by_key_refusals();
}

#else

#include "cuda/jit/jit.h" /* pscan__jit_tile_items: the tiles the sizes go around */

#include <math.h>

/* keys as key_type (the int32 keys converted: neighbouring runs, 1-3 apart, stay different). */
static void *keys_as(const int32_t *keys, size_t n, pscan_dtype t) {
  size_t ks = pscan_dtype_size(t);
  unsigned char *out = test_malloc((n + 1) * ks);
  for (size_t i = 0; i < n; i++) {
    int32_t k = keys[i];
    union { int8_t i8; int16_t i16; int64_t i64; uint8_t u8; uint16_t u16; uint32_t u32;
            uint64_t u64; float f32; double f64; int32_t i32; } v;
    switch (t) {
    case PSCAN_I8: v.i8 = (int8_t)k; break;
    case PSCAN_I16: v.i16 = (int16_t)k; break;
    case PSCAN_I64: v.i64 = (int64_t)k * 4000000000ll; break;
    case PSCAN_U8: v.u8 = (uint8_t)k; break;
    case PSCAN_U16: v.u16 = (uint16_t)k; break;
    case PSCAN_U32: v.u32 = (uint32_t)k; break;
    case PSCAN_U64: v.u64 = (uint64_t)(uint32_t)k << 32; break;
    case PSCAN_F32: v.f32 = (float)k; break;
    case PSCAN_F64: v.f64 = (double)k; break;
    default: v.i32 = k; break;
    }
    memcpy(out + i * ks, &v, ks);
  }
  return out;
}

/* The heads of float keys by ==, as the API compares them (NaN starts a run at every item). */
static bool head_f32(const void *keys, size_t i) {
  return !(((const float *)keys)[i] == ((const float *)keys)[i - 1]);
}

/* reduce_by_key_op on the device beside the sequential loop: each run's first key and the
   combination of its values (the run's last inclusive scan value); the count in host memory,
   or in device memory for count_on_device; nothing past the runs written. */
static void check_reduce_cuda(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op,
                              const void *keys, void *dk, bool (*head)(const void *, size_t),
                              const void *ref_keys, pscan_dtype key_type, void *dv,
                              const char *vals, size_t n, bool count_on_device, const char *what) {
  size_t s = c->size, ks = pscan_dtype_size(key_type), runs = 0;
  char *scanned = test_malloc((n + 1) * s), *want = test_malloc((n + 1) * s);
  unsigned char *want_keys = test_malloc((n + 1) * ks);
  uo_ref_scan_by_key(c, ref_keys, head, vals, scanned, n, 0, NULL);
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || head(ref_keys, i))
      memcpy(want_keys + runs++ * ks, (const unsigned char *)keys + i * ks, ks);
    memcpy(want + (runs - 1) * s, scanned + i * s, s);
  }
  char *out = test_malloc((n + SLACK) * s);
  unsigned char *kout = test_malloc((n + SLACK) * ks);
  test_poison(out, (n + SLACK) * s);
  test_poison(kout, (n + SLACK) * ks);
  void *dvo = dev_copy(out, (n + SLACK) * s), *dko = dev_copy(kout, (n + SLACK) * ks);
  size_t count = (size_t)-1, *dcount = count_on_device ? dev_copy(&count, sizeof count) : NULL;
  pscan_status st = pscan_reduce_by_key_op(ctx, dk, key_type, dv, dko, dvo, n, op,
                                           count_on_device ? dcount : &count);
  if (count_on_device) {
    dev_back(&count, dcount, sizeof count);
    CUDA_OK(cudaFree(dcount));
  }
  dev_back(out, dvo, (n + SLACK) * s);
  dev_back(kout, dko, (n + SLACK) * ks);
  bool ok = st == PSCAN_OK && count == runs && memcmp(kout, want_keys, runs * ks) == 0 &&
            test_is_poisoned(out + runs * s, (n + SLACK - runs) * s) &&
            test_is_poisoned(kout + runs * ks, (n + SLACK - runs) * ks);
  size_t bad = runs;
  for (size_t r = 0; ok && r < runs; r++)
    if (!same(c, out + r * s, want + r * s))
      ok = false, bad = r;
  CHECK(ok, "cuda reduce_by_key_op %s %s n %zu%s: %s, %zu runs (want %zu), first wrong run %zu",
        c->label, what, n, count_on_device ? " (count in device memory)" : "",
        pscan_status_name(st), count, runs, bad);
  CUDA_OK(cudaFree(dvo));
  CUDA_OK(cudaFree(dko));
  free(scanned), free(want), free(want_keys), free(out), free(kout);
}

/* One scan_by_key_op and one reduce_by_key_op on the device (mode as the CPU suite's: 0
   inclusive, 1 with init, 2 exclusive with init, 3 exclusive from the identity; in place by the
   variant) against the sequential loop over the runs; keys of key_type, from runs of at most
   max_run items (NaN keys for nan), placed `shift` keys past an aligned start (the kernels read
   whole aligned rows of keys 16 bytes at a time, others key by key). Returns the device result's
   bytes (caller frees) for the determinism check. */
static char *check_by_key_cuda(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op, size_t n,
                               size_t max_run, unsigned variant, pscan_dtype key_type, bool nan,
                               size_t shift, test_rng *rng, const char *how) {
  size_t s = c->size, ks = pscan_dtype_size(key_type);
  int32_t *k32 = test_malloc((n + 1) * sizeof *k32);
  fill_keys(rng, k32, n, max_run);
  void *keys = keys_as(k32, n, key_type);
  if (nan)
    for (size_t i = 0; i < n; i++)
      if (k32[i] % 3 == 0)
        ((float *)keys)[i] = NAN;
  char *vals = test_malloc((n + 1) * s), *out = test_malloc((n + SLACK) * s);
  char *want = test_malloc((n + 1) * s), init[64];
  for (size_t i = 0; i < n; i++)
    c->fill(rng, vals + i * s);
  c->fill(rng, init);
  int mode = 0, exclusive = 0;
  bool in_place = false;
  const void *from = scan_variant(c, variant, init, &mode, &exclusive, &in_place);
  bool (*head)(const void *, size_t) = key_type == PSCAN_F32 ? head_f32 : head_i32;
  const void *ref_keys = key_type == PSCAN_F32 ? keys : (const void *)k32;
  uo_ref_scan_by_key(c, ref_keys, head, vals, want, n, exclusive, from);
  test_poison(out, (n + SLACK) * s);
  unsigned char *shifted = test_malloc((n + shift) * ks + 1);
  memset(shifted, 0, shift * ks);
  memcpy(shifted + shift * ks, keys, n * ks);
  unsigned char *dk_start = dev_copy(shifted, (n + shift) * ks + 1);
  void *dk = dk_start + shift * ks, *dv = dev_copy(vals, n * s + 1);
  char what[96];
  snprintf(what, sizeof what, "%s keys %s%s runs <= %zu, %zu keys past alignment", how,
           pscan__dtype_name(key_type), nan ? " (NaN)" : "", max_run, shift);
  check_reduce_cuda(ctx, c, op, keys, dk, head, ref_keys, key_type, dv, vals, n, variant % 3 == 1,
                    what);
  void *dout = in_place ? dv : dev_copy(out, (n + SLACK) * s);
  pscan_status st = pscan_scan_by_key_op(ctx, dk, key_type, dv, dout, n, op, exclusive, from);
  dev_back(out, dout, (in_place ? n : n + SLACK) * s);
  size_t bad = n;
  bool ok = st == PSCAN_OK && (in_place || test_is_poisoned(out + n * s, SLACK * s));
  for (size_t i = 0; ok && i < n; i++)
    if (!same(c, out + i * s, want + i * s))
      ok = false, bad = i;
  CHECK(ok, "cuda scan_by_key_op %s %s n %zu mode %d%s: %s, first wrong at %zu", c->label, what,
        n, mode, in_place ? " in place" : "", pscan_status_name(st), bad);
  CUDA_OK(cudaFree(dk_start));
  CUDA_OK(cudaFree(dv));
  if (!in_place)
    CUDA_OK(cudaFree(dout));
  free(k32), free(keys), free(shifted), free(vals), free(want);
  return out;
}

/* Every operator over sizes around its tile and runs of 1 item to the whole input; keys of
   every dtype for the first; deterministic mode's bits twice alike. */
static void by_key_cuda_case(const uo_case *c, bool first, test_rng *rng) {
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .identity = c->identity};
  pscan_ctx *ctx = make_ctx(1);
  pscan_user_op *op = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
  const size_t t = pscan__jit_tile_items(c->size);
  const size_t sizes[] = {0, 1, 2, t - 1, t, t + 1, 3 * t + 2, 40 * t + 7,
                          1 + (size_t)test_below(rng, quick ? 50000 : 500000)};
  const size_t max_runs[] = {1, 3, 50, 2 * t + 5, SIZE_MAX};
  unsigned variant = 0;
  for (size_t si = 0; op && si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ri = 0; ri < sizeof max_runs / sizeof *max_runs; ri++)
      free(check_by_key_cuda(ctx, c, op, sizes[si], max_runs[ri], variant++, PSCAN_I32, false,
                             0, rng, ""));
  for (int kt = 0; first && op && kt < PSCAN_DTYPE_COUNT; kt++)
    for (size_t ri = 0; ri < 3; ri++)
      for (size_t shift = 0; shift < 2; shift++)
        free(check_by_key_cuda(ctx, c, op, 5 * t + 3, max_runs[ri], variant++, (pscan_dtype)kt,
                               false, shift, rng, ""));
  if (first && op)
    free(check_by_key_cuda(ctx, c, op, 3 * t + 1, 3, 0, PSCAN_F32, true, 0, rng, ""));
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 1);
  const size_t big = (quick ? (size_t)1 << 20 : (size_t)1 << 22) + 11; /* hundreds of tiles */
  for (size_t ri = 2; op && ri < sizeof max_runs / sizeof *max_runs; ri++) {
    test_rng r1 = *rng, r2 = *rng;
    char *a = check_by_key_cuda(ctx, c, op, big, max_runs[ri], 1, PSCAN_I32, false, 0, &r1,
                                "deterministic");
    char *b = check_by_key_cuda(ctx, c, op, big, max_runs[ri], 1, PSCAN_I32, false, 0, &r2,
                                "deterministic, again");
    CHECK(memcmp(a, b, big * c->size) == 0, "cuda scan_by_key_op %s deterministic: two runs of "
          "%zu items (runs <= %zu) differ", c->label, big, max_runs[ri]);
    free(a), free(b);
    *rng = r1;
  }
  pscan_op_destroy(op);
  pscan_destroy(ctx);
}

void test_by_key_op(void) {
  test_rng rng = test_fork(seed, 5000);
  for (int i = 0; i < UO_NCASES; i++)
    by_key_cuda_case(&uo_cases[i], i == 0, &rng);
}

#endif
