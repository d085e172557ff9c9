/* The CUDA backend's memory: which pointers are device memory (remembering the last few
 * found), and the workspace, device buffers grown on demand, stream-ordered: a 64-bit tile counter
 * and the totals and prefixes of the multi-pass strategies in one buffer, the per-tile status
 * words in buffers of their own (one per word format). The counter is never reset: the host knows
 * how many tiles every launch took (tile_base). The status words are never reset either: each
 * launch tags its words with a new epoch, and nothing but whole status words is ever written where
 * they live. A small scan is therefore one kernel launch and nothing else. */
#include "state.h"

#include <string.h>

/* Asking the driver about a pointer costs about a microsecond, as much as a small scan's launch:
   the last few pointers found to be device memory are remembered (exact addresses). This assumes
   a freed device address does not come back as host memory while the context lives (CUDA keeps
   its device address ranges reserved under unified addressing). */
static bool known_device(cuda_state *st, const void *p) {
  for (int i = 0; i < 4; i++)
    if (st->known_device[i] == p)
      return true;
  return false;
}
static void remember_device(cuda_state *st, const void *p) {
  memmove(st->known_device + 1, st->known_device, 3 * sizeof st->known_device[0]);
  st->known_device[0] = p;
}

pscan_status pscan__cuda_check_memory(pscan_ctx *ctx, const void *p, const char *what) {
  cuda_state *st = ctx->impl;
  if (known_device(st, p))
    return PSCAN_OK;
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    a.type = cudaMemoryTypeUnregistered;
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return pscan__fail(ctx, PSCAN_ERR_WRONG_MEMORY,
                       "%s is host memory; the CUDA backend needs device memory (cudaMalloc or "
                       "managed)", what);
  remember_device(st, p);
  return PSCAN_OK;
}

pscan_status pscan__cuda_grow_zeroed(pscan_ctx *ctx, cuda_state *st, char **buf, size_t *cap,
                                     size_t bytes, bool *grown) {
  *grown = false;
  if (bytes <= *cap)
    return PSCAN_OK;
  size_t size = bytes + bytes / 4 + 4096;
  if (*buf)
    CUDA_CHECK(ctx, cudaFreeAsync(*buf, st->stream), "cudaFreeAsync");
  *buf = NULL;
  *cap = 0;
  void *w = NULL;
  /* (the test-only fault hook of src/alloc.c covers device workspace too) */
  cudaError_t e = pscan__fault_inject(PSCAN__FAULT_ALLOC) ? cudaErrorMemoryAllocation
                                                          : cudaMallocAsync(&w, size, st->stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "out of GPU memory for %zu bytes of workspace",
                       size);
  }
  CUDA_CHECK(ctx, e, "cudaMallocAsync");
  CUDA_CHECK(ctx, cudaMemsetAsync(w, 0, size, st->stream), "cudaMemsetAsync");
  *buf = w;
  *cap = size;
  *grown = true;
  return PSCAN_OK;
}

pscan_status pscan__cuda_ensure_work(pscan_ctx *ctx, cuda_state *st, size_t bytes) {
  bool grown;
  PSCAN__CHECK(pscan__cuda_grow_zeroed(ctx, st, &st->work, &st->work_bytes, bytes, &grown));
  if (grown)
    st->tile_base = 0; /* a fresh, zeroed counter */
  return PSCAN_OK;
}

static bool is_device_memory(cuda_state *st, const void *p) {
  if (known_device(st, p))
    return true;
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

pscan_status pscan__cuda_grow(pscan_ctx *ctx, char **buf, size_t *cap, size_t bytes) {
  bool grown;
  return pscan__cuda_grow_zeroed(ctx, ctx->impl, buf, cap, bytes, &grown);
}

bool pscan__cuda_on_device(pscan_ctx *ctx, const void *p) { return is_device_memory(ctx->impl, p); }
