/* One point of the CPU benchmark: pscan's algorithms and the peers on the same buffers, the same
 * thread count and the same clock.
 *
 * Timing: rounds.h, the method the CPU sweep shares: per implementation, one warm-up call (which
 * also creates thread pools and scratch and whose result is checked) and, unless the warm-up
 * took longer than ROUNDS_LONG_CALL_S, one calibration call; then reps rounds, each taking one
 * sample of every implementation in turn. A sample repeats the call often enough to last
 * ROUNDS_MIN_SAMPLE_S, so small sizes are not lost in clock resolution (they then run from
 * cache, as small scans do in real use). The result is the median sample divided by the calls
 * in it. */
#include "bench_cpu.h"
#include "progress.h"
#include "rounds.h"
#include "team.h"
#include "cli/cli.h"
#include "peers/peers_cpu.h"
#include "peers/peers_cxx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPS = ROUNDS_MAX_SAMPLES, POISON = 0x7F };

/* Context and team per thread count, created on first use and kept. */
typedef struct per_threads {
  int threads;
  pscan_ctx *ctx;
  team *tm;
  pscan_user_op *uop; /* the affine operator of IMPL_USER_OP, created on first use */
} per_threads;

struct bench_cpu {
  char *in, *out;
  size_t max_bytes;
  pscan_dtype filled_type; /* what in holds now */
  size_t filled_n;
  per_threads slots[CLI_MAX_LIST];
  int nslots;
  long partition; /* PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 0: the library's choice */
  volatile uint64_t sink; /* keeps the reduction's result alive */
  char *uop_in; /* IMPL_USER_OP's input (affine pairs), max_bytes, allocated on first use */
};

/* The scans measured at a thread count, in report order; SEQUENTIAL only with the
   one-thread implementations. */
static const pscan_algo scan_algos[] = {PSCAN_ALGO_SEQUENTIAL, PSCAN_ALGO_DECOUPLED_LOOKBACK,
                                        PSCAN_ALGO_CHAINED, PSCAN_ALGO_REDUCE_THEN_SCAN,
                                        PSCAN_ALGO_SCAN_THEN_PROPAGATE, PSCAN_ALGO_AUTO};
enum { NSCAN_ALGOS = sizeof scan_algos / sizeof scan_algos[0] };

bench_cpu *bench_cpu_create(size_t max_bytes, int threads, long partition) {
  bench_cpu *b = calloc(1, sizeof *b);
  size_t bytes = (max_bytes + 63) / 64 * 64;
  if (b) {
    b->in = aligned_alloc(64, bytes);
    b->out = aligned_alloc(64, bytes);
  }
  if (!b || !b->in || !b->out) {
    cli_error("bench", "cannot allocate 2 buffers of %zu bytes", bytes);
    bench_cpu_destroy(b);
    return NULL;
  }
  team *tm = team_create(threads); /* first touch, outside every timing */
  if (tm) {
    peer_zero(tm, b->in, bytes);
    peer_zero(tm, b->out, bytes);
    team_destroy(tm);
  } else {
    memset(b->in, 0, bytes);
    memset(b->out, 0, bytes);
  }
  b->max_bytes = bytes;
  b->partition = partition;
  return b;
}

void bench_cpu_destroy(bench_cpu *b) {
  if (!b)
    return;
  for (int i = 0; i < b->nslots; i++) {
    pscan_op_destroy(b->slots[i].uop);
    pscan_destroy(b->slots[i].ctx);
    team_destroy(b->slots[i].tm);
  }
  free(b->in);
  free(b->out);
  free(b->uop_in);
  free(b);
}

static per_threads *slot_for(bench_cpu *b, int threads) {
  for (int i = 0; i < b->nslots; i++)
    if (b->slots[i].threads == threads)
      return &b->slots[i];
  if (b->nslots == CLI_MAX_LIST) {
    cli_error("bench", "too many distinct thread counts");
    return NULL;
  }
  per_threads s = {threads, NULL, team_create(threads), NULL};
  pscan_status st = pscan_create(&s.ctx, PSCAN_BACKEND_CPU);
  if (st == PSCAN_OK)
    st = pscan_set_param(s.ctx, PSCAN_PARAM_THREADS, threads);
  if (st == PSCAN_OK && b->partition > 0)
    st = pscan_set_param(s.ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, b->partition);
  if (st != PSCAN_OK || !s.tm) {
    cli_error("bench", "cannot set up %d threads: %s", threads,
              st != PSCAN_OK ? pscan_last_error(s.ctx) : "pthread_create failed");
    pscan_destroy(s.ctx);
    team_destroy(s.tm);
    return NULL;
  }
  b->slots[b->nslots] = s;
  return &b->slots[b->nslots++];
}


typedef struct call {
  bench_cpu *b;
  per_threads *slot;
  const bench_result *r; /* what to run: impl, algo, type, n */
} call;

static pscan_status run_call(const call *c) {
  bench_cpu *b = c->b;
  const bench_result *r = c->r;
  size_t bytes = r->n * pscan_dtype_size(r->type);
  switch (r->impl) {
  case IMPL_PSCAN: return pscan_inclusive_scan(c->slot->ctx, b->in, b->out, r->n, r->type, PSCAN_SUM);
  case IMPL_PLAIN_LOOP: peer_scan_loop(r->type, b->in, b->out, r->n); break;
  case IMPL_MEMCPY: peer_memcpy(c->slot->tm, b->out, b->in, bytes); break;
  case IMPL_STREAM_COPY: peer_stream_copy(c->slot->tm, b->out, b->in, bytes); break;
  case IMPL_REDUCE: b->sink += peer_reduce(c->slot->tm, b->in, bytes); break;
  case IMPL_STD_SEQ: peer_cxx_scan(PEER_STD_SEQ, 1, r->type, b->in, b->out, r->n); break;
  case IMPL_STD_PAR: peer_cxx_scan(PEER_STD_PAR, r->threads, r->type, b->in, b->out, r->n); break;
  case IMPL_TBB: peer_cxx_scan(PEER_TBB, r->threads, r->type, b->in, b->out, r->n); break;
  case IMPL_OMP: peer_cxx_scan(PEER_OMP, r->threads, r->type, b->in, b->out, r->n); break;
  case IMPL_USER_OP: return pscan_scan_op(c->slot->ctx, b->uop_in, b->out, r->n, c->slot->uop, 0, NULL);
  case IMPL_CUDA_PSCAN: case IMPL_CUDA_MEMCPY: case IMPL_CUB: case IMPL_THRUST:
    return PSCAN_ERR_INTERNAL; /* bench_gpu.c's */
  }
  return PSCAN_OK;
}

static void describe(const call *c, char *buf, size_t len) {
  char label[64], count[32];
  snprintf(buf, len, "%s on %s, n = %s, threads = %d", bench_impl_label(c->r, label, sizeof label),
           cli_dtype_name(c->r->type), cli_format_count(c->r->n, count, sizeof count),
           c->r->threads);
}

static int fail_status(const call *c, pscan_status s) {
  char what[160];
  describe(c, what, sizeof what);
  cli_error("bench", "%s: %s: %s", what, pscan_status_name(s), pscan_last_error(c->slot->ctx));
  return 1;
}

/* Compares pscan's output with the plain loop, computed on the fly. */
static int verify(const call *c) {
  char expected[48], got[48], what[160];
  size_t i = peer_scan_check(c->r->type, c->b->in, c->b->out, c->r->n, expected, got,
                             sizeof expected);
  if (i == SIZE_MAX)
    return 0;
  describe(c, what, sizeof what);
  cli_error("bench", "%s: WRONG RESULT at element %zu: expected %s, got %s", what, i, expected, got);
  return 1;
}

/* Warm-up (its result checked, for a scan), then one call timed to choose how many calls make a
   sample: *inner. */
static bool is_scan(bench_impl i) { return i == IMPL_PSCAN || (i >= IMPL_STD_SEQ && i <= IMPL_OMP); }

/* ---- IMPL_USER_OP: h[i] = a[i] h[i-1] + b[i] as a scan of affine maps (a, b) of f32, compiled
   from source; a = +-1 and small integer b keep every result exact, so the check is bitwise. */
typedef struct { float a, b; } affine;
static const char affine_src[] =
    "typedef struct { float a, b; } affine;\n"
    "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n";

static int user_op_setup(const call *c) {
  bench_cpu *b = c->b;
  if (!b->uop_in && !(b->uop_in = aligned_alloc(64, b->max_bytes))) {
    cli_error("bench", "cannot allocate %zu bytes for the user-operator input", b->max_bytes);
    return 1;
  }
  affine *in = (affine *)(void *)b->uop_in;
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (size_t i = 0; i < c->r->n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i] = (affine){(x & 1) ? 1.0f : -1.0f, (float)((int)(x >> 8 & 7) - 3)};
  }
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = affine_src, .type_name = "affine",
                     .name = "compose", .elem_size = sizeof(affine)};
  pscan_status s = c->slot->uop ? PSCAN_OK : pscan_op_create(c->slot->ctx, &d, &c->slot->uop);
  return s == PSCAN_OK ? 0 : fail_status(c, s);
}

static int user_op_verify(const call *c) {
  const affine *in = (const affine *)(const void *)c->b->uop_in;
  const affine *out = (const affine *)(const void *)c->b->out;
  affine acc = in[0];
  for (size_t i = 0; i < c->r->n; i++) {
    if (i > 0)
      acc = (affine){acc.a * in[i].a, in[i].a * acc.b + in[i].b};
    if (memcmp(&acc, &out[i], sizeof acc)) {
      char what[160];
      describe(c, what, sizeof what);
      cli_error("bench", "%s: WRONG RESULT at element %zu", what, i);
      return 1;
    }
  }
  return 0;
}

/* One call of c for rounds.h: 0, or 1 after printing why. */
static int rounds_call(void *arg) {
  const call *c = arg;
  pscan_status s = run_call(c);
  return s == PSCAN_OK ? 0 : fail_status(c, s);
}

/* Before each sample of pscan: its algorithm (the context is shared by the algorithms). */
static int set_algo(void *arg) {
  const call *c = arg;
  pscan_status s = PSCAN_OK;
  if (c->r->impl == IMPL_PSCAN || c->r->impl == IMPL_USER_OP)
    s = pscan_set_param(c->slot->ctx, PSCAN_PARAM_ALGO, c->r->algo);
  return s == PSCAN_OK ? 0 : fail_status(c, s);
}

/* The TBB and OpenMP runtimes keep their worker threads spinning for a while after a call (OpenMP:
   GOMP_SPINCOUNT; TBB: its workers look for work before they sleep): rounds.h lets them settle
   outside the timing. */
static bool spins_after(bench_impl impl) {
  return impl == IMPL_STD_PAR || impl == IMPL_TBB || impl == IMPL_OMP;
}

/* Warm-up (its result checked, for a scan), then the calibration call (rounds.h). */
static int prepare(const call *c, rounds_impl *m, const char *label) {
  if (c->r->impl == IMPL_USER_OP && user_op_setup(c))
    return 1;
  if (is_scan(c->r->impl))
    memset(c->b->out, POISON, c->r->n * pscan_dtype_size(c->r->type));
  *m = (rounds_impl){.call = rounds_call, .before = set_algo, .arg = (void *)c, .name = label,
                     .spins_after = spins_after(c->r->impl)};
  if (set_algo((void *)c) || rounds_warm_up(m))
    return 1;
  if (is_scan(c->r->impl) && verify(c))
    return 1;
  if (c->r->impl == IMPL_USER_OP && user_op_verify(c))
    return 1;
  return rounds_calibrate(m, 0);
}

/* The implementations of point p, in report order. */
static int plan(const bench_point *p, bench_result *out) {
  int k = 0;
  bench_result base = {.type = p->type, .n = p->n, .threads = p->threads};
  const bench_impl peers[] = {IMPL_MEMCPY, IMPL_STREAM_COPY, IMPL_REDUCE};
  for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
    out[k] = base;
    out[k++].impl = peers[i];
  }
  if (p->one_thread_impls) {
    out[k] = base;
    out[k].impl = IMPL_PLAIN_LOOP;
    out[k++].threads = 1;
    if (peer_cxx_available(PEER_STD_SEQ)) {
      out[k] = base;
      out[k].impl = IMPL_STD_SEQ;
      out[k++].threads = 1;
    }
  }
  const struct { bench_impl impl; peer_cxx peer; } cxx[] = {
      {IMPL_STD_PAR, PEER_STD_PAR}, {IMPL_TBB, PEER_TBB}, {IMPL_OMP, PEER_OMP}};
  for (size_t i = 0; i < sizeof cxx / sizeof cxx[0]; i++) {
    if (peer_cxx_available(cxx[i].peer)) {
      out[k] = base;
      out[k++].impl = cxx[i].impl;
    }
  }
  for (int a = 0; a < NSCAN_ALGOS; a++) {
    if (scan_algos[a] == PSCAN_ALGO_SEQUENTIAL && !p->one_thread_impls)
      continue;
    out[k] = base;
    out[k].impl = IMPL_PSCAN;
    out[k].algo = scan_algos[a];
    if (scan_algos[a] == PSCAN_ALGO_SEQUENTIAL)
      out[k].threads = 1;
    k++;
  }
  if (p->type == PSCAN_F64) { /* 8-byte elements: the same bytes as the copies */
    out[k] = base;
    out[k].impl = IMPL_USER_OP;
    out[k++].algo = PSCAN_ALGO_AUTO;
  }
  return k;
}

int bench_cpu_count(const bench_point *p) {
  bench_result r[BENCH_MAX_PER_POINT];
  return plan(p, r);
}

/* Progress: the round about to start. */
static void round_progress(int round, void *ctx) {
  const bench_point *p = ctx;
  char what[96];
  snprintf(what, sizeof what, "timing, round %d of %d", round + 1, p->reps);
  progress_what(p, what);
}

/* Each implementation is prepared in turn; then the samples are taken round-robin (every
   implementation once per round), so a machine whose speed drifts, as shared virtual machines'
   do, slows all of them alike and the ratios hold (rounds.h). */
int bench_cpu_measure(bench_cpu *b, const bench_point *p, bench_result *out) {
  size_t bytes = p->n * pscan_dtype_size(p->type);
  if (bytes > b->max_bytes || p->reps < 1 || p->reps > MAX_REPS) {
    cli_error("bench", "internal error: point outside the plan");
    return 1;
  }
  if (b->filled_type != p->type || b->filled_n != p->n) {
    peer_fill_input(p->type, b->in, p->n, 0x243F6A8885A308D3u ^ p->n);
    b->filled_type = p->type;
    b->filled_n = p->n;
  }
  int count = plan(p, out);
  call calls[BENCH_MAX_PER_POINT];
  rounds_impl m[BENCH_MAX_PER_POINT];
  char names[BENCH_MAX_PER_POINT][64], what[96];
  for (int k = 0; k < count; k++) {
    bench_result *r = &out[k];
    calls[k] = (call){b, slot_for(b, r->threads), r};
    if (!calls[k].slot)
      return 1;
    snprintf(what, sizeof what, "warm-up, %s", bench_impl_label(r, names[k], sizeof names[k]));
    progress_what(p, what);
    r->bytes = (double)bytes * (r->impl == IMPL_REDUCE ? 1 : 2);
    if (prepare(&calls[k], &m[k], names[k]))
      return 1;
    m[k].want = p->reps;
  }
  if (rounds_run(m, count, round_progress, (void *)p))
    return 1;
  for (int k = 0; k < count; k++)
    out[k].seconds = m[k].seconds;
  return 0;
}
