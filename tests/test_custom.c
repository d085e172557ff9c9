/* pscan_scan_custom with non-commutative operators, run in parallel, against a sequential fold.
 *
 * The operators (all associative, none commutative, none idempotent, so that a partition
 * combined twice, skipped or combined in the wrong order changes the result):
 *  - affine maps x -> a*x + b over uint64_t (wrapping): "apply L, then R";
 *  - 2x2 matrices of uint32_t, multiplied mod 2^32;
 *  - per byte, the affine group x -> a*x + b mod 16 (a odd), packed in 7 bits, over elements of
 *    1, 3, 17, 256 and 300 bytes: every byte an independent composition.
 * The operators read and write through memcpy: the library promises no alignment, and the tests
 * give it misaligned buffers too. Each operator checks that it gets its own user pointer. */
#include "reference.h" /* ref_algo_name */
#include "test.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct custom_op {
  const char *name;
  size_t size;
  pscan_combine_fn fn;
  void (*draw)(test_rng *r, unsigned char *dst, size_t size);
  size_t max_n;   /* largest size tested (big elements are slow to combine) */
  unsigned delay; /* affine only: busy-work per call, to keep more partitions in flight */
} custom_op;

/* Calls that got a user pointer other than the operator's own descriptor. */
static atomic_ulong bad_user;

static void check_user(const void *user, pscan_combine_fn self) {
  const custom_op *op = user;
  if (!op || op->fn != self)
    atomic_fetch_add(&bad_user, 1);
}

/* ---- affine maps over uint64_t ---- */

static void affine_combine(void *out, const void *a, const void *b, void *user) {
  uint64_t l[2], r[2], o[2];
  check_user(user, affine_combine);
  for (volatile unsigned spin = 0; spin < ((const custom_op *)user)->delay; spin++)
    continue;
  memcpy(l, a, sizeof l);
  memcpy(r, b, sizeof r);
  /* R(L(x)) = r.a * (l.a * x + l.b) + r.b */
  o[0] = r[0] * l[0];
  o[1] = r[0] * l[1] + r[1];
  memcpy(out, o, sizeof o);
}

static void affine_draw(test_rng *r, unsigned char *dst, size_t size) {
  /* Mostly odd slopes: an even one forgets a bit of everything before it. */
  uint64_t v[2] = {test_rand(r) | (test_below(r, 16) != 0), test_rand(r)};
  (void)size;
  memcpy(dst, v, sizeof v);
}

/* ---- 2x2 matrices of uint32_t mod 2^32 ---- */

static void matrix_combine(void *out, const void *a, const void *b, void *user) {
  uint32_t l[4], r[4], o[4];
  check_user(user, matrix_combine);
  memcpy(l, a, sizeof l);
  memcpy(r, b, sizeof r);
  o[0] = (uint32_t)((uint64_t)l[0] * r[0] + (uint64_t)l[1] * r[2]);
  o[1] = (uint32_t)((uint64_t)l[0] * r[1] + (uint64_t)l[1] * r[3]);
  o[2] = (uint32_t)((uint64_t)l[2] * r[0] + (uint64_t)l[3] * r[2]);
  o[3] = (uint32_t)((uint64_t)l[2] * r[1] + (uint64_t)l[3] * r[3]);
  memcpy(out, o, sizeof o);
}

static void matrix_draw(test_rng *r, unsigned char *dst, size_t size) {
  /* An odd determinant keeps the product invertible mod 2, so it never degenerates. */
  uint32_t m[4];
  (void)size;
  do {
    for (int i = 0; i < 4; i++)
      m[i] = (uint32_t)test_rand(r);
  } while ((((uint64_t)m[0] * m[3]) - ((uint64_t)m[1] * m[2])) % 2 == 0);
  memcpy(dst, m, sizeof m);
}

/* ---- bytes: the affine group mod 16 per byte ---- */

/* A byte holds x -> a*x + b mod 16 with a = 2*(bits 4..6) + 1 and b = bits 0..3. */
static unsigned byte_compose(unsigned l, unsigned r) {
  unsigned la = ((l >> 4) & 7) * 2 + 1, lb = l & 15;
  unsigned ra = ((r >> 4) & 7) * 2 + 1, rb = r & 15;
  unsigned a = (ra * la) & 15, b = (ra * lb + rb) & 15;
  return (a - 1) / 2 << 4 | b;
}

static void bytes_combine(void *out, const void *a, const void *b, void *user) {
  const custom_op *op = user;
  const unsigned char *l = a, *r = b;
  unsigned char *o = out;
  check_user(user, bytes_combine);
  /* Byte by byte, so out may alias a or b. */
  for (size_t i = 0; i < op->size; i++)
    o[i] = (unsigned char)byte_compose(l[i], r[i]);
}

static void bytes_draw(test_rng *r, unsigned char *dst, size_t size) {
  for (size_t i = 0; i < size; i++)
    dst[i] = (unsigned char)test_below(r, 128);
}

static custom_op ops[] = {
    {"affine-u64", 16, affine_combine, affine_draw, 20000, 0},
    {"matrix-u32", 16, matrix_combine, matrix_draw, 20000, 0},
    {"bytes-1", 1, bytes_combine, bytes_draw, 20000, 0},
    {"bytes-3", 3, bytes_combine, bytes_draw, 20000, 0},
    {"bytes-17", 17, bytes_combine, bytes_draw, 8000, 0},
    {"bytes-256", 256, bytes_combine, bytes_draw, 1500, 0},
    {"bytes-300", 300, bytes_combine, bytes_draw, 1500, 0},
};
enum { NOPS = sizeof ops / sizeof *ops };

/* ---- the oracle: a sequential fold ---- */

enum { MODE_INCL, MODE_INCL_INIT, MODE_EXCL_INIT, NMODES };
static const char *const mode_names[NMODES] = {"incl", "incl+init", "excl+init"};

/* Inclusive: out[i] = (init) in[0] ... in[i], folded left to right. */
static void fold(const custom_op *op, const unsigned char *in, unsigned char *out, size_t n,
                 const unsigned char *init) {
  size_t s = op->size;
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      op->fn(out + i * s, out + (i - 1) * s, in + i * s, (void *)op);
    else if (init)
      op->fn(out, init, in, (void *)op);
    else
      memcpy(out, in, s);
  }
}

/* The exclusive fold's out[i] is the inclusive fold's out[i-1] (init for i = 0). */
static void fold_exclusive(const custom_op *op, const unsigned char *in, unsigned char *out,
                           size_t n, const unsigned char *init) {
  size_t s = op->size;
  if (n == 0)
    return;
  fold(op, in, out + s, n - 1, init);
  memcpy(out, init, s);
}

static void oracle(const custom_op *op, const unsigned char *in, unsigned char *out, size_t n,
                   int mode, const unsigned char *init) {
  if (mode == MODE_EXCL_INIT)
    fold_exclusive(op, in, out, n, init);
  else
    fold(op, in, out, n, mode == MODE_INCL ? NULL : init);
}

/* ---- the checks ---- */

/* Associativity and non-commutativity on random triples: the premises of the test itself. */
static void check_operator(test_rng *r, const custom_op *op) {
  size_t s = op->size;
  unsigned char *x = test_malloc(s), *y = test_malloc(s), *z = test_malloc(s);
  unsigned char *l = test_malloc(s), *rr = test_malloc(s), *t = test_malloc(s);
  bool commutes = true;
  for (int k = 0; k < 200; k++) {
    op->draw(r, x, s);
    op->draw(r, y, s);
    op->draw(r, z, s);
    op->fn(t, x, y, (void *)op);
    op->fn(l, t, z, (void *)op); /* (x y) z */
    op->fn(t, y, z, (void *)op);
    op->fn(rr, x, t, (void *)op); /* x (y z) */
    CHECK(memcmp(l, rr, s) == 0, "%s: the test's operator is not associative", op->name);
    op->fn(l, x, y, (void *)op);
    op->fn(rr, y, x, (void *)op);
    commutes = commutes && memcmp(l, rr, s) == 0;
  }
  CHECK(!commutes, "%s: the test's operator commutes on 200 random pairs", op->name);
  free(x), free(y), free(z), free(l), free(rr), free(t);
}

typedef struct bench {
  pscan_ctx *ctx[4];
  test_rng rng;
  bool quick;
  unsigned long scans, rotate;
  unsigned char *in_buf, *copy, *out_buf, *want, *init;
} bench;

static const int thread_counts[4] = {1, 2, 3, 8};

static void run_one(bench *b, const custom_op *op, size_t n, int mode, int64_t part, int algo,
                    int t, bool in_place, size_t misalign) {
  size_t s = op->size;
  pscan_ctx *ctx = b->ctx[t];
  /* in and out at odd offsets when misaligned; in-place shares the output buffer. */
  unsigned char *out = b->out_buf + misalign;
  unsigned char *in = in_place ? out : b->in_buf + 2 * misalign;
  test_set(ctx, PSCAN_PARAM_ALGO, algo);
  test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, part);
  test_poison(b->out_buf, (n + 1) * s + 8);
  memcpy(in, b->copy, n * s);
  atomic_store(&bad_user, 0);
  b->scans++;
  pscan_status st = pscan_scan_custom(ctx, in, out, n, s, op->fn, (void *)op,
                                      mode == MODE_EXCL_INIT, mode == MODE_INCL ? NULL : b->init);

  char what[160];
  snprintf(what, sizeof what, "%s %s n=%zu algo=%s threads=%d partition=%lld%s%s", op->name,
           mode_names[mode], n, ref_algo_name(algo), thread_counts[t], (long long)part,
           in_place ? " in-place" : "", misalign ? " misaligned" : "");
  if (!CHECK(st == PSCAN_OK, "%s: %s: %s", what, pscan_status_name(st), pscan_last_error(ctx)))
    return;
  size_t bad = 0;
  while (bad < n && memcmp(out + bad * s, b->want + bad * s, s) == 0)
    bad++;
  CHECK(bad == n, "%s: out[%zu] differs from the sequential fold", what, bad);
  CHECK(test_is_poisoned(out + n * s, s), "%s: wrote past out[n-1]", what);
  if (!in_place)
    CHECK(memcmp(in, b->copy, n * s) == 0, "%s: modified its input", what);
  CHECK(atomic_load(&bad_user) == 0, "%s: the operator got a wrong user pointer", what);
}

static void run_case(bench *b, const custom_op *op, size_t n, int mode) {
  size_t s = op->size;
  for (size_t i = 0; i < n; i++)
    op->draw(&b->rng, b->copy + i * s, s);
  op->draw(&b->rng, b->init, s);
  oracle(op, b->copy, b->want, n, mode, b->init);
  /* Partitions of 1 and 7 elements: the most boundaries; 64; and the default. */
  static const int64_t parts[] = {1, 7, 64, 0};
  for (size_t p = 0; p < 4; p++) {
    if (parts[p] == 1 && n > 1000)
      continue;
    for (int algo = 0; algo < 6; algo++, b->rotate++)
      for (int t = 0; t < 4; t++) {
        if (b->quick && t != (int)(b->rotate % 4)) /* quick: one thread count, rotating */
          continue;
        size_t misalign = (b->scans / 2) % 3 == 0 ? 1 : 0;
        run_one(b, op, n, mode, parts[p], algo, t, false, misalign);
        run_one(b, op, n, mode, parts[p], algo, t, true, misalign);
      }
  }
}

/* Decoupled look-back folds several predecessors only when they are still in flight (aggregate
   published, prefix not yet): many tiny partitions, a slow operator and more threads than cores
   make that common, and a fold in the wrong order shows with a non-commutative operator. */
static void lookback_stress(bench *b) {
  static custom_op slow = {"affine-u64-slow", 16, affine_combine, affine_draw, 2000, 300};
  enum { N = 2000 };
  static const int algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED, PSCAN_ALGO_AUTO};
  int reps = b->quick ? 4 : 12;
  for (int rep = 0; rep < reps; rep++)
    for (int mode = 0; mode < NMODES; mode++) {
      for (size_t i = 0; i < N; i++)
        slow.draw(&b->rng, b->copy + i * 16, 16);
      slow.draw(&b->rng, b->init, 16);
      oracle(&slow, b->copy, b->want, N, mode, b->init);
      for (int a = 0; a < 3; a++)
        for (int t = 2; t < 4; t++) /* 3 and 8 threads */
          run_one(b, &slow, N, mode, 1 + rep % 3, algos[a], t, rep % 2 == 1, 0);
    }
}

int main(void) {
  uint64_t seed = test_init("test_custom");
  bench b = {.rng = {seed}, .quick = test_quick()};
  for (int t = 0; t < 4; t++)
    b.ctx[t] = test_ctx(thread_counts[t]);
  size_t max_bytes = 0;
  for (int o = 0; o < NOPS; o++)
    if ((ops[o].max_n + 2) * ops[o].size > max_bytes)
      max_bytes = (ops[o].max_n + 2) * ops[o].size;
  max_bytes += 16; /* room for the misaligned offsets */
  b.in_buf = test_malloc(max_bytes);
  b.copy = test_malloc(max_bytes);
  b.out_buf = test_malloc(max_bytes);
  b.want = test_malloc(max_bytes);
  b.init = test_malloc(300);

  double t0 = test_seconds();
  for (int o = 0; o < NOPS; o++) {
    const custom_op *op = &ops[o];
    check_operator(&b.rng, op);
    size_t big = op->max_n / (b.quick ? 8 : 1);
    for (int mode = 0; mode < NMODES; mode++) {
      size_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 129, 1 + test_below(&b.rng, 1000),
                        big / 2 + test_below(&b.rng, big / 2)};
      size_t count = sizeof sizes / sizeof *sizes;
      for (size_t i = 0; i < count; i++)
        if (!b.quick || i % 2 == 0 || i + 1 == count)
          run_case(&b, op, sizes[i], mode);
    }
  }
  lookback_stress(&b);
  printf("custom: %lu scans over %d operators in %.1f s\n", b.scans, NOPS, test_seconds() - t0);

  for (int t = 0; t < 4; t++)
    pscan_destroy(b.ctx[t]);
  free(b.in_buf), free(b.copy), free(b.out_buf), free(b.want), free(b.init);
  return test_finish();
}
