/* A running product of complex numbers: the phase of a signal that is rotated by a different
 * angle at each step, z_i = r_0 r_1 ... r_i with r_k = exp(i theta_k). The product of the
 * rotations is the rotation by the sum of the angles, and the scan is compared with the
 * sequential loop (within rounding: floating-point products are reassociated). */
#include "example.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double re, im; } cplx;

static const char *src =
    "typedef struct { double re, im; } cplx;\n"
    "cplx cmul(cplx x, cplx y) {\n"
    "  cplx r = { x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re };\n"
    "  return r;\n"
    "}\n";

static const cplx one = {1, 0}; /* the identity: exclusive scans without init use it */

static bool check(const example *ex) {
  const size_t n = ex->n;
  cplx *rot = ex->in, *z = ex->out;
  srand(3);
  for (size_t i = 0; i < n; i++) {
    double theta = 0.01 * (rand() / (double)RAND_MAX - 0.5);
    rot[i] = (cplx){cos(theta), sin(theta)};
  }
  /* Exclusive: z[i] is the phase before step i (z[0] = 1, from the identity). */
  pscan_status s = pscan_scan_op(ex->ctx, rot, z, n, ex->op, 1, NULL);
  double worst = 0;
  cplx acc = one;
  for (size_t i = 0; s == PSCAN_OK && i < n; i++) {
    double dr = z[i].re - acc.re, di = z[i].im - acc.im, err = sqrt(dr * dr + di * di);
    worst = err > worst ? err : worst;
    acc = (cplx){acc.re * rot[i].re - acc.im * rot[i].im, acc.re * rot[i].im + acc.im * rot[i].re};
  }
  printf("n = %zu: z[n-1] = %.9f %+.9fi, |z| = %.12f, largest difference from the loop %.3g\n", n,
         z[n - 1].re, z[n - 1].im, hypot(z[n - 1].re, z[n - 1].im), worst);
  if (s != PSCAN_OK)
    printf("pscan_scan_op: %s\n", pscan_last_error(ex->ctx));
  return s == PSCAN_OK && worst < 1e-9;
}

int main(void) {
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "cplx",
                     .name = "cmul", .elem_size = sizeof(cplx), .identity = &one};
  return example_main(&d, (size_t)1 << 21, check);
}
