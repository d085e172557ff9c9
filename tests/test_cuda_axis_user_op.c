/* pscan_scan_axis with a user operator on the CUDA backend (label cuda; exits 77 without a GPU):
 * differential against a sequential per-line loop over the same operator on the host. Operators:
 * affine f32 maps and 2x2 f32 matrix products (signed permutation matrices: non-commutative and
 * exact), arg-max of (value, index) (the first of equal values wins: order shows), a plain f32 sum
 * (small integers: exact), affine maps modulo 256 (2 bytes) and a u8 sum (1 byte). Every axis of
 * 1-D..4-D arrays, lengths 1, 31, 32, 33, 1000, 4097 along the axis, many short lines and few
 * long ones (every kernel path of cuda/jit/jit_axis.c: warp per line, thread per side-by-side
 * line, both in chunks, the single-pass scan per line), C order, transposed and negative strides
 * for in and out, inclusive / with init / exclusive with init and with the identity, reverse, in
 * place, misaligned buffers. Storage is poisoned, with slack past the views, so a stray or
 * missing write shows. Then the refusals (nothing written). Seeded (PSCAN_TEST_SEED);
 * PSCAN_TEST_QUICK=1 runs a reduced set (for compute-sanitizer). */
#include "axis_op_refusals.h"
#include "axis_store.h"
#include "cuda_ok.h"
#include "reference.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLACK = 8 };

static uint64_t seed;

/* ---- the operators, as source and as host functions ---- */

typedef struct { float a, b; } affine;
typedef struct { float m[2][2]; } mat2;
typedef struct { float v; int32_t i; } amax;
typedef struct { uint8_t a, b; } affine8; /* affine maps modulo 256: 2 bytes, not commutative */

static void ref_affine(void *o, const void *pa, const void *pb, void *user) {
  (void)user;
  affine x, y, r;
  memcpy(&x, pa, sizeof x), memcpy(&y, pb, sizeof y);
  r.a = x.a * y.a;
  r.b = y.a * x.b + y.b;
  memcpy(o, &r, sizeof r);
}
static void ref_mat2(void *o, const void *pa, const void *pb, void *user) {
  (void)user;
  mat2 x, y, r;
  memcpy(&x, pa, sizeof x), memcpy(&y, pb, sizeof y);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      r.m[i][j] = x.m[i][0] * y.m[0][j] + x.m[i][1] * y.m[1][j];
  memcpy(o, &r, sizeof r);
}
static void ref_amax(void *o, const void *pa, const void *pb, void *user) {
  (void)user;
  amax x, y;
  memcpy(&x, pa, sizeof x), memcpy(&y, pb, sizeof y);
  memcpy(o, y.v > x.v ? &y : &x, sizeof x);
}
static void ref_sum(void *o, const void *pa, const void *pb, void *user) {
  (void)user;
  float x, y, r;
  memcpy(&x, pa, 4), memcpy(&y, pb, 4);
  r = x + y;
  memcpy(o, &r, 4);
}

static void ref_affine8(void *o, const void *pa, const void *pb, void *user) {
  (void)user;
  affine8 x, y, r;
  memcpy(&x, pa, sizeof x), memcpy(&y, pb, sizeof y);
  r.a = (uint8_t)(x.a * y.a);
  r.b = (uint8_t)(y.a * x.b + y.b);
  memcpy(o, &r, sizeof r);
}
static void ref_add8(void *o, const void *pa, const void *pb, void *user) {
  (void)user;
  *(uint8_t *)o = (uint8_t)(*(const uint8_t *)pa + *(const uint8_t *)pb);
}

/* Values that keep every result exact: affine a in {-1, 1}, b small; signed permutation
   matrices (a group: products never grow); small arg-max values (ties are common); small
   integers for the sum. */
static void fill_affine(test_rng *r, void *p) {
  affine x = {test_below(r, 2) ? 1.0f : -1.0f, (float)((int)test_below(r, 17) - 8)};
  memcpy(p, &x, sizeof x);
}
static void fill_mat2(test_rng *r, void *p) {
  float s0 = test_below(r, 2) ? 1.0f : -1.0f, s1 = test_below(r, 2) ? 1.0f : -1.0f;
  mat2 x = {{{s0, 0}, {0, s1}}};
  if (test_below(r, 2))
    x = (mat2){{{0, s0}, {s1, 0}}};
  memcpy(p, &x, sizeof x);
}
static void fill_amax(test_rng *r, void *p) {
  amax x = {(float)test_below(r, 50), (int32_t)test_below(r, 1u << 30)};
  memcpy(p, &x, sizeof x);
}
static void fill_sum(test_rng *r, void *p) {
  float x = (float)((int)test_below(r, 21) - 10);
  memcpy(p, &x, 4);
}

static void fill_affine8(test_rng *r, void *p) {
  affine8 x = {(uint8_t)(2 * test_below(r, 128) + 1), (uint8_t)test_below(r, 256)}; /* a odd */
  memcpy(p, &x, sizeof x);
}
static void fill_add8(test_rng *r, void *p) { *(uint8_t *)p = (uint8_t)test_below(r, 256); }

static const affine id_affine = {1, 0};
static const affine8 id_affine8 = {1, 0};
static const uint8_t id_add8 = 0;
static const mat2 id_mat2 = {{{1, 0}, {0, 1}}};
static const amax id_amax = {-INFINITY, -1};
static const float id_sum = 0;

typedef struct op_case {
  const char *what, *source, *type_name, *name;
  size_t size;
  pscan_combine_fn ref;
  void (*fill)(test_rng *r, void *p);
  const void *identity;
  int floats; /* leading f32 fields of an element (compared with -0 == +0) */
} op_case;

static const op_case cases[] = {
    {"affine f32",
     "typedef struct { float a, b; } affine;\n"
     "affine compose(affine x, affine y) { affine r; r.a = x.a * y.a; r.b = y.a * x.b + y.b;\n"
     "  return r; }\n",
     "affine", "compose", sizeof(affine), ref_affine, fill_affine, &id_affine, 2},
    {"2x2 f32 matrices",
     "typedef struct { float m[2][2]; } mat2;\n"
     "mat2 mul(mat2 x, mat2 y) { mat2 r; for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++)\n"
     "  r.m[i][j] = x.m[i][0] * y.m[0][j] + x.m[i][1] * y.m[1][j]; return r; }\n",
     "mat2", "mul", sizeof(mat2), ref_mat2, fill_mat2, &id_mat2, 4},
    {"arg-max",
     "#include <stdint.h>\ntypedef struct { float v; int32_t i; } amax;\n"
     "amax best(amax x, amax y) { return y.v > x.v ? y : x; }\n",
     "amax", "best", sizeof(amax), ref_amax, fill_amax, &id_amax, 1},
    {"f32 sum", "float add(float a, float b) { return a + b; }\n", "float", "add", 4, ref_sum,
     fill_sum, &id_sum, 1},
    /* 2- and 1-byte elements: mirrored tiles reverse them inside 16-byte chunks by byte permutes */
    {"affine mod 256",
     "typedef struct { unsigned char a, b; } affine8;\n"
     "affine8 compose8(affine8 x, affine8 y) { affine8 r; r.a = (unsigned char)(x.a * y.a);\n"
     "  r.b = (unsigned char)(y.a * x.b + y.b); return r; }\n",
     "affine8", "compose8", sizeof(affine8), ref_affine8, fill_affine8, &id_affine8, 0},
    {"u8 sum", "typedef unsigned char u8;\nu8 add8(u8 a, u8 b) { return (u8)(a + b); }\n", "u8",
     "add8", 1, ref_add8, fill_add8, &id_add8, 0},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* -0.0f -> +0.0f in the float fields of the elements of buf: the scans combine in another
   association than the sequential loop, and a matrix product's zero may come out with either
   sign (the values are exact otherwise). Poison bytes are not zeros and stay. */
static void canon_zeros(const op_case *c, char *buf, size_t elems) {
  for (size_t i = 0; i < elems; i++)
    for (int f = 0; f < c->floats; f++) {
      char *p = buf + i * c->size + 4 * (size_t)f;
      uint32_t bits;
      memcpy(&bits, p, 4);
      if (bits == 0x80000000u)
        memset(p, 0, 4);
    }
}

/* ---- one call ---- */

typedef struct layout_spec {
  int perm_in[PSCAN_MAX_DIMS], perm_out[PSCAN_MAX_DIMS];
  unsigned neg_in, neg_out;
  bool in_place;
  unsigned shift; /* bytes both device buffers start past an allocation (misaligned elements) */
} layout_spec;

static int failures, calls;

/* mode: 0 inclusive, 1 inclusive with init, 2 exclusive with init, 3 exclusive (identity). */
static void run_case(pscan_ctx *ctx, const op_case *c, const pscan_user_op *op, int ndim,
                     const int64_t *shape, int axis, const layout_spec *ls, int mode, int reverse,
                     test_rng *rng) {
  size_t s = c->size;
  axis_store store;
  axis_store_make(&store, ndim, shape, ls->perm_in, ls->neg_in, ls->perm_out, ls->neg_out,
                  ls->in_place, s, SLACK, c->fill, rng);
  const int64_t *is = store.is, *os = store.os, ib = store.ib, ob = store.ob;
  size_t n = store.n, bytes = store.bytes;
  char *in = store.in, *out = store.out, *exp = store.exp;
  char init[64];
  c->fill(rng, init);
  const void *use_init = mode == 1 || mode == 2 ? init : NULL;
  char *din = NULL, *dout = NULL, *din_alloc = NULL, *dout_alloc = NULL;
  CUDA_OK(cudaMalloc((void **)&dout_alloc, bytes + 16));
  dout = dout_alloc + ls->shift;
  CUDA_OK(cudaMemcpy(dout, out, bytes, cudaMemcpyHostToDevice));
  if (ls->in_place) {
    din = dout;
  } else {
    CUDA_OK(cudaMalloc((void **)&din_alloc, bytes + 16));
    din = din_alloc + ls->shift;
    CUDA_OK(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
  }
  pscan_axis_args a = {.in = din + ib * (int64_t)s, .out = dout + ob * (int64_t)s, .ndim = ndim,
                       .shape = shape, .axis = axis, .in_strides = is, .out_strides = os,
                       .user_op = op, .exclusive = mode >= 2, .reverse = reverse,
                       .init = use_init};
  ref_scan_axis_combine(&a, s, c->ref, NULL, in + ib * (int64_t)s, exp + ob * (int64_t)s,
                        mode == 3 ? c->identity : use_init);
  pscan_status st = pscan_scan_axis(ctx, &a);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
  char shape_text[96] = "";
  for (int d = 0, at = 0; d < ndim; d++)
    at += snprintf(shape_text + at, sizeof shape_text - (size_t)at, "%s%lld", d ? "," : "",
                   (long long)shape[d]);
  bool ok = CHECK_STATUS(st, PSCAN_OK);
  canon_zeros(c, out, n + SLACK);
  canon_zeros(c, exp, n + SLACK);
  if (ok) {
    size_t bad = 0;
    while (bad < bytes && out[bad] == exp[bad])
      bad++;
    ok = CHECK(bad == bytes,
               "%s: shape (%s) axis %d mode %d reverse %d in place %d perm_in[0] %d neg %u/%u "
               "shift %u: out differs at storage element %zu%s",
               c->what, shape_text, axis, mode, reverse, ls->in_place, ls->perm_in[0],
               ls->neg_in, ls->neg_out, ls->shift, bad / s, bad / s >= n ? " (slack)" : "");
  }
  if (ok && !ls->in_place) {
    char *back = test_malloc(bytes);
    CUDA_OK(cudaMemcpy(back, din, bytes, cudaMemcpyDeviceToHost));
    ok = CHECK(memcmp(back, in, bytes) == 0, "%s: in was written", c->what);
    free(back);
  }
  failures += !ok;
  calls++;
  if (din_alloc)
    CUDA_OK(cudaFree(din_alloc));
  CUDA_OK(cudaFree(dout_alloc));
  free(in), free(out), free(exp);
}

/* A layout of ndim dimensions: v picks C order or transposed for in and out, negative strides,
   in place, buffers 1 or 4 bytes past an aligned address. */
static layout_spec pick_layout(int ndim, int v, int axis) {
  layout_spec ls;
  memset(&ls, 0, sizeof ls);
  for (int d = 0; d < ndim; d++) {
    ls.perm_in[d] = v & 1 ? ndim - 1 - d : d;
    ls.perm_out[d] = v & 2 ? ndim - 1 - d : d;
  }
  ls.neg_in = v & 4 ? 1u << axis : 0;
  ls.neg_out = v == 6 ? (1u << ndim) - 1 : v == 5 ? 1u : 0;
  ls.in_place = v == 7;
  ls.shift = v == 3 ? 1 : v == 5 ? 4 : 0;
  return ls;
}

static pscan_user_op *make_op(pscan_ctx *ctx, const op_case *c, bool identity) {
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size,
                     .identity = identity ? c->identity : NULL};
  pscan_user_op *op = NULL;
  if (!CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK))
    fprintf(stderr, "  %s: %s\n", c->what, pscan_last_error(ctx));
  return op;
}

/* Every axis of 1-D..4-D shapes whose axis has each of the lengths. */
static void test_shapes(pscan_ctx *ctx, const op_case *c, const pscan_user_op *op, test_rng *rng) {
  static const int64_t lens[] = {1, 31, 32, 33, 1000, 4097};
  const int nlens = test_quick() ? 4 : (int)(sizeof lens / sizeof *lens);
  for (int li = 0; li < nlens; li++) {
    for (int ndim = 1; ndim <= 4; ndim++) {
      for (int axis = 0; axis < ndim; axis++) {
        int64_t shape[4] = {3, 5, 2, 4};
        shape[axis] = lens[li];
        for (int v = 0; v < 8; v++) {
          if (ndim == 1 && (v & 3))
            continue; /* transposing one dimension changes nothing */
          if (lens[li] >= 1000 && ndim >= 3 && (v + axis + li) % 3)
            continue; /* the long lengths on a third of the layouts */
          layout_spec ls = pick_layout(ndim, v, axis);
          int mode = (v + axis + li) % 4, reverse = (int)test_below(rng, 2);
          run_case(ctx, c, op, ndim, shape, axis == ndim - 1 && v % 2 ? -1 : axis, &ls, mode,
                   reverse, rng);
        }
      }
    }
  }
}

/* The regimes: many short lines, few long ones (the single-pass path forward and contiguous,
   chunks otherwise), side by side with many and with few columns (chunks). */
static void test_regimes(pscan_ctx *ctx, const op_case *c, const pscan_user_op *op,
                         test_rng *rng) {
  static const int64_t shapes[][2] = {
      {5000, 33}, /* axis 1: many short lines; axis 0: side by side, many columns */
      {3, 70001}, /* axis 1: few long lines; axis 0: 70001 columns of 3 */
      {4097, 7},  /* axis 0: few columns, the axis in chunks */
      {1, 131072}, /* one long line */
      {20000, 2}, /* axis 0: two columns of 20000 (many chunks: carries by warps) */
      {2, 2500},  /* axis 1: two lines in two chunks (no carry pass) */
      {1000, 40}, /* axis 0: 31 chunks (carries by threads) */
      {40, 8195}, /* axis 1 (C order): lines back to back over several tiles each */
      {9000, 7},  /* axis 1 (C order): short lines back to back over many tiles */
  };
  const int nshapes = test_quick() ? 3 : (int)(sizeof shapes / sizeof *shapes);
  for (int k = 0; k < nshapes; k++)
    for (int axis = 0; axis < 2; axis++)
      for (int v = 0; v < 8; v++) {
        if (test_quick() && v % 3)
          continue;
        layout_spec ls = pick_layout(2, v, axis);
        run_case(ctx, c, op, 2, shapes[k], axis, &ls, v % 4, (v >> 1) & 1, rng);
      }
}

/* Refusals: a bad argument gets its status and writes nothing. */
static void test_refusals(pscan_ctx *ctx, const pscan_user_op *op, const pscan_user_op *noid) {
  enum { N = 12 };
  char *din = NULL, *dout = NULL;
  CUDA_OK(cudaMalloc((void **)&din, N * sizeof(affine)));
  CUDA_OK(cudaMalloc((void **)&dout, N * sizeof(affine)));
  CUDA_OK(cudaMemset(din, 0, N * sizeof(affine)));
  CUDA_OK(cudaMemset(dout, TEST_POISON_BYTE, N * sizeof(affine)));
  int64_t sh[2] = {3, 4};
  affine host[N];
  pscan_axis_args a = {.in = din, .out = dout, .ndim = 2, .shape = sh, .axis = 0, .user_op = op};
  axis_op_refusals(ctx, a, op, noid, sizeof(affine));
  a.in = host;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_ERR_WRONG_MEMORY);
  CUDA_OK(cudaMemcpy(host, dout, sizeof host, cudaMemcpyDeviceToHost));
  CHECK(test_is_poisoned(host, sizeof host), "a refused axis call wrote out");
  /* an exclusive scan with the operator without identity runs with init */
  affine init = {1, 0};
  a.in = din, a.user_op = noid, a.exclusive = 1, a.init = &init;
  CHECK_STATUS(pscan_scan_axis(ctx, &a), PSCAN_OK);
  CUDA_OK(cudaFree(din));
  CUDA_OK(cudaFree(dout));
}

int main(void) {
  seed = test_init("test_cuda_axis_user_op");
  pscan_ctx *ctx = NULL;
  if (pscan_create(&ctx, PSCAN_BACKEND_CUDA) != PSCAN_OK) {
    printf("SKIP: no usable CUDA device (%s)\n", pscan_last_error(NULL));
    return 77;
  }
  for (int k = 0; k < NCASES; k++) {
    const op_case *c = &cases[k];
    pscan_user_op *op = make_op(ctx, c, true);
    if (!op)
      continue;
    test_rng rng = test_fork(seed, (uint64_t)k);
    int before = calls;
    double t = test_seconds();
    test_shapes(ctx, c, op, &rng);
    test_regimes(ctx, c, op, &rng);
    printf("  %-18s %5d calls in %.1f s\n", c->what, calls - before, test_seconds() - t);
    if (k == 0) {
      pscan_user_op *noid = make_op(ctx, c, false);
      if (noid)
        test_refusals(ctx, op, noid);
      pscan_op_destroy(noid);
    }
    pscan_op_destroy(op);
  }
  CHECK(failures == 0, "%d of %d axis calls failed", failures, calls);
  pscan_destroy(ctx);
  return test_finish();
}
