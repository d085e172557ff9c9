/* AVX-512 kernel of run_length_encode's partitions (compact_simd.h has the contract): the run
 * heads' keys and the lengths of the runs that end inside the partition, in one loop. */
#include "compact_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_heads.h"

/* ---- run_length_encode's one pass ----
   The heads' keys, and the lengths of the runs that end inside the partition: a run's length is
   the next head's position minus its own. Per span of 16 items (one vector of 4-byte keys, two
   of 8-byte ones), the heads' 32-bit positions (local to the partition) are packed, and each
   packed lane takes the one before it off (lane 0: the last head so far, a scalar kept without a
   branch, so no vector carry chains the loop); item 0's lane, which closes nothing, is dropped.
   The lengths stay 32-bit (one compress and one store a span; compact.c widens them as it copies
   them out). Whole spans run without masks. */
static AVX512 inline void run_counts_span(int kind, int elem, const char *in, size_t n, size_t i,
                                          bool full, char *buf, uint32_t *lens, size_t *sel,
                                          uint32_t *last) {
  unsigned lm, h, h1 = 0;
  size_t before = *sel;
  __m512i kv = vector_heads(kind, elem, in, n, i, full, &lm, &h);
  *sel += store_packed(buf + *sel * elem, h, kv, elem);
  if (elem == 8 && (full || i + 8 < n)) { /* 8-byte keys: two vectors, one compress */
    kv = vector_heads(kind, elem, in, n, i + 8, full, &lm, &h1);
    *sel += store_packed(buf + *sel * elem, h1, kv, elem);
    h |= h1 << 8;
  }
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i at = _mm512_add_epi32(_mm512_set1_epi32((int)i), iota);
  __m512i p = _mm512_maskz_compress_epi32((__mmask16)h, at);
  __m512i d = _mm512_sub_epi32(p, _mm512_alignr_epi32(p, _mm512_set1_epi32((int)*last), 15));
  unsigned k = (unsigned)__builtin_popcount(h);
  if (!full && i == 0) { /* item 0 closes no run: its lane goes */
    d = _mm512_alignr_epi32(_mm512_setzero_si512(), d, 1);
    k--;
  } else {
    before--; /* head r closes run r - 1 */
  }
  _mm512_mask_storeu_epi32(lens + before, (__mmask16)((1u << k) - 1), d);
  /* *last = h ? the highest head's position : *last, by a mask (a branch here mispredicts at
     run lengths 8-32, where about half the vectors hold a head) */
  uint32_t none = 0u - (uint32_t)(h == 0);
  uint32_t high = (uint32_t)i + 31u - (uint32_t)__builtin_clz(h | 1u);
  *last = (*last & none) | (high & ~none);
}

static AVX512 inline size_t run_counts(int kind, int elem, const char *in, size_t n, char *buf,
                                       uint32_t *lens, size_t *last_head) {
  size_t sel = 0, i = 16;
  uint32_t last = 0; /* item 0 is a head */
  run_counts_span(kind, elem, in, n, 0, false, buf, lens, &sel, &last);
  /* 64 items at a time, skipped whole where they continue a run: a span's compresses and stores
     chain from one span to the next through sel and last (~12 cycles a span); at long runs a
     group of 64 seldom holds a head, and the branch is as predictable as the runs are long */
  for (; i + 64 <= n; i += 64) {
    if (run_continues(kind, elem, in, i))
      continue;
    for (size_t s = 0; s < 64; s += 16)
      run_counts_span(kind, elem, in, n, i + s, true, buf, lens, &sel, &last);
  }
  for (; i + 16 <= n; i += 16)
    run_counts_span(kind, elem, in, n, i, true, buf, lens, &sel, &last);
  if (i < n)
    run_counts_span(kind, elem, in, n, i, false, buf, lens, &sel, &last);
  *last_head = last;
  return sel;
}

#define RUN_COUNTS(NAME, KIND, ELEM)                                                               \
  static AVX512 size_t NAME(const void *in, size_t n, void *buf, uint32_t *lens,                  \
                            size_t *last_head) {                                                   \
    return run_counts(KIND, ELEM, in, n, buf, lens, last_head);                                    \
  }
AVX512_STAMP_KEY_TYPES(RUN_COUNTS, run_counts)
#undef RUN_COUNTS

pscan__cpu_run_counts_fn pscan__cpu_avx512_run_counts(pscan_dtype key) {
  AVX512_BY_KEY_TYPE(key, run_counts)
}

#else
pscan__cpu_run_counts_fn pscan__cpu_avx512_run_counts(pscan_dtype key) {
  (void)key;
  return NULL;
}
#endif
