/* The shared harness (test.h). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

unsigned long test_passed, test_failed;

/* Past this many failures the messages stop (the counts go on): one bug should not bury the log. */
enum { MAX_MESSAGES = 40 };

uint64_t test_init(const char *program) {
  uint64_t seed;
  const char *env = getenv("PSCAN_TEST_SEED");
  if (env && *env) {
    seed = strtoull(env, NULL, 0);
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
  }
  /* Line-buffered, so that the seed is on record even if the program dies. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("%s: seed %llu (rerun with PSCAN_TEST_SEED=%llu)%s; pscan %s\n", program,
         (unsigned long long)seed, (unsigned long long)seed,
         test_quick() ? ", quick (PSCAN_TEST_QUICK=1)" : "", pscan_version_string());
  return seed;
}

bool test_quick(void) {
  const char *q = getenv("PSCAN_TEST_QUICK");
  return q && strcmp(q, "1") == 0;
}

bool test_part(const char *part) {
  const char *list = getenv("PSCAN_TEST_PARTS");
  if (!list || !*list)
    return true;
  size_t len = strlen(part);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == len && strncmp(p, part, len) == 0)
      return true;
    p += n + (end != NULL);
  }
  return false;
}

int test_finish(void) {
  if (test_failed > MAX_MESSAGES)
    printf("(%lu more failure messages suppressed)\n", test_failed - MAX_MESSAGES);
  printf("%lu passed, %lu failed\n", test_passed, test_failed);
  /* A program that checked nothing tested nothing: that is a failure, not a pass. (A test with
     nothing to run here, such as a GPU test without a GPU, exits 77 before test_finish: a skip.) */
  if (test_passed + test_failed == 0)
    printf("FAIL: no check ran\n");
  fflush(stdout);
  return test_failed || test_passed == 0 ? 1 : 0;
}

bool test_check(bool ok, const char *file, int line, const char *fmt, ...) {
  if (ok) {
    test_passed++;
    return true;
  }
  if (++test_failed <= MAX_MESSAGES) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
  }
  return false;
}

bool test_check_status(pscan_status got, pscan_status want, const char *file, int line,
                       const char *expr) {
  return test_check(got == want, file, line, "%s gave %s, expected %s", expr,
                    pscan_status_name(got), pscan_status_name(want));
}

uint64_t test_rand(test_rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

uint64_t test_below(test_rng *r, uint64_t bound) {
  /* Rejection keeps it exactly uniform; the loop almost never repeats. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do
    x = test_rand(r);
  while (x >= limit);
  return x % bound;
}

double test_uniform(test_rng *r) { return (double)(test_rand(r) >> 11) * 0x1p-53; }

test_rng test_fork(uint64_t seed, uint64_t stream) {
  test_rng r = {seed ^ (stream * 0xD1B54A32D192ED03u)};
  test_rand(&r);
  return r;
}

void test_poison(void *p, size_t bytes) {
  if (bytes)
    memset(p, TEST_POISON_BYTE, bytes);
}

bool test_is_poisoned(const void *p, size_t bytes) {
  const unsigned char *c = p;
  for (size_t i = 0; i < bytes; i++)
    if (c[i] != TEST_POISON_BYTE)
      return false;
  return true;
}

bool test_one_line(const char *msg) { return msg && msg[0] && !strchr(msg, '\n'); }

/* 64-byte aligned, as the buffers of a program that cares for speed are, so that the kernels'
   aligned paths (streaming stores) run on them; odd partition sizes still give unaligned
   partitions. */
void *test_malloc(size_t bytes) {
  void *p = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
  if (!p) {
    printf("out of memory for %zu bytes\n", bytes);
    exit(2);
  }
  return p;
}

double test_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

pscan_ctx *test_ctx(int threads) {
  pscan_ctx *ctx = NULL;
  pscan_status s = pscan_create(&ctx, PSCAN_BACKEND_CPU);
  if (s != PSCAN_OK || !ctx) {
    printf("pscan_create(CPU) failed: %s: %s\n", pscan_status_name(s), pscan_last_error(NULL));
    exit(2);
  }
  test_set(ctx, PSCAN_PARAM_THREADS, threads);
  return ctx;
}

void test_set(pscan_ctx *ctx, pscan_param p, int64_t value) {
  pscan_status s = pscan_set_param(ctx, p, value);
  if (s != PSCAN_OK)
    CHECK(false, "pscan_set_param(%d, %lld) gave %s: %s", (int)p, (long long)value,
          pscan_status_name(s), pscan_last_error(ctx));
}
