/* The context's memory in a CUDA build: device memory on a CUDA context (moved with the CUDA
 * runtime, after waiting for the context's stream), host memory on a CPU one. Only single
 * elements and per-rank totals travel this way. The calls run on the context's device and put
 * the calling thread's current device back afterwards. */
#include "mpi_internal.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

bool pscan_mpi__on_device(const pscan_ctx *ctx) {
  return pscan_get_backend(ctx) == PSCAN_BACKEND_CUDA;
}

static bool is_host_only_pointer(const void *p) {
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;
  }
  return a.type == cudaMemoryTypeUnregistered || a.type == cudaMemoryTypeHost;
}

pscan_status pscan_mpi__check_memory(pscan_ctx *ctx, const void *p, const char *what) {
  if (!pscan_mpi__on_device(ctx)) {
    /* managed memory is host-accessible: only plain device memory is refused */
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice)
      return pscan_mpi__fail(ctx, PSCAN_ERR_WRONG_MEMORY,
                             "pscan_mpi: %s is device memory, given to a CPU context", what);
    (void)cudaGetLastError();
    return PSCAN_OK;
  }
  if (is_host_only_pointer(p))
    return pscan_mpi__fail(ctx, PSCAN_ERR_WRONG_MEMORY,
                           "pscan_mpi: %s is host memory, given to a CUDA context", what);
  return PSCAN_OK;
}

/* Enters ctx's device (saving the caller's) after ctx's work is done. */
static pscan_status enter(pscan_ctx *ctx, int *saved) {
  pscan_status s = pscan_synchronize(ctx);
  if (s != PSCAN_OK)
    return pscan_mpi__core(ctx, s);
  int64_t dev = 0;
  pscan_get_param(ctx, PSCAN_PARAM_DEVICE, &dev);
  if (cudaGetDevice(saved) != cudaSuccess || cudaSetDevice((int)dev) != cudaSuccess)
    return pscan_mpi__fail(ctx, PSCAN_ERR_DEVICE, "pscan_mpi: cannot use device %lld: %s",
                           (long long)dev, cudaGetErrorString(cudaGetLastError()));
  return PSCAN_OK;
}

static pscan_status leave(pscan_ctx *ctx, int saved, cudaError_t e, const char *what) {
  cudaSetDevice(saved);
  if (e != cudaSuccess)
    return pscan_mpi__fail(ctx, PSCAN_ERR_DEVICE, "pscan_mpi: %s: %s", what, cudaGetErrorString(e));
  return PSCAN_OK;
}

static pscan_status copy(pscan_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what) {
  if (!pscan_mpi__on_device(ctx)) {
    memmove(dst, src, bytes);
    return PSCAN_OK;
  }
  int saved = 0;
  pscan_status s = enter(ctx, &saved);
  if (s != PSCAN_OK)
    return s;
  return leave(ctx, saved, cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), what);
}

pscan_status pscan_mpi__read(pscan_ctx *ctx, void *host_dst, const void *src, size_t bytes) {
  return copy(ctx, host_dst, src, bytes, "cudaMemcpy to the host");
}

pscan_status pscan_mpi__write(pscan_ctx *ctx, void *dst, const void *host_src, size_t bytes) {
  return copy(ctx, dst, host_src, bytes, "cudaMemcpy to the device");
}

pscan_status pscan_mpi__alloc(pscan_ctx *ctx, size_t bytes, void **p) {
  *p = NULL;
  if (!pscan_mpi__on_device(ctx)) {
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
      return pscan_mpi__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_mpi: out of memory (%zu bytes)",
                             bytes);
    return PSCAN_OK;
  }
  int saved = 0;
  pscan_status s = enter(ctx, &saved);
  if (s != PSCAN_OK)
    return s;
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
  cudaSetDevice(saved);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *p = NULL;
    return pscan_mpi__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY,
                           "pscan_mpi: cudaMalloc of %zu bytes failed: %s", bytes,
                           cudaGetErrorString(e));
  }
  return PSCAN_OK;
}

void pscan_mpi__free(pscan_ctx *ctx, void *p) {
  if (!p)
    return;
  if (!pscan_mpi__on_device(ctx)) {
    free(p);
    return;
  }
  pscan_synchronize(ctx);
  cudaFree(p);
}

pscan_status pscan_mpi__drop_first(pscan_ctx *ctx, void *p, size_t count, size_t elem) {
  if (count <= 1)
    return PSCAN_OK;
  size_t bytes = (count - 1) * elem;
  if (!pscan_mpi__on_device(ctx)) {
    memmove(p, (char *)p + elem, bytes);
    return PSCAN_OK;
  }
  /* cudaMemcpy takes no overlapping ranges: through a temporary buffer */
  void *tmp = NULL;
  pscan_status s = pscan_mpi__alloc(ctx, bytes, &tmp);
  if (s != PSCAN_OK)
    return s;
  int saved = 0;
  s = enter(ctx, &saved);
  if (s == PSCAN_OK) {
    cudaError_t e = cudaMemcpy(tmp, (char *)p + elem, bytes, cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess)
      e = cudaMemcpy(p, tmp, bytes, cudaMemcpyDeviceToDevice);
    s = leave(ctx, saved, e, "cudaMemcpy on the device");
  }
  pscan_mpi__free(ctx, tmp);
  return s;
}
