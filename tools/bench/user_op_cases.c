/* The benchmark's user operators (user_op_cases.h). Affine maps with a = +-1 and b in {-1, 0, 1}
 * stay integers below 2^24 for any input the benchmark runs (b walks like a random walk), signed
 * permutation matrices form a group of 8, and sums of values in [-100, 100] stay far from
 * overflow: all exact, whatever the order of association (up to the sign of a zero). */
#include "user_op_cases.h"

#include <string.h>

typedef struct aff32 { float a, b; } aff32;
typedef struct aff64 { double a, b; } aff64;
typedef struct mat2 { double m[4]; } mat2;

/* ---- the operators on values, as the sources below write them ---- */

static aff32 op_aff32(aff32 x, aff32 y) { return (aff32){x.a * y.a, y.a * x.b + y.b}; }
static aff64 op_aff64(aff64 x, aff64 y) { return (aff64){x.a * y.a, y.a * x.b + y.b}; }
static mat2 op_mat2(mat2 x, mat2 y) {
  return (mat2){{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
                 x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
}
/* the device's int addition, without signed overflow on the host */
static uint32_t op_i32(uint32_t x, uint32_t y) { return x + y; }

/* Per operator: the host function (pscan_combine_fn: out may alias a or b) and the obvious
   one-thread loop a C user writes, the operator inlined (buffers aligned to the type). */
#define UOP_HOST(N, T)                                                                     \
  static void host_##N(void *out, const void *a, const void *b, void *user) {             \
    T x, y;                                                                                \
    (void)user;                                                                            \
    memcpy(&x, a, sizeof x), memcpy(&y, b, sizeof y);                                      \
    x = op_##N(x, y);                                                                      \
    memcpy(out, &x, sizeof x);                                                             \
  }                                                                                        \
  static void loop_##N(void *out_, const void *in_, size_t n) {                            \
    const T *in = in_;                                                                     \
    T *out = out_;                                                                         \
    if (n == 0)                                                                            \
      return;                                                                              \
    T acc = in[0];                                                                         \
    out[0] = acc;                                                                          \
    for (size_t i = 1; i < n; i++)                                                         \
      out[i] = acc = op_##N(acc, in[i]);                                                   \
  }
UOP_HOST(aff32, aff32)
UOP_HOST(aff64, aff64)
UOP_HOST(mat2, mat2)
UOP_HOST(i32, uint32_t)

/* ---- the data ---- */

/* A well-mixed 64-bit value of index i (splitmix64's finaliser). */
static uint64_t mix(uint64_t i) {
  i = (i ^ (i >> 30)) * 0xBF58476D1CE4E5B9u;
  i = (i ^ (i >> 27)) * 0x94D049BB133111EBu;
  return i ^ (i >> 31);
}
static double sign(uint64_t h) { return h & 1 ? -1.0 : 1.0; }
static double small(uint64_t h) { return (double)(int)(h % 3) - 1.0; } /* -1, 0, 1 */

static void fill_aff32(void *p, uint64_t i) {
  uint64_t h = mix(i);
  aff32 v = {(float)sign(h), (float)small(h >> 1)};
  memcpy(p, &v, sizeof v);
}
static void fill_aff64(void *p, uint64_t i) {
  uint64_t h = mix(i);
  aff64 v = {sign(h), small(h >> 1)};
  memcpy(p, &v, sizeof v);
}
/* One of the 8 signed permutation matrices: products stay among them. */
static void fill_mat2(void *p, uint64_t i) {
  uint64_t h = mix(i);
  double s = sign(h), t = sign(h >> 1);
  mat2 v = h & 4 ? (mat2){{s, 0, 0, t}} : (mat2){{0, s, t, 0}};
  memcpy(p, &v, sizeof v);
}
static void fill_i32(void *p, uint64_t i) {
  int32_t v = (int32_t)(mix(i) % 201) - 100;
  memcpy(p, &v, sizeof v);
}

static const aff32 id_aff32 = {1, 0};
static const aff64 id_aff64 = {1, 0};
static const mat2 id_mat2 = {{1, 0, 0, 1}};
static const int32_t id_i32 = 0;

const uop_case uop_cases[UOP_NCASES] = {
    {"affine_f32",
     "typedef struct { float a, b; } affine;\n"
     "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n",
     "affine", "compose", 8, PEER_UOP_AFFINE_F32, fill_aff32, host_aff32, loop_aff32, 4, &id_aff32},
    {"affine_f64",
     "typedef struct { double a, b; } affine64;\n"
     "affine64 compose(affine64 x, affine64 y) {\n"
     "  affine64 r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n",
     "affine64", "compose", 16, PEER_UOP_AFFINE_F64, fill_aff64, host_aff64, loop_aff64, 8,
     &id_aff64},
    {"mat2_f64",
     "typedef struct { double m[4]; } mat2;\n"
     "mat2 mul(mat2 x, mat2 y) {\n"
     "  mat2 r = {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],\n"
     "             x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};\n"
     "  return r; }\n",
     "mat2", "mul", 32, PEER_UOP_MAT2_F64, fill_mat2, host_mat2, loop_mat2, 8, &id_mat2},
    {"sum_i32", "int add(int a, int b) { return a + b; }\n", "int", "add", 4, PEER_UOP_SUM_I32,
     fill_i32, host_i32, loop_i32, 0, &id_i32},
};

pscan_op_desc uop_desc(const uop_case *c, int with_identity) {
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                     .name = c->fn, .elem_size = c->elem,
                     .identity = with_identity ? c->identity : NULL};
  return d;
}

void uop_combine(const uop_case *c, void *acc, const void *x) { c->host(acc, acc, x, NULL); }

int uop_equal(const uop_case *c, const void *a, const void *b) {
  const unsigned char *p = a, *q = b;
  for (size_t k = 0; c->real && k < c->elem; k += c->real) {
    float f, g;
    double d, e;
    if (c->real == 4 ? (memcpy(&f, p + k, 4), memcpy(&g, q + k, 4), f != g)
                     : (memcpy(&d, p + k, 8), memcpy(&e, q + k, 8), d != e))
      return 0;
  }
  return c->real || memcmp(a, b, c->elem) == 0;
}
