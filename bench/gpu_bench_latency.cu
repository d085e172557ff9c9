// GPU benchmark, --latency: where a small call's time goes (n = 2^10 .. 2^16, i32 and f64): per
// call in back-to-back batches, the host's time to issue one call, and one call alone, for pscan,
// CUB, cudaMemcpyAsync and an empty kernel; printed only. (The usage: gpu_bench.cu.)
#include <cub/device/device_scan.cuh>

#include <chrono>

#include "gpu_bench.cuh"

__global__ void empty_kernel(pscan_ctx *unused) { (void)unused; }

struct Latency {
  double per_call, host_issue, alone;
};

template <class F> static Latency latency_of(F fn) {
  for (int i = 0; i < 20; i++) fn();
  CK(cudaDeviceSynchronize());
  const int per_batch = 200, batches = 15;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> back, host, alone;
  for (int k = 0; k < batches; k++) {
    CK(cudaEventRecord(a));
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < per_batch; i++) fn();
    auto t1 = std::chrono::steady_clock::now();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    back.push_back(ms * 1e-3 / per_batch);
    host.push_back(std::chrono::duration<double>(t1 - t0).count() / per_batch);
  }
  for (int k = 0; k < 101; k++) {
    CK(cudaEventRecord(a));
    fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    alone.push_back(ms * 1e-3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return {median(back), median(host), median(alone)};
}

static void latency_row(const char *what, const char *type, int lg, Latency l) {
  printf("%-10s %-4s 2^%-3d per call %6.2f us   host issue %6.2f us   alone %6.2f us\n", what, type,
         lg, l.per_call * 1e6, l.host_issue * 1e6, l.alone * 1e6);
  fflush(stdout);
}

template <class T> static void latency_type(pscan_ctx *ctx, const char *tname, pscan_dtype dt) {
  const size_t max_n = (size_t)1 << 16;
  T *in, *out;
  CK(cudaMalloc(&in, max_n * sizeof(T)));
  CK(cudaMalloc(&out, max_n * sizeof(T)));
  fill(in, max_n);
  PK(pscan_set_param(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO));
  for (int lg = 10; lg <= 16; lg += 2) {
    size_t n = (size_t)1 << lg, temp_bytes = 0;
    latency_row("empty", tname, lg, latency_of([&] { empty_kernel<<<1, 32>>>(ctx); }));
    latency_row("memcpy", tname, lg, latency_of([&] {
                  CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice));
                }));
    CK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, (int64_t)n));
    void *temp = cub_temp(temp_bytes);
    latency_row("cub", tname, lg, latency_of([&] {
                  CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, (int64_t)n));
                }));
    latency_row("pscan", tname, lg, latency_of([&] {
                  PK(pscan_inclusive_scan(ctx, in, out, n, dt, PSCAN_SUM));
                }));
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
}

void bench_latency(pscan_ctx *ctx) {
  latency_type<int32_t>(ctx, "i32", PSCAN_I32);
  latency_type<double>(ctx, "f64", PSCAN_F64);
}
