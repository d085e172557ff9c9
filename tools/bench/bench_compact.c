/* `pscan bench --compact`: the CPU compaction family against what a C++ user would write
 * instead, in the same run: std::copy_if and std::partition_copy, sequential and with
 * std::execution::par (in a TBB arena of the same thread count), and a plain C loop; memcpy of
 * the input as the ceiling. int32 data, uniform bits, keep x < 0: 50% selected at random.
 * Timed as `pscan bench --cpu` times (rounds.h): a warm-up and a calibration call each, then
 * --reps rounds of one sample of every implementation, medians. (Issue 4's CPU goal: select_if
 * and partition_if >= 5x the parallel std peers on the 16-core host.) */
#include "bench_compact.h"

#include "bench_plot.h"
#include "rounds.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "io/safe_out.h"
#include "peers/peers_cxx.h"
#include "plot/plot.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  C_PSCAN_SELECT,
  C_PSCAN_PARTITION,
  C_LOOP_SELECT,
  C_STD_SEQ_SELECT,
  C_STD_PAR_SELECT,
  C_STD_PAR_PARTITION,
  C_MEMCPY,
  C_COUNT
} compact_impl;

static const char *const impl_names[C_COUNT] = {
    "pscan select_if",           "pscan partition_if", "plain loop select",
    "std::copy_if",              "std::copy_if par",   "std::partition_copy par",
    "memcpy"};

typedef struct compact_bufs {
  int32_t *in, *out, *out2;
  size_t n;
  pscan_ctx *ctx;
  int threads;
} compact_bufs;

static size_t loop_select(const int32_t *in, int32_t *out, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    out[k] = in[i];
    k += in[i] < 0 ? 1 : 0;
  }
  return k;
}

/* One call of impl; returns the count kept (memcpy: n). */
static size_t run_impl(compact_impl impl, const compact_bufs *b) {
  const int32_t zero = 0;
  size_t count = 0;
  switch (impl) {
  case C_PSCAN_SELECT:
    pscan_select_if(b->ctx, b->in, b->out, b->n, PSCAN_I32, PSCAN_LT, &zero, &count);
    break;
  case C_PSCAN_PARTITION:
    pscan_partition_if(b->ctx, b->in, b->out, b->n, PSCAN_I32, PSCAN_LT, &zero, &count);
    break;
  case C_LOOP_SELECT: count = loop_select(b->in, b->out, b->n); break;
  case C_STD_SEQ_SELECT: count = peer_cxx_select(PEER_STD_SEQ, 1, b->in, b->out, b->n, 0); break;
  case C_STD_PAR_SELECT:
    count = peer_cxx_select(PEER_STD_PAR, b->threads, b->in, b->out, b->n, 0);
    break;
  case C_STD_PAR_PARTITION:
    count = peer_cxx_partition(PEER_STD_PAR, b->threads, b->in, b->out, b->out2, b->n, 0);
    break;
  case C_MEMCPY:
    memcpy(b->out, b->in, b->n * sizeof *b->in);
    count = b->n;
    break;
  default: break;
  }
  return count;
}

static bool available(compact_impl impl) {
  if (impl == C_STD_SEQ_SELECT)
    return peer_cxx_available(PEER_STD_SEQ);
  if (impl == C_STD_PAR_SELECT || impl == C_STD_PAR_PARTITION)
    return peer_cxx_available(PEER_STD_PAR);
  return true;
}

/* One implementation at the point b describes, as rounds.h calls it. */
typedef struct timed {
  compact_impl impl;
  const compact_bufs *b;
} timed;

static int timed_call(void *arg) {
  const timed *t = arg;
  run_impl(t->impl, t->b);
  return 0;
}

/* Median seconds of every available implementation (0 for the others), timed in rounds. */
static int measure_all(const compact_bufs *b, int reps, double *sec) {
  timed t[C_COUNT];
  rounds_impl m[C_COUNT];
  int which[C_COUNT], k = 0;
  for (int i = 0; i < C_COUNT; i++) {
    sec[i] = 0;
    if (!available((compact_impl)i))
      continue;
    t[k] = (timed){(compact_impl)i, b};
    m[k] = (rounds_impl){.call = timed_call, .arg = &t[k], .name = impl_names[i], .want = reps,
                         .spins_after = i == C_STD_PAR_SELECT || i == C_STD_PAR_PARTITION};
    if (rounds_warm_up(&m[k]) || rounds_calibrate(&m[k], 0))
      return 1;
    which[k++] = i;
  }
  if (rounds_run(m, k, NULL, NULL))
    return 1;
  for (int j = 0; j < k; j++)
    sec[which[j]] = m[j].seconds;
  return 0;
}

static void chart_init(plot_chart *c, size_t n) {
  char count[32], machine[320];
  memset(c, 0, sizeof *c);
  snprintf(c->title, sizeof c->title, "compaction, int32, 50%% selected, n = %s: speed vs threads",
           cli_format_count(n, count, sizeof count));
  sysinfo_machine(machine, sizeof machine);
  snprintf(c->subtitle, sizeof c->subtitle, "%s", machine);
  snprintf(c->xlabel, sizeof c->xlabel, "threads");
  snprintf(c->ylabel, sizeof c->ylabel, "Gelem/s of input (median)");
}

/* memcpy is the ceiling (dashed); pscan select_if the headline (bold). */
static void chart_point(plot_chart *c, compact_impl impl, int threads, double gelems) {
  plot_series *s = plot_series_get(c, impl_names[impl], impl == C_MEMCPY);
  if (s)
    s->bold = impl == C_PSCAN_SELECT;
  plot_point(s, threads, gelems);
}

int bench_compact_run(const size_t *sizes, int nsizes, const int *threads, int nthreads, int reps,
                      const char *csv_path, const char *plot_prefix) {
  static plot_chart chart;
  size_t max_n = 0;
  for (int s = 0; s < nsizes; s++)
    max_n = sizes[s] > max_n ? sizes[s] : max_n;
  compact_bufs b = {malloc(max_n * 4), malloc(max_n * 4), malloc(max_n * 4), 0, NULL, 1};
  sout csv_out = {.slot = -1};
  bool csv_ok = !csv_path || sout_open(&csv_out, csv_path);
  FILE *csv = csv_path && csv_ok ? csv_out.f : NULL;
  if (!b.in || !b.out || !b.out2 || !csv_ok ||
      pscan_create(&b.ctx, PSCAN_BACKEND_CPU) != PSCAN_OK) {
    if (!csv_ok)
      cli_error("bench", "--csv %s", csv_out.err);
    else
      cli_error("bench", "out of memory");
    free(b.in), free(b.out), free(b.out2);
    sout_discard(&csv_out);
    return 1;
  }
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < max_n; i++) { /* xorshift bits: the sign is a fair coin */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b.in[i] = (int32_t)(uint32_t)x;
  }
  if (csv)
    fprintf(csv, "impl,n,threads,seconds_median,gelem_per_s\n");
  chart_init(&chart, max_n);
  printf("compaction, int32, 50%% selected (x < 0 on uniform bits), medians of %d; Gelem/s of "
         "input\n",
         reps);
  for (int s = 0; s < nsizes; s++)
    for (int k = 0; k < nthreads; k++) {
      b.n = sizes[s];
      b.threads = threads[k];
      pscan_set_param(b.ctx, PSCAN_PARAM_THREADS, threads[k]);
      double sec[C_COUNT] = {0};
      printf("\nn = %zu, %d thread%s\n", b.n, b.threads, b.threads > 1 ? "s" : "");
      if (measure_all(&b, reps, sec)) {
        pscan_destroy(b.ctx);
        free(b.in), free(b.out), free(b.out2);
        sout_discard(&csv_out);
        return 1;
      }
      for (int i = 0; i < C_COUNT; i++) {
        if (sec[i] == 0)
          continue;
        printf("  %-26s %9.3f ms %7.2f Gelem/s\n", impl_names[i], sec[i] * 1e3,
               (double)b.n / sec[i] * 1e-9);
        if (csv)
          fprintf(csv, "%s,%zu,%d,%.9g,%.4f\n", impl_names[i], b.n, b.threads, sec[i],
                  (double)b.n / sec[i] * 1e-9);
        if (b.n == max_n)
          chart_point(&chart, (compact_impl)i, b.threads, (double)b.n / sec[i] * 1e-9);
      }
      if (sec[C_STD_PAR_SELECT] > 0)
        printf("  pscan select_if / std::copy_if par: %.2fx; pscan partition_if / "
               "std::partition_copy par: %.2fx\n",
               sec[C_STD_PAR_SELECT] / sec[C_PSCAN_SELECT],
               sec[C_STD_PAR_PARTITION] / sec[C_PSCAN_PARTITION]);
      printf("  pscan select_if / plain loop: %.2fx\n", sec[C_LOOP_SELECT] / sec[C_PSCAN_SELECT]);
    }
  pscan_destroy(b.ctx);
  free(b.in), free(b.out), free(b.out2);
  if (csv && !(sout_close(&csv_out) && sout_commit(&csv_out))) {
    cli_error("bench", "--csv %s", csv_out.err);
    sout_discard(&csv_out);
    return 1;
  }
  sout_discard(&csv_out);
  if (plot_prefix) {
    putchar('\n');
    return bench_plot_save(&chart, plot_prefix, "compact") ? 0 : 1;
  }
  return 0;
}
