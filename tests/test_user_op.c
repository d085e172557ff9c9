/* User operators and predicates from source (pscan_op_create, pscan_scan_op, pscan_select_op,
 * pscan_partition_op), differential against a sequential loop over the same operator on the host:
 * every operator of user_ops.h (affine f32/f64, 2x2 and 3x3 matrices, complex, arg-max, 3- and
 * 1-byte elements), compiled and through host_fn, on sizes 0, 1, partition +-1, 2^k +-1 and random
 * ones (seeded), inclusive / exclusive / with init / in place, on 1..3 threads and several
 * partition sizes; a predicate's select and partition, in place too. Then the refusals (bad
 * descriptors, kinds, contexts, overlap, elem_size against sizeof, compile errors with the
 * compiler's line, a missing compiler) and the disk cache: a hit compiles nothing, a corrupt
 * entry is rebuilt, an unusable cache directory still works. The compiler is counted through a
 * wrapper script given as PSCAN_CC. The cache lives in a fresh temporary directory.
 *
 * Built as test_cuda_user_op_api with TEST_USER_OP_ON_CUDA: the same differential checks on the CUDA
 * backend (buffers mirrored to the device); exits 77 without a GPU. The compiler and cache checks
 * are the CPU backend's and run only on the CPU build. */
#define _GNU_SOURCE
#include "../src/cpu/cpu.h" /* pscan__fault_arm, the seam for other engines (host combine) */
#include "axis_op_refusals.h"
#include "axis_store.h"
#include "reference.h"
#include "test.h"
#include "user_ops.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SLACK = 8 }; /* poisoned elements past n that no call may write */

static bool quick;
static uint64_t seed;

#ifdef TEST_USER_OP_ON_CUDA
#include "cuda_ok.h"
static void *dev_copy(const void *host, size_t bytes) {
  void *d = NULL;
  CUDA_OK(cudaMalloc(&d, bytes ? bytes : 1));
  if (host && bytes)
    CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}
static void dev_back(void *host, void *dev, size_t bytes) {
  CUDA_OK(cudaDeviceSynchronize());
  if (host && bytes)
    CUDA_OK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}
#endif

/* The calls, on host buffers: on the CUDA build through device mirrors of in and out (the slack
   included; one buffer when in place). */
/* A scan (scan true; flag: exclusive) or a select (flag 0) or partition (flag 1). */
static pscan_status do_call(pscan_ctx *ctx, bool scan, const void *in, void *out, size_t n,
                            const pscan_user_op *op, size_t size, int flag, const void *init,
                            size_t *count) {
  const void *lib_in = in;
  void *lib_out = out;
#ifdef TEST_USER_OP_ON_CUDA
  size_t ob = (n + SLACK) * size;
  lib_out = dev_copy(out, ob);
  lib_in = in == out ? lib_out : dev_copy(in, n * size);
#else
  (void)size;
#endif
  pscan_status s = scan   ? pscan_scan_op(ctx, lib_in, lib_out, n, op, flag, init)
                   : flag ? pscan_partition_op(ctx, lib_in, lib_out, n, op, count)
                          : pscan_select_op(ctx, lib_in, lib_out, n, op, count);
#ifdef TEST_USER_OP_ON_CUDA
  dev_back(out, lib_out, ob);
  if (lib_in != lib_out)
    CUDA_OK(cudaFree((void *)(uintptr_t)lib_in));
  CUDA_OK(cudaFree(lib_out));
#endif
  return s;
}

static pscan_status do_scan(pscan_ctx *ctx, const void *in, void *out, size_t n,
                            const pscan_user_op *op, size_t size, int excl, const void *init) {
  return do_call(ctx, true, in, out, n, op, size, excl, init, NULL);
}

static pscan_status do_select(pscan_ctx *ctx, const void *in, void *out, size_t n,
                              const pscan_user_op *op, size_t size, int partition,
                              size_t *count) {
  return do_call(ctx, false, in, out, n, op, size, partition, NULL, count);
}

static pscan_ctx *make_ctx(int threads) {
#ifdef TEST_USER_OP_ON_CUDA
  (void)threads;
  pscan_ctx *ctx = NULL;
  if (pscan_create(&ctx, PSCAN_BACKEND_CUDA) != PSCAN_OK) {
    printf("SKIP: no usable CUDA device (%s)\n", pscan_last_error(NULL));
    exit(77);
  }
  return ctx;
#else
  return test_ctx(threads);
#endif
}

/* ---- The sequential reference ---- */

static void ref_scan_case(const uo_case *c, const void *in, void *out, size_t n, int excl,
                          const void *init) {
  ref_scan_combine(in, out, n, c->size, c->fn, NULL, excl, init);
}

/* ---- Differential scans ---- */

typedef struct run_cfg {
  int threads;
  int64_t partition; /* PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 0: default */
} run_cfg;

/* One scan of n elements against the reference; mode 0: inclusive, 1: inclusive with init,
   2: exclusive with init, 3: exclusive with the identity (init NULL). */
static void check_scan(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op, size_t n,
                       int mode, bool in_place, test_rng *rng, const char *how) {
  size_t s = c->size, bytes = (n + SLACK) * s;
  char *in = test_malloc(bytes), *out = test_malloc(bytes), *want = test_malloc(bytes);
  char init[64];
  for (size_t i = 0; i < n; i++)
    c->fill(rng, in + i * s);
  c->fill(rng, init);
  if (mode == 3 && !c->identity)
    mode = 2;
  int excl = mode >= 2;
  const void *init_arg = mode == 1 || mode == 2 ? init : NULL;
  ref_scan_case(c, in, want, n, excl, mode == 3 ? c->identity : init_arg);
  test_poison(out, bytes);
  if (in_place) {
    memcpy(out, in, n * s);
  }
  pscan_status st = do_scan(ctx, in_place ? out : in, out, n, op, s, excl, init_arg);
  CHECK(st == PSCAN_OK, "%s %s n=%zu mode=%d in_place=%d: %s (%s)", c->label, how, n, mode,
        in_place, pscan_status_name(st), pscan_last_error(ctx));
  if (st == PSCAN_OK) {
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
      if (c->equal ? !c->equal(out + i * s, want + i * s) : memcmp(out + i * s, want + i * s, s) != 0)
        bad = i;
    CHECK(bad == n, "%s %s n=%zu mode=%d in_place=%d: first difference at %zu", c->label, how,
          n, mode, in_place, bad);
    CHECK(test_is_poisoned(out + n * s, SLACK * s), "%s %s n=%zu: wrote past n", c->label, how,
          n);
  }
  free(in);
  free(out);
  free(want);
}

static void sizes_for(size_t part, size_t *sizes, int *count, test_rng *rng) {
  int k = 0;
  size_t fixed[] = {0, 1, 2, 3, 63, 64, 65, 255, 256, 257, 1000};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    sizes[k++] = fixed[i];
  if (part) {
    sizes[k++] = part - 1, sizes[k++] = part, sizes[k++] = part + 1;
    sizes[k++] = 3 * part - 1, sizes[k++] = 3 * part + 1;
  }
  for (int e = 11; e <= (quick ? 15 : 18); e += quick ? 4 : 2)
    sizes[k++] = ((size_t)1 << e) - 1, sizes[k++] = ((size_t)1 << e) + 1;
  for (int r = 0; r < (quick ? 2 : 4); r++)
    sizes[k++] = (size_t)test_below(rng, quick ? 50000 : 300000);
  *count = k;
}

static void test_differential(const uo_case *c, bool host_fn) {
  static const run_cfg cfgs[] = {{1, 0}, {2, 0}, {3, 64}, {2, 1000}, {0, 0}};
  test_rng rng = test_fork(seed, (uint64_t)(c - uo_cases) * 2 + host_fn);
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .identity = c->identity,
                     .host_fn = host_fn ? c->fn : NULL};
  const char *how = host_fn ? "host_fn" : "compiled";
  int ncfg = 0;
  for (size_t ci = 0; ci < sizeof cfgs / sizeof *cfgs; ci++) {
#ifdef TEST_USER_OP_ON_CUDA
    if (ci > 0)
      break; /* threads and partitions are the CPU's */
#endif
    pscan_ctx *ctx = make_ctx(cfgs[ci].threads);
    if (cfgs[ci].partition)
      test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, cfgs[ci].partition);
    pscan_user_op *op = NULL;
    pscan_status st = pscan_op_create(ctx, &d, &op);
    CHECK(st == PSCAN_OK, "%s %s: create: %s (%s)", c->label, how, pscan_status_name(st),
          pscan_last_error(ctx));
    if (st == PSCAN_OK) {
      size_t part = cfgs[ci].partition ? (size_t)cfgs[ci].partition : (64u << 10) / c->size;
      size_t sizes[40];
      int count = 0;
      sizes_for(part, sizes, &count, &rng);
      for (int i = 0; i < count; i++)
        for (int mode = 0; mode < 4; mode++)
          check_scan(ctx, c, op, sizes[i], mode, (i + mode) % 3 == 0, &rng, how);
      ncfg++;
    }
    pscan_op_destroy(op);
    pscan_destroy(ctx);
  }
  printf("  %-12s %-8s %d configurations\n", c->label, how, ncfg);
}

/* ---- Predicates ---- */

static void check_select(pscan_ctx *ctx, const pscan_user_op *op, size_t n, int partition,
                         bool in_place, test_rng *rng) {
  size_t s = sizeof(uo_rec), bytes = (n + SLACK) * s;
  char *in = test_malloc(bytes), *out = test_malloc(bytes), *want = test_malloc(bytes);
  for (size_t i = 0; i < n; i++)
    uo_fill_rec(rng, in + i * s);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (uo_rec_keep(in + i * s))
      memcpy(want + kept++ * s, in + i * s, s);
  for (size_t i = 0, r = 0; partition && i < n; i++)
    if (!uo_rec_keep(in + i * s))
      memcpy(want + (n - 1 - r++) * s, in + i * s, s);
  test_poison(out, bytes);
  if (in_place)
    memcpy(out, in, n * s);
  size_t count = (size_t)-1;
  pscan_status st = do_select(ctx, in_place ? out : in, out, n, op, s, partition, &count);
  CHECK(st == PSCAN_OK, "%s n=%zu in_place=%d: %s (%s)", partition ? "partition" : "select", n,
        in_place, pscan_status_name(st), pscan_last_error(ctx));
  CHECK(count == kept, "%s n=%zu: count %zu, want %zu", partition ? "partition" : "select", n,
        count, kept);
  size_t span = partition ? n : kept;
  CHECK(count != kept || !memcmp(out, want, span * s), "%s n=%zu: wrong items",
        partition ? "partition" : "select", n);
  if (!in_place)
    CHECK(test_is_poisoned(out + span * s, (n - span + SLACK) * s), "%s n=%zu: wrote past",
          partition ? "partition" : "select", n);
  free(in);
  free(out);
  free(want);
}

static void test_predicate(void) {
  test_rng rng = test_fork(seed, 1000);
  pscan_op_desc d = {.kind = PSCAN_KIND_PREDICATE, .source = uo_rec_src, .type_name = "rec",
                     .name = "keep", .elem_size = sizeof(uo_rec)};
  for (int threads = 1; threads <= 3; threads++) {
    pscan_ctx *ctx = make_ctx(threads);
    if (threads == 3)
      test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 100);
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
    size_t sizes[40];
    int count = 0;
    sizes_for(threads == 3 ? 100 : 0, sizes, &count, &rng);
    for (int i = 0; op && i < count; i++)
      for (int partition = 0; partition < 2; partition++)
        check_select(ctx, op, sizes[i], partition, !partition && i % 2, &rng);
    pscan_op_destroy(op);
    pscan_destroy(ctx);
  }
}

/* ---- Refusals ---- */

static void test_refusals(void) {
  pscan_ctx *ctx = make_ctx(2), *other = make_ctx(1);
  const uo_case *c = &uo_cases[0];
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size};
  pscan_user_op *op = NULL, *pred = NULL, *foreign = NULL;
  pscan_op_desc bad = d;
  CHECK_STATUS(pscan_op_create(NULL, &d, &op), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_op_create(ctx, NULL, &op), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_op_create(ctx, &d, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  bad.source = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  bad = d, bad.name = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  bad = d, bad.type_name = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  bad = d, bad.kind = (pscan_op_kind)7;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  bad = d, bad.elem_size = 0;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  bad = d, bad.elem_size = 1 << 20;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK(op == NULL, "a refused create returned an operator");

  /* elem_size that disagrees with the compiled sizeof */
  bad = d, bad.elem_size = 12;
  CHECK_STATUS(pscan_op_create(ctx, &bad, &op), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK(strstr(pscan_last_error(ctx), "sizeof") != NULL, "mismatch message: %s",
        pscan_last_error(ctx));

  CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
  CHECK_STATUS(pscan_op_create(other, &d, &foreign), PSCAN_OK);
  pscan_op_desc pd = {.kind = PSCAN_KIND_PREDICATE, .source = uo_rec_src, .type_name = "rec",
                      .name = "keep", .elem_size = sizeof(uo_rec)};
  CHECK_STATUS(pscan_op_create(ctx, &pd, &pred), PSCAN_OK);
  if (!op || !pred || !foreign)
    goto done;

  enum { N = 100 };
  uo_affine_f32 in[N], out[N + SLACK];
  size_t count = 77;
  test_rng rng = test_fork(seed, 2000);
  for (int i = 0; i < N; i++)
    uo_fill_affine_f32(&rng, &in[i]);
  test_poison(out, sizeof out);
  /* Every refusal below is decided before any memory is touched (host buffers on both builds). */
  CHECK_STATUS(pscan_scan_op(ctx, in, out, N, op, 1, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_op(ctx, in, out, N, op, 2, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_op(ctx, in, out, N, pred, 0, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_op(ctx, in, out, N, foreign, 0, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_op(ctx, in, out, N, NULL, 0, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_op(ctx, NULL, out, N, op, 0, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_scan_op(ctx, out, out + 1, N, op, 0, NULL), PSCAN_ERR_OVERLAP);
  CHECK_STATUS(pscan_select_op(ctx, in, out, N, op, &count), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_select_op(ctx, in, out, N, pred, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_partition_op(ctx, out, out, N, pred, &count), PSCAN_ERR_OVERLAP);
  CHECK(count == 77, "a refused select wrote the count");
  CHECK(test_is_poisoned(out + 1, (N - 1) * sizeof *out), "a refused call wrote out");
  /* n == 0: valid, NULL pointers allowed, nothing written but the count */
  CHECK_STATUS(pscan_scan_op(ctx, NULL, NULL, 0, op, 0, NULL), PSCAN_OK);
  CHECK_STATUS(pscan_select_op(ctx, NULL, NULL, 0, pred, &count), PSCAN_OK);
  CHECK(count == 0, "select of nothing: count %zu", count);
  CHECK(strcmp(pscan_op_compile_log(NULL), "") == 0, "compile log of NULL");
done:
  pscan_op_destroy(op);
  pscan_op_destroy(pred);
  pscan_op_destroy(foreign);
  pscan_op_destroy(NULL);
  pscan_destroy(ctx);
  pscan_destroy(other);
}


/* ---- Along an axis (pscan_scan_axis with user_op): the CPU backend scans line by line (the
   CUDA backend's kernels have their own test, test_cuda_axis_user_op.c; here one call through
   device mirrors, and host memory refused). An affine map of exact f64 values (non-commutative: a wrong order or a
   wrong direction shows), against ref_scan_axis_combine (reference.h). ---- */

#ifndef TEST_USER_OP_ON_CUDA
static int axis_failures;

/* One call: in laid out by (perm_in, neg_in), out by (perm_out, neg_out) or in place. */
static void axis_case(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op, int ndim,
                      const int64_t *shape, int axis, const int *perm_in, unsigned neg_in,
                      const int *perm_out, unsigned neg_out, bool in_place, int mode,
                      test_rng *rng) {
  size_t s = c->size;
  axis_store store;
  axis_store_make(&store, ndim, shape, perm_in, neg_in, perm_out, neg_out, in_place, s, SLACK,
                  c->fill, rng);
  const int64_t *is = store.is, *os = store.os, ib = store.ib, ob = store.ob;
  size_t bytes = store.bytes;
  char *in = store.in, *out = store.out, *exp = store.exp, *orig = test_malloc(bytes);
  memcpy(orig, in, bytes);
  char init[64];
  c->fill(rng, init);
  const void *use_init = mode == 1 || mode == 2 ? init : NULL;
  pscan_axis_args a = {.in = in_place ? (const void *)(out + ib * (int64_t)s) : in + ib * (int64_t)s,
                       .out = out + ob * (int64_t)s, .ndim = ndim, .shape = shape, .axis = axis,
                       .in_strides = is, .out_strides = os, .user_op = op,
                       .exclusive = mode >= 2, .reverse = (int)test_below(rng, 2), .init = use_init};
  ref_scan_axis_combine(&a, s, c->fn, NULL, orig + ib * (int64_t)s, exp + ob * (int64_t)s,
                        mode == 3 ? c->identity : use_init);
  bool ok = CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_OK);
  ok = ok && CHECK(memcmp(out, exp, bytes) == 0,
                   "axis user op: ndim %d shape[axis %d] = %lld, mode %d, reverse %d, in place %d,"
                   " neg %u/%u: out differs",
                   ndim, axis, (long long)shape[axis], mode, a.reverse, in_place, neg_in,
                   neg_out);
  if (!in_place)
    ok = ok && CHECK(memcmp(in, orig, bytes) == 0, "axis user op: in was written");
  axis_failures += !ok;
  free(in), free(out), free(exp), free(orig);
}

#endif

static void test_axis(void) {
  test_rng rng = test_fork(seed, 7000);
  const uo_case *c = &uo_cases[1]; /* affine f64 */
  pscan_ctx *ctx = make_ctx(2);
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .identity = c->identity};
  pscan_user_op *op = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
  if (!op) {
    pscan_destroy(ctx);
    return;
  }
#ifdef TEST_USER_OP_ON_CUDA
  /* a 3 x 4 array along axis 0 against ref_scan_case of each column */
  uo_affine_f64 x[12], y[12], col[3], res[3];
  for (int i = 0; i < 12; i++)
    c->fill(&rng, &x[i]);
  int64_t sh[2] = {3, 4};
  test_poison(y, sizeof y);
  pscan_axis_args a = {.in = x, .out = y, .ndim = 2, .shape = sh, .axis = 0, .user_op = op};
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_WRONG_MEMORY);
  CHECK(test_is_poisoned(y, sizeof y), "a refused axis call wrote out");
  void *dx = dev_copy(x, sizeof x), *dy = dev_copy(y, sizeof y);
  a.in = dx, a.out = dy;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_OK);
  dev_back(y, dy, sizeof y);
  for (int j = 0; j < 4; j++) {
    for (int i = 0; i < 3; i++)
      col[i] = x[i * 4 + j];
    ref_scan_case(c, col, res, 3, 0, NULL);
    for (int i = 0; i < 3; i++)
      CHECK(memcmp(&y[i * 4 + j], &res[i], sizeof res[i]) == 0, "axis user op: (%d, %d)", i, j);
  }
  CUDA_OK(cudaFree(dx));
  CUDA_OK(cudaFree(dy));
#else
  static const int64_t lens[] = {0, 1, 2, 3, 7, 8, 9, 31, 33, 63, 65, 255, 257};
  int nlens = (int)(sizeof lens / sizeof *lens);
  static const int c2[2] = {0, 1}, t2[2] = {1, 0}, c3[3] = {0, 1, 2}, t3[3] = {2, 0, 1};
  for (int li = 0; li < nlens; li++) {
    int64_t len = lens[li];
    for (int axis = 0; axis < 2; axis++) {
      int64_t shape[2] = {axis == 0 ? len : 3, axis == 1 ? len : 3};
      for (int v = 0; v < 8; v++) {
        bool in_place = v == 7;
        const int *pin = v & 1 ? t2 : c2, *pout = v & 2 ? t2 : c2;
        unsigned neg_in = v & 4 ? 1u << axis : 0, neg_out = v == 6 ? 3 : 0;
        axis_case(ctx, c, op, 2, shape, axis, pin, neg_in, pout, neg_out, in_place, v % 4, &rng);
      }
    }
    if (li % 2 == 1 && quick)
      continue;
    for (int axis = 0; axis < 3; axis++) {
      int64_t shape[3] = {2, 3, 4};
      shape[axis] = len;
      for (int v = 0; v < 6; v++) {
        bool in_place = v == 5;
        const int *pin = v & 1 ? t3 : c3, *pout = v & 2 ? t3 : c3;
        unsigned neg_in = v & 4 ? 5u : 0, neg_out = v == 2 ? 1u << axis : 0;
        axis_case(ctx, c, op, 3, shape, axis, pin, neg_in, pout, neg_out, in_place,
                  (v + li) % 4, &rng);
      }
    }
  }
  /* a 1-D contiguous line (the direct path), in place for mode 2 */
  {
    int64_t shape[1] = {1000};
    int pin[1] = {0};
    for (int mode = 0; mode < 4; mode++)
      axis_case(ctx, c, op, 1, shape, 0, pin, 0, pin, 0, mode == 2, mode, &rng);
  }
  /* Refusals: nothing written. */
  pscan_op_desc pd = {.kind = PSCAN_KIND_PREDICATE, .source = uo_rec_src, .type_name = "rec",
                      .name = "keep", .elem_size = sizeof(uo_rec)};
  pscan_op_desc nd = d;
  nd.identity = NULL;
  pscan_user_op *pred = NULL, *noid = NULL;
  CHECK_STATUS(pscan_op_create(ctx, &pd, &pred), PSCAN_OK);
  CHECK_STATUS(pscan_op_create(ctx, &nd, &noid), PSCAN_OK);
  pscan_ctx *other = make_ctx(1);
  pscan_user_op *foreign = NULL;
  CHECK_STATUS(pscan_op_create(other, &d, &foreign), PSCAN_OK);
  uo_affine_f64 x[12], y[12];
  for (int i = 0; i < 12; i++)
    c->fill(&rng, &x[i]);
  test_poison(y, sizeof y);
  int64_t sh[2] = {3, 4};
  pscan_axis_args a = {.in = x, .out = y, .ndim = 2, .shape = sh, .axis = 0, .user_op = pred};
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
  a.user_op = foreign;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
  axis_op_refusals(ctx, a, op, noid, sizeof x[0]);
  CHECK(test_is_poisoned(y, sizeof y), "a refused axis call wrote out");
  /* an exclusive scan on an operator without identity runs with init */
  uo_affine_f64 init = {1, 0};
  a.in = x, a.user_op = noid, a.exclusive = 1, a.init = &init;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_OK);
  pscan_op_destroy(pred);
  pscan_op_destroy(noid);
  pscan_op_destroy(foreign);
  pscan_destroy(other);
  CHECK(axis_failures == 0, "axis user op: %d failing cases", axis_failures);
#endif
  pscan_op_destroy(op);
  pscan_destroy(ctx);
}

#ifndef TEST_USER_OP_ON_CUDA
/* ---- DETERMINISTIC: a float operator on inexact data gives the same bits on any thread count
   (the compiled kernels split partitions at fixed places, whatever the threads) ---- */
static void test_deterministic(void) {
  size_t n = quick ? 200001 : 1000003;
  uo_affine_f32 *in = test_malloc(n * sizeof *in), *first = test_malloc(n * sizeof *in),
                *out = test_malloc(n * sizeof *in);
  test_rng rng = test_fork(seed, 4000);
  for (size_t i = 0; i < n; i++)
    in[i] = (uo_affine_f32){(float)(0.9 + 0.1 * test_uniform(&rng)), (float)test_uniform(&rng)};
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = uo_cases[0].source,
                     .type_name = "affine", .name = "compose", .elem_size = sizeof *in};
  static const int threads[] = {1, 2, 3, 5};
  for (int t = 0; t < 4; t++) {
    pscan_ctx *ctx = make_ctx(threads[t]);
    test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 1);
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
    if (op) {
      CHECK_STATUS(pscan_scan_op(ctx, in, t ? out : first, n, op, 0, NULL), PSCAN_OK);
      if (t)
        CHECK(!memcmp(first, out, n * sizeof *in), "deterministic: %d threads differ from 1",
              threads[t]);
    }
    pscan_op_destroy(op);
    pscan_destroy(ctx);
  }
  free(in);
  free(first);
  free(out);
}

/* ---- Allocation failures: each allocation of a create and a scan made to fail in turn (a
   fresh compile, a disk hit and an in-context hit); the call answers OUT_OF_MEMORY or succeeds,
   leaks nothing (ASan) and leaves the context usable. ---- */
static void test_alloc_faults(void) {
  const uo_case *c = &uo_cases[0];
  char src[1024];
  snprintf(src, sizeof src, "/* faults %llu */\n%s", (unsigned long long)seed, c->source);
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .identity = c->identity};
  size_t n = 100000;
  uo_affine_f32 *in = test_malloc(n * sizeof *in), *out = test_malloc(n * sizeof *out);
  test_rng rng = test_fork(seed, 5000);
  for (size_t i = 0; i < n; i++)
    c->fill(&rng, &in[i]);
  int oom = 0, ok = 0;
  for (int phase = 0; phase < 3; phase++) {
    for (long k = 0;; k++) {
      pscan_ctx *ctx = make_ctx(2);
      pscan_user_op *op = NULL, *warm = NULL;
      if (phase == 0) /* a source never compiled: the whole build path */
        snprintf(src, sizeof src, "/* faults %llu %ld */\n%s", (unsigned long long)seed, k,
                 c->source);
      if (phase == 2)
        CHECK_STATUS(pscan_op_create(ctx, &d, &warm), PSCAN_OK); /* the in-context hit */
      pscan__fault_arm(PSCAN__FAULT_ALLOC, k);
      pscan_status s = pscan_op_create(ctx, &d, &op);
      if (s == PSCAN_OK)
        s = pscan_scan_op(ctx, in, out, n, op, 1, NULL);
      long passed = pscan__fault_disarm(PSCAN__FAULT_ALLOC);
      CHECK(s == PSCAN_OK || s == PSCAN_ERR_OUT_OF_MEMORY, "fault %ld (phase %d): %s (%s)", k,
            phase, pscan_status_name(s), pscan_last_error(ctx));
      oom += s == PSCAN_ERR_OUT_OF_MEMORY;
      ok += s == PSCAN_OK;
      pscan_op_destroy(op);
      op = NULL;
      /* still usable */
      if (!op)
        CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
      pscan_status again = op ? pscan_scan_op(ctx, in, out, n, op, 0, NULL) : PSCAN_ERR_INTERNAL;
      CHECK(again == PSCAN_OK, "after fault %ld (phase %d): %s (%s)", k, phase,
            pscan_status_name(again), pscan_last_error(ctx));
      pscan_op_destroy(op);
      pscan_op_destroy(warm);
      pscan_destroy(ctx);
      if (passed <= k) /* every allocation of the calls has been failed once */
        break;
    }
    if (phase == 0) /* the last one is now on disk: the disk hits of phase 1 */
      snprintf(src, sizeof src, "/* faults %llu */\n%s", (unsigned long long)seed, c->source);
  }
  CHECK(oom > 0 && ok > 0, "allocation faults: %d refused, %d done", oom, ok);
  free(in);
  free(out);
}

/* ---- The seam for other entry points (pscan_scan_axis): accessors and the host combine of a
   compiled operator and of a host_fn one give the operator's results ---- */
static void test_internal_seam(void) {
  const uo_case *c = &uo_cases[2]; /* 2x2 matrices: non-commutative */
  pscan_ctx *ctx = make_ctx(1), *other = make_ctx(1);
  for (int host = 0; host < 2; host++) {
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                       .name = c->name, .elem_size = c->size, .identity = c->identity,
                       .host_fn = host ? c->fn : NULL};
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
    if (!op)
      continue;
    CHECK_STATUS(pscan__op_check(ctx, "seam", op, PSCAN_KIND_COMBINE), PSCAN_OK);
    CHECK_STATUS(pscan__op_check(other, "seam", op, PSCAN_KIND_COMBINE), PSCAN_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pscan__op_check(ctx, "seam", op, PSCAN_KIND_PREDICATE), PSCAN_ERR_INVALID_ARGUMENT);
    CHECK(pscan__op_elem_size(op) == c->size, "elem_size %zu", pscan__op_elem_size(op));
    CHECK(!memcmp(pscan__op_identity(op), c->identity, c->size), "identity differs");
    pscan_combine_fn fn = NULL;
    void *user = NULL;
    pscan__cpu_op_host_combine(pscan__op_impl(op), &fn, &user);
    test_rng rng = test_fork(seed, 6000 + (uint64_t)host);
    uo_mat2 a, b, got, want;
    c->fill(&rng, &a);
    c->fill(&rng, &b);
    fn(&got, &a, &b, user);
    c->fn(&want, &a, &b, NULL);
    CHECK(!memcmp(&got, &want, sizeof got), "host combine (%s) differs", host ? "host_fn" : "compiled");
    const pscan__cpu_op *k = pscan__cpu_op_kernels(pscan__op_impl(op));
    CHECK(k->acc_size == c->size, "kernels' acc_size %zu", k->acc_size);
    pscan_op_destroy(op);
  }
  pscan_destroy(ctx);
  pscan_destroy(other);
}

/* ---- The compiler and the disk cache (CPU) ---- */

static char dir[512], counter[600], real_cc[512];

/* A PSCAN_CC that counts its compile runs (not --version) in `counter`, then runs the real one. */
static void make_counting_cc(char *path, size_t len) {
  snprintf(path, len, "%s/count-cc.sh", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    printf("cannot write %s\n", path);
    exit(1);
  }
  fprintf(f, "#!/bin/sh\ncase \"$*\" in *-shared*) echo x >> '%s';; esac\nexec %s \"$@\"\n",
          counter, real_cc);
  fclose(f);
  chmod(path, 0755);
}

static int compiles(void) {
  FILE *f = fopen(counter, "r");
  int n = 0, ch;
  if (!f)
    return 0;
  while ((ch = fgetc(f)) != EOF)
    n += ch == '\n';
  fclose(f);
  return n;
}

/* Creates the operator of src on a fresh context, checks one scan, returns the status. */
static pscan_status create_and_scan(const char *src, pscan_combine_fn host_fn) {
  pscan_ctx *ctx = make_ctx(2);
  const uo_case *c = &uo_cases[0];
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .host_fn = host_fn};
  pscan_user_op *op = NULL;
  pscan_status st = pscan_op_create(ctx, &d, &op);
  if (st == PSCAN_OK) {
    test_rng rng = test_fork(seed, 3000);
    check_scan(ctx, c, op, 100000, 0, false, &rng, "cache");
  }
  pscan_op_destroy(op);
  pscan_destroy(ctx);
  return st;
}

static void test_compiler_and_cache(void) {
  char cc[700], src[1024], so[1200], own[600];
  make_counting_cc(cc, sizeof cc);
  /* A cache directory of its own (the differential tests filled the other), created on demand. */
  snprintf(own, sizeof own, "%s/cache/pscan", dir);
  setenv("PSCAN_CACHE_DIR", own, 1);
  setenv("PSCAN_CC", cc, 1);
  /* A source no earlier run has compiled (the cache directory is fresh anyway). */
  snprintf(src, sizeof src, "/* seed %llu */\n%s", (unsigned long long)seed, uo_cases[0].source);

  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 1, "first create: %d compiles, want 1", compiles());
  /* The in-context cache: a second create on the same context compiles nothing. */
  {
    pscan_ctx *ctx = make_ctx(1);
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "affine",
                       .name = "compose", .elem_size = 8};
    pscan_user_op *a = NULL, *b = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &a), PSCAN_OK);
    CHECK_STATUS(pscan_op_create(ctx, &d, &b), PSCAN_OK);
    CHECK(compiles() == 1, "in-context and disk hits: %d compiles, want 1", compiles());
    pscan_op_destroy(a);
    pscan_op_destroy(b);
    pscan_destroy(ctx);
  }
  /* A disk hit from a fresh context; the entry is a file in the cache directory. */
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 1, "disk hit: %d compiles, want 1", compiles());
  int sos = 0;
  {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls '%s'/*.so 2>/dev/null | wc -l", own);
    FILE *p = popen(cmd, "r");
    if (p) {
      if (fscanf(p, "%d", &sos) != 1)
        sos = -1;
      pclose(p);
    }
    snprintf(cmd, sizeof cmd, "ls '%s'/*.so 2>/dev/null | head -1", own);
    p = popen(cmd, "r");
    so[0] = '\0';
    if (p) {
      if (!fgets(so, sizeof so, p))
        so[0] = '\0';
      so[strcspn(so, "\n")] = '\0';
      pclose(p);
    }
  }
  CHECK(sos == 1, "%d shared objects in the cache, want 1", sos);

  /* A corrupt entry: rebuilt, no error; then a hit again. */
  FILE *f = so[0] ? fopen(so, "w") : NULL;
  CHECK(f != NULL, "cannot overwrite the cache entry %s", so);
  if (f) {
    fputs("not an ELF object\n", f);
    fclose(f);
  }
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 2, "corrupt entry: %d compiles, want 2", compiles());
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 2, "rebuilt entry is a hit: %d compiles, want 2", compiles());

  /* A compile error: the compiler's error line in last_error, the whole log available. */
  {
    pscan_ctx *ctx = make_ctx(1);
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE,
                       .source = "typedef struct { float a, b; } affine;\n"
                                 "affine compose(affine x, affine y) { return x + y; }\n",
                       .type_name = "affine", .name = "compose", .elem_size = 8};
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_ERR_INVALID_ARGUMENT);
    const char *msg = pscan_last_error(ctx), *log = pscan_op_compile_log(ctx);
    CHECK(strstr(msg, "error") && strstr(msg, "pscan_op_source:2"),
          "compile error message: %s", msg);
    char line[256];
    snprintf(line, sizeof line, "%s", strstr(msg, "pscan_op_source:2") ? strstr(msg, "pscan_op_source:2") : "?");
    CHECK(strstr(log, line) != NULL, "the log holds the message's line; log: %.200s", log);
    CHECK(op == NULL, "a failed create returned an operator");
    /* A create that compiles nothing (host_fn) leaves no log. */
    pscan_op_desc h = {.kind = PSCAN_KIND_COMBINE, .source = uo_cases[0].source,
                       .type_name = "affine", .name = "compose", .elem_size = 8,
                       .host_fn = uo_cases[0].fn};
    CHECK_STATUS(pscan_op_create(ctx, &h, &op), PSCAN_OK);
    CHECK(strcmp(pscan_op_compile_log(ctx), "") == 0, "log after a host_fn create: %.100s",
          pscan_op_compile_log(ctx));
    pscan_op_destroy(op);
    op = NULL;
    /* an unknown name is an error too */
    d.source = uo_cases[0].source;
    d.name = "no_such_function";
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_ERR_INVALID_ARGUMENT);
    pscan_destroy(ctx);
  }

  /* No usable cache directory: still works (compiled each time in a private directory). */
  char file[600], saved[512];
  snprintf(saved, sizeof saved, "%s", getenv("PSCAN_CACHE_DIR"));
  snprintf(file, sizeof file, "%s/a-file", dir);
  f = fopen(file, "w");
  if (f)
    fclose(f);
  strcat(file, "/cache");
  setenv("PSCAN_CACHE_DIR", file, 1);
  int before = compiles();
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == before + 2, "no cache dir: %d compiles, want %d", compiles(), before + 2);
  /* A directory others may write to is not used (its entries would be loaded as code). */
  snprintf(file, sizeof file, "%s/shared", dir);
  mkdir(file, 0700);
  chmod(file, 0777);
  setenv("PSCAN_CACHE_DIR", file, 1);
  before = compiles();
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == before + 2, "world-writable cache dir: %d compiles, want %d", compiles(),
        before + 2);
  if (geteuid() != 0) { /* a read-only directory (root would write it anyway) */
    snprintf(file, sizeof file, "%s/readonly", dir);
    mkdir(file, 0500);
    setenv("PSCAN_CACHE_DIR", file, 1);
    CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  }
  setenv("PSCAN_CACHE_DIR", saved, 1);

  /* No compiler: UNSUPPORTED; host_fn still works without one. */
  setenv("PSCAN_CC", "/nonexistent/cc", 1);
  CHECK_STATUS(create_and_scan(uo_cases[0].source, NULL), PSCAN_ERR_UNSUPPORTED);
  CHECK_STATUS(create_and_scan(uo_cases[0].source, uo_cases[0].fn), PSCAN_OK);
  setenv("PSCAN_CC", real_cc, 1);
}
#endif

int main(void) {
  seed = test_init("test_user_op");
  quick = test_quick();
#ifndef TEST_USER_OP_ON_CUDA
  /* A private cache directory; the real compiler remembered for the counting wrapper. */
  const char *cc = getenv("PSCAN_CC");
  if (!cc || !*cc)
    cc = getenv("CC");
  snprintf(real_cc, sizeof real_cc, "%s", cc && *cc ? cc : "cc");
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/pscan-test-user-op-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    printf("cannot make a temporary directory\n");
    return 1;
  }
  snprintf(counter, sizeof counter, "%s/compiles", dir);
  setenv("PSCAN_CACHE_DIR", dir, 1);
  printf("cache directory %s, compiler %s\n", dir, real_cc);
  {
    /* Without a C compiler there is nothing to compile with: report it as a skip. */
    pscan_ctx *ctx = make_ctx(1);
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = uo_u8_src,
                       .type_name = "unsigned char", .name = "add8", .elem_size = 1};
    pscan_user_op *op = NULL;
    pscan_status st = pscan_op_create(ctx, &d, &op);
    if (st == PSCAN_ERR_UNSUPPORTED)
      printf("SKIP: no C compiler (%s)\n", pscan_last_error(ctx));
    pscan_op_destroy(op);
    pscan_destroy(ctx);
    if (st == PSCAN_ERR_UNSUPPORTED)
      return 77;
  }
#endif
  for (int i = 0; i < UO_NCASES; i++) {
    test_differential(&uo_cases[i], false);
#ifndef TEST_USER_OP_ON_CUDA
    if (!quick || i < 2)
      test_differential(&uo_cases[i], true);
#endif
  }
  test_predicate();
  test_refusals();
  test_axis();
#ifndef TEST_USER_OP_ON_CUDA
  test_deterministic();
  test_internal_seam();
  test_alloc_faults();
  test_compiler_and_cache();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    printf("could not remove %s\n", dir);
#endif
  return test_finish();
}
