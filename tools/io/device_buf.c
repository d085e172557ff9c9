/* device_buf.h with the CUDA runtime (C API; linked through pscan_static's cudart_static). */
#include "device_buf.h"
#include "cli/cli.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

static bool fail(dbuf_err *err, cudaError_t e, const char *what, size_t bytes) {
  char size[32];
  cudaGetLastError(); /* clear a non-sticky error */
  snprintf(err->msg, sizeof err->msg, "%s of %s: %s (%s)", what,
           cli_format_bytes((double)bytes, size, sizeof size), cudaGetErrorString(e),
           cudaGetErrorName(e));
  return false;
}

bool dbuf_built(void) { return true; }

bool dbuf_alloc(void **dev, size_t bytes, dbuf_err *err) {
  *dev = NULL;
  cudaError_t e = cudaMalloc(dev, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    *dev = NULL;
    return fail(err, e, "cudaMalloc", bytes);
  }
  return true;
}

bool dbuf_upload(void **dev, const void *host, size_t bytes, dbuf_err *err) {
  if (!dbuf_alloc(dev, bytes, err))
    return false;
  cudaError_t e = bytes ? cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice) : cudaSuccess;
  if (e == cudaSuccess)
    return true;
  dbuf_free(*dev);
  *dev = NULL;
  return fail(err, e, "cudaMemcpy to the GPU", bytes);
}

bool dbuf_download(void *host, const void *dev, size_t bytes, dbuf_err *err) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    return fail(err, e, "cudaDeviceSynchronize before copying", bytes);
  e = bytes ? cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) : cudaSuccess;
  return e == cudaSuccess || fail(err, e, "cudaMemcpy from the GPU", bytes);
}

void dbuf_free(void *dev) {
  if (dev)
    cudaFree(dev);
}
