/* Fault injection: every heap allocation and every thread creation of the library made to fail in
 * turn (the test-only hook of src/alloc.c).
 *
 * Each scenario (create + destroy; a parallel scan with each algorithm on 4 and 16 threads; a
 * custom-operator scan; each compaction op in parallel; THREADS changed between calls) runs on a
 * fresh context, first with no fault, counting its allocations and thread creations (N); then
 * once for each k < N with the k-th of them failing. Every call must then either succeed with the
 * right result or answer PSCAN_ERR_OUT_OF_MEMORY with a one-line pscan_last_error and its outputs
 * still poisoned; the same call, repeated with no fault, must then succeed and be right (the
 * context is still usable). Leaks show under ASan/LSan and valgrind. The expected results come
 * from the same calls on a one-thread SEQUENTIAL context, which test_scan, test_custom and
 * test_compact check against independent references. */
#include "../src/internal.h" /* pscan__fault_arm, pscan__fault_disarm */
#include "test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The buffers every call reads and writes (outputs: out, out2, counts, count). */
typedef struct buffers {
  size_t n;
  int32_t *in, *keys;
  uint8_t *flags;
  uint64_t *affine; /* custom operator input: n maps x -> a*x + b, as (a, b) pairs */
  int32_t *out, *out2;
  uint64_t *counts; /* run lengths; also the custom scan's output (2n words) */
  size_t count;
} buffers;

typedef pscan_status (*call_fn)(pscan_ctx *ctx, buffers *b);

typedef struct scenario {
  char name[64];
  call_fn call;    /* NULL: create and destroy only */
  int algo;
  int threads[4];  /* THREADS for each call in turn; 0 ends the list */
} scenario;

static buffers data;
static buffers expected; /* outputs of the same calls on the oracle context */
static pscan_ctx *oracle;
static unsigned long injected, surfaced; /* faults fired; of those, calls that failed with OOM */

/* ---- the calls ---- */

static pscan_status scan(pscan_ctx *ctx, buffers *b) {
  return pscan_inclusive_scan(ctx, b->in, b->out, b->n, PSCAN_I32, PSCAN_SUM);
}

/* x -> a*x + b over uint64_t: apply the left map, then the right one (not commutative). */
static void affine(void *out, const void *l, const void *r, void *user) {
  uint64_t a[2], b[2], o[2];
  (void)user;
  memcpy(a, l, sizeof a);
  memcpy(b, r, sizeof b);
  o[0] = b[0] * a[0];
  o[1] = b[0] * a[1] + b[1];
  memcpy(out, o, sizeof o);
}

static pscan_status custom(pscan_ctx *ctx, buffers *b) {
  return pscan_scan_custom(ctx, b->affine, b->counts, b->n, 2 * sizeof(uint64_t), affine, NULL,
                           0, NULL);
}

static const int32_t threshold = 50;

static pscan_status select_if(pscan_ctx *ctx, buffers *b) {
  return pscan_select_if(ctx, b->in, b->out, b->n, PSCAN_I32, PSCAN_LT, &threshold, &b->count);
}
static pscan_status select_flagged(pscan_ctx *ctx, buffers *b) {
  return pscan_select_flagged(ctx, b->in, b->flags, b->out, b->n, PSCAN_I32, &b->count);
}
static pscan_status partition_if(pscan_ctx *ctx, buffers *b) {
  return pscan_partition_if(ctx, b->in, b->out, b->n, PSCAN_I32, PSCAN_GE, &threshold, &b->count);
}
static pscan_status unique(pscan_ctx *ctx, buffers *b) {
  return pscan_unique(ctx, b->in, b->out, b->n, PSCAN_I32, &b->count);
}
static pscan_status run_length(pscan_ctx *ctx, buffers *b) {
  return pscan_run_length_encode(ctx, b->in, b->out, b->counts, b->n, PSCAN_I32, &b->count);
}
static pscan_status reduce_by_key(pscan_ctx *ctx, buffers *b) {
  return pscan_reduce_by_key(ctx, b->keys, PSCAN_I32, b->in, PSCAN_I32, b->out, b->out2, b->n,
                             PSCAN_SUM, &b->count);
}
static pscan_status scan_by_key(pscan_ctx *ctx, buffers *b) {
  return pscan_scan_by_key(ctx, b->keys, PSCAN_I32, b->in, b->out, b->n, PSCAN_I32, PSCAN_MAX, 0,
                           NULL);
}

/* ---- buffers ---- */

static void alloc_outputs(buffers *b, size_t n) {
  b->n = n;
  b->out = test_malloc(n * sizeof *b->out);
  b->out2 = test_malloc(n * sizeof *b->out2);
  b->counts = test_malloc(2 * n * sizeof *b->counts);
}

static void free_outputs(buffers *b) {
  free(b->out);
  free(b->out2);
  free(b->counts);
}

static void poison_outputs(buffers *b) {
  test_poison(b->out, b->n * sizeof *b->out);
  test_poison(b->out2, b->n * sizeof *b->out2);
  test_poison(b->counts, 2 * b->n * sizeof *b->counts);
  test_poison(&b->count, sizeof b->count);
}

static bool outputs_poisoned(const buffers *b) {
  return test_is_poisoned(b->out, b->n * sizeof *b->out) &&
         test_is_poisoned(b->out2, b->n * sizeof *b->out2) &&
         test_is_poisoned(b->counts, 2 * b->n * sizeof *b->counts) &&
         test_is_poisoned(&b->count, sizeof b->count);
}

static bool outputs_equal(const buffers *a, const buffers *b) {
  return memcmp(a->out, b->out, a->n * sizeof *a->out) == 0 &&
         memcmp(a->out2, b->out2, a->n * sizeof *a->out2) == 0 &&
         memcmp(a->counts, b->counts, 2 * a->n * sizeof *a->counts) == 0 && a->count == b->count;
}

/* Values in [0, 100) in runs (each element starts a new run with probability 1/8), keys in runs
   of their own, random flags, affine maps with mostly odd slopes. */
static void fill_inputs(buffers *b, test_rng *r) {
  b->in = test_malloc(b->n * sizeof *b->in);
  b->keys = test_malloc(b->n * sizeof *b->keys);
  b->flags = test_malloc(b->n);
  b->affine = test_malloc(2 * b->n * sizeof *b->affine);
  for (size_t i = 0; i < b->n; i++) {
    b->in[i] = i == 0 || test_below(r, 8) == 0 ? (int32_t)test_below(r, 100) : b->in[i - 1];
    b->keys[i] = i == 0 || test_below(r, 16) == 0 ? (int32_t)test_below(r, 4) : b->keys[i - 1];
    b->flags[i] = (uint8_t)test_below(r, 2);
    b->affine[2 * i] = test_rand(r) | (test_below(r, 16) != 0);
    b->affine[2 * i + 1] = test_rand(r);
  }
}

/* ---- running a scenario ---- */

/* One call of s on ctx: right, or refused for memory and then right when repeated. */
static void call_once(const scenario *s, pscan_ctx *ctx, int step) {
  poison_outputs(&data);
  pscan_status st = s->call(ctx, &data);
  if (st != PSCAN_OK) {
    surfaced++;
    CHECK(st == PSCAN_ERR_OUT_OF_MEMORY, "%s, call %d: %s (%s)", s->name, step,
          pscan_status_name(st), pscan_last_error(ctx));
    CHECK(test_one_line(pscan_last_error(ctx)), "%s, call %d: no one-line pscan_last_error", s->name,
          step);
    CHECK(outputs_poisoned(&data), "%s, call %d: failed with %s but wrote an output", s->name,
          step, pscan_status_name(st));
    poison_outputs(&data);
    st = s->call(ctx, &data); /* the fault fires once: this one runs without */
    CHECK(st == PSCAN_OK, "%s, call %d: after a failure the call gave %s (%s)", s->name, step,
          pscan_status_name(st), pscan_last_error(ctx));
  }
  CHECK(outputs_equal(&data, &expected), "%s, call %d: wrong result%s", s->name, step,
        st == PSCAN_OK ? "" : " after a failure");
}

/* s on a fresh context: create, the calls (THREADS set before each), destroy. */
static void run_scenario(const scenario *s) {
  pscan_ctx *ctx = (pscan_ctx *)&data; /* a failed create must set it to NULL */
  pscan_status st = pscan_create(&ctx, PSCAN_BACKEND_CPU);
  if (st != PSCAN_OK) {
    surfaced++;
    CHECK(st == PSCAN_ERR_OUT_OF_MEMORY && ctx == NULL && test_one_line(pscan_last_error(NULL)),
          "%s: pscan_create gave %s, ctx %p, \"%s\"", s->name, pscan_status_name(st), (void *)ctx,
          pscan_last_error(NULL));
    return;
  }
  test_set(ctx, PSCAN_PARAM_ALGO, s->algo);
  test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, (int64_t)(data.n / 32));
  for (int i = 0; s->call && i < 4 && s->threads[i]; i++) {
    test_set(ctx, PSCAN_PARAM_THREADS, s->threads[i]);
    call_once(s, ctx, i);
  }
  pscan_destroy(ctx);
}

/* Runs s with the k-th fault point of kind failing; checks that it fired. */
static void run_with_fault(const scenario *s, pscan__fault_kind kind, long k) {
  pscan__fault_arm(kind, k);
  run_scenario(s);
  long passed = pscan__fault_disarm(kind);
  if (CHECK(passed > k, "%s: %s fault %ld of a run counted before was never reached (%ld)",
            s->name, kind == PSCAN__FAULT_ALLOC ? "allocation" : "thread", k, passed))
    injected++;
}

static void run_faults(const scenario *s) {
  if (s->call) {
    poison_outputs(&expected);
    CHECK_STATUS(s->call(oracle, &expected), PSCAN_OK);
  }
  pscan__fault_arm(PSCAN__FAULT_ALLOC, LONG_MAX);
  pscan__fault_arm(PSCAN__FAULT_THREAD, LONG_MAX);
  run_scenario(s);
  long allocs = pscan__fault_disarm(PSCAN__FAULT_ALLOC);
  long threads = pscan__fault_disarm(PSCAN__FAULT_THREAD);
  CHECK(allocs > 0, "%s: no allocation counted", s->name);
  for (long k = 0; k < allocs; k++)
    run_with_fault(s, PSCAN__FAULT_ALLOC, k);
  for (long k = 0; k < threads; k++)
    run_with_fault(s, PSCAN__FAULT_THREAD, k);
  printf("%-36s %2ld allocations, %2ld thread creations\n", s->name, allocs, threads);
}

/* ---- the scenarios ---- */

static const int algos[] = {PSCAN_ALGO_AUTO, PSCAN_ALGO_SEQUENTIAL, PSCAN_ALGO_DECOUPLED_LOOKBACK,
                            PSCAN_ALGO_CHAINED, PSCAN_ALGO_REDUCE_THEN_SCAN,
                            PSCAN_ALGO_SCAN_THEN_PROPAGATE};

static const struct {
  const char *name;
  call_fn call;
} compactions[] = {{"select_if", select_if},         {"select_flagged", select_flagged},
                   {"partition_if", partition_if},   {"unique", unique},
                   {"run_length_encode", run_length}, {"reduce_by_key", reduce_by_key},
                   {"scan_by_key", scan_by_key}};

static void scan_scenarios(void) {
  static const int thread_counts[] = {4, 16};
  for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++)
    for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
      scenario s = {.call = scan, .algo = algos[a], .threads = {thread_counts[t]}};
      snprintf(s.name, sizeof s.name, "scan %s, %d threads", pscan__algo_name(algos[a]),
               thread_counts[t]);
      run_faults(&s);
    }
}

static void other_scenarios(void) {
  scenario create = {.name = "create + destroy"};
  run_faults(&create);
  scenario cust = {.name = "custom scan, 4 threads", .call = custom,
                   .algo = PSCAN_ALGO_DECOUPLED_LOOKBACK, .threads = {4}};
  run_faults(&cust);
  for (size_t i = 0; i < sizeof compactions / sizeof *compactions; i++) {
    scenario s = {.call = compactions[i].call, .algo = PSCAN_ALGO_DECOUPLED_LOOKBACK,
                  .threads = {4}};
    snprintf(s.name, sizeof s.name, "%s, 4 threads", compactions[i].name);
    run_faults(&s);
  }
  scenario change = {.name = "scan, THREADS 4 -> 16 -> 2 -> 4", .call = scan,
                     .algo = PSCAN_ALGO_DECOUPLED_LOOKBACK, .threads = {4, 16, 2, 4}};
  run_faults(&change);
}

int main(void) {
  uint64_t seed = test_init("test_faults");
  test_rng rng = test_fork(seed, 1);
  /* Quick (sanitizers, valgrind): fewer elements; the partitions shrink with them (n / 32), so
     every call still runs on all its threads. */
  size_t n = test_quick() ? (size_t)1 << 12 : (size_t)1 << 18;
  alloc_outputs(&data, n);
  alloc_outputs(&expected, n);
  fill_inputs(&data, &rng);
  expected.in = data.in; /* the oracle reads the same inputs */
  expected.keys = data.keys;
  expected.flags = data.flags;
  expected.affine = data.affine;
  oracle = test_ctx(1);
  test_set(oracle, PSCAN_PARAM_ALGO, PSCAN_ALGO_SEQUENTIAL);

  other_scenarios();
  scan_scenarios();
  printf("%lu faults injected: %lu answered PSCAN_ERR_OUT_OF_MEMORY, %lu absorbed (call right)\n",
         injected, surfaced, injected - surfaced);

  pscan_destroy(oracle);
  free(data.in);
  free(data.keys);
  free(data.flags);
  free(data.affine);
  free_outputs(&data);
  free_outputs(&expected);
  return test_finish();
}
