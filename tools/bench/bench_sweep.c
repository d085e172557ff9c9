/* `pscan bench --sweep`: plans the points of the sweep, hands them to a backend (the CPU's or the
 * GPU's) one at a time, and reports them (bench_sweep_report.c: a line per point on stdout, the
 * CSV, the plots and the summary). What the points are and how bytes are counted: bench_sweep.h. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "bench_sweep.h"
#include "bench_sweep_report.h"

#include "timing.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[SWEEP_OP_COUNT] = {
#define X(E, name) name,
    SWEEP_OPS(X)
#undef X
};

const char *sweep_op_name(sweep_op op) { return op < SWEEP_OP_COUNT ? op_names[op] : "?"; }

bool sweep_op_has_runs(sweep_op op) {
  return op == SWEEP_UNIQUE || op == SWEEP_RUN_LENGTH_ENCODE || op == SWEEP_REDUCE_BY_KEY ||
         op == SWEEP_SCAN_BY_KEY;
}

bool sweep_op_is_select(sweep_op op) {
  return op == SWEEP_SELECT_IF || op == SWEEP_SELECT_FLAGGED || op == SWEEP_PARTITION_IF;
}

int sweep_refill(sweep_held *held, const sweep_point *p,
                 int (*fill)(void *arg, sweep_fill what, const sweep_point *p), void *arg) {
  sweep_fill in = p->op == SWEEP_SCAN         ? SWEEP_FILL_SCAN
                  : sweep_op_has_runs(p->op) ? SWEEP_FILL_KEYS
                                             : SWEEP_FILL_ITEMS;
  int e;
  if (held->input != 1 + (int)in || held->type != p->key || held->n != p->n ||
      held->run_length != p->run_length) {
    if ((e = fill(arg, in, p)) != 0)
      return e;
    held->input = 1 + (int)in, held->type = p->key, held->n = p->n;
    held->run_length = p->run_length;
  }
  if ((p->op == SWEEP_REDUCE_BY_KEY || p->op == SWEEP_SCAN_BY_KEY) &&
      (held->vals_type != p->val || held->vals_n != p->n)) {
    if ((e = fill(arg, SWEEP_FILL_VALS, p)) != 0)
      return e;
    held->vals_type = p->val, held->vals_n = p->n;
  }
  if (p->op == SWEEP_SELECT_FLAGGED && (held->flags_pct != p->sel_pct || held->flags_n != p->n)) {
    if ((e = fill(arg, SWEEP_FILL_FLAGS, p)) != 0)
      return e;
    held->flags_pct = p->sel_pct, held->flags_n = p->n;
  }
  return 0;
}

bool sweep_parse_ops(const char *list, unsigned *mask) {
  char buf[512];
  *mask = 0;
  if (strlen(list) >= sizeof buf) {
    cli_usage_error("bench", "--ops: list too long");
    return false;
  }
  strcpy(buf, list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = 0;
    if (strcmp(t, "scan") == 0) {
      *mask |= 1u << SWEEP_SCAN;
      continue;
    }
    if (strcmp(t, "compact") == 0) {
      *mask |= (1u << SWEEP_SCAN) - 1;
      continue;
    }
    while (k < SWEEP_OP_COUNT && strcmp(t, op_names[k]) != 0)
      k++;
    if (k == SWEEP_OP_COUNT) {
      cli_usage_error("bench", "--ops: unknown op '%s' (select_if, select_flagged, partition_if, "
                               "unique, run_length_encode, reduce_by_key, scan_by_key, "
                               "inclusive_scan or scan, compact)",
                      t);
      return false;
    }
    *mask |= 1u << k;
  }
  if (*mask == 0) {
    cli_usage_error("bench", "--ops needs at least one op");
    return false;
  }
  return true;
}

double sweep_bytes(const sweep_point *p, size_t count, size_t count_bytes) {
  double n = (double)p->n, c = (double)count;
  double ks = (double)pscan_dtype_size(p->key), vs = (double)pscan_dtype_size(p->val);
  switch (p->op) {
  case SWEEP_SELECT_IF: return n * ks + c * ks;
  case SWEEP_SELECT_FLAGGED: return n * ks + n + c * ks;
  case SWEEP_PARTITION_IF: return 2 * n * ks;
  case SWEEP_UNIQUE: return n * ks + c * ks;
  case SWEEP_RUN_LENGTH_ENCODE: return n * ks + c * ks + c * (double)count_bytes;
  case SWEEP_REDUCE_BY_KEY: return n * (ks + vs) + c * (ks + vs);
  case SWEEP_SCAN_BY_KEY: return n * (ks + vs) + n * vs;
  case SWEEP_SCAN: return 2 * n * ks;
  default: return 0;
  }
}

double sweep_read_bytes(const sweep_point *p) {
  double n = (double)p->n;
  double ks = (double)pscan_dtype_size(p->key), vs = (double)pscan_dtype_size(p->val);
  switch (p->op) {
  case SWEEP_SELECT_FLAGGED: return n * ks + n;
  case SWEEP_REDUCE_BY_KEY:
  case SWEEP_SCAN_BY_KEY: return n * (ks + vs);
  default: return n * ks;
  }
}

double sweep_of_bound(const sweep_result *r) {
  if (r->read_s <= 0 || r->copy_s <= 0 || r->pscan_s <= 0)
    return 0;
  double read_rate = r->read_bytes / r->read_s, copy_rate = r->copy_bytes / r->copy_s;
  double by_read = sweep_read_bytes(&r->p) / read_rate, by_copy = r->pscan_bytes / copy_rate;
  return (by_read > by_copy ? by_read : by_copy) / r->pscan_s;
}

/* keys, values, flags, outputs (keys and values), counts: 8-byte items at most. */
double sweep_compact_bytes(size_t n) { return (double)n * (8 + 8 + 1 + 8 + 8 + 8); }
double sweep_scan_bytes(size_t n) { return (double)n * (8 + 8); }

/* ---- the plan ---- */

static const size_t run_lengths[] = {1, 2, 4, 8, 16, 32, 64, 128, 500, 1000, SWEEP_WHOLE};
static const int selectivities[] = {0, 1, 10, 50, 90, 99, 100};
enum {
  NRUNS = sizeof run_lengths / sizeof run_lengths[0],
  NSELS = sizeof selectivities / sizeof selectivities[0],
  MAX_SIZES = CLI_MAX_LIST
};

typedef struct plan {
  pscan_dtype ckeys[2];
  int nckeys;
  size_t csizes[MAX_SIZES];
  int ncsizes;
  pscan_dtype stypes[PSCAN_DTYPE_COUNT];
  int nstypes;
  size_t ssizes[MAX_SIZES];
  int nssizes;
  unsigned ops;
} plan;

static bool wanted(const plan *pl, sweep_op op) { return (pl->ops >> op) & 1u; }

static void make_plan(const sweep_opts *o, plan *pl) {
  memset(pl, 0, sizeof *pl);
  pl->ops = o->ops ? o->ops : (1u << SWEEP_OP_COUNT) - 1;
  if (o->types) {
    for (int i = 0; i < o->ntypes; i++) {
      if ((o->types[i] == PSCAN_I32 || o->types[i] == PSCAN_I64) && pl->nckeys < 2)
        pl->ckeys[pl->nckeys++] = o->types[i];
      pl->stypes[pl->nstypes++] = o->types[i];
    }
  } else {
    pl->ckeys[pl->nckeys++] = PSCAN_I32;
    pl->ckeys[pl->nckeys++] = PSCAN_I64;
    for (int t = 0; t < PSCAN_DTYPE_COUNT; t++)
      pl->stypes[pl->nstypes++] = (pscan_dtype)t;
  }
  if (o->sizes) {
    for (int i = 0; i < o->nsizes && i < MAX_SIZES; i++)
      pl->csizes[pl->ncsizes++] = pl->ssizes[pl->nssizes++] = o->sizes[i];
  } else if (o->quick) {
    pl->csizes[pl->ncsizes++] = (size_t)1 << 24;
    for (int e = 10; e <= 26; e += 4)
      pl->ssizes[pl->nssizes++] = (size_t)1 << e;
  } else {
    for (int e = 20; e <= 28; e += 4)
      pl->csizes[pl->ncsizes++] = (size_t)1 << e;
    for (int e = 10; e <= 30; e++)
      pl->ssizes[pl->nssizes++] = (size_t)1 << e;
  }
  if (!(pl->ops & ((1u << SWEEP_SCAN) - 1)))
    pl->nckeys = 0;
  if (!wanted(pl, SWEEP_SCAN))
    pl->nstypes = 0;
}

/* Keeps the sizes whose buffers (bytes(n)) fit in avail bytes, saying which do not (what: the
   part of the sweep; room: what avail is); returns how many are kept. */
static int keep_fitting(size_t *sizes, int count, double (*bytes)(size_t), double avail,
                        const char *what, const char *room) {
  int k = 0;
  for (int i = 0; i < count; i++) {
    if (bytes(sizes[i]) > avail) {
      fprintf(stderr, "pscan bench: --sweep: skipping %s at n = %zu: the buffers (%.1f GiB) do "
                      "not fit in the %.1f GiB %s\n",
              what, sizes[i], bytes(sizes[i]) / (1 << 30), avail / (1 << 30), room);
      continue;
    }
    sizes[k++] = sizes[i];
  }
  return k;
}

/* Drops the sizes whose buffers do not fit in avail bytes, saying so: the compaction's first,
   the scans' in what the largest compaction leaves. */
static void fit_plan(plan *pl, double avail) {
  if (pl->nckeys)
    pl->ncsizes = keep_fitting(pl->csizes, pl->ncsizes, sweep_compact_bytes, avail, "compaction",
                               "available");
  size_t cmax = 0;
  for (int i = 0; i < pl->ncsizes; i++)
    cmax = pl->csizes[i] > cmax ? pl->csizes[i] : cmax;
  double left = avail - (pl->nckeys ? sweep_compact_bytes(cmax) : 0);
  if (pl->nstypes)
    pl->nssizes = keep_fitting(pl->ssizes, pl->nssizes, sweep_scan_bytes, left, "scans", "left");
}

/* Every point of the plan, in the order measured (a fill serves several points in a row). */
static sweep_point *list_points(const plan *pl, int *count) {
  int cap = pl->nckeys * pl->ncsizes * (NRUNS * 4 + NSELS * 3) + pl->nstypes * pl->nssizes;
  sweep_point *v = malloc((size_t)(cap ? cap : 1) * sizeof *v);
  int k = 0;
  if (!v)
    return NULL;
  for (int t = 0; t < pl->nckeys; t++)
    for (int s = 0; s < pl->ncsizes; s++) {
      pscan_dtype key = pl->ckeys[t];
      pscan_dtype val = pscan_dtype_size(key) == 8 ? PSCAN_F64 : PSCAN_F32;
      for (int r = 0; r < NRUNS; r++)
        for (int op = 0; op < SWEEP_SCAN; op++)
          if (sweep_op_has_runs((sweep_op)op) && wanted(pl, (sweep_op)op))
            v[k++] = (sweep_point){(sweep_op)op, key, val, pl->csizes[s], run_lengths[r], -1};
      for (int q = 0; q < NSELS; q++)
        for (int op = 0; op < SWEEP_SCAN; op++)
          if (sweep_op_is_select((sweep_op)op) && wanted(pl, (sweep_op)op))
            v[k++] = (sweep_point){(sweep_op)op, key, key, pl->csizes[s], 0, selectivities[q]};
    }
  for (int t = 0; t < pl->nstypes; t++)
    for (int s = 0; s < pl->nssizes; s++)
      v[k++] = (sweep_point){SWEEP_SCAN, pl->stypes[t], pl->stypes[t], pl->ssizes[s], 0, -1};
  *count = k;
  return v;
}

/* ---- the run ---- */

/* The copy of each size is measured when first needed and again once its figure is older than
   COPY_REFRESH_S, so that it tracks the machine's state through a long run without being
   re-measured at every point. */
#define COPY_REFRESH_S 20.0
typedef struct copy_cache {
  size_t bytes[2 * MAX_SIZES + 8];
  double seconds[2 * MAX_SIZES + 8], when[2 * MAX_SIZES + 8];
  int count;
} copy_cache;

static int copy_seconds(sweep_backend *b, copy_cache *cc, size_t bytes, int reps, double *s) {
  int i = 0;
  while (i < cc->count && cc->bytes[i] != bytes)
    i++;
  if (i < cc->count && timing_now() - cc->when[i] < COPY_REFRESH_S) {
    *s = cc->seconds[i];
    return 0;
  }
  if (b->copy(b, bytes, reps, s))
    return 1;
  if (i == cc->count && cc->count < (int)(sizeof cc->bytes / sizeof cc->bytes[0]))
    cc->count++;
  if (i < cc->count) {
    cc->bytes[i] = bytes;
    cc->seconds[i] = *s;
    cc->when[i] = timing_now();
  }
  return 0;
}

static int run_points(sweep_backend *b, const sweep_point *pts, int count, int reps, FILE *csv,
                      sweep_result *res) {
  static copy_cache cc;
  double start = timing_now();
  cc.count = 0;
  printf("%-18s %-4s %-6s %-6s %8s %8s %8s %8s %7s\n", "op", "key", "n", "run/%", "pscan",
         "peer", "copy", "x peer", "of copy");
  printf("%-18s %-4s %-6s %-6s %8s %8s %8s\n", "", "", "", "", "GB/s", "GB/s", "GB/s");
  for (int i = 0; i < count; i++) {
    sweep_result *r = &res[i];
    memset(r, 0, sizeof *r);
    r->p = pts[i];
    sysinfo_cpu before, after;
    sysinfo_cpu_snapshot(&before);
    if (b->fill(b, &r->p) || b->measure(b, r, reps))
      return 1;
    size_t copy_bytes = r->p.n * pscan_dtype_size(r->p.key);
    if (r->copy_s == 0 && b->copy && copy_seconds(b, &cc, copy_bytes, reps, &r->copy_s))
      return 1;
    r->copy_bytes = 2.0 * (double)copy_bytes;
    double others, steal;
    sysinfo_cpu_snapshot(&after);
    r->others = sysinfo_cpu_others(&before, &after, &others, &steal) ? others + steal : -1;
    sweep_print_row(r);
    if (csv)
      sweep_csv_row(csv, r);
    /* Progress on stderr at the end of each block (a key type and size of the compaction, a
       type of the scans): what the time of a whole run is estimated from. */
    const sweep_point *p = &pts[i], *q = i + 1 < count ? &pts[i + 1] : NULL;
    bool scan = p->op == SWEEP_SCAN;
    if (!q || scan != (q->op == SWEEP_SCAN) || q->key != p->key || (!scan && q->n != p->n)) {
      char n[32];
      fprintf(stderr, "pscan bench: --sweep: %d of %d points, %.0f s (%s %s%s%s done)\n", i + 1,
              count, timing_now() - start, scan ? "scans" : "compaction", cli_dtype_name(p->key),
              scan ? "" : " n=", scan ? "" : cli_format_count(p->n, n, sizeof n));
    }
  }
  fprintf(stderr, "pscan bench: --sweep: %d points in %.1f s\n", count, timing_now() - start);
  return 0;
}

int bench_sweep_run(const sweep_opts *o, bool gpu) {
  sweep_backend b;
  memset(&b, 0, sizeof b);
  if ((gpu ? sweep_gpu_backend(&b, o) : sweep_cpu_backend(&b, o)) != 0)
    return 1;
  plan pl;
  make_plan(o, &pl);
  fit_plan(&pl, b.available(&b));
  int count = 0;
  sweep_point *pts = list_points(&pl, &count);
  sweep_result *res = pts ? calloc((size_t)(count ? count : 1), sizeof *res) : NULL;
  if (!res || count == 0) {
    cli_error("bench", count == 0 && pts ? "--sweep: no point to measure" : "out of memory");
    free(pts);
    b.close(&b);
    return 1;
  }
  size_t cmax = 0, smax = 0;
  for (int i = 0; i < pl.ncsizes && pl.nckeys; i++)
    cmax = pl.csizes[i] > cmax ? pl.csizes[i] : cmax;
  for (int i = 0; i < pl.nssizes && pl.nstypes; i++)
    smax = pl.ssizes[i] > smax ? pl.ssizes[i] : smax;
  int reps = o->reps > 0 ? o->reps : b.default_reps;
  int rc = b.open(&b, cmax, smax, o);
  char *partial = NULL;
  FILE *csv = NULL;
  if (rc == 0 && o->csv && !(csv = sweep_csv_open(o->csv, &partial)))
    rc = 1;
  sysinfo_cpu run_start, run_end;
  sysinfo_cpu_snapshot(&run_start);
  if (rc == 0) {
    printf("pscan bench --sweep: libpscan %s on %s; peer: %s; ceiling: %s; median of %d\n"
           "GB/s = 1e9 bytes read + written per second, counted exactly per implementation "
           "(pscan's run lengths as 8-byte\nintegers, the peer's at its own width); x peer = the "
           "peer's time / pscan's; of copy = pscan's GB/s / the copy's\n\n",
           pscan_version_string(), b.name, b.peer_kind, b.copy_kind, reps);
    rc = run_points(&b, pts, count, reps, csv, res);
  }
  if (!sweep_csv_close(csv, partial, o->csv, rc == 0) && rc == 0)
    rc = 1;
  if (rc == 0) {
    sweep_print_summary(res, count, gpu ? "CUB" : "peer");
    double others, steal;
    sysinfo_cpu_snapshot(&run_end);
    if (sysinfo_cpu_others(&run_start, &run_end, &others, &steal))
      printf("during the sweep, other processes kept %.2f of %d cpus busy on average (hypervisor "
             "steal %.2f)%s\n",
             others, sysinfo_cpus(), steal,
             others + steal > 0.1 ? ": the figures are lower and noisier than on an idle machine"
                                  : "");
    if (o->csv)
      printf("\nwrote %s\n", o->csv);
    if (o->plot && !sweep_write_plots(res, count, o->plot, b.name, gpu ? "CUB" : "peer"))
      rc = 1;
  }
  b.close(&b);
  free(res);
  free(pts);
  return rc;
}
