/* Host <-> device mirrors for the tool's --backend cuda (file_cmd.c) and the GPU benchmark's
 * buffers: cudaMalloc, cudaMemcpy and cudaFree behind four calls, so that no other file of the
 * tool includes a CUDA header or needs an #ifdef. device_buf.c is built when the library has its
 * CUDA backend (PSCAN_TOOL_CUDA); device_buf_none.c otherwise, where every call fails with
 * "this pscan was built without CUDA".
 *
 * Every failure fills err with one line, e.g. "cudaMalloc of 4.0 GiB: out of memory
 * (cudaErrorMemoryAllocation)". */
#ifndef PSCAN_TOOL_DEVICE_BUF_H
#define PSCAN_TOOL_DEVICE_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct dbuf_err {
  char msg[256];
} dbuf_err;

/* Whether this tool was built with CUDA (not whether a GPU is usable: pscan_create says that). */
bool dbuf_built(void);
/* A device buffer of bytes (at least 1 byte, so that n == 0 still gives a pointer). */
bool dbuf_alloc(void **dev, size_t bytes, dbuf_err *err);
/* A device copy of host[0..bytes). */
bool dbuf_upload(void **dev, const void *host, size_t bytes, dbuf_err *err);
/* Waits for the device, then copies dev[0..bytes) to host. */
bool dbuf_download(void *host, const void *dev, size_t bytes, dbuf_err *err);
/* NULL is a no-op. */
void dbuf_free(void *dev);

#endif /* PSCAN_TOOL_DEVICE_BUF_H */
