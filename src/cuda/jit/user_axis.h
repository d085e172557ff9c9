/* The launch parameters of a user operator's axis kernels (user_axis.cuh, compiled by NVRTC),
 * shared with the host code that fills them (jit_axis.c): plain C, the same layout on both sides
 * (both 64-bit). Embedded in the library with the other device sources. */
#ifndef PSCAN_JIT_USER_AXIS_H
#define PSCAN_JIT_USER_AXIS_H

#include <stdint.h>

enum {
  PSCAN__UA_MAX_BATCH = 8, /* PSCAN_MAX_DIMS - 1 batch dimensions at most */
  PSCAN__UA_MAX_ELEM = 128, /* jit.h's PSCAN__JIT_MAX_ELEM */
  PSCAN__UA_THREADS = 256   /* threads per block of every axis kernel */
};

/* Lines over normalised views (../../axis_norm.h): line l's batch index is l in row-major order
   over blen (outermost first), so neighbouring l are neighbouring innermost positions. The axis
   is cut into nchunks chunks of rows elements; with nchunks > 1 agg holds nchunks x nlines
   values (chunk-major: agg[c * nlines + l]): the reduce kernels write each chunk's combination,
   a carry pass (an inclusive lines scan of agg along its chunks) turns them into inclusive
   prefixes, and the scan kernels start chunk c > 0 from agg[(c - 1) * nlines + l]. */
typedef struct pscan__user_axis_params {
  const void *in;
  void *out;
  void *agg;
  int64_t len, si, so; /* the axis: extent, strides in elements */
  int64_t rows;        /* elements of the axis per chunk */
  uint64_t nchunks, nlines;
  int64_t blen[PSCAN__UA_MAX_BATCH], bis[PSCAN__UA_MAX_BATCH], bos[PSCAN__UA_MAX_BATCH];
  int32_t nb;        /* batch dimensions */
  int32_t exclusive; /* needs has_init (the API folds the identity into init) */
  int32_t has_init;
  uint32_t unit; /* the largest power of two up to 16 dividing in, out, agg and the size */
  unsigned char init[PSCAN__UA_MAX_ELEM];
} pscan__user_axis_params;

/* The kernels of the axis program, in the order jit_axis.c keeps them. */
#define PSCAN__UA_KERNELS(X)                                                                \
  X(LINES_SCAN, "pscan_user_axis_lines_scan")     /* one warp per (line, chunk) */          \
  X(LINES_REDUCE, "pscan_user_axis_lines_reduce")                                           \
  X(SIDE_SCAN, "pscan_user_axis_side_scan")       /* one thread per (line, chunk) */        \
  X(SIDE_REDUCE, "pscan_user_axis_side_reduce")

#endif /* PSCAN_JIT_USER_AXIS_H */
