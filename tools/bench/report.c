/* The report of `pscan bench`: the table on stdout and the CSV file. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "cli/cli.h"
#include "io/safe_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bench_impl_label(const bench_result *r, char *buf, size_t len) {
  switch (r->impl) {
  case IMPL_PSCAN: snprintf(buf, len, "pscan %s", cli_algo_name(r->algo)); break;
  case IMPL_PLAIN_LOOP: snprintf(buf, len, "plain loop"); break;
  case IMPL_MEMCPY: snprintf(buf, len, "memcpy"); break;
  case IMPL_STREAM_COPY: snprintf(buf, len, "streaming copy"); break;
  case IMPL_REDUCE: snprintf(buf, len, "read-only reduction"); break;
  case IMPL_STD_SEQ: snprintf(buf, len, "std::inclusive_scan"); break;
  case IMPL_STD_PAR: snprintf(buf, len, "std::inclusive_scan(par)"); break;
  case IMPL_TBB: snprintf(buf, len, "tbb::parallel_scan"); break;
  case IMPL_OMP: snprintf(buf, len, "OpenMP scan"); break;
  case IMPL_CUDA_PSCAN: snprintf(buf, len, "cuda %s", cli_algo_name(r->algo)); break;
  case IMPL_CUDA_MEMCPY: snprintf(buf, len, "cudaMemcpy"); break;
  case IMPL_CUB: snprintf(buf, len, "cub DeviceScan"); break;
  case IMPL_THRUST: snprintf(buf, len, "thrust inclusive_scan"); break;
  case IMPL_USER_OP: snprintf(buf, len, "pscan user-op affine f32"); break;
  }
  return buf;
}

static const char *impl_csv_name(bench_impl i) {
  static const char *const names[] = {[IMPL_PSCAN] = "pscan", [IMPL_PLAIN_LOOP] = "plain-loop",
                                      [IMPL_MEMCPY] = "memcpy", [IMPL_STREAM_COPY] = "stream-copy",
                                      [IMPL_REDUCE] = "reduce", [IMPL_STD_SEQ] = "std-seq",
                                      [IMPL_STD_PAR] = "std-par", [IMPL_TBB] = "tbb-scan",
                                      [IMPL_OMP] = "omp-scan", [IMPL_CUDA_PSCAN] = "pscan-cuda",
                                      [IMPL_CUDA_MEMCPY] = "cudaMemcpy", [IMPL_CUB] = "cub",
                                      [IMPL_THRUST] = "thrust", [IMPL_USER_OP] = "pscan-user-op"};
  return names[i];
}

/* ---- Reporting one (type, n) group: every thread count of it. ---- */

static bool on_gpu(bench_impl i) {
  return i == IMPL_CUDA_PSCAN || i == IMPL_CUDA_MEMCPY || i == IMPL_CUB || i == IMPL_THRUST;
}

/* r's speed as a fraction of impl's at the same type, n and threads; < 0 if not measured. A GPU
   row's memcpy is cudaMemcpy. */
static double fraction_of(const bench_group *g, const bench_result *r, bench_impl impl) {
  if (on_gpu(r->impl) && impl == IMPL_MEMCPY)
    impl = IMPL_CUDA_MEMCPY;
  for (int i = 0; i < g->count; i++) {
    const bench_result *c = &g->r[i];
    if (c->impl == impl && c->threads == r->threads)
      return c->seconds / r->seconds;
  }
  return -1;
}

static const char *percent(double f, char *buf, size_t len) {
  if (f < 0)
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.0f%%", f * 100);
  return buf;
}

/* Rows by thread count, then in measurement order (stable: insertion into a sorted list). */
static void sort_rows(const bench_group *g, int *order) {
  for (int i = 0; i < g->count; i++) {
    int j = i;
    for (; j > 0 && g->r[order[j - 1]].threads > g->r[i].threads; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
}

static bool is_scan_peer(bench_impl i) {
  return i == IMPL_PLAIN_LOOP || (i >= IMPL_STD_SEQ && i <= IMPL_OMP);
}

/* The first row of impl in g (of the library's CUDA backend: auto's); NULL if none. */
static const bench_result *find_impl(const bench_group *g, bench_impl impl) {
  for (int i = 0; i < g->count; i++)
    if (g->r[i].impl == impl && (impl != IMPL_CUDA_PSCAN || g->r[i].algo == PSCAN_ALGO_AUTO))
      return &g->r[i];
  return NULL;
}

/* One line per thread count: pscan auto against the fastest scan peer a user could run with as
   many threads (the one-thread peers included), and against the plain loop. */
static void print_ratios(const bench_group *g) {
  const bench_result *loop = find_impl(g, IMPL_PLAIN_LOOP);
  for (int i = 0; i < g->count; i++) {
    const bench_result *a = &g->r[i], *best = NULL;
    if (a->impl != IMPL_PSCAN || a->algo != PSCAN_ALGO_AUTO)
      continue;
    for (int j = 0; j < g->count; j++) {
      const bench_result *c = &g->r[j];
      if (is_scan_peer(c->impl) && (c->threads == a->threads || c->threads == 1) &&
          (!best || c->seconds < best->seconds))
        best = c;
    }
    if (!best)
      continue;
    char label[64];
    printf("  pscan auto, %d thread%s: %.2fx the best scan peer (%s, %d thread%s)", a->threads,
           a->threads == 1 ? "" : "s", best->seconds / a->seconds,
           bench_impl_label(best, label, sizeof label), best->threads,
           best->threads == 1 ? "" : "s");
    if (loop)
      printf(", %.2fx the plain loop", loop->seconds / a->seconds);
    putchar('\n');
  }
}

/* GPU groups: "pscan cuda auto: 1.11x CUB, 1.35x Thrust, 90% of cudaMemcpy". */
static void print_gpu_ratios(const bench_group *g) {
  static const struct {
    bench_impl impl;
    const char *name;
  } peers[] = {{IMPL_CUB, "CUB"}, {IMPL_THRUST, "Thrust"}};
  const bench_result *a = find_impl(g, IMPL_CUDA_PSCAN), *copy = find_impl(g, IMPL_CUDA_MEMCPY);
  const char *sep = ": ";
  if (!a)
    return;
  printf("  pscan cuda auto");
  for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
    const bench_result *p = find_impl(g, peers[i].impl);
    if (p)
      printf("%s%.2fx %s", sep, p->seconds / a->seconds, peers[i].name), sep = ", ";
  }
  if (copy)
    printf("%s%.0f%% of cudaMemcpy", sep, copy->seconds / a->seconds * 100);
  putchar('\n');
}

void bench_print_group(const bench_group *g) {
  static int order[CLI_MAX_LIST * BENCH_MAX_PER_POINT];
  const bench_result *first = &g->r[0];
  char count[32], size[32];
  double bytes = (double)first->n * (double)pscan_dtype_size(first->type);
  printf("\n%s, n = %s (%s in, as much out)", cli_dtype_name(first->type),
         cli_format_count(first->n, count, sizeof count), cli_format_bytes(bytes, size, sizeof size));
  if (g->others_known)
    printf("; meanwhile other processes kept %.2f cpus busy%s", g->others + g->steal,
           g->others + g->steal > 0.1 ? " (figures disturbed)" : "");
  putchar('\n');
  printf("  %-28s %7s %9s %9s %10s %10s\n", "implementation", "threads", "Gelem/s", "GB/s",
         "of stream", "of memcpy");
  sort_rows(g, order);
  for (int i = 0; i < g->count; i++) {
    const bench_result *r = &g->r[order[i]];
    char label[64], fs[16], fm[16], th[16];
    snprintf(th, sizeof th, on_gpu(r->impl) ? "-" : "%d", r->threads);
    printf("  %-28s %7s %9.3f %9.2f %10s %10s\n", bench_impl_label(r, label, sizeof label), th,
           (double)r->n / r->seconds * 1e-9, r->bytes / r->seconds * 1e-9,
           percent(fraction_of(g, r, IMPL_STREAM_COPY), fs, sizeof fs),
           percent(fraction_of(g, r, IMPL_MEMCPY), fm, sizeof fm));
  }
  print_ratios(g);
  print_gpu_ratios(g);
  fflush(stdout);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_fraction(FILE *f, double v) {
  if (v >= 0)
    fprintf(f, "%.4f", v);
}

void bench_csv_group(FILE *f, const bench_group *g, const char *machine) {
  for (int i = 0; i < g->count; i++) {
    const bench_result *r = &g->r[i];
    bool algo = r->impl == IMPL_PSCAN || r->impl == IMPL_CUDA_PSCAN;
    fprintf(f, "%s,%s,%s,%d,%zu,%.9g,%.6g,%.6g,", impl_csv_name(r->impl),
            algo ? cli_algo_name(r->algo) : "", cli_dtype_name(r->type),
            r->threads, r->n, r->seconds, (double)r->n / r->seconds * 1e-9,
            r->bytes / r->seconds * 1e-9);
    csv_fraction(f, fraction_of(g, r, IMPL_STREAM_COPY));
    fputc(',', f);
    csv_fraction(f, fraction_of(g, r, IMPL_MEMCPY));
    fputc(',', f);
    csv_field(f, machine);
    fputc('\n', f);
  }
}

/* The CSV goes to a temporary file (safe_out.h) and is renamed to FILE when the run is complete,
   so a failed run never leaves a file that looks finished. */
bool bench_csv_open(bench_csv *c, const char *path) {
  return bench_csv_open_header(c, path,
                               "impl,algo,type,threads,n,seconds_median,gelems,gbs,"
                               "frac_stream_copy,frac_memcpy,machine\n");
}

bool bench_csv_open_header(bench_csv *c, const char *path, const char *header) {
  c->out = malloc(sizeof *c->out);
  if (!c->out) {
    cli_error("bench", "out of memory");
    return false;
  }
  if (!sout_open(c->out, path)) {
    cli_error("bench", "--csv %s", c->out->err);
    sout_discard(c->out);
    free(c->out);
    c->out = NULL;
    return false;
  }
  c->f = c->out->f;
  fputs(header, c->f);
  return true;
}

/* Closes; on success renames to path, else removes the temporary file. */
bool bench_csv_close(bench_csv *c, const char *path, bool ok) {
  (void)path;
  if (!c->out)
    return ok;
  bool written = sout_close(c->out);
  if (ok && !written)
    cli_error("bench", "--csv %s", c->out->err);
  if (ok && written && !sout_commit(c->out)) {
    cli_error("bench", "--csv %s", c->out->err);
    written = false;
  }
  sout_discard(c->out);
  free(c->out);
  c->out = NULL;
  c->f = NULL;
  return ok && written;
}
