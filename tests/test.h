/* The small harness shared by pscan's tests: counted checks, the seed, a PRNG, poisoned buffers.
 *
 * Every test program calls test_init() first (it prints the seed: PSCAN_TEST_SEED if set, else one
 * taken from the clock) and ends with `return test_finish();`, which prints "N passed, N failed"
 * and gives the exit status. The counters are plain globals: check from the main thread only. */
#ifndef PSCAN_TEST_H
#define PSCAN_TEST_H

#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TEST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TEST_PRINTF(f, a)
#endif

extern unsigned long test_passed, test_failed;

/* Prints the program name and the seed; returns the seed. */
uint64_t test_init(const char *program);
/* True when PSCAN_TEST_QUICK=1: a reduced run for slow (sanitizer) builds. */
bool test_quick(void);
/* True when PSCAN_TEST_PARTS is unset or empty, or names `part` in its comma-separated list: lets
   a slow tool (compute-sanitizer racecheck) run one part of a long program. */
bool test_part(const char *part);
/* Prints "N passed, N failed"; returns the exit status: non-zero on any failure, and when no
   check ran at all (a test with nothing to run exits 77, ctest's skip, instead of calling this). */
int test_finish(void);

/* Counts one check; on failure prints file:line and the message (the first few only). */
bool test_check(bool ok, const char *file, int line, const char *fmt, ...) TEST_PRINTF(4, 5);
bool test_check_status(pscan_status got, pscan_status want, const char *file, int line,
                       const char *expr);

#define CHECK(cond, ...) test_check((cond), __FILE__, __LINE__, __VA_ARGS__)
/* CHECK_STATUS(pscan_call(...), PSCAN_OK): prints both status names on a mismatch. */
#define CHECK_STATUS(expr, want) test_check_status((expr), (want), __FILE__, __LINE__, #expr)

/* splitmix64 (Steele, Lea & Flood): small, fast, and every seed is a good one. */
typedef struct test_rng {
  uint64_t state;
} test_rng;
uint64_t test_rand(test_rng *r);
uint64_t test_below(test_rng *r, uint64_t bound); /* uniform in [0, bound), bound > 0 */
double test_uniform(test_rng *r);                 /* uniform in [0, 1) */
/* An independent stream for a sub-test, so that adding draws elsewhere does not shift it. */
test_rng test_fork(uint64_t seed, uint64_t stream);

/* Poisoned memory: a fixed byte pattern that no correct result is likely to reproduce. */
#define TEST_POISON_BYTE 0xA5
void test_poison(void *p, size_t bytes);
bool test_is_poisoned(const void *p, size_t bytes);
/* Whether msg is one non-empty line (what pscan_last_error must be after a failure). */
bool test_one_line(const char *msg);

/* malloc that reports and exits on failure (a test cannot go on without its buffers). */
void *test_malloc(size_t bytes);
/* Seconds from a monotonic clock. */
double test_seconds(void);

/* A CPU context with THREADS = threads (0: all cores), or exit with a message. */
pscan_ctx *test_ctx(int threads);
/* Sets a parameter that must be accepted, counting a failure otherwise. */
void test_set(pscan_ctx *ctx, pscan_param p, int64_t value);

#endif /* PSCAN_TEST_H */
