/* The normal form of an axis scan's views, shared by the backends' axis engines (axis_norm.c).
 * Reverse becomes a negative axis stride (the base pointers move to the axis's last element: no
 * copy), batch dimensions of extent 1 are dropped, those negative in both views are flipped, the
 * rest are ordered by output stride, outermost first, and merged where both views are contiguous
 * across them. Strides are in elements. */
#ifndef PSCAN_AXIS_NORM_H
#define PSCAN_AXIS_NORM_H

#include "internal.h"

typedef struct pscan__axis_dim {
  int64_t len, is, os; /* extent; input and output strides */
} pscan__axis_dim;

typedef struct pscan__axis_norm {
  const char *in; /* element 0 of the first line, forward along the axis */
  char *out;
  int64_t len, si, so; /* the axis */
  int nb;              /* batch dimensions, outermost first */
  pscan__axis_dim b[PSCAN_MAX_DIMS];
  size_t nlines;       /* product of the batch extents */
} pscan__axis_norm;

void pscan__axis_normalise(const pscan__axis_call *c, pscan__axis_norm *v);

/* Whether the lines lie side by side: the innermost batch dimension is closer in memory than
   the axis, so neighbouring lines share cache lines (and a GPU's loads coalesce across them). */
bool pscan__axis_side_by_side(const pscan__axis_norm *v);

/* The first elements (forward along the axis) of line `line` (0 <= line < nlines, row-major over
   the batch dimensions) in the normalised input and output views of call c. */
void pscan__axis_line(const pscan__axis_call *c, const pscan__axis_norm *v, size_t line,
                      const void **in, void **out);

#endif /* PSCAN_AXIS_NORM_H */
