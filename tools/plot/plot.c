/* The line charts of `pscan bench --plot`, drawn pixel by pixel into an RGB canvas and written
 * with png.c. No anti-aliasing: lines are 2 px wide, text is the 5x7 font at twice its size,
 * which stays crisp at 100% zoom. Layout: title and subtitle on top, the plot area with its
 * axes and grid, the legend on the right of it. */
#include "plot.h"
#include "png.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  W = 1200, H = 720,
  FONT = 2,                 /* text scale: 5x7 glyphs drawn as 10x14 */
  ADV = 6 * FONT,           /* advance per character */
  LINE_H = 9 * FONT,        /* height of a line of text */
  LEFT = 140, TOP = 80, BOTTOM = H - 90,
  GRID = 0xE4E4E4, FRAME = 0x404040, INK = 0x202020, MUTED = 0x606060, WHITE = 0xFFFFFF
};

/* Solid series take the colors of matplotlib's tab10 (gray left out), dashed ones (the
   ceilings) the grays, each in order of appearance. */
static const uint32_t solid_colors[] = {0x1F77B4, 0xFF7F0E, 0x2CA02C, 0xD62728, 0x9467BD,
                                        0x8C564B, 0xE377C2, 0xBCBD22, 0x17BECF, 0x393B79,
                                        0xE0B000, 0x637939};
static const uint32_t dashed_colors[] = {0x000000, 0x7F7F7F, 0xB0B0B0};
#define COUNT(a) (int)(sizeof(a) / sizeof(a)[0])

typedef struct canvas {
  int w, h;
  uint8_t *px;
} canvas;

/* A mapping from data to pixels: lo..hi are in axis units (log10 of the value on a log axis)
   and land on pixels p0..p1. */
typedef struct axis {
  double lo, hi;
  bool log;
  int p0, p1;
} axis;

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

/* ---- drawing primitives ---- */

/* The rectangle [x0, x0 + w) x [y0, y0 + h), clipped to the canvas. */
static void fill(canvas *c, int x0, int y0, int w, int h, uint32_t rgb) {
  for (int y = y0 < 0 ? 0 : y0; y < y0 + h && y < c->h; y++)
    for (int x = x0 < 0 ? 0 : x0; x < x0 + w && x < c->w; x++) {
      uint8_t *p = c->px + 3 * ((size_t)y * (size_t)c->w + (size_t)x);
      p[0] = (uint8_t)(rgb >> 16), p[1] = (uint8_t)(rgb >> 8), p[2] = (uint8_t)rgb;
    }
}

/* Bresenham with a square brush of side width. With dash > 0 the brush is on for dash steps and
   off for as many; *phase carries the pattern from one segment of a polyline to the next. */
static void line(canvas *c, int x0, int y0, int x1, int y1, uint32_t rgb, int width, int dash,
                 int *phase) {
  int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {
    if (dash == 0 || (*phase / dash) % 2 == 0)
      fill(c, x0 - width / 2, y0 - width / 2, width, width, rgb);
    ++*phase;
    if (x0 == x1 && y0 == y1)
      return;
    int e2 = 2 * err;
    if (e2 >= dy)
      err += dy, x0 += sx;
    if (e2 <= dx)
      err += dx, y0 += sy;
  }
}

static void marker(canvas *c, int x, int y, uint32_t rgb, bool hollow) {
  fill(c, x - 4, y - 4, 9, 9, rgb);
  if (hollow)
    fill(c, x - 2, y - 2, 5, 5, WHITE);
}

/* One glyph with its top-left corner at (x, y); turned a quarter counterclockwise when up, its
   bottom-left corner then at (x, y), so that text reads upwards. */
static void glyph(canvas *c, int x, int y, char ch, uint32_t rgb, bool up) {
  const uint8_t *g = plot_font5x7[ch < 32 || ch > 126 ? '?' - 32 : ch - 32];
  int drop = ch && strchr("gpqy", ch) ? 2 : 0; /* descenders (font5x7.c) */
  for (int r = drop; r < 7 + drop; r++)
    for (int k = 0; k < 5; k++) {
      if (!(g[r - drop] >> (4 - k) & 1))
        continue;
      if (up)
        fill(c, x + r * FONT, y - (k + 1) * FONT, FONT, FONT, rgb);
      else
        fill(c, x + k * FONT, y + r * FONT, FONT, FONT, rgb);
    }
}

static int text_width(const char *s) {
  int n = (int)strlen(s);
  return n ? n * ADV - FONT : 0;
}

static void text(canvas *c, int x, int y, const char *s, uint32_t rgb) {
  for (int i = 0; s[i]; i++)
    glyph(c, x + i * ADV, y, s[i], rgb, false);
}

static void text_up(canvas *c, int x, int y, const char *s, uint32_t rgb) {
  for (int i = 0; s[i]; i++)
    glyph(c, x, y - i * ADV, s[i], rgb, true);
}

/* ---- axes ---- */

static double ax_units(const axis *a, double v) { return a->log ? log10(v) : v; }

static int ax_map(const axis *a, double v) {
  double t = (ax_units(a, v) - a->lo) / (a->hi - a->lo);
  return a->p0 + (int)lround(t * (a->p1 - a->p0));
}

/* The data's extent; false if there is no point. */
static bool extent(const plot_chart *c, double *x0, double *x1, double *y0, double *y1) {
  *x0 = *y0 = INFINITY, *x1 = *y1 = 0;
  for (int i = 0; i < c->nseries; i++)
    for (int j = 0; j < c->series[i].n; j++) {
      double x = c->series[i].x[j], y = c->series[i].y[j];
      *x0 = fmin(*x0, x), *x1 = fmax(*x1, x), *y0 = fmin(*y0, y), *y1 = fmax(*y1, y);
    }
  return *x1 > 0;
}

/* 1, 2 or 5 times a power of ten, at least v. */
static double nice_step(double v) {
  double e = pow(10, floor(log10(v))), f = v / e;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

static void tick_label(canvas *c, int x, int y, const char *s, bool right_aligned) {
  if (right_aligned)
    text(c, x - text_width(s), y - 7 * FONT / 2, s, INK);
  else
    text(c, x - text_width(s) / 2, y, s, INK);
}

/* Powers of two from 2^k0 to 2^k1, every one a grid line, at most ~12 of them labelled. */
static void x_ticks(canvas *c, const plot_chart *ch, const axis *a, int k0, int k1) {
  int step = (k1 - k0) / 12 + 1, phase = 0;
  for (int k = k0; k <= k1; k++) {
    int x = ax_map(a, ldexp(1, k));
    line(c, x, TOP, x, BOTTOM, GRID, 1, 0, &phase);
    line(c, x, BOTTOM, x, BOTTOM + 5, FRAME, 1, 0, &phase);
    char s[32];
    if (ch->x_pow2_labels)
      snprintf(s, sizeof s, "2^%d", k);
    else
      snprintf(s, sizeof s, "%g", ldexp(1, k));
    if ((k - k0) % step == 0)
      tick_label(c, x, BOTTOM + 10, s, false);
  }
}

static void y_tick(canvas *c, const axis *a, double v, int right) {
  int y = ax_map(a, v), phase = 0;
  char s[32];
  line(c, LEFT, y, right, y, GRID, 1, 0, &phase);
  line(c, LEFT - 5, y, LEFT, y, FRAME, 1, 0, &phase);
  snprintf(s, sizeof s, "%.3g", v);
  tick_label(c, LEFT - 10, y, s, true);
}

/* Linear from 0 in steps of 1, 2 or 5 x 10^k; log: 1, 2, 5 in each decade. */
static void y_ticks(canvas *c, const axis *a, double step, int right) {
  if (!a->log) {
    for (int i = 0; i * step <= a->hi * (1 + 1e-9); i++)
      y_tick(c, a, i * step, right);
    return;
  }
  for (int d = (int)floor(a->lo); d <= (int)ceil(a->hi); d++)
    for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) { /* 1, 2, 5 */
      double v = m * pow(10, d);
      if (log10(v) >= a->lo - 1e-9 && log10(v) <= a->hi + 1e-9)
        y_tick(c, a, v, right);
    }
}

/* ---- the chart ---- */

static uint32_t series_color(const plot_chart *ch, int i) {
  int same = 0; /* earlier series of the same kind */
  for (int j = 0; j < i; j++)
    same += ch->series[j].dashed == ch->series[i].dashed;
  return ch->series[i].dashed ? dashed_colors[same % COUNT(dashed_colors)]
                              : solid_colors[same % COUNT(solid_colors)];
}

static int line_width(const plot_series *s) { return s->bold ? 4 : 2; }

/* The bold series in a second pass, so that nothing hides them. */
static void draw_series(canvas *c, const plot_chart *ch, const axis *ax, const axis *ay) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < ch->nseries; i++) {
      const plot_series *s = &ch->series[i];
      uint32_t rgb = series_color(ch, i);
      int phase = 0;
      if (s->bold != (pass == 1))
        continue;
      for (int j = 1; j < s->n; j++)
        line(c, ax_map(ax, s->x[j - 1]), ax_map(ay, s->y[j - 1]), ax_map(ax, s->x[j]),
             ax_map(ay, s->y[j]), rgb, line_width(s), s->dashed ? 8 : 0, &phase);
      for (int j = 0; j < s->n; j++)
        marker(c, ax_map(ax, s->x[j]), ax_map(ay, s->y[j]), rgb, s->dashed);
    }
}

static int legend_width(const plot_chart *ch) {
  int w = 0;
  for (int i = 0; i < ch->nseries; i++) {
    int t = text_width(ch->series[i].label);
    w = t > w ? t : w;
  }
  return w + 70;
}

/* A framed box at (x, TOP): per series a sample of its line and marker, then its label. */
static void draw_legend(canvas *c, const plot_chart *ch, int x) {
  int row = LINE_H + 8, w = legend_width(ch), h = ch->nseries * row + 12, phase = 0;
  fill(c, x, TOP, w, h, FRAME);
  fill(c, x + 1, TOP + 1, w - 2, h - 2, WHITE);
  for (int i = 0; i < ch->nseries; i++) {
    const plot_series *s = &ch->series[i];
    int y = TOP + 10 + i * row + 7 * FONT / 2;
    uint32_t rgb = series_color(ch, i);
    phase = 0;
    line(c, x + 10, y, x + 50, y, rgb, line_width(s), s->dashed ? 8 : 0, &phase);
    marker(c, x + 30, y, rgb, s->dashed);
    text(c, x + 60, y - 7 * FONT / 2, s->label, INK);
  }
}

/* Title and subtitle centred on top (the subtitle cut to fit), the axis labels outside the
   tick labels. */
static void draw_labels(canvas *c, const plot_chart *ch, int right) {
  char sub[sizeof ch->subtitle];
  int fit = (W - 20) / ADV;
  snprintf(sub, sizeof sub, "%.*s", fit, ch->subtitle);
  text(c, (W - text_width(ch->title)) / 2, 14, ch->title, INK);
  text(c, (W - text_width(sub)) / 2, 14 + LINE_H + 8, sub, MUTED);
  text(c, (LEFT + right - text_width(ch->xlabel)) / 2, BOTTOM + 14 + LINE_H, ch->xlabel, INK);
  text_up(c, 16, (TOP + BOTTOM + text_width(ch->ylabel)) / 2, ch->ylabel, INK);
}

/* The y axis: linear from 0 unless the values span more than 100x, then log (1-2-5 ticks). */
static double y_axis(axis *ay, double y0, double y1) {
  ay->p0 = BOTTOM, ay->p1 = TOP;
  ay->log = y1 / y0 > 100;
  if (ay->log) {
    ay->lo = floor(log10(y0) * 3) / 3; /* a third of a decade of margin at most */
    ay->hi = ceil(log10(y1) * 3) / 3;
    return 0;
  }
  double step = nice_step(y1 * 1.05 / 6);
  ay->lo = 0;
  ay->hi = ceil(y1 * 1.05 / step) * step;
  return step;
}

static void render(canvas *c, const plot_chart *ch, double x0, double x1, double y0, double y1) {
  int right = W - legend_width(ch) - 30;
  int k0 = (int)floor(log2(x0)), k1 = (int)ceil(log2(x1));
  k1 = k1 > k0 ? k1 : k0 + 1; /* one x value: still an axis one octave wide */
  axis ax = {(k0 - 0.3) * log10(2), (k1 + 0.3) * log10(2), true, LEFT, right}, ay;
  double ystep = y_axis(&ay, y0, y1);
  fill(c, 0, 0, W, H, WHITE);
  x_ticks(c, ch, &ax, k0, k1);
  y_ticks(c, &ay, ystep, right);
  int phase = 0; /* the frame of the plot area */
  line(c, LEFT, TOP, right, TOP, FRAME, 1, 0, &phase);
  line(c, LEFT, BOTTOM, right, BOTTOM, FRAME, 1, 0, &phase);
  line(c, LEFT, TOP, LEFT, BOTTOM, FRAME, 1, 0, &phase);
  line(c, right, TOP, right, BOTTOM, FRAME, 1, 0, &phase);
  draw_series(c, ch, &ax, &ay);
  draw_legend(c, ch, right + 20);
  draw_labels(c, ch, right);
}

int plot_write_png(const plot_chart *ch, const char *path) {
  double x0, x1, y0, y1;
  if (!extent(ch, &x0, &x1, &y0, &y1))
    return EINVAL;
  canvas c = {W, H, malloc((size_t)W * H * 3)};
  if (!c.px)
    return ENOMEM;
  render(&c, ch, x0, x1, y0, y1);
  int err = png_write(path, c.px, W, H);
  free(c.px);
  return err;
}
