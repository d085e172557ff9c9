/* `pscan bench --user-op` on the CPU backend: operators from source (pscan_op_create, compiled
 * with the system C compiler into a cached shared object) and the same operators as host
 * functions (host_fn: nothing compiled, a call per combination), on each thread count, beside a
 * streaming copy of the same bytes on as many threads (peers_cpu.c) and the obvious one-thread C
 * loop with the operator inlined (what a C user writes; also the reference every output is
 * checked against, exact in any order: user_op_cases.h); for the i32 SUM also the built-in
 * pscan_inclusive_scan. Then the costs around a call (user_op_report.h). Timing: rounds.h, as
 * every CPU figure of `pscan bench`. */
#include "bench_user_op.h"
#include "rounds.h"
#include "report.h"
#include "team.h"
#include "timing.h"
#include "user_op_report.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "peers/peers_cpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CALL_N = 1024 };

typedef enum cimpl { CI_COPY, CI_COMPILED, CI_HOST_FN, CI_BUILTIN, CI_LOOP, CI_COUNT } cimpl;
static const char *const cimpl_names[CI_COUNT] = {"streaming copy", "pscan user op",
                                                  "pscan host_fn", "pscan built-in", "C loop"};
static const char *const cimpl_csv[CI_COUNT] = {"stream_copy", "pscan_user_op", "pscan_host_fn",
                                                "pscan_builtin", "c_loop"};

typedef struct cpu_bench {
  pscan_ctx *ctx;
  pscan_user_op *compiled[UOP_NCASES], *host[UOP_NCASES]; /* compiled: NULL without a compiler */
  unsigned char *in, *out, *ref; /* ref: the C loop's output */
  team *tm;                      /* the copy's threads (the current thread count) */
  uop_out out_;
} cpu_bench;

typedef struct call_args {
  cpu_bench *b;
  const uop_case *c;
  cimpl i;
  size_t n;
  int threads;
} call_args;

static int pscan_failed(const cpu_bench *b, const char *what, const uop_case *c) {
  cli_error("bench", "--user-op: %s (%s): %s", what, c->name, pscan_last_error(b->ctx));
  return 1;
}

static int call_once(void *arg) {
  call_args *a = arg;
  cpu_bench *b = a->b;
  size_t k = (size_t)(a->c - uop_cases);
  switch (a->i) {
  case CI_COPY: peer_stream_copy(b->tm, b->out, b->in, a->n * a->c->elem); return 0;
  case CI_LOOP: a->c->loop(b->out, b->in, a->n); return 0;
  case CI_BUILTIN:
    return pscan_inclusive_scan(b->ctx, b->in, b->out, a->n, PSCAN_I32, PSCAN_SUM) == PSCAN_OK
               ? 0
               : pscan_failed(b, "pscan_inclusive_scan", a->c);
  default:
    return pscan_scan_op(b->ctx, b->in, b->out, a->n,
                         a->i == CI_COMPILED ? b->compiled[k] : b->host[k], 0, NULL) == PSCAN_OK
               ? 0
               : pscan_failed(b, "pscan_scan_op", a->c);
  }
}

/* Before each sample: the context's thread count for this implementation. */
static int set_threads(void *arg) {
  call_args *a = arg;
  return pscan_set_param(a->b->ctx, PSCAN_PARAM_THREADS, a->threads) == PSCAN_OK
             ? 0
             : pscan_failed(a->b, "pscan_set_param", a->c);
}

/* The output against the reference (the input, for the copy). */
static int check(const cpu_bench *b, const call_args *a) {
  const uop_case *c = a->c;
  const unsigned char *want = a->i == CI_COPY ? b->in : b->ref;
  for (size_t j = 0; j < a->n; j++)
    if (!uop_equal(c, b->out + j * c->elem, want + j * c->elem)) {
      char n_s[32];
      cli_error("bench", "--user-op: WRONG RESULT: %s of %s at n = %s, %d threads, differs from "
                "the C loop at element %zu", cimpl_names[a->i], c->name,
                cli_format_count(a->n, n_s, sizeof n_s), a->threads, j);
      return 1;
    }
  return 0;
}

/* Every implementation of (c, n) at `threads` (the C loop too where loop is set), reported. */
static int measure(cpu_bench *b, const uop_case *c, size_t n, int threads, bool loop, int reps) {
  call_args args[CI_COUNT];
  rounds_impl m[CI_COUNT];
  int count = 0;
  for (int i = 0; i < CI_COUNT; i++) {
    size_t k = (size_t)(c - uop_cases);
    if ((i == CI_BUILTIN && c->peer != PEER_UOP_SUM_I32) || (i == CI_LOOP && !loop) ||
        (i == CI_COMPILED && !b->compiled[k]))
      continue;
    args[count] = (call_args){b, c, (cimpl)i, n, i == CI_LOOP ? 1 : threads};
    m[count] = (rounds_impl){.call = call_once, .before = set_threads, .arg = &args[count],
                             .name = cimpl_names[i], .want = reps};
    memset(b->out, 0x7F, n * c->elem);
    if (set_threads(&args[count]) || rounds_warm_up(&m[count]) ||
        (i != CI_LOOP && check(b, &args[count])) || rounds_calibrate(&m[count], 0))
      return 1;
    count++;
  }
  if (rounds_run(m, count, NULL, NULL))
    return 1;
  double copy = m[0].seconds, loop_s = loop ? m[count - 1].seconds : 0;
  for (int j = 0; j < count; j++) {
    cimpl i = args[j].i;
    bool by_loop = loop && (i == CI_COMPILED || i == CI_HOST_FN || i == CI_BUILTIN);
    uop_row(&b->out_, c, n, args[j].threads, cimpl_names[i], cimpl_csv[i], m[j].seconds, copy,
            by_loop ? loop_s : 0, "C loop", i != CI_COPY);
  }
  return 0;
}

/* Whether (c, n)'s three buffers fit in budget bytes (0: unknown, taken as enough). */
static bool fits(const uop_case *c, size_t n, size_t budget) {
  return n <= SIZE_MAX / 3 / c->elem && (!budget || 3 * n * c->elem <= budget);
}

static int sweep(cpu_bench *b, const size_t *sizes, int nsizes, const int *threads, int nthreads,
                 int reps) {
  size_t budget = sysinfo_available_memory() / 10 * 8;
  uop_table_header();
  for (int k = 0; k < UOP_NCASES; k++)
    for (int s = 0; s < nsizes; s++) {
      const uop_case *c = &uop_cases[k];
      size_t n = sizes[s];
      char n_s[32];
      cli_format_count(n, n_s, sizeof n_s);
      if (!fits(c, n, budget)) {
        fprintf(stderr, "pscan bench: --user-op: skipping %s at n = %s: its three buffers do not "
                "fit in 80%% of the memory available\n", c->name, n_s);
        continue;
      }
      for (size_t j = 0; j < n; j++)
        c->fill(b->in + j * c->elem, j);
      c->loop(b->ref, b->in, n);
      for (int t = 0; t < nthreads; t++) {
        fprintf(stderr, "pscan bench: --user-op: %s, n = %s, %d thread%s\n", c->name, n_s,
                threads[t], threads[t] > 1 ? "s" : "");
        team_destroy(b->tm);
        if (!(b->tm = team_create(threads[t]))) {
          cli_error("bench", "--user-op: cannot start %d threads", threads[t]);
          return 1;
        }
        if (measure(b, c, n, threads[t], t == 0, reps))
          return 1;
      }
    }
  return 0;
}

/* The time of one call at CALL_N items: the user SUM against the built-in, on `threads`. */
static int call_costs(cpu_bench *b, int threads, int rounds) {
  const uop_case *c = &uop_cases[UOP_NCASES - 1];
  double user[16], builtin[16];
  for (size_t j = 0; j < CALL_N; j++)
    c->fill(b->in + j * c->elem, j);
  for (int r = 0; r < rounds; r++)
    for (int which = 0; which < 2; which++) {
      call_args a = {b, c, which ? CI_BUILTIN : b->compiled[UOP_NCASES - 1] ? CI_COMPILED
                                                                             : CI_HOST_FN,
                     CALL_N, threads};
      if (set_threads(&a))
        return 1;
      double t = timing_now();
      for (int i = 0; i < 2000; i++)
        if (call_once(&a))
          return 1;
      (which ? builtin : user)[r] = (timing_now() - t) / 2000;
    }
  uop_call_costs(&b->out_, CALL_N, threads, timing_median(user, (size_t)rounds),
                 timing_median(builtin, (size_t)rounds));
  return 0;
}

static void close_bench(cpu_bench *b) {
  for (int k = 0; k < UOP_NCASES; k++) {
    pscan_op_destroy(b->compiled[k]);
    pscan_op_destroy(b->host[k]);
  }
  free(b->in);
  free(b->out);
  free(b->ref);
  team_destroy(b->tm);
  pscan_destroy(b->ctx);
}

/* The context, its operators (compiled and host_fn) and three buffers of max_bytes. */
static int open_bench(cpu_bench *b, size_t max_bytes, bool *compiler) {
  if (pscan_create(&b->ctx, PSCAN_BACKEND_CPU) != PSCAN_OK) {
    cli_error("bench", "--user-op: pscan_create: %s", pscan_last_error(NULL));
    return 1;
  }
  *compiler = true;
  for (int k = 0; k < UOP_NCASES; k++) {
    pscan_op_desc d = uop_desc(&uop_cases[k], 0);
    pscan_status s = pscan_op_create(b->ctx, &d, &b->compiled[k]);
    if (s == PSCAN_ERR_UNSUPPORTED && *compiler) {
      *compiler = false;
      fprintf(stderr, "pscan bench: --user-op: %s: the compiled rows are left out\n",
              pscan_last_error(b->ctx));
    } else if (s != PSCAN_OK && s != PSCAN_ERR_UNSUPPORTED) {
      return pscan_failed(b, "pscan_op_create", &uop_cases[k]);
    }
    d.host_fn = uop_cases[k].host;
    if (pscan_op_create(b->ctx, &d, &b->host[k]) != PSCAN_OK)
      return pscan_failed(b, "pscan_op_create (host_fn)", &uop_cases[k]);
  }
  b->in = malloc(max_bytes);
  b->out = malloc(max_bytes);
  b->ref = malloc(max_bytes);
  if (!b->in || !b->out || !b->ref) {
    cli_error("bench", "--user-op: cannot allocate 3 buffers of %zu bytes", max_bytes);
    return 1;
  }
  return 0;
}

int bench_user_op_cpu_run(const size_t *sizes, int nsizes, const int *threads, int nthreads,
                          int reps, bool quick, const char *csv_path, const char *plot_prefix) {
  size_t max_bytes = CALL_N * 4, budget = sysinfo_available_memory() / 10 * 8;
  bool any = false;
  for (int k = 0; k < UOP_NCASES; k++)
    for (int s = 0; s < nsizes; s++) {
      size_t bytes = sizes[s] * uop_cases[k].elem;
      if (!fits(&uop_cases[k], sizes[s], budget))
        continue;
      any = true;
      max_bytes = bytes > max_bytes ? bytes : max_bytes;
    }
  if (!any) {
    cli_error("bench", "--user-op: no size fits in memory (three buffers of n elements)");
    return 1;
  }
  static plot_chart chart;
  char machine[320];
  sysinfo_machine(machine, sizeof machine);
  int most = 1;
  for (int t = 0; t < nthreads; t++)
    most = threads[t] > most ? threads[t] : most;
  cpu_bench b = {.out_ = {.machine = machine, .chart = plot_prefix ? &chart : NULL,
                          .chart_threads = most}};
  bench_csv csv = {NULL, NULL};
  bool compiler = false;
  int rc = open_bench(&b, max_bytes, &compiler);
  if (rc == 0) {
    printf("pscan bench --user-op: libpscan %s, CPU backend on %s; median of %d runs\n"
           "operators from source (pscan_op_create: the system C compiler) and as host functions, "
           "against a streaming copy\nof the same bytes on as many threads (%s) and the one-thread "
           "C loop with the operator inlined\n(and the built-in SUM for sum_i32); GB/s counts "
           "bytes read + written (2 x n x element bytes); every output is\nchecked against the C "
           "loop's\n",
           pscan_version_string(), machine, reps, peer_stream_copy_kind());
    if (csv_path && !bench_csv_open_header(&csv, csv_path, UOP_CSV_HEADER))
      rc = 1;
    b.out_.csv = csv.f;
  }
  if (rc == 0)
    rc = sweep(&b, sizes, nsizes, threads, nthreads, reps);
  if (rc == 0)
    rc = call_costs(&b, most, quick ? 3 : 7);
  if (rc == 0 && compiler)
    rc = uop_create_costs(&b.out_, PSCAN_BACKEND_CPU, quick ? 1 : 3);
  if (!bench_csv_close(&csv, csv_path, rc == 0) && rc == 0)
    rc = 1;
  if (rc == 0 && csv_path)
    printf("\nwrote %s\n", csv_path);
  if (rc == 0 && plot_prefix) {
    char what[64];
    snprintf(what, sizeof what, "CPU, %d thread%s", most, most > 1 ? "s" : "");
    if (!uop_plot_write(&chart, plot_prefix, what, machine))
      rc = 1;
  }
  close_bench(&b);
  return rc;
}
