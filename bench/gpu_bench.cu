// GPU benchmark: pscan's CUDA strategies against CUB, Thrust and a device-to-device copy, in
// one run, on the same buffers, timed the same way (CUDA events around a batch of back-to-back
// calls, after warm-up; the median over batches). C++ only because the peers are C++ libraries;
// pscan itself is called through its C API.
//
//   pscan_gpu_bench [--quick] [--types i32,f32,i64,f64] [--min-log 10] [--max-log 30]
//                   [--csv FILE] [--blocks] [--deterministic]
//   pscan_gpu_bench --compact [--quick] [--csv FILE] [--runs L1,L2,...] [--only TEXT]
//   pscan_gpu_bench --latency
//
// --compact: the compaction family against CUB instead of the scans (int32 data, 50% uniform
// random selection, runs of average length 500: the setup of Merrill & Garland's Figure 12), at
// n = 2^25 and 2^28, then select_if over selectivities 0..100% at 2^28. Bytes counted as in
// ../shared/anchors: select_if n*4 read + kept*4 written, partition_if 2n*4, select_flagged
// n*4 + n + kept*4, unique and run-length encoding n*4 read, reduce_by_key 2n*4 read,
// inclusive sum by key 3n*4; CUB DeviceReduce::Sum (n*4 read) is printed as the read-only ceiling.
// --runs: unique, run-length encoding and reduce_by_key at these average run lengths (2^28).
// --only TEXT: only the compaction rows whose op name contains TEXT (one kernel under ncu).
//
// --latency: where a small call's time goes (n = 2^10 .. 2^16, i32 and f64): per call in
// back-to-back batches (what the scan rows report), the host's time to issue one call (the
// batch's wall time before it waits), and one call alone (event, call, event, wait), for pscan,
// CUB, cudaMemcpyAsync and an empty kernel; printed only.
//
// Bytes counted: n elements read + n written. GB/s = 1e9 bytes/s. "frac" = fraction of the
// copy's GB/s at the same n.
#include <cub/device/device_scan.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cmath>
#include <cstring>

#include "gpu_bench.cuh"

std::vector<Row> rows;
const char *only_op;

static void report(const std::string &impl, const std::string &algo, const std::string &block,
                   const std::string &type, size_t n, size_t elem, double sec, double copy_gbs) {
  double gbs = 2.0 * n * elem / sec / 1e9;
  double frac = copy_gbs > 0 ? gbs / copy_gbs : 1.0;
  rows.push_back({impl, algo, block, type, n, sec, gbs, frac});
  printf("%-8s %-20s %-12s %-4s 2^%-3d %10.2f us %8.1f GB/s %6.1f%%\n", impl.c_str(), algo.c_str(),
         block.c_str(), type.c_str(), (int)(0.5 + log2((double)n)), sec * 1e6, gbs, 100 * frac);
  fflush(stdout);
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
    else if (a == "--only" && i + 1 < argc) only_op = argv[++i];
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
    bench_latency(ctx);
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
