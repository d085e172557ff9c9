/* What the parts of `pscan trace` share: the trace context (the operator, the counts, the rows
 * recorded for the SVG) and the functions over it. The operator, the recording and printing, and
 * the algorithms are in trace_algos.c; the SVG writer in trace_svg.c; the command in trace.c. */
#ifndef PSCAN_TOOL_TRACE_IMPL_H
#define PSCAN_TOOL_TRACE_IMPL_H

#include "trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* the operator (trace_algos.c) */
int64_t trace_identity(trace_op op);
int64_t trace_apply(trace_op op, int64_t a, int64_t b);
const char *trace_op_name(trace_op op);
int64_t trace_combine(trace_ctx *t, int64_t a, int64_t b); /* counts toward the work */
void trace_format_value(const trace_ctx *t, int64_t v, char *buf, size_t len);

/* recording and printing (trace_algos.c) */
void trace_add_edge(trace_ctx *t, int src, int dst, edge_kind kind);
void trace_print_values(const trace_ctx *t, const char *label, const int64_t *x, const bool *set,
                        int n);
void trace_record(trace_ctx *t, const char *label, const int64_t *x, int n);
void trace_step(trace_ctx *t, const int64_t *x, int n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int trace_pad(trace_ctx *t, int64_t *x, int n);

/* the algorithms (trace_algos.c): each scans x[0..n) inclusively, in place, printing every step;
   those that pad return the padded length */
void trace_kogge_stone(trace_ctx *t, int64_t *x, int n);
int trace_brent_kung(trace_ctx *t, int64_t *x, int n);
int trace_blelloch_exclusive(trace_ctx *t, int64_t *x, int m);
void trace_sklansky(trace_ctx *t, int64_t *x, int n);
int trace_hybrid(trace_ctx *t, int64_t *x, int n, int width);
void trace_hierarchical(trace_ctx *t, int64_t *x, int n, int part);
void trace_decoupled_lookback(trace_ctx *t, int64_t *x, int n, int part);

/* the SVG (trace_svg.c): false after an error, reported */
bool trace_write_svg(const trace_ctx *t, const char *path, const char *title);

#endif /* PSCAN_TOOL_TRACE_IMPL_H */
