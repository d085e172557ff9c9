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

/* Whether the lines lie back to back in both views (a C-order array along its last axis, read
   forward): together they are one contiguous run, a line starting every len items. */
bool pscan__axis_back_to_back(const pscan__axis_norm *v);
/* The same read backward (a reversed view): the axis toward lower addresses in both views, the
   lines still len apart, so the whole array is one span read from its top down. */
bool pscan__axis_mirrored_back_to_back(const pscan__axis_norm *v);

/* The first elements (forward along the axis) of line `line` (0 <= line < nlines, row-major over
   the batch dimensions) in the normalised input and output views of call c. */
void pscan__axis_line(const pscan__axis_call *c, const pscan__axis_norm *v, size_t line,
                      const void **in, void **out);

/* Zeroes *p, the parameters of a CUDA axis launch (cuda/axis_launch.h's or cuda/jit/
   user_axis.h's struct: the same field names), and fills its views from v and its mode from call
   c; the init value's bytes, whose field differs, are the caller's. */
#define PSCAN__AXIS_FILL_PARAMS(p, c, v)                                                          \
  do {                                                                                            \
    memset((p), 0, sizeof *(p));                                                                  \
    (p)->in = (v)->in, (p)->out = (v)->out;                                                       \
    (p)->len = (v)->len, (p)->si = (v)->si, (p)->so = (v)->so, (p)->nb = (v)->nb;                 \
    for (int d_ = 0; d_ < (v)->nb; d_++)                                                          \
      (p)->blen[d_] = (v)->b[d_].len, (p)->bis[d_] = (v)->b[d_].is, (p)->bos[d_] = (v)->b[d_].os; \
    (p)->nlines = (v)->nlines;                                                                    \
    (p)->exclusive = (c)->exclusive;                                                              \
    (p)->has_init = (c)->init != NULL;                                                            \
  } while (0)

#endif /* PSCAN_AXIS_NORM_H */
