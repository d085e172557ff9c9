/* The user operators of tests/test_user_op*.c: each as source text for pscan_op_create and as the
 * same function on the host (the sequential reference, and host_fn). Data generators keep every
 * result exact (integers, products of +-1, unsigned wrap-around), so results compare bit for
 * bit whatever the order of combination; the non-commutative operators (affine maps, matrices)
 * prove that the order of operands is kept. The functions are static inline: each file of the
 * program uses its own subset. */
#ifndef PSCAN_TEST_USER_OPS_H
#define PSCAN_TEST_USER_OPS_H

#include "test.h"

#include <string.h>

/* ---- affine maps x -> a x + b, composed left to right (the linear recurrence) ---- */
typedef struct { float a, b; } uo_affine_f32;
typedef struct { double a, b; } uo_affine_f64;
#define UO_AFFINE_SRC(T)                                                                  \
  "typedef struct { " #T " a, b; } affine;\n"                                             \
  "static affine compose(affine x, affine y) {\n"                                         \
  "  affine r = { x.a * y.a, y.a * x.b + y.b };\n"                                        \
  "  return r;\n"                                                                         \
  "}\n"
#define UO_AFFINE_FN(T, N)                                                                \
  static void uo_fn_##N(void *out, const void *a_, const void *b_, void *u) {                \
    T x, y, r;                                                                            \
    (void)u;                                                                              \
    memcpy(&x, a_, sizeof x);                                                             \
    memcpy(&y, b_, sizeof y);                                                             \
    r.a = x.a * y.a;                                                                      \
    r.b = y.a * x.b + y.b;                                                                \
    memcpy(out, &r, sizeof r);                                                            \
  }
UO_AFFINE_FN(uo_affine_f32, affine_f32)
UO_AFFINE_FN(uo_affine_f64, affine_f64)

static inline void uo_fill_affine_f32(test_rng *r, void *e) {
  uo_affine_f32 v = {test_below(r, 2) ? 1.0f : -1.0f, (float)((int)test_below(r, 17) - 8)};
  memcpy(e, &v, sizeof v);
}
static inline void uo_fill_affine_f64(test_rng *r, void *e) {
  uo_affine_f64 v = {test_below(r, 2) ? 1.0 : -1.0, (double)((int)test_below(r, 2001) - 1000)};
  memcpy(e, &v, sizeof v);
}

/* ---- 2x2 and 3x3 matrix products, unsigned 32-bit (wrap-around is exact) ---- */
typedef struct { uint32_t m[4]; } uo_mat2;
typedef struct { uint32_t m[9]; } uo_mat3;
static const char uo_mat2_src[] =
    "typedef struct { unsigned m[4]; } mat2;\n"
    "mat2 mul2(mat2 x, mat2 y) {\n"
    "  mat2 r = {{ x.m[0]*y.m[0] + x.m[1]*y.m[2], x.m[0]*y.m[1] + x.m[1]*y.m[3],\n"
    "              x.m[2]*y.m[0] + x.m[3]*y.m[2], x.m[2]*y.m[1] + x.m[3]*y.m[3] }};\n"
    "  return r;\n"
    "}\n";
static const char uo_mat3_src[] =
    "struct mat3 { unsigned m[9]; };\n"
    "static inline struct mat3 mul3(struct mat3 x, struct mat3 y) {\n"
    "  struct mat3 r;\n"
    "  for (int i = 0; i < 3; i++)\n"
    "    for (int j = 0; j < 3; j++)\n"
    "      r.m[3*i+j] = x.m[3*i]*y.m[j] + x.m[3*i+1]*y.m[3+j] + x.m[3*i+2]*y.m[6+j];\n"
    "  return r;\n"
    "}\n";
/* r = x y, d x d, on the elements' bytes (unaligned). */
static inline void uo_mat_mul(void *r, const void *x, const void *y, int d) {
  uint32_t a[9], b[9], c[9];
  size_t bytes = (size_t)(d * d) * sizeof a[0];
  memcpy(a, x, bytes);
  memcpy(b, y, bytes);
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      uint32_t s = 0;
      for (int k = 0; k < d; k++)
        s += a[d * i + k] * b[d * k + j];
      c[d * i + j] = s;
    }
  memcpy(r, c, bytes);
}
static inline void uo_mat2_fn(void *out, const void *a, const void *b, void *u) {
  (void)u;
  uo_mat_mul(out, a, b, 2);
}
static inline void uo_mat3_fn(void *out, const void *a, const void *b, void *u) {
  (void)u;
  uo_mat_mul(out, a, b, 3);
}
/* d x d entries below bound. */
/* Elementary matrices (the identity and one off-diagonal entry in 1 .. bound-1): determinant 1,
   so long products never vanish modulo 2^32 (random small entries made every product of a few
   dozen matrices zero, which hid a wrong order of combination), and not commutative. */
static inline void uo_fill_mat(test_rng *r, void *e, int d, uint64_t bound) {
  uint32_t v[9] = {0};
  for (int i = 0; i < d; i++)
    v[i * d + i] = 1;
  int row = (int)test_below(r, (uint64_t)d);
  int col = (row + 1 + (int)test_below(r, (uint64_t)d - 1)) % d;
  v[row * d + col] = 1 + (uint32_t)test_below(r, bound - 1);
  memcpy(e, v, (size_t)(d * d) * sizeof v[0]);
}
static inline void uo_fill_mat2(test_rng *r, void *e) { uo_fill_mat(r, e, 2, 5); }
static inline void uo_fill_mat3(test_rng *r, void *e) { uo_fill_mat(r, e, 3, 4); }

/* ---- complex product (exact on the units 1, -1, i, -i) ---- */
typedef struct { double re, im; } uo_complex;
static const char uo_complex_src[] =
    "typedef struct { double re, im; } cplx;\n"
    "cplx cmul(cplx x, cplx y) {\n"
    "  cplx r = { x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re };\n"
    "  return r;\n"
    "}\n";
static inline void uo_complex_fn(void *out, const void *a, const void *b, void *u) {
  uo_complex x, y, r;
  (void)u;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  r.re = x.re * y.re - x.im * y.im;
  r.im = x.re * y.im + x.im * y.re;
  memcpy(out, &r, sizeof r);
}
/* Signed zeros depend on the order of combination (0 - 0 against -0 + 0): values compare with ==. */
static inline bool uo_complex_eq(const void *a, const void *b) {
  uo_complex x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  return x.re == y.re && x.im == y.im;
}
static inline void uo_fill_complex(test_rng *r, void *e) {
  static const uo_complex units[4] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  memcpy(e, &units[test_below(r, 4)], sizeof(uo_complex));
}

/* ---- arg-max: (value, index), the first index of the largest value ---- */
typedef struct { float v; int32_t i; } uo_argmax;
static const char uo_argmax_src[] =
    "typedef struct { float v; int i; } vi;\n"
    "vi argmax(vi x, vi y) {\n"
    "  if (y.v > x.v || (y.v == x.v && y.i < x.i)) return y;\n"
    "  return x;\n"
    "}\n";
static inline void uo_argmax_fn(void *out, const void *a, const void *b, void *u) {
  uo_argmax x, y;
  (void)u;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  memcpy(out, (y.v > x.v || (y.v == x.v && y.i < x.i)) ? &y : &x, sizeof x);
}
static inline void uo_fill_argmax(test_rng *r, void *e) {
  uo_argmax v = {(float)test_below(r, 1000), (int32_t)test_below(r, 1u << 30)};
  memcpy(e, &v, sizeof v);
}

/* ---- odd sizes: 3-byte per-channel wrapping add, 1-byte add ---- */
typedef struct { unsigned char c[3]; } uo_rgb;
static const char uo_rgb_src[] =
    "typedef struct { unsigned char c[3]; } rgb;\n"
    "rgb add3(rgb x, rgb y) {\n"
    "  rgb r = {{ (unsigned char)(x.c[0] + y.c[0]), (unsigned char)(x.c[1] + y.c[1]),\n"
    "             (unsigned char)(x.c[2] + y.c[2]) }};\n"
    "  return r;\n"
    "}\n";
static inline void uo_rgb_fn(void *out, const void *a, const void *b, void *u) {
  const unsigned char *x = a, *y = b;
  unsigned char r[3];
  (void)u;
  for (int i = 0; i < 3; i++)
    r[i] = (unsigned char)(x[i] + y[i]);
  memcpy(out, r, 3);
}
static inline void uo_fill_rgb(test_rng *r, void *e) {
  unsigned char v[3] = {(unsigned char)test_rand(r), (unsigned char)test_rand(r),
                        (unsigned char)test_rand(r)};
  memcpy(e, v, 3);
}
static const char uo_u8_src[] = "unsigned char add8(unsigned char x, unsigned char y) "
                                "{ return (unsigned char)(x + y); }\n";
static inline void uo_u8_fn(void *out, const void *a, const void *b, void *u) {
  (void)u;
  *(unsigned char *)out = (unsigned char)(*(const unsigned char *)a + *(const unsigned char *)b);
}
static inline void uo_fill_u8(test_rng *r, void *e) {
  *(unsigned char *)e = (unsigned char)test_rand(r);
}

/* ---- the predicate: a record kept when its key is a multiple of 3 and its weight above 0.5 ---- */
typedef struct { int32_t key; float w; } uo_rec;
static const char uo_rec_src[] =
    "typedef struct { int key; float w; } rec;\n"
    "int keep(rec r) { return r.key % 3 == 0 && r.w > 0.5f; }\n";
static inline int uo_rec_keep(const void *e) {
  uo_rec r;
  memcpy(&r, e, sizeof r);
  return r.key % 3 == 0 && r.w > 0.5f;
}
static inline void uo_fill_rec(test_rng *r, void *e) {
  uo_rec v = {(int32_t)test_below(r, 1000) - 500, (float)test_uniform(r)};
  memcpy(e, &v, sizeof v);
}

/* The table of COMBINE cases. */
typedef struct uo_case {
  const char *label, *source, *type_name, *name;
  size_t size;
  pscan_combine_fn fn;
  void (*fill)(test_rng *r, void *e);
  const void *identity; /* NULL: none */
  bool (*equal)(const void *a, const void *b); /* NULL: bitwise */
} uo_case;

static const uo_affine_f32 uo_affine_f32_id = {1.0f, 0.0f};
static const uo_affine_f64 uo_affine_f64_id = {1.0, 0.0};
static const uo_mat2 uo_mat2_id = {{1, 0, 0, 1}};
static const uo_complex uo_complex_id = {1, 0};

static const uo_case uo_cases[] = {
    {"affine f32", UO_AFFINE_SRC(float), "affine", "compose", sizeof(uo_affine_f32),
     uo_fn_affine_f32, uo_fill_affine_f32, &uo_affine_f32_id, NULL},
    {"affine f64", UO_AFFINE_SRC(double), "affine", "compose", sizeof(uo_affine_f64),
     uo_fn_affine_f64, uo_fill_affine_f64, &uo_affine_f64_id, NULL},
    {"mat2 u32", uo_mat2_src, "mat2", "mul2", sizeof(uo_mat2), uo_mat2_fn, uo_fill_mat2,
     &uo_mat2_id, NULL},
    {"mat3 u32", uo_mat3_src, "struct mat3", "mul3", sizeof(uo_mat3), uo_mat3_fn, uo_fill_mat3,
     NULL, NULL},
    {"complex f64", uo_complex_src, "cplx", "cmul", sizeof(uo_complex), uo_complex_fn,
     uo_fill_complex, &uo_complex_id, uo_complex_eq},
    {"argmax", uo_argmax_src, "vi", "argmax", sizeof(uo_argmax), uo_argmax_fn, uo_fill_argmax,
     NULL, NULL},
    {"rgb 3-byte", uo_rgb_src, "rgb", "add3", 3, uo_rgb_fn, uo_fill_rgb, NULL, NULL},
    {"u8", uo_u8_src, "unsigned char", "add8", 1, uo_u8_fn, uo_fill_u8, NULL, NULL},
};
enum { UO_NCASES = sizeof uo_cases / sizeof uo_cases[0] };

#endif /* PSCAN_TEST_USER_OPS_H */
