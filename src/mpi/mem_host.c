/* The context's memory in a build without CUDA: every context is a CPU one, on host memory. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

bool pscan_mpi__on_device(const pscan_ctx *ctx) { (void)ctx; return false; }

pscan_status pscan_mpi__check_memory(pscan_ctx *ctx, const void *p, const char *what) {
  (void)ctx, (void)p, (void)what;
  return PSCAN_OK;
}

pscan_status pscan_mpi__read(pscan_ctx *ctx, void *host_dst, const void *src, size_t bytes) {
  (void)ctx;
  memcpy(host_dst, src, bytes);
  return PSCAN_OK;
}

pscan_status pscan_mpi__write(pscan_ctx *ctx, void *dst, const void *host_src, size_t bytes) {
  (void)ctx;
  memcpy(dst, host_src, bytes);
  return PSCAN_OK;
}

pscan_status pscan_mpi__alloc(pscan_ctx *ctx, size_t bytes, void **p) {
  *p = malloc(bytes ? bytes : 1);
  if (!*p)
    return pscan_mpi__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_mpi: out of memory (%zu bytes)",
                           bytes);
  return PSCAN_OK;
}

void pscan_mpi__free(pscan_ctx *ctx, void *p) { (void)ctx; free(p); }

pscan_status pscan_mpi__drop_first(pscan_ctx *ctx, void *p, size_t count, size_t elem) {
  (void)ctx;
  if (count > 1)
    memmove(p, (char *)p + elem, (count - 1) * elem);
  return PSCAN_OK;
}
