/* What `pscan bench --user-op` prints and writes on either backend (user_op_report.c): the table
 * row of one timed implementation (also its CSV row and its point on the chart), and the costs
 * around a call that do not depend on the data: pscan_op_create cold (a fresh cache directory),
 * from the disk cache (a new context) and from the context's own cache, and the host time of a
 * small call beside the built-in scan's. The CPU run is bench_user_op_cpu.c, the GPU run
 * bench_user_op.c. */
#ifndef PSCAN_TOOL_USER_OP_REPORT_H
#define PSCAN_TOOL_USER_OP_REPORT_H

#include "pscan.h"
#include "plot/plot.h"
#include "user_op_cases.h"

#include <stdbool.h>
#include <stdio.h>

#define UOP_CSV_HEADER "op,elem_bytes,n,threads,impl,seconds_median,gbs,frac_copy,machine\n"

typedef struct uop_out {
  FILE *csv;           /* NULL: no CSV */
  const char *machine; /* in every CSV row */
  plot_chart *chart;   /* NULL: no plot */
  int chart_threads;   /* the thread count whose rows go on the chart (0: the GPU's) */
} uop_out;

/* The table's header line. */
void uop_table_header(void);

/* One implementation's median time s at (c, n) on `threads` threads (0: the GPU), beside the
   copy's copy_s of the same bytes; peer_s > 0 adds "N.NNx <peer>" (the peer's time / s). label
   names it in the table, csv_impl in the CSV; charted: a line of the chart (not the copy). */
void uop_row(const uop_out *o, const uop_case *c, size_t n, int threads, const char *label,
             const char *csv_impl, double s, double copy_s, double peer_s, const char *peer,
             bool charted);

/* The create costs of every operator on `backend`, each the median of `rounds` (1 to 16): a
   table and CSV rows (n 0, impl op_create_cold / op_create_disk_hit / op_create_context_hit).
   The cache directories are made under $TMPDIR (else /tmp) and removed; PSCAN_CACHE_DIR is
   restored. 0, or 1 after printing why. */
int uop_create_costs(const uop_out *o, pscan_backend backend, int rounds);

/* The host time of one call at n (the user SUM and the built-in's): a line and two CSV rows. */
void uop_call_costs(const uop_out *o, size_t n, int threads, double user_s, double builtin_s);

/* Titles the chart and writes it to PREFIX-user-op (bench_plot_save); false after printing why. */
bool uop_plot_write(plot_chart *chart, const char *prefix, const char *what, const char *machine);

#endif /* PSCAN_TOOL_USER_OP_REPORT_H */
