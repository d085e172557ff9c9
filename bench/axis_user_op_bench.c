/* The benchmark of scans along an axis with a user operator on the GPU (cuda/jit/jit_axis.c):
 * pscan_scan_axis with a user f32 sum and a user affine f32 map (8-byte elements) beside the
 * built-in f32 sum along the same axis and a cudaMemcpy (device to device) of the same bytes, all
 * in one run, CUDA events, medians of --reps runs after a warm-up (which also compiles the
 * operators' axis program).
 *
 *   pscan_axis_user_op_bench [--reps R] [--quick]
 *
 * One line per shape, axis and operator: ms, GB/s (bytes read + written) and % of the copy of
 * the same bytes. */
#include "pscan.h"

#include <cuda_runtime.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape_case {
  int64_t shape[2];
  int axis;
  int reverse; /* printed as the shape with "rev" in front */
} shape_case;

static const shape_case shapes[] = {
    {{16384, 16384}, 0, 0}, {{16384, 16384}, 1, 0}, {{1048576, 64}, 0, 0},
    {{1048576, 64}, 1, 0},  {{64, 4194304}, 1, 0},
    /* reversed: lines back to back and one line, read on mirrored tiles */
    {{1048576, 64}, 1, 1},  {{64, 4194304}, 1, 1},  {{1, 268435456}, 1, 1},
};

#define CK(expr)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

typedef struct run {
  pscan_ctx *ctx;
  pscan_axis_args args; /* or a copy when copy_bytes */
  size_t copy_bytes;
} run;

static pscan_status run_once(const run *r) {
  if (r->copy_bytes)
    return cudaMemcpyAsync(r->args.out, r->args.in, r->copy_bytes, cudaMemcpyDeviceToDevice, 0) ==
                   cudaSuccess
               ? PSCAN_OK
               : PSCAN_ERR_DEVICE;
  return pscan_scan_axis(r->ctx, &r->args);
}

/* Median ms of reps runs after two warm-ups; negative on a failure (printed). */
static float time_ms(const run *r, int reps) {
  for (int w = 0; w < 2; w++)
    if (run_once(r) != PSCAN_OK) {
      fprintf(stderr, "  failed: %s\n", pscan_last_error(r->ctx));
      return -1;
    }
  CK(cudaDeviceSynchronize());
  float *t = calloc((size_t)reps, sizeof *t);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(a, 0));
    pscan_status s = run_once(r);
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    if (s != PSCAN_OK) {
      fprintf(stderr, "  failed: %s\n", pscan_last_error(r->ctx));
      free(t);
      return -1;
    }
    CK(cudaEventElapsedTime(&t[i], a, b));
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_float);
  float m = t[reps / 2];
  free(t);
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return m;
}

static pscan_user_op *make_op(pscan_ctx *ctx, const char *src, const char *type, const char *name,
                              size_t size) {
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = type, .name = name,
                     .elem_size = size};
  pscan_user_op *op = NULL;
  if (pscan_op_create(ctx, &d, &op) != PSCAN_OK) {
    fprintf(stderr, "pscan_op_create %s: %s\n", name, pscan_last_error(ctx));
    exit(1);
  }
  return op;
}

static void line(const char *shape, int axis, const char *what, size_t bytes, float ms,
                 float copy_ms) {
  if (ms < 0) {
    printf("%-16s axis %d  %-22s failed\n", shape, axis, what);
    return;
  }
  printf("%-16s axis %d  %-22s %9.3f ms %8.1f GB/s %6.1f%% of copy\n", shape, axis, what, ms,
         2.0 * (double)bytes / (ms * 1e6), 100.0 * copy_ms / ms);
}

int main(int argc, char **argv) {
  int reps = 21;
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick"))
      quick = true;
    else {
      fprintf(stderr, "usage: %s [--reps R] [--quick]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1)
    reps = 1;
  pscan_ctx *ctx = NULL;
  if (pscan_create(&ctx, PSCAN_BACKEND_CUDA) != PSCAN_OK) {
    printf("SKIP: no usable CUDA device (%s)\n", pscan_last_error(NULL));
    return 77;
  }
  pscan_user_op *sum = make_op(ctx, "float add(float a, float b) { return a + b; }\n", "float",
                               "add", 4);
  pscan_user_op *aff = make_op(
      ctx,
      "typedef struct { float a, b; } affine;\n"
      "affine compose(affine x, affine y) { affine r; r.a = x.a * y.a; r.b = y.a * x.b + y.b;\n"
      "  return r; }\n",
      "affine", "compose", 8);
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("pscan_axis_user_op_bench on %s, medians of %d runs\n", prop.name, reps);
  int nshapes = quick ? 2 : (int)(sizeof shapes / sizeof *shapes);
  for (int k = 0; k < nshapes; k++) {
    const shape_case *c = &shapes[k];
    int64_t sh[2] = {c->shape[0], c->shape[1]};
    if (quick)
      sh[0] /= 16;
    size_t n = (size_t)(sh[0] * sh[1]);
    char shape[48];
    snprintf(shape, sizeof shape, "%s(%lld,%lld)", c->reverse ? "rev" : "", (long long)sh[0],
             (long long)sh[1]);
    void *in = NULL, *out = NULL;
    CK(cudaMalloc(&in, n * 8));
    CK(cudaMalloc(&out, n * 8));
    CK(cudaMemset(in, 0, n * 8)); /* zeros: a = 0, b = 0 (no overflow, no denormals) */
    pscan_axis_args a = {.in = in, .in_type = PSCAN_F32, .out = out, .out_type = PSCAN_F32,
                         .ndim = 2, .shape = sh, .axis = c->axis, .op = PSCAN_SUM,
                         .reverse = c->reverse};
    run copy4 = {ctx, a, n * 4}, copy8 = {ctx, a, n * 8}, builtin = {ctx, a, 0};
    run user_sum = {ctx, a, 0}, user_aff = {ctx, a, 0};
    user_sum.args.user_op = sum;
    user_aff.args.user_op = aff;
    float c4 = time_ms(&copy4, reps), c8 = time_ms(&copy8, reps);
    line(shape, c->axis, "cudaMemcpy 4 B", n * 4, c4, c4);
    line(shape, c->axis, "built-in f32 sum", n * 4, time_ms(&builtin, reps), c4);
    line(shape, c->axis, "user f32 sum", n * 4, time_ms(&user_sum, reps), c4);
    line(shape, c->axis, "cudaMemcpy 8 B", n * 8, c8, c8);
    line(shape, c->axis, "user affine f32 (8 B)", n * 8, time_ms(&user_aff, reps), c8);
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
  pscan_op_destroy(sum);
  pscan_op_destroy(aff);
  pscan_destroy(ctx);
  return 0;
}
