/* Entry points of the contract whose implementations are still being written: each answers
 * PSCAN_ERR_UNSUPPORTED with a one-line message, so that the library links and a caller gets a
 * clear refusal. Each function leaves this file when its implementation lands. */
#include "internal.h"

#define PENDING(ctx, fn) \
  pscan__fail((ctx), PSCAN_ERR_UNSUPPORTED, "%s: not implemented in this build yet", fn)

pscan_status pscan_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, pscan_user_op **op) {
  (void)desc;
  if (op)
    *op = NULL;
  return PENDING(ctx, "pscan_op_create");
}

void pscan_op_destroy(pscan_user_op *op) { (void)op; }

pscan_status pscan_scan_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                           const pscan_user_op *op, int exclusive, const void *init) {
  (void)in, (void)out, (void)n, (void)op, (void)exclusive, (void)init;
  return PENDING(ctx, "pscan_scan_op");
}

pscan_status pscan_select_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                             const pscan_user_op *pred, size_t *num_selected) {
  (void)in, (void)out, (void)n, (void)pred, (void)num_selected;
  return PENDING(ctx, "pscan_select_op");
}

pscan_status pscan_partition_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                const pscan_user_op *pred, size_t *num_selected) {
  (void)in, (void)out, (void)n, (void)pred, (void)num_selected;
  return PENDING(ctx, "pscan_partition_op");
}
