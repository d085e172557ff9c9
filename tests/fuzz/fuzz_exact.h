/* Shared by the differential fuzzers (fuzz_scan.c, fuzz_compact.c). */
#ifndef PSCAN_FUZZ_EXACT_H
#define PSCAN_FUZZ_EXACT_H

#include "pscan.h"

#include <stdint.h>
#include <string.h>

/* The type values an input picks from: every type, and two past them that pscan must refuse. */
enum { FUZZ_TYPE_CHOICES = PSCAN_DTYPE_COUNT + 2 };

/* Float sums and products depend on the order of combination, which differs between algorithms
   and kernels (SIMD lanes). Their inputs are rewritten as small integers (+-1 for products), for
   which every order gives the same exact result, so every algorithm is compared bit for bit. */
static inline void exact_floats(uint8_t *p, pscan_dtype t, size_t n, int op,
                                const uint8_t *seed_bytes) {
  for (size_t i = 0; i < n; i++) {
    int v = op == PSCAN_PROD ? (seed_bytes[i] & 1 ? 1 : -1) : (int)(seed_bytes[i] % 7) - 3;
    if (t == PSCAN_F32) {
      float f = (float)v;
      memcpy(p + 4 * i, &f, 4);
    } else {
      double d = (double)v;
      memcpy(p + 8 * i, &d, 8);
    }
  }
}

#endif /* PSCAN_FUZZ_EXACT_H */
