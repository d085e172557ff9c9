/* The CUDA backend of a build without CUDA: every entry answers PSCAN_ERR_UNSUPPORTED, so the
 * rest of the library never needs to know whether CUDA was built. */
#include "internal.h"

bool pscan__cuda_built(void) { return false; }

bool pscan__cuda_is_device_pointer(const void *p) {
  (void)p;
  return false;
}

static pscan_status stub_init(pscan_ctx *ctx) {
  return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                     "pscan_create: this build of pscan has no CUDA backend (configure with CUDA)");
}

static void stub_fini(pscan_ctx *ctx) { (void)ctx; }

const pscan__backend pscan__cuda_backend = {
    .name = "cuda (not built)",
    .init = stub_init,
    .fini = stub_fini,
};
