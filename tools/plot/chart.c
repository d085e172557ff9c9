/* The data of a chart (plot.h): its series and their points, drawn or not. */
#include "plot.h"

#include <stdio.h>
#include <string.h>

plot_series *plot_series_get(plot_chart *c, const char *label, bool dashed) {
  for (int i = 0; i < c->nseries; i++)
    if (strcmp(c->series[i].label, label) == 0)
      return &c->series[i];
  if (c->nseries == PLOT_MAX_SERIES)
    return NULL;
  plot_series *s = &c->series[c->nseries++];
  memset(s, 0, sizeof *s);
  snprintf(s->label, sizeof s->label, "%s", label);
  s->dashed = dashed;
  return s;
}

void plot_point(plot_series *s, double x, double y) {
  if (!s || s->n == PLOT_MAX_POINTS || !(x > 0) || !(y > 0))
    return;
  int i = s->n++;
  for (; i > 0 && s->x[i - 1] > x; i--) { /* insertion keeps the polyline ordered by x */
    s->x[i] = s->x[i - 1];
    s->y[i] = s->y[i - 1];
  }
  s->x[i] = x;
  s->y[i] = y;
}
