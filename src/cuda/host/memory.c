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

/* A call's temporaries come from the context's own stream-ordered pool, which keeps up to
   POOL_KEEP_MB MiB freed to it across synchronisations. The device's default pool gives back
   everything freed at each synchronisation, and on the H200 a process whose calls had once taken
   and freed tens of MB that way ran every later segmented scan ~0.1 ms (15%) slower, reversed
   ones 2x (docs/PERFORMANCE.md, "Segment starts as bits"). PSCAN_CUDA_POOL_KEEP_MB=0: the
   default pool, for A/B runs. */
enum { POOL_KEEP_MB = 256 };

static cudaMemPool_t temp_pool(cuda_state *st) {
  if (st->pool && st->pool_device == st->device)
    return st->pool;
  const uint64_t keep = (uint64_t)pscan__env_uint("PSCAN_CUDA_POOL_KEEP_MB", POOL_KEEP_MB) << 20;
  if (st->pool || keep == 0)
    return NULL; /* (a context moved to another device after its pool was made: the default) */
  struct cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = st->device;
  cudaMemPool_t pool;
  if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
    cudaGetLastError(); /* the default pool serves */
    return NULL;
  }
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, (void *)&keep);
  st->pool = pool;
  st->pool_device = st->device;
  return pool;
}

pscan_status pscan__cuda_temp_alloc(pscan_ctx *ctx, size_t bytes, void **p) {
  cuda_state *st = ctx->impl;
  cudaMemPool_t pool = temp_pool(st);
  bytes = bytes ? bytes : 1;
  cudaError_t e = pool ? cudaMallocFromPoolAsync(p, bytes, pool, st->stream)
                       : cudaMallocAsync(p, bytes, st->stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "out of GPU memory for %zu bytes", bytes);
  }
  CUDA_CHECK(ctx, e, pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync");
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
