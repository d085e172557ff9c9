/* The normal form of an axis scan's views (axis_norm.h). */
#include "axis_norm.h"

#include <stdlib.h>

/* Moves the bases to the last element of a dimension and negates its strides. */
static void flip(const pscan__axis_call *c, int64_t len, int64_t *is, int64_t *os,
                 const char **in, char **out) {
  *in += (len - 1) * *is * (int64_t)c->in_size;
  *out += (len - 1) * *os * (int64_t)c->out_size;
  *is = -*is, *os = -*os;
}

void pscan__axis_normalise(const pscan__axis_call *c, pscan__axis_norm *v) {
  v->in = c->in, v->out = c->out;
  v->len = c->shape[c->axis], v->si = c->in_strides[c->axis], v->so = c->out_strides[c->axis];
  if (c->reverse)
    flip(c, v->len, &v->si, &v->so, &v->in, &v->out);
  v->nb = 0;
  for (int d = 0; d < c->ndim; d++) {
    if (d == c->axis || c->shape[d] == 1)
      continue;
    pscan__axis_dim x = {c->shape[d], c->in_strides[d], c->out_strides[d]};
    if (x.is < 0 && x.os < 0)
      flip(c, x.len, &x.is, &x.os, &v->in, &v->out);
    int j = v->nb++;
    for (; j > 0 && llabs(v->b[j - 1].os) < llabs(x.os); j--) /* outermost (largest) first */
      v->b[j] = v->b[j - 1];
    v->b[j] = x;
  }
  int m = 0; /* merge an outer dimension into the next one where both views are contiguous */
  for (int d = 0; d < v->nb; d++) {
    if (m > 0 && v->b[m - 1].is == v->b[d].is * v->b[d].len &&
        v->b[m - 1].os == v->b[d].os * v->b[d].len) {
      v->b[m - 1].len *= v->b[d].len;
      v->b[m - 1].is = v->b[d].is, v->b[m - 1].os = v->b[d].os;
    } else {
      v->b[m++] = v->b[d];
    }
  }
  v->nb = m;
  v->nlines = 1;
  for (int d = 0; d < v->nb; d++)
    v->nlines *= (size_t)v->b[d].len;
}

bool pscan__axis_side_by_side(const pscan__axis_norm *v) {
  if (v->nb == 0 || v->len < 2)
    return false;
  const pscan__axis_dim *inner = &v->b[v->nb - 1];
  return llabs(inner->is) + llabs(inner->os) < llabs(v->si) + llabs(v->so);
}

bool pscan__axis_back_to_back(const pscan__axis_norm *v) {
  return v->si == 1 && v->so == 1 && v->nb == 1 && v->b[0].is == v->len &&
         v->b[0].os == v->len && v->len > 0;
}

bool pscan__axis_mirrored_back_to_back(const pscan__axis_norm *v) {
  return v->si == -1 && v->so == -1 && v->nb == 1 && v->b[0].is == v->len &&
         v->b[0].os == v->len && v->len > 0;
}

void pscan__axis_line(const pscan__axis_call *c, const pscan__axis_norm *v, size_t line,
                      const void **in, void **out) {
  int64_t io = 0, oo = 0;
  for (int d = v->nb - 1; d >= 0; d--) {
    int64_t i = (int64_t)(line % (size_t)v->b[d].len);
    line /= (size_t)v->b[d].len;
    io += i * v->b[d].is, oo += i * v->b[d].os;
  }
  *in = v->in + io * (int64_t)c->in_size;
  *out = v->out + oo * (int64_t)c->out_size;
}
