/* Running arg-max: for every position, the largest value so far and where it first occurred, as a
 * scan of (value, index) pairs. Ties keep the smaller index, which makes the operator associative
 * (a maximum under a total order). Checked exactly against the sequential loop. */
#include "example.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { float value; int32_t index; } vi;

static const char *src =
    "typedef struct { float value; int index; } vi;\n"
    "vi argmax(vi x, vi y) {\n"
    "  return (y.value > x.value || (y.value == x.value && y.index < x.index)) ? y : x;\n"
    "}\n";

static bool check(const example *ex) {
  const size_t n = ex->n;
  vi *in = ex->in, *out = ex->out;
  srand(11);
  for (size_t i = 0; i < n; i++) /* a slowly rising noisy signal, with ties */
    in[i] = (vi){(float)(rand() % 1000 + (int)(i / 4096)), (int32_t)i};
  pscan_status s = pscan_scan_op(ex->ctx, in, out, n, ex->op, 0, NULL);
  size_t bad = n;
  vi best = in[0];
  for (size_t i = 0; s == PSCAN_OK && i < n && bad == n; i++) {
    if (in[i].value > best.value)
      best = in[i];
    if (out[i].value != best.value || out[i].index != best.index)
      bad = i;
  }
  printf("n = %zu: max %.0f first at %d: %s\n", n, (double)out[n - 1].value, (int)out[n - 1].index,
         example_verdict(ex->ctx, s, bad == n));
  return s == PSCAN_OK && bad == n;
}

int main(void) {
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "vi",
                     .name = "argmax", .elem_size = sizeof(vi)};
  return example_main(&d, (size_t)1 << 22, check);
}
