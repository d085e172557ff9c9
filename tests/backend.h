/* The backend a differential suite runs on, picked at run time: `--backend cpu|cuda` on the
 * command line, else PSCAN_TEST_BACKEND, else cpu. One suite (test_scan.c) thus serves every
 * backend; ctest registers it once per backend the build has.
 *
 * Memory: the suite keeps its inputs, the oracle's results and what came back in host memory, and
 * places the buffers the library sees through these calls (plain host memory on the CPU, device
 * memory on CUDA). A backend this build or machine cannot run makes test_backend_ctx print SKIP
 * and exit 77, which ctest reports as skipped, never as passed. */
#ifndef PSCAN_TEST_BACKEND_H
#define PSCAN_TEST_BACKEND_H

#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct test_backend {
  const char *name;   /* "cpu", "cuda" */
  pscan_backend kind; /* what pscan_create is given */
  bool device;        /* the library's buffers are device memory, not host memory */
} test_backend;

/* Reads --backend NAME (or --backend=NAME) from argv, else PSCAN_TEST_BACKEND, else "cpu". An
   unknown name prints the known ones and exits 2. */
const test_backend *test_backend_pick(int argc, char **argv);
/* A context of b (threads: PSCAN_PARAM_THREADS on the CPU; ignored elsewhere), or SKIP and exit
   77 when b is not usable here (a build without it, no device). Other failures exit 2. */
pscan_ctx *test_backend_ctx(const test_backend *b, int threads);
/* True when this test program can place buffers for b (CUDA: built with the CUDA runtime). */
bool test_backend_built(const test_backend *b);

/* Buffers the library sees. alloc exits on failure; put/get copy to/from host memory and wait. */
void *test_backend_alloc(const test_backend *b, size_t bytes);
void test_backend_free(const test_backend *b, void *p);
void test_backend_put(const test_backend *b, void *dst, const void *host, size_t bytes);
void test_backend_get(const test_backend *b, void *host, const void *src, size_t bytes);
void test_backend_fill(const test_backend *b, void *dst, int byte, size_t bytes);
/* Waits for everything the device runs (nothing to wait for on the CPU). */
void test_backend_sync(const test_backend *b);

#endif /* PSCAN_TEST_BACKEND_H */
