/* The CUDA backend's scans along an axis: the choice of kernels (axis_stamp.cuh)
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
 *    addresses); reversed lines into forward ones (x[:, ::-1]) too, each line stored forward;
 *  - other few long contiguous lines, forward or reversed (DETERMINISTIC float sums): the flat
 *    single-pass scan (host/scan.c) on each line in turn;
 *  - any other lines (many short ones, strided ones): one warp per line, four groups of 32
 *    elements a step on lines longer than 128. Scans by offsets: axis_segments.c. */
#include "../axis_norm.h"
#include "axis_host.h"
#include "axis_launch.h"
#include "jit/jit.h"
#include "launch.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

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
  PSCAN__CHECK(pscan__cuda_temp_alloc(ctx, head_bytes + body_bytes, (void **)&buf));
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
bool pscan__cuda_axis_fixed_order(const pscan_ctx *ctx, int acc_type, int op) {
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
  if (!p->carries && !pscan__cuda_axis_fixed_order(ctx, acc_type, op)) {
    if (side_strips_plan(p, in_size, acc_size, sm_count)) {
      AX_CHECK(ctx, k->side_strips(p, stream), "axis scan (side by side, strips)");
      return PSCAN_OK;
    }
    if (p->nlines >= side_lb_min_lines())
      return run_side_lb(ctx, k, p, acc_size, stream);
    if (side_rows_fit(p))
      return run_side_rows(ctx, k, p, acc_size, stream);
  }
  PSCAN__CHECK(pscan__cuda_temp_alloc(ctx, p->nchunks * p->nlines * acc_size, &p->agg));
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
  return pscan__axis_back_to_back(v) &&
         !pscan__cuda_axis_fixed_order(ctx, (int)c->out_type, c->op) &&
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
         (pscan__axis_mirrored_back_to_back(v) &&
          !pscan__cuda_axis_fixed_order(ctx, (int)c->out_type, c->op));
}

/* Reversed lines read into forward ones (the cumsum of x[:, ::-1], or of x[::-1, ::-1], into a
   fresh array): the input's lines back to back in either order, so the input is one span read
   from its top down as with mirrored_span, each line stored forward wherever the output puts it
   (p->out_line_step: line k of the span, in the input's line order or its reverse, at out + k x
   step). Not in DETERMINISTIC mode for float sums and products (the segmented kernel). */
static bool reversed_into_lines(const pscan_ctx *ctx, const pscan__axis_call *c,
                                const pscan__axis_norm *v) {
  return v->si == -1 && v->so == 1 && v->nb == 1 && v->len > 0 &&
         (v->b[0].is == v->len || v->b[0].is == -v->len) &&
         !pscan__cuda_axis_fixed_order(ctx, (int)c->out_type, c->op) &&
         pscan__env_uint("PSCAN_CUDA_AXIS_MIRROR", 1);
}

/* One flat scan over every element of the array, which lies in one span: lines back to back (a
   segment every len items) or one line; mirrored, from the top of the span down (the last
   line's first item where lines follow each other upwards). */
static pscan_status run_span(pscan_ctx *ctx, const pscan__axis_call *c, const pscan__axis_norm *v,
                             bool mirror) {
  const bool last_first = mirror && v->nb && v->b[0].is > 0; /* the span's top: the last line */
  const int64_t top = last_first ? (int64_t)(v->nlines - 1) * v->b[0].is : 0;
  const int64_t out_top = last_first ? (int64_t)(v->nlines - 1) * v->b[0].os : 0;
  pscan__scan_call flat = {.in = v->in + top * (int64_t)c->in_size,
                           .out = v->out + out_top * (int64_t)c->out_size,
                           .n = v->nlines * (size_t)v->len, .in_type = c->in_type,
                           .out_type = c->out_type, .op = c->op, .exclusive = c->exclusive,
                           .init = c->init, .in_size = c->in_size, .out_size = c->out_size,
                           .segment_len = v->nb ? (size_t)v->len : 0, .mirror = mirror,
                           .out_forward = mirror && v->so == 1};
  if (flat.out_forward && v->nb) /* the span's next line is the output's previous one, or next */
    flat.out_line_step = last_first ? -v->b[0].os : v->b[0].os;
  return pscan__cuda_backend.scan(ctx, &flat);
}

pscan_status pscan__cuda_scan_axis(pscan_ctx *ctx, const pscan__axis_call *c) {
  if (c->op == PSCAN__OP_CUSTOM) /* a user operator: its own kernels (jit/jit_axis.c) */
    return pscan__cuda_user_axis(ctx, c);
  void *stream = NULL;
  unsigned sm_count = 0;
  PSCAN__CHECK(pscan__cuda_axis_begin(ctx, &stream, &sm_count));
  if (c->offsets)
    return pscan__cuda_segmented_scan(ctx, c, stream);
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
  if (lines_back_to_back(ctx, c, &v) || mirrored_span(ctx, c, &v) ||
      reversed_into_lines(ctx, c, &v))
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
