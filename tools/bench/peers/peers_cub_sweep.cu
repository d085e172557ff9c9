// The GPU sweep's device side (see peers_cub_sweep.h): fill kernels, a checksum kernel, and CUB's
// compaction calls. Bench code, compiled only in a CUDA build; the library depends on none of it.
#include "peers_cub_sweep.h"

#include "cub_temp.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cstdint>

namespace {

const int kBlocks = 2048, kThreads = 256;

cub_temp temp; // CUB's temporary storage
unsigned long long *d_sum = nullptr;

__device__ void put_int(void *d, size_t es, size_t i, unsigned long long v) {
  switch (es) {
  case 1: static_cast<uint8_t *>(d)[i] = (uint8_t)v; break;
  case 2: static_cast<uint16_t *>(d)[i] = (uint16_t)v; break;
  case 4: static_cast<uint32_t *>(d)[i] = (uint32_t)v; break;
  default: static_cast<uint64_t *>(d)[i] = (uint64_t)v; break;
  }
}

// Runs: each thread takes a chunk, finds the head its chunk starts in (walking back), and walks
// forward: the same keys as the CPU's fill.
__global__ void fill_keys(void *d, size_t es, size_t n, size_t L, size_t chunk) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (size_t lo = t * chunk; lo < n; lo += (size_t)gridDim.x * blockDim.x * chunk) {
    size_t hi = lo + chunk < n ? lo + chunk : n, start = sweep_run_start(lo, L);
    for (size_t i = lo; i < hi; i++) {
      if (sweep_head(i, L))
        start = i;
      put_int(d, es, i, sweep_key(start));
    }
  }
}

__global__ void fill_rest(int what, void *d, size_t es, bool is_float, size_t n, int pct) {
  unsigned thr = sweep_threshold(pct < 0 ? 0 : pct);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    switch (what) {
    case SWEEP_FILL_ITEMS: put_int(d, es, i, sweep_item(i)); break;
    case SWEEP_FILL_FLAGS: static_cast<uint8_t *>(d)[i] = sweep_item(i) < thr; break;
    case SWEEP_FILL_VALS:
      if (es == 8)
        static_cast<double *>(d)[i] = sweep_value(i);
      else
        static_cast<float *>(d)[i] = (float)sweep_value(i);
      break;
    default: { // the scans' input
      int v = sweep_value(i);
      if (is_float && es == 8)
        static_cast<double *>(d)[i] = v;
      else if (is_float)
        static_cast<float *>(d)[i] = (float)v;
      else
        put_int(d, es, i, (unsigned long long)(long long)v);
    }
    }
  }
}

__global__ void checksum(const uint64_t *w, size_t words, const uint8_t *tail, size_t ntail,
                         unsigned long long *sum) {
  unsigned long long h = 0;
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (size_t i = t; i < words; i += (size_t)gridDim.x * blockDim.x)
    h += sweep_mix(w[i] ^ (i * 0x9E3779B97F4A7C15ull));
  if (t == 0)
    for (size_t i = 0; i < ntail; i++)
      h += sweep_mix(((unsigned long long)tail[i] << 8) ^ i);
  atomicAdd(sum, h);
}

template <class T> struct Less {
  T v;
  __host__ __device__ bool operator()(const T &x) const { return x < v; }
};

// Two passes of a CUB call: the size of its temporary storage, then the call.
#define CUB_TWICE(call_with_temp)                                                                 \
  do {                                                                                            \
    size_t bytes = 0;                                                                             \
    void *tmp = nullptr;                                                                          \
    cudaError_t e = call_with_temp;                                                               \
    if (e == cudaSuccess)                                                                         \
      e = temp.grow(bytes);                                                                       \
    tmp = temp.p;                                                                                 \
    return e == cudaSuccess ? (call_with_temp) : e;                                               \
  } while (0)

template <class K, class V> cudaError_t cub_call(const sweep_point *p, const sweep_gpu_bufs *b) {
  const K *in = static_cast<const K *>(b->in);
  K *out = static_cast<K *>(b->out);
  const V *vals = static_cast<const V *>(b->vals);
  V *vout = static_cast<V *>(b->vout);
  int *counts = static_cast<int *>(b->counts);
  int64_t n = (int64_t)p->n;
  Less<K> pred{(K)sweep_threshold(p->sel_pct < 0 ? 0 : p->sel_pct)};
  switch (p->op) {
  case SWEEP_SELECT_IF: CUB_TWICE(cub::DeviceSelect::If(tmp, bytes, in, out, b->num, n, pred));
  case SWEEP_SELECT_FLAGGED:
    CUB_TWICE(cub::DeviceSelect::Flagged(tmp, bytes, in, b->flags, out, b->num, n));
  case SWEEP_PARTITION_IF:
    CUB_TWICE(cub::DevicePartition::If(tmp, bytes, in, out, b->num, n, pred));
  case SWEEP_UNIQUE: CUB_TWICE(cub::DeviceSelect::Unique(tmp, bytes, in, out, b->num, n));
  case SWEEP_RUN_LENGTH_ENCODE:
    CUB_TWICE(cub::DeviceRunLengthEncode::Encode(tmp, bytes, in, out, counts, b->num, n));
  case SWEEP_REDUCE_BY_KEY:
    CUB_TWICE(cub::DeviceReduce::ReduceByKey(tmp, bytes, in, out, vals, vout, b->num,
                                             cuda::std::plus<V>(), n));
  case SWEEP_SCAN_BY_KEY:
    CUB_TWICE(cub::DeviceScan::InclusiveSumByKey(tmp, bytes, in, vals, vout, n));
  default: return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" int sweep_gpu_fill(sweep_fill what, const sweep_point *p, void *d) {
  size_t es = pscan_dtype_size(what == SWEEP_FILL_VALS ? p->val : p->key);
  if (what == SWEEP_FILL_KEYS) {
    size_t chunk = 4096;
    size_t threads = (p->n + chunk - 1) / chunk;
    unsigned blocks = (unsigned)((threads + kThreads - 1) / kThreads);
    fill_keys<<<blocks ? blocks : 1, kThreads>>>(d, es, p->n, p->run_length, chunk);
  } else {
    pscan_dtype t = what == SWEEP_FILL_VALS ? p->val : p->key;
    bool f = t == PSCAN_F32 || t == PSCAN_F64;
    fill_rest<<<kBlocks, kThreads>>>((int)what, d, what == SWEEP_FILL_FLAGS ? 1 : es, f, p->n,
                                     p->sel_pct);
  }
  return (int)cudaGetLastError();
}

extern "C" int sweep_gpu_checksum(const void *d, size_t bytes, unsigned long long *sum) {
  cudaError_t e = d_sum ? cudaSuccess : cudaMalloc(&d_sum, sizeof *d_sum);
  if (e == cudaSuccess)
    e = cudaMemset(d_sum, 0, sizeof *d_sum);
  if (e != cudaSuccess)
    return (int)e;
  size_t words = bytes / 8;
  checksum<<<kBlocks, kThreads>>>(static_cast<const uint64_t *>(d), words,
                                  static_cast<const uint8_t *>(d) + words * 8, bytes % 8, d_sum);
  if ((e = cudaGetLastError()) != cudaSuccess)
    return (int)e;
  return (int)cudaMemcpy(sum, d_sum, sizeof *sum, cudaMemcpyDeviceToHost);
}

extern "C" int sweep_cub_call(const sweep_point *p, const sweep_gpu_bufs *b) {
  if (pscan_dtype_size(p->key) == 8)
    return (int)cub_call<int64_t, double>(p, b);
  return (int)cub_call<int32_t, float>(p, b);
}

extern "C" void sweep_cub_release(void) {
  temp.release();
  cudaFree(d_sum);
  d_sum = nullptr;
}
