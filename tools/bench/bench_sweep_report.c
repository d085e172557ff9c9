/* `pscan bench --sweep`, its reports: a line per point on stdout, the CSV (written to
 * FILE.partial, renamed when complete), the summary of the worst points and the plots. */
#include "bench_sweep_report.h"

#include "bench_plot.h"
#include "cli/cli.h"
#include "plot/plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reporting ---- */

static double gbps(double bytes, double s) { return s > 0 ? bytes / s * 1e-9 : 0; }
static double x_peer(const sweep_result *r) { return r->pscan_s > 0 ? r->peer_s / r->pscan_s : 0; }
static double of_copy(const sweep_result *r) {
  double c = gbps(r->copy_bytes, r->copy_s);
  return c > 0 ? gbps(r->pscan_bytes, r->pscan_s) / c : 0;
}

/* The run length as the CSV and the table write it: n for one run over the whole input. */
static size_t run_value(const sweep_point *p) {
  return p->run_length == SWEEP_WHOLE ? p->n : p->run_length;
}

void sweep_print_row(const sweep_result *r) {
  char count[32], runs[32];
  const sweep_point *p = &r->p;
  if (p->run_length == SWEEP_WHOLE)
    snprintf(runs, sizeof runs, "whole");
  else if (p->run_length)
    snprintf(runs, sizeof runs, "%zu", p->run_length);
  else if (p->sel_pct >= 0)
    snprintf(runs, sizeof runs, "%d%%", p->sel_pct);
  else
    snprintf(runs, sizeof runs, "-");
  printf("%-18s %-4s %-6s %-6s %8.1f %8.1f %8.1f %7.2fx %6.1f%%  (%s)", sweep_op_name(p->op),
         cli_dtype_name(p->key), cli_format_count(p->n, count, sizeof count), runs,
         gbps(r->pscan_bytes, r->pscan_s), gbps(r->peer_bytes, r->peer_s),
         gbps(r->copy_bytes, r->copy_s), x_peer(r), 100 * of_copy(r), r->peer);
  if (r->read_s > 0)
    printf("  %5.1f%% of bound", 100 * sweep_of_bound(r));
  if (r->others > SWEEP_BUSY_NOTE)
    printf("  [other processes: %.2f cpus busy]", r->others);
  putchar('\n');
  fflush(stdout);
}

void sweep_csv_row(FILE *f, const sweep_result *r) {
  const sweep_point *p = &r->p;
  fprintf(f, "%s,%s,%zu,%zu,%d,%.3f,%.3f,%.3f\n", sweep_op_name(p->op), cli_dtype_name(p->key),
          p->n, run_value(p), p->sel_pct, gbps(r->pscan_bytes, r->pscan_s),
          gbps(r->peer_bytes, r->peer_s), gbps(r->copy_bytes, r->copy_s));
  fflush(f); /* a run stopped part way (a time limit) leaves every finished point in FILE.partial */
}

static void describe_point(const sweep_point *p, char *buf, size_t len) {
  char count[32];
  int m = snprintf(buf, len, "%s n=%s", cli_dtype_name(p->key), cli_format_count(p->n, count, sizeof count));
  if (m < 0 || (size_t)m >= len)
    return;
  if (p->run_length == SWEEP_WHOLE)
    snprintf(buf + m, len - (size_t)m, " one run");
  else if (p->run_length)
    snprintf(buf + m, len - (size_t)m, " run %zu", p->run_length);
  else if (p->sel_pct >= 0)
    snprintf(buf + m, len - (size_t)m, " %d%% selected", p->sel_pct);
}

/* Per op: the point with the lowest x peer, the one with the lowest % of copy and, where the read
   ceiling was measured, the one with the lowest % of its bound (sweep_of_bound). */
void sweep_print_summary(const sweep_result *r, int count, const char *peer_kind) {
  printf("\nsummary: the worst point per op (x %s = the peer's time / pscan's; %% of copy = "
         "pscan's GB/s of exact bytes / the copy's",
         peer_kind);
  if (count > 0 && r[0].read_s > 0)
    printf("; %% of bound = the time of reading the op's input at the read ceiling's rate or of "
           "moving its bytes at the copy's, whichever is longer, / pscan's time");
  printf(")\n");
  for (int op = 0; op < SWEEP_OP_COUNT; op++) {
    int wx = -1, wc = -1, wb = -1;
    for (int i = 0; i < count; i++) {
      if (r[i].p.op != (sweep_op)op)
        continue;
      if (wx < 0 || x_peer(&r[i]) < x_peer(&r[wx]))
        wx = i;
      if (wc < 0 || of_copy(&r[i]) < of_copy(&r[wc]))
        wc = i;
      if (r[i].read_s > 0 && (wb < 0 || sweep_of_bound(&r[i]) < sweep_of_bound(&r[wb])))
        wb = i;
    }
    if (wx < 0)
      continue;
    char a[96], b[96];
    describe_point(&r[wx].p, a, sizeof a);
    describe_point(&r[wc].p, b, sizeof b);
    printf("  %-18s worst x %s: %5.2fx (%s)   worst of copy: %5.1f%% (%s)", sweep_op_name((sweep_op)op),
           peer_kind, x_peer(&r[wx]), a, 100 * of_copy(&r[wc]), b);
    if (wb >= 0) {
      describe_point(&r[wb].p, b, sizeof b);
      printf("   worst of bound: %5.1f%% (%s)", 100 * sweep_of_bound(&r[wb]), b);
    }
    putchar('\n');
  }
}

/* ---- plots ---- */

static void chart_titles(plot_chart *c, const char *title, const char *machine, const char *x,
                         const char *y) {
  memset(c, 0, sizeof *c);
  snprintf(c->title, sizeof c->title, "%s", title);
  snprintf(c->subtitle, sizeof c->subtitle, "%s", machine);
  snprintf(c->xlabel, sizeof c->xlabel, "%s", x);
  snprintf(c->ylabel, sizeof c->ylabel, "%s", y);
}

/* Parity (1.0x) as a dashed line over the chart's x range. */
static void parity(plot_chart *c, double x0, double x1, const char *peer_kind) {
  char label[PLOT_LABEL];
  snprintf(label, sizeof label, "%s (1.0x)", peer_kind);
  plot_series *s = plot_series_get(c, label, true);
  plot_point(s, x0, 1.0);
  plot_point(s, x1, 1.0);
}

/* Per key type and compaction n: x peer against the run length (one line per op with runs;
   the whole-input run drawn at x = n) and against the selected % (0% drawn at 0.5). */
bool sweep_write_plots(const sweep_result *r, int count, const char *prefix, const char *machine,
                       const char *peer_kind) {
  static plot_chart c;
  char title[128], suffix[64], count_s[32], ylabel[64];
  bool ok = true;
  snprintf(ylabel, sizeof ylabel, "x %s (its time / pscan's)", peer_kind);
  for (int kind = 0; kind < 2; kind++)
    for (int i = 0; i < count; i++) {
      const sweep_point *p = &r[i].p;
      bool runs = kind == 0;
      if (p->op == SWEEP_SCAN || sweep_op_has_runs(p->op) != runs)
        continue;
      bool first = true; /* the first point of its (key, n) starts the chart */
      for (int j = 0; j < i && first; j++)
        if (r[j].p.key == p->key && r[j].p.n == p->n && r[j].p.op != SWEEP_SCAN &&
            sweep_op_has_runs(r[j].p.op) == runs)
          first = false;
      if (!first)
        continue;
      cli_format_count(p->n, count_s, sizeof count_s);
      snprintf(title, sizeof title, "%s, %s, n = %s: pscan against %s", runs ? "runs" : "selection",
               cli_dtype_name(p->key), count_s, peer_kind);
      chart_titles(&c, title, machine, runs ? "run length (one run: n)" : "selected % (0%: at 0.5)",
                   ylabel);
      c.x_pow2_labels = runs;
      double x0 = 1e300, x1 = 0;
      for (int j = i; j < count; j++) {
        const sweep_point *q = &r[j].p;
        if (q->key != p->key || q->n != p->n || q->op == SWEEP_SCAN ||
            sweep_op_has_runs(q->op) != runs)
          continue;
        double x = runs ? (double)run_value(q) : q->sel_pct ? (double)q->sel_pct : 0.5;
        plot_point(plot_series_get(&c, sweep_op_name(q->op), false), x, x_peer(&r[j]));
        x0 = x < x0 ? x : x0;
        x1 = x > x1 ? x : x1;
      }
      parity(&c, x0, x1, peer_kind);
      snprintf(suffix, sizeof suffix, "sweep-%s-%s-%zu", runs ? "runs" : "select",
               cli_dtype_name(p->key), p->n);
      ok = bench_plot_save(&c, prefix, suffix) && ok;
    }
  /* The scans: % of the copy against n, one line per dtype. */
  bool any = false;
  chart_titles(&c, "inclusive sum: pscan as % of the copy (exact bytes)", machine, "n",
               "% of the copy");
  c.x_pow2_labels = true;
  for (int i = 0; i < count; i++)
    if (r[i].p.op == SWEEP_SCAN) {
      plot_point(plot_series_get(&c, cli_dtype_name(r[i].p.key), false), (double)r[i].p.n,
                 100 * of_copy(&r[i]));
      any = true;
    }
  if (any)
    ok = bench_plot_save(&c, prefix, "sweep-scan") && ok;
  return ok;
}

/* The CSV goes to FILE.partial and is renamed to FILE once complete. */
FILE *sweep_csv_open(const char *path, char **partial) {
  size_t len = strlen(path) + sizeof ".partial";
  *partial = malloc(len);
  if (!*partial) {
    cli_error("bench", "out of memory");
    return NULL;
  }
  snprintf(*partial, len, "%s.partial", path);
  FILE *f = fopen(*partial, "w");
  if (!f) {
    cli_error("bench", "cannot write %s", *partial);
    free(*partial);
    *partial = NULL;
    return NULL;
  }
  fputs("op,key_type,n,run_length,selectivity_pct,pscan_GBps,cub_GBps,copy_GBps\n", f);
  return f;
}

bool sweep_csv_close(FILE *f, char *partial, const char *path, bool ok) {
  if (!f)
    return true;
  ok = fclose(f) == 0 && ok;
  if (ok && rename(partial, path) != 0) {
    cli_error("bench", "cannot rename %s to %s", partial, path);
    ok = false;
  }
  if (!ok)
    remove(partial);
  free(partial);
  return ok;
}
