/* The interface between the CUDA backend's host code (host/, plain C) and its kernels
 * (*.cu, CUDA C). Only plain C types cross it. */
#ifndef PSCAN_CUDA_LAUNCH_H
#define PSCAN_CUDA_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Resident blocks per multiprocessor the single-pass kernels are built for (their register
   bound): PSCAN__MIN_BLOCKS (48 registers), or PSCAN__MIN_BLOCKS_HIGH (40 registers; the
   32 KB tiles still fit in shared memory) where that measured faster (tile_scan.cuh,
   by_key_tile.cuh; docs/PERFORMANCE.md, "Blocks per multiprocessor"). The host's launch sizes take
   a wave as
   PSCAN__MIN_BLOCKS x the multiprocessors; the stagger asks the runtime. */
#define PSCAN__MIN_BLOCKS 5
#define PSCAN__MIN_BLOCKS_HIGH 6
/* One-wave launches of at most this many tiles look back with every warp of the block
   (lb_block below; one round of PSCAN__THREADS predecessors reaches tile 0; inputs of 4 bytes
   and more, lookback.cuh LB_BLOCK_BUILT): measured 3-9% faster up to 128 tiles on the H200, 3-8%
   slower at 512, either way at 256 (docs/PERFORMANCE.md, "A block-wide look-back in one-wave
   launches"). */
#define PSCAN__LB_BLOCK_TILES 128

/* How the tile-scan kernel learns the exclusive prefix of each tile. */
typedef enum pscan__cuda_mode {
  PSCAN__MODE_LOOKBACK, /* single pass, decoupled look-back over a warp-wide window */
  PSCAN__MODE_CHAINED,  /* single pass, wait for the predecessor's inclusive prefix (StreamScan) */
  PSCAN__MODE_SINGLE,   /* one block walks every tile in order, carrying the prefix */
  PSCAN__MODE_PREFIX,   /* prefixes precomputed in tile_values (reduce-then-scan, second pass) */
  PSCAN__MODE_LOCAL     /* no prefix: local scans; tile totals written to tile_values */
} pscan__cuda_mode;

typedef struct pscan__cuda_scan_params {
  const void *in;
  void *out;
  uint64_t n;
  uint64_t num_tiles;
  int exclusive;
  int has_init;
  int mode;          /* pscan__cuda_mode */
  int block_algo;    /* pscan_block_algo, never AUTO */
  int deterministic; /* look-back folds predecessors left to right in a fixed order */
  int vector_io;     /* in and out are 16-byte aligned: 16-byte loads and stores */
  int mirror;        /* item i is in[-i] and out[-i] (a reversed view; vector_io: out's alone) */
  int out_forward;   /* with mirror: out[+i] instead (a reversed input into a forward output) */
  /* with out_forward and segment_len: reversed lines into forward ones, item i of the mirrored
     span (line i / segment_len, position i % segment_len) to out[i % len + (i / len) * step] */
  int64_t out_line_step;
  int mirror_vec;    /* mirror, and in + 1 (and a mirrored out + 1) 16-byte aligned: whole tiles
                        move in 16-byte chunks, each chunk's elements reversed in registers */
  uint64_t init;     /* the init value's bytes (accumulation type), when has_init */
  /* Single-pass state in the context's workspace. */
  void *agg_words;   /* per tile: (aggregate, epoch) published after the tile's reduction */
  void *incl_words;  /* per tile: (inclusive prefix, epoch) */
  unsigned long long *tile_counter;
  unsigned long long tile_base; /* value of *tile_counter when this launch starts */
  int tile_from_block; /* a cooperative launch (every block resident at once): tile = blockIdx.x */
  int pdl; /* launch with programmatic dependent launch allowed (common.cuh; host side only) */
  /* Launches of more than two waves: a first-wave block of row r = blockIdx.x / sm_count
     (r < stagger_rows) waits r x stagger_ns before it takes its tile (common.cuh). host/state.h sets
     stagger_ns and sm_count; the launcher sets stagger_rows, the kernel's blocks per SM. */
  unsigned stagger_ns;
  unsigned sm_count;
  unsigned stagger_rows;
  /* The look-back asks for both status words of a predecessor at once instead of the aggregate
     only after the inclusive prefix was missing (lookback.cuh NAME(poll)): launches of at most
     host/state.h's eager_waves waves, whose tiles all look back at about the same time.
     Compaction launches: bits of host/backend.c's compact_eager (compact_common.cuh). */
  int lb_eager;
  /* ... and every warp of the block looks back, PSCAN__THREADS predecessors a round (lookback.cuh
     NAME(look_back_block); host/state.h: such launches of at most PSCAN_CUDA_LB_BLOCK_TILES). */
  int lb_block;
  uint32_t epoch;               /* tags this launch's status words (never 0) */
  void *tile_values; /* PREFIX: exclusive prefix per tile (in); LOCAL and reduce: tile totals (out) */
  uint64_t segment_len; /* scan_lines: a line starts every segment_len items (lines back to back) */
  const int64_t *offsets; /* scan_segments: a segment starts at each offsets[s], s < num_segments; */
  uint64_t num_segments;  /* tile_segment[t]: the first s >= 1 with offsets[s] at or after tile t */
  const uint64_t *tile_segment;
  const unsigned *head_bits; /* scan_segments: instead, the starts as bits (one an item, padded to
                                whole tiles) */
  const unsigned *gate; /* scan_segments: the launch writes nothing unless *gate is 0 (the
                           offsets' verdict, set by a kernel before it: axis_segments.c) */
  const void *keys; /* scan_keys: a run starts where keys[i] != keys[i - 1] (pscan_scan_by_key) */
  int key_kind;     /* the key's size in bytes, plus PSCAN__KEY_FLOAT for floats, plus
                       PSCAN__KEY_VEC where chosen (host/scan.c) */
} pscan__cuda_scan_params;

#define PSCAN__KEY_FLOAT 16
#define PSCAN__KEY_TYPE 31     /* the size and float bits */
#define PSCAN__KEY_VEC 32      /* whole tiles of aligned keys read in 16-byte loads */

/* Launchers for one (input type, accumulation type, op). Each returns a cudaError_t as int. */
typedef struct pscan__cuda_kernels {
  int (*scan)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);
  int (*reduce)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);    /* tile totals */
  int (*propagate)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream); /* out = pfx ⊕ out */
  unsigned tile_items; /* elements per tile */
  unsigned status_word_bytes; /* 8 for accumulation types up to 4 bytes, else 16 */
  /* The single-pass scan over small tiles (8 KB), for inputs that fill few large ones. */
  int (*scan_small)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);
  unsigned small_tile_items;
  /* The single-pass scans of lines back to back (segment_len) and of segments by offsets, on the
     large tiles. */
  int (*scan_lines)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);
  int (*scan_segments)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);
  /* ... and of runs of equal keys (pairs without widening; NULL for the others), on the large
     tiles and on half tiles (16 KB). */
  int (*scan_keys)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);
  int (*scan_keys_half)(const pscan__cuda_scan_params *p, uint64_t grid, void *stream);
  unsigned half_tile_items;
} pscan__cuda_kernels;

/* NULL when (in, acc, op) is not offered. */
const pscan__cuda_kernels *pscan__cuda_kernels_for(int in_type, int acc_type, int op);

/* ---- Compaction (compact_tile.cuh, by_key_tile.cuh) ---- */

/* One compaction launch. The look-back state travels in lb (n, num_tiles, mode, deterministic,
   status words, tile counter, epoch): the compaction kernels run the scan's own look-back
   (lookback.cuh) over a pair accumulator (compact_ops.cuh). */
typedef struct pscan__cuda_compact_params {
  pscan__cuda_scan_params lb;
  int kind;          /* pscan__compact_kind (internal.h) */
  int cmp;           /* pscan_cmp: SELECT_IF, PARTITION_IF */
  int key_type;      /* pscan_dtype of the keys (the by-key kernels read any key type) */
  int key_size;      /* ... and its size in bytes */
  int exclusive;     /* SCAN_BY_KEY */
  int has_init;      /* SCAN_BY_KEY */
  int keys_vector_io; /* in (the keys) is 16-byte aligned */
  int vals_vector_io; /* vals_in and vals_out are 16-byte aligned */
  unsigned sparse_max; /* unique / run-length encoding / reduce_by_key: at most this many kept
                          items (heads) of a tile go to the look-back warp (0: the slot's size;
                          PSCAN_CUDA_HEADS_SPARSE, for A/B runs and tests) */
  uint64_t value;    /* the right-hand side of cmp, in the key type's bytes */
  uint64_t init;     /* SCAN_BY_KEY's init, in the value type's bytes */
  const void *in;    /* the items, or the keys */
  const uint8_t *flags;
  void *out;         /* kept items, unique keys */
  uint64_t *counts_out;
  const void *vals_in;
  void *vals_out;
  unsigned long long *count_out; /* the last tile writes the number of items kept (or runs) here */
  const int64_t *offsets;        /* SCAN_BY_KEY by segments (pscan__compact_call): heads from */
  uint64_t num_segments;         /* offsets instead of keys */
  const uint64_t *tile_segment;
} pscan__cuda_compact_params;

typedef struct pscan__cuda_compact_kernel {
  /* Launches at most `tiles` blocks; *taken: how far the launch moves the tile counter if it runs
     (persistent blocks each take one id past the last tile). */
  int (*launch)(const pscan__cuda_compact_params *p, uint64_t tiles, void *stream, uint64_t *taken);
  unsigned tile_items;
} pscan__cuda_compact_kernel;

/* The kernel for a compaction kind: by key type (SELECT_IF .. RUN_LENGTH) or by value type and
   op (REDUCE_BY_KEY, SCAN_BY_KEY); NULL when not offered. */
const pscan__cuda_compact_kernel *pscan__cuda_compact_for(int kind, int key_type, int val_type,
                                                          int op);
/* The by-key kernel of (value type, op) on half-size tiles (8 items a thread), NULL where there is
   none (values other than 8 bytes): compact/by_key_stamp.cuh. */
const pscan__cuda_compact_kernel *pscan__cuda_compact_half(int val_type, int op);
/* The by-key kernel a call of n items with keys of key_size bytes runs (host/compact.c: full or
   half tiles); NULL when not offered. */
const pscan__cuda_compact_kernel *pscan__cuda_by_key_kernel(struct pscan_ctx *ctx, int kind,
                                                            size_t key_size, int val_type, int op,
                                                            size_t n);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_CUDA_LAUNCH_H */
