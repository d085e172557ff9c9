/* Entry points of the contract whose implementations are still being written: each answers
 * PSCAN_ERR_UNSUPPORTED with a one-line message, so that the library links and a caller gets a
 * clear refusal. Each function leaves this file when its implementation lands. */
#include "internal.h"

#define PENDING(ctx, fn) \
  pscan__fail((ctx), PSCAN_ERR_UNSUPPORTED, "%s: not implemented in this build yet", fn)

pscan_status pscan_scan_axis(pscan_ctx *ctx, const pscan_axis_args *args) {
  (void)args;
  return PENDING(ctx, "pscan_scan_axis");
}

pscan_status pscan_segmented_scan(pscan_ctx *ctx, const void *in, void *out, pscan_dtype type,
                                  pscan_op op, const int64_t *offsets, size_t num_segments,
                                  int exclusive, int reverse, const void *init) {
  (void)in, (void)out, (void)type, (void)op, (void)offsets, (void)num_segments, (void)exclusive,
      (void)reverse, (void)init;
  return PENDING(ctx, "pscan_segmented_scan");
}
