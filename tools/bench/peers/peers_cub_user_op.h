/* The peer of `pscan bench --gpu --user-op` (peers_cub_user_op.cu, compiled only in a CUDA
 * build): cub::DeviceScan::InclusiveScan with the benchmark's user operators written as C++
 * functors, what a CUDA C++ user compiles into a program instead of handing pscan the source;
 * for the by-key part (bench_user_op_by_key.c), DeviceScan::InclusiveScanByKey and
 * DeviceReduce::ReduceByKey with the same functors over int32 keys. The operators are those of
 * bench_user_op.c, in the same order. */
#ifndef PSCAN_TOOL_PEERS_CUB_USER_OP_H
#define PSCAN_TOOL_PEERS_CUB_USER_OP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum peer_user_op {
  PEER_UOP_AFFINE_F32, /* {float a, b}: x -> a*x + b, composed in order (8 bytes) */
  PEER_UOP_AFFINE_F64, /* {double a, b} (16 bytes) */
  PEER_UOP_MAT2_F64,   /* 2x2 double matrices, row-major, multiplied in order (32 bytes) */
  PEER_UOP_SUM_I32,    /* int + int (4 bytes) */
  PEER_UOP_COUNT
} peer_user_op;

/* Enqueues the inclusive scan of d_in[0..n) under op into d_out on the default stream; returns
   a cudaError_t (0: success). CUB's temporary storage grows as needed with a synchronous
   cudaMalloc, so warm up at the largest size before timing. */
int peer_user_op_scan(peer_user_op op, const void *d_in, void *d_out, size_t n);
/* The same for the inclusive scan of d_in by the runs of equal consecutive d_keys
   (DeviceScan::InclusiveScanByKey). The affine operators only (cudaErrorInvalidValue else). */
int peer_user_op_scan_by_key(peer_user_op op, const int32_t *d_keys, const void *d_in,
                             void *d_out, size_t n);
/* The same for the reduction of each run of equal consecutive d_keys_in
   (DeviceReduce::ReduceByKey): its key to d_keys_out, its values' reduction to d_vals_out, the
   number of runs to *d_num_runs (device memory, written in stream order). The affine operators
   only. */
int peer_user_op_reduce_by_key(peer_user_op op, const int32_t *d_keys_in, int32_t *d_keys_out,
                               const void *d_vals_in, void *d_vals_out, int64_t *d_num_runs,
                               size_t n);
/* Frees CUB's cached temporary storage. */
void peer_user_op_release(void);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_TOOL_PEERS_CUB_USER_OP_H */
