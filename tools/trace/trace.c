/* `pscan trace`: the textbook scan algorithms, simulated step by step on a small array.
 *
 * A teaching tool: every algorithm is written here as plain sequential C that follows the figure
 * in the paper or the textbook (it does not call the library's kernels). After every step the
 * array is printed; at the end, the depth (steps that contain a combine) and the work (combines
 * performed), and a check against a plain sequential scan. `--svg FILE` draws the network: one
 * column per element, one row per step, a line from each operand to the element it updates. */
#include "trace.h"
#include "commands.h"
#include "cli/cli.h"
#include "io/safe_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const CMD = "trace";

enum { MAXV = TRACE_MAX_VALUES, MAXROWS = 256, MAXEDGES = 4 * MAXV };

typedef enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN } trace_op;
typedef enum { EDGE_COMBINE, EDGE_MOVE, EDGE_READ } edge_kind;

typedef struct {
  int src, dst;
  edge_kind kind;
} trace_edge;

typedef struct {
  char label[96];
  int n;
  int64_t v[MAXV];
  bool set[MAXV];
  int nedges;
  trace_edge edges[MAXEDGES];
} trace_row;

typedef struct {
  trace_op op;
  bool exclusive;
  int width;     /* printed width of one value */
  long depth;    /* steps that contain at least one combine */
  long work;     /* combines */
  trace_row *rows;
  int nrows;
  trace_edge pending[MAXEDGES];
  int npending;
} trace_ctx;

/* ---- the operator ---- */

static int64_t identity(trace_op op) {
  switch (op) {
  case OP_PROD: return 1;
  case OP_MAX: return INT64_MIN;
  case OP_MIN: return INT64_MAX;
  default: return 0;
  }
}

/* Sums and products wrap (computed in uint64_t), so no input is undefined behaviour. */
static int64_t apply(trace_op op, int64_t a, int64_t b) {
  switch (op) {
  case OP_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
  case OP_MAX: return a > b ? a : b;
  case OP_MIN: return a < b ? a : b;
  default: return (int64_t)((uint64_t)a + (uint64_t)b);
  }
}

static const char *op_name(trace_op op) {
  static const char *const names[] = {"sum", "prod", "max", "min"};
  return names[op];
}

static int64_t combine(trace_ctx *t, int64_t a, int64_t b) {
  t->work++;
  return apply(t->op, a, b);
}

static void format_value(const trace_ctx *t, int64_t v, char *buf, size_t len) {
  if (t->op == OP_MAX && v == INT64_MIN)
    snprintf(buf, len, "-inf");
  else if (t->op == OP_MIN && v == INT64_MAX)
    snprintf(buf, len, "+inf");
  else
    snprintf(buf, len, "%" PRId64, v);
}

/* ---- recording and printing ---- */

static void edge(trace_ctx *t, int src, int dst, edge_kind kind) {
  if (t->npending < MAXEDGES)
    t->pending[t->npending++] = (trace_edge){src, dst, kind};
}

/* Prints "  label | v v v" ('.' for a value not written yet; set may be NULL). */
static void print_values(const trace_ctx *t, const char *label, const int64_t *x, const bool *set,
                         int n) {
  printf("  %-30s|", label);
  for (int i = 0; i < n; i++) {
    char buf[32];
    if (set && !set[i])
      snprintf(buf, sizeof buf, ".");
    else
      format_value(t, x[i], buf, sizeof buf);
    printf(" %*s", t->width, buf);
  }
  putchar('\n');
}

/* Prints the row and records it, with the edges given since the last row, for the SVG. */
static void row_set(trace_ctx *t, const char *label, const int64_t *x, const bool *set, int n) {
  print_values(t, label, x, set, n);
  if (t->nrows < MAXROWS) {
    trace_row *r = &t->rows[t->nrows++];
    snprintf(r->label, sizeof r->label, "%s", label);
    r->n = n;
    for (int i = 0; i < n; i++) {
      r->v[i] = x[i];
      r->set[i] = set ? set[i] : true;
    }
    r->nedges = t->npending;
    memcpy(r->edges, t->pending, (size_t)t->npending * sizeof t->pending[0]);
  }
  t->npending = 0;
}

static void row(trace_ctx *t, const char *label, const int64_t *x, int n) {
  row_set(t, label, x, NULL, n);
}

/* A step of the network that combines: counts toward the depth. */
static void step(trace_ctx *t, const int64_t *x, int n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void step(trace_ctx *t, const int64_t *x, int n, const char *fmt, ...) {
  char label[64], full[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(label, sizeof label, fmt, ap);
  va_end(ap);
  t->depth++;
  snprintf(full, sizeof full, "step %ld: %s", t->depth, label);
  row(t, full, x, n);
}

static int next_pow2(int n) {
  int m = 1;
  while (m < n)
    m *= 2;
  return m;
}


/* Pads x[n..m) with the identity and says so. */
static int pad(trace_ctx *t, int64_t *x, int n) {
  int m = next_pow2(n);
  if (m != n) {
    char id[32];
    format_value(t, identity(t->op), id, sizeof id);
    printf("  (%d values: padded to %d with the identity %s; the padding is dropped at the end)\n",
           n, m, id);
    for (int i = n; i < m; i++)
      x[i] = identity(t->op);
    row(t, "padded", x, m);
  }
  return m;
}

/* ---- the algorithms: each scans x[0..n) inclusively, in place, printing every step ---- */

/* Hillis & Steele / Kogge & Stone: x[i] = x[i-d] (+) x[i] for all i >= d at once. */
static void kogge_stone(trace_ctx *t, int64_t *x, int n) {
  int64_t old[MAXV];
  for (int d = 1; d < n; d *= 2) {
    memcpy(old, x, (size_t)n * sizeof *x);
    for (int i = d; i < n; i++) {
      x[i] = combine(t, old[i - d], old[i]);
      edge(t, i - d, i, EDGE_COMBINE);
    }
    step(t, x, n, "d=%d", d);
  }
}

static void up_sweep(trace_ctx *t, int64_t *x, int m, int dmax) {
  for (int d = 1; d < dmax; d *= 2) {
    for (int i = 2 * d - 1; i < m; i += 2 * d) {
      x[i] = combine(t, x[i - d], x[i]);
      edge(t, i - d, i, EDGE_COMBINE);
    }
    step(t, x, m, "up-sweep d=%d", d);
  }
}

/* Brent & Kung's down-sweep, inclusive form: x[i] = x[i-d] (+) x[i] at i = (k+1)*2d-1+d. */
static void down_sweep_inclusive(trace_ctx *t, int64_t *x, int m, int dtop) {
  for (int d = dtop; d >= 1; d /= 2) {
    int any = 0;
    for (int i = 3 * d - 1; i < m; i += 2 * d) {
      x[i] = combine(t, x[i - d], x[i]);
      edge(t, i - d, i, EDGE_COMBINE);
      any = 1;
    }
    if (any)
      step(t, x, m, "down-sweep d=%d", d);
  }
}

static int brent_kung(trace_ctx *t, int64_t *x, int n) {
  int m = pad(t, x, n);
  up_sweep(t, x, m, m);
  down_sweep_inclusive(t, x, m, m / 4);
  return m;
}

/* Blelloch: up-sweep, clear the last element, down-sweep with swaps: an exclusive scan. */
static int blelloch_exclusive(trace_ctx *t, int64_t *x, int m) {
  up_sweep(t, x, m, m);
  x[m - 1] = identity(t->op);
  row(t, "clear last (identity)", x, m);
  for (int d = m / 2; d >= 1; d /= 2) {
    for (int i = 2 * d - 1; i < m; i += 2 * d) {
      int64_t left = x[i - d];
      x[i - d] = x[i];
      x[i] = combine(t, x[i], left);
      edge(t, i, i - d, EDGE_MOVE);
      edge(t, i - d, i, EDGE_COMBINE);
    }
    step(t, x, m, "down-sweep d=%d", d);
  }
  return m;
}

/* Sklansky: at step s, the upper half of every 2^(s+1) block adds the last value of its lower
   half. */
static void sklansky(trace_ctx *t, int64_t *x, int n) {
  for (int h = 1; h < n; h *= 2) {
    for (int b = 0; b < n; b += 2 * h) {
      int src = b + h - 1;
      for (int i = b + h; i < b + 2 * h && i < n; i++) {
        x[i] = combine(t, x[src], x[i]);
        edge(t, src, i, EDGE_COMBINE);
      }
    }
    step(t, x, n, "blocks of %d", 2 * h);
  }
}

/* Sengupta, Lefohn & Owens: up-sweep until `width` partials remain, Kogge-Stone over them, then
   the (inclusive) down-sweep. */
static int hybrid(trace_ctx *t, int64_t *x, int n, int width) {
  int m = pad(t, x, n);
  int s = 1;
  while (m / s > width) {
    for (int i = 2 * s - 1; i < m; i += 2 * s) {
      x[i] = combine(t, x[i - s], x[i]);
      edge(t, i - s, i, EDGE_COMBINE);
    }
    step(t, x, m, "up-sweep d=%d", s);
    s *= 2;
  }
  int parts = m / s;
  printf("  (%d partials remain, one every %d elements: Kogge-Stone over them)\n", parts, s);
  int64_t old[MAXV];
  for (int d = 1; d < parts; d *= 2) {
    memcpy(old, x, (size_t)m * sizeof *x);
    for (int j = d; j < parts; j++) {
      int i = j * s + s - 1, src = (j - d) * s + s - 1;
      x[i] = combine(t, old[src], old[i]);
      edge(t, src, i, EDGE_COMBINE);
    }
    step(t, x, m, "Kogge-Stone d=%d", d);
  }
  down_sweep_inclusive(t, x, m, s / 2);
  return m;
}

/* Kirk & Hwu's hierarchical scan: Kogge-Stone inside every block of `part`, Kogge-Stone over the
   block sums (kept in the last element of each block), then every block adds the sum before it. */
static void hierarchical(trace_ctx *t, int64_t *x, int n, int part) {
  int nb = (n + part - 1) / part;
  int64_t old[MAXV];
  printf("  phase 1: scan each block of %d (Kogge-Stone inside every block at once)\n", part);
  for (int d = 1; d < part && d < n; d *= 2) {
    memcpy(old, x, (size_t)n * sizeof *x);
    for (int i = 0; i < n; i++)
      if (i % part >= d) {
        x[i] = combine(t, old[i - d], old[i]);
        edge(t, i - d, i, EDGE_COMBINE);
      }
    step(t, x, n, "phase 1 d=%d", d);
  }
  int64_t sums[MAXV];
  for (int b = 0; b < nb; b++)
    sums[b] = x[b * part + part - 1 < n ? b * part + part - 1 : n - 1];
  printf("  phase 2: scan the %d block sums S (kept in the last element of each block)\n", nb);
  t->npending = 0;
  row(t, "block sums S", sums, nb);
  t->nrows--; /* the S rows are not rows of the network */
  for (int d = 1; d < nb; d *= 2) {
    memcpy(old, sums, (size_t)nb * sizeof *sums);
    for (int b = d; b < nb; b++) {
      sums[b] = combine(t, old[b - d], old[b]);
      int last = b * part + part - 1 < n ? b * part + part - 1 : n - 1;
      int src = (b - d) * part + part - 1;
      x[last] = sums[b];
      edge(t, src, last, EDGE_COMBINE);
    }
    t->depth++;
    char label[96];
    snprintf(label, sizeof label, "step %ld: phase 2 S d=%d", t->depth, d);
    trace_edge keep[MAXEDGES];
    int nkeep = t->npending;
    memcpy(keep, t->pending, (size_t)nkeep * sizeof keep[0]);
    t->npending = 0;
    row(t, label, sums, nb);
    t->nrows--;
    memcpy(t->pending, keep, (size_t)nkeep * sizeof keep[0]);
    t->npending = nkeep;
    snprintf(label, sizeof label, "  array after S d=%d", d);
    row(t, label, x, n);
  }
  if (nb > 1) {
    printf("  phase 3: every block b >= 1 adds S[b-1] (its last element already holds it)\n");
    for (int b = 1; b < nb; b++) {
      int lo = b * part, hi = lo + part < n ? lo + part : n;
      for (int i = lo; i < hi - 1; i++) { /* x[hi-1] holds the scanned S[b] already */
        x[i] = combine(t, x[lo - 1], x[i]);
        edge(t, lo - 1, i, EDGE_COMBINE);
      }
    }
    step(t, x, n, "phase 3 add S[b-1]");
  }
}

/* Merrill & Garland's decoupled look-back on a fixed schedule: partition k publishes its
   aggregate (flag A) at step k, looks back at step k+1 over the descriptors as they stood at the
   end of step k, and publishes its inclusive prefix (flag P) and its output at step k+2.
   Partition 0 publishes P at step 0. */
static void decoupled_lookback(trace_ctx *t, int64_t *x, int n, int part) {
  int np = (n + part - 1) / part;
  int64_t in[MAXV], agg[MAXV], incl[MAXV], excl[MAXV];
  int tA[MAXV], tP[MAXV];
  char readtxt[MAXV][96];
  bool set[MAXV] = {false};
  memcpy(in, x, (size_t)n * sizeof *x);
  for (int k = 0; k < np; k++) {
    int lo = k * part, hi = lo + part < n ? lo + part : n;
    agg[k] = in[lo];
    for (int i = lo + 1; i < hi; i++)
      agg[k] = combine(t, agg[k], in[i]);
    tA[k] = k;
    tP[k] = k == 0 ? 0 : k + 2;
    snprintf(readtxt[k], sizeof readtxt[k], "-");
  }
  printf("  %d partitions of %d; schedule: partition k publishes its aggregate (A) at step k,\n"
         "  looks back at step k+1 (reading the descriptors as they stood at the end of step k),\n"
         "  publishes its inclusive prefix (P) and writes its output at step k+2; partition 0\n"
         "  publishes P at once. Descriptor: flag X (nothing yet) / A / P, aggregate, prefix.\n",
         np, part);
  int last_step = np == 1 ? 0 : np + 1;
  for (int s = 0; s <= last_step; s++) {
    bool combined = false;
    /* look-back of partition s-1, reading the state at the end of step s-1 */
    int k = s - 1;
    if (k >= 1 && k < np) {
      int64_t e = 0;
      bool have = false;
      readtxt[k][0] = '\0';
      for (int j = k - 1; j >= 0; j--) {
        bool isP = tP[j] < s, isA = tA[j] < s;
        char v[32];
        if (!isP && !isA) { /* X: a real look-back spins here; this schedule never gets here */
          size_t used = strlen(readtxt[k]);
          snprintf(readtxt[k] + used, sizeof readtxt[k] - used, "%sX%d (wait)",
                   used ? ", " : "", j);
          continue;
        }
        int64_t val = isP ? incl[j] : agg[j];
        e = have ? combine(t, val, e) : val;
        have = true;
        combined = true;
        format_value(t, val, v, sizeof v);
        size_t used = strlen(readtxt[k]);
        snprintf(readtxt[k] + used, sizeof readtxt[k] - used, "%s%c%d=%s", used ? ", " : "",
                 isP ? 'P' : 'A', j, v);
        edge(t, j * part + part - 1, k * part, EDGE_READ);
        if (isP)
          break;
      }
      excl[k] = e;
      char v[32];
      format_value(t, e, v, sizeof v);
      size_t used = strlen(readtxt[k]);
      snprintf(readtxt[k] + used, sizeof readtxt[k] - used, " -> prefix %s", v);
    }
    /* publications of this step */
    for (int q = 0; q < np; q++) {
      int lo = q * part, hi = lo + part < n ? lo + part : n;
      if (tP[q] == s) {
        int64_t acc;
        if (q == 0) {
          incl[0] = agg[0];
          acc = in[lo];
        } else {
          incl[q] = combine(t, excl[q], agg[q]);
          acc = combine(t, excl[q], in[lo]);
        }
        x[lo] = acc;
        set[lo] = true;
        for (int i = lo + 1; i < hi; i++) {
          acc = combine(t, acc, in[i]);
          x[i] = acc;
          set[i] = true;
          edge(t, i - 1, i, EDGE_COMBINE);
        }
        combined = true;
      }
      if (tA[q] == s)
        combined = true;
    }
    if (combined)
      t->depth++;
    printf("  step %d:\n", s);
    printf("    %-9s %-4s %10s %10s   %s\n", "partition", "flag", "aggregate", "prefix",
           "look-back read");
    for (int q = 0; q < np; q++) {
      char a[32] = "-", pr[32] = "-";
      char flag = tP[q] <= s ? 'P' : tA[q] <= s ? 'A' : 'X';
      if (flag != 'X')
        format_value(t, agg[q], a, sizeof a);
      if (flag == 'P')
        format_value(t, incl[q], pr, sizeof pr);
      printf("    %-9d %-4c %10s %10s   %s\n", q, flag, a, pr,
             q >= 1 && s >= q + 1 ? readtxt[q] : "-");
    }
    char label[96];
    snprintf(label, sizeof label, "step %d output", s);
    row_set(t, label, x, set, n);
  }
}

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
        format_value(t, rw->v[i], v, sizeof v);
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
static bool write_svg(const trace_ctx *t, const char *path, const char *title) {
  svg_job job = {t, title};
  sout o;
  if (!sout_write_file(&o, path, svg_body, &job)) {
    cli_error(CMD, "%s", o.err);
    return false;
  }
  return true;
}

/* ---- the command ---- */

typedef enum {
  A_HILLIS_STEELE,
  A_KOGGE_STONE,
  A_BRENT_KUNG,
  A_BLELLOCH,
  A_SKLANSKY,
  A_HYBRID,
  A_HIERARCHICAL,
  A_DECOUPLED,
  A_COUNT
} trace_algo;

static const char *const algo_names[A_COUNT] = {
    "hillis-steele", "kogge-stone", "brent-kung", "blelloch",
    "sklansky",      "hybrid",      "hierarchical", "decoupled-lookback"};

static void print_help(void) {
  printf(
      "usage: pscan trace --algo NAME [--exclusive] [--op sum|max|min|prod] [--svg FILE]\n"
      "                   [--partition N] [--width W] VALUES...\n"
      "\n"
      "Simulates a textbook parallel scan on a few integers (1 to %d; '-' reads them from stdin)\n"
      "and prints the array after every step, as the figures in the papers and lecture notes\n"
      "show it; then the depth (steps that combine) and the work (combines performed), and a\n"
      "check against a plain sequential scan. The simulation is plain sequential C, not the\n"
      "library's kernels.\n"
      "\n"
      "algorithms (--algo):\n"
      "  hillis-steele       Hillis & Steele 1986: step d = 1, 2, 4, ...: x[i] = x[i-d] + x[i]\n"
      "                      for every i >= d at once. Depth log n, work n log n.\n"
      "                        pscan trace --algo hillis-steele 3 1 7 0 4 1 6 3\n"
      "  kogge-stone         Kogge & Stone 1973: the same network as hillis-steele.\n"
      "                        pscan trace --algo kogge-stone 4 6 7 1 2 8 5 2\n"
      "  brent-kung          Brent & Kung 1982: up-sweep (a reduction tree), then a down-sweep\n"
      "                      x[i] = x[i-d] + x[i] at i = (k+1)*2d-1+d. Depth 2 log n - 1, work\n"
      "                      2n - 2 - log n.\n"
      "                        pscan trace --algo brent-kung 3 1 7 0 4 1 6 3\n"
      "  blelloch            Blelloch 1990: up-sweep, set the last element to the identity,\n"
      "                      down-sweep with swaps. An exclusive scan (depth 2 log n, work\n"
      "                      2(n-1)); inclusive adds a final step combining with the input.\n"
      "                        pscan trace --algo blelloch --exclusive 3 1 7 0 4 1 6 3\n"
      "  sklansky            Sklansky 1960: step s: every element in the upper half of each\n"
      "                      2^(s+1) block adds the last element of its lower half. Depth log n,\n"
      "                      work (n/2) log n.\n"
      "                        pscan trace --algo sklansky 3 1 7 0 4 1 6 3\n"
      "  hybrid              Sengupta, Lefohn & Owens 2006: up-sweep until W partials remain\n"
      "                      (--width W, a power of two, default 4), Kogge-Stone over them,\n"
      "                      then the down-sweep.\n"
      "                        pscan trace --algo hybrid --width 4 3 1 7 0 4 1 6 3\n"
      "  hierarchical        Kirk & Hwu ch. 9: scan every block of N (--partition N, default 4),\n"
      "                      scan the block sums, add each block sum to the next block.\n"
      "                        pscan trace --algo hierarchical --partition 4 4 6 7 1 2 8 5 2\n"
      "  decoupled-lookback  Merrill & Garland 2016: partitions of N (--partition N, default 2)\n"
      "                      on a fixed, staggered schedule; after every step, the table of\n"
      "                      partition descriptors (flag X/A/P, aggregate, inclusive prefix) and\n"
      "                      what each look-back read, as in the paper's Figure 6.\n"
      "                        pscan trace --algo decoupled-lookback 4 6 7 1 2 8 5 2\n"
      "\n"
      "options:\n"
      "  --algo NAME        one of the algorithms above (required)\n"
      "  --exclusive        exclusive scan (identity first); the default is inclusive. Every\n"
      "                     algorithm but blelloch does it by shifting the input right and\n"
      "                     inserting the identity first, and says so.\n"
      "  --op OP            sum (default), max, min or prod (sums and products wrap at 64 bits)\n"
      "  --svg FILE         also draw the network as SVG: one column per element, one row per\n"
      "                     step, a line from each operand to the element it updates\n"
      "  --partition N      block size of hierarchical (default 4) and decoupled-lookback\n"
      "                     (default 2), 1 to %d\n"
      "  --width W          partials left to Kogge-Stone in hybrid (default 4)\n"
      "\n"
      "Lengths that are not powers of two are padded with the identity for brent-kung, blelloch\n"
      "and hybrid (the trace says so); the other algorithms handle the bounds.\n"
      "\n"
      "Examples:\n"
      "  pscan trace --algo kogge-stone 4 6 7 1 2 8 5 2\n"
      "  echo 3 1 7 0 4 1 6 3 | pscan trace --algo blelloch --exclusive -\n"
      "  pscan trace --algo brent-kung --svg bk.svg 3 1 7 0 4 1 6 3\n"
      "\n"
      "Exit status: 0 the result matches the sequential scan, 1 it does not (or the SVG could\n"
      "not be written), 2 a usage error.\n",
      MAXV, MAXV);
}

static bool parse_value(const char *s, int64_t *out, bool *range) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0')
    return false;
  *range = errno == ERANGE;
  *out = (int64_t)v;
  return !*range;
}

/* Adds one value; false after a usage error. */
static bool add_value(const char *text, int64_t *vals, int *n) {
  int64_t v;
  bool range = false;
  if (!parse_value(text, &v, &range)) {
    if (range)
      cli_usage_error(CMD, "%s is out of range (a 64-bit integer)", text);
    else
      cli_usage_error(CMD, "'%s' is not an integer", text);
    return false;
  }
  if (*n >= MAXV) {
    cli_usage_error(CMD, "more than %d values", MAXV);
    return false;
  }
  vals[(*n)++] = v;
  return true;
}

static bool read_stdin(int64_t *vals, int *n) {
  char tok[64];
  int c = getchar();
  for (;;) {
    while (c != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','))
      c = getchar();
    if (c == EOF)
      return true;
    size_t len = 0;
    while (c != EOF && !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',')) {
      if (len + 1 < sizeof tok)
        tok[len++] = (char)c;
      else {
        cli_usage_error(CMD, "stdin: a value longer than %zu characters", sizeof tok - 1);
        return false;
      }
      c = getchar();
    }
    tok[len] = '\0';
    if (!add_value(tok, vals, n))
      return false;
  }
}

static bool is_value_arg(const char *a) {
  return a[0] != '-' || (a[1] >= '0' && a[1] <= '9');
}

int cmd_trace(int argc, char **argv) {
  int algo = -1;
  trace_op op = OP_SUM;
  bool exclusive = false, used_stdin = false;
  const char *svg = NULL;
  long partition = 0, width = 4;
  int64_t vals[MAXV];
  int n = 0;
  bool only_values = false;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int r;
    if (!only_values && cli_is_help(a)) {
      print_help();
      return 0;
    }
    if (only_values || is_value_arg(a)) {
      if (!add_value(a, vals, &n))
        return EXIT_USAGE;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_values = true;
    } else if (strcmp(a, "-") == 0) {
      if (used_stdin)
        return cli_usage_error(CMD, "'-' given twice");
      used_stdin = true;
      if (!read_stdin(vals, &n))
        return EXIT_USAGE;
    } else if (strcmp(a, "--exclusive") == 0) {
      exclusive = true;
    } else if (strcmp(a, "--inclusive") == 0) {
      exclusive = false;
    } else if ((r = cli_value(CMD, argc, argv, &i, "--algo", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      algo = -1;
      for (int k = 0; k < A_COUNT; k++)
        if (strcmp(v, algo_names[k]) == 0)
          algo = k;
      if (algo < 0)
        return cli_usage_error(CMD, "unknown algorithm '%s'", v);
    } else if ((r = cli_value(CMD, argc, argv, &i, "--op", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      if (strcmp(v, "sum") == 0)
        op = OP_SUM;
      else if (strcmp(v, "prod") == 0)
        op = OP_PROD;
      else if (strcmp(v, "max") == 0)
        op = OP_MAX;
      else if (strcmp(v, "min") == 0)
        op = OP_MIN;
      else
        return cli_usage_error(CMD, "unknown operator '%s' (sum, max, min, prod)", v);
    } else if ((r = cli_value(CMD, argc, argv, &i, "--svg", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      svg = v;
    } else if ((r = cli_value(CMD, argc, argv, &i, "--partition", &v)) != 0) {
      if (r < 0 || !cli_parse_int(CMD, "--partition", v, 1, MAXV, &partition))
        return EXIT_USAGE;
    } else if ((r = cli_value(CMD, argc, argv, &i, "--width", &v)) != 0) {
      if (r < 0 || !cli_parse_int(CMD, "--width", v, 1, MAXV, &width))
        return EXIT_USAGE;
      if (width & (width - 1))
        return cli_usage_error(CMD, "--width: %ld is not a power of two", width);
    } else {
      return cli_usage_error(CMD, "unknown option '%s'", a);
    }
  }
  if (algo < 0)
    return cli_usage_error(CMD, "--algo is required");
  if (n == 0)
    return cli_usage_error(CMD, "no values given");
  if (partition == 0)
    partition = algo == A_DECOUPLED ? 2 : 4;
  char why[SOUT_ERR_LEN];
  if (svg && !sout_check(svg, why, sizeof why)) { /* before the trace is printed */
    cli_error(CMD, "%s", why);
    return 1;
  }
  sout_catch_signals();

  trace_ctx *t = calloc(1, sizeof *t);
  trace_row *rows = calloc(MAXROWS, sizeof *rows);
  if (!t || !rows) {
    free(t);
    free(rows);
    cli_error(CMD, "out of memory");
    return 1;
  }
  t->rows = rows;
  t->op = op;
  t->exclusive = exclusive;

  /* the sequential reference, and the printed width */
  int64_t ref[MAXV];
  int64_t acc = identity(op);
  for (int i = 0; i < n; i++) {
    int64_t nx = apply(op, acc, vals[i]);
    ref[i] = exclusive ? acc : nx;
    acc = nx;
  }
  t->width = 2;
  for (int i = 0; i < n; i++) {
    char b1[32], b2[32];
    format_value(t, vals[i], b1, sizeof b1);
    format_value(t, ref[i], b2, sizeof b2);
    if ((int)strlen(b1) > t->width)
      t->width = (int)strlen(b1);
    if ((int)strlen(b2) > t->width)
      t->width = (int)strlen(b2);
  }
  char idtxt[32];
  format_value(t, identity(op), idtxt, sizeof idtxt);
  if ((int)strlen(idtxt) > t->width)
    t->width = (int)strlen(idtxt);

  printf("pscan trace: %s, %s %s scan of %d value%s\n", algo_names[algo],
         exclusive ? "exclusive" : "inclusive", op_name(op), n, n == 1 ? "" : "s");
  if (algo == A_HILLIS_STEELE)
    printf("  (Hillis & Steele's scan is the same network as Kogge & Stone's)\n");
  if (algo == A_KOGGE_STONE)
    printf("  (Kogge & Stone's network is the same as Hillis & Steele's scan)\n");

  int64_t x[MAXV];
  memcpy(x, vals, (size_t)n * sizeof *x);
  row(t, "input", x, n);

  int len = n; /* array length after padding */
  if (algo == A_BLELLOCH) {
    int64_t in[MAXV];
    len = pad(t, x, n);
    memcpy(in, x, (size_t)len * sizeof *x);
    if (!exclusive)
      printf("  (Blelloch's scan produces the exclusive scan; the inclusive one then combines it "
             "with the input)\n");
    blelloch_exclusive(t, x, len);
    if (!exclusive) {
      for (int i = 0; i < len; i++) {
        x[i] = combine(t, x[i], in[i]);
        edge(t, i, i, EDGE_COMBINE);
      }
      step(t, x, len, "combine with input");
    }
  } else {
    if (exclusive) {
      printf("  (exclusive: shift right and insert the identity %s first, then scan "
             "inclusively)\n",
             idtxt);
      for (int i = n - 1; i > 0; i--) {
        x[i] = x[i - 1];
        edge(t, i - 1, i, EDGE_MOVE);
      }
      x[0] = identity(op);
      row(t, "shifted", x, n);
    }
    switch ((trace_algo)algo) {
    case A_HILLIS_STEELE:
    case A_KOGGE_STONE: kogge_stone(t, x, n); break;
    case A_BRENT_KUNG: len = brent_kung(t, x, n); break;
    case A_SKLANSKY: sklansky(t, x, n); break;
    case A_HYBRID: len = hybrid(t, x, n, (int)width); break;
    case A_HIERARCHICAL: hierarchical(t, x, n, (int)partition); break;
    case A_DECOUPLED: decoupled_lookback(t, x, n, (int)partition); break;
    default: break;
    }
  }
  (void)len;
  /* the result: the first n elements (padding dropped) */
  print_values(t, "result", x, NULL, n);
  printf("depth (steps): %ld, work (operations): %ld\n", t->depth, t->work);
  int rc = 0;
  if (memcmp(x, ref, (size_t)n * sizeof *x) == 0) {
    printf("result matches the sequential scan\n");
  } else {
    printf("result DOES NOT match the sequential scan:\n");
    print_values(t, "sequential", ref, NULL, n);
    rc = 1;
  }
  if (svg) {
    char title[160];
    snprintf(title, sizeof title, "%s, %s %s scan of %d values", algo_names[algo],
             exclusive ? "exclusive" : "inclusive", op_name(op), n);
    if (!write_svg(t, svg, title))
      rc = 1;
    else
      printf("network drawn in %s\n", svg);
  }
  free(rows);
  free(t);
  return rc;
}
