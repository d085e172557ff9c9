/* The CUDA backend's user operators: op_create finds the operator's cubin in the disk cache or
 * compiles it (jit_nvrtc.c), loads it with the CUDA runtime's library API, and scan_op /
 * select_op launch its kernel (user_scan.cuh, user_select.cuh) on the context's stream, with the
 * context's tile counter and the operator's own tile-status buffer (its slots have the operator's
 * own layout, so no other kernel's words ever share it: a stale word can never carry a current
 * epoch). Deterministic mode's kernel is compiled on its first use. */
#include "jit_launch.h"
#include "user_axis.h"

#include "../../op/cache.h"
#include "../launch.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

static pscan_status copy_desc(pscan_ctx *ctx, cuda_op *op, const pscan_op_desc *d) {
  size_t ls = strlen(d->source) + 1, lt = strlen(d->type_name) + 1, ln = strlen(d->name) + 1;
  op->strings = pscan__calloc(ls + lt + ln, 1);
  if (!op->strings)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  memcpy(op->strings, d->source, ls);
  memcpy(op->strings + ls, d->type_name, lt);
  memcpy(op->strings + ls + lt, d->name, ln);
  op->desc = *d;
  op->desc.source = op->strings;
  op->desc.type_name = op->strings + ls;
  op->desc.name = op->strings + ls + lt;
  op->desc.identity = NULL;
  if (d->kind == PSCAN_KIND_COMBINE && d->identity) {
    memcpy(op->identity, d->identity, d->elem_size);
    op->has_identity = true;
    op->desc.identity = op->identity; /* the program carries it (jit_source.c) */
  }
  return PSCAN_OK;
}

/* The disk-cache key of one kernel: op.c's key, the target, the kernel, the embedded device
   sources and the CUDA runtime (NVRTC's version is left out so that a hit needs no NVRTC; a cubin
   the driver cannot load is compiled again). */
static void cache_key(const cuda_op *op, pscan__jit_kernel k, char out[33]) {
  char arch[32], rt[32];
  snprintf(arch, sizeof arch, "sm_%d", op->arch);
  snprintf(rt, sizeof rt, "cudart %d", (int)CUDART_VERSION);
  const char *name = pscan__jit_kernel_name(k), *digest = pscan__jit_sources_digest();
  const void *parts[] = {op->key, arch, name, digest, rt};
  const size_t sizes[] = {strlen(op->key), strlen(arch), strlen(name), strlen(digest), strlen(rt)};
  pscan__hash_hex(parts, sizes, 5, out);
}

static cudaError_t load_cubin(cuda_op *op, int which, pscan__jit_kernel k, const void *bin) {
  cudaLibrary_t lib = NULL;
  cudaKernel_t kernel = NULL;
  cudaError_t e = cudaLibraryLoadData(&lib, bin, NULL, NULL, 0, NULL, NULL, 0);
  if (e == cudaSuccess)
    e = cudaLibraryGetKernel(&kernel, lib, pscan__jit_kernel_name(k));
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (lib)
      cudaLibraryUnload(lib);
    return e;
  }
  int rows = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&rows, (const void *)kernel, 256, 0) !=
      cudaSuccess) {
    cudaGetLastError(); /* then nothing is staggered */
    rows = 0;
  }
  op->k[which].lib = lib;
  op->k[which].kernel = kernel;
  op->k[which].rows = rows;
  return cudaSuccess;
}

pscan_status pscan__jit_load_kernel(pscan_ctx *ctx, cuda_op *op, int which) {
  if (op->k[which].kernel)
    return PSCAN_OK;
  pscan__jit_kernel k = which == K_AXIS     ? PSCAN__JIT_AXIS
                        : which == K_LINES  ? PSCAN__JIT_SCAN_LINES
                        : which == K_REDUCE ? PSCAN__JIT_REDUCE
                        : which == K_BY_KEY ? PSCAN__JIT_SCAN_BY_KEY
                        : which == K_REDUCE_BY_KEY ? PSCAN__JIT_REDUCE_BY_KEY
                                            : pscan__jit_kernel_for(&op->desc, which);
  char key[33];
  cache_key(op, k, key);
  void *bin = NULL;
  size_t size = 0;
  if (pscan__cache_load(key, ".cubin", &bin, &size)) {
    cudaError_t e = load_cubin(op, which, k, bin);
    pscan__free(bin);
    if (e == cudaSuccess)
      return PSCAN_OK; /* else a corrupt or stale entry: compiled again below */
  }
  char *log = NULL;
  pscan_status s = pscan__jit_compile(ctx, &op->desc, k, op->arch, &bin, &size, &log);
  if (log) /* pscan_op_compile_log */
    pscan__op_set_log(ctx, log, strlen(log));
  pscan__free(log);
  PSCAN__CHECK(s);
  cudaError_t e = load_cubin(op, which, k, bin);
  if (e == cudaSuccess)
    pscan__cache_store(key, ".cubin", bin, size);
  pscan__free(bin);
  return e == cudaSuccess ? PSCAN_OK : pscan__cuda_fail(ctx, e, "cudaLibraryLoadData (user operator)");
}

static void unload(cuda_op *op) {
  for (int i = 0; i < K_COUNT; i++)
    if (op->k[i].lib)
      cudaLibraryUnload(op->k[i].lib);
}

/* The compute capability of ctx's device as 10 * major + minor (90: sm_90). */
static pscan_status device_arch(pscan_ctx *ctx, int *arch) {
  pscan__cuda_env env;
  PSCAN__CHECK(pscan__cuda_env_get(ctx, &env));
  int major = 0, minor = 0;
  cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, env.device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, env.device);
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, "cudaDeviceGetAttribute");
  *arch = major * 10 + minor;
  return PSCAN_OK;
}

/* What op.c's key needs beyond desc: the target and the kernels' own sources. */
const char *pscan__cuda_op_target(pscan_ctx *ctx, const pscan_op_desc *desc) {
  static _Thread_local char target[96];
  int arch = 0;
  (void)desc;
  if (device_arch(ctx, &arch) != PSCAN_OK)
    return "cuda"; /* (op_create then fails the same way, with its message) */
  snprintf(target, sizeof target, "sm_%d %s cudart %d", arch, pscan__jit_sources_digest(),
           (int)CUDART_VERSION);
  return target;
}

pscan_status pscan__cuda_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, const char *key,
                                   void **impl) {
  *impl = NULL;
  if (desc->elem_size > PSCAN__JIT_MAX_ELEM)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "pscan_op_create: the CUDA backend takes elements of up to %d bytes (%zu)",
                       PSCAN__JIT_MAX_ELEM, desc->elem_size);
  int arch = 0;
  PSCAN__CHECK(device_arch(ctx, &arch));
  cuda_op *op = pscan__calloc(1, sizeof *op);
  if (!op)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  op->arch = arch;
  snprintf(op->key, sizeof op->key, "%s", key ? key : "");
  op->tile_items = pscan__jit_tile_items(desc->elem_size);
  op->slot = pscan__jit_status_slot(desc);
  pscan_status s = copy_desc(ctx, op, desc);
  if (s == PSCAN_OK)
    s = pscan__jit_load_kernel(ctx, op, 0);
  if (s != PSCAN_OK) {
    unload(op);
    pscan__free(op->strings);
    pscan__free(op);
    return s;
  }
  *impl = op;
  return PSCAN_OK;
}

void pscan__cuda_op_destroy(pscan_ctx *ctx, void *impl) {
  cuda_op *op = impl;
  if (!op)
    return;
  pscan__cuda_env env;
  if (pscan__cuda_env_get(ctx, &env) == PSCAN_OK) {
    if (op->status)
      cudaFreeAsync(op->status, (cudaStream_t)env.stream);
    if (op->totals)
      cudaFreeAsync(op->totals, (cudaStream_t)env.stream);
    if (op->count_words)
      cudaFreeAsync(op->count_words, (cudaStream_t)env.stream);
    cudaStreamSynchronize((cudaStream_t)env.stream); /* no kernel of the library still runs */
  }
  cudaGetLastError();
  unload(op);
  pscan__free(op->strings);
  pscan__free(op);
}

pscan_status pscan__jit_prepare(pscan_ctx *ctx, cuda_op *op, const pscan__cuda_env *env,
                                const void *in, void *out, size_t n, bool lookback,
                                params_buf *buf) {
  uint64_t tiles = (n + op->tile_items - 1) / op->tile_items;
  if (tiles > 0x7fffffffu)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "user operator: %llu tiles exceed the grid limit",
                       (unsigned long long)tiles);
  if (lookback) {
    PSCAN__CHECK(pscan__cuda_grow(ctx, &op->status, &op->status_bytes, 2 * tiles * op->slot));
    if (++op->epoch == 0) { /* wrapped: old tags could match again */
      cudaError_t e = cudaMemsetAsync(op->status, 0, op->status_bytes, (cudaStream_t)env->stream);
      if (e == cudaSuccess && op->count_words)
        e = cudaMemsetAsync(op->count_words, 0, op->count_words_bytes, (cudaStream_t)env->stream);
      if (e != cudaSuccess)
        return pscan__cuda_fail(ctx, e, "cudaMemsetAsync");
      op->epoch = 1;
    }
  }
  memset(buf, 0, sizeof *buf);
  pscan__cuda_scan_params *p = &buf->base;
  p->in = in;
  p->out = out;
  p->n = n;
  p->num_tiles = tiles;
  p->mode = ctx->params[PSCAN_PARAM_ALGO] == PSCAN_ALGO_CHAINED ? PSCAN__MODE_CHAINED
                                                                : PSCAN__MODE_LOOKBACK;
  p->block_algo = PSCAN_BLOCK_WARP_SCANS;
  p->vector_io = (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;
  if (lookback) {
    p->agg_words = op->status;
    p->incl_words = op->status + tiles * op->slot;
  }
  p->tile_counter = env->tile_counter;
  p->tile_base = *env->tile_base;
  p->pdl = env->pdl;
  p->epoch = op->epoch;
  if (tiles > 2 * PSCAN__MIN_BLOCKS * (uint64_t)env->sm_count) { /* as host/state.h stagger_long_launch */
    p->stagger_ns = env->stagger_ns;
    p->sm_count = env->sm_count;
  }
  return PSCAN_OK;
}

pscan_status pscan__jit_launch(pscan_ctx *ctx, cuda_op *op, int which, const pscan__cuda_env *env,
                               params_buf *buf) {
  pscan__cuda_scan_params *p = &buf->base;
  if (p->stagger_ns)
    p->stagger_rows = (unsigned)op->k[which].rows;
  cudaLaunchAttribute attr;
  memset(&attr, 0, sizeof attr);
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDim.x = (unsigned)p->num_tiles;
  cfg.gridDim.y = cfg.gridDim.z = 1;
  cfg.blockDim.x = 256;
  cfg.blockDim.y = cfg.blockDim.z = 1;
  cfg.stream = (cudaStream_t)env->stream;
  cfg.attrs = &attr;
  cfg.numAttrs = env->pdl ? 1 : 0;
  void *args[] = {buf->bytes};
  cudaError_t e = pscan__fault_inject(PSCAN__FAULT_LAUNCH)
                      ? cudaErrorLaunchFailure
                      : cudaLaunchKernelExC(&cfg, (const void *)op->k[which].kernel, args);
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, "user operator kernel");
  if (p->num_tiles > 1 && which != K_REDUCE) /* (one tile takes no id: user_tile.cuh; nor does
                                                 the reduction's block) */
    *env->tile_base += p->num_tiles;
  return PSCAN_OK;
}

unsigned long long *pscan__jit_count_target(pscan_ctx *ctx, const pscan__cuda_env *env,
                                            size_t *num) {
  return num && pscan__cuda_on_device(ctx, num) ? (unsigned long long *)(void *)num
                                                : env->count_slot;
}

pscan_status pscan__jit_count_back(pscan_ctx *ctx, const pscan__cuda_env *env, size_t *num) {
  if (!num || pscan__cuda_on_device(ctx, num))
    return PSCAN_OK;
  cudaStream_t stream = (cudaStream_t)env->stream;
  unsigned long long v = 0;
  cudaError_t e = cudaMemcpyAsync(&v, env->count_slot, sizeof v, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, "reading the count back");
  *num = (size_t)v;
  return PSCAN_OK;
}

pscan_status pscan__jit_count_zero(pscan_ctx *ctx, const pscan__cuda_env *env, size_t *num) {
  if (num && pscan__cuda_on_device(ctx, num)) {
    cudaError_t e = cudaMemsetAsync(num, 0, sizeof *num, (cudaStream_t)env->stream);
    if (e != cudaSuccess)
      return pscan__cuda_fail(ctx, e, "cudaMemsetAsync");
  } else if (num) {
    *num = 0;
  }
  return PSCAN_OK;
}

/* A scan of n items (segment_len 0), or of lines back to back (kernel 3, in look-back mode);
   mirror: in and out point at item 0, item i lies i elements below it (a reversed view). */
static pscan_status scan_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                            size_t segment_len, int mirror, int exclusive, const void *init) {
  cuda_op *op = impl;
  if (op->desc.kind != PSCAN_KIND_COMBINE)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "pscan_scan_op: %s is a predicate",
                       op->desc.name);
  if (exclusive && !init && !op->has_identity)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "pscan_scan_op: an exclusive scan needs init or the operator's identity");
  if (n == 0)
    return PSCAN_OK;
  const int which = segment_len ? K_LINES : ctx->params[PSCAN_PARAM_DETERMINISTIC] ? 1 : 0;
  PSCAN__CHECK(pscan__jit_load_kernel(ctx, op, which));
  pscan__cuda_env env;
  PSCAN__CHECK(pscan__cuda_env_get(ctx, &env));
  params_buf buf;
  PSCAN__CHECK(pscan__jit_prepare(ctx, op, &env, in, out, n, true, &buf));
  buf.base.exclusive = exclusive;
  buf.base.deterministic = which == 1;
  buf.base.segment_len = segment_len;
  buf.base.mirror = mirror;
  if (mirror) { /* (whole chunks for elements of 1-8 bytes: user_tile.cuh) */
    const size_t s = op->desc.elem_size;
    buf.base.vector_io = 0;
    buf.base.mirror_vec = s < 16 && 16 % s == 0 && pscan__cuda_mirror_chunks(in, s, out, s);
  }
  if (segment_len)
    buf.base.mode = PSCAN__MODE_LOOKBACK;
  unsigned long long flags = init ? HAS_INIT : exclusive ? HAS_FIRST : 0;
  memcpy(buf.bytes + FLAGS_AT, &flags, sizeof flags);
  if (init || exclusive)
    memcpy(buf.bytes + VALUE_AT, init ? init : (const void *)op->identity, op->desc.elem_size);
  return pscan__jit_launch(ctx, op, which, &env, &buf);
}

pscan_status pscan__cuda_scan_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                 int exclusive, const void *init) {
  return scan_op(ctx, impl, in, out, n, 0, 0, exclusive, init);
}

pscan_status pscan__cuda_scan_op_lines(pscan_ctx *ctx, void *impl, const void *in, void *out,
                                       size_t n, size_t len, int mirror, int exclusive,
                                       const void *init) {
  return scan_op(ctx, impl, in, out, n, len, mirror, exclusive, init);
}

/* The tile totals (pscan_user_reduce: a block per tile, no tile ids taken), then an inclusive
   scan of them from init whose last element is the total, as pscan__cuda_reduce does. */
pscan_status pscan__cuda_reduce_op(pscan_ctx *ctx, void *impl, const void *in, size_t n,
                                   const void *init, void *total) {
  cuda_op *op = impl;
  const size_t e = op->desc.elem_size;
  pscan__cuda_env env;
  PSCAN__CHECK(pscan__cuda_env_get(ctx, &env));
  cudaStream_t stream = (cudaStream_t)env.stream;
  const bool on_device = pscan__cuda_on_device(ctx, total);
  if (n == 0 && !on_device) {
    memcpy(total, init, e);
    return PSCAN_OK;
  }
  const void *from = init; /* n == 0: init, in host memory */
  if (n > 0) {
    PSCAN__CHECK(pscan__jit_load_kernel(ctx, op, K_REDUCE));
    const uint64_t tiles = (n + op->tile_items - 1) / op->tile_items;
    const size_t slab = (tiles * e + 255) / 256 * 256;
    PSCAN__CHECK(pscan__cuda_grow(ctx, &op->totals, &op->totals_bytes, 2 * slab));
    params_buf buf;
    PSCAN__CHECK(pscan__jit_prepare(ctx, op, &env, in, op->totals, n, false, &buf));
    buf.base.vector_io = (uintptr_t)in % 16 == 0;
    PSCAN__CHECK(pscan__jit_launch(ctx, op, K_REDUCE, &env, &buf));
    PSCAN__CHECK(scan_op(ctx, op, op->totals, op->totals + slab, tiles, 0, 0, 0, init));
    from = op->totals + slab + (tiles - 1) * e;
  }
  cudaError_t err = cudaMemcpyAsync(total, from, e, cudaMemcpyDefault, stream);
  if (err == cudaSuccess && !on_device)
    err = cudaStreamSynchronize(stream);
  return err == cudaSuccess ? PSCAN_OK : pscan__cuda_fail(ctx, err, "reading the total back");
}

pscan_status pscan__cuda_select_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                   int partition, size_t *num_selected) {
  cuda_op *op = impl;
  if (op->desc.kind != PSCAN_KIND_PREDICATE)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "pscan_select_op: %s is not a predicate",
                       op->desc.name);
  pscan__cuda_env env;
  PSCAN__CHECK(pscan__cuda_env_get(ctx, &env));
  if (n == 0)
    return pscan__jit_count_zero(ctx, &env, num_selected);
  params_buf buf;
  PSCAN__CHECK(pscan__jit_prepare(ctx, op, &env, in, out, n, true, &buf));
  unsigned long long flags = partition ? PARTITION : 0;
  unsigned long long *count = pscan__jit_count_target(ctx, &env, num_selected);
  memcpy(buf.bytes + FLAGS_AT, &flags, sizeof flags);
  memcpy(buf.bytes + COUNT_AT, &count, sizeof count);
  PSCAN__CHECK(pscan__jit_launch(ctx, op, 0, &env, &buf));
  return pscan__jit_count_back(ctx, &env, num_selected);
}

pscan_status pscan__cuda_op_axis_kernels(pscan_ctx *ctx, void *impl, void **kernels) {
  static const char *const names[] = {
#define PSCAN__UA_NAME(id, name) name,
      PSCAN__UA_KERNELS(PSCAN__UA_NAME)
#undef PSCAN__UA_NAME
  };
  enum { COUNT = sizeof names / sizeof names[0] };
  _Static_assert(COUNT == sizeof ((cuda_op *)0)->axis / sizeof(void *), "one slot per kernel");
  cuda_op *op = impl;
  if (!op->axis[COUNT - 1]) {
    PSCAN__CHECK(pscan__jit_load_kernel(ctx, op, K_AXIS));
    for (int i = 0; i < COUNT; i++) {
      cudaKernel_t kernel = NULL;
      cudaError_t e = cudaLibraryGetKernel(&kernel, op->k[K_AXIS].lib, names[i]);
      if (e != cudaSuccess) {
        cudaGetLastError();
        return pscan__cuda_fail(ctx, e, "cudaLibraryGetKernel (user operator, axis)");
      }
      op->axis[i] = (void *)kernel;
    }
  }
  memcpy(kernels, op->axis, sizeof op->axis);
  return PSCAN_OK;
}
