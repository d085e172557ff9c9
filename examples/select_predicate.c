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

int main(void) {
  const size_t n = 3000017;
  pscan_op_desc d = {.kind = PSCAN_KIND_PREDICATE, .source = src, .type_name = "particle",
                     .name = "inside", .elem_size = sizeof(particle)};
  pscan_ctx *ctx = NULL;
  pscan_user_op *pred = NULL;
  int rc = example_start(&d, &ctx, &pred);
  if (rc)
    return rc;
  particle *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out),
           *want = malloc(n * sizeof *want);
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
  pscan_status s = pscan_select_op(ctx, in, out, n, pred, &count);
  int ok = s == PSCAN_OK && count == kept && memcmp(out, want, kept * sizeof *out) == 0;
  printf("select:    %zu of %zu particles inside: %s\n", count, n, example_verdict(ctx, s, ok));
  if (ok) {
    s = pscan_partition_op(ctx, in, out, n, pred, &count);
    ok = s == PSCAN_OK && count == kept && memcmp(out, want, n * sizeof *out) == 0;
    printf("partition: %zu inside first, %zu outside after: %s\n", count, n - count,
           example_verdict(ctx, s, ok));
  }
  free(in);
  free(out);
  free(want);
  return example_end(ctx, pred, ok);
}
