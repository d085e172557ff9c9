/* `pscan bench --sweep --from-csv FILE`: the summary and the charts of a sweep's CSV (another
 * machine's, a committed one), without measuring anything. */
#include "bench_sweep.h"
#include "bench_sweep_report.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SWEEP_HEADER[] =
    "op,key_type,n,run_length,selectivity_pct,pscan_GBps,cub_GBps,copy_GBps";

static bool dtype_named(const char *name, pscan_dtype *t) {
  for (int i = 0; i < PSCAN_DTYPE_COUNT; i++)
    if (strcmp(cli_dtype_name((pscan_dtype)i), name) == 0) {
      *t = (pscan_dtype)i;
      return true;
    }
  return false;
}

static bool op_named(const char *name, sweep_op *op) {
  for (int i = 0; i < SWEEP_OP_COUNT; i++)
    if (strcmp(sweep_op_name((sweep_op)i), name) == 0) {
      *op = (sweep_op)i;
      return true;
    }
  return false;
}

/* One CSV row into a result. The CSV keeps each side's GB/s of its own bytes, so the times are
   rebuilt from those bytes (sweep_bytes) with the expected number of kept items (n / run
   length, or the selected share): exact wherever both sides move the same bytes, and within the
   run count's spread for run_length_encode, whose run lengths the two sides write at their own
   width (pscan 8 bytes, CUB 4, the CPU peers 8). */
static bool parse_row(char *line, bool gpu, sweep_result *r) {
  char op_s[32], key_s[8];
  unsigned long long n, runs;
  int sel;
  double ps, peer, copy;
  if (sscanf(line, "%31[^,],%7[^,],%llu,%llu,%d,%lf,%lf,%lf", op_s, key_s, &n, &runs, &sel, &ps,
             &peer, &copy) != 8 ||
      n == 0 || ps <= 0 || peer <= 0 || copy <= 0)
    return false;
  pscan_dtype key;
  memset(r, 0, sizeof *r);
  if (!op_named(op_s, &r->p.op) || !dtype_named(key_s, &key))
    return false;
  sweep_point *p = &r->p;
  p->key = key;
  p->val = p->op == SWEEP_REDUCE_BY_KEY || p->op == SWEEP_SCAN_BY_KEY
               ? (pscan_dtype_size(key) == 4 ? PSCAN_F32 : PSCAN_F64)
               : key;
  p->n = (size_t)n;
  p->sel_pct = sel;
  p->run_length = sweep_op_has_runs(p->op) && runs == n ? SWEEP_WHOLE : (size_t)runs;
  const size_t kept = sweep_op_has_runs(p->op) && runs ? (size_t)((n + runs - 1) / runs)
                      : sel >= 0                       ? (size_t)(n * (unsigned)sel / 100)
                                                       : (size_t)n;
  r->pscan_bytes = r->copy_bytes = sweep_bytes(p, kept, 8);
  r->peer_bytes = sweep_bytes(p, kept, gpu ? 4 : 8);
  r->pscan_s = r->pscan_bytes / (ps * 1e9);
  r->peer_s = r->peer_bytes / (peer * 1e9);
  r->copy_s = r->copy_bytes / (copy * 1e9);
  r->others = -1;
  r->peer = gpu ? "cub" : "peer";
  return true;
}

int bench_sweep_replot(const char *path, const char *plot, bool gpu) {
  FILE *f = fopen(path, "r");
  if (!f) {
    cli_error("bench", "--from-csv: cannot read %s", path);
    return 1;
  }
  char line[512];
  int count = 0, cap = 0, lineno = 1, rc = 0;
  sweep_result *res = NULL;
  if (!fgets(line, sizeof line, f) || strncmp(line, SWEEP_HEADER, sizeof SWEEP_HEADER - 1) != 0) {
    cli_error("bench", "--from-csv: %s does not start with the sweep's header (%s)", path,
              SWEEP_HEADER);
    rc = 1;
  }
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '\n')
      continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 256;
      sweep_result *grown = realloc(res, (size_t)cap * sizeof *res);
      if (!grown) {
        cli_error("bench", "out of memory");
        rc = 1;
        break;
      }
      res = grown;
    }
    if (!parse_row(line, gpu, &res[count])) {
      line[strcspn(line, "\n")] = '\0';
      cli_error("bench", "--from-csv: %s:%d: not a sweep row: %s", path, lineno, line);
      rc = 1;
    } else {
      count++;
    }
  }
  fclose(f);
  if (rc == 0 && count == 0) {
    cli_error("bench", "--from-csv: %s has no rows", path);
    rc = 1;
  }
  if (rc == 0) {
    const char *peer_kind = gpu ? "CUB" : "peer";
    printf("pscan bench --sweep --from-csv %s: %d points (x %s rebuilt from each side's GB/s "
           "and bytes)\n",
           path, count, peer_kind);
    sweep_print_summary(res, count, peer_kind);
    char machine[600];
    snprintf(machine, sizeof machine, "from %s", path);
    if (plot && !sweep_write_plots(res, count, plot, machine, peer_kind))
      rc = 1;
  }
  free(res);
  return rc;
}
