/* The CUDA backend's host side (C): device and stream of a context, its workspace, the choice
 * of global strategy, and the launches. Calls enqueue on the context's stream and return without
 * synchronising.
 *
 * Global strategies (PSCAN_PARAM_ALGO):
 *   DECOUPLED_LOOKBACK  one launch, ~2n (tile_scan.cuh)
 *   CHAINED             one launch, each tile waits for its predecessor (StreamScan)
 *   REDUCE_THEN_SCAN    reduce tiles, scan the totals (recursively), rescan tiles: ~3n
 *   SCAN_THEN_PROPAGATE scan tiles locally, scan the totals (recursively), add: ~4n
 * and a single-block path (one block walks all tiles) for inputs of one tile, and at the bottom
 * of the recursions.
 *
 * Workspace (device buffers grown on demand, stream-ordered): a 64-bit tile counter and the
 * totals and prefixes of the multi-pass strategies in one buffer, the per-tile status words in
 * buffers of their own (one per word size). The counter is never reset: the host knows how many
 * tiles every launch took (tile_base). The status words are never reset either: each launch tags
 * its words with a new epoch, and nothing but whole status words is ever written where they live.
 * A small scan is therefore one kernel launch and nothing else. */
#include "../internal.h"
#include "jit/jit.h"
#include "launch.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct cuda_state {
  int device;
  cudaStream_t stream;  /* the user's stream (NULL: the legacy default stream) */
  /* Keeps the workspace's users in order across set_stream: recorded after every call on a
     stream the caller can destroy (cuda_call_done), on the others when switching away. */
  cudaEvent_t ordering;
  char *work;           /* device workspace: tile counter, multi-pass totals and prefixes */
  size_t work_bytes;
  /* Tile status words, in buffers of their own: [0] 8-byte words (values up to 4 bytes), [1]
     16-byte words, [2] the compaction family's 16-byte pair words (compact_ops.cuh). Only whole status words of one format are ever written to each, so a stale
     word always carries an older epoch; sharing bytes with other data (totals, or the other
     format, whose value half is user data) could forge the current epoch (the CPU backend had
     exactly that bug: docs/PERFORMANCE.md, "Status words cleared per call"). */
  char *status[3];
  size_t status_bytes[3];
  unsigned long long tile_base; /* value of the tile counter at the start of the next launch */
  uint64_t coop_tiles; /* single-pass grids up to this size launch cooperatively (0: never) */
  unsigned stagger_ns, sm_count; /* staggered first wave of large launches (launch.h) */
  bool pdl;                       /* kernels may overlap the previous one's run (common.cuh) */
  const void *known_device[4];  /* pointers already found to be device memory (most recent first) */
  uint32_t epoch;
  uint32_t compact_epoch; /* 16 bits: the pair words have room for no more */
} cuda_state;

enum { COUNTER_BYTES = 256 };

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

static pscan_status cuda_fail(pscan_ctx *ctx, cudaError_t e, const char *what) {
  cudaGetLastError(); /* clear a non-sticky error so the context stays usable */
  return pscan__fail(ctx, PSCAN_ERR_DEVICE, "%s: %s (%s)", what, cudaGetErrorString(e),
                     cudaGetErrorName(e));
}
#define CUDA_CHECK(ctx, expr, what)          \
  do {                                       \
    cudaError_t e_ = (expr);                 \
    if (e_ != cudaSuccess)                   \
      return cuda_fail((ctx), e_, (what));   \
  } while (0)

static pscan_status use_device(pscan_ctx *ctx, cuda_state *st) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == st->device)
    return PSCAN_OK;
  CUDA_CHECK(ctx, cudaSetDevice(st->device), "cudaSetDevice");
  return PSCAN_OK;
}

/* Without programmatic dependent launch (below), single-pass grids of at most one block per
   multiprocessor launch cooperatively: the runtime then guarantees that every block is resident
   at once, so a tile can take its block's index and skip the atomic tile counter (one L2 round trip before its loads, most of a small scan's time)
   and still never wait on a predecessor that is not running. Launches of more than two waves
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
  pscan_status s = use_device(ctx, st);
  if (s == PSCAN_OK && (e = cudaEventCreateWithFlags(&st->ordering, cudaEventDisableTiming)))
    s = cuda_fail(ctx, e, "cudaEventCreate");
  if (s == PSCAN_OK)
    configure_launches(st);
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
  }
  pscan__free(st);
  ctx->impl = NULL;
}

static pscan_status cuda_check_param(pscan_ctx *ctx, pscan_param p, int64_t v) {
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
    if (v != st->device && st->work)
      return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                         "pscan_set_param: choose the device before the first call on a context");
    st->device = (int)v;
  }
  return PSCAN_OK;
}

/* Later work goes to the new stream, after everything already queued on the old one. The old
   stream is touched only when it is one the caller cannot destroy; on any other, the event was
   recorded after the context's last call (cuda_call_done), and the caller may have destroyed the
   stream since (Python frameworks do, as a matter of course). */
static pscan_status cuda_set_stream(pscan_ctx *ctx, void *stream) {
  cuda_state *st = ctx->impl;
  PSCAN__CHECK(use_device(ctx, st));
  if (lasting_stream(st->stream))
    CUDA_CHECK(ctx, cudaEventRecord(st->ordering, st->stream), "cudaEventRecord");
  CUDA_CHECK(ctx, cudaStreamWaitEvent((cudaStream_t)stream, st->ordering, 0), "cudaStreamWaitEvent");
  st->stream = (cudaStream_t)stream;
  return PSCAN_OK;
}

static void cuda_call_done(pscan_ctx *ctx) {
  cuda_state *st = ctx->impl;
  if (!lasting_stream(st->stream) && cudaEventRecord(st->ordering, st->stream) != cudaSuccess)
    cudaGetLastError(); /* a failing stream reports itself on the next call or synchronize */
}

static pscan_status cuda_synchronize(pscan_ctx *ctx) {
  cuda_state *st = ctx->impl;
  PSCAN__CHECK(use_device(ctx, st));
  CUDA_CHECK(ctx, cudaStreamSynchronize(st->stream), "pscan_synchronize");
  return PSCAN_OK;
}

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

static pscan_status cuda_check_memory(pscan_ctx *ctx, const void *p, const char *what) {
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

/* Grows a zeroed device buffer to at least bytes (stream-ordered); true in *grown when it did. */
static pscan_status grow_zeroed(pscan_ctx *ctx, cuda_state *st, char **buf, size_t *cap,
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

static pscan_status ensure_work(pscan_ctx *ctx, cuda_state *st, size_t bytes) {
  bool grown;
  PSCAN__CHECK(grow_zeroed(ctx, st, &st->work, &st->work_bytes, bytes, &grown));
  if (grown)
    st->tile_base = 0; /* a fresh, zeroed counter */
  return PSCAN_OK;
}

/* ---- one scan ---- */

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
    return cuda_fail(ctx, (cudaError_t)e, what);
  return PSCAN_OK;
}

/* The counter moves (tile_base) only if the kernel runs: see launch_single_pass. */
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
    return cuda_fail(ctx, (cudaError_t)e, "compaction kernel");
  st->tile_base += taken;
  return PSCAN_OK;
}

/* Launches of more than two waves stagger their first wave (common.cuh). */
static void stagger_long_launch(const cuda_state *st, pscan__cuda_scan_params *p) {
  if (p->num_tiles > 2 * PSCAN__MIN_BLOCKS * (uint64_t)st->sm_count) {
    p->stagger_ns = st->stagger_ns;
    p->sm_count = st->sm_count;
  }
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
      return cuda_fail(ctx, (cudaError_t)e, "single-pass scan (cooperative)");
    cudaGetLastError(); /* fewer multiprocessors than the device has (MPS, partitions): */
    st->coop_tiles = 0; /* take tile ids from the counter from now on */
    p->tile_from_block = 0;
  }
  stagger_long_launch(st, p);
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
   tiles (8 KB, stamp.cuh): at 2^16 i32, 32 tiles instead of 8, each a quarter of the work, which
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

/* Only float sums and products depend on the order of combination; every other result is the
   same whichever way the look-back folds, so deterministic mode only slows those. */
static pscan_status cuda_scan(pscan_ctx *ctx, const pscan__scan_call *c) {
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
  pscan__cuda_kernels small;
  if (use_small_tiles(st, ctx, k, c->n)) {
    small = *k;
    small.scan = k->scan_small;
    small.tile_items = k->small_tile_items;
    k = &small;
  }

  uint64_t tiles = tiles_of(c->n, k);
  int fmt = k->status_word_bytes == 16;
  size_t status_bytes = 2 * (size_t)tiles * k->status_word_bytes;
  bool grown;
  PSCAN__CHECK(grow_zeroed(ctx, st, &st->status[fmt], &st->status_bytes[fmt], status_bytes, &grown));
  PSCAN__CHECK(ensure_work(ctx, st, COUNTER_BYTES + multipass_bytes(&pl, c->n, k)));
  if (++st->epoch == 0) { /* wrapped after 2^32 calls: old tags could match again */
    for (int i = 0; i < 2; i++)
      if (st->status[i])
        CUDA_CHECK(ctx, cudaMemsetAsync(st->status[i], 0, st->status_bytes[i], st->stream),
                   "cudaMemsetAsync");
    st->epoch = 1;
  }

  pscan__cuda_scan_params p;
  memset(&p, 0, sizeof p);
  p.pdl = st->pdl;
  p.in = c->in;
  p.out = c->out;
  p.n = c->n;
  p.exclusive = c->exclusive;
  p.has_init = c->init != NULL;
  if (c->init)
    memcpy(&p.init, c->init, c->out_size);
  p.block_algo = pl.block_algo;
  p.deterministic = pl.deterministic;
  p.vector_io = ((uintptr_t)c->in % 16 == 0) && ((uintptr_t)c->out % 16 == 0);
  p.tile_counter = (unsigned long long *)st->work;
  p.agg_words = st->status[fmt];
  p.incl_words = st->status[fmt] + status_bytes / 2;
  p.epoch = st->epoch;
  char *scratch = st->work + COUNTER_BYTES;
  return scan_level(ctx, &pl, k, p, &scratch);
}

/* ---- compaction (compact_tile.cuh, by_key_tile.cuh) ---- */

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

static pscan_status cuda_compact(pscan_ctx *ctx, const pscan__compact_call *c) {
  cuda_state *st = ctx->impl;
  bool by_key = c->kind == PSCAN__COMPACT_REDUCE_BY_KEY || c->kind == PSCAN__COMPACT_SCAN_BY_KEY;
  const pscan__cuda_compact_kernel *k = pscan__cuda_compact_for((int)c->kind, (int)c->type,
                                                                (int)c->val_type, (int)c->op);
  if (!k)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CUDA compaction kernel for %s",
                       pscan__dtype_name(by_key ? c->val_type : c->type));
  PSCAN__CHECK(use_device(ctx, st));
  PSCAN__CHECK(ensure_work(ctx, st, COUNTER_BYTES));
  size_t *count = c->kind == PSCAN__COMPACT_SCAN_BY_KEY ? NULL : c->num_selected;
  bool count_on_device = count && is_device_memory(st, count);
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
  PSCAN__CHECK(grow_zeroed(ctx, st, &st->status[2], &st->status_bytes[2], 2 * tiles * 16, &grown));
  PSCAN__CHECK(next_compact_epoch(ctx, st));

  pscan__cuda_compact_params p;
  memset(&p, 0, sizeof p);
  p.lb.pdl = st->pdl;
  int algo = (int)ctx->params[PSCAN_PARAM_ALGO];
  p.lb.n = c->n;
  p.lb.num_tiles = tiles;
  p.lb.mode = tiles == 1 ? PSCAN__MODE_SINGLE
              : algo == PSCAN_ALGO_CHAINED ? PSCAN__MODE_CHAINED : PSCAN__MODE_LOOKBACK;
  /* Only the by-key reductions of float sums and products depend on the order of combination. */
  p.lb.deterministic = ctx->params[PSCAN_PARAM_DETERMINISTIC] && by_key &&
                       pscan__dtype_kind(c->val_type) == PSCAN__FLOAT &&
                       (c->op == PSCAN_SUM || c->op == PSCAN_PROD);
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

/* ---- For the axis scans (axis_host.c) ---- */

pscan_status pscan__cuda_axis_begin(pscan_ctx *ctx, void **stream, unsigned *sm_count);
pscan_status pscan__cuda_axis_fail(pscan_ctx *ctx, int err, const char *what);
pscan_status pscan__cuda_scan_axis(pscan_ctx *ctx, const pscan__axis_call *c);

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
  return cuda_fail(ctx, (cudaError_t)err, what);
}

/* ---- what the user operators (cuda/jit/) borrow: device, stream, counter, workspace ---- */

pscan_status pscan__cuda_env_get(pscan_ctx *ctx, pscan__cuda_env *env) {
  cuda_state *st = ctx->impl;
  PSCAN__CHECK(use_device(ctx, st));
  PSCAN__CHECK(ensure_work(ctx, st, COUNTER_BYTES));
  env->device = st->device;
  env->stream = st->stream;
  env->pdl = st->pdl;
  env->sm_count = st->sm_count;
  env->stagger_ns = st->stagger_ns;
  env->tile_counter = (unsigned long long *)(void *)st->work;
  env->tile_base = &st->tile_base;
  env->count_slot = (unsigned long long *)(void *)(st->work + 8); /* as cuda_compact's */
  return PSCAN_OK;
}

pscan_status pscan__cuda_grow(pscan_ctx *ctx, char **buf, size_t *cap, size_t bytes) {
  bool grown;
  return grow_zeroed(ctx, ctx->impl, buf, cap, bytes, &grown);
}

pscan_status pscan__cuda_fail(pscan_ctx *ctx, int cuda_error, const char *what) {
  return cuda_fail(ctx, (cudaError_t)cuda_error, what);
}

bool pscan__cuda_on_device(pscan_ctx *ctx, const void *p) { return is_device_memory(ctx->impl, p); }

const pscan__backend pscan__cuda_backend = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .check_param = cuda_check_param,
    .set_stream = cuda_set_stream,
    .call_done = cuda_call_done,
    .synchronize = cuda_synchronize,
    .check_memory = cuda_check_memory,
    .scan = cuda_scan,
    .compact = cuda_compact,
    .scan_axis = pscan__cuda_scan_axis,
    .op_create = pscan__cuda_op_create, /* user operators: cuda/jit/ */
    .op_destroy = pscan__cuda_op_destroy,
    .scan_op = pscan__cuda_scan_op,
    .select_op = pscan__cuda_select_op,
    .op_target = pscan__cuda_op_target,
};
