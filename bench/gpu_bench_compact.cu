// GPU benchmark, --compact and --runs: the compaction family against CUB (int32 data, 50% uniform
// random selection, runs of average length 500), at n = 2^25 and 2^28, then select_if over
// selectivities 0..100% at 2^28; --runs: the keys-only ops at given average run lengths. How bytes
// are counted: gpu_bench.cu.
#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "gpu_bench.cuh"

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
  if (only_op && !strstr(op, only_op)) return;
  double sec = time_calls(fn, (size_t)bytes);
  double gbs = bytes / sec / 1e9;
  rows.push_back({impl, op, "-", "i32", n, sec, gbs, gbs / copy_gbs});
  printf("%-8s %-24s 2^%-3d %10.2f us %8.1f GB/s %6.1f%% of copy\n", impl, op,
         (int)(0.5 + log2((double)n)), sec * 1e6, gbs, 100 * gbs / copy_gbs);
  fflush(stdout);
}

// CUB's temporary storage for one call shape, grown as needed.
void *cub_temp(size_t bytes) {
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

// unique, run-length encoding and reduce_by_key (f32 and f64 values) at one average run length, beside
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
  CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, b.keys, b.out, b.dvals, b.dvout, b.cub_nsel, cuda::std::plus<double>(), (int64_t)n));
  compact_row("cub", ("reduce_by_key_f64" + sfx).c_str(), n, n * 12.0 + runs * 12, copy_gbs, [&] {
    CK(cub::DeviceReduce::ReduceByKey(cub_temp(tb), tb, b.keys, b.out, b.dvals, b.dvout, b.cub_nsel, cuda::std::plus<double>(), (int64_t)n)); });
  compact_row("pscan", ("reduce_by_key_f64" + sfx).c_str(), n, n * 12.0 + runs * 12, copy_gbs, [&] {
    PK(pscan_reduce_by_key(ctx, b.keys, PSCAN_I32, b.dvals, PSCAN_F64, b.out, b.dvout, n, PSCAN_SUM, b.nsel)); });
}

void bench_compact(const Opts &o, pscan_ctx *ctx) {
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
