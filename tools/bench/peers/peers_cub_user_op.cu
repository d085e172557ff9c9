// CUB DeviceScan::InclusiveScan with the user operators of `pscan bench --gpu --user-op` as C++
// functors, and InclusiveScanByKey / ReduceByKey with the affine ones by int32 keys (see
// peers_cub_user_op.h). Bench code, compiled only in a CUDA build.
#include "peers_cub_user_op.h"

#include "cub_temp.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>

namespace {

cub_temp temp;

struct aff32 { float a, b; };
struct aff64 { double a, b; };
struct mat2 { double m[4]; };

struct AffineF32 {
  __device__ aff32 operator()(const aff32 &x, const aff32 &y) const {
    return {x.a * y.a, y.a * x.b + y.b};
  }
};
struct AffineF64 {
  __device__ aff64 operator()(const aff64 &x, const aff64 &y) const {
    return {x.a * y.a, y.a * x.b + y.b};
  }
};
struct Mat2F64 {
  __device__ mat2 operator()(const mat2 &x, const mat2 &y) const {
    return {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
             x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};
struct AddI32 {
  __device__ int operator()(const int &x, const int &y) const { return x + y; }
};

// Sizes the temporary storage, grows it, then enqueues the scan (64-bit item count).
template <class T, class F> cudaError_t scan(const void *in, void *out, size_t n, F f) {
  size_t need = 0;
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  cudaError_t e = cub::DeviceScan::InclusiveScan(nullptr, need, i, o, f, (int64_t)n);
  if (e == cudaSuccess)
    e = temp.grow(need);
  if (e == cudaSuccess)
    e = cub::DeviceScan::InclusiveScan(temp.p, need, i, o, f, (int64_t)n);
  return e;
}

// The same for the scan by key.
template <class T, class F>
cudaError_t scan_by_key(const int32_t *keys, const void *in, void *out, size_t n, F f) {
  size_t need = 0;
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  cudaError_t e = cub::DeviceScan::InclusiveScanByKey(nullptr, need, keys, i, o, f, (int64_t)n);
  if (e == cudaSuccess)
    e = temp.grow(need);
  if (e == cudaSuccess)
    e = cub::DeviceScan::InclusiveScanByKey(temp.p, need, keys, i, o, f, (int64_t)n);
  return e;
}

// The same for the reduction by key.
template <class T, class F>
cudaError_t reduce_by_key(const int32_t *keys_in, int32_t *keys_out, const void *in, void *out,
                          int64_t *num_runs, size_t n, F f) {
  size_t need = 0;
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  cudaError_t e = cub::DeviceReduce::ReduceByKey(nullptr, need, keys_in, keys_out, i, o, num_runs,
                                                 f, (int64_t)n);
  if (e == cudaSuccess)
    e = temp.grow(need);
  if (e == cudaSuccess)
    e = cub::DeviceReduce::ReduceByKey(temp.p, need, keys_in, keys_out, i, o, num_runs, f,
                                       (int64_t)n);
  return e;
}

} // namespace

extern "C" int peer_user_op_scan(peer_user_op op, const void *d_in, void *d_out, size_t n) {
  switch (op) {
  case PEER_UOP_AFFINE_F32: return scan<aff32>(d_in, d_out, n, AffineF32{});
  case PEER_UOP_AFFINE_F64: return scan<aff64>(d_in, d_out, n, AffineF64{});
  case PEER_UOP_MAT2_F64: return scan<mat2>(d_in, d_out, n, Mat2F64{});
  case PEER_UOP_SUM_I32: return scan<int>(d_in, d_out, n, AddI32{});
  default: return (int)cudaErrorInvalidValue;
  }
}

extern "C" int peer_user_op_scan_by_key(peer_user_op op, const int32_t *d_keys, const void *d_in,
                                        void *d_out, size_t n) {
  switch (op) {
  case PEER_UOP_AFFINE_F32: return scan_by_key<aff32>(d_keys, d_in, d_out, n, AffineF32{});
  case PEER_UOP_AFFINE_F64: return scan_by_key<aff64>(d_keys, d_in, d_out, n, AffineF64{});
  default: return (int)cudaErrorInvalidValue;
  }
}

extern "C" int peer_user_op_reduce_by_key(peer_user_op op, const int32_t *d_keys_in,
                                          int32_t *d_keys_out, const void *d_vals_in,
                                          void *d_vals_out, int64_t *d_num_runs, size_t n) {
  switch (op) {
  case PEER_UOP_AFFINE_F32:
    return reduce_by_key<aff32>(d_keys_in, d_keys_out, d_vals_in, d_vals_out, d_num_runs, n,
                                AffineF32{});
  case PEER_UOP_AFFINE_F64:
    return reduce_by_key<aff64>(d_keys_in, d_keys_out, d_vals_in, d_vals_out, d_num_runs, n,
                                AffineF64{});
  default: return (int)cudaErrorInvalidValue;
  }
}

extern "C" void peer_user_op_release(void) { temp.release(); }
