/* CUDA_OK(expr): the GPU tests' check of a CUDA runtime call; a failure is a broken test setup,
 * not a library result, so it prints the call and exits. */
#ifndef TEST_CUDA_OK_H
#define TEST_CUDA_OK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_OK(expr)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (expr);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#endif /* TEST_CUDA_OK_H */
