/* A linear recurrence h[i] = a[i] * h[i-1] + b[i] (an IIR filter, a state-space model's scan) as a
 * parallel scan of affine maps: the map x -> a x + b, composed left to right, is associative, so
 * the scan of the maps (a[i], b[i]) gives every prefix map (A_i, B_i), and h[i] = A_i h0 + B_i.
 * The operator is given to pscan as C source and compiled at run time (with the system C compiler
 * on the CPU, NVRTC on the GPU). The final state alone is a reduction of the maps
 * (pscan_reduce_op: one read, nothing stored). Checked against the sequential loop, in float and
 * in double. */
#include "example.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFINE_CASE(T, NAME, TOL)                                                            \
  typedef struct { T a, b; } NAME##_map;                                                     \
  static int NAME(pscan_ctx *ctx, size_t n) {                                                \
    static const char *src = "typedef struct { " #T " a, b; } affine;\n"                     \
                             "affine compose(affine x, affine y) {\n"                        \
                             "  affine r = { x.a * y.a, y.a * x.b + y.b };\n"                \
                             "  return r;\n"                                                 \
                             "}\n";                                                          \
    static const NAME##_map identity = {1, 0}; /* x -> x (the GPU runs faster with it) */    \
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "affine",     \
                       .name = "compose", .elem_size = sizeof(NAME##_map),                   \
                       .identity = &identity};                                               \
    pscan_user_op *op = NULL;                                                                \
    int rc = example_op(ctx, &d, &op);                                                       \
    if (rc)                                                                                  \
      return rc;                                                                             \
    NAME##_map *m = malloc(n * sizeof *m);                                                   \
    T *h = malloc(n * sizeof *h), h0 = (T)0.5;                                               \
    srand(42);                                                                               \
    for (size_t i = 0; i < n; i++) { /* a decaying filter driven by noise */                 \
      m[i].a = (T)(0.9 + 0.1 * rand() / RAND_MAX);                                           \
      m[i].b = (T)(rand() / (double)RAND_MAX - 0.5);                                         \
    }                                                                                        \
    T prev = h0;                                                                             \
    for (size_t i = 0; i < n; i++) /* the sequential recurrence */                           \
      h[i] = prev = m[i].a * prev + m[i].b;                                                  \
    NAME##_map last; /* the final map alone (one read, nothing stored), before the scan */   \
    pscan_status s = pscan_reduce_op(ctx, m, n, op, NULL, &last);                            \
    double worst = s == PSCAN_OK ? fabs((double)(last.a * h0 + last.b) - (double)h[n - 1]) : 0; \
    if (s == PSCAN_OK)                                                                       \
      s = pscan_scan_op(ctx, m, m, n, op, 0, NULL); /* in place: (A_i, B_i) */               \
    for (size_t i = 0; s == PSCAN_OK && i < n; i++) {                                        \
      double err = fabs((double)(m[i].a * h0 + m[i].b) - (double)h[i]);                      \
      worst = err > worst ? err : worst;                                                     \
    }                                                                                        \
    printf("%-6s n = %zu: h[n-1] = %.6f, largest difference from the loop %.3g (%s)\n", #T, \
           n, (double)h[n - 1], worst, s == PSCAN_OK ? pscan_status_name(s) : pscan_last_error(ctx)); \
    free(m);                                                                                 \
    free(h);                                                                                 \
    pscan_op_destroy(op);                                                                    \
    return s == PSCAN_OK && worst <= (TOL) ? 0 : 1;                                          \
  }
DEFINE_CASE(float, run_f32, 1e-3)
DEFINE_CASE(double, run_f64, 1e-9)

int main(void) {
  pscan_ctx *ctx = NULL;
  if (pscan_create(&ctx, PSCAN_BACKEND_CPU) != PSCAN_OK) {
    printf("pscan_create: %s\n", pscan_last_error(NULL));
    return 1;
  }
  int rc = run_f32(ctx, (size_t)1 << 22);
  if (rc == 0)
    rc = run_f64(ctx, (size_t)1 << 22);
  pscan_destroy(ctx);
  return rc;
}
