/* A user operator's scans along an axis (NVRTC only; user_kernels.cuh includes this when the
 * program is the axis program, PSCAN_USER_AXIS). Four kernels over the normalised views of
 * user_axis.h, every line cut into nchunks chunks along the axis (nchunks == 1: one pass):
 *  - lines: one warp per (line, chunk), any strides. The warp walks its chunk from the start,
 *    loading PA_GROUPS groups of 32 elements (lane i takes element i of a group: contiguous
 *    lines load coalesced) before it scans them, each group by a Kogge-Stone warp scan
 *    (log2(32) shuffles and combines), the running carry in front;
 *  - side: one thread per (line, chunk), for lines side by side (the innermost batch dimension
 *    closer in memory than the axis): neighbouring threads take neighbouring lines, so each row
 *    of a warp's loads coalesces; the thread walks its chunk serially, the carry in registers.
 * With several chunks, the reduce kernels write each chunk's combination (the last chunk's is
 * not needed) to agg, the host turns them into inclusive prefixes with one more lines or side
 * pass over agg, and the scan kernels start each chunk from its prefix: ~3n data movement, but
 * parallel enough for a few long lines. Reverse scans arrive as negative axis strides
 * (axis_norm.c). The operator need not be commutative: every combination keeps the order of the
 * line, the earlier value on the left. Elements move as units of p->unit bytes (the largest
 * power of two up to 16 dividing every address), so any alignment the caller gives is served. */
#ifndef PSCAN_JIT_USER_AXIS_CUH
#define PSCAN_JIT_USER_AXIS_CUH

#include "user_axis.h"

enum {
  PA_SIZE = (int)sizeof(pscan_user_t),
  PA_WORDS = (PA_SIZE + 3) / 4,
  /* groups of 32 elements a warp has in flight; elements a side thread loads ahead */
  PA_GROUPS = PA_SIZE <= 16 ? 4 : PA_SIZE <= 32 ? 2 : 1,
  PA_AHEAD = PA_SIZE <= 16 ? 4 : PA_SIZE <= 32 ? 2 : 1,
  PA_WARPS = PSCAN__UA_THREADS / 32
};
static_assert((int)PA_SIZE <= (int)PSCAN__UA_MAX_ELEM, "user_axis.cuh: element larger than the params' init");

typedef pscan__user_axis_params pa_params;

/* ---- moving elements: units of u bytes (u divides the size and every address) ---- */

#define PA_LOAD_UNITS(U, T)                                                    \
  if (PA_SIZE % (U) == 0 && u >= (U)) {                                        \
    T w[(PA_SIZE + (U) - 1) / (U)];                                            \
    _Pragma("unroll") for (int k = 0; k < (PA_SIZE + (U) - 1) / (U); k++)      \
        w[k] = ((const T *)p)[k];                                              \
    memcpy(&v, w, PA_SIZE);                                                    \
    return v;                                                                  \
  }
static __device__ __forceinline__ pscan_user_t pa_load(const unsigned char *p, unsigned u) {
  pscan_user_t v;
  PA_LOAD_UNITS(16, uint4)
  PA_LOAD_UNITS(8, uint2)
  PA_LOAD_UNITS(4, unsigned)
  PA_LOAD_UNITS(2, unsigned short)
  memcpy(&v, p, PA_SIZE);
  return v;
}
#undef PA_LOAD_UNITS

#define PA_STORE_UNITS(U, T)                                                   \
  if (PA_SIZE % (U) == 0 && u >= (U)) {                                        \
    T w[(PA_SIZE + (U) - 1) / (U)];                                            \
    memcpy(w, &v, PA_SIZE);                                                    \
    _Pragma("unroll") for (int k = 0; k < (PA_SIZE + (U) - 1) / (U); k++)      \
        ((T *)p)[k] = w[k];                                                    \
    return;                                                                    \
  }
static __device__ __forceinline__ void pa_store(unsigned char *p, pscan_user_t v, unsigned u) {
  PA_STORE_UNITS(16, uint4)
  PA_STORE_UNITS(8, uint2)
  PA_STORE_UNITS(4, unsigned)
  PA_STORE_UNITS(2, unsigned short)
  memcpy(p, &v, PA_SIZE);
}
#undef PA_STORE_UNITS

/* ---- the warp scan ---- */

/* pa_shfl_up(v, d): v of lane - d; pa_shfl(v, lane): v of that lane; the element moves as
   32-bit words, one shuffle each. */
#define PA_SHUFFLE(NAME, SHFL)                                                      \
  static __device__ __forceinline__ pscan_user_t NAME(pscan_user_t v, unsigned x) { \
    unsigned w[PA_WORDS];                                                           \
    w[PA_WORDS - 1] = 0;                                                            \
    memcpy(w, &v, PA_SIZE);                                                         \
    _Pragma("unroll") for (int i = 0; i < PA_WORDS; i++)                            \
        w[i] = SHFL(PSCAN__FULL_MASK, w[i], x);                                     \
    memcpy(&v, w, PA_SIZE);                                                         \
    return v;                                                                       \
  }
PA_SHUFFLE(pa_shfl_up, __shfl_up_sync)
PA_SHUFFLE(pa_shfl, __shfl_sync)
#undef PA_SHUFFLE

/* Inclusive scan across the warp (Kogge-Stone); lane i gets x[0] + ... + x[i]. */
static __device__ __forceinline__ pscan_user_t pa_warp_scan(pscan_user_t x, unsigned lane) {
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const pscan_user_t y = pa_shfl_up(x, d);
    if (lane >= d)
      x = pscan_user_combine(y, x);
  }
  return x;
}

/* ---- lines and chunks ---- */

/* Element offsets of line l's first element in in and out. */
static __device__ __forceinline__ void pa_line(const pa_params *p, unsigned long long l,
                                               long long *io, long long *oo) {
  long long a = 0, b = 0;
  for (int d = p->nb - 1; d >= 0; d--) {
    const unsigned long long len = (unsigned long long)p->blen[d];
    const long long i = (long long)(l % len);
    l /= len;
    a += i * p->bis[d];
    b += i * p->bos[d];
  }
  *io = a;
  *oo = b;
}

/* The carry into chunk c of line l: init, then agg's inclusive prefix of the chunks before c.
   false: none (an inclusive scan without init, chunk 0). */
static __device__ __forceinline__ bool pa_carry_in(const pa_params *p, unsigned long long c,
                                                   unsigned long long l, pscan_user_t *carry) {
  bool has = p->has_init != 0;
  if (has)
    memcpy(carry, p->init, PA_SIZE);
  if (c > 0) {
    const unsigned long long at = ((c - 1) * p->nlines + l) * (unsigned long long)PA_SIZE;
    const pscan_user_t prev = pa_load((const unsigned char *)p->agg + at, p->unit);
    *carry = has ? pscan_user_combine(*carry, prev) : prev;
    has = true;
  }
  return has;
}

static __device__ __forceinline__ void pa_chunk(const pa_params *p, unsigned long long c,
                                                long long *start, long long *end) {
  *start = (long long)c * p->rows;
  const long long e = *start + p->rows;
  *end = e < p->len ? e : p->len;
}

/* A (line, chunk) work item of the lines and side kernels: line l's first element in in and out
   (io, oo) and chunk c's rows [start, end). */
typedef struct pa_work {
  unsigned long long l, c;
  long long io, oo, start, end;
} pa_work;

/* Work item `it`: line it % nlines, chunk it / nlines, and the carry into the chunk (*has:
   whether there is one; a reduction starts without). false: nothing to do (a reduction skips
   each line's last chunk, whose combination no later chunk needs). */
static __device__ __forceinline__ bool pa_work_at(const pa_params *p, unsigned long long it,
                                                  const bool reduce, pa_work *w,
                                                  pscan_user_t *carry, bool *has) {
  w->l = it % p->nlines;
  w->c = it / p->nlines;
  if (reduce && w->c + 1 == p->nchunks)
    return false;
  pa_line(p, w->l, &w->io, &w->oo);
  pa_chunk(p, w->c, &w->start, &w->end);
  memset(carry, 0, sizeof *carry);
  *has = reduce ? false : pa_carry_in(p, w->c, w->l, carry);
  return true;
}

/* A reduction's result for work item w: the chunk's combination, to agg. */
static __device__ __forceinline__ void pa_store_agg(const pa_params *p, const pa_work *w,
                                                    pscan_user_t total, unsigned u) {
  pa_store((unsigned char *)p->agg + (w->c * p->nlines + w->l) * (unsigned long long)PA_SIZE,
           total, u);
}

/* One warp per (line, chunk). reduce: only the chunk's combination, to agg. */
static __device__ __forceinline__ void pa_lines(const pa_params *p, const bool reduce) {
  const unsigned lane = threadIdx.x & 31, u = p->unit;
  const unsigned long long items = p->nlines * p->nchunks,
                           step = (unsigned long long)gridDim.x * PA_WARPS;
  const unsigned char *in = (const unsigned char *)p->in;
  unsigned char *out = (unsigned char *)p->out;
  for (unsigned long long it = (unsigned long long)blockIdx.x * PA_WARPS + threadIdx.x / 32;
       it < items; it += step) {
    pa_work w;
    pscan_user_t carry;
    bool has;
    if (!pa_work_at(p, it, reduce, &w, &carry, &has))
      continue;
    const long long io = w.io, oo = w.oo, end = w.end;
    for (long long k = w.start; k < end; k += 32 * PA_GROUPS) {
      pscan_user_t x[PA_GROUPS];
#pragma unroll
      for (int g = 0; g < PA_GROUPS; g++) {
        long long i = k + g * 32 + lane;
        i = i < end ? i : end - 1; /* lanes past the end hold a real element, never used */
        x[g] = pa_load(in + (io + i * p->si) * PA_SIZE, u);
      }
#pragma unroll
      for (int g = 0; g < PA_GROUPS; g++) {
        const long long first = k + g * 32;
        if (first >= end)
          break;
        const unsigned valid = end - first < 32 ? (unsigned)(end - first) : 32u;
        const pscan_user_t r = pa_warp_scan(x[g], lane);
        const pscan_user_t total = pa_shfl(r, valid - 1);
        if (!reduce) {
          pscan_user_t y;
          if (p->exclusive) { /* has: the host gives exclusive scans an init */
            const pscan_user_t before = pa_shfl_up(r, 1);
            y = lane == 0 ? carry : pscan_user_combine(carry, before);
          } else {
            y = has ? pscan_user_combine(carry, r) : r;
          }
          if (lane < valid)
            pa_store(out + (oo + (first + lane) * p->so) * PA_SIZE, y, u);
        }
        carry = has ? pscan_user_combine(carry, total) : total;
        has = true;
      }
    }
    if (reduce && lane == 0)
      pa_store_agg(p, &w, carry, u);
  }
}

/* One thread per (line, chunk), neighbouring threads on neighbouring lines. */
static __device__ __forceinline__ void pa_side(const pa_params *p, const bool reduce) {
  const unsigned u = p->unit;
  const unsigned long long items = p->nlines * p->nchunks,
                           step = (unsigned long long)gridDim.x * PSCAN__UA_THREADS;
  for (unsigned long long it = (unsigned long long)blockIdx.x * PSCAN__UA_THREADS + threadIdx.x;
       it < items; it += step) {
    pa_work w;
    pscan_user_t carry;
    bool has;
    if (!pa_work_at(p, it, reduce, &w, &carry, &has))
      continue;
    const unsigned char *src = (const unsigned char *)p->in + w.io * PA_SIZE;
    unsigned char *dst = (unsigned char *)p->out + w.oo * PA_SIZE;
    const long long end = w.end;
    for (long long k = w.start; k < end; k += PA_AHEAD) {
      pscan_user_t x[PA_AHEAD];
#pragma unroll
      for (int j = 0; j < PA_AHEAD; j++) {
        const long long i = k + j < end ? k + j : end - 1;
        x[j] = pa_load(src + i * p->si * PA_SIZE, u);
      }
#pragma unroll
      for (int j = 0; j < PA_AHEAD; j++) {
        if (k + j >= end)
          break;
        const pscan_user_t y = has ? pscan_user_combine(carry, x[j]) : x[j];
        if (!reduce)
          pa_store(dst + (k + j) * p->so * PA_SIZE, p->exclusive ? carry : y, u);
        carry = y;
        has = true;
      }
    }
    if (reduce)
      pa_store_agg(p, &w, carry, u);
  }
}

/* The kernels jit_axis.c looks up: pscan_user_axis_<lines|side>_<scan|reduce>. */
#define PA_KERNEL(layout, kind, reduce)                                                           \
  extern "C" __global__ void __launch_bounds__(PSCAN__UA_THREADS)                                 \
      pscan_user_axis_##layout##_##kind(const pa_params p) {                                      \
    pa_##layout(&p, reduce);                                                                      \
  }
PA_KERNEL(lines, scan, false)
PA_KERNEL(lines, reduce, true)
PA_KERNEL(side, scan, false)
PA_KERNEL(side, reduce, true)
#undef PA_KERNEL

#endif /* PSCAN_JIT_USER_AXIS_CUH */
