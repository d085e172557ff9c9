/* A 64-bit mixing function (the finaliser of MurmurHash3): a bijection on 64-bit words in which
 * each input bit flips each output bit with probability close to 1/2. It serves the operator
 * cache's key hash (op/cache.c) and the benchmark's deterministic data (tools/bench/bench_sweep.h,
 * on the host and in its CUDA fill kernels). Not cryptographic. */
#ifndef PSCAN_MIX64_H
#define PSCAN_MIX64_H

#include <stdint.h>

#ifdef __CUDACC__
#define PSCAN__MIX64_HD __host__ __device__
#else
#define PSCAN__MIX64_HD
#endif

PSCAN__MIX64_HD static inline uint64_t pscan__mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return x;
}

#endif /* PSCAN_MIX64_H */
