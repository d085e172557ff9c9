/* The CUDA backend's context: its device and stream (creation, parameters, set_stream,
 * synchronize, destruction), how its kernels launch on that device (cooperative, programmatic
 * dependent launch, staggered first wave), the backend table, and what the axis scans and the
 * user operators borrow from it. Calls enqueue on the context's stream and return without
 * synchronising. The work itself: scan.c, compact.c; memory and workspace: memory.c. */
#include "state.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Set once a CUDA context has been created, so the CPU backend only asks the CUDA runtime about
   pointers in a process that uses CUDA (asking would otherwise create a GPU context). */
static atomic_bool cuda_in_use;

bool pscan__cuda_built(void) { return true; }

bool pscan__cuda_is_device_pointer(const void *p) {
  if (!atomic_load(&cuda_in_use))
    return false;
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

/* The legacy default stream and the per-thread one exist as long as the device: the caller
   cannot destroy them. */
static bool lasting_stream(cudaStream_t s) {
  return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

pscan_status pscan__cuda_fail(pscan_ctx *ctx, int cuda_error, const char *what) {
  cudaError_t e = (cudaError_t)cuda_error;
  cudaGetLastError(); /* clear a non-sticky error so the context stays usable */
  return pscan__fail(ctx, PSCAN_ERR_DEVICE, "%s: %s (%s)", what, cudaGetErrorString(e),
                     cudaGetErrorName(e));
}

/* Without programmatic dependent launch (below), single-pass grids of at most one block per
   multiprocessor launch cooperatively: the runtime then guarantees that every block is resident
   at once, so a tile can take its block's index and skip the atomic tile counter (one L2 round
   trip before its loads, most of a small scan's time) and still never wait on a predecessor that
   is not running. Launches of more than two waves
   start their first wave's rows 2 us apart (launch.h; measured best on the H100,
   docs/PERFORMANCE.md, "Staggered first wave"). On compute capability 9.0+ every kernel
   launches with programmatic dependent launch allowed: it waits for the kernel before it, but
   its launch overlaps that kernel's run
   (common.cuh: pscan__wait_for_predecessor; docs/PERFORMANCE.md, "Cooperative launch and
   programmatic dependent launch").
   PSCAN_CUDA_PDL=0 turns PDL off (for kernels of the caller's that read pscan's output without
   waiting, and for the tests, which reach the cooperative launches on sm_90 that way). */
static void configure_launches(cuda_state *st) {
  int coop = 0, sms = 0, major = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, st->device) != cudaSuccess ||
      cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, st->device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, st->device) != cudaSuccess ||
      sms <= 0) {
    cudaGetLastError();
    return; /* neither */
  }
  const char *pdl = getenv("PSCAN_CUDA_PDL");
  st->pdl = major >= 9 && !(pdl && strcmp(pdl, "0") == 0);
  /* With programmatic dependent launch a plain launch overlaps the previous kernel and a
     cooperative one does not: back to back, the plain launch measured 0.2-0.6 us faster a call at
     2^14-2^18 (docs/PERFORMANCE.md, "Cooperative launch and programmatic dependent launch"),
     so cooperative launches are for GPUs without it. */
  st->coop_tiles = coop && !st->pdl ? (uint64_t)sms : 0;
  st->stagger_ns = 2000u; /* docs/PERFORMANCE.md, "Staggered first wave" */
  st->eager_waves = (unsigned)pscan__env_uint("PSCAN_CUDA_LB_EAGER_WAVES", 1);
  /* bit 0: sparse tiles of the look-back warp kernels (and every launch of the other compaction
     kernels, where built in), bit 1: dense tiles; docs/PERFORMANCE.md, "The eager poll in the
     look-back warp" */
  st->compact_eager = (int)(pscan__env_uint("PSCAN_CUDA_COMPACT_EAGER", 1) & 3u);
  st->lb_block_tiles = pscan__env_uint("PSCAN_CUDA_LB_BLOCK_TILES", PSCAN__LB_BLOCK_TILES);
  st->sm_count = (unsigned)sms;
}

static pscan_status cuda_init(pscan_ctx *ctx) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return pscan__fail(ctx, PSCAN_ERR_NO_DEVICE, "pscan_create: no usable CUDA device (%s)",
                       e != cudaSuccess ? cudaGetErrorString(e) : "none found");
  }
  cuda_state *st = pscan__calloc(1, sizeof *st);
  if (!st)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_create: out of memory");
  ctx->impl = st;
  st->caller_device = -1;
  pscan_status s = use_device(ctx, st);
  if (s == PSCAN_OK && (e = cudaEventCreateWithFlags(&st->ordering, cudaEventDisableTiming)))
    s = pscan__cuda_fail(ctx, (int)e, "cudaEventCreate");
  if (s == PSCAN_OK)
    configure_launches(st);
  restore_device(st);
  if (s != PSCAN_OK) {
    pscan__free(st);
    ctx->impl = NULL;
    return s;
  }
  atomic_store(&cuda_in_use, true);
  return PSCAN_OK;
}

static void cuda_fini(pscan_ctx *ctx) {
  cuda_state *st = ctx->impl;
  if (!st)
    return;
  if (use_device(ctx, st) == PSCAN_OK) {
    /* The caller's stream may be gone by now: wait for the last call through the event, then
       free synchronously. */
    if (lasting_stream(st->stream))
      cudaStreamSynchronize(st->stream);
    else
      cudaEventSynchronize(st->ordering);
    if (st->work)
      cudaFree(st->work);
    for (int i = 0; i < 3; i++)
      if (st->status[i])
        cudaFree(st->status[i]);
    cudaEventDestroy(st->ordering);
    if (st->pool) /* (its memory was freed in stream order, and the stream has finished) */
      cudaMemPoolDestroy(st->pool);
  }
  pscan__cuda_segments_forget(st->segments_memo);
  restore_device(st);
  pscan__free(st);
  ctx->impl = NULL;
}

/* A context made on the current device and then given PSCAN_PARAM_DEVICE (before its first
   call) moves there: its ordering event must belong to that device (an event of another device
   cannot be recorded on that device's streams: cudaErrorInvalidResourceHandle), and its launch
   limits are that device's. On failure the context stays as it was. */
static pscan_status move_to_device(pscan_ctx *ctx, cuda_state *st, int device) {
  const int old = st->device;
  cudaEvent_t ev = NULL;
  st->device = device;
  pscan_status s = use_device(ctx, st);
  cudaError_t e = cudaSuccess;
  if (s == PSCAN_OK && (e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess)
    s = pscan__cuda_fail(ctx, (int)e, "cudaEventCreate");
  if (s != PSCAN_OK) {
    st->device = old;
    use_device(ctx, st);
    return s;
  }
  cudaEventDestroy(st->ordering);
  st->ordering = ev;
  configure_launches(st);
  return PSCAN_OK;
}

static pscan_status check_param(pscan_ctx *ctx, pscan_param p, int64_t v);
static pscan_status cuda_check_param(pscan_ctx *ctx, pscan_param p, int64_t v) {
  pscan_status s = check_param(ctx, p, v);
  restore_device(ctx->impl);
  return s;
}

static pscan_status check_param(pscan_ctx *ctx, pscan_param p, int64_t v) {
  cuda_state *st = ctx->impl;
  if (p == PSCAN_PARAM_ALGO && v == PSCAN_ALGO_SEQUENTIAL)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "pscan_set_param: the CUDA backend has no SEQUENTIAL algorithm");
  if (p == PSCAN_PARAM_DEVICE) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || v >= count) {
      cudaGetLastError();
      return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                         "pscan_set_param: device %lld does not exist (%d devices)", (long long)v,
                         count);
    }
    if (v != st->device && (st->work || st->status[0] || st->status[1] || st->status[2]))
      return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                         "pscan_set_param: choose the device before the first call on a context");
    if (v != st->device)
      return move_to_device(ctx, st, (int)v);
  }
  return PSCAN_OK;
}

/* Later work goes to the new stream, after everything already queued on the old one. The old
   stream is touched only when it is one the caller cannot destroy; on any other, the event was
   recorded after the context's last call (cuda_call_done), and the caller may have destroyed the
   stream since (Python frameworks do, as a matter of course). */
static pscan_status set_stream(pscan_ctx *ctx, cuda_state *st, void *stream) {
  PSCAN__CHECK(use_device(ctx, st));
  if (lasting_stream(st->stream))
    CUDA_CHECK(ctx, cudaEventRecord(st->ordering, st->stream), "cudaEventRecord");
  CUDA_CHECK(ctx, cudaStreamWaitEvent((cudaStream_t)stream, st->ordering, 0), "cudaStreamWaitEvent");
  st->stream = (cudaStream_t)stream;
  return PSCAN_OK;
}
static pscan_status cuda_set_stream(pscan_ctx *ctx, void *stream) {
  pscan_status s = set_stream(ctx, ctx->impl, stream);
  restore_device(ctx->impl);
  return s;
}

static void cuda_call_done(pscan_ctx *ctx) {
  cuda_state *st = ctx->impl;
  if (!lasting_stream(st->stream) && cudaEventRecord(st->ordering, st->stream) != cudaSuccess)
    cudaGetLastError(); /* a failing stream reports itself on the next call or synchronize */
  restore_device(st);
}

static pscan_status cuda_synchronize(pscan_ctx *ctx) {
  cuda_state *st = ctx->impl;
  pscan_status s = use_device(ctx, st);
  cudaError_t e = s == PSCAN_OK ? cudaStreamSynchronize(st->stream) : cudaSuccess;
  restore_device(st);
  return e != cudaSuccess ? pscan__cuda_fail(ctx, (int)e, "pscan_synchronize") : s;
}

/* The user operators' hooks (cuda/jit/) make the context's device current (its compute
   capability, its module, its buffers); the caller's comes back after each. (Not through
   cuda_call_done: they enqueue no work, so the context's stream may be one the caller has
   destroyed since.) */
static const char *cuda_op_target(pscan_ctx *ctx, const pscan_op_desc *desc) {
  const char *target = pscan__cuda_op_target(ctx, desc);
  restore_device(ctx->impl);
  return target;
}
static pscan_status cuda_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, const char *key,
                                   void **impl) {
  pscan_status s = pscan__cuda_op_create(ctx, desc, key, impl);
  restore_device(ctx->impl);
  return s;
}
static void cuda_op_destroy(pscan_ctx *ctx, void *impl) {
  pscan__cuda_op_destroy(ctx, impl);
  restore_device(ctx->impl);
}

/* ---- For the axis scans (axis_host.c) ---- */

pscan_status pscan__cuda_axis_begin(pscan_ctx *ctx, void **stream, unsigned *sm_count) {
  cuda_state *st = ctx->impl;
  PSCAN__CHECK(use_device(ctx, st));
  *stream = st->stream;
  int sms = 0;
  CUDA_CHECK(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, st->device),
             "cudaDeviceGetAttribute");
  *sm_count = (unsigned)sms;
  return PSCAN_OK;
}

pscan_status pscan__cuda_axis_fail(pscan_ctx *ctx, int err, const char *what) {
  return pscan__cuda_fail(ctx, err, what);
}

void **pscan__cuda_segments_slot(pscan_ctx *ctx) {
  cuda_state *st = ctx->impl;
  return &st->segments_memo;
}

/* ---- what the user operators (cuda/jit/) borrow: device, stream, counter, workspace ---- */

pscan_status pscan__cuda_env_get(pscan_ctx *ctx, pscan__cuda_env *env) {
  cuda_state *st = ctx->impl;
  PSCAN__CHECK(use_device(ctx, st));
  PSCAN__CHECK(pscan__cuda_ensure_work(ctx, st, COUNTER_BYTES));
  env->device = st->device;
  env->stream = st->stream;
  env->pdl = st->pdl;
  env->sm_count = st->sm_count;
  env->stagger_ns = st->stagger_ns;
  env->tile_counter = (unsigned long long *)(void *)st->work;
  env->tile_base = &st->tile_base;
  env->count_slot = (unsigned long long *)(void *)(st->work + 8); /* as compact.c's */
  return PSCAN_OK;
}

const pscan__backend pscan__cuda_backend = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .check_param = cuda_check_param,
    .set_stream = cuda_set_stream,
    .call_done = cuda_call_done,
    .synchronize = cuda_synchronize,
    .check_memory = pscan__cuda_check_memory,
    .scan = pscan__cuda_scan,
    .reduce = pscan__cuda_reduce,
    .compact = pscan__cuda_compact,
    .scan_axis = pscan__cuda_scan_axis,
    .op_create = cuda_op_create, /* user operators: cuda/jit/ */
    .op_destroy = cuda_op_destroy,
    .scan_op = pscan__cuda_scan_op,
    .reduce_op = pscan__cuda_reduce_op,
    .select_op = pscan__cuda_select_op,
    .op_target = cuda_op_target,
};
