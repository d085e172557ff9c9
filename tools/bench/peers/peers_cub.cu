// The benchmark's GPU peers (see peers_cub.h): cub::DeviceScan::InclusiveSum and
// thrust::inclusive_scan. This is bench code, the tool's one CUDA C++ translation unit, compiled
// only in a CUDA build; the library stays C11 and depends on neither.
#include "peers_cub.h"

#include "cub_temp.cuh"

#include "lists.h"

#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/system/system_error.h>

#include <cstdint>
#include <new>

namespace {

cub_temp temp; // CUB's temporary storage

template <class T> cudaError_t cub_scan(const T *in, T *out, size_t n, cudaStream_t s) {
  size_t bytes = 0;
  cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, (int64_t)n, s);
  if (e == cudaSuccess)
    e = temp.grow(bytes);
  if (e == cudaSuccess)
    e = cub::DeviceScan::InclusiveSum(temp.p, bytes, in, out, (int64_t)n, s);
  return e;
}

// Thrust reports failures by exceptions; they stop here.
template <class T> cudaError_t thrust_scan(const T *in, T *out, size_t n, cudaStream_t s) {
  try {
    thrust::inclusive_scan(thrust::cuda::par.on(s), in, in + n, out);
  } catch (const thrust::system_error &x) {
    return x.code().value() ? (cudaError_t)x.code().value() : cudaErrorUnknown;
  } catch (const std::bad_alloc &) {
    return cudaErrorMemoryAllocation;
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t scan(peer_gpu p, const void *in, void *out, size_t n, cudaStream_t s) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  return p == PEER_CUB ? cub_scan(i, o, n, s) : thrust_scan(i, o, n, s);
}

} // namespace

extern "C" int peer_gpu_scan(peer_gpu p, pscan_dtype t, const void *d_in, void *d_out, size_t n,
                             void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (t) {
#define X(E, name, ctype, kind) \
  case PSCAN_##E: return (int)scan<ctype>(p, d_in, d_out, n, s);
    PSCAN_TYPES(X)
#undef X
  }
  return (int)cudaErrorInvalidValue;
}

extern "C" void peer_gpu_release(void) {
  temp.release();
}
