// What the parts of the GPU benchmark share (gpu_bench.cu: the scans, the options and the CSV;
// gpu_bench_latency.cu: small calls; gpu_bench_compact.cu: the compaction family): the checks,
// the options, the timing of a batch of calls, the rows of the CSV and the input fill.
#ifndef PSCAN_GPU_BENCH_CUH
#define PSCAN_GPU_BENCH_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pscan.h"

// A failed CUDA call (CK) or pscan call (PK) ends the benchmark with where and why.
[[noreturn]] static inline void die(const char *file, int line, const char *call, const char *why) {
  fprintf(stderr, "%s:%d %s: %s\n", file, line, call, why);
  exit(1);
}
#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) die(__FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
  } while (0)
#define PK(x)                                                                         \
  do {                                                                                \
    if ((x) != PSCAN_OK) die(__FILE__, __LINE__, #x, pscan_last_error(nullptr));      \
  } while (0)

struct Opts {
  bool quick = false, blocks = false, deterministic = false, compact = false, latency = false;
  int min_log = 10, max_log = 30;
  std::vector<std::string> types{"i32", "f32", "i64", "f64"};
  std::vector<unsigned> runs; // --runs: the keys-only ops at these average run lengths (i32 keys)
  const char *csv = "gpu_bench.csv";
};

static inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds per call of fn(), over batches of back-to-back calls.
template <class F> static double time_calls(F fn, size_t bytes) {
  for (int i = 0; i < 3; i++) fn();  // warm-up
  CK(cudaDeviceSynchronize());
  int per_batch = bytes < (8u << 20) ? 50 : bytes < (256u << 20) ? 10 : 2;
  int batches = bytes < (256u << 20) ? 15 : 7;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int k = 0; k < batches; k++) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < per_batch; i++) fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e-3 / per_batch);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

struct Row {
  std::string impl, algo, block, type;
  size_t n;
  double sec, gbs, frac;
};
extern std::vector<Row> rows; // every measurement, for the CSV (gpu_bench.cu writes it)
// --only: the compaction rows whose op name contains this text (e.g. for one kernel under ncu)
extern const char *only_op;

template <class T> static void fill(T *d, size_t n) {
  std::vector<T> h(std::min<size_t>(n, 1 << 20));
  for (size_t i = 0; i < h.size(); i++) h[i] = (T)((i * 2654435761u >> 7) % 7) - (T)3;
  for (size_t off = 0; off < n; off += h.size())
    CK(cudaMemcpy(d + off, h.data(), std::min(h.size(), n - off) * sizeof(T), cudaMemcpyHostToDevice));
}

// CUB's temporary storage for one call shape, grown as needed (gpu_bench_compact.cu).
void *cub_temp(size_t bytes);
// The parts' entries: where a small call's time goes (printed only); the compaction family.
void bench_latency(pscan_ctx *ctx);
void bench_compact(const Opts &o, pscan_ctx *ctx);

#endif
