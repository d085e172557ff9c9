/* What the CUDA backend's host files share: a context's state (device, stream, workspace,
 * status words, launch settings), the check of a CUDA call, and the helpers each dispatch uses.
 * Files: backend.c (a context's lifetime, parameters, stream; the backend table; what the axis
 * scans and user operators borrow), memory.c (device pointers, the workspace), scan.c (the scan
 * strategies and their launches), compact.c (the compaction family's launch). */
#ifndef PSCAN_CUDA_HOST_STATE_H
#define PSCAN_CUDA_HOST_STATE_H

#include "../../internal.h"
#include "../axis_host.h"
#include "../jit/jit.h"
#include "../launch.h"

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct cuda_state {
  int device;
  int caller_device; /* the calling thread's device before this call switched (-1: none) */
  cudaStream_t stream;  /* the user's stream (NULL: the legacy default stream) */
  /* Keeps the workspace's users in order across set_stream: recorded after every call on a
     stream the caller can destroy (cuda_call_done), on the others when switching away. */
  cudaEvent_t ordering;
  char *work;           /* device workspace: tile counter, multi-pass totals and prefixes */
  size_t work_bytes;
  /* Tile status words, in buffers of their own: [0] 8-byte words (values up to 4 bytes), [1]
     16-byte words, [2] the compaction family's 16-byte pair words (compact/compact_ops.cuh).
     Only whole status words of one format are ever written to each, so a stale word always
     carries an older epoch; sharing bytes with other data (totals, or the other format, whose
     value half is user data) could forge the current epoch (the CPU backend had exactly that
     bug: docs/PERFORMANCE.md, "Status words cleared per call"). */
  char *status[3];
  size_t status_bytes[3];
  unsigned long long tile_base; /* value of the tile counter at the start of the next launch */
  uint64_t coop_tiles; /* single-pass grids up to this size launch cooperatively (0: never) */
  unsigned stagger_ns, sm_count; /* staggered first wave of large launches (launch.h) */
  unsigned eager_waves; /* launches of at most this many waves look back eagerly (launch.h) */
  int compact_eager; /* which compaction tiles poll eagerly (compact_common.cuh, backend.c) */
  uint64_t lb_block_tiles; /* ... with every warp of the block, up to this many tiles (launch.h) */
  bool pdl;                       /* kernels may overlap the previous one's run (common.cuh) */
  const void *known_device[4];  /* pointers already found to be device memory (most recent first) */
  /* One call's temporaries (memory.c, pscan__cuda_temp_alloc): the context's own stream-ordered
     pool, made on first use, on pool_device (NULL: none yet, or the device's default pool). */
  cudaMemPool_t pool;
  int pool_device;
  void *segments_memo; /* what the last scan by offsets found (axis_segments.c) */
  uint32_t epoch;
  uint32_t compact_epoch; /* 16 bits: the pair words have room for no more */
} cuda_state;

enum { COUNTER_BYTES = 256 };

/* Returns PSCAN_ERR_DEVICE (pscan__cuda_fail, backend.c) when a CUDA call fails. */
#define CUDA_CHECK(ctx, expr, what)                     \
  do {                                                  \
    cudaError_t e_ = (expr);                            \
    if (e_ != cudaSuccess)                              \
      return pscan__cuda_fail((ctx), (int)e_, (what));  \
  } while (0)

/* A call on a CUDA context runs with the context's device current and gives the calling thread
   its own current device back before it returns (pscan.h, PSCAN_PARAM_DEVICE), as a framework's
   device guard does: use_device remembers the caller's device when it switches, restore_device
   switches back at the end of every entry point (cuda_call_done after a data call, the
   context's own hooks in backend.c). */
static inline pscan_status use_device(pscan_ctx *ctx, cuda_state *st) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == st->device)
    return PSCAN_OK;
  CUDA_CHECK(ctx, cudaSetDevice(st->device), "cudaSetDevice");
  if (current >= 0 && st->caller_device < 0)
    st->caller_device = current;
  return PSCAN_OK;
}
static inline void restore_device(cuda_state *st) {
  if (st->caller_device >= 0 && cudaSetDevice(st->caller_device) != cudaSuccess)
    cudaGetLastError(); /* the caller's device was usable a moment ago: nothing to report */
  st->caller_device = -1;
}

/* Launches of more than two waves stagger their first wave (common.cuh). */
static inline void stagger_long_launch(const cuda_state *st, pscan__cuda_scan_params *p) {
  if (p->num_tiles > 2 * PSCAN__MIN_BLOCKS * (uint64_t)st->sm_count) {
    p->stagger_ns = st->stagger_ns;
    p->sm_count = st->sm_count;
  }
}

/* Launches of at most eager_waves waves of six blocks per multiprocessor look back eagerly
   (launch.h lb_eager; docs/PERFORMANCE.md, "Both status words at once in short launches");
   those of at most lb_block_tiles tiles (default PSCAN__LB_BLOCK_TILES) with every warp of the
   block ("A block-wide look-back in one-wave launches"). */
static inline void eager_short_launch(const cuda_state *st, pscan__cuda_scan_params *p) {
  p->lb_eager = p->num_tiles <= (uint64_t)st->eager_waves * PSCAN__MIN_BLOCKS_HIGH * st->sm_count;
  p->lb_block = p->lb_eager && p->num_tiles <= st->lb_block_tiles;
}

/* memory.c: grows a zeroed device buffer to at least bytes (stream-ordered), true in *grown when
   it did; the workspace (tile counter, multi-pass totals) to at least bytes; whether p is device
   memory the backend can use (PSCAN_ERR_WRONG_MEMORY if not). */
pscan_status pscan__cuda_grow_zeroed(pscan_ctx *ctx, cuda_state *st, char **buf, size_t *cap,
                                     size_t bytes, bool *grown);
pscan_status pscan__cuda_ensure_work(pscan_ctx *ctx, cuda_state *st, size_t bytes);
pscan_status pscan__cuda_check_memory(pscan_ctx *ctx, const void *p, const char *what);
/* scan.c, compact.c: the backend's scan, reduction and compaction entries. */
pscan_status pscan__cuda_scan(pscan_ctx *ctx, const pscan__scan_call *c);
pscan_status pscan__cuda_reduce(pscan_ctx *ctx, const pscan__scan_call *c, void *total);
pscan_status pscan__cuda_compact(pscan_ctx *ctx, const pscan__compact_call *c);

#endif /* PSCAN_CUDA_HOST_STATE_H */
