/* The line charts of `pscan bench --plot`, drawn with cairo (plot.c): a log2 x axis (sizes or
 * thread counts), a linear y axis from 0 (or a log one when the values span more than 100x), grid
 * lines, one colored polyline with markers per series (dashed for the ceilings), a legend, a
 * title and axis labels, antialiased, in the system's sans-serif font. Written as PNG or SVG, by
 * the file's extension. A build without cairo has plot_none.c: it draws nothing and says so. */
#ifndef PSCAN_TOOL_PLOT_H
#define PSCAN_TOOL_PLOT_H

#include <stdbool.h>

enum { PLOT_MAX_SERIES = 16, PLOT_MAX_POINTS = 64, PLOT_LABEL = 64 };

/* What a build without cairo says when asked for a plot. */
#define PLOT_NEEDS_CAIRO                                                                       \
  "this pscan was built without cairo, which plots need (install libcairo2-dev, then rebuild)"

typedef struct plot_series {
  char label[PLOT_LABEL];
  bool dashed; /* a ceiling (a copy): dashed, in grays */
  bool bold;   /* the headline (pscan auto): twice as wide, drawn over the others */
  int n;
  double x[PLOT_MAX_POINTS], y[PLOT_MAX_POINTS]; /* kept sorted by x */
} plot_series;

typedef struct plot_chart {
  char title[128], subtitle[320], xlabel[64], ylabel[64];
  bool x_pow2_labels; /* x ticks read "2^k" (sizes), else 1, 2, 4 (thread counts) */
  int nseries;
  plot_series series[PLOT_MAX_SERIES];
} plot_chart;

/* Whether this build draws charts (cairo was found when it was configured). */
bool plot_available(void);

/* The series labelled label, added (dashed or not) if it is new; NULL when the chart is full. */
plot_series *plot_series_get(plot_chart *c, const char *label, bool dashed);
/* Adds the point (x, y), x > 0, keeping the series sorted by x; ignored when full or y <= 0. */
void plot_point(plot_series *s, double x, double y);

/* Draws c and writes it to path through safe_out.h (a temporary file renamed over path once
   complete): SVG when path ends in ".svg", else PNG (1200x720). Returns 0 or an errno value:
   EINVAL when c has no point to draw, ENOTSUP in a build without cairo, EIO when cairo fails. */
int plot_write(const plot_chart *c, const char *path);

#endif /* PSCAN_TOOL_PLOT_H */
