/* The refusals of an axis scan with a user operator that api_axis.c makes alike on every backend
 * (test_user_op.c, test_cuda_axis_user_op.c): each bad argument gets its status. The caller
 * checks that nothing was written, and adds its backend's own refusals. */
#ifndef PSCAN_TEST_AXIS_OP_REFUSALS_H
#define PSCAN_TEST_AXIS_OP_REFUSALS_H

#include "test.h"

#include <stdint.h>

/* a: a valid inclusive call on a 2-D array of 3 x 4 elements of elem bytes, forward, along axis
   0, C order (the user operator in it does not matter); op: an operator with identity; noid: the
   same operator without one. */
static inline void axis_op_refusals(pscan_ctx *ctx, pscan_axis_args a, const pscan_user_op *op,
                                    const pscan_user_op *noid, size_t elem) {
  int64_t zero[2] = {0, 1};
  a.user_op = noid, a.exclusive = 1;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT); /* no init, no identity */
  a.user_op = op, a.exclusive = 2;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
  a.exclusive = 0, a.reverse = 3;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
  a.reverse = 0, a.axis = 2;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
  a.axis = 0, a.ndim = PSCAN_MAX_DIMS + 1;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
  void *out = a.out;
  a.ndim = 2, a.out = (void *)((uintptr_t)a.in + elem); /* in place one element off */
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_OVERLAP);
  a.out = out, a.out_strides = zero; /* every line's elements on one */
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_OVERLAP);
  a.out_strides = NULL, a.in = NULL;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_INVALID_ARGUMENT);
}

#endif /* PSCAN_TEST_AXIS_OP_REFUSALS_H */
