/* User operators and predicates from source (pscan_op_create, pscan_scan_op, pscan_reduce_op,
 * pscan_select_op, pscan_partition_op), differential against a sequential loop over the same operator on the host:
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
 * are the CPU backend's and run only on the CPU build.
 *
 * One program in three files (what they share: test_user_op.h): this one holds the calls, the
 * differential scans, the predicates, the refusals and main; test_user_op_axis.c the scans along
 * an axis (both builds); test_user_op_cpu.c (the CPU build only) DETERMINISTIC, allocation
 * failures, the seam for other entry points, the compiler and the disk cache. */
#define _GNU_SOURCE
#include "test_user_op.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool quick;
uint64_t seed;

#ifdef TEST_USER_OP_ON_CUDA
void *dev_copy(const void *host, size_t bytes) {
  void *d = NULL;
  CUDA_OK(cudaMalloc(&d, bytes ? bytes : 1));
  if (host && bytes)
    CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}
void dev_back(void *host, void *dev, size_t bytes) {
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

/* pscan_reduce_op of in into *total (host memory; on the CUDA build, in through a device mirror
   and, when device_total, the total too). */
static pscan_status do_reduce(pscan_ctx *ctx, const void *in, size_t n, const pscan_user_op *op,
                              size_t size, const void *init, void *total, bool device_total) {
#ifdef TEST_USER_OP_ON_CUDA
  void *lib_in = dev_copy(in, n * size), *lib_total = device_total ? dev_copy(total, size) : total;
  pscan_status s = pscan_reduce_op(ctx, lib_in, n, op, init, lib_total);
  if (device_total) {
    dev_back(total, lib_total, size);
    CUDA_OK(cudaFree(lib_total));
  }
  CUDA_OK(cudaFree(lib_in));
  return s;
#else
  (void)size, (void)device_total;
  return pscan_reduce_op(ctx, in, n, op, init, total);
#endif
}

static pscan_status do_select(pscan_ctx *ctx, const void *in, void *out, size_t n,
                              const pscan_user_op *op, size_t size, int partition,
                              size_t *count) {
  return do_call(ctx, false, in, out, n, op, size, partition, NULL, count);
}

pscan_ctx *make_ctx(int threads) {
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

void ref_scan_case(const uo_case *c, const void *in, void *out, size_t n, int excl,
                   const void *init) {
  ref_scan_combine(in, out, n, c->size, c->fn, NULL, excl, init);
}

/* ---- Differential scans ---- */

typedef struct run_cfg {
  int threads;
  int64_t partition; /* PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 0: default */
} run_cfg;

/* The reduction of the scan's input (mode 0: from in[0], 1: from init) against the reference
   scan's last element (n == 0: init, the identity, or a refusal without either). */
static void check_reduce(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op,
                         const char *in, size_t n, const char *want, const void *init,
                         const char *how) {
  size_t s = c->size;
  char total[64 + SLACK], expect[64];
  const void *empty = init ? init : c->identity;
  if (n == 0 && !empty) {
    test_poison(total, sizeof total);
    CHECK_STATUS(do_reduce(ctx, in, 0, op, s, NULL, total, false), PSCAN_ERR_INVALID_ARGUMENT);
    CHECK(test_is_poisoned(total, sizeof total), "%s %s: a refused reduction wrote", c->label, how);
    return;
  }
  memcpy(expect, n ? want + (n - 1) * s : (const char *)empty, s);
  test_poison(total, sizeof total);
  bool device_total = n % 2 == 1; /* (the CUDA build: a device total on odd sizes) */
  pscan_status st = do_reduce(ctx, in, n, op, s, init, total, device_total);
  CHECK(st == PSCAN_OK, "%s %s reduce n=%zu init=%d: %s (%s)", c->label, how, n, init != NULL,
        pscan_status_name(st), pscan_last_error(ctx));
  if (st == PSCAN_OK) {
    CHECK(c->equal ? c->equal(total, expect) : memcmp(total, expect, s) == 0,
          "%s %s reduce n=%zu init=%d: differs from the scan's last element", c->label, how, n,
          init != NULL);
    CHECK(test_is_poisoned(total + s, SLACK), "%s %s reduce n=%zu: wrote past the total",
          c->label, how, n);
  }
}

/* One scan of n elements against the reference; mode 0: inclusive, 1: inclusive with init,
   2: exclusive with init, 3: exclusive with the identity (init NULL). The inclusive modes check
   pscan_reduce_op on the same input too. */
void check_scan(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op, size_t n, int mode,
                bool in_place, test_rng *rng, const char *how) {
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
  if (mode <= 1 && !in_place)
    check_reduce(ctx, c, op, in, n, want, init_arg, how);
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

/* The same operator with and without its identity on one context: each handle scans right in
   every mode (check_scan; without the identity, mode 3 runs as mode 2), and only the one
   without refuses an exclusive scan without init. (On the CUDA build they are two programs:
   the identity is compiled in, the other accumulator adjoins one.) */
static void test_identity_both_ways(void) {
  test_rng rng = test_fork(seed, 2000);
  pscan_ctx *ctx = make_ctx(2);
  for (int k = 0; k < UO_NCASES; k++) {
    const uo_case *c = &uo_cases[k];
    if (!c->identity)
      continue;
    uo_case without = *c;
    without.identity = NULL;
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source,
                       .type_name = c->type_name, .name = c->name, .elem_size = c->size,
                       .identity = c->identity};
    pscan_op_desc plain = d;
    plain.identity = NULL;
    pscan_user_op *with_id = NULL, *no_id = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &with_id), PSCAN_OK);
    CHECK_STATUS(pscan_op_create(ctx, &plain, &no_id), PSCAN_OK);
    if (with_id && no_id) {
      const size_t sizes[] = {1, 1000, 70001};
      for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int mode = 0; mode < 4; mode++) {
          check_scan(ctx, c, with_id, sizes[i], mode, false, &rng, "with its identity");
          check_scan(ctx, &without, no_id, sizes[i], mode, false, &rng, "without identity");
        }
      char buf[64 * 4] = {0};
      CHECK_STATUS(do_scan(ctx, buf, buf, 3, no_id, c->size, 1, NULL),
                   PSCAN_ERR_INVALID_ARGUMENT);
    }
    pscan_op_destroy(with_id);
    pscan_op_destroy(no_id);
  }
  pscan_destroy(ctx);
}

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
  CHECK_STATUS(pscan_reduce_op(ctx, in, N, op, NULL, NULL), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(ctx, in, N, pred, NULL, out), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(ctx, in, N, foreign, NULL, out), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(ctx, in, N, NULL, NULL, out), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(NULL, in, N, op, NULL, out), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(ctx, NULL, N, op, NULL, out), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(ctx, in, 0, op, NULL, out), PSCAN_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pscan_reduce_op(ctx, in, SIZE_MAX / 2, op, NULL, out), PSCAN_ERR_OVERFLOW);
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
  /* Parts by name (PSCAN_TEST_PARTS=scan,by_key,...; all when unset). */
  for (int i = 0; i < UO_NCASES && test_part("scan"); i++) {
    test_differential(&uo_cases[i], false);
#ifndef TEST_USER_OP_ON_CUDA
    if (!quick || i < 2)
      test_differential(&uo_cases[i], true);
#endif
  }
  if (test_part("select"))
    test_predicate();
  if (test_part("identity"))
    test_identity_both_ways();
  if (test_part("refusals"))
    test_refusals();
  if (test_part("axis"))
    test_axis();
  if (test_part("by_key"))
    test_by_key_op();
#ifndef TEST_USER_OP_ON_CUDA
  if (test_part("cpu")) {
    test_deterministic();
    test_internal_seam();
    test_alloc_faults();
    test_compiler_and_cache();
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    printf("could not remove %s\n", dir);
#endif
  return test_finish();
}
