/* What the CPU axis engines share (axis.c: the plan, lines, dispatch; axis_segments.c: the
 * segment engine; axis_side.c: lines side by side): the plan of a call, its views, and the
 * helpers that walk them. Private to src/cpu/axis*.c. */
#ifndef PSCAN_CPU_AXIS_PLAN_H
#define PSCAN_CPU_AXIS_PLAN_H

#include "axis.h"

#include <stdatomic.h>

/* Work below this many elements runs on one thread (waking the pool costs more). */
enum { AXIS_MIN_ELEMS_PER_THREAD = 1 << 15 };
/* A line at least this long, with fewer than AXIS_FEW_LINES_PER_THREAD lines per thread, is
   scanned by all threads together rather than one thread per line. */
enum { AXIS_LONG_LINE = 1 << 16, AXIS_FEW_LINES_PER_THREAD = 4 };
/* Lines side by side (axis_side.c): running values per chunk of columns (16 KiB: stays in L1),
   cut down to give every thread units of its own: rows of a page (AXIS_SIDE_PAGE_BYTES) where
   one unit a thread allows it, else no less than AXIS_SIDE_MIN_BYTES a row; rows cut into chunks
   of about AXIS_CHUNK_BYTES of input (rescanned from a core's L2 cache). */
enum {
  AXIS_SIDE_BYTES = 16 << 10,
  AXIS_SIDE_PAGE_BYTES = 4 << 10,
  AXIS_SIDE_MIN_BYTES = 1 << 10,
  AXIS_CHUNK_BYTES = 256 << 10
};
/* Lines one per thread: contiguous lines of at least this many bytes of output stream their
   stores (one fence per line) when the output is beyond the cache. */
enum { AXIS_STREAM_LINE_BYTES = 4 << 10 };
/* Segments: a chunk whose segments average at most this many elements is scanned by one call of
   the segs kernel (element by element) rather than one call of the flat kernels a segment. */
enum { AXIS_SHORT_SEGMENT = 40 };
/* ... and one whose segments average at most this many, by the segs_tiny kernel (flags and a
   select instead of a loop a segment; docs/PERFORMANCE.md, "Tiny segments"). */
enum { AXIS_TINY_SEGMENT = 6 };
/* ... and, where the AVX-512 segmented sum serves the call (axis_segments.c), one whose segments
   average at most this many takes it. */
enum { AXIS_SIMD_SEGMENT = 128 };
/* Fixed-order cuts of lines (deterministic order-sensitive scans). */
enum { AXIS_FIXED_CHUNK = 1 << 14 };

typedef struct axis_dim {
  int64_t len, is, os; /* extent; input and output strides in elements */
} axis_dim;

typedef struct axis_plan {
  const pscan__cpu_axis_kernels *k;
  const pscan__cpu_op *flat; /* contiguous lines */
  const pscan__axis_call *c;
  const char *in;
  char *out;
  size_t in_size, acc_size;
  int64_t len, si, so; /* the axis, forward (reverse folded into the strides) */
  int nb;              /* batch dimensions, outermost first, merged */
  axis_dim b[PSCAN_MAX_DIMS];
  size_t nlines;
  int threads;
  bool fixed; /* deterministic and order-sensitive: fixed cuts */
} axis_plan;

static inline const char *at_in(const axis_plan *p, const char *base, int64_t i) {
  return base + i * (int64_t)p->in_size;
}
static inline char *at_out(const axis_plan *p, char *base, int64_t i) {
  return base + i * (int64_t)p->acc_size;
}

/* Input and output offsets (elements) of index idx over dims[0..nd) (the last varies fastest). */
static inline void decode(const axis_dim *dims, int nd, size_t idx, int64_t *io, int64_t *oo) {
  *io = 0, *oo = 0;
  for (int d = nd; d-- > 0;) {
    int64_t i = (int64_t)(idx % (size_t)dims[d].len);
    idx /= (size_t)dims[d].len;
    *io += i * dims[d].is, *oo += i * dims[d].os;
  }
}

static inline int threads_for(const axis_plan *p, size_t elems, size_t units) {
  size_t t = elems / AXIS_MIN_ELEMS_PER_THREAD;
  if (t > (size_t)p->threads)
    t = (size_t)p->threads;
  if (t > units)
    t = units;
  return t < 1 ? 1 : (int)t;
}

static inline size_t claim_task(_Atomic size_t *next) {
  return atomic_fetch_add_explicit(next, 1, memory_order_relaxed);
}

/* One 1-D view cut into segments (the segment engine's input). */
typedef struct seg_view {
  const char *in;
  char *out;
  int64_t is, os;
  size_t n;
  const int64_t *offsets; /* NULL: one segment, the whole view */
  size_t nseg;
  bool mirrored;          /* the view runs backwards over the offsets' positions */
} seg_view;

/* The segment engine (axis_segments.c): scans every segment of v; seg_scan scans one piece
   [from, from + len) of v from carry (NULL: fresh), on the calling thread (stream: a reversed
   contiguous piece of AXIS_STREAM_LINE_BYTES or more streams its stores; such pieces of
   AXIS_MIRROR_MIN elements or more run the flat kernels on mirrored blocks). */
enum { AXIS_MIRROR_MIN = 1024 };
void pscan__cpu_axis_seg_scan(const axis_plan *p, const seg_view *v, size_t from, size_t len,
                              const void *carry, bool stream);
pscan_status pscan__cpu_axis_segments(pscan_ctx *ctx, const axis_plan *p, const seg_view *v);
/* Lines side by side (axis_side.c). */
pscan_status pscan__cpu_axis_side(pscan_ctx *ctx, const axis_plan *p);

#endif /* PSCAN_CPU_AXIS_PLAN_H */
