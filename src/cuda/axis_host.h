/* Shared by the CUDA backend's host code of scans along an axis (axis_host.c) and by offsets
   (axis_segments.c). */
#ifndef PSCAN_CUDA_AXIS_HOST_H
#define PSCAN_CUDA_AXIS_HOST_H

#include "../internal.h"

#include <stdbool.h>

/* From host/backend.c: the device made current, the context's stream and multiprocessor count; and
   its failure for a CUDA error. */
pscan_status pscan__cuda_axis_begin(pscan_ctx *ctx, void **stream, unsigned *sm_count);
pscan_status pscan__cuda_axis_fail(pscan_ctx *ctx, int err, const char *what);
pscan_status pscan__cuda_scan_axis(pscan_ctx *ctx, const pscan__axis_call *c);

/* Device memory for one call, in the context's stream order (host/memory.c: the context's own
   pool; free it with cudaFreeAsync on that stream); PSCAN_ERR_OUT_OF_MEMORY with a line when
   there is none. */
pscan_status pscan__cuda_temp_alloc(pscan_ctx *ctx, size_t bytes, void **p);
/* DETERMINISTIC with a float sum or product: the look-backs fold a different run of chunks
   from call to call, so only a fixed order of the fold gives the same bits. */
bool pscan__cuda_axis_fixed_order(const pscan_ctx *ctx, int acc_type, int op);
/* pscan_segmented_scan (axis_segments.c), c->offsets in device memory. A context remembers
   what its last one found (the slot, host/backend.c), forgotten with the context. */
pscan_status pscan__cuda_segmented_scan(pscan_ctx *ctx, const pscan__axis_call *c, void *stream);
void **pscan__cuda_segments_slot(pscan_ctx *ctx);
void pscan__cuda_segments_forget(void *memo);

#define AX_CHECK(ctx, expr, what)                      \
  do {                                                 \
    int e_ = (int)(expr);                              \
    if (e_ != 0)                                       \
      return pscan__cuda_axis_fail((ctx), e_, (what)); \
  } while (0)

#endif
