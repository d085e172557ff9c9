// The benchmark's C++ peers (see peers_cxx.h): std::inclusive_scan sequential and with
// std::execution::par, tbb::parallel_scan, and OpenMP's `scan` directive. This is bench code, the
// one C++ translation unit of the tool; the library stays C11 and depends on none of these.
// PEERS_HAVE_TBB and PEERS_HAVE_OPENMP come from tools/CMakeLists.txt.
#include "peers_cxx.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#ifdef PEERS_HAVE_TBB
#include <execution>
#include <map>
#include <memory>
#include <mutex>
#include <tbb/blocked_range.h>
#include <tbb/parallel_scan.h>
#include <tbb/task_arena.h>
#endif

namespace {

#ifdef PEERS_HAVE_TBB
// One arena per thread count, kept: TBB may see fewer CPUs than the process may use (on some
// virtual machines it sees one), and an explicit arena gives it exactly the count asked for.
tbb::task_arena &arena(int threads) {
  static std::mutex lock;
  static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
  std::lock_guard<std::mutex> guard(lock);
  auto &a = arenas[threads];
  if (!a)
    a = std::make_unique<tbb::task_arena>(threads);
  return *a;
}

template <class T> void tbb_scan(int threads, const T *in, T *out, size_t n) {
  arena(threads).execute([&] {
    tbb::parallel_scan(
        tbb::blocked_range<size_t>(0, n), T(0),
        [&](const tbb::blocked_range<size_t> &r, T sum, bool is_final) {
          for (size_t i = r.begin(); i < r.end(); i++) {
            sum = T(sum + in[i]);
            if (is_final)
              out[i] = sum;
          }
          return sum;
        },
        [](T a, T b) { return T(a + b); });
  });
}

template <class T> void std_par_scan(int threads, const T *in, T *out, size_t n) {
  arena(threads).execute([&] { std::inclusive_scan(std::execution::par, in, in + n, out); });
}
#endif

#ifdef PEERS_HAVE_OPENMP
// GCC 12 warns about a temporary of its own inscan lowering ("<anonymous> may be used
// uninitialized"); the code below initialises everything it declares.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <class T> void omp_scan(int threads, const T *in, T *out, size_t n) {
  T sum = T(0);
#pragma omp parallel for reduction(inscan, + : sum) num_threads(threads)
  for (size_t i = 0; i < n; i++) {
    sum = T(sum + in[i]);
#pragma omp scan inclusive(sum)
    out[i] = sum;
  }
}
#pragma GCC diagnostic pop
#endif

template <class T> void scan(peer_cxx p, int threads, const void *in_, void *out_, size_t n) {
  const T *in = static_cast<const T *>(in_);
  T *out = static_cast<T *>(out_);
  (void)threads;
  switch (p) {
  case PEER_STD_SEQ: std::inclusive_scan(in, in + n, out); break;
#ifdef PEERS_HAVE_TBB
  case PEER_STD_PAR: std_par_scan(threads, in, out, n); break;
  case PEER_TBB: tbb_scan(threads, in, out, n); break;
#endif
#ifdef PEERS_HAVE_OPENMP
  case PEER_OMP: omp_scan(threads, in, out, n); break;
#endif
  default: break;
  }
}

// The compaction peers: f(std::execution::par) in the thread count's arena for PEER_STD_PAR,
// else f() (no policy: the sequential algorithm).
template <class F> size_t with_policy(peer_cxx p, int threads, F f) {
#ifdef PEERS_HAVE_TBB
  if (p == PEER_STD_PAR) {
    size_t count = 0;
    arena(threads).execute([&] { count = f(std::execution::par); });
    return count;
  }
#endif
  (void)p, (void)threads;
  return f();
}

} // namespace

extern "C" bool peer_cxx_available(peer_cxx p) {
  switch (p) {
  case PEER_STD_SEQ: return true;
#ifdef PEERS_HAVE_TBB
  case PEER_STD_PAR:
  case PEER_TBB: return true;
#endif
#ifdef PEERS_HAVE_OPENMP
  case PEER_OMP: return true;
#endif
  default: return false;
  }
}

extern "C" void peer_cxx_scan(peer_cxx p, int threads, pscan_dtype t, const void *in, void *out,
                              size_t n) {
  switch (t) {
  case PSCAN_I8: scan<int8_t>(p, threads, in, out, n); break;
  case PSCAN_I16: scan<int16_t>(p, threads, in, out, n); break;
  case PSCAN_I32: scan<int32_t>(p, threads, in, out, n); break;
  case PSCAN_I64: scan<int64_t>(p, threads, in, out, n); break;
  case PSCAN_U8: scan<uint8_t>(p, threads, in, out, n); break;
  case PSCAN_U16: scan<uint16_t>(p, threads, in, out, n); break;
  case PSCAN_U32: scan<uint32_t>(p, threads, in, out, n); break;
  case PSCAN_U64: scan<uint64_t>(p, threads, in, out, n); break;
  case PSCAN_F32: scan<float>(p, threads, in, out, n); break;
  case PSCAN_F64: scan<double>(p, threads, in, out, n); break;
  default: break;
  }
}

extern "C" size_t peer_cxx_select(peer_cxx p, int threads, const int32_t *in, int32_t *out,
                                  size_t n, int32_t threshold) {
  auto keep = [threshold](int32_t x) { return x < threshold; };
  return with_policy(p, threads, [&](auto... policy) {
    return (size_t)(std::copy_if(policy..., in, in + n, out, keep) - out);
  });
}

extern "C" size_t peer_cxx_partition(peer_cxx p, int threads, const int32_t *in, int32_t *kept,
                                     int32_t *rejected, size_t n, int32_t threshold) {
  auto keep = [threshold](int32_t x) { return x < threshold; };
  return with_policy(p, threads, [&](auto... policy) {
    return (size_t)(std::partition_copy(policy..., in, in + n, kept, rejected, keep).first - kept);
  });
}
