/* The user operator suite's scans along an axis (test_user_op.c says what the suite covers;
 * shared pieces in test_user_op.h). */
#include "test_user_op.h"

#include "axis_op_refusals.h"
#include "axis_store.h"

#include <stdlib.h>
#include <string.h>

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

void test_axis(void) {
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
