/* The run-time backend of a differential suite (backend.h). Compiled with TEST_HAVE_CUDA (and
 * linked with the CUDA runtime) in CUDA builds; without it the CUDA backend is always a skip. */
#include "backend.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TEST_HAVE_CUDA
#include "cuda_ok.h"
#endif

static const test_backend backends[] = {
    {"cpu", PSCAN_BACKEND_CPU, false},
    {"cuda", PSCAN_BACKEND_CUDA, true},
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

const test_backend *test_backend_pick(int argc, char **argv) {
  const char *name = getenv("PSCAN_TEST_BACKEND");
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strncmp(argv[i], "--backend=", 10) == 0)
      name = argv[i] + 10;
    else {
      printf("%s: unknown argument '%s' (usage: %s [--backend cpu|cuda])\n", argv[0], argv[i],
             argv[0]);
      exit(2);
    }
  }
  if (!name || !*name)
    name = "cpu";
  for (int k = 0; k < NBACKENDS; k++)
    if (strcmp(name, backends[k].name) == 0)
      return &backends[k];
  printf("unknown backend '%s' (known: cpu, cuda)\n", name);
  exit(2);
}

bool test_backend_built(const test_backend *b) {
#ifdef TEST_HAVE_CUDA
  (void)b;
  return true;
#else
  return !b->device;
#endif
}

pscan_ctx *test_backend_ctx(const test_backend *b, int threads) {
  pscan_ctx *ctx = NULL;
  if (!test_backend_built(b)) {
    printf("SKIP: this test program was built without the %s backend\n", b->name);
    exit(77);
  }
  pscan_status s = pscan_create(&ctx, b->kind);
  if (s == PSCAN_ERR_UNSUPPORTED || s == PSCAN_ERR_NO_DEVICE) {
    printf("SKIP: no %s backend here: %s\n", b->name, pscan_last_error(NULL));
    exit(77);
  }
  if (s != PSCAN_OK || !ctx) {
    printf("pscan_create(%s) failed: %s: %s\n", b->name, pscan_status_name(s),
           pscan_last_error(NULL));
    exit(2);
  }
  if (b->kind == PSCAN_BACKEND_CPU)
    test_set(ctx, PSCAN_PARAM_THREADS, threads);
  return ctx;
}

void *test_backend_alloc(const test_backend *b, size_t bytes) {
  if (!b->device)
    return test_malloc(bytes);
#ifdef TEST_HAVE_CUDA
  void *p = NULL;
  CUDA_OK(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
#else
  printf("test_backend_alloc: no %s memory in this build\n", b->name);
  exit(2);
#endif
}

void test_backend_free(const test_backend *b, void *p) {
  if (!p)
    return;
  if (!b->device) {
    free(p);
    return;
  }
#ifdef TEST_HAVE_CUDA
  CUDA_OK(cudaFree(p));
#endif
}

/* Copies bytes into the library's memory (to_lib) or out of it, and waits. */
static void copy(const test_backend *b, void *dst, const void *src, size_t bytes, bool to_lib) {
  if (!bytes)
    return;
  if (!b->device) {
    memcpy(dst, src, bytes);
    return;
  }
#ifdef TEST_HAVE_CUDA
  CUDA_OK(cudaMemcpy(dst, src, bytes, to_lib ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
#else
  (void)to_lib;
#endif
}

void test_backend_put(const test_backend *b, void *dst, const void *host, size_t bytes) {
  copy(b, dst, host, bytes, true);
}

void test_backend_get(const test_backend *b, void *host, const void *src, size_t bytes) {
  copy(b, host, src, bytes, false);
}

void test_backend_fill(const test_backend *b, void *dst, int byte, size_t bytes) {
  if (!b->device)
    memset(dst, byte, bytes);
#ifdef TEST_HAVE_CUDA
  else if (bytes)
    CUDA_OK(cudaMemset(dst, byte, bytes));
#endif
}

void test_backend_sync(const test_backend *b) {
#ifdef TEST_HAVE_CUDA
  if (b->device)
    CUDA_OK(cudaDeviceSynchronize());
#else
  (void)b;
#endif
}
