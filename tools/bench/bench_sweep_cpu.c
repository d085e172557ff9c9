/* `pscan bench --cpu --sweep`: the CPU backend at each point of the sweep (bench_sweep.h), beside
 * the best CPU peer the tool has and the streaming copy, on the same buffers and threads.
 *
 * Peers: for the compaction family, the obvious one-thread loop of each op (what a C user writes;
 * the C++ standard library has copy_if, partition_copy and unique_copy, whose sequential forms are
 * the same loop) and, where the tool was built with TBB, std::copy_if / std::partition_copy with
 * execution::par for int32 selections; the faster of those is the peer. For the scans, the plain
 * loop and the parallel C++ peers that were built (OpenMP scan, tbb::parallel_scan,
 * std::inclusive_scan par); at n >= 2^26 the plain loop is left out when a parallel peer exists
 * (it cannot win there, and it would take most of the run's time).
 *
 * The copy of the point's items: the streaming copy over a team of the same threads, or memcpy
 * on one thread where that is faster (up to 32 MiB: where waking the team costs more than copying
 * from cache). It is timed with pscan, in the same rounds, at every point, and so is the read
 * ceiling: a plain sum of the point's items over the same team (on the 16-core host reading alone
 * reaches ~75% of the copy's rate of bytes read and written, so the ops that write little are
 * bounded by it, not by the copy: sweep_of_bound).
 *
 * Timing: rounds.h, the method of `pscan bench --cpu`, so that the sweep's scan points reproduce
 * its figures: each implementation is called once (warm-up; its output is checked: the count and
 * a checksum of what it wrote, against pscan's), once more to calibrate the calls per sample
 * (unless the warm-up took longer than ROUNDS_LONG_CALL_S), then samples in rounds, one sample
 * of each implementation per round; OpenMP and TBB peers settle after each call, outside the
 * timing (their idle threads spin). The number of samples is calibrated by time: pscan's as
 * many as fit SAMPLES_S, 3 to MAX_PSCAN (short calls get more, whose median then resists the
 * noise of a shared machine), the copy's as many as pscan's (the same rounds), a peer's up to
 * reps within PEER_S, at least 1. Where one call takes longer than
 * BIG_CALL_S the warm-up is the first sample, with no calibration call (the buffers are touched
 * before the run, so the first call pays no page faults): at 2^28 a one-thread loop then runs
 * once, and the whole sweep on 16 threads fits a 600 s device call. */
#include "bench_sweep.h"
#include "bench_sweep_cpu.h"

#include "rounds.h"
#include "team.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "peers/peers_cpu.h"
#include "peers/peers_cxx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG_CALL_S 0.05
#define SAMPLES_S 0.12 /* pscan's samples at one point, at most (3 at least) */
#define PEER_S 0.1     /* a peer's, at most (1 at least) */
enum { MAX_INNER = 1 << 16, MAX_PSCAN = 15 };

typedef struct cpu_state {
  int threads;
  pscan_ctx *ctx;
  team *tm;
  char *a, *vals, *out, *vout, *counts; /* a: keys, items or the scan's input */
  uint8_t *flags;
  sweep_held held;
  char name[320];
} cpu_state;

/* ---- parallel helpers over the team ---- */

typedef struct chunk_job {
  void (*fn)(void *arg, size_t lo, size_t hi, int tid);
  void *arg;
  size_t n;
} chunk_job;

static void chunk_run(void *arg, int tid, int nthreads) {
  chunk_job *j = arg;
  size_t per = (j->n + (size_t)nthreads - 1) / (size_t)nthreads;
  size_t lo = per * (size_t)tid, hi = lo + per < j->n ? lo + per : j->n;
  if (lo < hi)
    j->fn(j->arg, lo, hi, tid);
}

static void parallel(cpu_state *s, size_t n, void (*fn)(void *, size_t, size_t, int),
                     void *arg) {
  chunk_job j = {fn, arg, n};
  team_run(s->tm, chunk_run, &j);
}

/* ---- the data (bench_sweep.h) ---- */

typedef struct fill_args {
  const sweep_point *p;
  void *dst;
  int pct;
  uint64_t sum[CLI_MAX_THREADS];
} fill_args;

static void put_int(void *dst, pscan_dtype t, size_t i, unsigned long long v) {
  switch (pscan_dtype_size(t)) {
  case 1: ((uint8_t *)dst)[i] = (uint8_t)v; break;
  case 2: ((uint16_t *)dst)[i] = (uint16_t)v; break;
  case 4: ((uint32_t *)dst)[i] = (uint32_t)v; break;
  default: ((uint64_t *)dst)[i] = (uint64_t)v; break;
  }
}

static void fill_keys(void *arg, size_t lo, size_t hi, int tid) {
  fill_args *f = arg;
  (void)tid;
  size_t L = f->p->run_length, start = sweep_run_start(lo, L);
  for (size_t i = lo; i < hi; i++) {
    if (sweep_head(i, L))
      start = i;
    put_int(f->dst, f->p->key, i, sweep_key(start));
  }
}

static void fill_items(void *arg, size_t lo, size_t hi, int tid) {
  fill_args *f = arg;
  (void)tid;
  for (size_t i = lo; i < hi; i++)
    put_int(f->dst, f->p->key, i, sweep_item(i));
}

static void fill_flags(void *arg, size_t lo, size_t hi, int tid) {
  fill_args *f = arg;
  (void)tid;
  unsigned thr = sweep_threshold(f->pct);
  for (size_t i = lo; i < hi; i++)
    ((uint8_t *)f->dst)[i] = sweep_item(i) < thr;
}

static void fill_vals(void *arg, size_t lo, size_t hi, int tid) {
  fill_args *f = arg;
  (void)tid;
  for (size_t i = lo; i < hi; i++) {
    if (f->p->val == PSCAN_F64)
      ((double *)f->dst)[i] = sweep_value(i);
    else
      ((float *)f->dst)[i] = (float)sweep_value(i);
  }
}

/* The scan's input: sweep_value (bench_sweep.h), in the scan's type. */
static void fill_scan(void *arg, size_t lo, size_t hi, int tid) {
  fill_args *f = arg;
  (void)tid;
  pscan_dtype t = f->p->key;
  for (size_t i = lo; i < hi; i++) {
    int v = sweep_value(i);
    switch (t) {
    case PSCAN_F32: ((float *)f->dst)[i] = (float)v; break;
    case PSCAN_F64: ((double *)f->dst)[i] = v; break;
    default: put_int(f->dst, t, i, (unsigned long long)(long long)v); break;
    }
  }
}

static int fill_one(void *arg, sweep_fill what, const sweep_point *p) {
  cpu_state *s = arg;
  fill_args f = {.p = p, .dst = what == SWEEP_FILL_VALS    ? s->vals
                                : what == SWEEP_FILL_FLAGS ? (void *)s->flags
                                                           : s->a,
                 .pct = p->sel_pct};
  void (*fn)(void *, size_t, size_t, int) = what == SWEEP_FILL_KEYS    ? fill_keys
                                            : what == SWEEP_FILL_ITEMS ? fill_items
                                            : what == SWEEP_FILL_FLAGS ? fill_flags
                                            : what == SWEEP_FILL_VALS  ? fill_vals
                                                                       : fill_scan;
  parallel(s, p->n, fn, &f);
  return 0;
}

static int cpu_fill(sweep_backend *b, const sweep_point *p) {
  return sweep_refill(&((cpu_state *)b->state)->held, p, fill_one, b->state);
}

/* ---- checksums of outputs, to check pscan and the peer against each other ---- */

static void sum_words(void *arg, size_t lo, size_t hi, int tid) {
  fill_args *f = arg;
  const uint64_t *w = f->dst;
  uint64_t h = 0;
  for (size_t i = lo; i < hi; i++)
    h += sweep_mix(w[i] ^ (i * 0x9E3779B97F4A7C15ull));
  f->sum[tid] = h;
}

/* A checksum of bytes [0, len) of p (8-byte aligned), the same whatever the thread split. */
static uint64_t checksum(cpu_state *s, const void *p, size_t len) {
  static fill_args f;
  memset(&f, 0, sizeof f);
  f.dst = (void *)p;
  parallel(s, len / 8, sum_words, &f);
  uint64_t h = 0;
  for (int i = 0; i < CLI_MAX_THREADS; i++)
    h += f.sum[i];
  const unsigned char *tail = (const unsigned char *)p + len / 8 * 8;
  for (size_t i = 0; i < len % 8; i++)
    h += sweep_mix(((uint64_t)tail[i] << 8) ^ i);
  return h;
}

/* ---- the calls ---- */

typedef enum impl { PSCAN, LOOP, STD_PAR, OMP, TBB, STREAM_COPY, MEMCPY, READ, NIMPL } impl;
static const char *const impl_names[NIMPL] = {"pscan",       "plain loop",         "std par",
                                              "OpenMP scan", "tbb::parallel_scan", "streaming copy",
                                              "memcpy",      "read ceiling"};

/* What the read ceiling's sums add up to, so that they are not optimised away. */
static volatile uint64_t read_sink;

/* One call of implementation m at p; returns the count it kept (runs; n for the scans). */
static size_t call(cpu_state *s, impl m, const sweep_point *p) {
  size_t n = p->n, count = 0;
  int64_t thr64 = sweep_threshold(p->sel_pct < 0 ? 0 : p->sel_pct);
  int32_t thr32 = (int32_t)thr64;
  const void *thr = pscan_dtype_size(p->key) == 8 ? (const void *)&thr64 : (const void *)&thr32;
  void *a = s->a, *o = s->out;
  if (m == STREAM_COPY || m == MEMCPY || m == READ) { /* the point's items (keys) */
    size_t bytes = n * pscan_dtype_size(p->key);
    if (m == STREAM_COPY)
      peer_stream_copy(s->tm, o, a, bytes);
    else if (m == MEMCPY)
      memcpy(o, a, bytes);
    else
      read_sink += peer_reduce(s->tm, a, bytes);
    return 0;
  }
  if (m == PSCAN) {
    pscan_status st = PSCAN_OK;
    switch (p->op) {
    case SWEEP_SELECT_IF: st = pscan_select_if(s->ctx, a, o, n, p->key, PSCAN_LT, thr, &count); break;
    case SWEEP_SELECT_FLAGGED:
      st = pscan_select_flagged(s->ctx, a, s->flags, o, n, p->key, &count);
      break;
    case SWEEP_PARTITION_IF:
      st = pscan_partition_if(s->ctx, a, o, n, p->key, PSCAN_LT, thr, &count);
      break;
    case SWEEP_UNIQUE: st = pscan_unique(s->ctx, a, o, n, p->key, &count); break;
    case SWEEP_RUN_LENGTH_ENCODE:
      st = pscan_run_length_encode(s->ctx, a, o, (uint64_t *)(void *)s->counts, n, p->key, &count);
      break;
    case SWEEP_REDUCE_BY_KEY:
      st = pscan_reduce_by_key(s->ctx, a, p->key, s->vals, p->val, o, s->vout, n, PSCAN_SUM, &count);
      break;
    case SWEEP_SCAN_BY_KEY:
      st = pscan_scan_by_key(s->ctx, a, p->key, s->vals, s->vout, n, p->val, PSCAN_SUM, 0, NULL);
      count = n;
      break;
    case SWEEP_SCAN:
      st = pscan_inclusive_scan(s->ctx, a, o, n, p->key, PSCAN_SUM);
      count = n;
      break;
    default: break;
    }
    return st == PSCAN_OK ? count : SIZE_MAX;
  }
  if (p->op == SWEEP_SCAN) {
    if (m == LOOP)
      peer_scan_loop(p->key, a, o, n);
    else
      peer_cxx_scan(m == OMP ? PEER_OMP : m == TBB ? PEER_TBB : PEER_STD_PAR, s->threads, p->key,
                    a, o, n);
    return n;
  }
  if (m == STD_PAR) /* int32 selections only (peers_cxx.h) */
    return p->op == SWEEP_SELECT_IF
               ? peer_cxx_select(PEER_STD_PAR, s->threads, a, o, n, thr32)
               : peer_cxx_partition(PEER_STD_PAR, s->threads, a, o, (void *)s->vout, n, thr32);
  return sweep_cpu_loop(p, a, s->flags, s->vals, o, s->vout, s->counts, thr64);
}

/* The checksum of what a call of op wrote, count kept. */
static uint64_t output_sum(cpu_state *s, const sweep_point *p, size_t count) {
  size_t ks = pscan_dtype_size(p->key), vs = pscan_dtype_size(p->val);
  switch (p->op) {
  case SWEEP_PARTITION_IF: return checksum(s, s->out, p->n * ks);
  case SWEEP_RUN_LENGTH_ENCODE:
    return checksum(s, s->out, count * ks) ^ (checksum(s, s->counts, count * 8) * 3);
  case SWEEP_REDUCE_BY_KEY:
    return checksum(s, s->out, count * ks) ^ (checksum(s, s->vout, count * vs) * 3);
  case SWEEP_SCAN_BY_KEY: return checksum(s, s->vout, p->n * vs);
  default: return checksum(s, s->out, count * ks);
  }
}

/* The peers measured at p, after LOOP. */
static int peers_at(const sweep_point *p, impl *v) {
  int k = 0;
  bool par = false;
  if (p->op == SWEEP_SCAN) {
    static const impl order[] = {OMP, TBB, STD_PAR};
    static const peer_cxx which[] = {PEER_OMP, PEER_TBB, PEER_STD_PAR};
    for (int i = 0; i < 3; i++)
      if (peer_cxx_available(which[i]))
        v[k++] = order[i], par = true;
  } else if (p->key == PSCAN_I32 && (p->op == SWEEP_SELECT_IF || p->op == SWEEP_PARTITION_IF) &&
             peer_cxx_available(PEER_STD_PAR)) {
    v[k++] = STD_PAR;
  }
  if (!(p->op == SWEEP_SCAN && par && p->n >= ((size_t)1 << 26)))
    v[k++] = LOOP;
  return k;
}

/* Samples to take of one implementation whose sample lasts sample_s (the top of the file). */
static int samples_for(bool is_pscan, double sample_s, int reps) {
  double fit = (is_pscan ? SAMPLES_S : PEER_S) / (sample_s > 0 ? sample_s : 1e-9);
  int most = is_pscan ? (reps > MAX_PSCAN ? reps : MAX_PSCAN) : reps, least = is_pscan ? 3 : 1;
  int k = fit < most ? (int)fit : most;
  return k < least ? (least < most ? least : most) : k;
}

static int wrong(const sweep_point *p, const char *what, impl m) {
  char count[32];
  cli_error("bench", "--sweep: %s, %s, n = %s, run %zu, %d%%: %s (%s)", sweep_op_name(p->op),
            cli_dtype_name(p->key), cli_format_count(p->n, count, sizeof count), p->run_length,
            p->sel_pct, what, impl_names[m]);
  return 1;
}

/* One implementation at one point, as rounds.h calls it. */
typedef struct timed {
  cpu_state *s;
  impl m;
  const sweep_point *p;
  size_t kept; /* the last call's count */
} timed;

static int timed_call(void *arg) {
  timed *t = arg;
  t->kept = call(t->s, t->m, t->p);
  return t->kept == SIZE_MAX ? wrong(t->p, pscan_last_error(t->s->ctx), t->m) : 0;
}

/* Where one thread's memcpy may be the faster copy (the top of the file). */
enum { ONE_THREAD_COPY_MAX = 32 << 20 };

static int cpu_measure(sweep_backend *b, sweep_result *r, int reps) {
  cpu_state *s = b->state;
  const sweep_point *p = &r->p;
  timed t[NIMPL];
  rounds_impl m[NIMPL];
  impl peers[NIMPL];
  int np = peers_at(p, peers), nt = 0;
  t[nt++] = (timed){s, PSCAN, p, 0};
  for (int i = 0; i < np; i++)
    t[nt++] = (timed){s, peers[i], p, 0};
  int first_copy = nt;
  t[nt++] = (timed){s, STREAM_COPY, p, 0};
  if (p->n * pscan_dtype_size(p->key) <= ONE_THREAD_COPY_MAX)
    t[nt++] = (timed){s, MEMCPY, p, 0};
  const int read_at = nt;
  t[nt++] = (timed){s, READ, p, 0};
  uint64_t sum0 = 0;
  for (int i = 0; i < nt; i++) { /* warm-up, check, calibration */
    impl mi = t[i].m;
    m[i] = (rounds_impl){.call = timed_call, .arg = &t[i], .name = impl_names[mi],
                         .max_inner = MAX_INNER,
                         .spins_after = mi == OMP || mi == TBB || mi == STD_PAR};
    if (rounds_warm_up(&m[i]))
      return 1;
    if (i < first_copy && t[i].kept != t[0].kept)
      return wrong(p, "WRONG RESULT: the count differs from pscan's", mi);
    /* std::partition_copy writes two arrays: only its count is checked */
    if (i < first_copy && mi != STD_PAR) {
      uint64_t sum = output_sum(s, p, t[i].kept);
      if (i == 0)
        sum0 = sum;
      else if (sum != sum0)
        return wrong(p, "WRONG RESULT: the output differs from pscan's", mi);
    }
    if (rounds_calibrate(&m[i], BIG_CALL_S))
      return 1;
    m[i].want = i < first_copy ? samples_for(i == 0, m[i].sample_s, reps) : m[0].want;
  }
  if (rounds_run(m, nt, NULL, NULL))
    return 1;
  r->pscan_s = m[0].seconds;
  r->pscan_bytes = sweep_bytes(p, t[0].kept, 8);
  r->peer_s = 0;
  for (int i = 1; i < first_copy; i++) {
    if (r->peer_s == 0 || m[i].seconds < r->peer_s) {
      r->peer_s = m[i].seconds;
      r->peer = impl_names[t[i].m];
    }
  }
  r->peer_bytes = sweep_bytes(p, t[0].kept, 8);
  r->copy_s = m[first_copy].seconds;
  for (int i = first_copy + 1; i < read_at; i++)
    r->copy_s = m[i].seconds < r->copy_s ? m[i].seconds : r->copy_s;
  r->copy_bytes = 2.0 * (double)(p->n * pscan_dtype_size(p->key));
  r->read_s = m[read_at].seconds;
  r->read_bytes = (double)(p->n * pscan_dtype_size(p->key));
  return 0;
}

static double cpu_available(sweep_backend *b) {
  size_t avail = ((void)b, sysinfo_available_memory());
  return avail ? (double)avail * 0.8 : 1e18;
}

static void cpu_close(sweep_backend *b) {
  cpu_state *s = b->state;
  if (!s)
    return;
  free(s->a), free(s->vals), free(s->out), free(s->vout), free(s->counts), free(s->flags);
  team_destroy(s->tm);
  pscan_destroy(s->ctx);
  free(s);
  b->state = NULL;
}

static void *big_alloc(size_t bytes) { return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64); }

static int cpu_open(sweep_backend *b, size_t compact_n, size_t scan_n, const sweep_opts *o) {
  cpu_state *s = b->state;
  size_t an = compact_n > scan_n ? compact_n : scan_n;
  (void)o;
  s->a = big_alloc(an * 8), s->out = big_alloc(an * 8), s->flags = big_alloc(compact_n);
  s->vals = big_alloc(compact_n * 8), s->vout = big_alloc(compact_n * 8);
  s->counts = big_alloc(compact_n * 8);
  if (!s->a || !s->out || !s->vals || !s->vout || !s->counts || !s->flags) {
    cli_error("bench", "--sweep: cannot allocate the buffers (%.1f GiB)",
              (sweep_compact_bytes(compact_n) + sweep_scan_bytes(scan_n)) / (1 << 30));
    return 1;
  }
  /* First touch by the team, outside every timing. */
  peer_zero(s->tm, s->a, an * 8), peer_zero(s->tm, s->out, an * 8);
  peer_zero(s->tm, s->vals, compact_n * 8), peer_zero(s->tm, s->vout, compact_n * 8);
  peer_zero(s->tm, s->counts, compact_n * 8), peer_zero(s->tm, s->flags, compact_n);
  return 0;
}

int sweep_cpu_backend(sweep_backend *b, const sweep_opts *o) {
  int threads = o->threads;
  cpu_state *s = calloc(1, sizeof *s);
  if (!s) {
    cli_error("bench", "out of memory");
    return 1;
  }
  s->threads = threads > 0 ? threads : sysinfo_cpus();
  if (s->threads > CLI_MAX_THREADS)
    s->threads = CLI_MAX_THREADS;
  s->tm = team_create(s->threads);
  if (!s->tm || pscan_create(&s->ctx, PSCAN_BACKEND_CPU) != PSCAN_OK ||
      pscan_set_param(s->ctx, PSCAN_PARAM_THREADS, s->threads) != PSCAN_OK) {
    cli_error("bench", "--sweep: cannot start %d threads", s->threads);
    b->state = s;
    cpu_close(b);
    return 1;
  }
  char machine[256];
  int len = snprintf(s->name, sizeof s->name, "the CPU backend, %d thread%s (%s)", s->threads,
                     s->threads > 1 ? "s" : "", sysinfo_machine(machine, sizeof machine));
  /* The library's knobs set in the environment (docs/PERFORMANCE.md), so a run says how it ran. */
  static const char *const knobs[] = {"PSCAN_CPU_ISA", "PSCAN_CPU_STREAM",
                                      "PSCAN_CPU_COMPACT_PARTITION"};
  for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
    const char *v = getenv(knobs[i]);
    if (v && len > 0 && (size_t)len < sizeof s->name)
      len += snprintf(s->name + len, sizeof s->name - (size_t)len, ", %s=%.24s", knobs[i], v);
  }
  b->state = s;
  b->name = s->name;
  b->peer_kind = "the best CPU peer (one-thread loop; parallel C++ peers where built)";
  b->copy_kind = "streaming copy (non-temporal stores) on the same threads, or memcpy on one "
                 "thread where faster (up to 32 MiB), timed in the same rounds as pscan";
  b->default_reps = 5;
  b->available = cpu_available;
  b->open = cpu_open;
  b->fill = cpu_fill;
  b->measure = cpu_measure;
  b->close = cpu_close;
  return 0;
}
