/* The by-key part of `pscan bench --gpu --user-op` (bench_user_op_by_key.c, CUDA builds only):
 * pscan_scan_by_key_op (inclusive) and pscan_reduce_by_key_op with the affine operators of
 * user_op_cases.c by int32 keys in runs of a fixed length, beside a device copy of the bytes the
 * call moves and CUB's InclusiveScanByKey / ReduceByKey with the same operator as a C++ functor
 * (peers/peers_cub_user_op.cu). Run by bench_user_op.c after the flat scans, on its context,
 * operators, timer and CSV. */
#ifndef PSCAN_TOOL_BENCH_USER_OP_BY_KEY_H
#define PSCAN_TOOL_BENCH_USER_OP_BY_KEY_H

#include "gpu_timer.h"
#include "user_op_report.h"

#include <stddef.h>

typedef struct uop_by_key_env {
  pscan_ctx *ctx;               /* a CUDA context on the default stream (bench_gpu_context) */
  pscan_user_op *const *ops;    /* uop_cases' operators by case index, without their identity */
  pscan_user_op *const *ops_id; /* the same, created with their identity */
  gpu_timer *timer;
  const uop_out *out;           /* the CSV (rows with the header UOP_CSV_HEADER) and machine */
} uop_by_key_env;

/* Every (operator, call, n of sizes, run length) whose buffers fit in 80% of the GPU memory free
   now: a table, CSV rows (op "<case>_<call>_L<run length>", e.g. affine_f32_scan_by_key_L32;
   impl cudaMemcpy, pscan_user_op, pscan_user_op_identity, cub_functor; gbs over the bytes the
   call moves), then the worst point of each (operator, call, pscan variant). Every output of
   pscan and CUB (values, keys, the run count) is checked whole against a sequential computation
   on the host. reps: 1 to 1000. 0, or 1 after printing why (a wrong result included). */
int uop_by_key_sweep(const uop_by_key_env *env, const size_t *sizes, int nsizes, int reps);

/* bench_user_op.c's report of a CUDA error e while doing `what` (the error cleared where it is
   not sticky); returns 1. */
int uop_cuda_error(int e, const char *what);

#endif /* PSCAN_TOOL_BENCH_USER_OP_BY_KEY_H */
