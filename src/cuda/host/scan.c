/* The CUDA backend's scans: the global strategy (PSCAN_PARAM_ALGO) and its launches.
 *   DECOUPLED_LOOKBACK  one launch, ~2n (scan/tile_scan.cuh)
 *   CHAINED             one launch, each tile waits for its predecessor (StreamScan)
 *   REDUCE_THEN_SCAN    reduce tiles, scan the totals (recursively), rescan tiles: ~3n
 *   SCAN_THEN_PROPAGATE scan tiles locally, scan the totals (recursively), add: ~4n
 * and a single-block path (one block walks all tiles) for inputs of one tile, and at the bottom
 * of the recursions. The reduction (pscan_reduce) is REDUCE_THEN_SCAN's first pass and a scan of
 * its tile totals: ~n. The workspace they use: memory.c. */
#include "state.h"

#include <string.h>

typedef struct plan {
  const pscan__scan_call *call;
  int op;
  int algo, block_algo, deterministic;
  uint64_t start_bits; /* internal identity, the start of the recursive scans of totals */
} plan;

static uint64_t tiles_of(uint64_t n, const pscan__cuda_kernels *k) {
  return (n + k->tile_items - 1) / k->tile_items;
}

/* The identity that never changes a value: -0.0 for a float sum (0.0 + -0.0 is 0.0). */
static uint64_t internal_identity(pscan_dtype t, int op) {
  uint64_t bits = 0;
  if (op == PSCAN_SUM && t == PSCAN_F32) {
    float z = -0.0f;
    memcpy(&bits, &z, sizeof z);
  } else if (op == PSCAN_SUM && t == PSCAN_F64) {
    double z = -0.0;
    memcpy(&bits, &z, sizeof z);
  } else {
    pscan__identity(t, (pscan_op)op, &bits);
  }
  return bits;
}

/* Bytes of totals and prefixes the multi-pass strategies need below a level of n elements. */
static size_t multipass_bytes(const plan *pl, uint64_t n, const pscan__cuda_kernels *k) {
  const pscan__cuda_kernels *acc_k = pscan__cuda_kernels_for(pl->call->out_type,
                                                             pl->call->out_type, pl->op);
  size_t bytes = 0, acc = pl->call->out_size;
  for (uint64_t t = tiles_of(n, k); t > 1; t = tiles_of(t, acc_k))
    bytes += 2 * ((t * acc + 255) / 256 * 256);
  return bytes;
}

typedef int (*scan_launcher)(const pscan__cuda_scan_params *, uint64_t, void *);

/* A launcher's cudaError_t (or the test hook's injected launch failure). */
static int call_launcher(scan_launcher fn, const pscan__cuda_scan_params *p, uint64_t grid,
                         void *stream) {
  return pscan__fault_inject(PSCAN__FAULT_LAUNCH) ? (int)cudaErrorLaunchFailure
                                                   : fn(p, grid, stream);
}

static pscan_status launch(pscan_ctx *ctx, int (*fn)(const pscan__cuda_scan_params *, uint64_t, void *),
                           const pscan__cuda_scan_params *p, uint64_t grid, const char *what) {
  cuda_state *st = ctx->impl;
  if (grid == 0)
    return PSCAN_OK;
  if (grid > 0x7fffffffu)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "%s: %llu tiles exceed the grid limit", what,
                       (unsigned long long)grid);
  int e = call_launcher(fn, p, grid, st->stream);
  if (e != cudaSuccess)
    return pscan__cuda_fail(ctx, e, what);
  return PSCAN_OK;
}

/* A single-pass launch: one block per tile, tile ids from the counter. The counter advances only
   if the kernel runs: a launch that fails leaves tile_base where it was (else every later launch
   would compute its tile ids from a base past the counter). */
static pscan_status launch_single_pass(pscan_ctx *ctx, const pscan__cuda_kernels *k,
                                       pscan__cuda_scan_params *p) {
  cuda_state *st = ctx->impl;
  p->tile_base = st->tile_base;
  p->tile_from_block = p->num_tiles <= st->coop_tiles;
  if (p->tile_from_block) {
    int e = call_launcher(k->scan, p, p->num_tiles, st->stream);
    if (e == cudaSuccess)
      return PSCAN_OK; /* (the counter was not used) */
    if (e != cudaErrorCooperativeLaunchTooLarge)
      return pscan__cuda_fail(ctx, e, "single-pass scan (cooperative)");
    cudaGetLastError(); /* fewer multiprocessors than the device has (MPS, partitions): */
    st->coop_tiles = 0; /* take tile ids from the counter from now on */
    p->tile_from_block = 0;
  }
  stagger_long_launch(st, p);
  eager_short_launch(st, p);
  PSCAN__CHECK(launch(ctx, k->scan, p, p->num_tiles, "single-pass scan"));
  st->tile_base += p->num_tiles;
  return PSCAN_OK;
}

/* One level of a multi-pass strategy (or the whole single-pass scan) over in[0..n) -> out,
   with tile totals and prefixes carved from *scratch. */
static pscan_status scan_level(pscan_ctx *ctx, const plan *pl, const pscan__cuda_kernels *k,
                               pscan__cuda_scan_params p, char **scratch) {
  p.num_tiles = tiles_of(p.n, k);
  if (p.num_tiles == 1) {
    p.mode = PSCAN__MODE_SINGLE;
    return launch(ctx, k->scan, &p, 1, "single-block scan");
  }
  if (pl->algo == PSCAN_ALGO_AUTO || pl->algo == PSCAN_ALGO_DECOUPLED_LOOKBACK ||
      pl->algo == PSCAN_ALGO_CHAINED) {
    p.mode = pl->algo == PSCAN_ALGO_CHAINED ? PSCAN__MODE_CHAINED : PSCAN__MODE_LOOKBACK;
    return launch_single_pass(ctx, k, &p);
  }
  /* Multi-pass: totals of the tiles, their exclusive scan (recursively), then the tiles. */
  size_t acc = pl->call->out_size;
  char *totals = *scratch, *prefixes = totals + (p.num_tiles * acc + 255) / 256 * 256;
  *scratch = prefixes + (p.num_tiles * acc + 255) / 256 * 256;
  p.tile_values = totals;
  bool rts = pl->algo == PSCAN_ALGO_REDUCE_THEN_SCAN;
  if (rts) {
    PSCAN__CHECK(launch(ctx, k->reduce, &p, p.num_tiles, "tile reduction"));
  } else {
    p.mode = PSCAN__MODE_LOCAL;
    PSCAN__CHECK(launch(ctx, k->scan, &p, p.num_tiles, "local tile scan"));
  }
  const pscan__cuda_kernels *acc_k = pscan__cuda_kernels_for(pl->call->out_type,
                                                             pl->call->out_type, pl->op);
  pscan__cuda_scan_params sub = p;
  sub.in = totals;
  sub.out = prefixes;
  sub.n = p.num_tiles;
  sub.exclusive = 1;
  /* Reduce-then-scan folds init into the prefixes; scan-then-propagate has it in tile 0 already. */
  sub.has_init = 1;
  sub.init = rts && p.has_init ? p.init : pl->start_bits;
  sub.vector_io = ((uintptr_t)totals % 16 == 0) && ((uintptr_t)prefixes % 16 == 0);
  PSCAN__CHECK(scan_level(ctx, pl, acc_k, sub, scratch));
  p.tile_values = prefixes;
  if (rts) {
    p.mode = PSCAN__MODE_PREFIX;
    return launch(ctx, k->scan, &p, p.num_tiles, "tile rescan");
  }
  return launch(ctx, k->propagate, &p, p.num_tiles - 1, "propagation");
}

/* A small input, one that would leave most multiprocessors without a large tile, scans in small
   tiles (8 KB, scan/stamp.cuh): at 2^16 i32, 32 tiles instead of 8, each a quarter of the work, which
   shortens the call (docs/PERFORMANCE.md, "Small tiles for small scans"). Single pass and the
   default block strategy only:
   the small tiles are stamped for those. */
static bool use_small_tiles(const cuda_state *st, const pscan_ctx *ctx,
                            const pscan__cuda_kernels *k, uint64_t n) {
  const int64_t algo = ctx->params[PSCAN_PARAM_ALGO];
  return k->scan_small &&
         ctx->params[PSCAN_PARAM_BLOCK_ALGO] == PSCAN_BLOCK_AUTO &&
         (algo == PSCAN_ALGO_AUTO || algo == PSCAN_ALGO_DECOUPLED_LOOKBACK) &&
         (n + k->small_tile_items - 1) / k->small_tile_items <= st->sm_count;
}

/* The by-key scan (scan_keys) takes half tiles (16 KB) where large ones would number from
   KEYS_HALF_FROM to below KEYS_HALF_BELOW per multiprocessor (half a wave of six to two waves):
   more, shorter tiles spread a mid-sized input more evenly; fewer large tiles are all resident
   at once, where halving them only lengthens the look-back chain (docs/PERFORMANCE.md, "The
   by-key scan on the flat scan's tiles"). PSCAN_CUDA_KEYS_HALF_FROM=N and _BELOW=N replace the
   bounds (BELOW=0: large tiles always; FROM=0: half tiles for small inputs too), for A/B runs
   and tests. */
enum { KEYS_HALF_FROM = 3, KEYS_HALF_BELOW = 12 };
static bool use_half_key_tiles(const cuda_state *st, const pscan__cuda_kernels *k, uint64_t n) {
  const uint64_t from = pscan__env_uint("PSCAN_CUDA_KEYS_HALF_FROM", KEYS_HALF_FROM),
                 below = pscan__env_uint("PSCAN_CUDA_KEYS_HALF_BELOW", KEYS_HALF_BELOW),
                 tiles = (n + k->tile_items - 1) / k->tile_items;
  return k->scan_keys_half && tiles >= from * st->sm_count && tiles < below * st->sm_count;
}

/* What every launch of one call shares: zeroed status words for a look-back over n elements in
   k's tiles, the workspace (tile counter, then work_bytes), a fresh epoch, and the launch
   parameters of c (in, n, init) with out, exclusive and vector_io left for the caller. */
static pscan_status prepare(pscan_ctx *ctx, cuda_state *st, const plan *pl,
                            const pscan__cuda_kernels *k, const pscan__scan_call *c, uint64_t n,
                            size_t work_bytes, pscan__cuda_scan_params *p) {
  uint64_t tiles = tiles_of(n, k);
  int fmt = k->status_word_bytes == 16;
  size_t status_bytes = 2 * (size_t)tiles * k->status_word_bytes;
  bool grown;
  PSCAN__CHECK(pscan__cuda_grow_zeroed(ctx, st, &st->status[fmt], &st->status_bytes[fmt],
                                       status_bytes, &grown));
  PSCAN__CHECK(pscan__cuda_ensure_work(ctx, st, COUNTER_BYTES + work_bytes));
  if (++st->epoch == 0) { /* wrapped after 2^32 calls: old tags could match again */
    for (int i = 0; i < 2; i++)
      if (st->status[i])
        CUDA_CHECK(ctx, cudaMemsetAsync(st->status[i], 0, st->status_bytes[i], st->stream),
                   "cudaMemsetAsync");
    st->epoch = 1;
  }
  memset(p, 0, sizeof *p);
  p->pdl = st->pdl;
  p->in = c->in;
  p->n = c->n;
  p->has_init = c->init != NULL;
  if (c->init)
    memcpy(&p->init, c->init, c->out_size);
  p->block_algo = pl->block_algo;
  p->deterministic = pl->deterministic;
  p->tile_counter = (unsigned long long *)st->work;
  p->agg_words = st->status[fmt];
  p->incl_words = st->status[fmt] + status_bytes / 2;
  p->epoch = st->epoch;
  return PSCAN_OK;
}

bool pscan__cuda_mirror_chunks(const void *in, size_t in_size, const void *out, size_t out_size) {
  return ((uintptr_t)in + in_size) % 16 == 0 && (!out || ((uintptr_t)out + out_size) % 16 == 0) &&
         pscan__env_uint("PSCAN_CUDA_MIRROR_VEC", 1);
}

/* Only float sums and products depend on the order of combination; every other result is the
   same whichever way the look-back folds, so deterministic mode only slows those. */
pscan_status pscan__cuda_scan(pscan_ctx *ctx, const pscan__scan_call *c) {
  cuda_state *st = ctx->impl;
  if (c->op == PSCAN__OP_CUSTOM)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "pscan_scan_custom: custom operators run on the CPU backend only");
  const pscan__cuda_kernels *k = pscan__cuda_kernels_for(c->in_type, c->out_type, c->op);
  if (!k)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CUDA kernel for %s -> %s %s",
                       pscan__dtype_name(c->in_type), pscan__dtype_name(c->out_type),
                       pscan__op_name(c->op));
  PSCAN__CHECK(use_device(ctx, st));
  plan pl = {.call = c, .op = c->op, .algo = (int)ctx->params[PSCAN_PARAM_ALGO],
             .block_algo = (int)ctx->params[PSCAN_PARAM_BLOCK_ALGO],
             .deterministic = (int)ctx->params[PSCAN_PARAM_DETERMINISTIC] && pscan__order_sensitive(c),
             .start_bits = internal_identity(c->out_type, c->op)};
  if (pl.block_algo == PSCAN_BLOCK_AUTO)
    pl.block_algo = PSCAN_BLOCK_WARP_SCANS;
  pscan__cuda_kernels variant;
  const bool segmented = c->segment_len || c->offsets || c->keys;
  if (segmented || c->mirror) {
    /* segmented (their own kernels) or mirrored: single pass, large tiles */
    int (*seg)(const pscan__cuda_scan_params *, uint64_t, void *) =
        c->offsets ? k->scan_segments : c->keys ? k->scan_keys
                                                : c->segment_len ? k->scan_lines : k->scan;
    if ((pl.deterministic && segmented) || !seg)
      return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CUDA segmented scan here");
    variant = *k;
    variant.scan = seg;
    if (c->keys && use_half_key_tiles(st, k, c->n)) {
      variant.scan = k->scan_keys_half;
      variant.tile_items = k->half_tile_items;
    }
    k = &variant;
    pl.algo = PSCAN_ALGO_DECOUPLED_LOOKBACK;
  } else if (use_small_tiles(st, ctx, k, c->n)) {
    variant = *k;
    variant.scan = k->scan_small;
    variant.tile_items = k->small_tile_items;
    k = &variant;
  }

  pscan__cuda_scan_params p;
  PSCAN__CHECK(prepare(ctx, st, &pl, k, c, c->n, multipass_bytes(&pl, c->n, k), &p));
  p.out = c->out;
  p.exclusive = c->exclusive;
  p.mirror = c->mirror;
  p.out_forward = c->mirror && c->out_forward;
  /* (mirrored: the loads take their own path, vector_io is the forward out's stores') */
  p.vector_io = (c->mirror ? p.out_forward : (uintptr_t)c->in % 16 == 0) &&
                (uintptr_t)c->out % 16 == 0;
  if (p.out_forward && c->segment_len) { /* lines stepping through out: whole chunks a line */
    const int64_t per = 16 / (int64_t)c->out_size;
    p.out_line_step = c->out_line_step;
    p.vector_io = p.vector_io && c->segment_len % (size_t)per == 0 && c->out_line_step % per == 0;
  }
  p.mirror_vec = c->mirror && pscan__cuda_mirror_chunks(c->in, c->in_size,
                                                        p.out_forward ? NULL : c->out, c->out_size);
  p.segment_len = c->segment_len;
  p.offsets = c->offsets;
  p.num_segments = c->num_segments;
  p.tile_segment = c->tile_segment;
  p.head_bits = c->head_bits;
  p.gate = c->gate;
  p.keys = c->keys;
  if (c->keys) /* (PSCAN_CUDA_KEYS_VEC=0: keys read item by item, for A/B runs) */
    p.key_kind = (int)pscan_dtype_size(c->key_type) |
                 (pscan__dtype_kind(c->key_type) == PSCAN__FLOAT ? PSCAN__KEY_FLOAT : 0) |
                 (pscan__env_uint("PSCAN_CUDA_KEYS_VEC", 1) ? PSCAN__KEY_VEC : 0);
  char *scratch = st->work + COUNTER_BYTES;
  return scan_level(ctx, &pl, k, p, &scratch);
}

/* pscan_reduce: the reduce-then-scan strategy's first pass (tile totals, ~n), then an inclusive
   scan of the totals from init (any strategy, a small input), whose last element is the total. */
pscan_status pscan__cuda_reduce(pscan_ctx *ctx, const pscan__scan_call *c, void *total) {
  cuda_state *st = ctx->impl;
  PSCAN__CHECK(use_device(ctx, st));
  bool total_on_device = pscan__cuda_on_device(ctx, total);
  if (total_on_device && (uintptr_t)total % c->out_size != 0)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "pscan_reduce: total (%p) is not aligned to its element size of %zu bytes",
                       total, c->out_size);
  if (c->n == 0) {
    uint64_t v = 0;
    if (c->init)
      memcpy(&v, c->init, c->out_size);
    else
      pscan__identity(c->out_type, (pscan_op)c->op, &v);
    if (!total_on_device) {
      memcpy(total, &v, c->out_size);
      return PSCAN_OK;
    }
    CUDA_CHECK(ctx, cudaMemcpyAsync(total, &v, c->out_size, cudaMemcpyHostToDevice, st->stream),
               "cudaMemcpyAsync (total)");
    return PSCAN_OK;
  }
  const pscan__cuda_kernels *k = pscan__cuda_kernels_for(c->in_type, c->out_type, c->op);
  const pscan__cuda_kernels *acc_k = pscan__cuda_kernels_for(c->out_type, c->out_type, c->op);
  if (!k || !acc_k || !k->reduce)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CUDA reduction for %s -> %s %s",
                       pscan__dtype_name(c->in_type), pscan__dtype_name(c->out_type),
                       pscan__op_name(c->op));
  plan pl = {.call = c, .op = c->op, .algo = PSCAN_ALGO_AUTO, .block_algo = PSCAN_BLOCK_WARP_SCANS,
             .deterministic = (int)ctx->params[PSCAN_PARAM_DETERMINISTIC] && pscan__order_sensitive(c),
             .start_bits = internal_identity(c->out_type, c->op)};
  const uint64_t tiles = tiles_of(c->n, k);
  const size_t slab = (tiles * c->out_size + 255) / 256 * 256; /* tile totals, then their scan */
  pscan__cuda_scan_params p;
  PSCAN__CHECK(prepare(ctx, st, &pl, acc_k, c, tiles, 2 * slab, &p));
  char *totals = st->work + COUNTER_BYTES, *scanned = totals + slab;
  p.has_init = 0; /* init goes into the scan of the totals */
  p.num_tiles = tiles;
  p.tile_values = totals;
  p.vector_io = (uintptr_t)c->in % 16 == 0;
  PSCAN__CHECK(launch(ctx, k->reduce, &p, tiles, "tile reduction"));
  pscan__cuda_scan_params sub = p;
  sub.in = totals;
  sub.out = scanned;
  sub.n = tiles;
  sub.has_init = c->init != NULL;
  sub.vector_io = 1; /* (both slabs 256-byte aligned) */
  char *scratch = scanned + slab;
  PSCAN__CHECK(scan_level(ctx, &pl, acc_k, sub, &scratch));
  const char *last = scanned + (tiles - 1) * c->out_size;
  CUDA_CHECK(ctx, cudaMemcpyAsync(total, last, c->out_size, cudaMemcpyDefault, st->stream),
             "cudaMemcpyAsync (total)");
  if (!total_on_device)
    CUDA_CHECK(ctx, cudaStreamSynchronize(st->stream), "cudaStreamSynchronize (total)");
  return PSCAN_OK;
}
