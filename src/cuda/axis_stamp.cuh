/* Include-template: the axis kernels of one (PAIR_IN, PAIR_OUT, OP_E), on the operator of
 * scan_ops.cuh. Every kernel starts its running value from init or the internal identity (exact:
 * identity ⊕ x == x), and writes the API's identity where an exclusive line without init starts.
 * In place (out the same view as in), every element is read before it is written, by the thread
 * that writes it. */
#include "scan/scan_ops.cuh"

#define AX_THREADS PSCAN__AXIS_THREADS
#define AX_ITEMS 4
#define AX_SHORT_LINE 128

static __device__ __forceinline__ ACC_T NAME(ax_start)(const pscan__cuda_axis_params *p) {
  ACC_T v = NAME(identity)();
  if (p->has_init)
    memcpy(&v, &p->init, sizeof v);
  return v;
}

/* Element offsets of index idx over the batch dimensions [0, nd). */
static __device__ __forceinline__ void NAME(ax_decode)(const pscan__cuda_axis_params *p, int nd,
                                                       uint64_t idx, int64_t *io, int64_t *oo) {
  *io = 0, *oo = 0;
  for (int d = nd - 1; d >= 0; d--) {
    uint64_t len = (uint64_t)p->blen[d];
    int64_t i = (int64_t)(idx % len);
    idx /= len;
    *io += i * p->bis[d], *oo += i * p->bos[d];
  }
}

/* The kernels with one warp per line: the warp's lines in turn. */
#define AX_WARP_LINES(line)                                                                       \
  for (uint64_t line = (uint64_t)blockIdx.x * (AX_THREADS / 32) + threadIdx.x / 32;               \
       line < p.nlines; line += (uint64_t)gridDim.x * (AX_THREADS / 32))

/* A line's first input and output elements; returns the value its scan starts from. */
static __device__ __forceinline__ ACC_T NAME(ax_line_start)(const pscan__cuda_axis_params *p,
                                                           uint64_t line, const IN_T **in,
                                                           ACC_T **out) {
  int64_t io, oo;
  NAME(ax_decode)(p, p->nb, line, &io, &oo);
  *in = (const IN_T *)p->in + io;
  *out = (ACC_T *)p->out + oo;
  return NAME(ax_start)(p);
}

/* Lines up to AX_SHORT_LINE: one warp per line, 32 elements a step: a Kogge-Stone scan across the
   warp, the running value carried from lane 31 to the next step. (The four-group kernel is slower
   there: lines of 64 reached 33-45% of a copy with it, 56% with this one.) */
static __global__ void __launch_bounds__(AX_THREADS) NAME(ax_lines_kernel)(const pscan__cuda_axis_params p) {
  const unsigned lane = threadIdx.x & 31;
  AX_WARP_LINES(line) {
    const IN_T *in;
    ACC_T *out;
    ACC_T carry = NAME(ax_line_start)(&p, line, &in, &out);
    for (int64_t base = 0; base < p.len; base += 32) {
      const int64_t i = base + lane;
      const bool valid = i < p.len;
      ACC_T v = valid ? (ACC_T)in[i * p.si] : NAME(identity)();
      for (unsigned d = 1; d < 32; d <<= 1) {
        ACC_T y = NAME(shfl_up)(v, d);
        if (lane >= d)
          v = NAME(op)(y, v);
      }
      const ACC_T incl = NAME(op)(carry, v);
      if (p.exclusive) {
        ACC_T e = NAME(shfl_up)(incl, 1);
        if (lane == 0)
          e = base == 0 && !p.has_init ? NAME(api_identity)() : carry;
        if (valid)
          out[i * p.so] = e;
      } else if (valid) {
        out[i * p.so] = incl;
      }
      carry = NAME(shfl)(incl, 31);
    }
  }
}

/* Lines longer than AX_SHORT_LINE: one warp per line, AX_ITEMS x 32 elements a step: the step's
   loads are issued together (a lone warp is latency-bound: one 128-byte load in flight reached
   ~0.45 GB/s), then each group of 32 is scanned across the warp (Kogge-Stone) and chained through
   the running value of lane 31. */
static __global__ void __launch_bounds__(AX_THREADS) NAME(ax_lines4_kernel)(const pscan__cuda_axis_params p) {
  const unsigned lane = threadIdx.x & 31;
  AX_WARP_LINES(line) {
    const IN_T *in;
    ACC_T *out;
    ACC_T carry = NAME(ax_line_start)(&p, line, &in, &out);
    for (int64_t base = 0; base < p.len; base += 32 * AX_ITEMS) {
      /* groups of 32 in this step (the same for the whole warp; fewer at the end of a line) */
      const int64_t left = (p.len - base + 31) / 32;
      const int groups = left < AX_ITEMS ? (int)left : AX_ITEMS;
      ACC_T v[AX_ITEMS];
#pragma unroll
      for (int j = 0; j < AX_ITEMS; j++) {
        const int64_t i = base + j * 32 + lane;
        v[j] = j < groups && i < p.len ? (ACC_T)in[i * p.si] : NAME(identity)();
      }
#pragma unroll
      for (unsigned d = 1; d < 32; d <<= 1) {
#pragma unroll
        for (int j = 0; j < AX_ITEMS; j++) {
          if (j < groups) {
            ACC_T y = NAME(shfl_up)(v[j], d);
            if (lane >= d)
              v[j] = NAME(op)(y, v[j]);
          }
        }
      }
#pragma unroll
      for (int j = 0; j < AX_ITEMS; j++) {
        if (j >= groups)
          break;
        const int64_t i = base + j * 32 + lane;
        const bool valid = i < p.len;
        const ACC_T incl = NAME(op)(carry, v[j]);
        if (p.exclusive) {
          ACC_T e = NAME(shfl_up)(incl, 1);
          if (lane == 0)
            e = base == 0 && j == 0 && !p.has_init ? NAME(api_identity)() : carry;
          if (valid)
            out[i * p.so] = e;
        } else if (valid) {
          out[i * p.so] = incl;
        }
        carry = NAME(shfl)(incl, 31);
      }
    }
  }
}

/* The line (column) of thread c and its element offsets; false past the last. */
static __device__ __forceinline__ bool NAME(ax_column)(const pscan__cuda_axis_params *p,
                                                       uint64_t c, int64_t *io, int64_t *oo) {
  if (c >= p->nlines)
    return false;
  const int last = p->nb - 1;
  const uint64_t w = (uint64_t)p->blen[last];
  NAME(ax_decode)(p, last, c / w, io, oo);
  *io += (int64_t)(c % w) * p->bis[last];
  *oo += (int64_t)(c % w) * p->bos[last];
  return true;
}

/* Rows [r0, r1) of one column, four loads in flight at a time. */
static __device__ __forceinline__ ACC_T NAME(ax_fold)(const IN_T *in, int64_t si, int64_t r0,
                                                      int64_t r1, ACC_T acc) {
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    ACC_T x0 = (ACC_T)in[r * si], x1 = (ACC_T)in[(r + 1) * si];
    ACC_T x2 = (ACC_T)in[(r + 2) * si], x3 = (ACC_T)in[(r + 3) * si];
    acc = NAME(op)(NAME(op)(NAME(op)(NAME(op)(acc, x0), x1), x2), x3);
  }
  for (; r < r1; r++)
    acc = NAME(op)(acc, (ACC_T)in[r * si]);
  return acc;
}

/* Column c's chunk k in the side-by-side kernels: the column's element offsets and the chunk's
   rows [r0, r1); false past the last column. */
static __device__ __forceinline__ bool NAME(ax_side_chunk)(const pscan__cuda_axis_params *p,
                                                          uint64_t c, uint64_t k, int64_t *io,
                                                          int64_t *oo, int64_t *r0, int64_t *r1) {
  if (!NAME(ax_column)(p, c, io, oo))
    return false;
  *r0 = (int64_t)k * p->rows;
  *r1 = *r0 + p->rows < p->len ? *r0 + p->rows : p->len;
  return true;
}

static __global__ void __launch_bounds__(AX_THREADS) NAME(ax_side_reduce_kernel)(const pscan__cuda_axis_params p) {
  const uint64_t c = (uint64_t)blockIdx.x * AX_THREADS + threadIdx.x, k = blockIdx.y;
  int64_t io, oo, r0, r1;
  if (!NAME(ax_side_chunk)(&p, c, k, &io, &oo, &r0, &r1))
    return;
  const IN_T *in = (const IN_T *)p.in + io;
  ACC_T acc = NAME(ax_fold)(in, p.si, r0 + 1, r1, (ACC_T)in[r0 * p.si]);
  ((ACC_T *)p.agg)[k * p.nlines + c] = acc;
}

/* Per column: the chunks' reductions become their exclusive prefixes (init folded in). */
static __global__ void __launch_bounds__(AX_THREADS) NAME(ax_side_carry_kernel)(const pscan__cuda_axis_params p) {
  const uint64_t c = (uint64_t)blockIdx.x * AX_THREADS + threadIdx.x;
  if (c >= p.nlines)
    return;
  ACC_T *agg = (ACC_T *)p.agg;
  ACC_T run = NAME(ax_start)(&p);
  for (uint64_t k = 0; k < p.nchunks; k++) {
    ACC_T a = k + 1 < p.nchunks ? agg[k * p.nlines + c] : run; /* the last has no reduction */
    agg[k * p.nlines + c] = run;
    run = NAME(op)(run, a);
  }
}

static __global__ void __launch_bounds__(AX_THREADS) NAME(ax_side_scan_kernel)(const pscan__cuda_axis_params p) {
  const uint64_t c = (uint64_t)blockIdx.x * AX_THREADS + threadIdx.x, k = blockIdx.y;
  int64_t io, oo, r0, r1;
  if (!NAME(ax_side_chunk)(&p, c, k, &io, &oo, &r0, &r1))
    return;
  const IN_T *in = (const IN_T *)p.in + io;
  ACC_T *out = (ACC_T *)p.out + oo;
  ACC_T acc = p.nchunks > 1 ? ((const ACC_T *)p.agg)[k * p.nlines + c] : NAME(ax_start)(&p);
  int64_t r = r0;
  if (p.exclusive && k == 0 && !p.has_init && !p.carries) { /* the API's identity first */
    ACC_T x = (ACC_T)in[0];
    out[0] = NAME(api_identity)();
    acc = NAME(op)(acc, x);
    r = 1;
  }
  for (; r + 4 <= r1; r += 4) {
    ACC_T x[4];
    for (int u = 0; u < 4; u++)
      x[u] = (ACC_T)in[(r + u) * p.si];
    for (int u = 0; u < 4; u++) {
      ACC_T next = NAME(op)(acc, x[u]);
      out[(r + u) * p.so] = p.exclusive ? acc : next;
      acc = next;
    }
  }
  for (; r < r1; r++) {
    ACC_T x = (ACC_T)in[r * p.si], next = NAME(op)(acc, x);
    out[r * p.so] = p.exclusive ? acc : next;
    acc = next;
  }
}

/* Lines side by side in one pass: decoupled look-back (Merrill & Garland, NVR-2016-002) along
   the axis, per column. Tile t, taken in order from a counter, is chunk k = t / ncb (AX_LB_ROWS
   rows, held in registers) of column block cb = t % ncb (AX_THREADS columns, one per thread). It
   publishes its columns' reductions under one flag per tile (1: reductions, 2: inclusive
   prefixes), folds the earlier chunks of its column block back to the nearest inclusive prefix,
   publishes its own, and scans its rows from the prefix: 2n data movement plus two accumulators
   per column and chunk. A tile waits only on tiles taken before it, so every wait ends. */
#define AX_LB_ROWS PSCAN__AXIS_LB_ROWS(ACC_SIZE)

static __device__ __forceinline__ void NAME(ax_lb_publish)(unsigned *flag, unsigned v) {
  __threadfence(); /* this thread's accumulator before the flag */
  __syncthreads();
  if (threadIdx.x == 0)
    atomicExch(flag, v);
}

static __global__ void __launch_bounds__(AX_THREADS) NAME(ax_side_lb_kernel)(const pscan__cuda_axis_params p) {
  __shared__ unsigned long long tile_s;
  if (threadIdx.x == 0)
    tile_s = atomicAdd(p.lb_counter, 1ull);
  __syncthreads();
  const uint64_t ncb = (p.nlines + AX_THREADS - 1) / AX_THREADS, t = tile_s;
  const uint64_t k = t / ncb, cb = t % ncb, c = cb * AX_THREADS + threadIdx.x;
  int64_t io = 0, oo = 0;
  const bool live = NAME(ax_column)(&p, c, &io, &oo);
  const int64_t r0 = (int64_t)k * AX_LB_ROWS;
  const int rows = p.len - r0 < AX_LB_ROWS ? (int)(p.len - r0) : AX_LB_ROWS;
  const IN_T *in = (const IN_T *)p.in + io;
  ACC_T x[AX_LB_ROWS], agg = NAME(identity)();
  if (live) {
#pragma unroll
    for (int r = 0; r < AX_LB_ROWS; r++)
      if (r < rows)
        x[r] = (ACC_T)in[(r0 + r) * p.si];
#pragma unroll
    for (int r = 0; r < AX_LB_ROWS; r++)
      if (r < rows)
        agg = NAME(op)(agg, x[r]);
  }
  ACC_T *aggs = (ACC_T *)p.agg, *incls = aggs + p.nchunks * p.nlines;
  ACC_T prefix = NAME(ax_start)(&p);
  if (k > 0) {
    if (live)
      aggs[k * p.nlines + c] = agg;
    NAME(ax_lb_publish)(p.lb_flags + k * ncb + cb, 1);
    ACC_T back = NAME(identity)(); /* the chunks passed so far, farther ones on the left */
    for (uint64_t j = k - 1;; j--) {
      unsigned f, ns = PSCAN__BACKOFF_FIRST_NS;
      while ((f = *(volatile unsigned *)(p.lb_flags + j * ncb + cb)) == 0)
        pscan__backoff(&ns);
      __threadfence();
      const ACC_T *from = f == 2 ? incls : aggs;
      if (live)
        back = NAME(op)(*(volatile const ACC_T *)(from + j * p.nlines + c), back);
      if (f == 2)
        break;
    }
    prefix = back; /* an inclusive prefix already holds init */
  }
  if (live)
    incls[k * p.nlines + c] = NAME(op)(prefix, agg);
  NAME(ax_lb_publish)(p.lb_flags + k * ncb + cb, 2);
  if (!live)
    return;
  ACC_T *out = (ACC_T *)p.out + oo;
  ACC_T acc = prefix;
#pragma unroll
  for (int r = 0; r < AX_LB_ROWS; r++) {
    if (r < rows) {
      const ACC_T next = NAME(op)(acc, x[r]);
      ACC_T v = p.exclusive ? acc : next;
      if (p.exclusive && k == 0 && r == 0 && !p.has_init)
        v = NAME(api_identity)();
      out[(r0 + r) * p.so] = v;
      acc = next;
    }
  }
}

static int NAME(ax_launch_lines)(const pscan__cuda_axis_params *p, unsigned grid, void *stream) {
  if (p->len > AX_SHORT_LINE)
    NAME(ax_lines4_kernel)<<<grid, AX_THREADS, 0, (cudaStream_t)stream>>>(*p);
  else
    NAME(ax_lines_kernel)<<<grid, AX_THREADS, 0, (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}

static dim3 NAME(ax_side_grid)(const pscan__cuda_axis_params *p, uint64_t chunks) {
  return dim3((unsigned)((p->nlines + AX_THREADS - 1) / AX_THREADS), (unsigned)chunks, 1);
}

static int NAME(ax_launch_side_reduce)(const pscan__cuda_axis_params *p, void *stream) {
  /* the last chunk's reduction is needed only by a scan of the carries */
  NAME(ax_side_reduce_kernel)<<<NAME(ax_side_grid)(p, p->nchunks - !p->reduce_last), AX_THREADS, 0,
                                (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}
static int NAME(ax_launch_side_carry)(const pscan__cuda_axis_params *p, void *stream) {
  NAME(ax_side_carry_kernel)<<<NAME(ax_side_grid)(p, 1), AX_THREADS, 0, (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}
/* Zeroes the counter and flags (p->lb_counter, then p->lb_flags) first. */
static int NAME(ax_launch_side_lb)(const pscan__cuda_axis_params *p, void *stream) {
  const uint64_t ncb = (p->nlines + AX_THREADS - 1) / AX_THREADS;
  int e = (int)cudaMemsetAsync(p->lb_counter, 0, 8 + p->nchunks * ncb * sizeof(unsigned),
                               (cudaStream_t)stream);
  if (e)
    return e;
  NAME(ax_side_lb_kernel)<<<(unsigned)(p->nchunks * ncb), AX_THREADS, 0, (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}
static int NAME(ax_launch_side_scan)(const pscan__cuda_axis_params *p, void *stream) {
  NAME(ax_side_scan_kernel)<<<NAME(ax_side_grid)(p, p->nchunks), AX_THREADS, 0,
                              (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}

#include "axis_rows.cuh"
#include "axis_strips.cuh"

#undef AX_WARP_LINES
#undef AX_THREADS
#undef AX_ITEMS
#undef AX_SHORT_LINE
#undef AX_LB_ROWS
#include "scan/scan_ops_end.cuh"
