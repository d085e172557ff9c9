/* Compaction with a predicate given as C source: keep the particles inside a sphere, in order
 * (pscan_select_op), and split them into inside and outside (pscan_partition_op: the kept ones
 * first, the others after them in reverse order). Checked against the sequential loops. */
#include "example.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { float x, y, z; int32_t id; } particle;

static const char *src =
    "typedef struct { float x, y, z; int id; } particle;\n"
    "int inside(particle p) { return p.x * p.x + p.y * p.y + p.z * p.z < 0.25f; }\n";

static int inside(const particle *p) { return p->x * p->x + p->y * p->y + p->z * p->z < 0.25f; }

static bool check(const example *ex) {
  const size_t n = ex->n;
  particle *in = ex->in, *out = ex->out, *want = malloc(n * sizeof *want);
  if (!want) {
    printf("out of memory\n");
    return false;
  }
  srand(5);
  for (size_t i = 0; i < n; i++)
    in[i] = (particle){(float)rand() / RAND_MAX - 0.5f, (float)rand() / RAND_MAX - 0.5f,
                       (float)rand() / RAND_MAX - 0.5f, (int32_t)i};
  size_t kept = 0, count = 0, rejected = 0;
  for (size_t i = 0; i < n; i++)
    if (inside(&in[i]))
      want[kept++] = in[i];
    else
      want[n - 1 - rejected++] = in[i];
  pscan_status s = pscan_select_op(ex->ctx, in, out, n, ex->op, &count);
  int ok = s == PSCAN_OK && count == kept && memcmp(out, want, kept * sizeof *out) == 0;
  printf("select:    %zu of %zu particles inside: %s\n", count, n, example_verdict(ex->ctx, s, ok));
  if (ok) {
    s = pscan_partition_op(ex->ctx, in, out, n, ex->op, &count);
    ok = s == PSCAN_OK && count == kept && memcmp(out, want, n * sizeof *out) == 0;
    printf("partition: %zu inside first, %zu outside after: %s\n", count, n - count,
           example_verdict(ex->ctx, s, ok));
  }
  free(want);
  return ok;
}

int main(void) {
  pscan_op_desc d = {.kind = PSCAN_KIND_PREDICATE, .source = src, .type_name = "particle",
                     .name = "inside", .elem_size = sizeof(particle)};
  return example_main(&d, 3000017, check);
}
