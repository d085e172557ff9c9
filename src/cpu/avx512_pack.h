/* What the AVX-512 compaction kernels share (compact_avx512.c, compact_runs_avx512.c,
 * compact_rle_avx512.c): the target attribute of their functions, and the packing of a vector's
 * kept lanes. Included only where the x86-64 GNU C intrinsics are (the files' own guard). */
#ifndef PSCAN_CPU_AVX512_PACK_H
#define PSCAN_CPU_AVX512_PACK_H

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

/* Packs v's lanes in m (16 lanes of 4 bytes, or 8 of 8) to the low lanes and stores exactly
   those at p (a masked store: nothing past them is written); returns their count. */
static AVX512 inline unsigned store_packed(char *p, unsigned m, __m512i v, int elem) {
  unsigned k = (unsigned)__builtin_popcount(m);
  if (elem == 4)
    _mm512_mask_storeu_epi32(p, (__mmask16)((1u << k) - 1), _mm512_maskz_compress_epi32((__mmask16)m, v));
  else
    _mm512_mask_storeu_epi64(p, (__mmask8)((1u << k) - 1), _mm512_maskz_compress_epi64((__mmask8)m, v));
  return k;
}

#endif /* PSCAN_CPU_AVX512_PACK_H */
