/* The table, CSV, chart and create costs of `pscan bench --user-op` (user_op_report.h). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "user_op_report.h"
#include "bench_plot.h"
#include "timing.h"
#include "cli/cli.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>

void uop_table_header(void) {
  printf("%-11s %5s %-7s %7s %-24s %10s %9s %8s\n", "op", "bytes", "n", "threads",
         "implementation", "time (us)", "GB/s", "of copy");
}

void uop_row(const uop_out *o, const uop_case *c, size_t n, int threads, const char *label,
             const char *csv_impl, double s, double copy_s, double peer_s, const char *peer,
             bool charted) {
  double gbs = 2.0 * (double)n * (double)c->elem / s / 1e9;
  char n_s[32], t_s[16];
  cli_format_count(n, n_s, sizeof n_s);
  snprintf(t_s, sizeof t_s, threads ? "%d" : "-", threads);
  printf("%-11s %5zu %-7s %7s %-24s %10.2f %9.1f %7.1f%%", c->name, c->elem, n_s, t_s, label,
         s * 1e6, gbs, 100.0 * copy_s / s);
  if (peer_s > 0)
    printf("   %.2fx %s", peer_s / s, peer);
  putchar('\n');
  fflush(stdout);
  if (o->csv)
    fprintf(o->csv, "%s,%zu,%zu,%d,%s,%.9g,%.3f,%.4f,\"%s\"\n", c->name, c->elem, n, threads,
            csv_impl, s, gbs, copy_s / s, o->machine);
  if (o->chart && charted && threads == o->chart_threads) {
    char name[PLOT_LABEL];
    snprintf(name, sizeof name, "%s, %s", c->name, label);
    plot_series *p = plot_series_get(o->chart, name, false);
    if (p)
      plot_point(p, (double)n, 100.0 * copy_s / s);
  }
}

/* ---- create costs ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* One cold create in a fresh cache directory, one from the disk in a new context, one more in
   that context: their times in t[0..3). */
static int create_once(const uop_case *c, pscan_backend backend, double t[3]) {
  char dir[4096];
  const char *tmp = getenv("TMPDIR");
  tmp = tmp && *tmp ? tmp : "/tmp";
  snprintf(dir, sizeof dir, "%s/pscan-bench-cache-XXXXXX", tmp);
  if (!mkdtemp(dir)) {
    cli_error("bench", "--user-op: cannot make a cache directory under %s", tmp);
    return 1;
  }
  setenv("PSCAN_CACHE_DIR", dir, 1);
  pscan_op_desc d = uop_desc(c, 0);
  int rc = 0;
  for (int round = 0; round < 2 && rc == 0; round++) {
    pscan_ctx *ctx = NULL;
    pscan_user_op *op = NULL, *again = NULL;
    if (pscan_create(&ctx, backend) != PSCAN_OK) {
      cli_error("bench", "--user-op: pscan_create: %s", pscan_last_error(NULL));
      rc = 1;
      break;
    }
    double t0 = timing_now();
    rc = pscan_op_create(ctx, &d, &op) != PSCAN_OK;
    double t1 = timing_now();
    rc = rc || (round == 1 && pscan_op_create(ctx, &d, &again) != PSCAN_OK);
    t[round] = t1 - t0;
    if (round == 1)
      t[2] = timing_now() - t1;
    if (rc)
      cli_error("bench", "--user-op: pscan_op_create (%s): %s", c->name, pscan_last_error(ctx));
    pscan_op_destroy(again);
    pscan_op_destroy(op);
    pscan_destroy(ctx);
  }
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}

int uop_create_costs(const uop_out *o, pscan_backend backend, int rounds) {
  enum { MAX_ROUNDS = 16 };
  rounds = rounds < 1 ? 1 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
  const char *env = getenv("PSCAN_CACHE_DIR");
  char *saved = env ? strdup(env) : NULL;
  int rc = 0;
  fprintf(stderr, "pscan bench: --user-op: compiling each operator %d time%s\n", rounds,
          rounds > 1 ? "s" : "");
  printf("\n%-11s %5s %12s %12s %14s %16s\n", "op", "bytes", "cold (s)", "first (s)",
         "disk hit (ms)", "context hit (us)");
  for (int k = 0; k < UOP_NCASES && rc == 0; k++) {
    const uop_case *c = &uop_cases[k];
    double cold[MAX_ROUNDS], disk[MAX_ROUNDS], hit[MAX_ROUNDS], first = 0;
    for (int r = 0; r < rounds && rc == 0; r++) {
      double t[3] = {0, 0, 0};
      rc = create_once(c, backend, t);
      cold[r] = t[0], disk[r] = t[1], hit[r] = t[2];
      first = r == 0 ? t[0] : first;
    }
    if (rc)
      break;
    double mc = timing_median(cold, (size_t)rounds), md = timing_median(disk, (size_t)rounds),
           mh = timing_median(hit, (size_t)rounds);
    printf("%-11s %5zu %12.3f %12.3f %14.2f %16.2f\n", c->name, c->elem, mc, first, md * 1e3,
           mh * 1e6);
    if (o->csv) {
      const char *what[] = {"op_create_cold", "op_create_disk_hit", "op_create_context_hit"};
      double v[] = {mc, md, mh};
      for (int i = 0; i < 3; i++)
        fprintf(o->csv, "%s,%zu,0,0,%s,%.6g,,,\"%s\"\n", c->name, c->elem, what[i], v[i],
                o->machine);
    }
  }
  if (saved)
    setenv("PSCAN_CACHE_DIR", saved, 1);
  else
    unsetenv("PSCAN_CACHE_DIR");
  free(saved);
  fflush(stdout);
  return rc;
}

void uop_call_costs(const uop_out *o, size_t n, int threads, double user_s, double builtin_s) {
  printf("host time of one call at n = %zu (i32 SUM): user operator %.2f us, built-in %.2f us "
         "(%+.2f us)\n", n, user_s * 1e6, builtin_s * 1e6, (user_s - builtin_s) * 1e6);
  if (o->csv)
    fprintf(o->csv, "sum_i32,4,%zu,%d,call_host_time_user_op,%.6g,,,\"%s\"\n"
            "sum_i32,4,%zu,%d,call_host_time_builtin,%.6g,,,\"%s\"\n",
            n, threads, user_s, o->machine, n, threads, builtin_s, o->machine);
}

bool uop_plot_write(plot_chart *chart, const char *prefix, const char *what, const char *machine) {
  snprintf(chart->title, sizeof chart->title, "User operators (pscan_op_create), %s", what);
  snprintf(chart->subtitle, sizeof chart->subtitle, "%.200s, libpscan %s", machine,
           pscan_version_string());
  snprintf(chart->xlabel, sizeof chart->xlabel, "elements");
  snprintf(chart->ylabel, sizeof chart->ylabel, "%% of a copy of the same bytes");
  chart->x_pow2_labels = true;
  return bench_plot_save(chart, prefix, "user-op");
}
