/* The line charts of `pscan bench --plot`, drawn with cairo: antialiased lines and markers, text
 * in the system's sans-serif font (fontconfig's choice), on a PNG image surface or an SVG one by
 * the file's extension. Layout: title and subtitle on top, the plot area with its axes and grid,
 * the legend on the right of it. The SVG also carries the chart's title and series labels as
 * <title> and <desc> (cairo draws text as glyph outlines, so these keep it readable as text). */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"
#include "io/safe_out.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  W = 1200, H = 720,
  LEFT = 140, TOP = 80, BOTTOM = H - 90,
  GRID = 0xE4E4E4, FRAME = 0x404040, INK = 0x202020, MUTED = 0x606060, WHITE = 0xFFFFFF
};
#define FONT_SIZE 15.0  /* pixels: tick labels, legend, axis labels */
#define TITLE_SIZE 20.0 /* the title; the subtitle is FONT_SIZE */
#define LINE_H 22.0     /* height of a line of text */
#define PI 3.14159265358979323846

/* Solid series take the colors of matplotlib's tab10 (gray left out), dashed ones (the
   ceilings) the grays, each in order of appearance. */
static const uint32_t solid_colors[] = {0x1F77B4, 0xFF7F0E, 0x2CA02C, 0xD62728, 0x9467BD,
                                        0x8C564B, 0xE377C2, 0xBCBD22, 0x17BECF, 0x393B79,
                                        0xE0B000, 0x637939};
static const uint32_t dashed_colors[] = {0x000000, 0x7F7F7F, 0xB0B0B0};
#define COUNT(a) (int)(sizeof(a) / sizeof(a)[0])

/* A mapping from data to device units: lo..hi are in axis units (log10 of the value on a log
   axis) and land on p0..p1. */
typedef struct axis {
  double lo, hi;
  bool log;
  double p0, p1;
} axis;

bool plot_available(void) { return true; }

/* ---- drawing primitives ---- */

static void color(cairo_t *cr, uint32_t rgb) {
  cairo_set_source_rgb(cr, (rgb >> 16 & 0xFF) / 255.0, (rgb >> 8 & 0xFF) / 255.0,
                       (rgb & 0xFF) / 255.0);
}

/* A line from (x0, y0) to (x1, y1); a width of 1 lands on the pixel grid (crisp grid lines). */
static void segment(cairo_t *cr, double x0, double y0, double x1, double y1, uint32_t rgb,
                    double width) {
  double half = fmod(width, 2) == 1 ? 0.5 : 0;
  color(cr, rgb);
  cairo_set_line_width(cr, width);
  cairo_move_to(cr, floor(x0) + half, floor(y0) + half);
  cairo_line_to(cr, floor(x1) + half, floor(y1) + half);
  cairo_stroke(cr);
}

static void marker(cairo_t *cr, double x, double y, uint32_t rgb, bool hollow) {
  cairo_arc(cr, x, y, 4.5, 0, 2 * PI);
  if (hollow) {
    color(cr, WHITE);
    cairo_fill_preserve(cr);
    color(cr, rgb);
    cairo_set_line_width(cr, 2);
    cairo_stroke(cr);
  } else {
    color(cr, rgb);
    cairo_fill(cr);
  }
}

static void font(cairo_t *cr, double size, bool bold) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

static double text_width(cairo_t *cr, const char *s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  return e.x_advance;
}

/* s in the current font with its baseline at y: from x (align -1), centred on x (0), or ending
   at x (1). */
static void text(cairo_t *cr, double x, double y, const char *s, uint32_t rgb, int align) {
  double w = text_width(cr, s);
  color(cr, rgb);
  cairo_move_to(cr, x - (align + 1) * w / 2, y);
  cairo_show_text(cr, s);
}

/* s centred on (x, y) along the line, reading upwards. */
static void text_up(cairo_t *cr, double x, double y, const char *s, uint32_t rgb) {
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -PI / 2);
  text(cr, 0, 0, s, rgb, 0);
  cairo_restore(cr);
}

/* ---- axes ---- */

static double ax_units(const axis *a, double v) { return a->log ? log10(v) : v; }

static double ax_map(const axis *a, double v) {
  double t = (ax_units(a, v) - a->lo) / (a->hi - a->lo);
  return a->p0 + t * (a->p1 - a->p0);
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

/* Powers of two from 2^k0 to 2^k1, every one a grid line, at most ~12 of them labelled. */
static void x_ticks(cairo_t *cr, const plot_chart *ch, const axis *a, int k0, int k1) {
  int step = (k1 - k0) / 12 + 1;
  for (int k = k0; k <= k1; k++) {
    double x = ax_map(a, ldexp(1, k));
    segment(cr, x, TOP, x, BOTTOM, GRID, 1);
    segment(cr, x, BOTTOM, x, BOTTOM + 5, FRAME, 1);
    char s[32];
    if (ch->x_pow2_labels)
      snprintf(s, sizeof s, "2^%d", k);
    else
      snprintf(s, sizeof s, "%g", ldexp(1, k));
    if ((k - k0) % step == 0)
      text(cr, x, BOTTOM + 10 + FONT_SIZE, s, INK, 0);
  }
}

static void y_tick(cairo_t *cr, const axis *a, double v, double right) {
  double y = ax_map(a, v);
  char s[32];
  segment(cr, LEFT, y, right, y, GRID, 1);
  segment(cr, LEFT - 5, y, LEFT, y, FRAME, 1);
  snprintf(s, sizeof s, "%.3g", v);
  text(cr, LEFT - 10, y + FONT_SIZE * 0.35, s, INK, 1);
}

/* Linear from 0 in steps of 1, 2 or 5 x 10^k; log: 1, 2, 5 in each decade. */
static void y_ticks(cairo_t *cr, const axis *a, double step, double right) {
  if (!a->log) {
    for (int i = 0; i * step <= a->hi * (1 + 1e-9); i++)
      y_tick(cr, a, i * step, right);
    return;
  }
  for (int d = (int)floor(a->lo); d <= (int)ceil(a->hi); d++)
    for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) { /* 1, 2, 5 */
      double v = m * pow(10, d);
      if (log10(v) >= a->lo - 1e-9 && log10(v) <= a->hi + 1e-9)
        y_tick(cr, a, v, right);
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

/* The stroke of a series: width, dashes for the ceilings, round joins. */
static void series_stroke(cairo_t *cr, const plot_series *s, uint32_t rgb) {
  static const double dash[] = {8, 6};
  color(cr, rgb);
  cairo_set_line_width(cr, s->bold ? 4 : 2);
  cairo_set_dash(cr, dash, s->dashed ? 2 : 0, 0);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

/* The bold series in a second pass, so that nothing hides them; the plot area clips. */
static void draw_series(cairo_t *cr, const plot_chart *ch, const axis *ax, const axis *ay) {
  cairo_save(cr);
  cairo_rectangle(cr, ax->p0 - 6, ay->p1 - 6, ax->p1 - ax->p0 + 12, ay->p0 - ay->p1 + 12);
  cairo_clip(cr);
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < ch->nseries; i++) {
      const plot_series *s = &ch->series[i];
      uint32_t rgb = series_color(ch, i);
      if (s->bold != (pass == 1) || s->n == 0)
        continue;
      cairo_move_to(cr, ax_map(ax, s->x[0]), ax_map(ay, s->y[0]));
      for (int j = 1; j < s->n; j++)
        cairo_line_to(cr, ax_map(ax, s->x[j]), ax_map(ay, s->y[j]));
      series_stroke(cr, s, rgb);
      for (int j = 0; j < s->n; j++)
        marker(cr, ax_map(ax, s->x[j]), ax_map(ay, s->y[j]), rgb, s->dashed);
    }
  cairo_restore(cr);
}

static double legend_width(cairo_t *cr, const plot_chart *ch) {
  double w = 0;
  font(cr, FONT_SIZE, false);
  for (int i = 0; i < ch->nseries; i++)
    w = fmax(w, text_width(cr, ch->series[i].label));
  return ceil(w) + 70;
}

/* A framed box at (x, TOP): per series a sample of its line and marker, then its label. */
static void draw_legend(cairo_t *cr, const plot_chart *ch, double x) {
  double row = LINE_H + 4, w = legend_width(cr, ch), h = ch->nseries * row + 12;
  color(cr, WHITE);
  cairo_rectangle(cr, x + 0.5, TOP + 0.5, w - 1, h - 1);
  cairo_fill_preserve(cr);
  color(cr, FRAME);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  for (int i = 0; i < ch->nseries; i++) {
    const plot_series *s = &ch->series[i];
    double y = TOP + 6 + i * row + row / 2;
    uint32_t rgb = series_color(ch, i);
    cairo_move_to(cr, x + 10, y);
    cairo_line_to(cr, x + 50, y);
    series_stroke(cr, s, rgb);
    marker(cr, x + 30, y, rgb, s->dashed);
    text(cr, x + 60, y + FONT_SIZE * 0.35, s->label, INK, -1);
  }
}

/* Title and subtitle centred on top, the axis labels outside the tick labels. */
static void draw_labels(cairo_t *cr, const plot_chart *ch, double right) {
  font(cr, TITLE_SIZE, true);
  text(cr, W / 2.0, 14 + TITLE_SIZE, ch->title, INK, 0);
  font(cr, FONT_SIZE, false);
  text(cr, W / 2.0, 14 + TITLE_SIZE + LINE_H, ch->subtitle, MUTED, 0);
  text(cr, (LEFT + right) / 2, BOTTOM + 20 + 2 * FONT_SIZE, ch->xlabel, INK, 0);
  text_up(cr, 16 + FONT_SIZE, (TOP + BOTTOM) / 2.0, ch->ylabel, INK);
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

static void render(cairo_t *cr, const plot_chart *ch) {
  double x0, x1, y0, y1;
  extent(ch, &x0, &x1, &y0, &y1);
  double right = W - legend_width(cr, ch) - 30;
  int k0 = (int)floor(log2(x0)), k1 = (int)ceil(log2(x1));
  k1 = k1 > k0 ? k1 : k0 + 1; /* one x value: still an axis one octave wide */
  axis ax = {(k0 - 0.3) * log10(2), (k1 + 0.3) * log10(2), true, LEFT, right}, ay;
  double ystep = y_axis(&ay, y0, y1);
  color(cr, WHITE);
  cairo_paint(cr);
  font(cr, FONT_SIZE, false);
  x_ticks(cr, ch, &ax, k0, k1);
  y_ticks(cr, &ay, ystep, right);
  color(cr, FRAME); /* the frame of the plot area */
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, LEFT + 0.5, TOP + 0.5, floor(right) - LEFT, BOTTOM - TOP);
  cairo_stroke(cr);
  draw_series(cr, ch, &ax, &ay);
  draw_legend(cr, ch, right + 20);
  draw_labels(cr, ch, right);
}

/* ---- output ---- */

/* What cairo's stream writers append to: a growing buffer. */
typedef struct membuf {
  unsigned char *p;
  size_t n, cap;
} membuf;

static cairo_status_t to_membuf(void *arg, const unsigned char *data, unsigned int len) {
  membuf *b = arg;
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + len)
      cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
      return CAIRO_STATUS_NO_MEMORY;
    b->p = p, b->cap = cap;
  }
  memcpy(b->p + b->n, data, len);
  b->n += len;
  return CAIRO_STATUS_SUCCESS;
}

/* s with &, <, > and " escaped, for XML text. */
static void xml_text(FILE *f, const char *s) {
  for (; *s; s++)
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
}

/* The SVG cairo wrote, with <title> (the chart's title) and <desc> (its subtitle, axes and
   series, one a line) right after the opening <svg ...> tag. */
static bool write_svg(FILE *f, const plot_chart *ch, const membuf *b) {
  size_t at = 0;
  while (at + 4 <= b->n && memcmp(b->p + at, "<svg", 4) != 0)
    at++;
  const unsigned char *end = at + 4 <= b->n ? memchr(b->p + at, '>', b->n - at) : NULL;
  if (!end) {
    errno = EIO;
    return false;
  }
  size_t head = (size_t)(end + 1 - b->p);
  fwrite(b->p, 1, head, f);
  fputs("\n<title>", f);
  xml_text(f, ch->title);
  fputs("</title>\n<desc>", f);
  xml_text(f, ch->subtitle);
  fputs("\nx: ", f);
  xml_text(f, ch->xlabel);
  fputs("\ny: ", f);
  xml_text(f, ch->ylabel);
  for (int i = 0; i < ch->nseries; i++) {
    fputs("\nseries: ", f);
    xml_text(f, ch->series[i].label);
  }
  fputs("</desc>", f);
  fwrite(b->p + head, 1, b->n - head, f);
  return !ferror(f);
}

typedef struct plot_job {
  const plot_chart *ch;
  bool svg;
} plot_job;

/* Draws the chart on a surface of the job's kind and writes the file's bytes to f. */
static bool plot_body(FILE *f, void *arg) {
  const plot_job *job = arg;
  membuf b = {NULL, 0, 0};
  cairo_surface_t *s = job->svg ? cairo_svg_surface_create_for_stream(to_membuf, &b, W, H)
                                : cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
  cairo_t *cr = cairo_create(s);
  render(cr, job->ch);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  if (st == CAIRO_STATUS_SUCCESS && !job->svg)
    st = cairo_surface_write_to_png_stream(s, to_membuf, &b);
  cairo_surface_finish(s); /* the SVG surface writes its last bytes now */
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  bool ok = st == CAIRO_STATUS_SUCCESS;
  if (ok && job->svg)
    ok = write_svg(f, job->ch, &b);
  else if (ok)
    ok = fwrite(b.p, 1, b.n, f) == b.n;
  else
    errno = st == CAIRO_STATUS_NO_MEMORY ? ENOMEM : EIO;
  free(b.p);
  return ok;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int plot_write(const plot_chart *ch, const char *path) {
  double x0, x1, y0, y1;
  if (!extent(ch, &x0, &x1, &y0, &y1))
    return EINVAL;
  plot_job job = {ch, ends_with(path, ".svg")};
  sout o;
  errno = 0;
  if (sout_write_file(&o, path, plot_body, &job))
    return 0;
  return errno ? errno : EIO;
}
