/* The interface between the CUDA backend's axis host code (axis_host.c, C) and its axis kernels
 * (axis_kernels.cu, CUDA C). Only plain C types cross it. */
#ifndef PSCAN_CUDA_AXIS_LAUNCH_H
#define PSCAN_CUDA_AXIS_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PSCAN__AXIS_MAX_BATCH = 8 };

/* One launch over normalised views (../axis_norm.h); strides in elements. */
typedef struct pscan__cuda_axis_params {
  const void *in;
  void *out;
  int64_t len, si, so; /* the axis */
  int nb;              /* batch dimensions, outermost first */
  int64_t blen[PSCAN__AXIS_MAX_BATCH], bis[PSCAN__AXIS_MAX_BATCH], bos[PSCAN__AXIS_MAX_BATCH];
  uint64_t nlines;     /* lines: every batch dimension; side by side: the columns (the same) */
  int exclusive;
  int has_init;
  uint64_t init;       /* the init value's bytes (accumulation type) */
  /* Side by side: the axis in nchunks chunks of rows rows; agg holds nchunks x nlines
     accumulators (the chunks' reductions, then their exclusive prefixes). */
  int64_t rows;
  uint64_t nchunks;
  void *agg;
  /* reduce_last: side_reduce also reduces the last chunk (for a scan of the carries);
     carries: this is such a scan (axis_host.c, run_side), whose exclusive start without init
     is the internal identity, not the API's. */
  int reduce_last, carries;
  /* side_lb: the tile counter and one flag per tile (zeroed by the launcher); agg then holds
     the chunks' reductions and, after them, their inclusive prefixes (2 x nchunks x nlines). */
  unsigned long long *lb_counter;
  unsigned *lb_flags;
  /* side_rows: the columns of a tile (rows of width columns, rows x width <=
     PSCAN__AXIS_ROWS_TILE); lb_counter, then at agg a status word per chunk and column.
     vec: the tile moves in 16-byte vectors (4- and 8-byte accumulators whose width, columns,
     strides and both addresses are whole vectors).
     side_strips: a strip of width columns per block (lanes x 1, or lanes x the elements of a
     16-byte vector with vec: one batch dimension, columns contiguous, whole vectors). */
  unsigned width;
  int vec;
  /* side_rows: a chunk is contiguous (one column block, rows back to back, p->vec), so a
     block asks L2 for its likely chunk before its tile-id atomic (common.cuh). */
  int prefetch;
} pscan__cuda_axis_params;

/* Threads per block of every axis kernel: side by side, one column each (the host sizes grids,
   tiles and side_lb's flags by it). */
#define PSCAN__AXIS_THREADS 256
/* Rows per chunk of side_lb, by the accumulator's size (its rows are held in registers). */
#define PSCAN__AXIS_LB_ROWS(acc_size) ((acc_size) <= 4 ? 32 : 16)
/* side_rows: items per tile (in shared memory: 64 KiB for 4- and 8-byte accumulators), the
   widest column block, and the bytes of a status word (value and state). */
#define PSCAN__AXIS_ROWS_TILE(acc_size) ((acc_size) <= 4 ? 16384 : 8192)
#define PSCAN__AXIS_ROWS_WIDTH(acc_size) ((acc_size) <= 4 ? 128 : 64)
#define PSCAN__AXIS_ROWS_WORD(acc_size) ((acc_size) == 8 ? 16 : 8)
/* side_strips: blocks resident per multiprocessor by its launch bounds (the host launches no
   more strips than fit at once). */
#define PSCAN__AXIS_STRIPS_PER_SM 2

/* Launchers of one (input type, accumulation type, op); each returns a cudaError_t as int.
   lines: one warp per line, any strides (Kogge-Stone across the warp, 32 elements a step).
   side_reduce / side_carry / side_scan: lines side by side, one thread per line (loads coalesce
   across the innermost batch dimension), the axis cut into nchunks chunks: reduce each chunk,
   turn the reductions into exclusive prefixes (init folded in), scan each chunk from its prefix.
   With nchunks == 1 only side_scan runs. */
typedef struct pscan__cuda_axis_kernels {
  int (*lines)(const pscan__cuda_axis_params *p, unsigned grid, void *stream);
  int (*side_reduce)(const pscan__cuda_axis_params *p, void *stream);
  int (*side_carry)(const pscan__cuda_axis_params *p, void *stream);
  int (*side_scan)(const pscan__cuda_axis_params *p, void *stream);
  /* Lines side by side in one pass (decoupled look-back along the axis), nchunks chunks of
     PSCAN__AXIS_LB_ROWS rows. */
  int (*side_lb)(const pscan__cuda_axis_params *p, void *stream);
  /* Narrow lines side by side in one pass: nb == 1, columns contiguous in both views (bis and
     bos 1), tiles of p->rows rows x p->width columns (axis_rows.cuh). */
  int (*side_rows)(const pscan__cuda_axis_params *p, void *stream);
  /* Wide lines side by side in one pass without a look-back: a block per strip of p->width
     columns walks the whole axis (axis_strips.cuh). */
  int (*side_strips)(const pscan__cuda_axis_params *p, void *stream);
} pscan__cuda_axis_kernels;

/* NULL when (in, acc, op) is not offered. */
const pscan__cuda_axis_kernels *pscan__cuda_axis_kernels_for(int in_type, int acc_type, int op);

/* Segments by offsets (type-independent): the check sets bits of *bad (device memory, zeroed by
   the caller): 1 when offsets[0] != 0, 2 when they decrease, 4 when expect_n >= 0 and
   offsets[num_segments] != expect_n; tile_segments gives each tile of tile_items elements the
   first segment s >= 1 whose offset lies at or after the tile's start, where the by-key scan
   starts reading its heads. */
int pscan__cuda_offsets_check(const int64_t *offsets, uint64_t num_segments, int64_t expect_n,
                              unsigned *bad, void *stream);
/* The same check with expect_n = n, which also sets the segment starts among n items in
   head_bits (one bit an item, zeroed by the caller; mirror: the starts of the reversed scan's
   mirrored items). */
int pscan__cuda_offsets_heads(const int64_t *offsets, uint64_t num_segments, uint64_t n,
                              int mirror, unsigned *bad, unsigned *head_bits, void *stream);
int pscan__cuda_tile_segments(const int64_t *offsets, uint64_t num_segments, uint64_t num_tiles,
                              unsigned tile_items, uint64_t *tile_segment, void *stream);
/* Reverses n elements of size 1, 2, 4 or 8 bytes (axis_reverse.cu); dst may be src. */
int pscan__cuda_reverse(void *dst, const void *src, uint64_t n, size_t size, void *stream);
/* The offsets of the reversed array: dst[j] = n - src[num_segments - j], j = 0..num_segments
   (dst apart from src). */
int pscan__cuda_reverse_offsets(int64_t *dst, const int64_t *src, uint64_t num_segments,
                                uint64_t n, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_CUDA_AXIS_LAUNCH_H */
