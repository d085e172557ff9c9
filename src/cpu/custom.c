/* A user's operator (pscan_scan_custom) behind the same kernel interface as the built-in ones.
 * Elements are opaque byte strings of op->acc_size bytes, combined only through the user's
 * function, always as (left, right) so that non-commutative operators keep their order. */
#include "cpu.h"

#include <string.h>

static void custom_combine(const pscan__cpu_op *op, void *out, const void *a, const void *b) {
  op->user_fn(out, a, b, op->user);
}

static void custom_reduce(const pscan__cpu_op *op, const void *in_, size_t n, void *acc) {
  const char *in = in_;
  size_t s = op->acc_size;
  memcpy(acc, in, s);
  for (size_t i = 1; i < n; i++)
    op->user_fn(acc, acc, in + i * s, op->user);
}

/* The running value lives in out itself: out[i] = out[i-1] ⊕ in[i]; when out == in the user's
   function sees out aliasing its right operand, which the API allows. */
static void custom_scan_incl(const pscan__cpu_op *op, const void *in_, void *out_, size_t n,
                             const void *carry, void *scratch) {
  const char *in = in_;
  char *out = out_;
  size_t s = op->acc_size;
  (void)scratch;
  if (carry)
    op->user_fn(out, carry, in, op->user);
  else if (out != in)
    memcpy(out, in, s);
  for (size_t i = 1; i < n; i++)
    op->user_fn(out + i * s, out + (i - 1) * s, in + i * s, op->user);
}

/* Two accumulators swap roles so that in[i] is consumed before out[i] is written (in place). */
static void custom_scan_excl(const pscan__cpu_op *op, const void *in_, void *out_, size_t n,
                             const void *carry, void *scratch) {
  const char *in = in_;
  char *out = out_;
  size_t s = op->acc_size;
  char *acc = scratch, *next = (char *)scratch + s;
  memcpy(acc, carry, s); /* an exclusive custom scan always has a carry (init is required) */
  for (size_t i = 0; i < n; i++) {
    op->user_fn(next, acc, in + i * s, op->user);
    memcpy(out + i * s, acc, s);
    char *t = acc;
    acc = next;
    next = t;
  }
}

static void custom_propagate_incl(const pscan__cpu_op *op, void *out_, size_t n,
                                  const void *carry) {
  char *out = out_;
  for (size_t i = 0; i < n; i++)
    op->user_fn(out + i * op->acc_size, carry, out + i * op->acc_size, op->user);
}

static void custom_propagate_excl(const pscan__cpu_op *op, void *out_, size_t n,
                                  const void *carry) {
  char *out = out_;
  size_t s = op->acc_size;
  for (size_t i = n - 1; i > 0; i--)
    op->user_fn(out + i * s, carry, out + (i - 1) * s, op->user);
  memcpy(out, carry, s);
}

void pscan__cpu_custom_op(pscan__cpu_op *op, size_t elem_size, pscan_combine_fn fn, void *user) {
  *op = (pscan__cpu_op){custom_reduce,         custom_scan_incl,      custom_scan_excl,
                        custom_propagate_incl, custom_propagate_excl, custom_combine,
                        elem_size,             elem_size,             fn,
                        user,                  NULL,                  NULL};
}
