// GPU benchmark: pscan's CUDA strategies against CUB, Thrust and a device-to-device copy, in
// one run, on the same buffers, timed the same way (CUDA events around a batch of back-to-back
// calls, after warm-up; the median over batches). C++ only because the peers are C++ libraries;
// pscan itself is called through its C API.
//
//   pscan_gpu_bench [--quick] [--types i32,f32,i64,f64] [--min-log 10] [--max-log 30]
//                   [--csv FILE] [--blocks] [--deterministic]
//   pscan_gpu_bench --compact [--quick] [--csv FILE]
//   pscan_gpu_bench --latency
//
// --compact: the compaction family against CUB instead of the scans (int32 data, 50% uniform
// random selection, runs of average length 500: the setup of Merrill & Garland's Figure 12), at
// n = 2^25 and 2^28, then select_if over selectivities 0..100% at 2^28. Bytes counted as in
// ../shared/anchors: select_if n*4 read + kept*4 written, partition_if 2n*4, select_flagged
// n*4 + n + kept*4, unique and run-length encoding n*4 read, reduce_by_key 2n*4 read,
// inclusive sum by key 3n*4; CUB DeviceReduce::Sum (n*4 read) is printed as the read-only ceiling.
//
// --latency: where a small call's time goes (n = 2^10 .. 2^16, i32 and f64): per call in
// back-to-back batches (what the scan rows report), the host's time to issue one call (the
// batch's wall time before it waits), and one call alone (event, call, event, wait), for pscan,
// CUB, cudaMemcpyAsync and an empty kernel; printed only.
//
// Bytes counted: n elements read + n written. GB/s = 1e9 bytes/s. "frac" = fraction of the
// copy's GB/s at the same n.
#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pscan.h"

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
#define PK(x)                                                                             \
  do {                                                                                    \
    pscan_status s_ = (x);                                                                \
    if (s_ != PSCAN_OK) {                                                                 \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, pscan_last_error(nullptr)); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

struct Opts {
  bool quick = false, blocks = false, deterministic = false, compact = false, latency = false;
  int min_log = 10, max_log = 30;
  std::vector<std::string> types{"i32", "f32", "i64", "f64"};
  std::vector<unsigned> runs; // --runs: the keys-only ops at these average run lengths (i32 keys)
  const char *csv = "gpu_bench.csv";
};

static double median(std::vector<double> v) {
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
static std::vector<Row> rows;

static void report(const std::string &impl, const std::string &algo, const std::string &block,
                   const std::string &type, size_t n, size_t elem, double sec, double copy_gbs) {
  double gbs = 2.0 * n * elem / sec / 1e9;
  double frac = copy_gbs > 0 ? gbs / copy_gbs : 1.0;
  rows.push_back({impl, algo, block, type, n, sec, gbs, frac});
  printf("%-8s %-20s %-12s %-4s 2^%-3d %10.2f us %8.1f GB/s %6.1f%%\n", impl.c_str(), algo.c_str(),
         block.c_str(), type.c_str(), (int)(0.5 + log2((double)n)), sec * 1e6, gbs, 100 * frac);
  fflush(stdout);
}

template <class T> static void fill(T *d, size_t n) {
  std::vector<T> h(std::min<size_t>(n, 1 << 20));
  for (size_t i = 0; i < h.size(); i++) h[i] = (T)((i * 2654435761u >> 7) % 7) - (T)3;
  for (size_t off = 0; off < n; off += h.size())
    CK(cudaMemcpy(d + off, h.data(), std::min(h.size(), n - off) * sizeof(T), cudaMemcpyHostToDevice));
}

static const char *algo_name(int a) {
  static const char *names[] = {"auto", "sequential", "decoupled-lookback", "chained",
                                "reduce-then-scan", "scan-then-propagate"};
  return names[a];
}
static const char *block_name(int b) {
  static const char *names[] = {"auto", "raking", "warp-scans", "kogge-stone", "brent-kung",
                                "sklansky", "hybrid"};
  return names[b];
}

template <class T>
static void bench_type(const Opts &o, pscan_ctx *ctx, const char *tname, pscan_dtype dt) {
  size_t max_n = (size_t)1 << o.max_log;
  size_t free_b, total_b;
  CK(cudaMemGetInfo(&free_b, &total_b));
  while (max_n > 1024 && 2 * max_n * sizeof(T) + (64u << 20) > free_b * 0.9) max_n >>= 1;
  T *in, *out;
  CK(cudaMalloc(&in, max_n * sizeof(T)));
  CK(cudaMalloc(&out, max_n * sizeof(T)));
  fill(in, max_n);
  int step = o.quick ? 4 : 2;
  for (int lg = o.min_log; (size_t)1 << lg <= max_n; lg += step) {
    size_t n = (size_t)1 << lg, bytes = 2 * n * sizeof(T);
    double copy = time_calls([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); }, bytes);
    double copy_gbs = bytes / copy / 1e9;
    report("memcpy", "d2d", "-", tname, n, sizeof(T), copy, copy_gbs);

    size_t temp_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, (int64_t)n));
    void *temp;
    CK(cudaMalloc(&temp, temp_bytes));
    double cub_t = time_calls([&] { CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, (int64_t)n)); }, bytes);
    report("cub", "DeviceScan", "-", tname, n, sizeof(T), cub_t, copy_gbs);
    CK(cudaFree(temp));
    double thr = time_calls([&] { thrust::inclusive_scan(thrust::device, in, in + n, out); }, bytes);
    report("thrust", "inclusive_scan", "-", tname, n, sizeof(T), thr, copy_gbs);

    const int algos[] = {PSCAN_ALGO_AUTO, PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED,
                         PSCAN_ALGO_REDUCE_THEN_SCAN, PSCAN_ALGO_SCAN_THEN_PROPAGATE};
    for (int a : algos) {
      if (o.quick && a == PSCAN_ALGO_CHAINED && n > ((size_t)1 << 26)) continue;
      PK(pscan_set_param(ctx, PSCAN_PARAM_ALGO, a));
      PK(pscan_set_param(ctx, PSCAN_PARAM_DETERMINISTIC, o.deterministic));
      double t = time_calls([&] { PK(pscan_inclusive_scan(ctx, in, out, n, dt, PSCAN_SUM)); }, bytes);
      report("pscan", algo_name(a), "auto", tname, n, sizeof(T), t, copy_gbs);
    }
    if (o.blocks && (lg == 20 || lg == 28)) {
      PK(pscan_set_param(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_DECOUPLED_LOOKBACK));
      for (int b = 1; b < PSCAN_BLOCK_ALGO_COUNT; b++) {
        PK(pscan_set_param(ctx, PSCAN_PARAM_BLOCK_ALGO, b));
        double t = time_calls([&] { PK(pscan_inclusive_scan(ctx, in, out, n, dt, PSCAN_SUM)); }, bytes);
        report("pscan", "decoupled-lookback", block_name(b), tname, n, sizeof(T), t, copy_gbs);
      }
      PK(pscan_set_param(ctx, PSCAN_PARAM_BLOCK_ALGO, PSCAN_BLOCK_AUTO));
    }
    if (o.deterministic || lg >= 26) {  // cost of deterministic mode at large n
      PK(pscan_set_param(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO));
      PK(pscan_set_param(ctx, PSCAN_PARAM_DETERMINISTIC, 1));
      double t = time_calls([&] { PK(pscan_inclusive_scan(ctx, in, out, n, dt, PSCAN_SUM)); }, bytes);
      report("pscan", "auto-deterministic", "auto", tname, n, sizeof(T), t, copy_gbs);
      PK(pscan_set_param(ctx, PSCAN_PARAM_DETERMINISTIC, 0));
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
}

static void *cub_temp(size_t bytes);

// ---- small calls: host issue time, back-to-back time, one call alone ----

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

// ---- the compaction family against CUB ----

struct LessThan {
  int v;
  __host__ __device__ bool operator()(int x) const { return x < v; }
};

// keys[i]: run ids, a new run where hash(i) % len == 0 (average run length len).
__global__ void run_heads(int *flags, size_t n, unsigned len) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(i >> 13) * 40503u;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    flags[i] = i == 0 || h % len == 0;
  }
}
// data[i]: uniform bits (sign: the coin of a 50% selection); small ints for float values.
__global__ void random_fill(int *data, float *vals, uint8_t *flags, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 747796405u + seed;
    h = ((h >> ((h >> 28) + 4)) ^ h) * 277803737u;
    h = (h >> 22) ^ h;
    data[i] = (int)h;
    vals[i] = (float)(h % 7);
    flags[i] = (h >> 7) & 1;
  }
}

__global__ void widen_values(double *d, const float *f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = f[i];
}

struct CompactBufs {
  size_t n;
  int *data, *keys, *out, *out2, *tmp_i;
  float *vals, *vout;
  double *dvals, *dvout; // the same values as 8-byte floats (by-key ops with 8-byte values)
  uint8_t *flags;
  uint64_t *counts;
  size_t *nsel;
  int64_t *cub_nsel;
};

template <class F>
static void compact_row(const char *impl, const char *op, size_t n, double bytes, double copy_gbs, F fn) {
  double sec = time_calls(fn, (size_t)bytes);
  double gbs = bytes / sec / 1e9;
  rows.push_back({impl, op, "-", "i32", n, sec, gbs, gbs / copy_gbs});
  printf("%-8s %-24s 2^%-3d %10.2f us %8.1f GB/s %6.1f%% of copy\n", impl, op,
         (int)(0.5 + log2((double)n)), sec * 1e6, gbs, 100 * gbs / copy_gbs);
  fflush(stdout);
}

// CUB's temporary storage for one call shape, grown as needed.
static void *cub_temp(size_t bytes) {
  static void *p;
  static size_t cap;
  if (bytes > cap) {
    if (p) CK(cudaFree(p));
    CK(cudaMalloc(&p, bytes));
    cap = bytes;
  }
  return p;
}

static void bench_compact_at(pscan_ctx *ctx, const CompactBufs &b, size_t n, bool sweep) {
  double copy = time_calls([&] { CK(cudaMemcpyAsync(b.out, b.data, n * 4, cudaMemcpyDeviceToDevice)); }, 2 * n * 4);
  double copy_gbs = 2.0 * n * 4 / copy / 1e9;
  printf("memcpy   d2d                      2^%-3d %10.2f us %8.1f GB/s\n", (int)(0.5 + log2((double)n)), copy * 1e6, copy_gbs);
  rows.push_back({"memcpy", "d2d", "-", "i32", n, copy, copy_gbs, 1.0});
  size_t tb = 0;
  // The read-only ceiling: unique, run-length encoding and reduce_by_key read n items and write
  // little, so a plain reduction (n*4 bytes read) bounds them better than the copy does.
  if (!sweep) {
    CK(cub::DeviceReduce::Sum(nullptr, tb, b.data, b.out2, (int64_t)n));
    compact_row("cub", "reduce_sum_read_ceiling", n, n * 4.0, copy_gbs, [&] {
      CK(cub::DeviceReduce::Sum(cub_temp(tb), tb, b.data, b.out2, (int64_t)n)); });
  }
  const int thresholds_all[] = {INT32_MIN, -2147483648 + 21474836, -1073741824, 0, 1073741824, 2147483647 - 21474836, INT32_MAX};
  const char *names_all[] = {"0%", "1%", "25%", "50%", "75%", "99%", "100%"};
  for (int k = sweep ? 0 : 3; k < (sweep ? 7 : 4); k++) {
    LessThan pred{thresholds_all[k]};
    int v = thresholds_all[k];
    // the kept fraction, for the bytes written
    double frac = k == 0 ? 0 : k == 6 ? 1 : k == 1 ? 0.01 : k == 2 ? 0.25 : k == 3 ? 0.5 : k == 4 ? 0.75 : 0.99;
    double bytes = n * 4 + frac * n * 4;
    std::string op = std::string("select_if_") + names_all[k];
    CK(cub::DeviceSelect::If(nullptr, tb, b.data, b.out, b.cub_nsel, (int64_t)n, pred));
    compact_row("cub", op.c_str(), n, bytes, copy_gbs, [&] {
      CK(cub::DeviceSelect::If(cub_temp(tb), tb, b.data, b.out, b.cub_nsel, (int64_t)n, pred)); });
    compact_row("pscan", op.c_str(), n, bytes, copy_gbs, [&] {
      PK(pscan_select_if(ctx, b.data, b.out, n, PSCAN_I32, PSCAN_LT, &v, b.nsel)); });
  }
  if (sweep) return;
  LessThan pred{0};
  int zero = 0;
  CK(cub::DevicePartition::If(nullptr, tb, b.data, b.out, b.cub_nsel, (int64_t)n, pred));
  compact_row("cub", "partition_if_50%", n, 2.0 * n * 4, copy_gbs, [&] {
    CK(cub::DevicePartition::If(cub_temp(tb), tb, b.data, b.out, b.cub_nsel, (int64_t)n, pred)); });
  compact_row("pscan", "partition_if_50%", n, 2.0 * n * 4, copy_gbs, [&] {
    PK(pscan_partition_if(ctx, b.data, b.out, n, PSCAN_I32, PSCAN_LT, &zero, b.nsel)); });
  CK(cub::DeviceSelect::Flagged(nullptr, tb, b.data, b.flags, b.out, b.cub_nsel, (int64_t)n));
  compact_row("cub", "select_flagged_50%", n, n * 4 + n + 0.5 * n * 4, copy_gbs, [&] {
    CK(cub::DeviceSelect::Flagged(cub_temp(tb), tb, b.data, b.flags, b.out, b.cub_nsel, (int64_t)n)); });
  compact_row("pscan", "select_flagged_50%", n, n * 4 + n + 0.5 * n * 4, copy_gbs, [&] {
    PK(pscan_select_flagged(ctx, b.data, b.flags, b.out, n, PSCAN_I32, b.nsel)); });
  CK(cub::DeviceSelect::Unique(nullptr, tb, b.keys, b.out, b.cub_nsel, (int64_t)n));
  compact_row("cub", "unique_run500", n, n * 4.0, copy_gbs, [&] {
    CK(cub::DeviceSelect::Unique(cub_temp(tb), tb, b.keys, b.out, b.cub_nsel, (int64_t)n)); });
  compact_row("pscan", "unique_run500", n, n * 4.0, copy_gbs, [&] {
    PK(pscan_unique(ctx, b.keys, b.out, n, PSCAN_I32, b.nsel)); });
  CK(cub::DeviceRunLengthEncode::Encode(nullptr, tb, b.keys, b.out, b.out2, b.cub_nsel, (int64_t)n));
  compact_row("cub", "run_length_encode_run500", n, n * 4.0, copy_gbs, [&] {
    CK(cub::DeviceRunLengthEncode::Encode(cub_temp(tb), tb, b.keys, b.out, b.out2, b.cub_nsel, (int64_t)n)); });
  compact_row("pscan", "run_length_encode_run500", n, n * 4.0, copy_gbs, [&] {
    PK(pscan_run_length_encode(ctx, b.keys, b.out, b.counts, n, PSCAN_I32, b.nsel)); });
  CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, b.keys, b.out, b.vals, b.vout, b.cub_nsel, cuda::std::plus<float>(), (int64_t)n));
  compact_row("cub", "reduce_by_key_run500", n, 2.0 * n * 4, copy_gbs, [&] {
    CK(cub::DeviceReduce::ReduceByKey(cub_temp(tb), tb, b.keys, b.out, b.vals, b.vout, b.cub_nsel, cuda::std::plus<float>(), (int64_t)n)); });
  compact_row("pscan", "reduce_by_key_run500", n, 2.0 * n * 4, copy_gbs, [&] {
    PK(pscan_reduce_by_key(ctx, b.keys, PSCAN_I32, b.vals, PSCAN_F32, b.out, b.vout, n, PSCAN_SUM, b.nsel)); });
  CK(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, b.keys, b.vals, b.vout, (int64_t)n));
  compact_row("cub", "inclusive_sum_by_key_run500", n, 3.0 * n * 4, copy_gbs, [&] {
    CK(cub::DeviceScan::InclusiveSumByKey(cub_temp(tb), tb, b.keys, b.vals, b.vout, (int64_t)n)); });
  compact_row("pscan", "inclusive_sum_by_key_run500", n, 3.0 * n * 4, copy_gbs, [&] {
    PK(pscan_scan_by_key(ctx, b.keys, PSCAN_I32, b.vals, b.vout, n, PSCAN_F32, PSCAN_SUM, 0, nullptr)); });
  // The same with 8-byte (f64) values: bytes are keys (4) + values (8) read, values written.
  CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, b.keys, b.out, b.dvals, b.dvout, b.cub_nsel, cuda::std::plus<double>(), (int64_t)n));
  compact_row("cub", "reduce_by_key_f64_run500", n, n * 12.0, copy_gbs, [&] {
    CK(cub::DeviceReduce::ReduceByKey(cub_temp(tb), tb, b.keys, b.out, b.dvals, b.dvout, b.cub_nsel, cuda::std::plus<double>(), (int64_t)n)); });
  compact_row("pscan", "reduce_by_key_f64_run500", n, n * 12.0, copy_gbs, [&] {
    PK(pscan_reduce_by_key(ctx, b.keys, PSCAN_I32, b.dvals, PSCAN_F64, b.out, b.dvout, n, PSCAN_SUM, b.nsel)); });
  CK(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, b.keys, b.dvals, b.dvout, (int64_t)n));
  compact_row("cub", "inclusive_sum_by_key_f64_run500", n, n * 20.0, copy_gbs, [&] {
    CK(cub::DeviceScan::InclusiveSumByKey(cub_temp(tb), tb, b.keys, b.dvals, b.dvout, (int64_t)n)); });
  compact_row("pscan", "inclusive_sum_by_key_f64_run500", n, n * 20.0, copy_gbs, [&] {
    PK(pscan_scan_by_key(ctx, b.keys, PSCAN_I32, b.dvals, b.dvout, n, PSCAN_F64, PSCAN_SUM, 0, nullptr)); });
}

// unique, run-length encoding and reduce_by_key (f32 values) at one average run length, beside
// CUB and the copy; bytes as in bench_compact_at (the reads, plus what each writes per run).
static void bench_runs_at(pscan_ctx *ctx, const CompactBufs &b, size_t n, unsigned len) {
  run_heads<<<1024, 256>>>(b.tmp_i, n, len);
  size_t tb = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, tb, b.tmp_i, b.keys, (int64_t)n));
  CK(cub::DeviceScan::InclusiveSum(cub_temp(tb), tb, b.tmp_i, b.keys, (int64_t)n));
  CK(cudaDeviceSynchronize());
  double copy = time_calls([&] { CK(cudaMemcpyAsync(b.out, b.data, n * 4, cudaMemcpyDeviceToDevice)); }, 2 * n * 4);
  double copy_gbs = 2.0 * n * 4 / copy / 1e9;
  double runs = (double)n / len;
  std::string sfx = "_run" + std::to_string(len);
  CK(cub::DeviceSelect::Unique(nullptr, tb, b.keys, b.out, b.cub_nsel, (int64_t)n));
  compact_row("cub", ("unique" + sfx).c_str(), n, n * 4.0 + runs * 4, copy_gbs, [&] {
    CK(cub::DeviceSelect::Unique(cub_temp(tb), tb, b.keys, b.out, b.cub_nsel, (int64_t)n)); });
  compact_row("pscan", ("unique" + sfx).c_str(), n, n * 4.0 + runs * 4, copy_gbs, [&] {
    PK(pscan_unique(ctx, b.keys, b.out, n, PSCAN_I32, b.nsel)); });
  CK(cub::DeviceRunLengthEncode::Encode(nullptr, tb, b.keys, b.out, b.out2, b.cub_nsel, (int64_t)n));
  compact_row("cub", ("run_length_encode" + sfx).c_str(), n, n * 4.0 + runs * 8, copy_gbs, [&] {
    CK(cub::DeviceRunLengthEncode::Encode(cub_temp(tb), tb, b.keys, b.out, b.out2, b.cub_nsel, (int64_t)n)); });
  compact_row("pscan", ("run_length_encode" + sfx).c_str(), n, n * 4.0 + runs * 12, copy_gbs, [&] {
    PK(pscan_run_length_encode(ctx, b.keys, b.out, b.counts, n, PSCAN_I32, b.nsel)); });
  CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, b.keys, b.out, b.vals, b.vout, b.cub_nsel, cuda::std::plus<float>(), (int64_t)n));
  compact_row("cub", ("reduce_by_key" + sfx).c_str(), n, n * 8.0 + runs * 8, copy_gbs, [&] {
    CK(cub::DeviceReduce::ReduceByKey(cub_temp(tb), tb, b.keys, b.out, b.vals, b.vout, b.cub_nsel, cuda::std::plus<float>(), (int64_t)n)); });
  compact_row("pscan", ("reduce_by_key" + sfx).c_str(), n, n * 8.0 + runs * 8, copy_gbs, [&] {
    PK(pscan_reduce_by_key(ctx, b.keys, PSCAN_I32, b.vals, PSCAN_F32, b.out, b.vout, n, PSCAN_SUM, b.nsel)); });
}

static void bench_compact(const Opts &o, pscan_ctx *ctx) {
  size_t max_n = (size_t)1 << (o.quick ? 25 : 28);
  CompactBufs b{};
  b.n = max_n;
  CK(cudaMalloc(&b.data, max_n * 4));
  CK(cudaMalloc(&b.keys, max_n * 4));
  CK(cudaMalloc(&b.out, max_n * 4));
  CK(cudaMalloc(&b.out2, max_n * 4));
  CK(cudaMalloc(&b.tmp_i, max_n * 4));
  CK(cudaMalloc(&b.vals, max_n * 4));
  CK(cudaMalloc(&b.vout, max_n * 4));
  CK(cudaMalloc(&b.dvals, max_n * 8));
  CK(cudaMalloc(&b.dvout, max_n * 8));
  CK(cudaMalloc(&b.flags, max_n));
  CK(cudaMalloc(&b.counts, max_n * 8));
  CK(cudaMalloc(&b.nsel, sizeof(size_t)));
  CK(cudaMalloc(&b.cub_nsel, sizeof(int64_t)));
  random_fill<<<1024, 256>>>(b.data, b.vals, b.flags, max_n, 12345u);
  run_heads<<<1024, 256>>>(b.tmp_i, max_n, 500);
  widen_values<<<1024, 256>>>(b.dvals, b.vals, max_n);
  size_t tb = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, tb, b.tmp_i, b.keys, (int64_t)max_n));
  CK(cub::DeviceScan::InclusiveSum(cub_temp(tb), tb, b.tmp_i, b.keys, (int64_t)max_n));
  CK(cudaDeviceSynchronize());
  PK(pscan_set_param(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO));
  if (!o.runs.empty()) {
    for (unsigned len : o.runs)
      bench_runs_at(ctx, b, max_n, len);
  }
  for (size_t n : {(size_t)1 << 25, max_n}) {
    if (!o.runs.empty()) break;
    bench_compact_at(ctx, b, n, false);
    if (n == max_n) break;
  }
  if (o.runs.empty())
    bench_compact_at(ctx, b, max_n, true);
  for (void *p : {(void *)b.data, (void *)b.keys, (void *)b.out, (void *)b.out2, (void *)b.tmp_i,
                  (void *)b.vals, (void *)b.vout, (void *)b.dvals, (void *)b.dvout, (void *)b.flags, (void *)b.counts, (void *)b.nsel,
                  (void *)b.cub_nsel})
    CK(cudaFree(p));
}

int main(int argc, char **argv) {
  Opts o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--quick") o.quick = true;
    else if (a == "--compact") o.compact = true;
    else if (a == "--latency") o.latency = true;
    else if (a == "--blocks") o.blocks = true;
    else if (a == "--deterministic") o.deterministic = true;
    else if (a == "--min-log" && i + 1 < argc) o.min_log = atoi(argv[++i]);
    else if (a == "--max-log" && i + 1 < argc) o.max_log = atoi(argv[++i]);
    else if (a == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else if (a == "--runs" && i + 1 < argc) {
      o.compact = true;
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) o.runs.push_back((unsigned)atoi(t));
    }
    else if (a == "--types" && i + 1 < argc) {
      o.types.clear();
      std::string s = argv[++i];
      for (size_t p = 0; p <= s.size();) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        o.types.push_back(s.substr(p, q - p));
        p = q + 1;
      }
    } else {
      fprintf(stderr, "pscan_gpu_bench: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  pscan_ctx *ctx;
  PK(pscan_create(&ctx, PSCAN_BACKEND_CUDA));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, pscan %s\n", prop.name, prop.multiProcessorCount, pscan_version_string());
  if (o.latency) {
    latency_type<int32_t>(ctx, "i32", PSCAN_I32);
    latency_type<double>(ctx, "f64", PSCAN_F64);
    pscan_destroy(ctx);
    return 0;
  }
  if (o.compact) bench_compact(o, ctx);
  for (auto &t : o.types) {
    if (o.compact) break;
    if (t == "i32") bench_type<int32_t>(o, ctx, "i32", PSCAN_I32);
    else if (t == "f32") bench_type<float>(o, ctx, "f32", PSCAN_F32);
    else if (t == "i64") bench_type<int64_t>(o, ctx, "i64", PSCAN_I64);
    else if (t == "f64") bench_type<double>(o, ctx, "f64", PSCAN_F64);
    else { fprintf(stderr, "pscan_gpu_bench: unknown type '%s'\n", t.c_str()); return 2; }
  }
  FILE *f = fopen(o.csv, "w");
  if (!f) { perror(o.csv); return 1; }
  fprintf(f, "impl,algo,block,type,n,seconds_median,gbs,frac_copy,device\n");
  for (auto &r : rows)
    fprintf(f, "%s,%s,%s,%s,%zu,%.9g,%.4f,%.4f,%s\n", r.impl.c_str(), r.algo.c_str(), r.block.c_str(),
            r.type.c_str(), r.n, r.sec, r.gbs, r.frac, prop.name);
  fclose(f);
  pscan_destroy(ctx);
  return 0;
}
