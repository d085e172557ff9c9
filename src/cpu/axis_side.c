/* The CPU engine for lines side by side (see axis.c): rows walked along the axis carrying a
 * vector of running values. */
#define _POSIX_C_SOURCE 200809L
#include "axis_plan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Lines side by side ----
 * Work units are (outer slice, chunk of columns), each scanned in one pass by one thread. When
 * the units are fewer than twice the threads, the columns are first cut narrower (down to
 * AXIS_SIDE_MIN_BYTES a row); when that is not enough, each unit's rows are also cut into chunks
 * of about AXIS_CHUNK_BYTES of input (a size that stays in a core's L2 cache), scanned in one pass
 * with a look-back along the axis (~2n data movement):
 *  - threads claim chunks in order from one counter (all of a unit's chunks, then the next
 *    unit's); a chunk's column totals are reduced from memory and published (state A);
 *  - its carry (exclusive prefix) is then found by walking back over its unit's earlier chunks
 *    to the nearest published prefix (state P) and folding forward from there:
 *    E_r = P_j ⊕ T_{j+1} ⊕ ... ⊕ T_{r-1}; P_r = E_r ⊕ T_r is published before the chunk is
 *    rescanned from E_r (its input still in cache);
 *  - a predecessor that has not published its totals after about twice this thread's own
 *    reduction time is not waited for: the waiter reduces that chunk itself. So a thread that
 *    is descheduled while it holds a chunk (threads sharing cores) delays only its own chunk,
 *    never the chain (a chain that waited, tried before, ran up to 100x slower on shared cores).
 *    In place the waiter never reduces a predecessor's chunk (its owner may be overwriting that
 *    input: a data race): it waits for the owner's totals, published before the owner's scan
 *    (totals_of).
 * Every prefix is the left fold init ⊕ T_0 ⊕ T_1 ⊕ ... of whole-chunk totals, whichever thread
 * computed which piece, and a chunk's totals are the same bits whoever reduces it; the chunk
 * length depends on the shape and types alone, so with DETERMINISTIC (where this chunked scan is
 * used for any thread count, one included) the order of combination is fixed.
 * PSCAN_CPU_AXIS_TAKEOVER=1 (a test knob, not a performance one) makes every look-back out of
 * place reduce its predecessors itself rather than wait for or read their totals, so that the
 * tests reach the take-over path on every chunk. */

enum { CHUNK_X = 0, CHUNK_A = 1, CHUNK_P = 2 }; /* nothing yet; totals; prefix */

typedef struct side_job {
  const axis_plan *p;
  const axis_dim *inner; /* the dimension across the lines */
  int nouter;            /* batch dimensions outside it: p->b[0..nouter) */
  size_t cols;           /* columns per unit */
  size_t ncols, units;   /* column chunks per outer slice; outer slices x column chunks */
  size_t rows, nrows;    /* rows per row chunk; row chunks per unit */
  size_t vec;            /* bytes of one vector of cols accumulators, 64-byte multiple */
  char *desc;            /* units x nrows chunks: status line, totals, prefix */
  size_t desc_stride;
  char *thread_bufs;     /* per thread: carry, spare vector */
  size_t thread_stride;
  char *init_vec;        /* cols copies of init (init set only) */
  int stream;            /* non-temporal stores for the output */
  bool oversubscribed;   /* more threads than cores: waits may sleep */
  bool take_over;        /* PSCAN_CPU_AXIS_TAKEOVER=1: never use a predecessor's totals */
  bool in_place;         /* out is in: a chunk's scan overwrites its input */
  _Atomic size_t next;
} side_job;

typedef struct side_unit {
  const char *in;
  char *out;
  size_t w;
} side_unit;

static side_unit unit_at(const side_job *j, size_t u) {
  const axis_plan *p = j->p;
  int64_t io, oo;
  decode(p->b, j->nouter, u / j->ncols, &io, &oo);
  size_t col = u % j->ncols * j->cols, left = (size_t)j->inner->len - col;
  io += (int64_t)col * j->inner->is, oo += (int64_t)col * j->inner->os;
  side_unit s = {at_in(p, p->in, io), at_out(p, p->out, oo), left < j->cols ? left : j->cols};
  return s;
}

static size_t chunk_rows(const side_job *j, size_t r) {
  size_t left = (size_t)j->p->len - r * j->rows;
  return left < j->rows ? left : j->rows;
}

/* Chunk g (= unit * nrows + row chunk): its status word, totals and prefix. */
static _Atomic int *chunk_status(const side_job *j, size_t g) {
  return (_Atomic int *)(j->desc + g * j->desc_stride);
}
static char *chunk_totals(const side_job *j, size_t g) {
  return j->desc + g * j->desc_stride + 64;
}
static char *chunk_prefix(const side_job *j, size_t g) {
  return chunk_totals(j, g) + j->vec;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Column totals of row chunk r of unit s, fresh, into acc. */
static void reduce_chunk(const side_job *j, const side_unit *s, size_t r, void *acc) {
  const axis_plan *p = j->p;
  p->k->rows_reduce(at_in(p, s->in, (int64_t)(r * j->rows) * p->si), (ptrdiff_t)p->si,
                    (ptrdiff_t)j->inner->is, chunk_rows(j, r), s->w, acc, 1);
}

/* Scans m rows from row0 of unit s from acc (fresh: none). */
static void scan_rows(const side_job *j, const side_unit *s, size_t row0, size_t m, void *acc,
                      int fresh) {
  const axis_plan *p = j->p;
  p->k->rows(at_in(p, s->in, (int64_t)row0 * p->si), (ptrdiff_t)p->si, (ptrdiff_t)j->inner->is,
             at_out(p, s->out, (int64_t)row0 * p->so), (ptrdiff_t)p->so, (ptrdiff_t)j->inner->os,
             m, s->w, acc, fresh, p->c->exclusive, j->stream);
}

/* Waits for chunk g to publish at least CHUNK_A, at most `patience` seconds; its state then. */
static int wait_totals(const side_job *j, size_t g, double patience) {
  unsigned spins = 0;
  double t0 = 0;
  for (;;) {
    int st = atomic_load_explicit(chunk_status(j, g), memory_order_acquire);
    if (st != CHUNK_X)
      return st;
    if (spins % 64 == 63) {
      double t = now_s();
      if (t0 == 0)
        t0 = t;
      else if (t - t0 > patience)
        return CHUNK_X;
    }
    pscan__backoff(&spins, j->oversubscribed);
  }
}

/* Whether chunk g's published totals may be used. */
static bool has_totals(const side_job *j, size_t g) {
  return !j->take_over &&
         atomic_load_explicit(chunk_status(j, g), memory_order_acquire) >= CHUNK_A;
}

/* Chunk k's totals (k in unit s, whose first chunk is first): its owner's where published, else
   reduced here into spare. In place the owner's scan overwrites its chunk's input, so a reduction
   here could read it while it is written: in place this waits for the owner's totals instead
   (every owner publishes them before it waits for anything, so the wait ends). */
static const char *totals_of(const side_job *j, const side_unit *s, size_t first, size_t k,
                             char *spare) {
  if (j->in_place) {
    unsigned spins = 0;
    while (atomic_load_explicit(chunk_status(j, k), memory_order_acquire) < CHUNK_A)
      pscan__backoff(&spins, j->oversubscribed);
    return chunk_totals(j, k);
  }
  if (has_totals(j, k))
    return chunk_totals(j, k);
  reduce_chunk(j, s, k - first, spare); /* its owner is late: the same bits as the owner's */
  return spare;
}

/* The carry of row chunk r of unit u (chunk g) into carry; returns 0, or 1 when there is none
   (the first chunk without init). spare: a vector of scratch. */
static int find_carry(const side_job *j, const side_unit *s, size_t u, size_t r, char *carry,
                      char *spare, double patience) {
  const axis_plan *p = j->p;
  size_t first = u * j->nrows, g = first + r;
  size_t base = g; /* the chunk whose prefix starts the fold (g: none found) */
  for (size_t k = g; k-- > first;) {
    int st = atomic_load_explicit(chunk_status(j, k), memory_order_acquire);
    if (st == CHUNK_X && !j->take_over)
      st = wait_totals(j, k, patience);
    if (st == CHUNK_P) {
      base = k;
      break;
    }
  }
  size_t from;
  if (base < g) {
    memcpy(carry, chunk_prefix(j, base), s->w * p->acc_size);
    from = base + 1;
  } else if (p->c->init) {
    memcpy(carry, j->init_vec, s->w * p->acc_size);
    from = first;
  } else if (g == first) {
    return 1;
  } else { /* no prefix yet: the first chunk's totals start the fold */
    memcpy(carry, totals_of(j, s, first, first, spare), s->w * p->acc_size);
    from = first + 1;
  }
  for (size_t k = from; k < g; k++)
    p->k->vec_fold(totals_of(j, s, first, k, spare), carry, s->w);
  return 0;
}

static void side_task(void *arg, int tid, int nthreads) {
  side_job *j = arg;
  const axis_plan *p = j->p;
  char *carry = j->thread_bufs + (size_t)tid * j->thread_stride;
  char *spare = carry + j->vec;
  double patience = 100e-6; /* until this thread has timed a reduction of its own */
  (void)nthreads;
  size_t tasks = j->units * j->nrows;
  for (size_t t = claim_task(&j->next); t < tasks; t = claim_task(&j->next)) {
    size_t u = t / j->nrows, r = t % j->nrows;
    side_unit s = unit_at(j, u);
    bool last = r + 1 == j->nrows; /* nobody needs the last chunk's totals */
    if (!last) {
      double t0 = now_s();
      reduce_chunk(j, &s, r, chunk_totals(j, t));
      atomic_store_explicit(chunk_status(j, t), CHUNK_A, memory_order_release);
      patience = 2 * (now_s() - t0) + 5e-6;
    }
    int fresh;
    if (r == 0 && !p->c->init) {
      fresh = 1;
    } else {
      fresh = find_carry(j, &s, u, r, carry, spare, patience);
    }
    if (!last) {
      char *prefix = chunk_prefix(j, t);
      if (fresh) {
        memcpy(prefix, chunk_totals(j, t), s.w * p->acc_size);
      } else {
        memcpy(prefix, carry, s.w * p->acc_size);
        p->k->vec_fold(chunk_totals(j, t), prefix, s.w);
      }
      atomic_store_explicit(chunk_status(j, t), CHUNK_P, memory_order_release);
    }
    scan_rows(j, &s, r * j->rows, chunk_rows(j, r), carry, fresh);
  }
}

/* The test knobs, read once: PSCAN_CPU_AXIS_TAKEOVER (above) and PSCAN_CPU_AXIS_SIDE_MIN_BYTES=N,
   the narrowest row of a unit that columns are cut down to (default AXIS_SIDE_MIN_BYTES; a value
   of 16384 or more never cuts them: the row chunks run instead, so that the tests reach them on
   every shape), and PSCAN_CPU_AXIS_SIDE_UNITS=K, the units a thread that columns are cut for
   (default: choose_cols' rule; fewer than K a thread and the row chunks run). The narrow units
   won the A/B on 16 threads (docs/PERFORMANCE.md, "Knobs"). */
static bool take_over_knob;
static size_t side_min_bytes = AXIS_SIDE_MIN_BYTES;
static size_t side_units; /* units a thread (PSCAN_CPU_AXIS_SIDE_UNITS, for A/Bs); 0: the rule */
static pthread_once_t knobs_once = PTHREAD_ONCE_INIT;
static void read_knobs(void) {
  const char *v = getenv("PSCAN_CPU_AXIS_TAKEOVER");
  take_over_knob = v && strcmp(v, "1") == 0;
  uint64_t b = pscan__env_uint("PSCAN_CPU_AXIS_SIDE_MIN_BYTES", side_min_bytes);
  uint64_t u = pscan__env_uint("PSCAN_CPU_AXIS_SIDE_UNITS", side_units);
  side_min_bytes = b > 0 ? (size_t)b : side_min_bytes; /* (0: unset or not a number) */
  side_units = u <= 64 ? (size_t)u : side_units;
}

/* Columns a unit for `want` units in all over `outer` slices: a 64-byte multiple a row. */
static size_t cols_for_units(const axis_plan *p, size_t inner, size_t outer, size_t want) {
  size_t per_slice = (want - 1) / outer + 1, align = 64 / p->acc_size;
  return ((inner - 1) / per_slice + 1 + align - 1) / align * align;
}

/* Columns per unit: the inner extent in chunks of AXIS_SIDE_BYTES of accumulators, cut narrower
   when that gives the threads too few units; *per_thread: the units a thread that the cut is
   for (fewer than that a thread, and the caller chunks the rows too). Two units a thread where
   their rows keep AXIS_SIDE_PAGE_BYTES; else one unit a thread where its rows do (a thread
   streaming half of each page ran 7-15 points slower: docs/PERFORMANCE.md, "Axis scans on the
   CPU"); else two, not below side_min_bytes a row. */
static size_t choose_cols(const axis_plan *p, size_t inner, size_t outer, int threads,
                          size_t *per_thread) {
  size_t cols_max = AXIS_SIDE_BYTES / p->acc_size;
  size_t cols = inner < cols_max ? inner : cols_max;
  size_t k = side_units ? side_units : 2, t = (size_t)threads;
  *per_thread = k;
  if (p->fixed || threads == 1 || outer * ((inner - 1) / cols + 1) >= k * t)
    return cols;
  size_t narrow = cols_for_units(p, inner, outer, k * t);
  if (!side_units && narrow * p->acc_size < AXIS_SIDE_PAGE_BYTES) {
    size_t one = cols_for_units(p, inner, outer, t);
    if (one * p->acc_size >= AXIS_SIDE_PAGE_BYTES && one < cols) {
      *per_thread = 1;
      return one;
    }
  }
  return narrow * p->acc_size >= side_min_bytes && narrow < cols ? narrow : cols;
}

static size_t round64(size_t b) {
  return (b + 63) & ~(size_t)63;
}

pscan_status pscan__cpu_axis_side(pscan_ctx *ctx, const axis_plan *p) {
  side_job j = {.p = p, .inner = &p->b[p->nb - 1], .nouter = p->nb - 1};
  size_t len = (size_t)p->len, inner = (size_t)j.inner->len, outer = p->nlines / inner;
  int threads = threads_for(p, p->nlines * len, SIZE_MAX);
  pthread_once(&knobs_once, read_knobs);
  size_t per_thread;
  j.cols = choose_cols(p, inner, outer, threads, &per_thread);
  j.ncols = (inner - 1) / j.cols + 1;
  j.units = outer * j.ncols;
  j.rows = len;
  if (p->fixed || (threads > 1 && j.units < per_thread * (size_t)threads)) {
    size_t rows = AXIS_CHUNK_BYTES / (j.cols * p->in_size); /* the shape's alone */
    j.rows = rows < 1 ? 1 : rows;
  }
  if (j.rows > len)
    j.rows = len;
  j.nrows = (len - 1) / j.rows + 1;
  if (threads > (int)(j.units * j.nrows))
    threads = (int)(j.units * j.nrows);
  j.oversubscribed = threads > pscan__cpu_hardware_threads();
  j.take_over = take_over_knob;
  j.in_place = (const void *)p->in == (const void *)p->out;
  /* Streaming stores for outputs beyond the cache (rows of 64 bytes or more: whole lines). */
  size_t row_bytes = j.cols * p->acc_size;
  j.stream = pscan__cpu_stream_output(p->nlines * len * p->acc_size) && row_bytes >= 64;
  j.vec = round64(row_bytes);
  j.desc_stride = 64 + 2 * j.vec;
  j.thread_stride = 2 * j.vec;
  size_t nchunks = j.nrows > 1 ? j.units * j.nrows : 0;
  char *scratch;
  PSCAN__CHECK(pscan__cpu_scratch(
      ctx, j.vec + (size_t)threads * j.thread_stride + nchunks * j.desc_stride, &scratch));
  j.init_vec = scratch;
  j.thread_bufs = j.init_vec + j.vec;
  j.desc = j.thread_bufs + (size_t)threads * j.thread_stride;
  for (size_t g = 0; g < nchunks; g++)
    atomic_init(chunk_status(&j, g), CHUNK_X);
  if (p->c->init)
    for (size_t i = 0; i < j.cols; i++)
      memcpy(j.init_vec + i * p->acc_size, p->c->init, p->acc_size);
  pscan__pool *pool = NULL;
  if (threads > 1)
    PSCAN__CHECK(pscan__cpu_pool(ctx, &pool));
  atomic_store_explicit(&j.next, 0, memory_order_relaxed);
  pscan__pool_run(pool, side_task, &j, threads);
  return PSCAN_OK;
}
