/* Built instead of peers_cxx.cpp when CMake finds no C++ compiler: no C++ peer is available. */
#include "peers_cxx.h"

bool peer_cxx_available(peer_cxx p) {
  (void)p;
  return false;
}

void peer_cxx_scan(peer_cxx p, int threads, pscan_dtype t, const void *in, void *out, size_t n) {
  (void)p, (void)threads, (void)t, (void)in, (void)out, (void)n;
}
