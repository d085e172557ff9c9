/* `pscan trace --svg FILE`: draws the recorded network as SVG, one column per element, one row
 * per step, a line from each operand to the element it updates. */
#include "trace_impl.h"
#include "cli/cli.h"
#include "io/safe_out.h"

#include <stdio.h>

static const char *const CMD = "trace";

/* ---- the SVG ---- */

typedef struct svg_job {
  const trace_ctx *t;
  const char *title;
} svg_job;

static bool svg_body(FILE *f, void *arg) {
  const trace_ctx *t = ((const svg_job *)arg)->t;
  const char *title = ((const svg_job *)arg)->title;
  int maxn = 1;
  for (int r = 0; r < t->nrows; r++)
    if (t->rows[r].n > maxn)
      maxn = t->rows[r].n;
  const int dx = 56, dy = 64, left = 200, top = 60, rad = 20;
  int w = left + maxn * dx + 20, h = top + t->nrows * dy + 20;
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"10\" y=\"24\" font-size=\"16\">%s</text>\n",
          w, h, w, h, title);
  for (int r = 0; r < t->nrows; r++) {
    const trace_row *rw = &t->rows[r];
    int y = top + r * dy + rad;
    fprintf(f, "<text x=\"10\" y=\"%d\" dominant-baseline=\"middle\">", y);
    for (const char *c = rw->label; *c; c++) {
      if (*c == '<')
        fputs("&lt;", f);
      else if (*c == '>')
        fputs("&gt;", f);
      else if (*c == '&')
        fputs("&amp;", f);
      else
        fputc(*c, f);
    }
    fputs("</text>\n", f);
    if (r > 0) {
      int py = y - dy;
      for (int i = 0; i < rw->n && i < t->rows[r - 1].n; i++) /* pass-through */
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>\n",
                left + i * dx, py, left + i * dx, y);
      for (int e = 0; e < rw->nedges; e++) {
        const trace_edge *ed = &rw->edges[e];
        const char *style = ed->kind == EDGE_COMBINE ? "stroke=\"#c33\" stroke-width=\"2\""
                            : ed->kind == EDGE_MOVE  ? "stroke=\"#36c\" stroke-width=\"2\""
                                                     : "stroke=\"#393\" stroke-dasharray=\"4 3\"";
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" %s/>\n", left + ed->src * dx,
                py, left + ed->dst * dx, y, style);
      }
    }
  }
  for (int r = 0; r < t->nrows; r++) {
    const trace_row *rw = &t->rows[r];
    int y = top + r * dy + rad;
    for (int i = 0; i < rw->n; i++) {
      char v[32];
      if (rw->set[i])
        trace_format_value(t, rw->v[i], v, sizeof v);
      else
        snprintf(v, sizeof v, ".");
      fprintf(f,
              "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"#fff\" stroke=\"#333\"/>"
              "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" dominant-baseline=\"middle\">%s"
              "</text>\n",
              left + i * dx, y, rad, left + i * dx, y, v);
    }
  }
  fputs("</svg>\n", f);
  return !ferror(f);
}

/* Through safe_out.h: a temporary file renamed over path, or path itself if it is a device. */
bool trace_write_svg(const trace_ctx *t, const char *path, const char *title) {
  svg_job job = {t, title};
  sout o;
  if (!sout_write_file(&o, path, svg_body, &job)) {
    cli_error(CMD, "%s", o.err);
    return false;
  }
  return true;
}