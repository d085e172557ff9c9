/* AVX-512 gather kernels of the compaction family (compact_body.h has the portable ones, and the
 * contract): select_if, partition_if and select_flagged for 32- and 64-bit elements.
 *
 * Per vector of 16 (8) items: one compare gives the mask of kept items; vpcompressd/q packs them
 * to the low lanes of a register, and a masked store writes exactly those (Intel SDM vol. 2,
 * VPCOMPRESSD/Q; compressing into a register, then a masked store, avoids the slow
 * compress-to-memory form on Intel cores). partition_if also packs the rejected items, reverses
 * them (vpermd/q) and stores them, masked, below the ones already at the back of the buffer.
 * Masked stores write nothing outside their lanes, so both regions stay exact. The partition's
 * tail (fewer items than a vector) goes to the portable kernel's loop, continued in place.
 * select_flagged and the 8/16-bit types (vpcompressb/w need AVX512_VBMI2) stay portable.
 * Float items compare as the C operators do: ordered predicates, and NE unordered (NaN is != all). */
#include "cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_pack.h"

enum { K_I32, K_U32, K_F32, K_I64, K_U64, K_F64 };

/* The kept lanes of v against the broadcast x, for element kind k and comparison cmp. */
static AVX512 inline unsigned keep_mask(int k, pscan_cmp cmp, __m512i v, __m512i x) {
#define INT_CASES(F)                                                                               \
  switch (cmp) {                                                                                   \
  case PSCAN_LT: return F(v, x, _MM_CMPINT_LT);                                                    \
  case PSCAN_LE: return F(v, x, _MM_CMPINT_LE);                                                    \
  case PSCAN_GT: return F(v, x, _MM_CMPINT_NLE);                                                   \
  case PSCAN_GE: return F(v, x, _MM_CMPINT_NLT);                                                   \
  case PSCAN_EQ: return F(v, x, _MM_CMPINT_EQ);                                                    \
  case PSCAN_NE: return F(v, x, _MM_CMPINT_NE);                                                    \
  }
#define FP_CASES(F, CAST)                                                                          \
  switch (cmp) {                                                                                   \
  case PSCAN_LT: return F(CAST(v), CAST(x), _CMP_LT_OQ);                                           \
  case PSCAN_LE: return F(CAST(v), CAST(x), _CMP_LE_OQ);                                           \
  case PSCAN_GT: return F(CAST(v), CAST(x), _CMP_GT_OQ);                                           \
  case PSCAN_GE: return F(CAST(v), CAST(x), _CMP_GE_OQ);                                           \
  case PSCAN_EQ: return F(CAST(v), CAST(x), _CMP_EQ_OQ);                                           \
  case PSCAN_NE: return F(CAST(v), CAST(x), _CMP_NEQ_UQ);                                          \
  }
  switch (k) {
  case K_I32: INT_CASES(_mm512_cmp_epi32_mask) break;
  case K_U32: INT_CASES(_mm512_cmp_epu32_mask) break;
  case K_F32: FP_CASES(_mm512_cmp_ps_mask, _mm512_castsi512_ps) break;
  case K_I64: INT_CASES(_mm512_cmp_epi64_mask) break;
  case K_U64: INT_CASES(_mm512_cmp_epu64_mask) break;
  case K_F64: FP_CASES(_mm512_cmp_pd_mask, _mm512_castsi512_pd) break;
  }
#undef INT_CASES
#undef FP_CASES
  return 0;
}

/* Packs v's lanes in m, reversed, so that they end just below end (partition_if's back region:
   the first of them at end - 1). */
static AVX512 inline unsigned store_packed_reversed(char *end, unsigned m, __m512i v, int elem) {
  unsigned k = (unsigned)__builtin_popcount(m);
  if (elem == 4) {
    __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    __m512i r = _mm512_permutexvar_epi32(rev, _mm512_maskz_compress_epi32((__mmask16)m, v));
    _mm512_mask_storeu_epi32(end - 64, (__mmask16)(((1u << k) - 1) << (16 - k)), r);
  } else {
    __m512i rev = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    __m512i r = _mm512_permutexvar_epi64(rev, _mm512_maskz_compress_epi64((__mmask8)m, v));
    _mm512_mask_storeu_epi64(end - 64, (__mmask8)(((1u << k) - 1) << (8 - k)), r);
  }
  return k;
}

/* Whole vectors of in[0..n) into buf (compact_body.h's layout); returns the vectors' items done,
   with *sel the kept count so far (the rejected count is done - *sel). */
static AVX512 inline size_t gather_vectors(int k, pscan_cmp cmp, const void *value, const char *in,
                                           size_t n, char *buf, bool rejects, size_t *sel) {
  int elem = k >= K_I64 ? 8 : 4;
  size_t lanes = 64 / (size_t)elem, i = 0, s = 0;
  uint64_t bits = 0;
  memcpy(&bits, value, (size_t)elem);
  __m512i x = elem == 4 ? _mm512_set1_epi32((int)(uint32_t)bits) : _mm512_set1_epi64((long long)bits);
  for (; i + lanes <= n; i += lanes) {
    __m512i v = _mm512_loadu_si512(in + i * elem);
    unsigned m = keep_mask(k, cmp, v, x);
    if (rejects) /* rejected so far: i - s, at buf[n - (i - s) ..) */
      store_packed_reversed(buf + (n - (i - s)) * elem, ~m & ((1u << lanes) - 1), v, elem);
    s += store_packed(buf + s * elem, m, v, elem);
  }
  *sel = s;
  return i;
}

/* Stamps the kernel of one kind: the vectors, then the tail by the portable loop's rule. */
#define GATHER_IF(KIND, T)                                                                         \
  static AVX512 size_t gather_if_##KIND(pscan_cmp cmp, const void *value, const void *in_,          \
                                        size_t n, void *buf_, bool rejects) {                     \
    const T *in = in_;                                                                             \
    T *buf = buf_, x;                                                                              \
    memcpy(&x, value, sizeof x);                                                                   \
    size_t sel, i;                                                                                 \
    switch (cmp) {                                                                                 \
    case PSCAN_LT: i = gather_vectors(K_##KIND, PSCAN_LT, value, in_, n, buf_, rejects, &sel); break; \
    case PSCAN_LE: i = gather_vectors(K_##KIND, PSCAN_LE, value, in_, n, buf_, rejects, &sel); break; \
    case PSCAN_GT: i = gather_vectors(K_##KIND, PSCAN_GT, value, in_, n, buf_, rejects, &sel); break; \
    case PSCAN_GE: i = gather_vectors(K_##KIND, PSCAN_GE, value, in_, n, buf_, rejects, &sel); break; \
    case PSCAN_EQ: i = gather_vectors(K_##KIND, PSCAN_EQ, value, in_, n, buf_, rejects, &sel); break; \
    default: i = gather_vectors(K_##KIND, PSCAN_NE, value, in_, n, buf_, rejects, &sel); break;    \
    }                                                                                              \
    for (; i < n; i++) {                                                                           \
      T v = in[i];                                                                                 \
      bool keep = cmp == PSCAN_LT ? v < x : cmp == PSCAN_LE ? v <= x : cmp == PSCAN_GT ? v > x     \
                : cmp == PSCAN_GE ? v >= x : cmp == PSCAN_EQ ? v == x : v != x;                    \
      buf[sel] = v;                                                                                \
      if (rejects)                                                                                 \
        buf[n - 1 - (i - sel)] = v;                                                                \
      sel += keep ? 1 : 0;                                                                         \
    }                                                                                              \
    return sel;                                                                                    \
  }
GATHER_IF(I32, int32_t)
GATHER_IF(U32, uint32_t)
GATHER_IF(F32, float)
GATHER_IF(I64, int64_t)
GATHER_IF(U64, uint64_t)
GATHER_IF(F64, double)
#undef GATHER_IF

pscan__cpu_gather_if_fn pscan__cpu_avx512_gather_if(pscan_dtype t) {
  switch (t) {
  case PSCAN_I32: return gather_if_I32;
  case PSCAN_U32: return gather_if_U32;
  case PSCAN_F32: return gather_if_F32;
  case PSCAN_I64: return gather_if_I64;
  case PSCAN_U64: return gather_if_U64;
  case PSCAN_F64: return gather_if_F64;
  default: return NULL;
  }
}

#else
pscan__cpu_gather_if_fn pscan__cpu_avx512_gather_if(pscan_dtype t) {
  (void)t;
  return NULL;
}
#endif
