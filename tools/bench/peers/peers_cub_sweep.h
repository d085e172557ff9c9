/* The GPU sweep's device side (peers_cub_sweep.cu, compiled only in a CUDA build): the
 * fill kernels that write a point's data on the device (bench_sweep.h says what data), a checksum
 * kernel that checks two outputs against each other, and the peer: CUB's DeviceSelect::If /
 * Flagged, DevicePartition::If, DeviceSelect::Unique, DeviceRunLengthEncode::Encode,
 * DeviceReduce::ReduceByKey and DeviceScan::InclusiveSumByKey on the point's buffers. Every call
 * goes to the default stream and returns a cudaError_t (0: success). */
#ifndef PSCAN_TOOL_PEERS_CUB_SWEEP_H
#define PSCAN_TOOL_PEERS_CUB_SWEEP_H

#include "bench/bench_sweep.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the data `what` (bench_sweep.h: sweep_fill) of p into d[0..n). */
int sweep_gpu_fill(sweep_fill what, const sweep_point *p, void *d);

/* A checksum of d[0..bytes) (8-byte aligned), into *sum; waits for the device. */
int sweep_gpu_checksum(const void *d, size_t bytes, unsigned long long *sum);

/* The device buffers of a compaction point: in (keys or items), vals, flags; out, vout, counts
   (CUB writes int32 run lengths), num (CUB's count, an int64 on the device). */
typedef struct sweep_gpu_bufs {
  const void *in, *vals;
  const uint8_t *flags;
  void *out, *vout, *counts;
  int64_t *num;
} sweep_gpu_bufs;

/* One call of CUB's counterpart of p's op (not the scans: peers_cub.h). */
int sweep_cub_call(const sweep_point *p, const sweep_gpu_bufs *b);

/* Frees the temporary storage CUB's calls grew. */
void sweep_cub_release(void);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_TOOL_PEERS_CUB_SWEEP_H */
