/* A small raster line-chart renderer for `pscan bench --plot`: a log2 x axis (sizes or thread
 * counts), a linear y axis from 0 (or a log one when the values span more than 100x), grid
 * lines, one colored polyline with markers per series (dashed for the ceilings), a legend, a
 * title and axis labels in a built-in 5x7 bitmap font (font5x7.c). Written as PNG (png.h). */
#ifndef PSCAN_TOOL_PLOT_H
#define PSCAN_TOOL_PLOT_H

#include <stdbool.h>
#include <stdint.h>

enum { PLOT_MAX_SERIES = 16, PLOT_MAX_POINTS = 64, PLOT_LABEL = 64 };

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

/* The glyphs of ASCII 32..126 (font5x7.c). */
extern const uint8_t plot_font5x7[95][7];

/* The series labelled label, added (dashed or not) if it is new; NULL when the chart is full. */
plot_series *plot_series_get(plot_chart *c, const char *label, bool dashed);
/* Adds the point (x, y), x > 0, keeping the series sorted by x; ignored when full or y <= 0. */
void plot_point(plot_series *s, double x, double y);

/* Draws c and writes it to path as PNG, atomically (png_write). Returns 0 or an errno value;
   EINVAL when c has no point to draw. */
int plot_write_png(const plot_chart *c, const char *path);

#endif /* PSCAN_TOOL_PLOT_H */
