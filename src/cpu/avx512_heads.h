/* The run heads of a vector of keys, shared by the AVX-512 compaction kernels of runs
 * (compact_runs_avx512.c, compact_rle_avx512.c): a lane is a head where its key differs from the
 * one before it, by the C != of the key type (so a NaN key is a run of its own and -0.0 continues
 * a run of 0.0). Included only where the x86-64 GNU C intrinsics are (the files' own guard). */
#ifndef PSCAN_CPU_AVX512_HEADS_H
#define PSCAN_CPU_AVX512_HEADS_H

#include "avx512_pack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { K_INT, K_F32, K_F64 };

/* Lanes of a (in lm) that differ from b's, by the C != of the key type. */
static AVX512 inline unsigned differ(int kind, int elem, unsigned lm, __m512i a, __m512i b) {
  if (kind == K_F32)
    return _mm512_mask_cmp_ps_mask((__mmask16)lm, _mm512_castsi512_ps(a), _mm512_castsi512_ps(b), _CMP_NEQ_UQ);
  if (kind == K_F64)
    return _mm512_mask_cmp_pd_mask((__mmask8)lm, _mm512_castsi512_pd(a), _mm512_castsi512_pd(b), _CMP_NEQ_UQ);
  if (elem == 4)
    return _mm512_mask_cmpneq_epi32_mask((__mmask16)lm, a, b);
  return _mm512_mask_cmpneq_epi64_mask((__mmask8)lm, a, b);
}

static AVX512 inline __m512i load_lanes(int elem, unsigned m, const void *p) {
  return elem == 4 ? _mm512_maskz_loadu_epi32((__mmask16)m, p) : _mm512_maskz_loadu_epi64((__mmask8)m, p);
}

/* Vector i of keys in[0..n): the keys (*lm: the lanes inside n) and the heads *h, the lanes whose
   key differs from the one before it (item 0 always: the first vector's lane 0 has no
   predecessor, masked off the load). full: the caller knows i > 0 and i + lanes <= n (no masks). */
static AVX512 inline __m512i vector_heads(int kind, int elem, const char *in, size_t n, size_t i,
                                          bool full, unsigned *lm, unsigned *h) {
  const size_t lanes = 64 / (size_t)elem;
  const unsigned all = (1u << lanes) - 1;
  unsigned m = full || n - i >= lanes ? all : (1u << (n - i)) - 1;
  unsigned pm = !full && i == 0 ? m & ~1u : m;
  const char *at = in + i * elem;
  __m512i v = full ? _mm512_loadu_si512(at) : load_lanes(elem, m, at);
  __m512i prev = full ? _mm512_loadu_si512(at - elem) : load_lanes(elem, pm, at - elem);
  *h = differ(kind, elem, pm, v, prev) | (!full && i == 0 ? 1u : 0u);
  *lm = m;
  return v;
}

/* Whether the 64 items from i (i > 0) all equal item i - 1, i.e. hold no head: one compare a
   vector against that key, where a span compares each item with the one before (NaN keys, never
   equal, answer no). */
static AVX512 inline bool run_continues(int kind, int elem, const char *in, size_t i) {
  const char *at = in + i * elem;
  uint64_t bits = 0; /* the key's bytes (float keys too: no float-typed read, no alias issue) */
  memcpy(&bits, at - elem, (size_t)elem);
  __m512i key = elem == 4 ? _mm512_set1_epi32((int)(uint32_t)bits) : _mm512_set1_epi64((long long)bits);
  const unsigned all = elem == 4 ? 0xFFFFu : 0xFFu;
  unsigned d = 0;
  for (int v = 0; v < elem; v++) /* 64 items: 4 vectors of 4-byte keys, 8 of 8-byte ones */
    d |= differ(kind, elem, all, _mm512_loadu_si512(at + v * 64), key);
  return d == 0;
}

/* A kernel stamped per key type: STAMP(NAME, KIND, ELEM) for PREFIX_i32, _f32, _i64 and _f64
   (unsigned keys share the signed kernels: != is the same on the bits), and the getter's body
   that picks one by key type (NULL for the types without one). */
#define AVX512_STAMP_KEY_TYPES(STAMP, PREFIX)                                                      \
  STAMP(PREFIX##_i32, K_INT, 4)                                                                    \
  STAMP(PREFIX##_f32, K_F32, 4)                                                                    \
  STAMP(PREFIX##_i64, K_INT, 8)                                                                    \
  STAMP(PREFIX##_f64, K_F64, 8)
#define AVX512_BY_KEY_TYPE(key, PREFIX)                                                            \
  switch (key) {                                                                                   \
  case PSCAN_I32:                                                                                  \
  case PSCAN_U32: return PREFIX##_i32;                                                             \
  case PSCAN_F32: return PREFIX##_f32;                                                             \
  case PSCAN_I64:                                                                                  \
  case PSCAN_U64: return PREFIX##_i64;                                                             \
  case PSCAN_F64: return PREFIX##_f64;                                                             \
  default: return NULL;                                                                            \
  }

#endif /* PSCAN_CPU_AVX512_HEADS_H */
