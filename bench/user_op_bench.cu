// User operators on the GPU (cuda/jit) against their ceiling and peers, in one run, medians:
//   scans of affine maps f32 (8 B) and f64 (16 B), 2x2 f64 matrix products (32 B) and a user
//   i32 SUM, each beside a device copy
//   of the same bytes (cudaMemcpyAsync), CUB DeviceScan::InclusiveScan with the same operator as
//   a C++ functor, and (i32) pscan's built-in SUM; n = 2^16 .. 2^28.
//   Then the costs around a call: a cold op_create (NVRTC compile, fresh cache directory), a
//   disk-cache hit (a new context), and the host time a scan_op call adds to a small scan
//   beside the built-in scan's.
// Usage: pscan_user_op_bench [--max-log2 N] [--csv FILE]. C++ only because CUB is; pscan is
// driven through the CUDA backend's hooks (internal.h), as pscan_op_create / pscan_scan_op do.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" {
#include "internal.h"
#include "cuda/jit/jit.h"
#include "op/cache.h"
}

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define PK(ctx, x)                                                                         \
  do {                                                                                     \
    pscan_status s_ = (x);                                                                 \
    if (s_ != PSCAN_OK) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s %s\n", __FILE__, __LINE__, #x,                    \
                   pscan_status_name(s_), pscan_last_error(ctx));                          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

struct aff32f { float a, b; };
struct aff64f { double a, b; };
struct AffineF32 {
  __device__ aff32f operator()(const aff32f &x, const aff32f &y) const {
    return {x.a * y.a, y.a * x.b + y.b};
  }
};
struct AffineF64 {
  __device__ aff64f operator()(const aff64f &x, const aff64f &y) const {
    return {x.a * y.a, y.a * x.b + y.b};
  }
};
struct mat2f64 { double m[4]; };
struct Mat2F64 {
  __device__ mat2f64 operator()(const mat2f64 &x, const mat2f64 &y) const {
    return {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
             x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};
struct AddI32 {
  __device__ int operator()(const int &x, const int &y) const { return x + y; }
};

static const char src_aff32[] =
    "typedef struct { float a, b; } affine;\n"
    "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n";
static const char src_aff64[] =
    "typedef struct { double a, b; } affine64;\n"
    "affine64 compose(affine64 x, affine64 y) { affine64 r = { x.a * y.a, y.a * x.b + y.b }; "
    "return r; }\n";
static const char src_mat2[] =
    "typedef struct { double m[4]; } mat2;\n"
    "mat2 mul(mat2 x, mat2 y) { mat2 r = {{x.m[0] * y.m[0] + x.m[1] * y.m[2], "
    "x.m[0] * y.m[1] + x.m[1] * y.m[3], x.m[2] * y.m[0] + x.m[3] * y.m[2], "
    "x.m[2] * y.m[1] + x.m[3] * y.m[3]}}; return r; }\n";
static const char src_add[] = "int add(int a, int b) { return a + b; }\n";

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per call: batches of calls between events, the median batch.
template <class F> static double time_calls(F f, size_t bytes) {
  f();
  CK(cudaDeviceSynchronize());
  int reps = (int)std::max<size_t>(3, std::min<size_t>(200, (size_t)4e9 / std::max<size_t>(bytes, 1)));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int k = 0; k < 11; k++) {
    CK(cudaEventRecord(a, 0));
    for (int i = 0; i < reps; i++)
      f();
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e-3 / reps);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(t);
}

static pscan_op_desc desc_of(const char *src, const char *type, const char *name, size_t size) {
  pscan_op_desc d;
  std::memset(&d, 0, sizeof d);
  d.kind = PSCAN_KIND_COMBINE;
  d.source = src;
  d.type_name = type;
  d.name = name;
  d.elem_size = size;
  return d;
}

static void *create_op(pscan_ctx *ctx, const pscan_op_desc *d) {
  const void *parts[] = {d->source, d->type_name, d->name, &d->elem_size};
  size_t sizes[] = {strlen(d->source), strlen(d->type_name), strlen(d->name), sizeof d->elem_size};
  char key[33];
  pscan__hash_hex(parts, sizes, 4, key);
  void *impl = nullptr;
  PK(ctx, ctx->backend->op_create(ctx, d, key, &impl));
  return impl;
}

static FILE *csv;
static void row(const char *op, size_t n, size_t elem, const char *impl, double s, double copy_s) {
  double gbs = 2.0 * n * elem / s / 1e9;
  std::printf("%-10s 2^%-2d %-14s %9.1f us %8.1f GB/s %6.1f%% of copy\n", op,
              (int)std::log2((double)n), impl, s * 1e6, gbs, 100.0 * copy_s / s);
  if (csv)
    std::fprintf(csv, "%s,%zu,%zu,%s,%.9f,%.2f,%.4f\n", op, n, elem, impl, s, gbs, copy_s / s);
}

template <class T, class F>
static double cub_scan(const T *in, T *out, size_t n, F f, void *&temp, size_t &temp_cap) {
  size_t need = 0;
  CK(cub::DeviceScan::InclusiveScan(nullptr, need, in, out, f, (int64_t)n));
  if (need > temp_cap) {
    if (temp)
      CK(cudaFree(temp));
    CK(cudaMalloc(&temp, need));
    temp_cap = need;
  }
  return time_calls([&] { CK(cub::DeviceScan::InclusiveScan(temp, need, in, out, f, (int64_t)n)); },
                    2 * n * sizeof(T));
}

static void bench_sizes(pscan_ctx *ctx, int max_log2) {
  pscan_op_desc d32 = desc_of(src_aff32, "affine", "compose", 8);
  pscan_op_desc d64 = desc_of(src_aff64, "affine64", "compose", 16);
  pscan_op_desc dadd = desc_of(src_add, "int", "add", 4);
  pscan_op_desc dmat = desc_of(src_mat2, "mat2", "mul", 32);
  void *op32 = create_op(ctx, &d32), *op64 = create_op(ctx, &d64), *opadd = create_op(ctx, &dadd);
  void *opmat = create_op(ctx, &dmat);
  size_t max_n = (size_t)1 << max_log2;
  char *in = nullptr, *out = nullptr;
  CK(cudaMalloc(&in, max_n * 32));
  CK(cudaMalloc(&out, max_n * 32));
  { // a = 1, b in [0, 1): values stay finite at every size
    std::vector<aff64f> h(1 << 20);
    for (size_t i = 0; i < h.size(); i++)
      h[i] = {1.0, (double)(i * 2654435761u % 1000) / 1000.0};
    for (size_t off = 0; off < max_n * 32; off += h.size() * 16)
      CK(cudaMemcpy(in + off, h.data(), std::min(h.size() * 16, max_n * 32 - off),
                    cudaMemcpyHostToDevice));
  }
  void *temp = nullptr;
  size_t temp_cap = 0;
  for (int lg = 16; lg <= max_log2; lg += 2) {
    size_t n = (size_t)1 << lg;
    // One operator at n: the device copy of its bytes, the user operator, CUB with a functor.
    auto rows = [&](const char *what, size_t esize, void *op, auto cub_call) {
      double copy = time_calls(
          [&] { CK(cudaMemcpyAsync(out, in, n * esize, cudaMemcpyDeviceToDevice, 0)); }, n * 2 * esize);
      row("copy", n, esize, "cudaMemcpy", copy, copy);
      row(what, n, esize, "pscan_user_op",
          time_calls([&] { PK(ctx, ctx->backend->scan_op(ctx, op, in, out, n, 0, nullptr)); }, n * 2 * esize),
          copy);
      row(what, n, esize, "cub_functor", cub_call(), copy);
      return copy;
    };
    rows("affine_f32", 8, op32,
         [&] { return cub_scan((const aff32f *)in, (aff32f *)out, n, AffineF32{}, temp, temp_cap); });
    rows("affine_f64", 16, op64,
         [&] { return cub_scan((const aff64f *)in, (aff64f *)out, n, AffineF64{}, temp, temp_cap); });
    rows("mat2_f64", 32, opmat,
         [&] { return cub_scan((const mat2f64 *)in, (mat2f64 *)out, n, Mat2F64{}, temp, temp_cap); });
    // i32 sum: also the built-in operator
    double copy4 = rows("sum_i32", 4, opadd, [&] {
      return cub_scan((const int *)in, (int *)out, n, AddI32{}, temp, temp_cap);
    });
    row("sum_i32", n, 4, "pscan_builtin",
        time_calls([&] { PK(ctx, pscan_inclusive_scan(ctx, in, out, n, PSCAN_I32, PSCAN_SUM)); }, n * 8),
        copy4);
  }
  ctx->backend->op_destroy(ctx, op32);
  ctx->backend->op_destroy(ctx, op64);
  ctx->backend->op_destroy(ctx, opadd);
  ctx->backend->op_destroy(ctx, opmat);
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (temp)
    CK(cudaFree(temp));
}

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// op_create cold (a fresh cache directory each time, so NVRTC compiles) and from the disk cache
// (a new context each time, the same directory).
static void bench_create() {
  const char *ops[][3] = {{src_aff32, "affine", "compose"}, {src_aff64, "affine64", "compose"},
                          {src_add, "int", "add"}};
  const size_t sizes[] = {8, 16, 4};
  for (int o = 0; o < 3; o++) {
    pscan_op_desc d = desc_of(ops[o][0], ops[o][1], ops[o][2], sizes[o]);
    std::vector<double> cold, hit;
    for (int k = 0; k < 5; k++) {
      char dir[] = "/tmp/pscan_bench_cache_XXXXXX";
      if (!mkdtemp(dir))
        std::exit(1);
      setenv("PSCAN_CACHE_DIR", dir, 1);
      for (int round = 0; round < 2; round++) {
        pscan_ctx *ctx = nullptr;
        PK(ctx, pscan_create(&ctx, PSCAN_BACKEND_CUDA));
        double t = now();
        void *op = create_op(ctx, &d);
        t = now() - t;
        (round == 0 ? cold : hit).push_back(t);
        ctx->backend->op_destroy(ctx, op);
        pscan_destroy(ctx);
      }
      std::string rm = std::string("rm -rf ") + dir;
      if (std::system(rm.c_str()) != 0)
        std::fprintf(stderr, "could not remove %s\n", dir);
    }
    unsetenv("PSCAN_CACHE_DIR");
    std::printf("op_create %-8s cold (NVRTC) median %.3f s (first %.3f s, with NVRTC's load); "
                "disk-cache hit median %.4f s\n", ops[o][1], median(cold), cold[0], median(hit));
    if (csv) {
      std::fprintf(csv, "op_create_cold,0,%zu,%s,%.6f,,\n", sizes[o], ops[o][1], median(cold));
      std::fprintf(csv, "op_create_cache_hit,0,%zu,%s,%.6f,,\n", sizes[o], ops[o][1], median(hit));
    }
  }
}

// Host time per call of a small scan (2^10 i32, no synchronisation between calls): the user
// operator's call against the built-in one.
static void bench_call_overhead(pscan_ctx *ctx) {
  pscan_op_desc d = desc_of(src_add, "int", "add", 4);
  void *op = create_op(ctx, &d);
  int *in = nullptr, *out = nullptr;
  CK(cudaMalloc(&in, 4096));
  CK(cudaMalloc(&out, 4096));
  CK(cudaMemset(in, 0, 4096));
  std::vector<double> user, builtin;
  for (int k = 0; k < 7; k++) {
    double t = now();
    for (int i = 0; i < 2000; i++)
      PK(ctx, ctx->backend->scan_op(ctx, op, in, out, 1024, 0, nullptr));
    user.push_back((now() - t) / 2000);
    CK(cudaDeviceSynchronize());
    t = now();
    for (int i = 0; i < 2000; i++)
      PK(ctx, pscan_inclusive_scan(ctx, in, out, 1024, PSCAN_I32, PSCAN_SUM));
    builtin.push_back((now() - t) / 2000);
    CK(cudaDeviceSynchronize());
  }
  std::printf("host time per call, 2^10 i32: user operator %.2f us, built-in %.2f us\n",
              median(user) * 1e6, median(builtin) * 1e6);
  if (csv) {
    std::fprintf(csv, "call_host_time,1024,4,pscan_user_op,%.9f,,\n", median(user));
    std::fprintf(csv, "call_host_time,1024,4,pscan_builtin,%.9f,,\n", median(builtin));
  }
  ctx->backend->op_destroy(ctx, op);
  CK(cudaFree(in));
  CK(cudaFree(out));
}

int main(int argc, char **argv) {
  int max_log2 = 28;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--max-log2") && i + 1 < argc)
      max_log2 = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc)
      csv = std::fopen(argv[++i], "w");
  }
  if (csv)
    std::fprintf(csv, "op,n,elem_bytes,impl,seconds,GBps,fraction_of_copy\n");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  bench_create();
  pscan_ctx *ctx = nullptr;
  PK(ctx, pscan_create(&ctx, PSCAN_BACKEND_CUDA));
  bench_call_overhead(ctx);
  bench_sizes(ctx, max_log2);
  pscan_destroy(ctx);
  if (csv)
    std::fclose(csv);
  return 0;
}
