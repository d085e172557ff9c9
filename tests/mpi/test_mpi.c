#define _POSIX_C_SOURCE 200809L
/* pscan_mpi under mpirun -np 1..4: differential against a single-process call on the
 * concatenation. Every rank draws the same global array from the seed (rank 0's, broadcast and
 * printed) and takes its shard; shard layouts cover empty shards, one element per shard, uneven
 * and random sizes. Scans: every type and op, widening, exclusive, init, in place, larger
 * shards. Compaction: select_if, run_length_encode and
 * reduce_by_key with runs crossing one, two and all boundaries. User operators (affine maps,
 * which prove the order of combination) when the build has them. Refusals: ranks that disagree
 * on the type, and one rank passing NULL, fail on every rank with nothing written.
 * One program in two files (what they share: test_mpi.h): the compaction cases are in
 * test_mpi_compact.c. */
#include "test_mpi.h"

#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rank, nranks;
static uint64_t seed;

/* ---- shard layouts ---- */
const char *const layout_names[] = {"even", "first-empty", "middle-empty", "one-holds-all",
                                           "ones", "random"};

/* offsets[0..nranks]: where each rank's shard starts in the global array of n elements */
void layout(int kind, size_t n, test_rng *r, size_t *offsets) {
  size_t sizes[64] = {0};
  size_t p = (size_t)nranks, left = n;
  for (size_t q = 0; q < p; q++) {
    size_t s = 0;
    switch (kind) {
    case LAYOUT_EVEN: s = n / p + (q < n % p); break;
    case LAYOUT_FIRST_EMPTY: s = q == 0 ? 0 : (p == 1 ? n : n / (p - 1) + (q - 1 < n % (p - 1))); break;
    case LAYOUT_MIDDLE_EMPTY: s = (q % 2 == 1) ? 0 : left; break; /* fixed below */
    case LAYOUT_ONE_HOLDS_ALL: s = q == p / 2 ? n : 0; break;
    case LAYOUT_ONES: s = q + 1 < p ? (left > 0) : left; break;
    case LAYOUT_RANDOM: s = q + 1 < p ? (size_t)test_below(r, left + 1) : left; break;
    }
    if (kind == LAYOUT_MIDDLE_EMPTY) {
      size_t nonempty = (p + 1) / 2;
      s = q % 2 == 1 ? 0 : n / nonempty + (q / 2 < n % nonempty);
    }
    if (s > left)
      s = left;
    sizes[q] = s;
    left -= s;
  }
  sizes[p - 1] += left;
  offsets[0] = 0;
  for (size_t q = 0; q < p; q++)
    offsets[q + 1] = offsets[q] + sizes[q];
}

/* ---- values: small integers, so that float results are exact ---- */
void fill(pscan_dtype t, void *p, size_t n, test_rng *r, int lo, int hi, size_t run) {
  size_t es = pscan_dtype_size(t);
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (run <= 1 || i % run == 0 || test_below(r, 4) == 0)
      v = lo + (int64_t)test_below(r, (uint64_t)(hi - lo + 1));
    ref_store_int(t, v, (char *)p + i * es); /* the oracle's conversion, for any type */
  }
}

pscan_ctx *cpu;  /* the single-process reference */
static pscan_ctx *mctx; /* the context of the pscan_mpi calls: cpu, or a CUDA one */

/* ---- the calls under test. In the CUDA build (TEST_MPI_ON_CUDA) each mirrors its host buffers
   into device memory (NULL stays NULL; in place stays in place), calls pscan_mpi on the CUDA
   context, and copies the outputs back, so the checks below read host memory either way. ---- */
#ifdef TEST_MPI_ON_CUDA
#include "cuda_ok.h"
enum { SLACK = 8 };
static void *dev(const void *host, size_t bytes) {
  if (!host)
    return NULL;
  void *d = NULL;
  CUDA_OK(cudaMalloc(&d, bytes + SLACK));
  CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}
static void back(void *host, void *d, size_t bytes) {
  if (!d)
    return;
  CUDA_OK(cudaDeviceSynchronize());
  if (host)
    CUDA_OK(cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d));
}
static pscan_status call_scan(const pscan_scan_args *a) {
  pscan_scan_args b = *a;
  size_t ib = a->n * pscan_dtype_size(a->in_type), ob = a->n * pscan_dtype_size(a->out_type);
  b.out = dev(a->out, ob);
  b.in = a->in == a->out ? b.out : dev(a->in, ib);
  pscan_status s = pscan_mpi_scan(mctx, MPI_COMM_WORLD, &b);
  if (b.in != b.out)
    back(NULL, (void *)b.in, 0);
  back(a->out, b.out, ob);
  return s;
}
static pscan_status call_scan_op(const void *in, void *out, size_t n, const pscan_user_op *op,
                                 int excl, const void *init) {
  size_t bytes = n * pscan_op_elem_size(op);
  void *o = dev(out, bytes), *i = in == out ? o : dev(in, bytes);
  pscan_status s = pscan_mpi_scan_op(mctx, MPI_COMM_WORLD, i, o, n, op, excl, init);
  if (i != o)
    back(NULL, i, 0);
  back(out, o, bytes);
  return s;
}
pscan_status call_select(const void *in, void *out, size_t n, pscan_dtype t, pscan_cmp cmp,
                         const void *value, size_t *kept, uint64_t *off, uint64_t *cnt) {
  size_t bytes = n * pscan_dtype_size(t);
  void *o = dev(out, bytes), *i = in == out ? o : dev(in, bytes);
  pscan_status s = pscan_mpi_select_if(mctx, MPI_COMM_WORLD, i, o, n, t, cmp, value, kept, off, cnt);
  if (i != o)
    back(NULL, i, 0);
  back(out, o, bytes);
  return s;
}
pscan_status call_rle(const void *in, void *out, uint64_t *counts, size_t n, pscan_dtype t,
                      size_t *runs, uint64_t *off, uint64_t *cnt) {
  size_t bytes = n * pscan_dtype_size(t);
  void *o = dev(out, bytes), *i = in == out ? o : dev(in, bytes), *c = dev(counts, n * 8);
  pscan_status s = pscan_mpi_run_length_encode(mctx, MPI_COMM_WORLD, i, o, c, n, t, runs, off, cnt);
  if (i != o)
    back(NULL, i, 0);
  back(out, o, bytes);
  back(counts, c, n * 8);
  return s;
}
pscan_status call_rbk(const void *k, pscan_dtype kt, const void *v, pscan_dtype vt, void *ko,
                      void *vo, size_t n, pscan_op op, size_t *runs, uint64_t *off,
                      uint64_t *cnt) {
  size_t kb = n * pscan_dtype_size(kt), vb = n * pscan_dtype_size(vt);
  void *dk = dev(k, kb), *dv = dev(v, vb), *dko = dev(ko, kb), *dvo = dev(vo, vb);
  pscan_status s = pscan_mpi_reduce_by_key(mctx, MPI_COMM_WORLD, dk, kt, dv, vt, dko, dvo, n, op,
                                           runs, off, cnt);
  back(NULL, dk, 0), back(NULL, dv, 0);
  back(ko, dko, kb), back(vo, dvo, vb);
  return s;
}
#else
static pscan_status call_scan(const pscan_scan_args *a) {
  return pscan_mpi_scan(mctx, MPI_COMM_WORLD, a);
}
static pscan_status call_scan_op(const void *in, void *out, size_t n, const pscan_user_op *op,
                                 int excl, const void *init) {
  return pscan_mpi_scan_op(mctx, MPI_COMM_WORLD, in, out, n, op, excl, init);
}
pscan_status call_select(const void *in, void *out, size_t n, pscan_dtype t, pscan_cmp cmp,
                         const void *value, size_t *kept, uint64_t *off, uint64_t *cnt) {
  return pscan_mpi_select_if(mctx, MPI_COMM_WORLD, in, out, n, t, cmp, value, kept, off, cnt);
}
pscan_status call_rle(const void *in, void *out, uint64_t *counts, size_t n, pscan_dtype t,
                      size_t *runs, uint64_t *off, uint64_t *cnt) {
  return pscan_mpi_run_length_encode(mctx, MPI_COMM_WORLD, in, out, counts, n, t, runs, off, cnt);
}
pscan_status call_rbk(const void *k, pscan_dtype kt, const void *v, pscan_dtype vt, void *ko,
                      void *vo, size_t n, pscan_op op, size_t *runs, uint64_t *off,
                      uint64_t *cnt) {
  return pscan_mpi_reduce_by_key(mctx, MPI_COMM_WORLD, k, kt, v, vt, ko, vo, n, op, runs, off, cnt);
}
#endif

/* ---- scans ---- */
static bool negative_zeros; /* scan_case fills a float input with -0.0 alone */
static bool wide_values; /* scan_case draws integers from all their bits, not small ones: */
static int wide_order;   /* at random (0), upwards through the type's range (1), downwards (2) */
static void scan_case(pscan_dtype in_t, pscan_dtype out_t, pscan_op op, int exclusive, bool init,
                      bool in_place, int lay, size_t n, test_rng *r) {
  size_t offs[65];
  layout(lay, n, r, offs);
  size_t is = pscan_dtype_size(in_t), os = pscan_dtype_size(out_t);
  char *global = test_malloc(n * is + 1), *ref = test_malloc(n * os + 1);
  /* PROD grows fast: keep it to +-1 and 2 */
  fill(in_t, global, n, r, op == PSCAN_PROD ? -1 : (ref_is_float(in_t) ? -3 : -100),
       op == PSCAN_PROD ? 2 : 100, 1);
  for (size_t i = 0; negative_zeros && i < n; i++) {
    double z = -0.0;
    float zf = -0.0f;
    memcpy(global + i * is, in_t == PSCAN_F64 ? (const void *)&z : (const void *)&zf, is);
  }
  /* integers of any bits: random, or running through the type's range upwards or downwards
     within each shard of the even layout (so that the extremes, and values of both signs, lie
     at either end of every shard and in different parts of its reduction) */
  int order = wide_values ? wide_order : 0;
  for (size_t i = 0; wide_values && i < n; i++) {
    uint64_t bits = test_rand(r);
    if (order) {
      int shift = 64 - 8 * (int)is;
      size_t period = n / (size_t)nranks; /* each even shard runs through the whole range */
      uint64_t k = order == 1 ? i % period : period - 1 - i % period;
      bits = (uint64_t)((double)k / (double)period * 18446744073709551615.0) >> shift;
      if (ref_is_signed(in_t)) /* from the most negative to the most positive */
        bits ^= (uint64_t)1 << (8 * is - 1);
    }
    if (op == PSCAN_PROD)
      bits |= 1; /* odd factors: a product modulo 2^bits that never becomes 0 */
    memcpy(global + i * is, &bits, is);
  }
  uint64_t init_v = 0;
  fill(out_t, &init_v, 1, r, -5, 5, 1);
  pscan_scan_args g = {.in = global, .in_type = in_t, .out = ref, .out_type = out_t, .n = n,
                       .op = op, .exclusive = exclusive, .init = init ? &init_v : NULL};
  CHECK_STATUS(pscan_scan(cpu, &g), PSCAN_OK);
  size_t mine = offs[rank + 1] - offs[rank];
  char *in = test_malloc(mine * is + 8), *out = in_place ? in : test_malloc(mine * os + 8);
  memcpy(in, global + offs[rank] * is, mine * is);
  if (!in_place)
    test_poison(out, mine * os);
  pscan_scan_args a = {.in = in, .in_type = in_t, .out = out, .out_type = out_t, .n = mine,
                       .op = op, .exclusive = exclusive, .init = init ? &init_v : NULL};
  pscan_status s = call_scan(&a);
  bool same = memcmp(out, ref + offs[rank] * os, mine * os) == 0;
  CHECK(s == PSCAN_OK && same,
        "rank %d: scan %d->%d op %d excl %d init %d in_place %d layout %s n %zu: %s%s%s", rank,
        (int)in_t, (int)out_t, (int)op, exclusive, init, in_place, layout_names[lay], n,
        pscan_status_name(s), s ? ": " : (same ? "" : ", wrong result"), s ? pscan_mpi_last_error(mctx) : "");
  free(global), free(ref), free(in);
  if (!in_place)
    free(out);
}

static void test_scans(test_rng *r) {
  static const size_t sizes[] = {0, 1, 2, 7, 100, 1000};
  for (int t = 0; t < PSCAN_DTYPE_COUNT; t++)
    for (int op = 0; op < PSCAN_OP_COUNT; op++) {
      if (!ref_op_valid((pscan_dtype)t, (pscan_op)op))
        continue;
      for (int lay = 0; lay < LAYOUTS; lay++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
          int variant = (int)test_below(r, 4);
          scan_case((pscan_dtype)t, (pscan_dtype)t, (pscan_op)op, variant & 1, (variant >> 1) & 1,
                    k % 3 == 2, lay, sizes[k], r);
        }
    }
  /* widening, every combination of exclusive / init, several layouts */
  static const pscan_dtype wide[][2] = {{PSCAN_I32, PSCAN_I64}, {PSCAN_U8, PSCAN_U64},
                                        {PSCAN_I8, PSCAN_I32}, {PSCAN_F32, PSCAN_F64}};
  for (size_t w = 0; w < 4; w++)
    for (int v = 0; v < 4; v++)
      for (int lay = 0; lay < LAYOUTS; lay++)
        scan_case(wide[w][0], wide[w][1], PSCAN_SUM, v & 1, v >> 1, false, lay, 333, r);
  /* floats over larger shards */
  for (int lay = 0; lay < LAYOUTS; lay++)
    for (int v = 0; v < 4; v++) {
      scan_case(PSCAN_F32, PSCAN_F64, PSCAN_SUM, v & 1, v >> 1, false, lay, 1000, r);
      scan_case(PSCAN_F64, PSCAN_F64, PSCAN_PROD, v & 1, v >> 1, v == 3, lay, 1000, r);
      scan_case(PSCAN_F64, PSCAN_F64, PSCAN_MAX, v & 1, v >> 1, false, lay, 1000, r);
    }
  /* the threaded integer reduction: shards of several of its ranges (2^18 items each) */
  bool on_cpu = pscan_get_backend(mctx) == PSCAN_BACKEND_CPU;
  if (!test_quick()) {
    if (on_cpu)
      test_set(mctx, PSCAN_PARAM_THREADS, 3);
    static const pscan_dtype ints[][2] = {{PSCAN_I8, PSCAN_I8}, {PSCAN_I32, PSCAN_I64},
                                          {PSCAN_U16, PSCAN_U64}, {PSCAN_U64, PSCAN_U64}};
    wide_values = true;
    for (size_t w = 0; w < 4; w++)
      for (int op = 0; op < PSCAN_OP_COUNT; op++)
        for (int rep = 0; rep < 3; rep++, wide_order = rep)
          scan_case(ints[w][0], ints[w][1], (pscan_op)op, (op + rep) & 1, op == 2, false,
                    w == 3 && op == 0 && rep ? LAYOUT_ONE_HOLDS_ALL : LAYOUT_EVEN,
                    (size_t)nranks * 700000, r);
    wide_values = false;
    if (on_cpu)
      test_set(mctx, PSCAN_PARAM_THREADS, 1);
  }
  for (int lay = 0; lay < LAYOUTS; lay++)
    scan_case(PSCAN_I32, PSCAN_I64, PSCAN_SUM, lay & 1, 1, false, lay, 300000 + (size_t)lay, r);
  /* a float sum of -0.0 alone is -0.0 everywhere: an empty shard must pass its predecessors'
     -0.0 on untouched (its total is none, not the identity +0.0) */
  negative_zeros = true;
  for (int lay = 0; lay < LAYOUTS; lay++) {
    scan_case(PSCAN_F64, PSCAN_F64, PSCAN_SUM, 0, false, false, lay, 1000, r);
    scan_case(PSCAN_F32, PSCAN_F32, PSCAN_SUM, 0, false, false, lay, 7, r);
  }
  negative_zeros = false;
}

/* ---- refusals: every rank fails, nothing written, no hang ---- */
static void test_refusals(void) {
  if (nranks < 2) {
    printf("refusals across ranks: need 2 or more ranks (not run with 1)\n");
  }
  int32_t in[4] = {1, 2, 3, 4};
  int64_t out[4];
  test_poison(out, sizeof out);
  /* the last rank passes another type */
  pscan_dtype t = rank == nranks - 1 && nranks > 1 ? PSCAN_I64 : PSCAN_I32;
  pscan_scan_args a = {.in = in, .in_type = t, .out = out, .out_type = t, .n = 2, .op = PSCAN_SUM};
  if (nranks > 1) {
    pscan_status s = call_scan(&a);
    CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out) &&
              strstr(pscan_mpi_last_error(mctx), "disagree"),
          "rank %d: mismatched types: %s '%s'", rank, pscan_status_name(s), pscan_mpi_last_error(mctx));
    /* one rank disagrees on the op of reduce_by_key */
    size_t runs = 0;
    s = call_rbk(in, PSCAN_I32, in, PSCAN_I32, out, out + 2, 2,
                                rank == 0 ? PSCAN_MAX : PSCAN_SUM, &runs, NULL, NULL);
    CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out),
          "rank %d: mismatched op: %s", rank, pscan_status_name(s));
    /* one rank gives another init value */
    int32_t init = rank == 1 ? 5 : 4;
    pscan_scan_args b = {.in = in, .in_type = PSCAN_I32, .out = out, .out_type = PSCAN_I32, .n = 2,
                         .op = PSCAN_SUM, .init = &init};
    s = call_scan(&b);
    CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out),
          "rank %d: mismatched init: %s", rank, pscan_status_name(s));
  }
  /* injected failure: the last rank passes in = NULL */
  pscan_scan_args c = {.in = rank == nranks - 1 ? NULL : in, .in_type = PSCAN_I32, .out = out,
                       .out_type = PSCAN_I64, .n = 3, .op = PSCAN_SUM};
  pscan_status s = call_scan(&c);
  CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out) &&
            strstr(pscan_mpi_last_error(mctx), "in is NULL"),
        "rank %d: NULL in on one rank: %s '%s'", rank, pscan_status_name(s), pscan_mpi_last_error(mctx));
  size_t kept = 0;
  int32_t v = 2;
  s = call_select(rank == 0 ? NULL : in, out, 4, PSCAN_I32, PSCAN_GE,
                          &v, &kept, NULL, NULL);
  CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out),
        "rank %d: NULL in on rank 0 (select): %s", rank, pscan_status_name(s));
  size_t runs = 0;
  s = call_rle(in, out, rank == 0 ? NULL : (uint64_t *)out + 2,
                                  rank == 0 ? 2 : 0, PSCAN_I32, &runs, NULL, NULL);
  CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out),
        "rank %d: NULL counts_out on rank 0 (rle): %s", rank, pscan_status_name(s));
  /* a local refusal by the core itself (XOR on floats) on one rank */
  pscan_scan_args d = {.in = in, .in_type = PSCAN_F32, .out = out, .out_type = PSCAN_F32, .n = 1,
                       .op = rank == 0 ? PSCAN_XOR : PSCAN_SUM};
  s = call_scan(&d);
  CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out),
        "rank %d: XOR on f32 on rank 0: %s", rank, pscan_status_name(s));
  /* rank 0 passes no context at all: it still takes part, so every rank fails */
  pscan_scan_args f = {.in = in, .in_type = PSCAN_I32, .out = out, .out_type = PSCAN_I32, .n = 2,
                       .op = PSCAN_SUM};
  s = pscan_mpi_scan(rank == 0 ? NULL : mctx, MPI_COMM_WORLD, &f);
  CHECK(s == PSCAN_ERR_INVALID_ARGUMENT && test_is_poisoned(out, sizeof out) &&
            strstr(pscan_mpi_last_error(rank == 0 ? NULL : mctx), "ctx is NULL"),
        "rank %d: NULL ctx on rank 0: %s", rank, pscan_status_name(s));
  s = pscan_mpi_select_if(rank == 0 ? NULL : mctx, MPI_COMM_WORLD, in, out, 0, PSCAN_I32, PSCAN_GE,
                          &v, &kept, NULL, NULL);
  CHECK(s == PSCAN_ERR_INVALID_ARGUMENT, "rank %d: NULL ctx on rank 0 (select): %s", rank,
        pscan_status_name(s));
  /* after all that, a good call still works */
  pscan_scan_args e = {.in = in, .in_type = PSCAN_I32, .out = out, .out_type = PSCAN_I64, .n = 4,
                       .op = PSCAN_SUM};
  s = call_scan(&e);
  int64_t before = (int64_t)rank * 10;
  CHECK(s == PSCAN_OK && out[0] == before + 1 && out[3] == before + 10,
        "rank %d: a good call after refusals: %s", rank, pscan_status_name(s));
}

/* ---- user operators: affine maps x -> a*x + b (composition is not commutative) ---- */
typedef struct affine {
  double a, b;
} affine;
static void compose(void *out, const void *x, const void *y, void *user) {
  (void)user;
  affine p, q, r;
  memcpy(&p, x, sizeof p);
  memcpy(&q, y, sizeof q);
  r.a = p.a * q.a;
  r.b = q.a * p.b + q.b;
  memcpy(out, &r, sizeof r);
}

static void test_user_ops(test_rng *r) {
  static const char src[] =
      "typedef struct { double a, b; } affine;\n"
      "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n";
  affine id = {1, 0};
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "affine",
                     .name = "compose", .elem_size = sizeof(affine), .identity = &id,
                     .host_fn = compose};
  pscan_user_op *op = NULL;
  pscan_status s = pscan_op_create(mctx, &d, &op);
  int have = s == PSCAN_OK, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (rank == 0)
      printf("user operators: not run (pscan_op_create: %s: %s)\n", pscan_status_name(s),
             pscan_last_error(mctx));
    pscan_op_destroy(op);
    return;
  }
  for (int lay = 0; lay < LAYOUTS; lay++)
    for (int v = 0; v < 4; v++) {
      /* larger shards too: several tiles of the GPU's reduction (pscan_reduce_op) */
      size_t n = v == 3 ? 5000 + (size_t)test_below(r, 30000) : 50 + (size_t)test_below(r, 200);
      size_t offs[65];
      layout(lay, n, r, offs);
      affine *g = test_malloc(n * sizeof *g + 1), *ref = test_malloc(n * sizeof *g + 1);
      for (size_t i = 0; i < n; i++) {
        g[i].a = (double)((int)test_below(r, 3) - 1); /* -1, 0, 1: exact */
        g[i].b = (double)((int)test_below(r, 9) - 4);
      }
      affine init = {2, 1};
      int excl = v & 1;
      const void *ip = (v >> 1) ? &init : NULL;
      CHECK_STATUS(pscan_scan_custom(cpu, g, ref, n, sizeof(affine), compose, NULL, excl,
                                     excl && !ip ? &id : ip),
                   PSCAN_OK);
      size_t mine = offs[rank + 1] - offs[rank];
      affine *in = test_malloc(mine * sizeof *in + 8), *out = test_malloc(mine * sizeof *in + 8);
      memcpy(in, g + offs[rank], mine * sizeof *in);
      test_poison(out, mine * sizeof *out);
      s = call_scan_op(in, out, mine, op, excl, ip);
      CHECK(s == PSCAN_OK && memcmp(out, ref + offs[rank], mine * sizeof *out) == 0,
            "rank %d: affine scan layout %s excl %d init %d: %s %s", rank, layout_names[lay], excl,
            ip != NULL, pscan_status_name(s), pscan_mpi_last_error(mctx));
      free(g), free(ref), free(in), free(out);
    }
  pscan_op_destroy(op);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks > 64) {
    fprintf(stderr, "test_mpi: at most 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  seed = test_init("test_mpi");
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ranks %d, seed of rank 0 used everywhere: %llu\n", nranks, (unsigned long long)seed);
  cpu = test_ctx(1);
  mctx = cpu;
#ifdef TEST_MPI_ON_CUDA
  /* one GPU per rank where there are several; ranks share one otherwise */
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0 ||
      pscan_create(&mctx, PSCAN_BACKEND_CUDA) != PSCAN_OK) {
    if (rank == 0)
      printf("no usable GPU: skipped\n");
    MPI_Finalize();
    return 77;
  }
  CUDA_OK(cudaSetDevice(rank % gpus));
  test_set(mctx, PSCAN_PARAM_DEVICE, rank % gpus);
  if (rank == 0)
    printf("CUDA contexts, %d GPU(s) for %d ranks\n", gpus, nranks);
#endif
  test_rng r = test_fork(seed, 1);
  test_scans(&r);
  r = test_fork(seed, 2);
  test_compaction(&r);
  test_refusals();
  r = test_fork(seed, 3);
  test_user_ops(&r);
  if (mctx != cpu)
    pscan_destroy(mctx);
  pscan_destroy(cpu);
  int rc = test_finish();
  MPI_Finalize();
  return rc;
}
