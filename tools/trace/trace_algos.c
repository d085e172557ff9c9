/* `pscan trace`: the operator, the recording and printing of every step, and the textbook
 * algorithms themselves, written as plain sequential C that follows the figure in the paper or the
 * textbook (they do not call the library's kernels). */
#include "trace_impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the operator ---- */

int64_t trace_identity(trace_op op) {
  switch (op) {
  case OP_PROD: return 1;
  case OP_MAX: return INT64_MIN;
  case OP_MIN: return INT64_MAX;
  default: return 0;
  }
}

/* Sums and products wrap (computed in uint64_t), so no input is undefined behaviour. */
int64_t trace_apply(trace_op op, int64_t a, int64_t b) {
  switch (op) {
  case OP_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
  case OP_MAX: return a > b ? a : b;
  case OP_MIN: return a < b ? a : b;
  default: return (int64_t)((uint64_t)a + (uint64_t)b);
  }
}

const char *trace_op_name(trace_op op) {
  static const char *const names[] = {"sum", "prod", "max", "min"};
  return names[op];
}

int64_t trace_combine(trace_ctx *t, int64_t a, int64_t b) {
  t->work++;
  return trace_apply(t->op, a, b);
}

void trace_format_value(const trace_ctx *t, int64_t v, char *buf, size_t len) {
  if (t->op == OP_MAX && v == INT64_MIN)
    snprintf(buf, len, "-inf");
  else if (t->op == OP_MIN && v == INT64_MAX)
    snprintf(buf, len, "+inf");
  else
    snprintf(buf, len, "%" PRId64, v);
}

/* ---- recording and printing ---- */

void trace_add_edge(trace_ctx *t, int src, int dst, edge_kind kind) {
  if (t->npending < MAXEDGES)
    t->pending[t->npending++] = (trace_edge){src, dst, kind};
}

/* Prints "  label | v v v" ('.' for a value not written yet; set may be NULL). */
void trace_print_values(const trace_ctx *t, const char *label, const int64_t *x, const bool *set,
                        int n) {
  printf("  %-30s|", label);
  for (int i = 0; i < n; i++) {
    char buf[32];
    if (set && !set[i])
      snprintf(buf, sizeof buf, ".");
    else
      trace_format_value(t, x[i], buf, sizeof buf);
    printf(" %*s", t->width, buf);
  }
  putchar('\n');
}

/* Prints the row and records it, with the edges given since the last row, for the SVG. */
static void row_set(trace_ctx *t, const char *label, const int64_t *x, const bool *set, int n) {
  trace_print_values(t, label, x, set, n);
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

void trace_record(trace_ctx *t, const char *label, const int64_t *x, int n) {
  row_set(t, label, x, NULL, n);
}

/* A step of the network that combines: counts toward the depth. */
void trace_step(trace_ctx *t, const int64_t *x, int n, const char *fmt, ...) {
  char label[64], full[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(label, sizeof label, fmt, ap);
  va_end(ap);
  t->depth++;
  snprintf(full, sizeof full, "step %ld: %s", t->depth, label);
  trace_record(t, full, x, n);
}

static int next_pow2(int n) {
  int m = 1;
  while (m < n)
    m *= 2;
  return m;
}


/* Pads x[n..m) with the identity and says so. */
int trace_pad(trace_ctx *t, int64_t *x, int n) {
  int m = next_pow2(n);
  if (m != n) {
    char id[32];
    trace_format_value(t, trace_identity(t->op), id, sizeof id);
    printf("  (%d values: padded to %d with the identity %s; the padding is dropped at the end)\n",
           n, m, id);
    for (int i = n; i < m; i++)
      x[i] = trace_identity(t->op);
    trace_record(t, "padded", x, m);
  }
  return m;
}
/* ---- the algorithms: each scans x[0..n) inclusively, in place, printing every step ---- */

/* Hillis & Steele / Kogge & Stone: x[i] = x[i-d] (+) x[i] for all i >= d at once. */
void trace_kogge_stone(trace_ctx *t, int64_t *x, int n) {
  int64_t old[MAXV];
  for (int d = 1; d < n; d *= 2) {
    memcpy(old, x, (size_t)n * sizeof *x);
    for (int i = d; i < n; i++) {
      x[i] = trace_combine(t, old[i - d], old[i]);
      trace_add_edge(t, i - d, i, EDGE_COMBINE);
    }
    trace_step(t, x, n, "d=%d", d);
  }
}

static void up_sweep(trace_ctx *t, int64_t *x, int m, int dmax) {
  for (int d = 1; d < dmax; d *= 2) {
    for (int i = 2 * d - 1; i < m; i += 2 * d) {
      x[i] = trace_combine(t, x[i - d], x[i]);
      trace_add_edge(t, i - d, i, EDGE_COMBINE);
    }
    trace_step(t, x, m, "up-sweep d=%d", d);
  }
}

/* Brent & Kung's down-sweep, inclusive form: x[i] = x[i-d] (+) x[i] at i = (k+1)*2d-1+d. */
static void down_sweep_inclusive(trace_ctx *t, int64_t *x, int m, int dtop) {
  for (int d = dtop; d >= 1; d /= 2) {
    int any = 0;
    for (int i = 3 * d - 1; i < m; i += 2 * d) {
      x[i] = trace_combine(t, x[i - d], x[i]);
      trace_add_edge(t, i - d, i, EDGE_COMBINE);
      any = 1;
    }
    if (any)
      trace_step(t, x, m, "down-sweep d=%d", d);
  }
}

int trace_brent_kung(trace_ctx *t, int64_t *x, int n) {
  int m = trace_pad(t, x, n);
  up_sweep(t, x, m, m);
  down_sweep_inclusive(t, x, m, m / 4);
  return m;
}

/* Blelloch: up-sweep, clear the last element, down-sweep with swaps: an exclusive scan. */
int trace_blelloch_exclusive(trace_ctx *t, int64_t *x, int m) {
  up_sweep(t, x, m, m);
  x[m - 1] = trace_identity(t->op);
  trace_record(t, "clear last (identity)", x, m);
  for (int d = m / 2; d >= 1; d /= 2) {
    for (int i = 2 * d - 1; i < m; i += 2 * d) {
      int64_t left = x[i - d];
      x[i - d] = x[i];
      x[i] = trace_combine(t, x[i], left);
      trace_add_edge(t, i, i - d, EDGE_MOVE);
      trace_add_edge(t, i - d, i, EDGE_COMBINE);
    }
    trace_step(t, x, m, "down-sweep d=%d", d);
  }
  return m;
}

/* Sklansky: at step s, the upper half of every 2^(s+1) block adds the last value of its lower
   half. */
void trace_sklansky(trace_ctx *t, int64_t *x, int n) {
  for (int h = 1; h < n; h *= 2) {
    for (int b = 0; b < n; b += 2 * h) {
      int src = b + h - 1;
      for (int i = b + h; i < b + 2 * h && i < n; i++) {
        x[i] = trace_combine(t, x[src], x[i]);
        trace_add_edge(t, src, i, EDGE_COMBINE);
      }
    }
    trace_step(t, x, n, "blocks of %d", 2 * h);
  }
}

/* Sengupta, Lefohn & Owens: up-sweep until `width` partials remain, Kogge-Stone over them, then
   the (inclusive) down-sweep. */
int trace_hybrid(trace_ctx *t, int64_t *x, int n, int width) {
  int m = trace_pad(t, x, n);
  int s = 1;
  while (m / s > width) {
    for (int i = 2 * s - 1; i < m; i += 2 * s) {
      x[i] = trace_combine(t, x[i - s], x[i]);
      trace_add_edge(t, i - s, i, EDGE_COMBINE);
    }
    trace_step(t, x, m, "up-sweep d=%d", s);
    s *= 2;
  }
  int parts = m / s;
  printf("  (%d partials remain, one every %d elements: Kogge-Stone over them)\n", parts, s);
  int64_t old[MAXV];
  for (int d = 1; d < parts; d *= 2) {
    memcpy(old, x, (size_t)m * sizeof *x);
    for (int j = d; j < parts; j++) {
      int i = j * s + s - 1, src = (j - d) * s + s - 1;
      x[i] = trace_combine(t, old[src], old[i]);
      trace_add_edge(t, src, i, EDGE_COMBINE);
    }
    trace_step(t, x, m, "Kogge-Stone d=%d", d);
  }
  down_sweep_inclusive(t, x, m, s / 2);
  return m;
}

/* Kirk & Hwu's hierarchical scan: Kogge-Stone inside every block of `part`, Kogge-Stone over the
   block sums (kept in the last element of each block), then every block adds the sum before it. */
void trace_hierarchical(trace_ctx *t, int64_t *x, int n, int part) {
  int nb = (n + part - 1) / part;
  int64_t old[MAXV];
  printf("  phase 1: scan each block of %d (Kogge-Stone inside every block at once)\n", part);
  for (int d = 1; d < part && d < n; d *= 2) {
    memcpy(old, x, (size_t)n * sizeof *x);
    for (int i = 0; i < n; i++)
      if (i % part >= d) {
        x[i] = trace_combine(t, old[i - d], old[i]);
        trace_add_edge(t, i - d, i, EDGE_COMBINE);
      }
    trace_step(t, x, n, "phase 1 d=%d", d);
  }
  int64_t sums[MAXV] = {0}; /* the first nb are used */
  for (int b = 0; b < nb; b++)
    sums[b] = x[b * part + part - 1 < n ? b * part + part - 1 : n - 1];
  printf("  phase 2: scan the %d block sums S (kept in the last element of each block)\n", nb);
  t->npending = 0;
  trace_record(t, "block sums S", sums, nb);
  t->nrows--; /* the S rows are not rows of the network */
  for (int d = 1; d < nb; d *= 2) {
    memcpy(old, sums, (size_t)nb * sizeof *sums);
    for (int b = d; b < nb; b++) {
      sums[b] = trace_combine(t, old[b - d], old[b]);
      int last = b * part + part - 1 < n ? b * part + part - 1 : n - 1;
      int src = (b - d) * part + part - 1;
      x[last] = sums[b];
      trace_add_edge(t, src, last, EDGE_COMBINE);
    }
    t->depth++;
    char label[96];
    snprintf(label, sizeof label, "step %ld: phase 2 S d=%d", t->depth, d);
    trace_edge keep[MAXEDGES];
    int nkeep = t->npending;
    memcpy(keep, t->pending, (size_t)nkeep * sizeof keep[0]);
    t->npending = 0;
    trace_record(t, label, sums, nb);
    t->nrows--;
    memcpy(t->pending, keep, (size_t)nkeep * sizeof keep[0]);
    t->npending = nkeep;
    snprintf(label, sizeof label, "  array after S d=%d", d);
    trace_record(t, label, x, n);
  }
  if (nb > 1) {
    printf("  phase 3: every block b >= 1 adds S[b-1] (its last element already holds it)\n");
    for (int b = 1; b < nb; b++) {
      int lo = b * part, hi = lo + part < n ? lo + part : n;
      for (int i = lo; i < hi - 1; i++) { /* x[hi-1] holds the scanned S[b] already */
        x[i] = trace_combine(t, x[lo - 1], x[i]);
        trace_add_edge(t, lo - 1, i, EDGE_COMBINE);
      }
    }
    trace_step(t, x, n, "phase 3 add S[b-1]");
  }
}

/* Merrill & Garland's decoupled look-back on a fixed schedule: partition k publishes its
   aggregate (flag A) at step k, looks back at step k+1 over the descriptors as they stood at the
   end of step k, and publishes its inclusive prefix (flag P) and its output at step k+2.
   Partition 0 publishes P at step 0. */
void trace_decoupled_lookback(trace_ctx *t, int64_t *x, int n, int part) {
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
      agg[k] = trace_combine(t, agg[k], in[i]);
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
        e = have ? trace_combine(t, val, e) : val;
        have = true;
        combined = true;
        trace_format_value(t, val, v, sizeof v);
        size_t used = strlen(readtxt[k]);
        snprintf(readtxt[k] + used, sizeof readtxt[k] - used, "%s%c%d=%s", used ? ", " : "",
                 isP ? 'P' : 'A', j, v);
        trace_add_edge(t, j * part + part - 1, k * part, EDGE_READ);
        if (isP)
          break;
      }
      excl[k] = e;
      char v[32];
      trace_format_value(t, e, v, sizeof v);
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
          incl[q] = trace_combine(t, excl[q], agg[q]);
          acc = trace_combine(t, excl[q], in[lo]);
        }
        x[lo] = acc;
        set[lo] = true;
        for (int i = lo + 1; i < hi; i++) {
          acc = trace_combine(t, acc, in[i]);
          x[i] = acc;
          set[i] = true;
          trace_add_edge(t, i - 1, i, EDGE_COMBINE);
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
        trace_format_value(t, agg[q], a, sizeof a);
      if (flag == 'P')
        trace_format_value(t, incl[q], pr, sizeof pr);
      printf("    %-9d %-4c %10s %10s   %s\n", q, flag, a, pr,
             q >= 1 && s >= q + 1 ? readtxt[q] : "-");
    }
    char label[96];
    snprintf(label, sizeof label, "step %d output", s);
    row_set(t, label, x, set, n);
  }
}