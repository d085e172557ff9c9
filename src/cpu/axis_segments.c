/* The CPU segment engine (see axis.c): one 1-D view cut into equal chunks by element count,
 * whatever the segments; a first pass reduces the tail piece of each chunk whose last segment
 * runs into the next chunk, the carries are chained on one thread, and a second pass scans
 * every piece of every chunk (in a contiguous forward view, a chunk whose segments average
 * AXIS_SHORT_SEGMENT elements or fewer in one call of the segs kernel of axis_body.h, or of its
 * segs_tiny kernel at AXIS_TINY_SEGMENT or fewer, else one call a piece). Reverse segmented
 * scans mirror the offsets on the fly. The API leaves the offsets' order to this engine, which
 * checks it on every thread before it writes. */
#include "axis_plan.h"
#include "compact_simd.h"

#include <stdlib.h>
#include <string.h>

/* A cursor on the segment holding view position pos: [start, end) in view positions. */
typedef struct seg_cursor {
  size_t s; /* index into offsets */
  size_t start, end;
} seg_cursor;

static void cursor_set(const seg_view *v, size_t s, seg_cursor *cur) {
  cur->s = s;
  if (!v->offsets) {
    cur->start = 0, cur->end = v->n;
  } else if (!v->mirrored) {
    cur->start = (size_t)v->offsets[s], cur->end = (size_t)v->offsets[s + 1];
  } else {
    cur->start = v->n - (size_t)v->offsets[s + 1], cur->end = v->n - (size_t)v->offsets[s];
  }
}

/* The segment holding pos (< n): the last s with offsets[s] <= q, where q is pos's position in
   the offsets' order; the segment after it is never empty. */
static void cursor_find(const seg_view *v, size_t pos, seg_cursor *cur) {
  if (!v->offsets) {
    cursor_set(v, 0, cur);
    return;
  }
  int64_t q = (int64_t)(v->mirrored ? v->n - 1 - pos : pos);
  size_t lo = 0, hi = v->nseg; /* offsets[lo] <= q < offsets[hi] */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->offsets[mid] <= q)
      lo = mid;
    else
      hi = mid;
  }
  cursor_set(v, lo, cur);
}

/* Steps the cursor to the segment holding pos (< n), pos being the end of the current one. */
static void cursor_next(const seg_view *v, size_t pos, seg_cursor *cur) {
  size_t s = cur->s;
  if (!v->mirrored) {
    while ((size_t)v->offsets[s + 1] <= pos)
      s++;
  } else {
    int64_t q = (int64_t)(v->n - 1 - pos);
    while (v->offsets[s] > q)
      s--;
  }
  cursor_set(v, s, cur);
}

typedef struct seg_job {
  const axis_plan *p;
  seg_view v;
  /* Short segments summed inclusively with no init and no widening, where the CPU has AVX-512:
     the by-key operations' segmented sum (compact_simd.h), else NULL; stream: its stores. */
  pscan__cpu_seg_sum_fn simd_sum;
  bool stream;
  size_t chunk, nchunks;
  /* Per chunk: its tail's state (TAIL_*), its tail reduction, and the carry into its first
     piece (valid where the chunk starts inside a segment). */
  unsigned char *tail;
  char *agg, *carry;
} seg_job;

enum { TAIL_CLOSED, TAIL_STARTS, TAIL_CONTINUES };

/* A reversed contiguous piece reduces forward over its memory: the built-in operators commute
   (the CPU's custom operators never reach the axis engines; mirror.c does the same). */
static void seg_reduce(const axis_plan *p, const seg_view *v, size_t from, size_t len, void *acc) {
  const char *src = at_in(p, v->in, (int64_t)from * v->is);
  if (v->is == 1)
    p->flat->reduce(p->flat, src, len, acc);
  else if (v->is == -1)
    p->flat->reduce(p->flat, src - (len - 1) * p->in_size, len, acc);
  else
    p->k->line_reduce(src, (ptrdiff_t)v->is, len, acc);
}

void pscan__cpu_axis_seg_scan(const axis_plan *p, const seg_view *v, size_t from, size_t len,
                              const void *carry, bool stream) {
  const char *src = at_in(p, v->in, (int64_t)from * v->is);
  char *dst = at_out(p, v->out, (int64_t)from * v->os);
  pscan__cpu_mirror m;
  if (v->is == 1 && v->os == 1) {
    _Alignas(64) unsigned char scratch[128];
    pscan__cpu_scan(p->flat, p->c->exclusive, false, src, dst, len, carry, scratch, NULL);
  } else if (v->is == -1 && (v->os == -1 || v->os == 1) && len >= AXIS_MIRROR_MIN &&
             pscan__cpu_mirror_op(&m, p->flat)) { /* the flat kernels on mirrored blocks */
    _Alignas(64) unsigned char scratch[128];
    m.out_forward = v->os == 1; /* (a reversed view into a forward output) */
    pscan__cpu_scan(&m.op, p->c->exclusive, stream && len * p->acc_size >= AXIS_STREAM_LINE_BYTES,
                    src, dst, len, carry, scratch, NULL);
  } else {
    p->k->line(src, (ptrdiff_t)v->is, dst, (ptrdiff_t)v->os, len, carry, p->c->exclusive);
  }
}

static void seg_tail_task(void *arg, int tid, int nthreads) {
  seg_job *j = arg;
  const axis_plan *p = j->p;
  for (size_t ch = (size_t)tid; ch + 1 < j->nchunks; ch += (size_t)nthreads) {
    size_t cs = ch * j->chunk, ce = cs + j->chunk;
    seg_cursor cur;
    cursor_find(&j->v, ce - 1, &cur);
    if (cur.end == ce) {
      j->tail[ch] = TAIL_CLOSED;
      continue;
    }
    size_t from = cur.start > cs ? cur.start : cs;
    j->tail[ch] = cur.start >= cs ? TAIL_STARTS : TAIL_CONTINUES;
    seg_reduce(p, &j->v, from, ce - from, j->agg + ch * p->acc_size);
  }
}

/* The carry into chunk ch + 1 from chunk ch's tail, in chunk order. */
static void seg_chain(seg_job *j) {
  const axis_plan *p = j->p;
  const void *init = p->c->init;
  for (size_t ch = 0; ch + 1 < j->nchunks; ch++) {
    char *agg = j->agg + ch * p->acc_size, *next = j->carry + (ch + 1) * p->acc_size;
    if (j->tail[ch] == TAIL_CLOSED)
      continue;
    const void *left = j->tail[ch] == TAIL_STARTS ? init : j->carry + ch * p->acc_size;
    if (left)
      p->flat->combine(p->flat, next, left, agg);
    else
      memcpy(next, agg, p->acc_size);
  }
}

/* Positions [pos, end) of a forward contiguous view, segment s holding pos, by simd_sum a block
   of SIMD_SEG_BLOCK items at a time: the block's segment starts set in a bit array (empty
   segments set the same bit again), the sum carried from block to block (carry: into the first
   segment, when it began before pos). */
enum { SIMD_SEG_BLOCK = 4096 };
static void simd_segs(const seg_job *j, size_t pos, size_t end, size_t s, const void *carry) {
  const size_t elem = j->p->acc_size;
  const int64_t *off = j->v.offsets;
  uint64_t bits[SIMD_SEG_BLOCK / 64 + 1], sums[2];
  while ((size_t)off[s] < pos) /* the segment holding pos began at or before it */
    s++;
  for (size_t b0 = pos, k = 0; b0 < end; b0 += SIMD_SEG_BLOCK, k ^= 1) {
    size_t len = end - b0 < SIMD_SEG_BLOCK ? end - b0 : SIMD_SEG_BLOCK;
    memset(bits, 0, sizeof bits);
    for (; (size_t)off[s] < b0 + len; s++) { /* offsets[num_segments] = n >= end stops it */
      size_t i = (size_t)off[s] - b0;
      bits[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    j->simd_sum(j->v.in + b0 * elem, len, bits, carry, NULL, j->v.out + b0 * elem, j->stream,
                &sums[k]);
    carry = &sums[k]; /* (the other slot: the kernel reads carry before it writes its last) */
  }
}

static void seg_scan_task(void *arg, int tid, int nthreads) {
  seg_job *j = arg;
  const axis_plan *p = j->p;
  /* contiguous forward segments: a chunk of short ones in one kernel call */
  bool short_runs = j->v.offsets && !j->v.mirrored && j->v.is == 1 && j->v.os == 1;
  for (size_t ch = (size_t)tid; ch < j->nchunks; ch += (size_t)nthreads) {
    size_t cs = ch * j->chunk, ce = cs + j->chunk < j->v.n ? cs + j->chunk : j->v.n;
    seg_cursor cur, last;
    cursor_find(&j->v, cs, &cur);
    if (short_runs) { /* segments of AXIS_SHORT_SEGMENT elements or fewer on average */
      cursor_find(&j->v, ce - 1, &last);
      size_t segs = last.s - cur.s + 1;
      if (segs * (j->simd_sum ? AXIS_SIMD_SEGMENT : AXIS_SHORT_SEGMENT) >= ce - cs) {
        const void *carry = cur.start < cs ? j->carry + ch * p->acc_size : NULL;
        if (j->simd_sum)
          simd_segs(j, cs, ce, cur.s, carry);
        else
          (segs * AXIS_TINY_SEGMENT >= ce - cs ? p->k->segs_tiny : p->k->segs)(
              j->v.in, j->v.out, cs, ce, j->v.offsets, cur.s, carry, p->c->init,
              p->c->exclusive);
        continue;
      }
    }
    for (size_t pos = cs; pos < ce;) {
      size_t end = cur.end < ce ? cur.end : ce;
      const void *carry = cur.start < pos ? j->carry + ch * p->acc_size : p->c->init;
      pscan__cpu_axis_seg_scan(p, &j->v, pos, end - pos, carry, j->stream);
      pos = end;
      if (pos < ce)
        cursor_next(&j->v, pos, &cur);
    }
  }
  if (j->stream)
    pscan__cpu_stream_fence(); /* this thread's streamed stores, before the pool's join */
}

/* The offsets' order (offsets[s] <= offsets[s + 1]), checked by every thread on a slice: the
   API leaves it to the backend, where reading 8 bytes a segment on one thread took longer than
   the scan of short segments itself. Each thread keeps the first decrease of its slice. */
typedef struct order_job {
  const int64_t *off;
  size_t nseg;
  _Atomic size_t first_bad; /* the first s that decreases (the least over the threads), or nseg */
} order_job;

static size_t first_decrease(const int64_t *off, size_t from, size_t to) {
  for (size_t s = from; s < to; s += 1024) { /* a branch-free sweep, then the exact place */
    size_t e = s + 1024 < to ? s + 1024 : to;
    int bad = 0;
    for (size_t i = s; i < e; i++)
      bad |= off[i + 1] < off[i];
    if (bad)
      for (size_t i = s; i < e; i++)
        if (off[i + 1] < off[i])
          return i;
  }
  return to;
}

static void order_task(void *arg, int tid, int nthreads) {
  order_job *o = arg;
  size_t per = (o->nseg + (size_t)nthreads - 1) / (size_t)nthreads;
  size_t from = (size_t)tid * per < o->nseg ? (size_t)tid * per : o->nseg;
  size_t to = from + per < o->nseg ? from + per : o->nseg;
  size_t bad = first_decrease(o->off, from, to);
  if (bad == to)
    return;
  size_t seen = atomic_load_explicit(&o->first_bad, memory_order_relaxed);
  while (bad < seen &&
         !atomic_compare_exchange_weak_explicit(&o->first_bad, &seen, bad, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

static pscan_status check_order(pscan_ctx *ctx, pscan__pool *pool, int threads, const int64_t *off,
                                size_t nseg) {
  order_job o = {.off = off, .nseg = nseg};
  atomic_init(&o.first_bad, nseg);
  pscan__pool_run(pool, order_task, &o, threads);
  size_t bad = atomic_load_explicit(&o.first_bad, memory_order_relaxed);
  if (bad < nseg)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "pscan_segmented_scan: offsets decrease at segment %zu (%lld after %lld)",
                       bad, (long long)off[bad + 1], (long long)off[bad]);
  return PSCAN_OK;
}

pscan_status pscan__cpu_axis_segments(pscan_ctx *ctx, const axis_plan *p, const seg_view *v) {
  seg_job j = {.p = p, .v = *v};
  size_t want = p->fixed ? (v->n - 1) / AXIS_FIXED_CHUNK + 1 : (size_t)threads_for(p, v->n, v->n);
  j.chunk = (v->n - 1) / want + 1;
  if (p->fixed)
    j.chunk = AXIS_FIXED_CHUNK;
  j.nchunks = (v->n - 1) / j.chunk + 1;
  int threads = threads_for(p, v->n, j.nchunks);
  size_t acc = p->acc_size, align = 64;
  size_t tail_bytes = (j.nchunks + align - 1) / align * align;
  char *scratch;
  PSCAN__CHECK(pscan__cpu_scratch(ctx, tail_bytes + 2 * j.nchunks * acc, &scratch));
  j.tail = (unsigned char *)scratch;
  j.agg = scratch + tail_bytes;
  j.carry = j.agg + j.nchunks * acc;
  pscan__pool *pool = NULL;
  int check_threads = v->offsets ? threads_for(p, v->nseg, v->nseg) : 1;
  if (threads > 1 || check_threads > 1)
    PSCAN__CHECK(pscan__cpu_pool(ctx, &pool));
  if (v->offsets)
    PSCAN__CHECK(check_order(ctx, pool, check_threads, v->offsets, v->nseg));
  if (j.nchunks > 1) {
    pscan__pool_run(pool, seg_tail_task, &j, threads);
    seg_chain(&j);
  }
  const pscan__axis_call *c = p->c;
  if (v->offsets && !v->mirrored && v->is == 1 && v->os == 1 && c->in_type == c->out_type &&
      c->op == PSCAN_SUM && !c->exclusive && !c->init && pscan__cpu_avx512_allowed()) {
    j.simd_sum = pscan__cpu_avx512_seg_sum(c->out_type, PSCAN_SUM);
    j.stream = pscan__cpu_stream_output(v->n * p->acc_size);
  }
  else if (v->is == -1 && v->os == -1) /* reversed and contiguous: mirrored blocks */
    j.stream = pscan__cpu_stream_output(v->n * p->acc_size);
  pscan__pool_run(pool, seg_scan_task, &j, threads);
  return PSCAN_OK;
}
