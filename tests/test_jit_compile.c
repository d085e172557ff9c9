/* The CUDA backend's user-operator compiler without a GPU (label cpu; CUDA builds only): the
 * program pscan builds around a user's source compiles with NVRTC (dlopened) to a cubin for
 * sm_90, for combine operators of many element sizes (1 to 128 bytes: the chunked and the
 * unit-by-unit tile paths, packed, split and flag + value tile status, inlined and called combines), deterministic mode's kernel and
 * predicates; a syntax error is PSCAN_ERR_INVALID_ARGUMENT with the compiler's error line; an
 * elem_size that differs from sizeof(type) names both sizes; no NVRTC ($PSCAN_NVRTC_LIB naming a
 * missing file or an empty directory) is PSCAN_ERR_UNSUPPORTED with "NVRTC not found". The
 * kernels' behaviour on a device is tests/test_user_op.c's (label cuda). The axis program
 * (user_axis.cuh) compiles too, for the operators of tests/test_cuda_axis_user_op.c and elements
 * of every unit size, and its cubin defines every kernel jit_axis.c looks up. */
#define _GNU_SOURCE /* mkdtemp, setenv, strdup */
#include "test.h"

#include "cuda/jit/jit.h"
#include "cuda/jit/user_axis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char affine_f32[] =
    "typedef struct { float a, b; } affine;\n"
    "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n";
static const char affine_f64[] =
    "typedef struct affine64 { double a, b; } affine64;\n"
    "struct affine64 compose(struct affine64 x, struct affine64 y) {\n"
    "  struct affine64 r; r.a = x.a * y.a; r.b = y.a * x.b + y.b; return r; }\n";

static pscan_op_desc combine(const char *src, const char *type, const char *name, size_t size) {
  return (pscan_op_desc){.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = type,
                         .name = name, .elem_size = size};
}

/* The cubin is an ELF image for the device. */
static bool is_cubin(const void *bin, size_t size) {
  return bin && size > 64 && memcmp(bin, "\177ELF", 4) == 0;
}

/* Whether the cubin (an ELF image) holds name, e.g. in its symbol table. */
static bool cubin_has(const void *bin, size_t size, const char *name) {
  size_t l = strlen(name);
  for (size_t i = 0; i + l <= size; i++)
    if (memcmp((const char *)bin + i, name, l) == 0 && (i + l == size || !((const char *)bin)[i + l]))
      return true;
  return false;
}

/* Compiles d's program k for sm_90 into a cubin; the axis program's defines every kernel that
   jit_axis.c looks up. */
static void expect_compiles(const pscan_op_desc *d, pscan__jit_kernel k, const char *what) {
  static const char *const axis_names[] = {
#define NAME(id, name) name,
      PSCAN__UA_KERNELS(NAME)
#undef NAME
  };
  char label[96];
  snprintf(label, sizeof label, "%s%s", k == PSCAN__JIT_AXIS ? "axis: " : "", what);
  void *bin = NULL;
  size_t size = 0;
  char *log = NULL;
  double t = test_seconds();
  pscan_status s = pscan__jit_compile(NULL, d, k, 90, &bin, &size, &log);
  t = test_seconds() - t;
  if (!CHECK_STATUS(s, PSCAN_OK))
    fprintf(stderr, "  %s: %s\n  log: %s\n", label, pscan_last_error(NULL), log ? log : "");
  bool cubin = CHECK(s != PSCAN_OK || is_cubin(bin, size), "%s: a cubin (%zu bytes)", label, size);
  if (k == PSCAN__JIT_AXIS && s == PSCAN_OK && cubin)
    for (size_t i = 0; i < sizeof axis_names / sizeof *axis_names; i++)
      CHECK(cubin_has(bin, size, axis_names[i]), "%s: the cubin defines %s", label, axis_names[i]);
  else if (s == PSCAN_OK && cubin)
    CHECK(cubin_has(bin, size, pscan__jit_kernel_name(k)), "%s: the cubin defines %s", label,
          pscan__jit_kernel_name(k));
  printf("  %-40s %7zu bytes of cubin in %.2f s\n", label, size, t);
  pscan__free(bin);
  pscan__free(log);
}

static void expect_axis_program(const pscan_op_desc *d, const char *what) {
  expect_compiles(d, PSCAN__JIT_AXIS, what);
}

static void test_sizes(void) {
  pscan_op_desc d = combine(affine_f32, "affine", "compose", 8);
  expect_compiles(&d, PSCAN__JIT_SCAN, "affine f32 (8 B)");
  expect_compiles(&d, PSCAN__JIT_SCAN_ORDERED, "affine f32, deterministic");
  expect_compiles(&d, PSCAN__JIT_SCAN_LINES, "affine f32, lines back to back");
  expect_compiles(&d, PSCAN__JIT_REDUCE, "affine f32, tile totals (reduce)");
  expect_compiles(&d, PSCAN__JIT_SCAN_BY_KEY, "affine f32, scan by key");
  expect_compiles(&d, PSCAN__JIT_REDUCE_BY_KEY, "affine f32, reduce by key");
  d = combine(affine_f64, "struct affine64", "compose", 16);
  expect_compiles(&d, PSCAN__JIT_SCAN, "affine f64 (16 B)");
  expect_compiles(&d, PSCAN__JIT_SCAN_LINES, "affine f64, lines back to back");
  expect_compiles(&d, PSCAN__JIT_REDUCE, "affine f64, tile totals (reduce)");
  expect_compiles(&d, PSCAN__JIT_SCAN_BY_KEY, "affine f64, scan by key");
  expect_compiles(&d, PSCAN__JIT_REDUCE_BY_KEY, "affine f64, reduce by key");
  d = combine("#include <stdint.h>\nint32_t add(int32_t a, int32_t b) { return a + b; }\n",
              "int32_t", "add", 4);
  expect_compiles(&d, PSCAN__JIT_SCAN, "i32 sum (4 B)");
  if (test_quick())
    return;
  static const struct { size_t size; const char *what; } sizes[] = {
      {1, "1 B"}, {3, "3 B (chunked, byte units)"}, {5, "5 B (unit by unit)"},
      {12, "12 B (flag + value status)"}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char src[512];
    snprintf(src, sizeof src,
             "typedef struct { unsigned char b[%zu]; } blob;\n"
             "blob mix(blob x, blob y) { blob r; for (int i = 0; i < %zu; i++)\n"
             "  r.b[i] = (unsigned char)(x.b[i] * 3 + y.b[i]); return r; }\n",
             sizes[i].size, sizes[i].size);
    d = combine(src, "blob", "mix", sizes[i].size);
    expect_compiles(&d, PSCAN__JIT_SCAN, sizes[i].what);
    char label[64];
    snprintf(label, sizeof label, "%s, scan by key", sizes[i].what);
    expect_compiles(&d, PSCAN__JIT_SCAN_BY_KEY, label);
    snprintf(label, sizeof label, "%s, reduce by key", sizes[i].what);
    expect_compiles(&d, PSCAN__JIT_REDUCE_BY_KEY, label);
  }
  /* The largest elements: 4x4 matrix products (combined through a call). */
  static const char mat[] =
      "typedef struct { %s m[4][4]; } mat;\n"
      "mat mul(mat x, mat y) { mat r; for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) {\n"
      "  %s s = 0; for (int k = 0; k < 4; k++) s += x.m[i][k] * y.m[k][j]; r.m[i][j] = s; }\n"
      "  return r; }\n";
  char src[512];
  snprintf(src, sizeof src, mat, "float", "float");
  d = combine(src, "mat", "mul", 64);
  expect_compiles(&d, PSCAN__JIT_SCAN, "4x4 f32 matrices (64 B)");
  expect_compiles(&d, PSCAN__JIT_SCAN_BY_KEY, "4x4 f32 matrices (64 B), scan by key");
  expect_compiles(&d, PSCAN__JIT_REDUCE_BY_KEY, "4x4 f32 matrices (64 B), reduce by key");
  snprintf(src, sizeof src, mat, "double", "double");
  d = combine(src, "mat", "mul", 128);
  expect_compiles(&d, PSCAN__JIT_SCAN, "4x4 f64 matrices (128 B)");
}

/* An operator given with its identity: where its element is whole 32-bit words the program
   carries the identity (PSCAN_USER_IDENTITY, the plain-value accumulator of user_ops.cuh) and
   every kernel compiles; otherwise the program is the one without an identity. */
static void expect_identity_program(const pscan_op_desc *d, bool carried, const char *what) {
  char *with = pscan__jit_program(d, PSCAN__JIT_SCAN);
  pscan_op_desc plain = *d;
  plain.identity = NULL;
  char *without = pscan__jit_program(&plain, PSCAN__JIT_SCAN);
  if (CHECK(with && without, "%s: programs built", what)) {
    CHECK((strstr(with, "PSCAN_USER_IDENTITY") != NULL) == carried,
          "%s: the program %s the identity", what, carried ? "carries" : "does not carry");
    CHECK(!strstr(without, "PSCAN_USER_IDENTITY"), "%s: no identity, none in the program", what);
    CHECK((strcmp(with, without) != 0) == carried,
          "%s: the programs differ exactly where it is carried", what);
  }
  pscan__free(with);
  pscan__free(without);
  if (!carried)
    return;
  static const pscan__jit_kernel kernels[] = {PSCAN__JIT_SCAN, PSCAN__JIT_SCAN_ORDERED,
                                              PSCAN__JIT_SCAN_LINES, PSCAN__JIT_REDUCE,
                                              PSCAN__JIT_AXIS, PSCAN__JIT_SCAN_BY_KEY,
                                              PSCAN__JIT_REDUCE_BY_KEY};
  for (size_t i = 0; i < (test_quick() ? 1 : sizeof kernels / sizeof kernels[0]); i++) {
    char label[96];
    snprintf(label, sizeof label, "%s + identity: %s", what, pscan__jit_kernel_name(kernels[i]));
    expect_compiles(d, kernels[i], label);
  }
}

static void test_identity(void) {
  static const float affine_id[2] = {1.0f, 0.0f};
  static const int32_t zero = 0;
  static const unsigned char bytes3_id[3] = {1, 0, 0};
  pscan_op_desc d = combine(affine_f32, "affine", "compose", 8);
  d.identity = affine_id;
  expect_identity_program(&d, true, "affine f32");
  char *text = pscan__jit_program(&d, PSCAN__JIT_SCAN);
  CHECK(text && strstr(text, "{0x3f800000u, 0x00000000u}"), "affine f32: the identity's words");
  pscan__free(text);
  d = combine("#include <stdint.h>\nint32_t add(int32_t a, int32_t b) { return a + b; }\n",
              "int32_t", "add", 4);
  d.identity = &zero;
  expect_identity_program(&d, true, "i32 sum");
  d = combine("typedef struct { unsigned char b[3]; } blob;\n"
              "blob mix(blob x, blob y) { blob r; for (int i = 0; i < 3; i++)\n"
              "  r.b[i] = (unsigned char)(x.b[i] * y.b[i]); return r; }\n",
              "blob", "mix", 3);
  d.identity = bytes3_id;
  expect_identity_program(&d, false, "3 B bytes");
}

static void test_axis_program(void) {
  CHECK(strcmp(pscan__jit_kernel_name(PSCAN__JIT_AXIS), "pscan_user_axis_lines_scan") == 0,
        "the axis program's first kernel");
  pscan_op_desc d = combine(affine_f32, "affine", "compose", 8);
  expect_axis_program(&d, "affine f32 (8 B)");
  d = combine("float add(float a, float b) { return a + b; }\n", "float", "add", 4);
  expect_axis_program(&d, "f32 sum (4 B)");
  d = combine("typedef struct { float m[2][2]; } m2;\n"
              "m2 mul(m2 x, m2 y) { m2 r; for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++)\n"
              "  r.m[i][j] = x.m[i][0] * y.m[0][j] + x.m[i][1] * y.m[1][j]; return r; }\n",
              "m2", "mul", 16);
  expect_axis_program(&d, "2x2 f32 matrices (16 B)");
  if (test_quick())
    return;
  d = combine("typedef struct { float v; int i; } amax;\n"
              "amax best(amax x, amax y) { return y.v > x.v ? y : x; }\n", "amax", "best", 8);
  expect_axis_program(&d, "arg-max (8 B)");
  d = combine(affine_f64, "struct affine64", "compose", 16);
  expect_axis_program(&d, "affine f64 (16 B)");
  static const size_t sizes[] = {1, 2, 3, 5, 6, 12, 64, 128};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char src[512], what[32];
    snprintf(src, sizeof src,
             "typedef struct { unsigned char b[%zu]; } blob;\n"
             "blob mix(blob x, blob y) { blob r; for (int i = 0; i < %zu; i++)\n"
             "  r.b[i] = (unsigned char)(x.b[i] * 3 + y.b[i]); return r; }\n",
             sizes[i], sizes[i]);
    snprintf(what, sizeof what, "%zu B bytes", sizes[i]);
    d = combine(src, "blob", "mix", sizes[i]);
    expect_axis_program(&d, what);
  }
  /* an elem_size that differs from the type's is refused as for the other programs */
  void *bin = NULL;
  size_t size = 0;
  d = combine(affine_f32, "affine", "compose", 12);
  CHECK_STATUS(pscan__jit_compile(NULL, &d, PSCAN__JIT_AXIS, 90, &bin, &size, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  CHECK(!bin && strstr(pscan_last_error(NULL), "elem_size 12"), "axis: '%s'",
        pscan_last_error(NULL));
}

static void test_predicates(void) {
  pscan_op_desc d = combine("#include <math.h>\nint keep(float x) { return !isnan(x) && x > 0.5f; }\n",
                            "float", "keep", 4);
  d.kind = PSCAN_KIND_PREDICATE;
  expect_compiles(&d, PSCAN__JIT_SELECT, "predicate on f32");
  d = combine(affine_f64, "struct affine64", "keep", 16);
  d.source = "typedef struct affine64 { double a, b; } affine64;\n"
             "int keep(affine64 x) { return x.a < x.b; }\n";
  d.kind = PSCAN_KIND_PREDICATE;
  expect_compiles(&d, PSCAN__JIT_SELECT, "predicate on 16 B");
}

static void test_errors(void) {
  void *bin = NULL;
  size_t size = 0;
  char *log = NULL;
  pscan_op_desc d = combine("typedef struct { float a, b; } affine;\n"
                            "affine compose(affine x, affine y) { return x }\n",
                            "affine", "compose", 8);
  CHECK_STATUS(pscan__jit_compile(NULL, &d, PSCAN__JIT_SCAN, 90, &bin, &size, &log),
               PSCAN_ERR_INVALID_ARGUMENT);
  const char *msg = pscan_last_error(NULL);
  CHECK(strstr(msg, "pscan_op_source(2)") && strstr(msg, "error"), "the error line: '%s'", msg);
  CHECK(!bin && size == 0, "nothing compiled");
  CHECK(log && strstr(log, "error"), "the whole log comes back");
  pscan__free(log);

  d = combine(affine_f32, "affine", "compose", 12);
  CHECK_STATUS(pscan__jit_compile(NULL, &d, PSCAN__JIT_SCAN, 90, &bin, &size, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  msg = pscan_last_error(NULL);
  CHECK(strstr(msg, "elem_size 12") && strstr(msg, "= 8"), "both sizes named: '%s'", msg);

  d = combine(affine_f32, "affine", "no_such_function", 8);
  CHECK_STATUS(pscan__jit_compile(NULL, &d, PSCAN__JIT_SCAN, 90, &bin, &size, NULL),
               PSCAN_ERR_INVALID_ARGUMENT);
  msg = pscan_last_error(NULL);
  CHECK(strstr(msg, "no_such_function") != NULL, "the unknown name: '%s'", msg);
}

/* Last: a missing library, then an empty directory, then the default search again. */
static void test_missing_nvrtc(void) {
  pscan_op_desc d = combine(affine_f32, "affine", "compose", 8);
  void *bin = NULL;
  size_t size = 0;
  const char *old = getenv("PSCAN_NVRTC_LIB");
  char *saved = old ? strdup(old) : NULL;
  setenv("PSCAN_NVRTC_LIB", "/nonexistent/libnvrtc.so.13", 1);
  CHECK_STATUS(pscan__jit_compile(NULL, &d, PSCAN__JIT_SCAN, 90, &bin, &size, NULL),
               PSCAN_ERR_UNSUPPORTED);
  CHECK(strncmp(pscan_last_error(NULL), "NVRTC not found: ", 17) == 0, "'%s'",
        pscan_last_error(NULL));
  char dir[] = "/tmp/pscan_no_nvrtc_XXXXXX";
  if (CHECK(mkdtemp(dir) != NULL, "a temporary directory")) {
    setenv("PSCAN_NVRTC_LIB", dir, 1);
    CHECK_STATUS(pscan__jit_compile(NULL, &d, PSCAN__JIT_SCAN, 90, &bin, &size, NULL),
                 PSCAN_ERR_UNSUPPORTED);
    const char *msg = pscan_last_error(NULL);
    CHECK(strncmp(msg, "NVRTC not found: ", 17) == 0 && strstr(msg, dir), "'%s'", msg);
    rmdir(dir);
  }
  CHECK(!bin && size == 0, "nothing compiled");
  if (saved)
    setenv("PSCAN_NVRTC_LIB", saved, 1);
  else
    unsetenv("PSCAN_NVRTC_LIB");
  free(saved);
  expect_compiles(&d, PSCAN__JIT_SCAN, "affine f32 after the variable is restored");
}

int main(void) {
  test_init("test_jit_compile");
  test_sizes();
  test_predicates();
  test_identity();
  test_axis_program();
  test_errors();
  test_missing_nvrtc();
  return test_finish();
}
