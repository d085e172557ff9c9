/* The plots of `pscan bench --plot PREFIX` (see plot.h for how they are drawn), PNG unless
 * PREFIX ends in .svg (bench_plot_save): per type,
 *   PREFIX-throughput-TYPE.png  Gelem/s against n at the largest thread count measured, one line
 *                               per implementation, memcpy and the streaming copy dashed as the
 *                               ceilings (what runs on one thread only is drawn at one thread);
 *   PREFIX-scaling-TYPE.png     Gelem/s against threads at the largest n: pscan auto, the scan
 *                               peers and the two copies;
 *   PREFIX-speedup-TYPE.png     pscan auto's speedup over each scan peer (time of the peer / time
 *                               of pscan auto) against n, at the largest thread count (the GPU
 *                               run: over CUB and Thrust).
 * The read-only reduction is left out: it moves half the bytes, so it is no ceiling. */
#define _POSIX_C_SOURCE 200809L
#include "bench_plot.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool bench_report_group(const bench_group *g, const bench_csv *csv, const char *machine,
                        bench_plot *plots) {
  bench_print_group(g);
  if (csv->f)
    bench_csv_group(csv->f, g, machine);
  return !plots || bench_plot_add(plots, g);
}

bool bench_plot_add(bench_plot *p, const bench_group *g) {
  if (p->count + g->count > p->cap) {
    int cap = p->cap ? p->cap : 256;
    while (cap < p->count + g->count)
      cap *= 2;
    bench_result *r = realloc(p->r, (size_t)cap * sizeof *r);
    if (!r) {
      cli_error("bench", "out of memory for the plots");
      return false;
    }
    p->r = r, p->cap = cap;
  }
  memcpy(p->r + p->count, g->r, (size_t)g->count * sizeof *g->r);
  p->count += g->count;
  return true;
}

void bench_plot_free(bench_plot *p) {
  free(p->r);
  *p = (bench_plot){NULL, 0, 0};
}

/* The directory of prefix ("." when it names none). */
static void prefix_dir(const char *prefix, char *dir, size_t len) {
  const char *slash = strrchr(prefix, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == prefix)
    snprintf(dir, len, "/");
  else
    snprintf(dir, len, "%.*s", (int)(slash - prefix), prefix);
}

bool bench_plot_check(const char *prefix) {
  char dir[4096];
  prefix_dir(prefix, dir, sizeof dir);
  if (access(dir, W_OK | X_OK) != 0) {
    cli_error("bench", "--plot %s: cannot write in %s: %s", prefix, dir, strerror(errno));
    return false;
  }
  return true;
}

const char *bench_plot_ext(const char *prefix, int *stem) {
  size_t n = strlen(prefix);
  *stem = (int)n;
  if (n > 4 && (strcmp(prefix + n - 4, ".svg") == 0 || strcmp(prefix + n - 4, ".png") == 0)) {
    *stem = (int)n - 4;
    return prefix + n - 4;
  }
  return ".png";
}

bool bench_plot_save(const plot_chart *c, const char *prefix, const char *suffix) {
  char path[4096];
  int stem;
  const char *ext = bench_plot_ext(prefix, &stem);
  snprintf(path, sizeof path, "%.*s-%s%s", stem, prefix, suffix, ext);
  int err = plot_write(c, path);
  if (err) {
    cli_error("bench", "cannot write %s: %s", path, strerror(err));
    return false;
  }
  printf("wrote %s\n", path);
  return true;
}

/* ---- choosing the points ---- */

static bool same_impl(const bench_result *a, const bench_result *b) {
  bool algos = a->impl == IMPL_PSCAN || a->impl == IMPL_CUDA_PSCAN;
  return a->impl == b->impl && (!algos || a->algo == b->algo);
}

/* Whether r's implementation was measured on more than one thread (for type t). */
static bool multi_threaded(const bench_plot *p, const bench_result *r) {
  for (int i = 0; i < p->count; i++)
    if (p->r[i].type == r->type && same_impl(&p->r[i], r) && p->r[i].threads > 1)
      return true;
  return false;
}

static void type_extent(const bench_plot *p, pscan_dtype t, int *max_threads, size_t *max_n) {
  *max_threads = 0, *max_n = 0;
  for (int i = 0; i < p->count; i++)
    if (p->r[i].type == t) {
      *max_threads = p->r[i].threads > *max_threads ? p->r[i].threads : *max_threads;
      *max_n = p->r[i].n > *max_n ? p->r[i].n : *max_n;
    }
}

static bool is_copy(bench_impl i) {
  return i == IMPL_MEMCPY || i == IMPL_STREAM_COPY || i == IMPL_CUDA_MEMCPY;
}

/* Adds r to its series of c: labelled as in the table, "(1 thread)" added where the others run
   on more; the copies dashed. */
static void add_point(plot_chart *c, const bench_result *r, double x, bool one_thread_note) {
  char label[PLOT_LABEL];
  bench_impl_label(r, label, sizeof label);
  if (one_thread_note)
    strncat(label, " (1 thread)", sizeof label - strlen(label) - 1);
  if (is_copy(r->impl))
    strncat(label, " (ceiling)", sizeof label - strlen(label) - 1);
  plot_series *s = plot_series_get(c, label, is_copy(r->impl));
  if (s)
    s->bold = (r->impl == IMPL_PSCAN || r->impl == IMPL_CUDA_PSCAN) && r->algo == PSCAN_ALGO_AUTO;
  plot_point(s, x, (double)r->n / r->seconds * 1e-9);
}

static void chart_text(plot_chart *c, const char *machine, const char *xlabel) {
  snprintf(c->subtitle, sizeof c->subtitle, "%s", machine);
  snprintf(c->xlabel, sizeof c->xlabel, "%s", xlabel);
  snprintf(c->ylabel, sizeof c->ylabel, "Gelem/s (median)");
}

static bool throughput(const bench_plot *p, pscan_dtype t, const char *prefix,
                       const char *machine) {
  static plot_chart c;
  int threads;
  size_t max_n;
  char suffix[64];
  type_extent(p, t, &threads, &max_n);
  memset(&c, 0, sizeof c);
  for (int i = 0; i < p->count; i++) {
    const bench_result *r = &p->r[i];
    bool single = r->threads == 1 && threads > 1 && !multi_threaded(p, r);
    if (r->type == t && r->impl != IMPL_REDUCE && (r->threads == threads || single))
      add_point(&c, r, (double)r->n, single);
  }
  if (threads == 0) /* the GPU benchmark's rows */
    snprintf(c.title, sizeof c.title, "inclusive sum, %s, GPU: throughput vs size",
             cli_dtype_name(t));
  else
    snprintf(c.title, sizeof c.title, "inclusive sum, %s, %d thread%s: throughput vs size",
             cli_dtype_name(t), threads, threads == 1 ? "" : "s");
  chart_text(&c, machine, "elements (n)");
  c.x_pow2_labels = true;
  snprintf(suffix, sizeof suffix, "throughput-%s", cli_dtype_name(t));
  return bench_plot_save(&c, prefix, suffix);
}

static bool scaling(const bench_plot *p, pscan_dtype t, const char *prefix, const char *machine) {
  static plot_chart c;
  int threads;
  size_t n;
  char suffix[64], count[32];
  type_extent(p, t, &threads, &n);
  if (threads == 0) /* GPU rows: no thread axis */
    return true;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < p->count; i++) {
    const bench_result *r = &p->r[i];
    bool wanted = r->impl == IMPL_PSCAN ? r->algo == PSCAN_ALGO_AUTO : r->impl != IMPL_REDUCE;
    if (r->type == t && r->n == n && wanted)
      add_point(&c, r, r->threads, false);
  }
  snprintf(c.title, sizeof c.title, "inclusive sum, %s, n = %s: speed vs threads",
           cli_dtype_name(t), cli_format_count(n, count, sizeof count));
  chart_text(&c, machine, "threads");
  snprintf(suffix, sizeof suffix, "scaling-%s", cli_dtype_name(t));
  return bench_plot_save(&c, prefix, suffix);
}

/* A scan peer: what a user would call instead of pscan (not a copy, not the reduction). */
static bool is_peer(bench_impl i) {
  return i == IMPL_PLAIN_LOOP || i == IMPL_STD_SEQ || i == IMPL_STD_PAR || i == IMPL_TBB ||
         i == IMPL_OMP || i == IMPL_CUB || i == IMPL_THRUST;
}
static bool is_pscan_auto(const bench_result *r) {
  return (r->impl == IMPL_PSCAN || r->impl == IMPL_CUDA_PSCAN) && r->algo == PSCAN_ALGO_AUTO;
}

/* The seconds of pscan auto at (t, n, threads); 0 when not measured. */
static double auto_seconds(const bench_plot *p, pscan_dtype t, size_t n, int threads) {
  for (int i = 0; i < p->count; i++)
    if (p->r[i].type == t && p->r[i].n == n && p->r[i].threads == threads &&
        is_pscan_auto(&p->r[i]))
      return p->r[i].seconds;
  return 0;
}

static bool speedup(const bench_plot *p, pscan_dtype t, const char *prefix, const char *machine) {
  static plot_chart c;
  int threads;
  size_t max_n;
  char suffix[64], label[PLOT_LABEL];
  type_extent(p, t, &threads, &max_n);
  memset(&c, 0, sizeof c);
  for (int i = 0; i < p->count; i++) {
    const bench_result *r = &p->r[i];
    bool single = r->threads == 1 && threads > 1 && !multi_threaded(p, r);
    double mine = auto_seconds(p, t, r->n, threads);
    if (r->type != t || !is_peer(r->impl) || !(r->threads == threads || single) || mine <= 0)
      continue;
    char peer[PLOT_LABEL - 20]; /* room for "over " and " (1 thread)" */
    bench_impl_label(r, peer, sizeof peer);
    snprintf(label, sizeof label, "over %s%s", peer, single ? " (1 thread)" : "");
    plot_point(plot_series_get(&c, label, false), (double)r->n, r->seconds / mine);
  }
  if (threads == 0)
    snprintf(c.title, sizeof c.title, "pscan auto's speedup over the peers, %s, GPU",
             cli_dtype_name(t));
  else
    snprintf(c.title, sizeof c.title, "pscan auto's speedup over the peers, %s, %d thread%s",
             cli_dtype_name(t), threads, threads == 1 ? "" : "s");
  snprintf(c.subtitle, sizeof c.subtitle, "%s", machine);
  snprintf(c.xlabel, sizeof c.xlabel, "elements (n)");
  snprintf(c.ylabel, sizeof c.ylabel, "speedup (x, median times)");
  c.x_pow2_labels = true;
  snprintf(suffix, sizeof suffix, "speedup-%s", cli_dtype_name(t));
  return bench_plot_save(&c, prefix, suffix);
}

bool bench_plot_write(const bench_plot *p, const char *prefix, const char *machine) {
  bool ok = true, done[PSCAN_DTYPE_COUNT] = {false};
  for (int i = 0; i < p->count; i++) {
    pscan_dtype t = p->r[i].type;
    if (done[t])
      continue;
    done[t] = true;
    ok = throughput(p, t, prefix, machine) && ok;
    ok = scaling(p, t, prefix, machine) && ok;
    ok = speedup(p, t, prefix, machine) && ok;
  }
  return ok;
}
