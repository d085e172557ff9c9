/* User operators on the CUDA backend, through the backend's hooks (op_create, scan_op, select_op;
 * label cuda, exit 77 without a GPU): differential against a sequential scan on the host, for
 * non-commutative operators (so order is proved) on elements of 3, 4, 5, 8, 12, 16, 24, 32, 64 and 128
 * bytes (every tile path and tile-status layout of cuda/jit), with exact integer arithmetic;
 * sizes 1, 2, tile +- 1, 2^k +- 1 and random ones from the printed seed; inclusive, with init,
 * exclusive with init and with the identity, in place, misaligned pointers, deterministic mode;
 * the operators that have an identity both with it (the plain-value accumulator) and without;
 * predicate select and partition (count in host and device memory, select in place); the disk
 * cache (miss, hit, corrupt entries). Outputs are poisoned before every run. */
#define _GNU_SOURCE /* mkdtemp, setenv */
#include "test.h"
#include "cuda_ok.h"

#include "internal.h"
#include "cuda/jit/jit.h"
#include "op/cache.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each operator twice: as source for the GPU and as the host reference. */
typedef struct op_case {
  const char *what, *source, *type_name, *name;
  size_t size;
  void (*ref)(void *out, const void *a, const void *b);
  const void *identity;
} op_case;

#define AFFINE(T) "typedef struct { " T " a, b; } aff;\n" \
  "aff compose(aff x, aff y) { aff r; r.a = x.a * y.a; r.b = y.a * x.b + y.b; return r; }\n"
typedef struct { uint32_t a, b; } aff32;
typedef struct { uint64_t a, b; } aff64;
#define REF_AFFINE(T)                                                                      \
  static void ref_##T(void *o, const void *pa, const void *pb) {                           \
    T x, y, r;                                                                             \
    memcpy(&x, pa, sizeof x);                                                              \
    memcpy(&y, pb, sizeof y);                                                              \
    r.a = x.a * y.a;                                                                       \
    r.b = y.a * x.b + y.b;                                                                 \
    memcpy(o, &r, sizeof r);                                                               \
  }
REF_AFFINE(aff32)
REF_AFFINE(aff64)
static void ref_add(void *o, const void *pa, const void *pb) {
  int32_t x, y;
  memcpy(&x, pa, 4);
  memcpy(&y, pb, 4);
  uint32_t r = (uint32_t)x + (uint32_t)y;
  memcpy(o, &r, 4);
}
/* 3 and 5 bytes: affine maps of bytes, with an xor (and a max) beside them. */
#define BYTES3 "typedef struct { unsigned char a, b, c; } b3;\n" \
  "b3 f3(b3 x, b3 y) { b3 r; r.a = (unsigned char)(x.a * y.a); " \
  "r.b = (unsigned char)(y.a * x.b + y.b); r.c = (unsigned char)(x.c ^ y.c); return r; }\n"
static void ref_b3(void *o, const void *pa, const void *pb) {
  const unsigned char *x = pa, *y = pb;
  unsigned char r[3] = {(unsigned char)(x[0] * y[0]), (unsigned char)(y[0] * x[1] + y[1]),
                        (unsigned char)(x[2] ^ y[2])};
  memcpy(o, r, 3);
}
#define BYTES5 "typedef struct { unsigned char a, b, c, d, e; } b5;\n" \
  "b5 f5(b5 x, b5 y) { b5 r; r.a = (unsigned char)(x.a * y.a); " \
  "r.b = (unsigned char)(y.a * x.b + y.b); r.c = (unsigned char)(x.c ^ y.c); " \
  "r.d = (unsigned char)(x.d + y.d); r.e = x.e > y.e ? x.e : y.e; return r; }\n"
static void ref_b5(void *o, const void *pa, const void *pb) {
  const unsigned char *x = pa, *y = pb;
  unsigned char r[5] = {(unsigned char)(x[0] * y[0]), (unsigned char)(y[0] * x[1] + y[1]),
                        (unsigned char)(x[2] ^ y[2]), (unsigned char)(x[3] + y[3]),
                        x[4] > y[4] ? x[4] : y[4]};
  memcpy(o, r, 5);
}
/* 12 and 24 bytes: an affine map and a count. */
#define TRIPLE(T) "typedef struct { " T " a, b, c; } tri;\n" \
  "tri f12(tri x, tri y) { tri r; r.a = x.a * y.a; r.b = y.a * x.b + y.b; r.c = x.c + y.c; " \
  "return r; }\n"
#define REF_TRIPLE(T)                                          \
  static void ref_tri_##T(void *o, const void *pa, const void *pb) { \
    T x[3], y[3], r[3];                                        \
    memcpy(x, pa, sizeof x);                                   \
    memcpy(y, pb, sizeof y);                                   \
    r[0] = x[0] * y[0];                                        \
    r[1] = y[0] * x[1] + y[1];                                 \
    r[2] = x[2] + y[2];                                        \
    memcpy(o, r, sizeof r);                                    \
  }
REF_TRIPLE(uint32_t)
REF_TRIPLE(uint64_t)
/* 32, 64 and 128 bytes: D x D matrix products (mod 2^32, 2^64). */
#define MAT(T, N, D) "typedef struct { " T " m[" #D "][" #D "]; } " N ";\n" \
  N " mul(" N " x, " N " y) { " N " r; for (int i = 0; i < " #D "; i++) for (int j = 0; j < " #D \
  "; j++) { " T " s = 0; for (int k = 0; k < " #D "; k++) s += x.m[i][k] * y.m[k][j]; " \
  "r.m[i][j] = s; } return r; }\n"
#define REF_MAT(T, D, NAME)                                             \
  static void NAME(void *o, const void *pa, const void *pb) {           \
    T x[D][D], y[D][D], r[D][D];                                        \
    memcpy(x, pa, sizeof x);                                            \
    memcpy(y, pb, sizeof y);                                            \
    for (int i = 0; i < D; i++)                                         \
      for (int j = 0; j < D; j++) {                                     \
        T s = 0;                                                        \
        for (int k = 0; k < D; k++)                                     \
          s += x[i][k] * y[k][j];                                       \
        r[i][j] = s;                                                    \
      }                                                                 \
    memcpy(o, r, sizeof r);                                             \
  }
REF_MAT(uint64_t, 2, ref_mat2x64)
REF_MAT(uint32_t, 4, ref_mat32)
REF_MAT(uint64_t, 4, ref_mat64)

static const aff32 id_aff32 = {1, 0};
static const aff64 id_aff64 = {1, 0};
static const int32_t id_add = 0;
static const uint32_t id_tri32[3] = {1, 0, 0};
static const uint64_t id_tri64[3] = {1, 0, 0};
static const uint32_t id_mat32[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

static const op_case cases[] = {
    {"affine u32 (8 B)", AFFINE("unsigned"), "aff", "compose", 8, ref_aff32, &id_aff32},
    {"affine u64 (16 B)", AFFINE("unsigned long long"), "aff", "compose", 16, ref_aff64, &id_aff64},
    {"i32 sum (4 B)", "int add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }\n", "int",
     "add", 4, ref_add, &id_add},
    {"bytes (3 B)", BYTES3, "b3", "f3", 3, ref_b3, NULL},
    {"bytes (5 B)", BYTES5, "b5", "f5", 5, ref_b5, NULL},
    {"affine + count (12 B)", TRIPLE("unsigned"), "tri", "f12", 12, ref_tri_uint32_t, id_tri32},
    {"affine + count u64 (24 B)", TRIPLE("unsigned long long"), "tri", "f12", 24, ref_tri_uint64_t,
     id_tri64},
    {"2x2 u64 matrices (32 B)", MAT("unsigned long long", "m2", 2), "m2", "mul", 32, ref_mat2x64,
     NULL},
    {"4x4 u32 matrices (64 B)", MAT("unsigned", "m32", 4), "m32", "mul", 64, ref_mat32, id_mat32},
    {"4x4 u64 matrices (128 B)", MAT("unsigned long long", "m64", 4), "m64", "mul", 128, ref_mat64,
     NULL},
};

static pscan_op_desc desc_of(const op_case *c) {
  pscan_op_desc d;
  memset(&d, 0, sizeof d);
  d.kind = PSCAN_KIND_COMBINE;
  d.source = c->source;
  d.type_name = c->type_name;
  d.name = c->name;
  d.elem_size = c->size;
  d.identity = c->identity;
  return d;
}

/* The key names the identity too: the program compiles it in (a disk-cache entry of the
   operator without it must not serve the operator with it). */
static void key_of(const pscan_op_desc *d, char key[33]) {
  const void *parts[] = {d->source, d->type_name, d->name, &d->elem_size, &d->kind,
                         d->identity ? d->identity : ""};
  size_t sizes[] = {strlen(d->source), strlen(d->type_name), strlen(d->name), sizeof d->elem_size,
                    sizeof d->kind, d->identity ? d->elem_size : 0};
  pscan__hash_hex(parts, sizes, 6, key);
}

static void *create(pscan_ctx *ctx, const pscan_op_desc *d) {
  char key[33];
  key_of(d, key);
  void *impl = NULL;
  pscan_status s = ctx->backend->op_create(ctx, d, key, &impl);
  CHECK(s == PSCAN_OK, "op_create %s: %s", d->name, pscan_last_error(ctx));
  return s == PSCAN_OK ? impl : NULL;
}

/* Small values keep the matrix products and affine maps far from trivial (no runaway zeros). */
static void fill(test_rng *r, unsigned char *p, size_t bytes, size_t size) {
  for (size_t i = 0; i < bytes; i++)
    p[i] = (unsigned char)(test_below(r, 7) + (i % size == 0 ? 1 : 0));
}

/* One run: the GPU's result against the sequential scan on the host. */
static void check_scan(pscan_ctx *ctx, void *impl, const op_case *c, size_t n, int exclusive,
                       const void *init, bool in_place, size_t offset, test_rng *r,
                       const char *what) {
  const size_t s = c->size, bytes = n * s;
  unsigned char *in = test_malloc(bytes + 1), *want = test_malloc(bytes + s + 1),
                *got = test_malloc(bytes + 1);
  fill(r, in, bytes, s);
  unsigned char acc[128];
  bool has = false;
  if (init) {
    memcpy(acc, init, s);
    has = true;
  }
  for (size_t i = 0; i < n; i++) {
    if (exclusive)
      memcpy(want + i * s, has ? acc : c->identity, s);
    if (has)
      c->ref(acc, acc, in + i * s);
    else
      memcpy(acc, in + i * s, s);
    has = true;
    if (!exclusive)
      memcpy(want + i * s, acc, s);
  }
  unsigned char *d_in = NULL, *d_out = NULL;
  CUDA_OK(cudaMalloc((void **)&d_in, bytes + offset + 16));
  CUDA_OK(cudaMalloc((void **)&d_out, bytes + offset + 16));
  unsigned char *src = d_in + offset, *dst = in_place ? src : d_out + offset;
  CUDA_OK(cudaMemcpy(src, in, bytes, cudaMemcpyHostToDevice));
  if (!in_place)
    CUDA_OK(cudaMemset(d_out, TEST_POISON_BYTE, bytes + offset + 16));
  pscan_status st = ctx->backend->scan_op(ctx, impl, src, dst, n, exclusive, init);
  CHECK(st == PSCAN_OK, "%s %s n=%zu: %s", c->what, what, n, pscan_last_error(ctx));
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(got, dst, bytes, cudaMemcpyDeviceToHost));
  size_t bad = n;
  for (size_t i = 0; i < n && bad == n; i++)
    if (memcmp(got + i * s, want + i * s, s) != 0)
      bad = i;
  CHECK(bad == n, "%s %s n=%zu: first difference at %zu", c->what, what, n, bad);
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  free(in);
  free(want);
  free(got);
}

/* c's operator as given, and (given_identity false) without its identity: the kernels'
   accumulator is then the adjoined one (jit/user_ops.cuh) instead of the plain value. */
static void test_op(pscan_ctx *ctx, const op_case *c, bool given_identity, test_rng *r) {
  op_case without = *c;
  if (!given_identity) {
    without.identity = NULL;
    c = &without;
  }
  pscan_op_desc d = desc_of(c);
  void *impl = create(ctx, &d);
  if (!impl)
    return;
  const size_t tile = pscan__jit_tile_items(c->size);
  size_t sizes[16] = {1, 2, tile - 1, tile, tile + 1, 3 * tile + 7, (1u << 16) - 1, (1u << 16) + 1,
                      (1u << 20) + 3};
  int count = 9;
  sizes[count++] = 1 + (size_t)test_below(r, 3u << 20);
  if (!test_quick())
    sizes[count++] = (1u << 23) + 1 + (size_t)test_below(r, 1000);
  unsigned char init[128];
  for (size_t i = 0; i < c->size; i++)
    init[i] = (unsigned char)(i % c->size == 0 ? 3 : 1 + i % 5);
  for (int k = 0; k < count; k++) {
    size_t n = sizes[k];
    if (c->size >= 64 && n > (1u << 20) + 3)
      continue;
    check_scan(ctx, impl, c, n, 0, NULL, false, 0, r, "inclusive");
    check_scan(ctx, impl, c, n, 0, init, false, 0, r, "inclusive, init");
    check_scan(ctx, impl, c, n, 1, init, false, 0, r, "exclusive, init");
    if (c->identity)
      check_scan(ctx, impl, c, n, 1, NULL, false, 0, r, "exclusive, identity");
    check_scan(ctx, impl, c, n, 0, NULL, true, 0, r, "in place");
    check_scan(ctx, impl, c, n, 1, init, false, c->size % 16 ? c->size : 1, r, "misaligned");
  }
  /* No identity: an exclusive scan without init is refused. */
  if (!c->identity)
    CHECK_STATUS(ctx->backend->scan_op(ctx, impl, NULL, NULL, 5, 1, NULL),
                 PSCAN_ERR_INVALID_ARGUMENT);
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 1);
  check_scan(ctx, impl, c, (1u << 20) + 3, 0, NULL, false, 0, r, "deterministic");
  test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 0);
  test_set(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_CHAINED);
  check_scan(ctx, impl, c, 5 * tile + 3, 0, init, false, 0, r, "chained");
  test_set(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO);
  ctx->backend->op_destroy(ctx, impl);
  printf("  %s%s: done\n", c->what, c->identity ? ", with its identity" : "");
}

/* ---- select and partition ---- */

static bool keep_tri(const unsigned char *x) {
  uint32_t v[3];
  memcpy(v, x, 12);
  return v[0] % 3 != 0 || v[2] > v[1];
}

static void check_select(pscan_ctx *ctx, void *impl, size_t n, int partition, bool in_place,
                         bool count_on_device, test_rng *r) {
  const size_t s = 12, bytes = n * s;
  unsigned char *in = test_malloc(bytes + 1), *want = test_malloc(bytes + 1),
                *got = test_malloc(bytes + 1);
  for (size_t i = 0; i < bytes; i++)
    in[i] = (unsigned char)test_below(r, 256);
  size_t kept = 0, rejected = 0;
  for (size_t i = 0; i < n; i++) {
    if (keep_tri(in + i * s))
      memcpy(want + kept++ * s, in + i * s, s);
    else if (partition)
      memcpy(want + (n - 1 - rejected++) * s, in + i * s, s);
  }
  unsigned char *d_in = NULL, *d_out = NULL;
  size_t *d_count = NULL, count = (size_t)-1;
  CUDA_OK(cudaMalloc((void **)&d_in, bytes + 16));
  CUDA_OK(cudaMalloc((void **)&d_out, bytes + 16));
  CUDA_OK(cudaMalloc((void **)&d_count, sizeof *d_count));
  CUDA_OK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out, TEST_POISON_BYTE, bytes + 16));
  unsigned char *dst = in_place ? d_in : d_out;
  pscan_status st = ctx->backend->select_op(ctx, impl, d_in, dst, n, partition,
                                            count_on_device ? d_count : &count);
  CHECK(st == PSCAN_OK, "select n=%zu: %s", n, pscan_last_error(ctx));
  CUDA_OK(cudaDeviceSynchronize());
  if (count_on_device)
    CUDA_OK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
  size_t check = partition ? n : kept;
  CUDA_OK(cudaMemcpy(got, dst, check * s, cudaMemcpyDeviceToHost));
  CHECK(count == kept, "select n=%zu partition=%d: %zu kept, want %zu", n, partition, count, kept);
  CHECK(memcmp(got, want, check * s) == 0, "select n=%zu partition=%d in_place=%d: items differ",
        n, partition, (int)in_place);
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  CUDA_OK(cudaFree(d_count));
  free(in);
  free(want);
  free(got);
}

static void test_select(pscan_ctx *ctx, test_rng *r) {
  pscan_op_desc d;
  memset(&d, 0, sizeof d);
  d.kind = PSCAN_KIND_PREDICATE;
  d.source = "typedef struct { unsigned a, b, c; } tri;\n"
             "int keep(tri x) { return x.a % 3 != 0 || x.c > x.b; }\n";
  d.type_name = "tri";
  d.name = "keep";
  d.elem_size = 12;
  void *impl = create(ctx, &d);
  if (!impl)
    return;
  const size_t tile = pscan__jit_tile_items(12);
  const size_t sizes[] = {0, 1, 2, tile - 1, tile, tile + 1, (1u << 16) + 1, (1u << 20) + 5,
                          1 + (size_t)test_below(r, 2u << 20)};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    check_select(ctx, impl, sizes[k], 0, false, false, r);
    check_select(ctx, impl, sizes[k], 1, false, false, r);
    check_select(ctx, impl, sizes[k], 0, true, true, r);
    check_select(ctx, impl, sizes[k], 1, false, true, r);
  }
  ctx->backend->op_destroy(ctx, impl);
  printf("  select / partition: done\n");
}

/* ---- the disk cache ---- */

static int corrupt_dir(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r+b");
    if (f) {
      fseek(f, 100, SEEK_SET);
      fputs("not a cubin any more", f);
      fclose(f);
      n++;
    }
  }
  if (d)
    closedir(d);
  return n;
}

static void test_cache(test_rng *r) {
  char dir[] = "/tmp/pscan_jit_cache_XXXXXX";
  if (!CHECK(mkdtemp(dir) != NULL, "a cache directory"))
    return;
  setenv("PSCAN_CACHE_DIR", dir, 1);
  const op_case *c = &cases[0];
  pscan_op_desc d = desc_of(c);
  double times[3];
  for (int round = 0; round < 3; round++) {
    pscan_ctx *ctx = NULL;
    CHECK_STATUS(pscan_create(&ctx, PSCAN_BACKEND_CUDA), PSCAN_OK);
    if (!ctx)
      break;
    if (round == 2)
      CHECK(corrupt_dir(dir) > 0, "a cache entry to corrupt");
    double t = test_seconds();
    void *impl = create(ctx, &d);
    times[round] = test_seconds() - t;
    if (impl) {
      check_scan(ctx, impl, c, 100003, 0, NULL, false, 0, r, "cache");
      ctx->backend->op_destroy(ctx, impl);
    }
    pscan_destroy(ctx);
  }
  printf("  op_create: cold %.3f s, disk-cache hit %.4f s, corrupt entry %.3f s\n", times[0],
         times[1], times[2]);
  CHECK(times[1] < times[0], "a hit is faster than a compile");
  unsetenv("PSCAN_CACHE_DIR");
}

int main(void) {
  uint64_t seed = test_init("test_cuda_user_op");
  pscan_ctx *ctx = NULL;
  if (pscan_create(&ctx, PSCAN_BACKEND_CUDA) != PSCAN_OK) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  test_rng r = test_fork(seed, 1);
  test_cache(&r);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    test_op(ctx, &cases[i], true, &r);
    if (cases[i].identity)
      test_op(ctx, &cases[i], false, &r);
  }
  test_select(ctx, &r);
  pscan_destroy(ctx);
  return test_finish();
}
