/* The CUDA backend's compaction family (select, partition, unique, run-length encoding, the
 * by-key reductions and scans): its launch parameters, status words and count
 * (compact/compact_tile.cuh, compact/by_key_tile.cuh). */
#include "state.h"

#include <stdlib.h>
#include <string.h>

/* The counter moves (tile_base) only if the kernel runs: see launch_single_pass (scan.c). */
static pscan_status launch_compact(pscan_ctx *ctx, const pscan__cuda_compact_kernel *k,
                                   const pscan__cuda_compact_params *p, uint64_t grid) {
  cuda_state *st = ctx->impl;
  if (grid > 0x7fffffffu)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "compaction: %llu tiles exceed the grid limit",
                       (unsigned long long)grid);
  uint64_t taken = 0;
  int e = pscan__fault_inject(PSCAN__FAULT_LAUNCH) ? (int)cudaErrorLaunchFailure
                                                    : k->launch(p, grid, st->stream, &taken);
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, "compaction kernel");
  st->tile_base += taken;
  return PSCAN_OK;
}

/* The number kept, for a count pointer in host memory: wait for it. */
static pscan_status read_back_count(pscan_ctx *ctx, cuda_state *st, const void *slot,
                                    size_t *count) {
  unsigned long long v = 0;
  CUDA_CHECK(ctx, cudaMemcpyAsync(&v, slot, sizeof v, cudaMemcpyDeviceToHost, st->stream),
             "cudaMemcpyAsync (count)");
  CUDA_CHECK(ctx, cudaStreamSynchronize(st->stream), "cudaStreamSynchronize (count)");
  *count = (size_t)v;
  return PSCAN_OK;
}

/* A new epoch for the pair status words; they have 16 bits for it, so the buffer is cleared
   (stream-ordered) each time the epoch wraps. */
static pscan_status next_compact_epoch(pscan_ctx *ctx, cuda_state *st) {
  if (++st->compact_epoch > 0xffffu) {
    CUDA_CHECK(ctx, cudaMemsetAsync(st->status[2], 0, st->status_bytes[2], st->stream),
               "cudaMemsetAsync");
    st->compact_epoch = 1;
  }
  return PSCAN_OK;
}

/* Only the by-key reductions of float sums and products depend on the order of combination. */
static bool by_key_deterministic(const pscan_ctx *ctx, int val_type, int op) {
  return ctx->params[PSCAN_PARAM_DETERMINISTIC] &&
         pscan__dtype_kind((pscan_dtype)val_type) == PSCAN__FLOAT &&
         (op == PSCAN_SUM || op == PSCAN_PROD);
}

/* The tile size of the by-key kernels of 8-byte values (docs/PERFORMANCE.md, "Half tiles for
   8-byte values"): the by-key kernel's scan (scan_by_key where it does not run on the flat scan's
   tiles: deterministic float sums and products, the chained strategy,
   PSCAN_CUDA_BY_KEY_FLAT=0; and the deterministic reduce_by_key) takes the half tiles below
   BY_KEY_HALF_BELOW full tiles per multiprocessor; reduce_by_key's look-back kernel takes them
   where the keys are 8 bytes too. PSCAN_CUDA_BY_KEY_HALF_BELOW=N, for A/B runs and tests,
   replaces both: the by-key scan below N, reduce_by_key's look-back kernel on half tiles for
   every key size unless N is 0 (0: full tiles everywhere). */
enum { BY_KEY_HALF_BELOW = 12 };

/* 8-byte values have kernels of half tiles too (compact/by_key_stamp.cuh): reduce_by_key's
   look-back kernel takes them at every size with 8-byte keys; the by-key kernel's scan where full
   tiles would leave the multiprocessors short of tiles (the flat tiles' scan_by_key decides its
   own: host/scan.c use_half_key_tiles). */
const pscan__cuda_compact_kernel *pscan__cuda_by_key_kernel(pscan_ctx *ctx, int kind,
                                                            size_t key_size, int val_type, int op,
                                                            size_t n) {
  const pscan__cuda_compact_kernel *k = pscan__cuda_compact_for(kind, PSCAN_U8, val_type, op),
                                   *half = pscan__cuda_compact_half(val_type, op);
  if (!k || !half)
    return k;
  const char *env = getenv("PSCAN_CUDA_BY_KEY_HALF_BELOW");
  const uint64_t half_below = env ? strtoull(env, NULL, 10) : BY_KEY_HALF_BELOW;
  if (kind == PSCAN__COMPACT_REDUCE_BY_KEY && !by_key_deterministic(ctx, val_type, op) &&
      ctx->params[PSCAN_PARAM_ALGO] != PSCAN_ALGO_CHAINED)
    return (env ? half_below > 0 : key_size == 8) ? half : k;
  const cuda_state *st = ctx->impl;
  const uint64_t full_tiles = ((uint64_t)n + k->tile_items - 1) / k->tile_items;
  return full_tiles < half_below * st->sm_count ? half : k;
}

/* scan_by_key on the flat scan's tiles (scan/tile_lines.cuh, scan_keys_kernel: each tile's run
   heads read from the keys into a bitmap while its values load; docs/PERFORMANCE.md, "The by-key
   scan on the flat scan's tiles"), but for DETERMINISTIC float sums and products (the by-key
   kernel's ordered look-back), the chained strategy, and PSCAN_CUDA_BY_KEY_FLAT=0 (A/B runs):
   those keep the by-key kernel. */
static bool by_key_on_flat_tiles(const pscan_ctx *ctx, const pscan__compact_call *c) {
  if (c->kind != PSCAN__COMPACT_SCAN_BY_KEY || c->offsets || c->user_value || c->n == 0)
    return false;
  const pscan__cuda_kernels *k = pscan__cuda_kernels_for((int)c->val_type, (int)c->val_type,
                                                         (int)c->op);
  return k && k->scan_keys && !by_key_deterministic(ctx, (int)c->val_type, (int)c->op) &&
         ctx->params[PSCAN_PARAM_ALGO] != PSCAN_ALGO_CHAINED &&
         pscan__env_uint("PSCAN_CUDA_BY_KEY_FLAT", 1);
}

static pscan_status scan_by_key_flat(pscan_ctx *ctx, const pscan__compact_call *c) {
  const pscan__scan_call scan = {.in = c->vals_in, .out = c->vals_out, .n = c->n,
                                 .in_type = c->val_type, .out_type = c->val_type, .op = (int)c->op,
                                 .exclusive = c->exclusive, .init = c->init,
                                 .in_size = c->val_size, .out_size = c->val_size, .keys = c->in,
                                 .key_type = c->type};
  return pscan__cuda_scan(ctx, &scan);
}

pscan_status pscan__cuda_compact(pscan_ctx *ctx, const pscan__compact_call *c) {
  if (by_key_on_flat_tiles(ctx, c))
    return scan_by_key_flat(ctx, c);
  if (c->user_value && c->kind == PSCAN__COMPACT_SCAN_BY_KEY)
    return pscan__cuda_scan_by_key_op(ctx, c->user_value, c->in, c->type, c->vals_in, c->vals_out,
                                      c->n, c->exclusive, c->init);
  if (c->user_value)
    return pscan__cuda_reduce_by_key_op(ctx, c->user_value, c->in, c->type, c->vals_in, c->out,
                                        c->vals_out, c->n, c->num_selected);
  cuda_state *st = ctx->impl;
  bool by_key = c->kind == PSCAN__COMPACT_REDUCE_BY_KEY || c->kind == PSCAN__COMPACT_SCAN_BY_KEY;
  const pscan__cuda_compact_kernel *k =
      by_key ? pscan__cuda_by_key_kernel(ctx, (int)c->kind, pscan_dtype_size(c->type),
                                         (int)c->val_type, (int)c->op, c->n)
             : pscan__cuda_compact_for((int)c->kind, (int)c->type, (int)c->val_type, (int)c->op);
  if (!k)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CUDA compaction kernel for %s",
                       pscan__dtype_name(by_key ? c->val_type : c->type));
  PSCAN__CHECK(use_device(ctx, st));
  PSCAN__CHECK(pscan__cuda_ensure_work(ctx, st, COUNTER_BYTES));
  size_t *count = c->kind == PSCAN__COMPACT_SCAN_BY_KEY ? NULL : c->num_selected;
  bool count_on_device = count && pscan__cuda_on_device(ctx, count);
  unsigned long long *slot = (unsigned long long *)(void *)(st->work + 8); /* after the counter */
  if (c->n == 0) { /* nothing to select: the count only */
    if (count_on_device)
      CUDA_CHECK(ctx, cudaMemsetAsync(count, 0, sizeof *count, st->stream), "cudaMemsetAsync");
    else if (count)
      *count = 0;
    return PSCAN_OK;
  }
  uint64_t tiles = (c->n + k->tile_items - 1) / k->tile_items;
  bool grown;
  PSCAN__CHECK(pscan__cuda_grow_zeroed(ctx, st, &st->status[2], &st->status_bytes[2], 2 * tiles * 16,
                                       &grown));
  PSCAN__CHECK(next_compact_epoch(ctx, st));

  pscan__cuda_compact_params p;
  memset(&p, 0, sizeof p);
  p.lb.pdl = st->pdl;
  p.lb.lb_eager = st->compact_eager;
  int algo = (int)ctx->params[PSCAN_PARAM_ALGO];
  p.lb.n = c->n;
  p.lb.num_tiles = tiles;
  p.lb.mode = tiles == 1 ? PSCAN__MODE_SINGLE
              : algo == PSCAN_ALGO_CHAINED ? PSCAN__MODE_CHAINED : PSCAN__MODE_LOOKBACK;
  p.lb.deterministic = by_key && by_key_deterministic(ctx, (int)c->val_type, (int)c->op);
  p.lb.agg_words = st->status[2];
  p.lb.incl_words = st->status[2] + tiles * 16;
  p.lb.tile_counter = (unsigned long long *)(void *)st->work;
  p.lb.tile_base = st->tile_base;
  p.lb.epoch = st->compact_epoch;
  p.lb.sm_count = st->sm_count; /* (the persistent kernel's grid) */
  if (p.lb.mode != PSCAN__MODE_SINGLE)
    stagger_long_launch(st, &p.lb);
  p.kind = (int)c->kind;
  p.cmp = (int)c->cmp;
  p.key_type = (int)c->type;
  p.key_size = (int)c->size;
  p.exclusive = c->exclusive;
  p.has_init = c->init != NULL;
  if (c->value)
    memcpy(&p.value, c->value, c->size);
  if (c->init)
    memcpy(&p.init, c->init, c->val_size);
  p.keys_vector_io = (uintptr_t)c->in % 16 == 0;
  p.vals_vector_io = (uintptr_t)c->vals_in % 16 == 0 && (uintptr_t)c->vals_out % 16 == 0;
  p.sparse_max = (unsigned)pscan__env_uint("PSCAN_CUDA_HEADS_SPARSE", 0);
  p.in = c->in;
  p.flags = c->flags;
  p.out = c->out;
  p.counts_out = c->counts_out;
  p.vals_in = c->vals_in;
  p.vals_out = c->vals_out;
  p.count_out = count_on_device ? (unsigned long long *)(void *)count : slot;
  p.offsets = c->offsets;
  p.num_segments = c->num_segments;
  p.tile_segment = c->tile_segment;
  PSCAN__CHECK(launch_compact(ctx, k, &p, p.lb.mode == PSCAN__MODE_SINGLE ? 1 : tiles));
  if (count && !count_on_device)
    return read_back_count(ctx, st, slot, count);
  return PSCAN_OK;
}
