/* Every refusal that pscan.h documents. For each one: the status; a non-empty, one-line
 * pscan_last_error (of the context, or of the thread for a call without one); an output that is
 * still poisoned (a refused call writes nothing); and a context that still scans correctly. Also
 * the calls that look suspicious but are legal (in-place, adjacent buffers, n == 0 with NULL
 * pointers). (pscan_last_error's lifetime, the names of the statuses, the sizes of the types
 * and the version: tests/test_messages.c.) */
#include "reference.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };
/* The value after the last type: unknown, whatever types the library has. */
#define UNKNOWN_TYPE ((pscan_dtype)PSCAN_DTYPE_COUNT)

static pscan_ctx *ctx;            /* every refusal is made on it */
static int32_t in[N], out[N + 1]; /* out is poisoned before each refused call */
static size_t count;              /* the count of the compaction functions, poisoned too */

static void poison_outputs(void) {
  test_poison(out, sizeof out);
  test_poison(&count, sizeof count);
}

/* ctx still gives a correct inclusive sum (with whatever parameters it has now). */
static void still_works(int line) {
  int32_t want[N], got[N];
  ref_scan(in, PSCAN_I32, want, PSCAN_I32, N, PSCAN_SUM, 0, NULL);
  pscan_status s = pscan_inclusive_scan(ctx, in, got, N, PSCAN_I32, PSCAN_SUM);
  CHECK(s == PSCAN_OK && memcmp(got, want, sizeof got) == 0,
        "line %d: the context no longer scans correctly after a refusal (%s)", line,
        pscan_status_name(s));
}

static void refused(pscan_status got, pscan_status want, const pscan_ctx *on, const char *call,
                    int line) {
  if (!CHECK(got == want, "line %d: %s gave %s, expected %s", line, call, pscan_status_name(got),
             pscan_status_name(want)))
    return;
  const char *msg = pscan_last_error(on);
  CHECK(test_one_line(msg), "line %d: %s: pscan_last_error(%s) is \"%s\", not one non-empty line", line,
        call, on ? "ctx" : "NULL", msg ? msg : "(null)");
  CHECK(test_is_poisoned(out, sizeof out) && test_is_poisoned(&count, sizeof count),
        "line %d: %s was refused but wrote to an output", line, call);
  still_works(line);
}

/* REFUSE(status, ctx or NULL (whose last_error to read), call) */
#define REFUSE(want, on, ...)                                 \
  do {                                                        \
    poison_outputs();                                         \
    refused((__VA_ARGS__), (want), (on), #__VA_ARGS__, __LINE__); \
  } while (0)

/* ---- context, parameters, stream ---- */

static void test_create(void) {
  pscan_ctx *c = (pscan_ctx *)&count; /* any non-NULL value: a failed create must clear it */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_create(NULL, PSCAN_BACKEND_CPU));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_create(&c, (pscan_backend)7));
  CHECK(c == NULL, "pscan_create with an unknown backend left *ctx non-NULL");
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_create(&c, (pscan_backend)-1));

  bool cuda = strstr(pscan_version_string(), "cuda") != NULL;
  c = (pscan_ctx *)&count;
  pscan_status s = pscan_create(&c, PSCAN_BACKEND_CUDA);
  if (!cuda) {
    CHECK(s == PSCAN_ERR_UNSUPPORTED, "CUDA context in a build without CUDA gave %s",
          pscan_status_name(s));
    CHECK(c == NULL && test_one_line(pscan_last_error(NULL)),
          "a refused CUDA create must clear *ctx and explain itself");
  } else if (s == PSCAN_OK) {
    CHECK(c && pscan_get_backend(c) == PSCAN_BACKEND_CUDA, "CUDA context of another backend");
    pscan_destroy(c);
  } else {
    CHECK(s == PSCAN_ERR_NO_DEVICE, "CUDA context (built with CUDA) gave %s",
          pscan_status_name(s));
    CHECK(c == NULL && test_one_line(pscan_last_error(NULL)),
          "a refused CUDA create must clear *ctx and explain itself");
  }
  /* AUTO: CUDA when built and usable, else CPU. */
  CHECK_STATUS(pscan_create(&c, PSCAN_BACKEND_AUTO), PSCAN_OK);
  pscan_backend b = pscan_get_backend(c);
  CHECK(b == PSCAN_BACKEND_CPU || (cuda && s == PSCAN_OK && b == PSCAN_BACKEND_CUDA),
        "AUTO gave backend %d", (int)b);
  CHECK(b != PSCAN_BACKEND_CUDA || s == PSCAN_OK, "AUTO chose CUDA where CUDA cannot be created");
  pscan_destroy(c);

  CHECK(pscan_get_backend(ctx) == PSCAN_BACKEND_CPU, "a CPU context reports another backend");
  CHECK(pscan_get_backend(NULL) == PSCAN_BACKEND_AUTO, "pscan_get_backend(NULL) is not AUTO");
  pscan_destroy(NULL); /* a no-op */
}

static int64_t param(pscan_param p) {
  int64_t v = -12345;
  CHECK_STATUS(pscan_get_param(ctx, p, &v), PSCAN_OK);
  return v;
}

static void test_params(void) {
  CHECK(param(PSCAN_PARAM_THREADS) == 3, "THREADS reads %lld, set 3",
        (long long)param(PSCAN_PARAM_THREADS));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_set_param(NULL, PSCAN_PARAM_THREADS, 1));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_THREADS, -1));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_THREADS, 1025));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_THREADS, INT64_MAX));
  CHECK(param(PSCAN_PARAM_THREADS) == 3, "a refused THREADS changed the value");
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_DETERMINISTIC, 2));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_DETERMINISTIC, -1));
  CHECK(param(PSCAN_PARAM_DETERMINISTIC) == 0, "a refused DETERMINISTIC changed the value");
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_ALGO, 99));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_ALGO, -1));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_set_param(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_SCAN_THEN_PROPAGATE + 1));
  CHECK(param(PSCAN_PARAM_ALGO) == PSCAN_ALGO_DECOUPLED_LOOKBACK, "a refused ALGO changed it");
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, -1));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, ((int64_t)1 << 30) + 1));
  CHECK(param(PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE) == 64, "a refused PARTITION_SIZE changed it");
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_DEVICE, -1));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, (pscan_param)99, 0));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, (pscan_param)-1, 0));
  /* Between the stable parameters and the experimental range (from 1000) nothing is defined. */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_set_param(ctx, (pscan_param)(PSCAN_PARAM_DETERMINISTIC + 1), 0));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, (pscan_param)999, 0));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, (pscan_param)1001, 0));
  /* The CPU backend has no GPU tile scan: a valid BLOCK_ALGO other than AUTO is unsupported. */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_set_param(ctx, PSCAN_PARAM_BLOCK_ALGO, 99));
  for (int b = PSCAN_BLOCK_RAKING; b <= PSCAN_BLOCK_HYBRID; b++)
    REFUSE(PSCAN_ERR_UNSUPPORTED, ctx, pscan_set_param(ctx, PSCAN_PARAM_BLOCK_ALGO, b));
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_BLOCK_ALGO, PSCAN_BLOCK_AUTO), PSCAN_OK);
  CHECK(param(PSCAN_PARAM_BLOCK_ALGO) == PSCAN_BLOCK_AUTO, "BLOCK_ALGO changed");
  /* The edges of the ranges are accepted (and read back); then the old values come back. */
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_THREADS, 1024), PSCAN_OK);
  CHECK(param(PSCAN_PARAM_THREADS) == 1024, "THREADS 1024 not read back");
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_THREADS, 0), PSCAN_OK);
  CHECK(param(PSCAN_PARAM_THREADS) == 0, "THREADS 0 (all cores) must read back as 0");
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, (int64_t)1 << 30), PSCAN_OK);
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_THREADS, 3), PSCAN_OK);
  CHECK_STATUS(pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 64), PSCAN_OK);

  int64_t v = 7;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_get_param(NULL, PSCAN_PARAM_THREADS, &v));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_get_param(ctx, PSCAN_PARAM_THREADS, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_get_param(ctx, (pscan_param)99, &v));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_get_param(ctx, (pscan_param)-1, &v));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_get_param(ctx, (pscan_param)(PSCAN_PARAM_DETERMINISTIC + 1), &v));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_get_param(ctx, (pscan_param)1001, &v));
  CHECK(v == 7, "a refused pscan_get_param wrote its output");

  int stream_dummy;
  REFUSE(PSCAN_ERR_UNSUPPORTED, ctx, pscan_set_stream(ctx, &stream_dummy));
  CHECK_STATUS(pscan_set_stream(ctx, NULL), PSCAN_OK);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_set_stream(NULL, NULL));
  CHECK_STATUS(pscan_synchronize(ctx), PSCAN_OK);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_synchronize(NULL));
}

/* ---- scans ---- */

static pscan_scan_args args(pscan_dtype in_t, pscan_dtype out_t, pscan_op op, size_t n) {
  pscan_scan_args a = {.in = in, .in_type = in_t, .out = out, .out_type = out_t, .n = n, .op = op};
  return a;
}

static void combine_i32(void *o, const void *a, const void *b, void *user) {
  int32_t x, y;
  (void)user;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  x = (int32_t)((uint32_t)x + (uint32_t)y);
  memcpy(o, &x, 4);
}

static void test_scan_arguments(void) {
  const int32_t init = 5;
  pscan_scan_args a = args(PSCAN_I32, PSCAN_I32, PSCAN_SUM, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_scan(NULL, &a));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_inclusive_scan(NULL, in, out, N, PSCAN_I32, PSCAN_SUM));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL,
         pscan_exclusive_scan(NULL, in, out, N, PSCAN_I32, PSCAN_SUM, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_inclusive_scan(ctx, NULL, out, N, PSCAN_I32, PSCAN_SUM));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_inclusive_scan(ctx, in, NULL, N, PSCAN_I32, PSCAN_SUM));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_exclusive_scan(ctx, NULL, out, N, PSCAN_I32, PSCAN_SUM, &init));
  a.in = NULL;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));
  a = args(PSCAN_I32, PSCAN_I64, PSCAN_SUM, N);
  a.out = NULL;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));

  /* Unknown types and operators. */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_inclusive_scan(ctx, in, out, N, UNKNOWN_TYPE, PSCAN_SUM));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_inclusive_scan(ctx, in, out, N, (pscan_dtype)-1, PSCAN_SUM));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_inclusive_scan(ctx, in, out, N, PSCAN_I32, (pscan_op)7));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_inclusive_scan(ctx, in, out, N, PSCAN_I32, (pscan_op)-1));
  a = args(PSCAN_I32, UNKNOWN_TYPE, PSCAN_SUM, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));
  a = args((pscan_dtype)42, PSCAN_I64, PSCAN_SUM, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));

  /* Bitwise operators on floats, in every float pair. */
  for (int op = PSCAN_AND; op <= PSCAN_XOR; op++) {
    REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
           pscan_inclusive_scan(ctx, in, out, N / 2, PSCAN_F32, (pscan_op)op));
    REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
           pscan_exclusive_scan(ctx, in, out, N / 2, PSCAN_F64, (pscan_op)op, NULL));
    a = args(PSCAN_F32, PSCAN_F64, (pscan_op)op, N / 2);
    REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));
  }

  /* Every (in, out) pair: the widenings of pscan.h are accepted and right, the rest refused
     (narrowing, another kind, or a sign change: I32->I16, I32->U64, F64->F32, I32->F64 ...). */
  static uint64_t wide[N / 4 + 1], legal[N / 4 + 1]; /* legal: in's bits as values of the type */
  for (int i = 0; i < REF_NTYPES; i++)
    for (int o = 0; o < REF_NTYPES; o++) {
      a = args((pscan_dtype)i, (pscan_dtype)o, PSCAN_SUM, N / 4);
      if (!ref_pair_valid((pscan_dtype)i, (pscan_dtype)o)) {
        REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));
        continue;
      }
      memcpy(legal, in, N / 4 * ref_dtype_size((pscan_dtype)i));
      ref_legalize((pscan_dtype)i, legal, N / 4);
      a.in = legal;
      a.out = wide;
      pscan_status s = pscan_scan(ctx, &a);
      ref_scan(legal, (pscan_dtype)i, out, (pscan_dtype)o, N / 4, PSCAN_SUM, 0, NULL);
      /* (as floats, the bits of in are NaNs and denormals: compared with NaN == NaN) */
      CHECK(s == PSCAN_OK && ref_first_difference((pscan_dtype)o, wide, out, N / 4) == N / 4,
            "%s -> %s sum: %s or a wrong result", ref_dtype_name((pscan_dtype)i),
            ref_dtype_name((pscan_dtype)o), pscan_status_name(s));
    }

  a = args(PSCAN_I32, PSCAN_I32, PSCAN_SUM, N);
  a.exclusive = 2;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));
  a.exclusive = -1;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));

  /* Custom operators. */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_scan_custom(NULL, in, out, N, 4, combine_i32, NULL, 0, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan_custom(ctx, in, out, N, 0, combine_i32, NULL, 0, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan_custom(ctx, in, out, N, 4, NULL, NULL, 0, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan_custom(ctx, in, out, N, 4, combine_i32, NULL, 1, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan_custom(ctx, in, out, N, 4, combine_i32, NULL, 2, &init));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan_custom(ctx, NULL, out, N, 4, combine_i32, NULL, 0, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan_custom(ctx, in, NULL, N, 4, combine_i32, NULL, 1, &init));
}

/* pscan_reduce: its own refusals (the total is out[0], poisoned), and its legal edges. */
static void test_reduce_arguments(void) {
  pscan_scan_args a = args(PSCAN_I32, PSCAN_I64, PSCAN_SUM, N);
  a.out = NULL; /* not used */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_reduce(NULL, &a, out));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, NULL, out));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, NULL));
  a.in = NULL;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, out));
  a = args(PSCAN_I32, PSCAN_I16, PSCAN_SUM, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, out));
  a = args((pscan_dtype)42, PSCAN_I64, PSCAN_SUM, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, out));
  a = args(PSCAN_F32, PSCAN_F32, PSCAN_XOR, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, out));
  a = args(PSCAN_I32, PSCAN_I32, (pscan_op)7, N);
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, out));
  a = args(PSCAN_I32, PSCAN_I32, PSCAN_SUM, N - 1);
  a.in = (const char *)in + 2;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_reduce(ctx, &a, out));
  a = args(PSCAN_I32, PSCAN_I32, PSCAN_SUM, SIZE_MAX / 2);
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_reduce(ctx, &a, out));

  /* Legal: n == 0 with no input (the init, else the identity), out and exclusive not used. */
  int64_t total = 7, init = -3;
  a = args(PSCAN_I32, PSCAN_I64, PSCAN_MIN, 0);
  a.in = NULL, a.out = NULL;
  CHECK(pscan_reduce(ctx, &a, &total) == PSCAN_OK && total == INT64_MAX,
        "pscan_reduce of nothing (min) gave %lld, not the identity", (long long)total);
  a.init = &init;
  CHECK(pscan_reduce(ctx, &a, &total) == PSCAN_OK && total == -3,
        "pscan_reduce of nothing from init -3 gave %lld", (long long)total);
  a = args(PSCAN_I32, PSCAN_I64, PSCAN_SUM, N);
  a.out = NULL, a.exclusive = 1, a.init = &init;
  int64_t want = -3;
  for (size_t i = 0; i < N; i++)
    want += in[i];
  CHECK(pscan_reduce(ctx, &a, &total) == PSCAN_OK && total == want,
        "pscan_reduce i32 -> i64 sum from -3 gave %lld, expected %lld", (long long)total,
        (long long)want);
}

static void test_overflow(void) {
  /* n * element size does not fit in size_t: refused before anything is touched. */
  size_t half = SIZE_MAX / 2;
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_inclusive_scan(ctx, in, out, half, PSCAN_I32, PSCAN_SUM));
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_exclusive_scan(ctx, in, out, half, PSCAN_F64, PSCAN_MAX, NULL));
  pscan_scan_args a = args(PSCAN_I32, PSCAN_I32, PSCAN_SUM, half);
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_scan(ctx, &a));
  /* The input fits, the wider output does not. */
  a = args(PSCAN_I8, PSCAN_I64, PSCAN_SUM, SIZE_MAX / 4 + 1);
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_scan(ctx, &a));
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_scan_custom(ctx, in, out, SIZE_MAX / 100, 300, combine_i32, NULL, 0, NULL));
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_scan_custom(ctx, in, out, 2, SIZE_MAX, combine_i32, NULL, 0, NULL));
  REFUSE(PSCAN_ERR_OVERFLOW, ctx, pscan_select_if(ctx, in, out, half, PSCAN_I32, PSCAN_LT, &in[0], &count));
}

/* A refused overlapping call must leave the whole shared buffer as it was. */
static void refuse_overlap(pscan_status got, const int32_t *buf, const int32_t *copy, size_t len,
                           const char *what, int line) {
  CHECK(got == PSCAN_ERR_OVERLAP, "line %d: %s gave %s, expected PSCAN_ERR_OVERLAP", line, what,
        pscan_status_name(got));
  CHECK(test_one_line(pscan_last_error(ctx)), "line %d: %s: no one-line message", line, what);
  CHECK(memcmp(buf, copy, len * sizeof *buf) == 0, "line %d: %s wrote to its buffer", line, what);
  still_works(line);
}
#define OVERLAP(call) refuse_overlap((call), buf, copy, 3 * N, #call, __LINE__)

static void test_overlap(void) {
  static int32_t buf[3 * N], copy[3 * N], want[N];
  for (size_t i = 0; i < 3 * N; i++)
    buf[i] = copy[i] = (int32_t)(i * 7 % 101);
  int32_t *m = buf + N; /* the middle third */
  OVERLAP(pscan_inclusive_scan(ctx, m, m + 1, N, PSCAN_I32, PSCAN_SUM));  /* out after in */
  OVERLAP(pscan_inclusive_scan(ctx, m + 1, m, N, PSCAN_I32, PSCAN_SUM));  /* out before in */
  OVERLAP(pscan_exclusive_scan(ctx, m, m + N - 1, N, PSCAN_I32, PSCAN_SUM, NULL)); /* one element */
  OVERLAP(pscan_exclusive_scan(ctx, m + N - 1, m, N, PSCAN_I32, PSCAN_SUM, NULL));
  /* out == in, but of another type: not an in-place scan. */
  pscan_scan_args a = {.in = m, .in_type = PSCAN_I32, .out = m, .out_type = PSCAN_I64, .n = N / 2,
                       .op = PSCAN_SUM};
  OVERLAP(pscan_scan(ctx, &a));
  a.in = m + N / 2; /* the wider output runs over the input */
  OVERLAP(pscan_scan(ctx, &a));
  a.in = m - 1;
  OVERLAP(pscan_scan(ctx, &a));
  /* Custom elements of 3 bytes, one byte apart, both directions. */
  OVERLAP(pscan_scan_custom(ctx, (char *)m, (char *)m + 1, N / 2, 3, combine_i32, NULL, 0, NULL));
  OVERLAP(pscan_scan_custom(ctx, (char *)m + 1, (char *)m, N / 2, 3, combine_i32, NULL, 0, NULL));

  /* Legal: adjacent buffers, both ways, and in-place (plain and custom). */
  ref_scan(m, PSCAN_I32, want, PSCAN_I32, N, PSCAN_SUM, 0, NULL);
  CHECK_STATUS(pscan_inclusive_scan(ctx, m, m + N, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
  CHECK(memcmp(m + N, want, sizeof want) == 0, "scan into the adjacent buffer after in: wrong");
  memcpy(buf, copy, sizeof buf);
  CHECK_STATUS(pscan_inclusive_scan(ctx, m, buf, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
  CHECK(memcmp(buf, want, sizeof want) == 0, "scan into the adjacent buffer before in: wrong");
  CHECK_STATUS(pscan_inclusive_scan(ctx, m, m, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
  CHECK(memcmp(m, want, sizeof want) == 0, "in-place scan: wrong");
  memcpy(m, copy + N, N * sizeof *m);
  CHECK_STATUS(pscan_scan_custom(ctx, m, m, N, 4, combine_i32, NULL, 0, NULL), PSCAN_OK);
  CHECK(memcmp(m, want, sizeof want) == 0, "in-place custom scan: wrong");
}

static void test_empty(void) {
  /* n == 0: valid, does nothing, the data pointers may be NULL. */
  const int32_t init = 1;
  pscan_scan_args a = {.in = NULL, .in_type = PSCAN_I8, .out = NULL, .out_type = PSCAN_I64, .n = 0,
                       .op = PSCAN_MAX, .exclusive = 1};
  CHECK_STATUS(pscan_inclusive_scan(ctx, NULL, NULL, 0, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
  CHECK_STATUS(pscan_exclusive_scan(ctx, NULL, NULL, 0, PSCAN_F64, PSCAN_MIN, NULL), PSCAN_OK);
  CHECK_STATUS(pscan_scan(ctx, &a), PSCAN_OK);
  CHECK_STATUS(pscan_scan_custom(ctx, NULL, NULL, 0, 4, combine_i32, NULL, 0, NULL), PSCAN_OK);
  CHECK_STATUS(pscan_scan_custom(ctx, NULL, NULL, 0, 4, combine_i32, NULL, 1, &init), PSCAN_OK);
  poison_outputs();
  CHECK_STATUS(pscan_exclusive_scan(ctx, in, out, 0, PSCAN_I32, PSCAN_SUM, &init), PSCAN_OK);
  CHECK_STATUS(pscan_scan_custom(ctx, in, out, 0, 4, combine_i32, NULL, 1, &init), PSCAN_OK);
  CHECK(test_is_poisoned(out, sizeof out), "a scan of 0 elements wrote to out");
}

/* ---- compaction: validated, then run on the CPU backend (tests/test_compact.c checks the
   results) ---- */

static void test_compaction(void) {
  const int32_t v = 3;
  static uint8_t flags[N];
  static uint64_t counts[N];
  static int32_t keys_out[N];
  for (size_t i = 0; i < N; i++)
    flags[i] = (uint8_t)(i % 3 == 0);
  CHECK_STATUS(pscan_select_if(ctx, in, out, N, PSCAN_I32, PSCAN_LT, &v, &count), PSCAN_OK);
  CHECK_STATUS(pscan_select_flagged(ctx, in, flags, out, N, PSCAN_I32, &count), PSCAN_OK);
  CHECK_STATUS(pscan_partition_if(ctx, in, out, N, PSCAN_I32, PSCAN_GE, &v, &count), PSCAN_OK);
  REFUSE(PSCAN_ERR_OVERLAP, ctx, pscan_partition_if(ctx, in, (void *)in, N, PSCAN_I32, PSCAN_GE, &v, &count));
  REFUSE(PSCAN_ERR_OVERLAP, ctx, pscan_select_flagged(ctx, in, (const uint8_t *)out + 1, out, N, PSCAN_I32, &count));
  CHECK_STATUS(pscan_unique(ctx, in, out, N, PSCAN_I32, &count), PSCAN_OK);
  CHECK_STATUS(pscan_run_length_encode(ctx, in, out, counts, N, PSCAN_I32, &count), PSCAN_OK);
  CHECK_STATUS(pscan_reduce_by_key(ctx, in, PSCAN_I32, in, PSCAN_I32, keys_out, out, N, PSCAN_SUM, &count),
               PSCAN_OK);
  CHECK_STATUS(pscan_scan_by_key(ctx, in, PSCAN_I32, in, out, N, PSCAN_I32, PSCAN_SUM, 0, NULL),
               PSCAN_OK);
  CHECK_STATUS(pscan_scan_by_key(ctx, NULL, PSCAN_I32, NULL, NULL, 0, PSCAN_I32, PSCAN_SUM, 0, NULL),
               PSCAN_OK);
  count = 7;
  CHECK_STATUS(pscan_select_if(ctx, NULL, NULL, 0, PSCAN_I32, PSCAN_LT, &v, &count), PSCAN_OK);
  CHECK(count == 0, "select_if of 0 elements: count %zu", count);
  /* A NULL count, and the other invalid arguments. */
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_select_if(ctx, in, out, N, PSCAN_I32, PSCAN_LT, &v, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_select_flagged(ctx, in, flags, out, N, PSCAN_I32, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_partition_if(ctx, in, out, N, PSCAN_I32, PSCAN_GE, &v, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_unique(ctx, in, out, N, PSCAN_I32, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_run_length_encode(ctx, in, out, counts, N, PSCAN_I32, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_reduce_by_key(ctx, in, PSCAN_I32, in, PSCAN_I32, keys_out, out, N, PSCAN_SUM, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, NULL, pscan_unique(NULL, in, out, N, PSCAN_I32, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_unique(ctx, in, out, N, UNKNOWN_TYPE, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_select_if(ctx, in, out, N, PSCAN_I32, (pscan_cmp)6, &v, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_select_if(ctx, in, out, N, PSCAN_I32, PSCAN_EQ, NULL, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_select_flagged(ctx, in, NULL, out, N, PSCAN_I32, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_run_length_encode(ctx, in, out, NULL, N, PSCAN_I32, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_unique(ctx, NULL, out, N, PSCAN_I32, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_reduce_by_key(ctx, in, PSCAN_I32, in, PSCAN_F32, keys_out, out, N, PSCAN_XOR, &count));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_scan_by_key(ctx, NULL, PSCAN_I32, in, out, N, PSCAN_I32, PSCAN_SUM, 0, NULL));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_scan_by_key(ctx, in, PSCAN_I32, in, out, N, PSCAN_I32, (pscan_op)9, 0, NULL));
  REFUSE(PSCAN_ERR_OVERLAP, ctx, pscan_unique(ctx, in, (int32_t *)in + 1, N - 1, PSCAN_I32, &count));
}

/* Typed buffers must be aligned to their element size (the kernels access them as C arrays);
   custom operators take any address. */
static void test_alignment(void) {
  static int64_t wide[N + 2];
  char *in_bytes = (char *)in, *out_bytes = (char *)out;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_inclusive_scan(ctx, in_bytes + 1, out, N - 1, PSCAN_I32, PSCAN_SUM));
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_inclusive_scan(ctx, in, out_bytes + 2, N - 1, PSCAN_I32, PSCAN_SUM));
  pscan_scan_args a = {.in = in, .in_type = PSCAN_I32, .out = (char *)wide + 4,
                       .out_type = PSCAN_I64, .n = N, .op = PSCAN_SUM};
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx, pscan_scan(ctx, &a));
  int32_t value = 0;
  REFUSE(PSCAN_ERR_INVALID_ARGUMENT, ctx,
         pscan_select_if(ctx, in_bytes + 1, out, N - 1, PSCAN_I32, PSCAN_LT, &value, &count));
  /* u8 has no alignment to respect; a custom operator neither. */
  poison_outputs();
  CHECK_STATUS(pscan_inclusive_scan(ctx, in_bytes + 1, out_bytes + 1, 7, PSCAN_U8, PSCAN_SUM),
               PSCAN_OK);
  CHECK_STATUS(pscan_scan_custom(ctx, in_bytes + 1, out_bytes + 1, N - 1, 4, combine_i32, NULL, 0,
                                 NULL),
               PSCAN_OK);
}

int main(void) {
  uint64_t seed = test_init("test_errors");
  test_rng rng = {seed};
  for (size_t i = 0; i < N; i++)
    in[i] = (int32_t)test_below(&rng, 2001) - 1000;
  /* Several threads and small partitions, so that "still works" exercises the parallel path. */
  ctx = test_ctx(3);
  test_set(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_DECOUPLED_LOOKBACK);
  test_set(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, 64);

  test_create();
  test_params();
  test_scan_arguments();
  test_reduce_arguments();
  test_overflow();
  test_overlap();
  test_empty();
  test_compaction();
  test_alignment();

  pscan_destroy(ctx);
  return test_finish();
}
