/* What the user-operator examples share: a CPU context, the operator compiled from its C source,
 * the verdict against the sequential loop, and the exit status (0 equal, 1 different or failed,
 * 77 when the operator cannot be compiled here, e.g. no C compiler: ctest's skip). */
#ifndef PSCAN_EXAMPLE_H
#define PSCAN_EXAMPLE_H

#include <pscan.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Compiles d's operator for ctx into *op; returns 0, else prints why and returns the exit
   status. */
static inline int example_op(pscan_ctx *ctx, const pscan_op_desc *d, pscan_user_op **op) {
  pscan_status s = pscan_op_create(ctx, d, op);
  if (s == PSCAN_OK)
    return 0;
  printf("pscan_op_create (%s): %s: %s\n", d->name, pscan_status_name(s), pscan_last_error(ctx));
  return s == PSCAN_ERR_UNSUPPORTED ? 77 : 1;
}

/* A CPU context in *ctx and d's operator in *op; returns 0, else prints why, leaves nothing
   behind and returns the exit status. */
static inline int example_start(const pscan_op_desc *d, pscan_ctx **ctx, pscan_user_op **op) {
  if (pscan_create(ctx, PSCAN_BACKEND_CPU) != PSCAN_OK) {
    printf("pscan_create: %s\n", pscan_last_error(NULL));
    return 1;
  }
  int rc = example_op(*ctx, d, op);
  if (rc)
    pscan_destroy(*ctx);
  return rc;
}

/* The line's verdict on a call that gave s: its error, or whether it equals the loop. */
static inline const char *example_verdict(pscan_ctx *ctx, pscan_status s, int equal) {
  return s != PSCAN_OK ? pscan_last_error(ctx) : equal ? "equal to the loop" : "DIFFERENT";
}

/* Releases the operator and the context; returns the exit status of ok. */
static inline int example_end(pscan_ctx *ctx, pscan_user_op *op, int ok) {
  pscan_op_destroy(op);
  pscan_destroy(ctx);
  return ok ? 0 : 1;
}

/* What an example's check gets: the CPU context, the operator compiled from the example's
   source, and in and out of n elements of the operator's elem_size each (in to be filled). */
typedef struct example {
  pscan_ctx *ctx;
  pscan_user_op *op;
  size_t n;
  void *in, *out;
} example;

/* The program around check: the context, d's operator and the buffers, then check's verdict
   (true: the call equals the loop) as the exit status. */
static inline int example_main(const pscan_op_desc *d, size_t n, bool (*check)(const example *)) {
  example ex = {.n = n};
  int rc = example_start(d, &ex.ctx, &ex.op);
  if (rc)
    return rc;
  ex.in = malloc(n * d->elem_size), ex.out = malloc(n * d->elem_size);
  bool ok = ex.in && ex.out;
  if (!ok)
    printf("out of memory for %zu elements of %zu bytes\n", n, d->elem_size);
  ok = ok && check(&ex);
  free(ex.in);
  free(ex.out);
  return example_end(ex.ctx, ex.op, ok);
}

#endif /* PSCAN_EXAMPLE_H */
