/* The benchmark's optional C++ peers (peers_cxx.cpp): what a C++ user would pick instead of
 * the library. Each is compiled in only when CMake found what it needs (a C++17 compiler; TBB
 * for tbb::parallel_scan and for std::execution::par, which libstdc++ runs on TBB; OpenMP for
 * the `scan` directive); without a C++ compiler peers_cxx_none.c answers "not available". All
 * compute the inclusive SUM on the same input as the plain loop (small integers: no overflow). */
#ifndef PSCAN_TOOL_PEERS_CXX_H
#define PSCAN_TOOL_PEERS_CXX_H

#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum peer_cxx {
  PEER_STD_SEQ, /* std::inclusive_scan, no policy (one thread) */
  PEER_STD_PAR, /* std::inclusive_scan(std::execution::par, ...) in a TBB task_arena */
  PEER_TBB,     /* tbb::parallel_scan in a task_arena of the same thread count */
  PEER_OMP,     /* OpenMP `parallel for reduction(inscan, +)` with `scan inclusive` */
  PEER_CXX_COUNT
} peer_cxx;

/* Whether p was compiled in. */
bool peer_cxx_available(peer_cxx p);
/* out[i] = in[0] + ... + in[i] in type t with p on threads threads (PEER_STD_SEQ: one). */
void peer_cxx_scan(peer_cxx p, int threads, pscan_dtype t, const void *in, void *out, size_t n);

/* Compaction peers for `pscan bench --compact` (int32, keep x < threshold), PEER_STD_SEQ or
   PEER_STD_PAR (in a TBB task_arena of threads): std::copy_if into out, returning the count kept;
   std::partition_copy into kept and rejected, returning the count kept. */
size_t peer_cxx_select(peer_cxx p, int threads, const int32_t *in, int32_t *out, size_t n,
                       int32_t threshold);
size_t peer_cxx_partition(peer_cxx p, int threads, const int32_t *in, int32_t *kept,
                          int32_t *rejected, size_t n, int32_t threshold);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_TOOL_PEERS_CXX_H */
