/* The charts of `pscan bench --plot PREFIX` (bench_plot.c), drawn through plot/plot.h. */
#ifndef PSCAN_TOOL_BENCH_PLOT_H
#define PSCAN_TOOL_BENCH_PLOT_H

#include "plot/plot.h"
#include "report.h"
#include "result.h"

#include <stdbool.h>

/* Every result of the run, kept for the plots drawn at its end. */
typedef struct bench_plot {
  bench_result *r;
  int count, cap;
} bench_plot;
/* Keeps g's results; false after printing why (out of memory). */
bool bench_plot_add(bench_plot *p, const bench_group *g);
/* A measured group, reported wherever the run sends it: the table on stdout, CSV rows where csv
   has a file, kept for the plots where plots is not NULL; false as bench_plot_add. */
bool bench_report_group(const bench_group *g, const bench_csv *csv, const char *machine,
                        bench_plot *plots);
void bench_plot_free(bench_plot *p);
/* Whether PREFIX's directory is writable, checked before the run; false after printing why. */
bool bench_plot_check(const char *prefix);
/* Per type measured: PREFIX-throughput-TYPE.png (Gelem/s vs n at the largest thread count) and
   PREFIX-scaling-TYPE.png (Gelem/s vs threads at the largest n). Prints each file written;
   false after printing why one could not be. */
bool bench_plot_write(const bench_plot *p, const char *prefix, const char *machine);
/* The files' ending: ".svg" or ".png" when PREFIX ends so (that ending then left out of the
   names: out/run.svg gives out/run-compact.svg), else ".png"; *stem is the length of PREFIX
   kept. */
const char *bench_plot_ext(const char *prefix, int *stem);
/* Writes c to PREFIX-SUFFIX.png (PREFIX ending in .svg: PREFIX-SUFFIX.svg without that ending;
   .png likewise) and prints its name; false after printing why not. */
bool bench_plot_save(const plot_chart *c, const char *prefix, const char *suffix);

#endif /* PSCAN_TOOL_BENCH_PLOT_H */
