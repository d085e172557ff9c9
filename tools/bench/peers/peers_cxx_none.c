/* Built instead of peers_cxx.cpp when CMake finds no C++ compiler: no C++ peer is available. */
#include "peers_cxx.h"

bool peer_cxx_available(peer_cxx p) {
  (void)p;
  return false;
}

void peer_cxx_scan(peer_cxx p, int threads, pscan_dtype t, const void *in, void *out, size_t n) {
  (void)p, (void)threads, (void)t, (void)in, (void)out, (void)n;
}

size_t peer_cxx_select(peer_cxx p, int threads, const int32_t *in, int32_t *out, size_t n,
                       int32_t threshold) {
  (void)p, (void)threads, (void)in, (void)out, (void)n, (void)threshold;
  return 0;
}

size_t peer_cxx_partition(peer_cxx p, int threads, const int32_t *in, int32_t *kept,
                          int32_t *rejected, size_t n, int32_t threshold) {
  (void)p, (void)threads, (void)in, (void)kept, (void)rejected, (void)n, (void)threshold;
  return 0;
}
