/* pscan_mpi's compaction under mpirun (test_mpi.c says what the test covers; shared pieces in
 * test_mpi.h): select_if, run_length_encode and reduce_by_key over every shard layout. */
#define _POSIX_C_SOURCE 200809L
#include "test_mpi.h"

#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- compaction ---- */
static void select_case(pscan_dtype t, pscan_cmp cmp, bool in_place, int lay, size_t n, test_rng *r) {
  size_t offs[65];
  layout(lay, n, r, offs);
  size_t es = pscan_dtype_size(t);
  char *global = test_malloc(n * es + 1), *ref = test_malloc(n * es + 1);
  fill(t, global, n, r, -10, 10, 1);
  uint64_t value = 0;
  fill(t, &value, 1, r, -3, 3, 1);
  size_t ref_n = 0;
  CHECK_STATUS(pscan_select_if(cpu, global, ref, n, t, cmp, &value, &ref_n), PSCAN_OK);
  size_t mine = offs[rank + 1] - offs[rank];
  char *in = test_malloc(mine * es + 8), *out = in_place ? in : test_malloc(mine * es + 8);
  memcpy(in, global + offs[rank] * es, mine * es);
  size_t kept = 0;
  uint64_t goff = 0, gcount = 0;
  pscan_status s = call_select(in, out, mine, t, cmp, &value, &kept,
                                       &goff, &gcount);
  bool ok = s == PSCAN_OK && gcount == ref_n && goff + kept <= ref_n &&
            memcmp(out, ref + goff * es, kept * es) == 0;
  /* the offsets tile the global result: rank r's end is rank r+1's start */
  uint64_t end = goff + kept, next = 0;
  MPI_Sendrecv(&end, 1, MPI_UINT64_T, (rank + 1) % nranks, 0, &next, 1, MPI_UINT64_T,
               (rank + nranks - 1) % nranks, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  ok = ok && (rank == 0 ? goff == 0 : next == goff);
  CHECK(ok, "rank %d: select type %d cmp %d layout %s n %zu: %s, kept %zu at %llu of %llu (ref %zu)",
        rank, (int)t, (int)cmp, layout_names[lay], n, pscan_status_name(s), kept,
        (unsigned long long)goff, (unsigned long long)gcount, ref_n);
  free(global), free(ref), free(in);
  if (!in_place)
    free(out);
}

/* The global array for the run tests: kind 0 random runs; 1 one value throughout (runs cross
   every boundary); 2 a run across exactly the first boundary, 3 across the first two. */
static void run_data(pscan_dtype t, char *g, size_t n, const size_t *offs, int kind, test_rng *r) {
  size_t es = pscan_dtype_size(t);
  fill(t, g, n, r, 0, 3, 1 + (size_t)test_below(r, 9));
  if (kind == 0 || n == 0)
    return;
  size_t from = 0, to = n;
  if (kind >= 2) {
    /* from the middle of the first non-empty shard to the middle of the one kind-1 boundaries on */
    int q0 = 0;
    while (q0 < nranks && offs[q0 + 1] == offs[q0])
      q0++;
    int q1 = q0 + kind - 1;
    if (q1 >= nranks)
      q1 = nranks - 1;
    from = offs[q0] + (offs[q0 + 1] - offs[q0]) / 2;
    to = offs[q1] + (offs[q1 + 1] - offs[q1] + 1) / 2;
    if (to <= from)
      to = from + 1;
  }
  fill(t, g + from * es, 1, r, 7, 7, 1);
  for (size_t i = from + 1; i < to && i < n; i++)
    memcpy(g + i * es, g + from * es, es);
}

static void rle_case(pscan_dtype t, int kind, int lay, size_t n, test_rng *r) {
  size_t offs[65];
  layout(lay, n, r, offs);
  size_t es = pscan_dtype_size(t);
  char *g = test_malloc(n * es + 1), *ref = test_malloc(n * es + 1);
  uint64_t *ref_c = test_malloc(n * 8 + 8);
  run_data(t, g, n, offs, kind, r);
  size_t ref_n = 0;
  CHECK_STATUS(pscan_run_length_encode(cpu, g, ref, ref_c, n, t, &ref_n), PSCAN_OK);
  size_t mine = offs[rank + 1] - offs[rank];
  char *in = test_malloc(mine * es + 8), *out = test_malloc(mine * es + 8);
  uint64_t *counts = test_malloc(mine * 8 + 8);
  memcpy(in, g + offs[rank] * es, mine * es);
  test_poison(out, mine * es);
  size_t runs = 0;
  uint64_t goff = 0, gcount = 0;
  pscan_status s = call_rle(in, out, counts, mine, t, &runs,
                                               &goff, &gcount);
  bool ok = s == PSCAN_OK && gcount == ref_n && goff + runs <= ref_n &&
            memcmp(out, ref + goff * es, runs * es) == 0 &&
            memcmp(counts, ref_c + goff, runs * 8) == 0;
  CHECK(ok, "rank %d: rle type %d kind %d layout %s n %zu: %s, %zu runs at %llu of %llu (ref %zu)",
        rank, (int)t, kind, layout_names[lay], n, pscan_status_name(s), runs,
        (unsigned long long)goff, (unsigned long long)gcount, ref_n);
  free(g), free(ref), free(ref_c), free(in), free(out), free(counts);
}

static void rbk_case(pscan_dtype kt, pscan_dtype vt, pscan_op op, int kind, int lay, size_t n,
                     test_rng *r) {
  size_t offs[65];
  layout(lay, n, r, offs);
  size_t ks = pscan_dtype_size(kt), vs = pscan_dtype_size(vt);
  char *gk = test_malloc(n * ks + 1), *gv = test_malloc(n * vs + 1);
  char *rk = test_malloc(n * ks + 1), *rv = test_malloc(n * vs + 1);
  run_data(kt, gk, n, offs, kind, r);
  fill(vt, gv, n, r, op == PSCAN_PROD ? -1 : -9, op == PSCAN_PROD ? 2 : 9, 1);
  size_t ref_n = 0;
  CHECK_STATUS(pscan_reduce_by_key(cpu, gk, kt, gv, vt, rk, rv, n, op, &ref_n), PSCAN_OK);
  size_t mine = offs[rank + 1] - offs[rank];
  char *k = test_malloc(mine * ks + 8), *v = test_malloc(mine * vs + 8);
  char *ko = test_malloc(mine * ks + 8), *vo = test_malloc(mine * vs + 8);
  memcpy(k, gk + offs[rank] * ks, mine * ks);
  memcpy(v, gv + offs[rank] * vs, mine * vs);
  size_t runs = 0;
  uint64_t goff = 0, gcount = 0;
  pscan_status s = call_rbk(k, kt, v, vt, ko, vo, mine, op,
                                           &runs, &goff, &gcount);
  bool ok = s == PSCAN_OK && gcount == ref_n && goff + runs <= ref_n &&
            memcmp(ko, rk + goff * ks, runs * ks) == 0 && memcmp(vo, rv + goff * vs, runs * vs) == 0;
  CHECK(ok, "rank %d: reduce_by_key %d/%d op %d kind %d layout %s n %zu: %s, %zu runs at %llu of %llu (ref %zu)",
        rank, (int)kt, (int)vt, (int)op, kind, layout_names[lay], n, pscan_status_name(s), runs,
        (unsigned long long)goff, (unsigned long long)gcount, ref_n);
  free(gk), free(gv), free(rk), free(rv), free(k), free(v), free(ko), free(vo);
}

void test_compaction(test_rng *r) {
  static const size_t sizes[] = {0, 1, 5, 64, 777};
  for (int t = 0; t < PSCAN_DTYPE_COUNT; t++)
    for (int lay = 0; lay < LAYOUTS; lay++)
      for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        select_case((pscan_dtype)t, (pscan_cmp)test_below(r, PSCAN_CMP_COUNT), k % 2 == 1, lay,
                    sizes[k], r);
        for (int kind = 0; kind < 4; kind++)
          rle_case((pscan_dtype)t, kind, lay, sizes[k], r);
      }
  for (int kt = 0; kt < PSCAN_DTYPE_COUNT; kt += 3)
    for (int vt = 0; vt < PSCAN_DTYPE_COUNT; vt++)
      for (int op = 0; op < PSCAN_OP_COUNT; op++) {
        if (!ref_op_valid((pscan_dtype)vt, (pscan_op)op))
          continue;
        for (int lay = 0; lay < LAYOUTS; lay++)
          rbk_case((pscan_dtype)kt, (pscan_dtype)vt, (pscan_op)op, (int)test_below(r, 4), lay,
                   sizes[test_below(r, 5)], r);
      }
}
