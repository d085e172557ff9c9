/* The reports of `pscan bench --sweep` (bench_sweep_report.c): what bench_sweep.c prints and
 * writes for its points. */
#ifndef PSCAN_TOOL_BENCH_SWEEP_REPORT_H
#define PSCAN_TOOL_BENCH_SWEEP_REPORT_H

#include "bench_sweep.h"

#include <stdbool.h>
#include <stdio.h>

/* One point: a line on stdout (noting, where more than SWEEP_BUSY_NOTE cpus were kept busy by
   other processes meanwhile, how many); a line of the CSV. */
#define SWEEP_BUSY_NOTE 0.25
void sweep_print_row(const sweep_result *r);
void sweep_csv_row(FILE *f, const sweep_result *r);
/* Per op, the point with the lowest x peer and the one with the lowest % of copy. */
void sweep_print_summary(const sweep_result *r, int count, const char *peer_kind);
/* The charts under prefix (bench_plot_save); false if one could not be written. */
bool sweep_write_plots(const sweep_result *r, int count, const char *prefix, const char *machine,
                       const char *peer_kind);
/* The CSV with its header, opened as path.partial (*partial: that name, to free); NULL after a
   message. sweep_csv_close closes it, renames it to path if ok, else removes it; false on an
   error (after a message). A NULL f is a success. */
FILE *sweep_csv_open(const char *path, char **partial);
bool sweep_csv_close(FILE *f, char *partial, const char *path, bool ok);

#endif
