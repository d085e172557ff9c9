/* CUDA_OK(expr): the GPU tests' check of a CUDA runtime call; a failure is a broken test setup,
 * not a library result, so it prints the call and exits. */
#ifndef TEST_CUDA_OK_H
#define TEST_CUDA_OK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

static inline void cuda_ok(cudaError_t e, const char *file, int line, const char *expr) {
  if (e == cudaSuccess)
    return;
  fprintf(stderr, "%s:%d: %s: %s\n", file, line, expr, cudaGetErrorString(e));
  exit(1);
}
#define CUDA_OK(expr) cuda_ok((expr), __FILE__, __LINE__, #expr)

#endif /* TEST_CUDA_OK_H */
