/* Running products of 2x2 matrices, a non-commutative scan: P_i = M_0 M_1 ... M_i. With the
 * Fibonacci matrix [[1,1],[1,0]] mixed with two shears, in unsigned 32-bit arithmetic
 * (exact, wrapping modulo 2^32), checked element for element against the sequential loop. The
 * operator is C source compiled at run time by pscan. */
#include "example.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t m00, m01, m10, m11; } mat2;

static const char *src =
    "typedef struct { unsigned m00, m01, m10, m11; } mat2;\n"
    "mat2 matmul(mat2 x, mat2 y) {\n"
    "  mat2 r = { x.m00 * y.m00 + x.m01 * y.m10, x.m00 * y.m01 + x.m01 * y.m11,\n"
    "             x.m10 * y.m00 + x.m11 * y.m10, x.m10 * y.m01 + x.m11 * y.m11 };\n"
    "  return r;\n"
    "}\n";

static mat2 matmul(mat2 x, mat2 y) {
  mat2 r = {x.m00 * y.m00 + x.m01 * y.m10, x.m00 * y.m01 + x.m01 * y.m11,
            x.m10 * y.m00 + x.m11 * y.m10, x.m10 * y.m01 + x.m11 * y.m11};
  return r;
}

static bool check(const example *ex) {
  const size_t n = ex->n;
  mat2 *in = ex->in, *out = ex->out;
  srand(7);
  /* Determinant +-1: the products stay invertible modulo 2^32, never collapsing to zero. */
  const mat2 choice[3] = {{1, 1, 1, 0}, {1, 1, 0, 1}, {1, 0, 1, 1}}; /* Fibonacci, two shears */
  for (size_t i = 0; i < n; i++)
    in[i] = choice[rand() % 3];
  pscan_status s = pscan_scan_op(ex->ctx, in, out, n, ex->op, 0, NULL);
  size_t bad = n;
  mat2 acc = in[0];
  for (size_t i = 0; s == PSCAN_OK && i < n && bad == n; i++) {
    if (i > 0)
      acc = matmul(acc, in[i]);
    if (memcmp(&acc, &out[i], sizeof acc) != 0)
      bad = i;
  }
  printf("n = %zu: P[n-1] = [[%u, %u], [%u, %u]]: %s\n", n, (unsigned)out[n - 1].m00,
         (unsigned)out[n - 1].m01, (unsigned)out[n - 1].m10, (unsigned)out[n - 1].m11,
         example_verdict(ex->ctx, s, bad == n));
  return s == PSCAN_OK && bad == n;
}

int main(void) {
  static const mat2 identity = {1, 0, 0, 1}; /* optional; the GPU's kernels run faster with it */
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "mat2",
                     .name = "matmul", .elem_size = sizeof(mat2), .identity = &identity};
  return example_main(&d, (size_t)1 << 22, check);
}
