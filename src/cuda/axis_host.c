/* The CUDA backend's scans along an axis and by segments: the choice of kernels (axis_stamp.cuh)
 * over the views' normal form (../axis_norm.h).
 *  - lines side by side (the innermost batch dimension closer than the axis): one thread per
 *    line, so a warp's loads of a row coalesce. With enough lines for the GPU, one pass down the
 *    axis; with enough for a block per strip of 32-1024 columns on every multiprocessor (~4000
 *    and more), each block walks its strip down the whole axis, several rows in flight per
 *    thread (side_strips, axis_strips.cuh: no look-back); else the axis is cut into chunks and
 *    scanned in one pass with a decoupled look-back along the axis (2n data movement): from 2048
 *    lines in chunks of 16-32 rows x 256 columns held in registers (side_lb); below, where the
 *    columns are contiguous, in tiles of whole row segments in shared memory (side_rows,
 *    axis_rows.cuh). Otherwise, and in DETERMINISTIC mode
 *    for float sums and products, a reduce / carry / scan sequence (~3n), its carries scanned
 *    recursively when there are many chunks;
 *  - lines back to back (a C-order array along its last axis): one single-pass scan over all of
 *    them with a line starting every len items (scan/tile_lines.cuh, scan_lines_kernel);
 *    reversed, and a reversed 1-D array: the same over mirrored tiles (read toward lower
 *    addresses);
 *  - other few long contiguous lines, forward or reversed (DETERMINISTIC float sums): the flat
 *    single-pass scan (host/scan.c) on each line in turn;
 *  - any other lines (many short ones, strided ones): one warp per line, four groups of 32
 *    elements a step on lines longer than 128.
 * Scans by offsets: the offsets are checked on the device (one small kernel and a copy of a flag
 * and of offsets[num_segments] to the host, which waits for it: reading up to 2^28 offsets to the
 * host would cost more than the scan), then one single-pass segmented scan on the flat scan's
 * tiles (scan/tile_lines.cuh, scan_segments_kernel; DETERMINISTIC float sums and products: the
 * by-key scan, host/compact.c, SCAN_BY_KEY, with the offsets as its run heads): each tile reads
 * the offsets that fall in it, from the first one found by a binary search per tile
 * (tile_segments_kernel), so no key is written or read and one huge segment among many empty
 * ones parallelises alike. Reverse scans by offsets reverse the offsets (axis_reverse.cu) and
 * read the values on mirrored tiles; the by-key scan also reverses the values and the result
 * (~2 extra passes over the data). */
#include "../axis_norm.h"
#include "axis_launch.h"
#include "jit/jit.h"
#include "launch.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/* From host/backend.c: the device made current, the context's stream and multiprocessor count; and
   its failure for a CUDA error. */
pscan_status pscan__cuda_axis_begin(pscan_ctx *ctx, void **stream, unsigned *sm_count);
pscan_status pscan__cuda_axis_fail(pscan_ctx *ctx, int err, const char *what);
pscan_status pscan__cuda_scan_axis(pscan_ctx *ctx, const pscan__axis_call *c);

#define AX_CHECK(ctx, expr, what)                      \
  do {                                                 \
    int e_ = (int)(expr);                              \
    if (e_ != 0)                                       \
      return pscan__cuda_axis_fail((ctx), e_, (what)); \
  } while (0)

enum {
  AX_LONG_LINE = 1 << 16, /* lines this long, when few, scan flat one after another */
  AX_FEW_LINES = 64,
  AX_VERY_LONG_LINE = 1 << 20, /* a flat scan of this many items hides its launch latency */
  AX_MANY_LINES = 4096,        /* enough warps (one per line) to keep the GPU streaming */
  AX_MAX_CHUNKS = 65535,
  AX_SERIAL_CARRIES = 64, /* up to this many chunks a thread carries serially along its line */
  AX_CARRY_ROWS = 32,     /* rows per chunk in the scans of the carries */
  /* Side by side in one pass from this many columns: its look-back costs ~80 ns per chunk in
     series along the axis (docs/PERFORMANCE.md, "Axis scans on the GPU"), hidden only when
     each chunk row carries ~0.5 MB (2048 columns). PSCAN_CUDA_AXIS_LB_MIN_LINES overrides it,
     for A/B runs. */
  AX_LB_MIN_LINES = 2048
};

static uint64_t side_lb_min_lines(void) {
  return pscan__env_uint("PSCAN_CUDA_AXIS_LB_MIN_LINES", AX_LB_MIN_LINES);
}

static pscan_status device_alloc(pscan_ctx *ctx, void *stream, size_t bytes, void **p) {
  cudaError_t e = cudaMallocAsync(p, bytes ? bytes : 1, (cudaStream_t)stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "out of GPU memory for %zu bytes", bytes);
  }
  AX_CHECK(ctx, e, "cudaMallocAsync");
  return PSCAN_OK;
}

static void fill_params(const pscan__axis_call *c, const pscan__axis_norm *v,
                        pscan__cuda_axis_params *p) {
  PSCAN__AXIS_FILL_PARAMS(p, c, v);
  if (c->init)
    memcpy(&p->init, c->init, c->out_size);
}

/* A one-pass side-by-side launch over ntiles tiles: one allocation holds head_bytes (the tile
   counter, then side_lb's flags) and body_bytes at p->agg; freed after the launch, in stream
   order. */
static pscan_status run_one_pass(pscan_ctx *ctx, pscan__cuda_axis_params *p, void *stream,
                                 uint64_t ntiles, size_t head_bytes, size_t body_bytes,
                                 int (*launch)(const pscan__cuda_axis_params *, void *),
                                 const char *what) {
  if (ntiles > 0x7fffffffu)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "pscan_scan_axis: too many tiles for a grid");
  char *buf = NULL;
  PSCAN__CHECK(device_alloc(ctx, stream, head_bytes + body_bytes, (void **)&buf));
  p->lb_counter = (unsigned long long *)buf;
  p->lb_flags = (unsigned *)(buf + 8);
  p->agg = buf + head_bytes;
  int e = launch(p, stream);
  cudaFreeAsync(buf, (cudaStream_t)stream);
  AX_CHECK(ctx, e, what);
  return PSCAN_OK;
}

/* Wide lines side by side in one pass (side_lb): chunks of PSCAN__AXIS_LB_ROWS rows x 256
   columns; the flags (one per tile) and the chunks' reductions and inclusive prefixes. */
static pscan_status run_side_lb(pscan_ctx *ctx, const pscan__cuda_axis_kernels *k,
                                pscan__cuda_axis_params *p, size_t acc_size, void *stream) {
  const uint64_t rows = PSCAN__AXIS_LB_ROWS(acc_size), ncb = (p->nlines + PSCAN__AXIS_THREADS - 1) / PSCAN__AXIS_THREADS;
  p->rows = (int64_t)rows;
  p->nchunks = ((uint64_t)p->len + rows - 1) / rows;
  const uint64_t ntiles = p->nchunks * ncb;
  return run_one_pass(ctx, p, stream, ntiles, (8 + ntiles * sizeof(unsigned) + 15) / 16 * 16,
                      2 * p->nchunks * p->nlines * acc_size, k->side_lb,
                      "axis scan (side by side, one pass)");
}

/* One batch dimension, columns contiguous in both views. */
static bool columns_contiguous(const pscan__cuda_axis_params *p) {
  return p->nb == 1 && p->bis[0] == 1 && p->bos[0] == 1;
}

/* Narrow lines side by side in one pass (side_rows), columns contiguous in both views: column
   blocks of up to PSCAN__AXIS_ROWS_WIDTH columns of equal width, as many rows as fill a tile;
   a status word per chunk and column. */
static bool side_rows_fit(const pscan__cuda_axis_params *p) {
  return columns_contiguous(p) && pscan__env_uint("PSCAN_CUDA_AXIS_ROWS", 1);
}

/* The tile can move in 16-byte vectors: 4- or 8-byte accumulators, whole vectors of columns
   and of both strides, both views 16-byte aligned (the width is then rounded up to whole
   vectors too). PSCAN_CUDA_AXIS_ROWS_VEC=0: element by element, for A/B runs and tests.
   PSCAN_CUDA_AXIS_ROWS_PREFETCH=0: no L2 prefetch of the likely chunk (axis_launch.h). */
static bool side_rows_vec(const pscan__cuda_axis_params *p, size_t acc_size) {
  if ((acc_size != 4 && acc_size != 8) || !pscan__env_uint("PSCAN_CUDA_AXIS_ROWS_VEC", 1))
    return false;
  const int64_t v = (int64_t)(16 / acc_size);
  return p->nlines % (uint64_t)v == 0 && p->si % v == 0 && p->so % v == 0 &&
         ((uintptr_t)p->in | (uintptr_t)p->out) % 16 == 0;
}

static pscan_status run_side_rows(pscan_ctx *ctx, const pscan__cuda_axis_kernels *k,
                                  pscan__cuda_axis_params *p, size_t acc_size, void *stream) {
  const uint64_t ncb = (p->nlines + PSCAN__AXIS_ROWS_WIDTH(acc_size) - 1) / PSCAN__AXIS_ROWS_WIDTH(acc_size);
  p->vec = side_rows_vec(p, acc_size);
  const unsigned v = p->vec ? (unsigned)(16 / acc_size) : 1;
  p->width = (unsigned)((p->nlines + ncb - 1) / ncb + v - 1) / v * v;
  p->rows = (int64_t)(PSCAN__AXIS_ROWS_TILE(acc_size) / p->width);
  p->nchunks = ((uint64_t)p->len + (uint64_t)p->rows - 1) / (uint64_t)p->rows;
  p->prefetch = p->vec && ncb == 1 && p->si == (int64_t)p->width &&
                pscan__env_uint("PSCAN_CUDA_AXIS_ROWS_PREFETCH", 1);
  return run_one_pass(ctx, p, stream, p->nchunks * ncb, 16,
                      p->nchunks * p->nlines * PSCAN__AXIS_ROWS_WORD(acc_size), k->side_rows,
                      "axis scan (side by side, rows in one pass)");
}

/* Wide lines side by side walked down the axis, a block per strip of columns (side_strips,
   axis_strips.cuh), if every strip's block fits the GPU at once. The strips' width: the widest
   that gives every multiprocessor a block with at least 16 lanes of 16-byte vectors (a warp's
   row segment 256 bytes) or 64 lanes element by element; else the widest that gives 3/4 of
   them a block with at least 8 lanes of vectors (128 bytes) or 32 element by element.
   Measured on the H200 (docs/PERFORMANCE.md, "Wide arrays side by side"): 256 strips of 64
   f32 columns 92% of the copy, 128 strips of 128 89%; of 8192 columns 128 strips of 64 87%,
   256 of 32 84%. Sets p->width and p->vec. PSCAN_CUDA_AXIS_STRIPS=0: never;
   _STRIPS_MIN_BLOCKS=N: the widest strips down to 128-byte segments that give N blocks;
   _STRIPS_LANES=L (a power of two up to 256): L lanes whenever the strips fit, for tests. */
static uint64_t strips_lanes(uint64_t nlines, uint64_t vw, uint64_t want, uint64_t least) {
  for (uint64_t lanes = PSCAN__AXIS_THREADS; lanes >= least; lanes /= 2)
    if ((nlines + lanes * vw - 1) / (lanes * vw) >= want)
      return lanes;
  return 0;
}

static bool side_strips_plan(pscan__cuda_axis_params *p, size_t in_size, size_t acc_size,
                             unsigned sm_count) {
  if (!pscan__env_uint("PSCAN_CUDA_AXIS_STRIPS", 1))
    return false;
  p->vec = in_size == acc_size && columns_contiguous(p) && side_rows_vec(p, acc_size);
  const uint64_t vw = p->vec ? 16 / acc_size : 1, least = p->vec ? 8 : 32,
                 forced = pscan__env_uint("PSCAN_CUDA_AXIS_STRIPS_LANES", 0),
                 want = pscan__env_uint("PSCAN_CUDA_AXIS_STRIPS_MIN_BLOCKS", 0);
  uint64_t lanes = forced;
  if (!forced && want)
    lanes = strips_lanes(p->nlines, vw, want, least);
  else if (!forced) {
    lanes = strips_lanes(p->nlines, vw, sm_count, 2 * least);
    if (!lanes)
      lanes = strips_lanes(p->nlines, vw, (sm_count * 3 + 3) / 4, least);
  }
  if (!lanes || lanes > PSCAN__AXIS_THREADS || (lanes & (lanes - 1)) ||
      (p->nlines + lanes * vw - 1) / (lanes * vw) > (uint64_t)PSCAN__AXIS_STRIPS_PER_SM * sm_count)
    return false;
  p->width = (unsigned)(lanes * vw);
  return true;
}

/* DETERMINISTIC with a float sum or product: the look-backs fold a different run of chunks
   from call to call, so only the fixed order of the chunked scan gives the same bits. */
static bool fixed_order(const pscan_ctx *ctx, int acc_type, int op) {
  pscan__scan_call sc = {.out_type = (pscan_dtype)acc_type, .op = op};
  return ctx->params[PSCAN_PARAM_DETERMINISTIC] && pscan__order_sensitive(&sc);
}

/* Lines side by side, the axis cut into chunks: reduce each chunk, turn the reductions into
   exclusive prefixes, scan each chunk from its prefix (~3n data movement). Turning nchunks
   reductions into prefixes is itself a scan along the axis of an (nchunks x nlines) array: up to
   AX_SERIAL_CARRIES chunks one thread per line does it serially; beyond, this function scans
   them recursively (chunks of AX_CARRY_ROWS rows, so each level is ~32x shorter), so that a
   few long lines (e.g. 64 columns of 2^20 rows: 8448 chunks) never wait on a serial chain. */
static pscan_status run_side(pscan_ctx *ctx, const pscan__cuda_axis_kernels *k,
                             pscan__cuda_axis_params *p, int acc_type, int op, size_t in_size,
                             size_t acc_size, void *stream, unsigned sm_count) {
  /* enough threads for two full waves (2048 resident threads per multiprocessor) */
  uint64_t want = (uint64_t)sm_count * 2048 * 2, chunks = (want + p->nlines - 1) / p->nlines;
  if (p->carries && chunks > ((uint64_t)p->len + AX_CARRY_ROWS - 1) / AX_CARRY_ROWS)
    chunks = ((uint64_t)p->len + AX_CARRY_ROWS - 1) / AX_CARRY_ROWS;
  if (chunks > (uint64_t)p->len)
    chunks = (uint64_t)p->len;
  if (chunks > AX_MAX_CHUNKS)
    chunks = AX_MAX_CHUNKS;
  if (chunks < 1)
    chunks = 1;
  p->rows = (int64_t)(((uint64_t)p->len + chunks - 1) / chunks);
  p->nchunks = ((uint64_t)p->len + (uint64_t)p->rows - 1) / (uint64_t)p->rows;
  if ((p->nlines + PSCAN__AXIS_THREADS - 1) / PSCAN__AXIS_THREADS > 0x7fffffffu)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "pscan_scan_axis: too many lines for a grid");
  if (p->nchunks == 1) {
    AX_CHECK(ctx, k->side_scan(p, stream), "axis scan (side by side)");
    return PSCAN_OK;
  }
  if (!p->carries && !fixed_order(ctx, acc_type, op)) {
    if (side_strips_plan(p, in_size, acc_size, sm_count)) {
      AX_CHECK(ctx, k->side_strips(p, stream), "axis scan (side by side, strips)");
      return PSCAN_OK;
    }
    if (p->nlines >= side_lb_min_lines())
      return run_side_lb(ctx, k, p, acc_size, stream);
    if (side_rows_fit(p))
      return run_side_rows(ctx, k, p, acc_size, stream);
  }
  PSCAN__CHECK(device_alloc(ctx, stream, p->nchunks * p->nlines * acc_size, &p->agg));
  const pscan__cuda_axis_kernels *kc =
      p->nchunks > AX_SERIAL_CARRIES ? pscan__cuda_axis_kernels_for(acc_type, acc_type, op) : NULL;
  pscan_status s = PSCAN_OK;
  p->reduce_last = kc != NULL;
  int e = k->side_reduce(p, stream);
  if (e == 0 && kc) {
    pscan__cuda_axis_params q = {.in = p->agg, .out = p->agg, .len = (int64_t)p->nchunks,
                                 .si = (int64_t)p->nlines, .so = (int64_t)p->nlines, .nb = 1,
                                 .blen = {(int64_t)p->nlines}, .bis = {1}, .bos = {1},
                                 .nlines = p->nlines, .exclusive = 1, .has_init = p->has_init,
                                 .init = p->init, .carries = 1};
    s = run_side(ctx, kc, &q, acc_type, op, acc_size, acc_size, stream, sm_count);
  } else if (e == 0) {
    e = k->side_carry(p, stream);
  }
  if (e == 0 && s == PSCAN_OK)
    e = k->side_scan(p, stream);
  cudaFreeAsync(p->agg, (cudaStream_t)stream);
  PSCAN__CHECK(s);
  AX_CHECK(ctx, e, "axis scan (side by side, in chunks)");
  return PSCAN_OK;
}

/* Few long lines, each contiguous in both views, forward or (mirrored) reversed, or read
   reversed into a forward output (out_forward): the flat single-pass scan on each line in turn. */
static pscan_status run_flat_lines(pscan_ctx *ctx, const pscan__axis_call *c,
                                   const pscan__axis_norm *v) {
  for (size_t line = 0; line < v->nlines; line++) {
    pscan__scan_call flat = {.n = (size_t)v->len, .in_type = c->in_type, .out_type = c->out_type,
                             .op = c->op, .exclusive = c->exclusive, .init = c->init,
                             .in_size = c->in_size, .out_size = c->out_size,
                             .mirror = v->si < 0, .out_forward = v->si < 0 && v->so > 0};
    pscan__axis_line(c, v, line, &flat.in, &flat.out);
    PSCAN__CHECK(pscan__cuda_backend.scan(ctx, &flat));
  }
  return PSCAN_OK;
}

/* Lines back to back in both views (a C-order array along its last axis): one single-pass
   scan over all of them, a line starting every len items (scan/tile_lines.cuh,
   scan_lines_kernel), streams every line length in one launch at the flat scan's tiles. Not
   for float sums and products in DETERMINISTIC mode (its look-back stops wherever a prefix is
   published first). PSCAN_CUDA_AXIS_FLAT_LINES=0: the line kernels instead, for A/B runs. */
static bool lines_back_to_back(const pscan_ctx *ctx, const pscan__axis_call *c,
                               const pscan__axis_norm *v) {
  return pscan__axis_back_to_back(v) && !fixed_order(ctx, (int)c->out_type, c->op) &&
         pscan__env_uint("PSCAN_CUDA_AXIS_FLAT_LINES", 1);
}

/* Reversed (the axis read toward lower addresses in both views), every element of the array
   in one contiguous span: one line (a reversed 1-D array), or lines back to back (a C-order
   array reversed along its last axis). Read from the highest address down, that span is a
   forward array whose lines follow each other (the last line first: lines are independent), so
   the flat scan runs over it with mirrored tiles (p->mirror: each tile copied element by element
   toward lower addresses, scanned in order) and, for lines, a line starting every len items.
   Lines back to back need the segmented kernel, not offered in DETERMINISTIC mode for float
   sums and products. PSCAN_CUDA_AXIS_MIRROR=0: the line kernels instead, for A/B runs. */
static bool mirrored_span(const pscan_ctx *ctx, const pscan__axis_call *c,
                          const pscan__axis_norm *v) {
  if (v->si != -1 || v->so != -1 || v->len < 1 || !pscan__env_uint("PSCAN_CUDA_AXIS_MIRROR", 1))
    return false;
  return v->nb == 0 ||
         (pscan__axis_mirrored_back_to_back(v) && !fixed_order(ctx, (int)c->out_type, c->op));
}

/* One flat scan over every element of the array, which lies in one span: lines back to back (a
   segment every len items) or one line; mirrored, from the last line's first item down. */
static pscan_status run_span(pscan_ctx *ctx, const pscan__axis_call *c, const pscan__axis_norm *v,
                             bool mirror) {
  const size_t first = mirror ? (v->nlines - 1) * (size_t)v->len : 0;
  pscan__scan_call flat = {.in = v->in + first * c->in_size, .out = v->out + first * c->out_size,
                           .n = v->nlines * (size_t)v->len, .in_type = c->in_type,
                           .out_type = c->out_type, .op = c->op, .exclusive = c->exclusive,
                           .init = c->init, .in_size = c->in_size, .out_size = c->out_size,
                           .segment_len = v->nb ? (size_t)v->len : 0, .mirror = mirror};
  return pscan__cuda_backend.scan(ctx, &flat);
}

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

/* Checks the device offsets and reads n; nothing is written before this returns PSCAN_OK. */
static pscan_status check_offsets(pscan_ctx *ctx, const pscan__axis_call *c, void *stream,
                                  size_t *n) {
  static const char fn[] = "pscan_segmented_scan";
  unsigned *bad = NULL;
  PSCAN__CHECK(device_alloc(ctx, stream, sizeof *bad, (void **)&bad));
  unsigned host_bad = 0;
  int64_t last = 0;
  int e = cudaMemsetAsync(bad, 0, sizeof *bad, (cudaStream_t)stream);
  if (e == 0)
    e = pscan__cuda_offsets_check(c->offsets, c->num_segments, bad, stream);
  if (e == 0)
    e = cudaMemcpyAsync(&host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost,
                        (cudaStream_t)stream);
  if (e == 0)
    e = cudaMemcpyAsync(&last, c->offsets + c->num_segments, sizeof last, cudaMemcpyDeviceToHost,
                        (cudaStream_t)stream);
  cudaFreeAsync(bad, (cudaStream_t)stream);
  if (e == 0)
    e = cudaStreamSynchronize((cudaStream_t)stream);
  AX_CHECK(ctx, e, "pscan_segmented_scan: offsets check");
  if (host_bad & 1)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: offsets[0] is not 0", fn);
  if (host_bad & 2)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: offsets decrease", fn);
  size_t bytes;
  if ((uint64_t)last > (uint64_t)INT64_MAX / 2 || __builtin_mul_overflow((size_t)last, c->in_size, &bytes))
    return pscan__fail(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %lld elements overflow size_t", fn,
                       (long long)last);
  *n = (size_t)last;
  if (c->in != (const void *)c->out && ranges_overlap(c->in, bytes, c->out, bytes))
    return pscan__fail(ctx, PSCAN_ERR_OVERLAP, "%s: in and out overlap without being the same", fn);
  if (ranges_overlap(c->offsets, (c->num_segments + 1) * sizeof *c->offsets, c->out, bytes))
    return pscan__fail(ctx, PSCAN_ERR_OVERLAP, "%s: offsets and out overlap", fn);
  return PSCAN_OK;
}

/* Segments by offsets on the flat scan's tiles (scan/tile_lines.cuh, scan_segments_kernel);
   in DETERMINISTIC mode for float sums and products, and with PSCAN_CUDA_SEGMENTS_FLAT=0 (A/B
   runs), the by-key scan with the offsets as its run heads (its keys would be one-byte ones: the
   bitmap of a tile's heads lives in their buffer). Either way the tiles' first segments come
   from a binary search per tile, and a reverse scan reverses the values and offsets first and
   the result after. */
static pscan_status run_segmented(pscan_ctx *ctx, const pscan__axis_call *c, void *stream) {
  static const char fn[] = "pscan_segmented_scan";
  size_t n = 0;
  PSCAN__CHECK(check_offsets(ctx, c, stream, &n));
  if (n == 0)
    return PSCAN_OK;
  const bool flat = !fixed_order(ctx, (int)c->out_type, c->op) &&
                    pscan__env_uint("PSCAN_CUDA_SEGMENTS_FLAT", 1);
  const pscan__cuda_kernels *k =
      flat ? pscan__cuda_kernels_for((int)c->in_type, (int)c->out_type, c->op) : NULL;
  const pscan__cuda_compact_kernel *bk =
      flat ? NULL
           : pscan__cuda_by_key_kernel(ctx, PSCAN__COMPACT_SCAN_BY_KEY, 1, (int)c->in_type,
                                       (int)c->op, n);
  if (flat ? !k || !k->scan_segments : !bk)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "%s: no CUDA segmented scan for %s", fn,
                       pscan__dtype_name(c->in_type));
  const unsigned tile_items = flat ? k->tile_items : bk->tile_items;
  const uint64_t tiles = (n + tile_items - 1) / tile_items;
  /* reverse: the segmented tiles read the values mirrored (from the last one down), so only the
     offsets are reversed; the by-key scan (and PSCAN_CUDA_AXIS_MIRROR=0) reverses the values
     too, and the result back. The reversed offsets (and values) follow the tiles' segments in
     one allocation. */
  const bool mirror = c->reverse && flat && pscan__env_uint("PSCAN_CUDA_AXIS_MIRROR", 1);
  const size_t seg_bytes = (tiles * sizeof(uint64_t) + 15) / 16 * 16,
               off_bytes = (c->num_segments + 1) * sizeof *c->offsets,
               rev_bytes = c->reverse && !mirror ? n * c->in_size : 0;
  uint64_t *tile_segment = NULL;
  PSCAN__CHECK(device_alloc(ctx, stream, seg_bytes + (c->reverse ? off_bytes + rev_bytes : 0),
                            (void **)&tile_segment));
  int64_t *rev_offsets = c->reverse ? (int64_t *)((char *)tile_segment + seg_bytes) : NULL;
  void *rev = rev_bytes ? (char *)rev_offsets + off_bytes : NULL;
  const int64_t *offsets = rev_offsets ? rev_offsets : c->offsets;
  int e = 0;
  if (rev_offsets)
    e = pscan__cuda_reverse_offsets(rev_offsets, c->offsets, c->num_segments, n, stream);
  if (e == 0 && rev)
    e = pscan__cuda_reverse(rev, c->in, n, c->in_size, stream);
  if (e == 0)
    e = pscan__cuda_tile_segments(offsets, c->num_segments, tiles, tile_items, tile_segment,
                                  stream);
  pscan_status s = e ? pscan__cuda_axis_fail(ctx, e, "segment heads") : PSCAN_OK;
  if (s == PSCAN_OK && flat) {
    const size_t last = mirror ? n - 1 : 0; /* mirrored: item 0 is the last element */
    pscan__scan_call scan = {.in = rev ? rev : (const char *)c->in + last * c->in_size,
                             .out = rev ? rev : (char *)c->out + last * c->out_size, .n = n,
                             .in_type = c->in_type, .out_type = c->out_type, .op = c->op,
                             .exclusive = c->exclusive, .init = c->init, .in_size = c->in_size,
                             .out_size = c->out_size, .offsets = offsets,
                             .num_segments = c->num_segments, .tile_segment = tile_segment,
                             .mirror = mirror};
    s = pscan__cuda_backend.scan(ctx, &scan);
  } else if (s == PSCAN_OK) {
    pscan__compact_call by_key = {.kind = PSCAN__COMPACT_SCAN_BY_KEY, .n = n, .type = PSCAN_U8,
                                  .size = 1, .vals_in = rev ? rev : c->in,
                                  .vals_out = rev ? rev : c->out,
                                  .val_type = c->in_type, .val_size = c->in_size,
                                  .op = (pscan_op)c->op, .exclusive = c->exclusive,
                                  .init = c->init, .offsets = offsets,
                                  .num_segments = c->num_segments, .tile_segment = tile_segment};
    s = pscan__cuda_backend.compact(ctx, &by_key);
  }
  if (s == PSCAN_OK && rev && (e = pscan__cuda_reverse(c->out, rev, n, c->in_size, stream)) != 0)
    s = pscan__cuda_axis_fail(ctx, e, "reversing the segments' scan");
  cudaFreeAsync(tile_segment, (cudaStream_t)stream);
  return s;
}

pscan_status pscan__cuda_scan_axis(pscan_ctx *ctx, const pscan__axis_call *c) {
  if (c->op == PSCAN__OP_CUSTOM) /* a user operator: its own kernels (jit/jit_axis.c) */
    return pscan__cuda_user_axis(ctx, c);
  void *stream = NULL;
  unsigned sm_count = 0;
  PSCAN__CHECK(pscan__cuda_axis_begin(ctx, &stream, &sm_count));
  if (c->offsets)
    return run_segmented(ctx, c, stream);
  const pscan__cuda_axis_kernels *k =
      pscan__cuda_axis_kernels_for((int)c->in_type, (int)c->out_type, c->op);
  if (!k)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CUDA axis kernel for %s -> %s %s",
                       pscan__dtype_name(c->in_type), pscan__dtype_name(c->out_type),
                       pscan__op_name(c->op));
  pscan__axis_norm v;
  pscan__axis_normalise(c, &v);
  if (v.nb > PSCAN__AXIS_MAX_BATCH)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "pscan_scan_axis: too many batch dimensions");
  if (lines_back_to_back(ctx, c, &v) || mirrored_span(ctx, c, &v))
    return run_span(ctx, c, &v, v.si == -1);
  pscan__cuda_axis_params p;
  fill_params(c, &v, &p);
  if (pscan__axis_side_by_side(&v))
    return run_side(ctx, k, &p, (int)c->out_type, (int)c->op, c->in_size, c->out_size, stream,
                    sm_count);
  const bool mirrors = pscan__env_uint("PSCAN_CUDA_AXIS_MIRROR", 1);
  /* a reversed view into a forward output (cumsum of x[::-1] into a fresh array): one line at
     any length, or few long ones, as the forward lines */
  const bool into_forward = v.si == -1 && v.so == 1 && mirrors;
  if (into_forward && v.nb == 0)
    return run_flat_lines(ctx, c, &v);
  if (((v.si == 1 && v.so == 1) || (v.si == -1 && v.so == -1 && mirrors) || into_forward) &&
      ((v.len >= AX_LONG_LINE && v.nlines <= AX_FEW_LINES) ||
       (v.len >= AX_VERY_LONG_LINE && v.nlines < AX_MANY_LINES)))
    return run_flat_lines(ctx, c, &v);
  uint64_t warps_per_block = 8, grid = (v.nlines + warps_per_block - 1) / warps_per_block,
           cap = (uint64_t)(sm_count ? sm_count : 1) * 64;
  AX_CHECK(ctx, k->lines(&p, (unsigned)(grid < cap ? grid : cap), stream), "axis scan (lines)");
  return PSCAN_OK;
}
