/* The host storage of one axis-scan case with a user operator (test_user_op.c,
 * test_cuda_axis_user_op.c): in and out laid out by ref_axis_layout (out in place: in's layout),
 * each buffer n elements of size bytes with slack poisoned elements past them; in filled by the
 * operator's fill, out a copy of in (in place) or poisoned, exp a copy of out for the reference
 * to scan into. The buffers come from test_malloc: free() them. */
#ifndef PSCAN_TEST_AXIS_STORE_H
#define PSCAN_TEST_AXIS_STORE_H

#include "reference.h"
#include "test.h"

#include <string.h>

typedef struct axis_store {
  size_t n, bytes;                           /* elements of the array; bytes of each buffer */
  int64_t is[PSCAN_MAX_DIMS], os[PSCAN_MAX_DIMS]; /* strides, in elements */
  int64_t ib, ob;                            /* element 0's offset in in and out */
  char *in, *out, *exp;
} axis_store;

static inline void axis_store_make(axis_store *st, int ndim, const int64_t *shape,
                                   const int *perm_in, unsigned neg_in, const int *perm_out,
                                   unsigned neg_out, bool in_place, size_t size, size_t slack,
                                   void (*fill)(test_rng *r, void *elem), test_rng *rng) {
  st->n = 1;
  for (int d = 0; d < ndim; d++)
    st->n *= (size_t)shape[d];
  ref_axis_layout(ndim, shape, perm_in, neg_in, st->is, &st->ib);
  if (in_place)
    memcpy(st->os, st->is, sizeof st->is), st->ob = st->ib;
  else
    ref_axis_layout(ndim, shape, perm_out, neg_out, st->os, &st->ob);
  st->bytes = (st->n + slack) * size;
  st->in = test_malloc(st->bytes), st->out = test_malloc(st->bytes);
  st->exp = test_malloc(st->bytes);
  for (size_t i = 0; i < st->n; i++)
    fill(rng, st->in + i * size);
  test_poison(st->in + st->n * size, slack * size);
  if (in_place)
    memcpy(st->out, st->in, st->bytes);
  else
    test_poison(st->out, st->bytes);
  memcpy(st->exp, st->out, st->bytes);
}

#endif /* PSCAN_TEST_AXIS_STORE_H */
