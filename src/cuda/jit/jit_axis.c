/* Scans along an axis with a user operator on the CUDA backend (host side): the choice of the
 * axis program's kernels (user_axis.cuh) over the views' normal form (../../axis_norm.h).
 *  - lines back to back (a C-order array along its last axis): one scan over all of them, a line
 *    starting every len items (jit_cuda.c, user_scan.cuh's pscan_user_scan_lines), but in
 *    DETERMINISTIC mode or with PSCAN_CUDA_AXIS_FLAT_LINES=0 (A/B runs);
 *    reversed, the same over mirrored tiles (the span read from its highest address down; but
 *    with PSCAN_CUDA_AXIS_MIRROR=0);
 *  - few long contiguous lines, forward or reversed: the user operator's single-pass scan
 *    (jit_cuda.c, a decoupled look-back, 2n data movement) on each line in turn;
 *  - lines side by side (the innermost batch dimension closer than the axis): one thread per
 *    line, so a warp's loads of a row coalesce;
 *  - any other lines (many short ones, strided ones): one warp per line.
 * When there are too few lines to fill the GPU, the axis is cut into chunks: reduce each chunk,
 * scan the chunks' combinations along the axis (one more pass of the same kernels over them, in
 * place), scan each chunk from its prefix (~3n). */
#include "jit.h"
#include "user_axis.h"

#include "../../axis_norm.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

enum {
#define PSCAN__UA_ID(id, name) UA_##id,
  PSCAN__UA_KERNELS(PSCAN__UA_ID)
#undef PSCAN__UA_ID
  UA_COUNT
};

enum {
  UA_LONG_LINE = 1 << 16, /* lines this long, when few, take the single-pass scan one by one */
  UA_FEW_LINES = 64,
  UA_VERY_LONG_LINE = 1 << 20,
  UA_MANY_LINES = 4096,
  UA_LINE_ROWS = 1024, /* least elements per chunk: a warp's chunk */
  UA_SIDE_ROWS = 32,   /* ... a thread's chunk */
  UA_MAX_CHUNKS = 1 << 16,
  UA_SERIAL_CARRIES = 64 /* up to this many chunks one thread per line scans their prefixes */
};

static pscan_status launch(pscan_ctx *ctx, const pscan__cuda_env *env, void *kernel,
                           uint64_t blocks, const pscan__user_axis_params *p) {
  unsigned cap = (env->sm_count ? env->sm_count : 1) * 32u;
  cudaLaunchConfig_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDim.x = blocks < cap ? (unsigned)(blocks ? blocks : 1) : cap; /* grid-stride kernels */
  cfg.gridDim.y = cfg.gridDim.z = 1;
  cfg.blockDim.x = PSCAN__UA_THREADS;
  cfg.blockDim.y = cfg.blockDim.z = 1;
  cfg.stream = (cudaStream_t)env->stream;
  void *args[] = {(void *)p};
  cudaError_t e = pscan__fault_inject(PSCAN__FAULT_LAUNCH)
                      ? cudaErrorLaunchFailure
                      : cudaLaunchKernelExC(&cfg, (const void *)kernel, args);
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, "user operator kernel (axis)");
  return PSCAN_OK;
}

/* One pass of the lines or side kernels over p's items (a warp or a thread each). */
static pscan_status run_pass(pscan_ctx *ctx, const pscan__cuda_env *env, void *const *k,
                             bool side, bool reduce, const pscan__user_axis_params *p) {
  uint64_t items = p->nlines * p->nchunks, per_block = side ? PSCAN__UA_THREADS
                                                            : PSCAN__UA_THREADS / 32;
  void *kernel = side ? k[reduce ? UA_SIDE_REDUCE : UA_SIDE_SCAN]
                      : k[reduce ? UA_LINES_REDUCE : UA_LINES_SCAN];
  return launch(ctx, env, kernel, (items + per_block - 1) / per_block, p);
}

static unsigned unit_of(uintptr_t bits) {
  bits |= 16;
  return (unsigned)(bits & (~bits + 1));
}

/* The axis in chunks so that lines x chunks fill the GPU (one chunk when the lines do). */
static void choose_chunks(const pscan__cuda_env *env, bool side, pscan__user_axis_params *p) {
  uint64_t sm = env->sm_count ? env->sm_count : 1;
  uint64_t want = side ? sm * 2048 : sm * 64; /* resident threads, or warps */
  uint64_t chunks = 1, len = (uint64_t)p->len;
  if (p->nlines < want / 2) {
    uint64_t most = len / (side ? UA_SIDE_ROWS : UA_LINE_ROWS);
    chunks = (want + p->nlines - 1) / p->nlines;
    if (chunks > most)
      chunks = most;
    if (chunks > UA_MAX_CHUNKS)
      chunks = UA_MAX_CHUNKS;
    if (chunks < 1)
      chunks = 1;
  }
  p->rows = (int64_t)((len + chunks - 1) / chunks);
  p->nchunks = (len + (uint64_t)p->rows - 1) / (uint64_t)p->rows;
}

/* agg (nchunks x nlines, chunk-major) -> inclusive prefixes along the chunks, in place: the
   first nchunks - 1 rows are all the scan kernels read. */
static pscan_status run_carries(pscan_ctx *ctx, const pscan__cuda_env *env, void *const *k,
                                const pscan__user_axis_params *p, size_t size) {
  if (p->nchunks <= 2)
    return PSCAN_OK; /* agg[0] is its own prefix */
  pscan__user_axis_params q;
  memset(&q, 0, sizeof q);
  q.in = q.out = p->agg;
  q.len = q.rows = (int64_t)p->nchunks - 1;
  q.si = q.so = (int64_t)p->nlines;
  q.nchunks = 1;
  q.nlines = p->nlines;
  q.nb = 1;
  q.blen[0] = (int64_t)p->nlines;
  q.bis[0] = q.bos[0] = 1;
  q.unit = unit_of(size);
  return run_pass(ctx, env, k, p->nchunks - 1 <= UA_SERIAL_CARRIES, false, &q);
}

static pscan_status run_chunks(pscan_ctx *ctx, const pscan__cuda_env *env, void *const *k,
                               bool side, pscan__user_axis_params *p, size_t size) {
  if (p->nchunks == 1)
    return run_pass(ctx, env, k, side, false, p);
  size_t bytes = p->nchunks * p->nlines * size; /* <= the data's bytes: no overflow */
  cudaError_t e = cudaMallocAsync(&p->agg, bytes, (cudaStream_t)env->stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_scan_axis: out of GPU memory for %zu bytes",
                       bytes);
  }
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, "cudaMallocAsync");
  pscan_status s = run_pass(ctx, env, k, side, true, p);
  if (s == PSCAN_OK)
    s = run_carries(ctx, env, k, p, size);
  if (s == PSCAN_OK)
    s = run_pass(ctx, env, k, side, false, p);
  cudaFreeAsync(p->agg, (cudaStream_t)env->stream);
  return s;
}

/* Few long contiguous lines, forward or (mirrored) reversed: the single-pass scan on each. */
static pscan_status run_flat_lines(pscan_ctx *ctx, const pscan__axis_call *c,
                                   const pscan__axis_norm *v) {
  for (size_t line = 0; line < v->nlines; line++) {
    const void *in;
    void *out;
    pscan__axis_line(c, v, line, &in, &out);
    PSCAN__CHECK(pscan__cuda_scan_op_lines(ctx, c->user_impl, in, out, (size_t)v->len, 0,
                                           v->si < 0, c->exclusive, c->init));
  }
  return PSCAN_OK;
}

static void fill_params(const pscan__axis_call *c, const pscan__axis_norm *v,
                        pscan__user_axis_params *p) {
  PSCAN__AXIS_FILL_PARAMS(p, c, v);
  if (c->init)
    memcpy(p->init, c->init, c->in_size);
  p->unit = unit_of((uintptr_t)v->in | (uintptr_t)v->out | c->in_size);
}

pscan_status pscan__cuda_user_axis(pscan_ctx *ctx, const pscan__axis_call *c) {
  static const char fn[] = "pscan_scan_axis";
  if (c->in_size > PSCAN__UA_MAX_ELEM || c->in_size != c->out_size)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "%s: user operators along an axis take elements of up to %d bytes", fn,
                       PSCAN__UA_MAX_ELEM);
  if (c->exclusive && !c->init)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "%s: an exclusive scan needs init or an operator with an identity", fn);
  pscan__axis_norm v;
  pscan__axis_normalise(c, &v);
  if (v.nb > PSCAN__UA_MAX_BATCH)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "%s: too many batch dimensions", fn);
  pscan__cuda_env env;
  PSCAN__CHECK(pscan__cuda_env_get(ctx, &env));
  const bool side = pscan__axis_side_by_side(&v);
  const bool mirrors = pscan__env_uint("PSCAN_CUDA_AXIS_MIRROR", 1);
  if (pscan__axis_back_to_back(&v) && !ctx->params[PSCAN_PARAM_DETERMINISTIC] &&
      pscan__env_uint("PSCAN_CUDA_AXIS_FLAT_LINES", 1))
    return pscan__cuda_scan_op_lines(ctx, c->user_impl, v.in, v.out, v.nlines * (size_t)v.len,
                                     (size_t)v.len, 0, c->exclusive, c->init);
  if (pscan__axis_mirrored_back_to_back(&v) && mirrors &&
      !ctx->params[PSCAN_PARAM_DETERMINISTIC]) { /* one span, the last line first */
    const size_t last = (v.nlines - 1) * (size_t)v.len * c->in_size;
    return pscan__cuda_scan_op_lines(ctx, c->user_impl, v.in + last, v.out + last,
                                     v.nlines * (size_t)v.len, (size_t)v.len, 1, c->exclusive,
                                     c->init);
  }
  if (!side && ((v.si == 1 && v.so == 1) || (v.si == -1 && v.so == -1 && mirrors)) &&
      ((v.len >= UA_LONG_LINE && v.nlines <= UA_FEW_LINES) ||
       (v.len >= UA_VERY_LONG_LINE && v.nlines < UA_MANY_LINES)))
    return run_flat_lines(ctx, c, &v);
  void *k[UA_COUNT];
  PSCAN__CHECK(pscan__cuda_op_axis_kernels(ctx, c->user_impl, k));
  pscan__user_axis_params p;
  fill_params(c, &v, &p);
  choose_chunks(&env, side, &p);
  return run_chunks(ctx, &env, k, side, &p, c->in_size);
}
