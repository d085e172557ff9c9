/* AVX-512 kernels of the compaction family's runs and flags (compact_simd.h has the contracts):
 * run heads for 32- and 64-bit keys, select_flagged for 32- and 64-bit items, and the segmented
 * sum of 32- and 64-bit values for reduce_by_key and scan_by_key.
 *
 * Heads: per vector of 16 (8) keys, one compare of the keys against the same keys shifted by one
 * (an unaligned load at in + i - 1; the first vector's lane 0, which has no predecessor, is masked
 * off the load and always a head) gives the head mask; vpcompress packs the heads' keys and their
 * positions, and the mask goes to a bit array for the value pass. The portable loop stores every
 * key and advances on a head: ~2-3 cycles an item, several times the scan's cost per item.
 *
 * Segmented sum: a Kogge-Stone scan inside the vector whose additions are masked by "no head in
 * the lanes this one would reach back over": with g the lanes that are not heads, step d (1, 2, 4,
 * 8) adds lane j - d into lane j where c_d = g & (g << 1) & ... holds for lanes j - d + 1 .. j
 * (c_1 = g, c_2d = c_d & (c_d << d)). The lanes before the vector's first head then take the
 * carry (the sum at the previous vector's last lane). The sums at the lanes followed by a head
 * (reduce_by_key's run totals) are compressed out; scan_by_key stores every lane. The additions
 * keep their operands' order but not the sequential bracketing (as the SIMD reductions already
 * do): float sums may differ in the last bits from the plain loop's, integer sums never.
 *
 * reduce_by_key with keys and values of one width makes both in one loop (reduce_runs): the tails
 * from a second compare of the keys against the next ones, no bit array. run_length_encode's
 * one loop is in compact_rle_avx512.c; the heads of a vector of keys, avx512_heads.h. */
#include "compact_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "avx512_heads.h"

/* The 64-bit positions base + i + lane of the lanes in m, packed to pos (16 lanes: two halves). */
static AVX512 inline void packed_positions(size_t *pos, unsigned m, size_t at, int lanes) {
  const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512i p = _mm512_add_epi64(_mm512_set1_epi64((long long)at), iota);
  unsigned lo = m & 0xFF;
  size_t k = store_packed((char *)pos, lo, p, 8);
  if (lanes == 16)
    store_packed((char *)(pos + k), m >> 8, _mm512_add_epi64(p, _mm512_set1_epi64(8)), 8);
}

/* One vector of heads(): sel heads so far, word the bits of the 64-item word not yet stored. */
static AVX512 inline void heads_vector(int kind, int elem, const char *in, size_t n, size_t i,
                                       bool full, char *buf, size_t *pos, size_t base,
                                       uint64_t *bits, size_t *sel, uint64_t *word) {
  const size_t lanes = 64 / (size_t)elem;
  unsigned lm, m;
  __m512i v = vector_heads(kind, elem, in, n, i, full, &lm, &m);
  if (buf)
    store_packed(buf + *sel * elem, m, v, elem);
  if (pos)
    packed_positions(pos + *sel, m, base + i, (int)lanes);
  *sel += (unsigned)__builtin_popcount(m);
  if (bits) {
    *word |= (uint64_t)m << (i & 63);
    if (((i + lanes) & 63) == 0) {
      bits[i >> 6] = *word;
      *word = 0;
    }
  }
}

/* The first vector and the last (partial) one with masks, the whole ones between without. */
static AVX512 inline size_t heads(int kind, int elem, const char *in, size_t n, char *buf,
                                  size_t *pos, size_t base, uint64_t *bits) {
  const size_t lanes = 64 / (size_t)elem;
  size_t sel = 0, i = lanes;
  uint64_t word = 0;
  heads_vector(kind, elem, in, n, 0, false, buf, pos, base, bits, &sel, &word);
  /* Without the bit array (unique), 64 items at a time are skipped whole where they continue
     the run before them (run_continues) */
  if (!bits)
    for (; i + 64 <= n; i += 64) {
      if (run_continues(kind, elem, in, i))
        continue;
      for (size_t s = 0; s < 64; s += lanes)
        heads_vector(kind, elem, in, n, i + s, true, buf, pos, base, bits, &sel, &word);
    }
  for (; i + lanes <= n; i += lanes)
    heads_vector(kind, elem, in, n, i, true, buf, pos, base, bits, &sel, &word);
  if (i < n) {
    heads_vector(kind, elem, in, n, i, false, buf, pos, base, bits, &sel, &word);
    i += lanes;
  }
  if (bits) { /* i: the first multiple of lanes at or past n */
    if (i & 63)
      bits[i >> 6] = word;
    for (size_t w = (i + 63) >> 6; w <= n / 64 + 1; w++)
      bits[w] = 0;
  }
  return sel;
}

#define HEADS(NAME, KIND, ELEM)                                                                    \
  static AVX512 size_t NAME(const void *in, size_t n, void *buf, size_t *pos, size_t base,         \
                            uint64_t *bits) {                                                      \
    return heads(KIND, ELEM, in, n, buf, pos, base, bits);                                         \
  }
AVX512_STAMP_KEY_TYPES(HEADS, heads)
#undef HEADS

pscan__cpu_heads_fn pscan__cpu_avx512_heads(pscan_dtype key) {
  AVX512_BY_KEY_TYPE(key, heads)
}

/* ---- select_flagged ---- */

static AVX512 inline size_t flagged(int elem, const uint8_t *flags, const char *in, size_t n,
                                    char *buf) {
  const size_t lanes = 64 / (size_t)elem;
  size_t sel = 0, i = 0;
  const __m128i ones = _mm_set1_epi8(-1);
  for (; i + lanes <= n; i += lanes) {
    __m128i f = elem == 4 ? _mm_loadu_si128((const __m128i *)(const void *)(flags + i))
                          : _mm_loadl_epi64((const __m128i *)(const void *)(flags + i));
    unsigned m = (unsigned)_mm_test_epi8_mask(f, ones) & ((1u << lanes) - 1);
    sel += store_packed(buf + sel * elem, m, _mm512_loadu_si512(in + i * elem), elem);
  }
  for (; i < n; i++) { /* the tail, by the portable loop's rule */
    memcpy(buf + sel * elem, in + i * elem, (size_t)elem);
    sel += flags[i] != 0;
  }
  return sel;
}

static AVX512 size_t flagged4(const uint8_t *flags, const void *in, size_t n, void *buf) {
  return flagged(4, flags, in, n, buf);
}
static AVX512 size_t flagged8(const uint8_t *flags, const void *in, size_t n, void *buf) {
  return flagged(8, flags, in, n, buf);
}

pscan__cpu_flagged_fn pscan__cpu_avx512_flagged(pscan_dtype t) {
  size_t size = pscan_dtype_size(t);
  return size == 4 ? flagged4 : size == 8 ? flagged8 : NULL;
}

/* ---- segmented sum ---- */

enum { V_I32, V_F32, V_I64, V_F64 };

/* src with the lanes in m replaced by a + b, in the value kind's arithmetic. */
static AVX512 inline __m512i add_lanes(int kind, __m512i src, unsigned m, __m512i a, __m512i b) {
  switch (kind) {
  case V_F32:
    return _mm512_castps_si512(_mm512_mask_add_ps(_mm512_castsi512_ps(src), (__mmask16)m,
                                                  _mm512_castsi512_ps(a), _mm512_castsi512_ps(b)));
  case V_F64:
    return _mm512_castpd_si512(_mm512_mask_add_pd(_mm512_castsi512_pd(src), (__mmask8)m,
                                                  _mm512_castsi512_pd(a), _mm512_castsi512_pd(b)));
  case V_I32: return _mm512_mask_add_epi32(src, (__mmask16)m, a, b);
  default: return _mm512_mask_add_epi64(src, (__mmask8)m, a, b);
  }
}

/* The in-vector segmented scan of x under the not-head lanes g (see the top of the file). */
static AVX512 inline __m512i seg_scan_vector(int kind, int elem, __m512i x, unsigned g) {
  const __m512i z = _mm512_setzero_si512();
  unsigned c = g;
  if (elem == 4) {
    x = add_lanes(kind, x, c & ~1u, x, _mm512_alignr_epi32(x, z, 15));
    c &= c << 1;
    x = add_lanes(kind, x, c & ~3u, x, _mm512_alignr_epi32(x, z, 14));
    c &= c << 2;
    x = add_lanes(kind, x, c & ~0xFu, x, _mm512_alignr_epi32(x, z, 12));
    c &= c << 4;
    return add_lanes(kind, x, c & ~0xFFu, x, _mm512_alignr_epi32(x, z, 8));
  }
  x = add_lanes(kind, x, c & ~1u, x, _mm512_alignr_epi64(x, z, 7));
  c &= c << 1;
  x = add_lanes(kind, x, c & ~3u, x, _mm512_alignr_epi64(x, z, 6));
  c &= c << 2;
  return add_lanes(kind, x, c & ~0xFu, x, _mm512_alignr_epi64(x, z, 4));
}

/* Every lane set to lane `lane` of x (the carry into the next vector). */
static AVX512 inline __m512i broadcast_lane(int elem, __m512i x, unsigned lane) {
  return elem == 4 ? _mm512_permutexvar_epi32(_mm512_set1_epi32((int)lane), x)
                   : _mm512_permutexvar_epi64(_mm512_set1_epi64((long long)lane), x);
}

/* Lane `lane` of x stored to dst (elem bytes). */
static AVX512 inline void store_lane(int elem, __m512i x, unsigned lane, void *dst) {
  __m128i low = _mm512_castsi512_si128(broadcast_lane(elem, x, lane));
  if (elem == 4) {
    uint32_t v = (uint32_t)_mm_cvtsi128_si32(low);
    memcpy(dst, &v, 4);
  } else {
    uint64_t v = (uint64_t)_mm_cvtsi128_si64(low);
    memcpy(dst, &v, 8);
  }
}

/* One vector of seg_sum(): nt tails so far, cv the carry, *x the vector's sums, *lm its lanes
   inside n; have: a carry comes in (every vector but a first one without carry). full: i > 0 and
   i + lanes <= n (no masks). */
static AVX512 inline void seg_sum_vector(int kind, const char *v, size_t n, size_t i, bool full,
                                         bool have, const uint64_t *bits, char *tails, char *out,
                                         bool stream, size_t *nt, __m512i *cv, __m512i *x,
                                         unsigned *lm) {
  const int elem = kind == V_I32 || kind == V_F32 ? 4 : 8;
  const size_t lanes = 64 / (size_t)elem;
  const unsigned all = (1u << lanes) - 1;
  unsigned m = full || n - i >= lanes ? all : (1u << (n - i)) - 1;
  __m512i y = full ? _mm512_loadu_si512(v + i * elem) : load_lanes(elem, m, v + i * elem);
  unsigned h = (unsigned)(bits[i >> 6] >> (i & 63)) & all;
  y = seg_scan_vector(kind, elem, y, ~h & all);
  /* carry ⊕ y on the lanes before the first head: (h & -h) - 1 is those lanes, every lane
     where h is 0, with no branch (at run lengths 8-64 whether a vector holds a head is a coin
     toss that a branch mispredicts about half the time) */
  if (have)
    y = add_lanes(kind, y, ((h & (0u - h)) - 1u) & all, *cv, y);
  if (tails) {
    size_t nx = i + lanes;
    unsigned t = (h >> 1) | (unsigned)((bits[nx >> 6] >> (nx & 63)) & 1) << (lanes - 1);
    *nt += store_packed(tails + *nt * elem, t & m, y, elem);
  }
  if (out) {
    char *o = out + i * elem;
    if (m == all && stream && (uintptr_t)o % 64 == 0) {
      _mm512_stream_si512((void *)o, y);
    } else if (elem == 4) {
      _mm512_mask_storeu_epi32(o, (__mmask16)m, y);
    } else {
      _mm512_mask_storeu_epi64(o, (__mmask8)m, y);
    }
  }
  *cv = broadcast_lane(elem, y, (unsigned)lanes - 1);
  *x = y;
  *lm = m;
}

/* The first vector and the last (partial) one with masks, the whole ones between without. */
static AVX512 inline size_t seg_sum(int kind, const char *v, size_t n, const uint64_t *bits,
                                    const void *carry, char *tails, char *out, bool stream,
                                    void *last) {
  const int elem = kind == V_I32 || kind == V_F32 ? 4 : 8;
  const size_t lanes = 64 / (size_t)elem;
  size_t nt = 0, i = lanes;
  __m512i cv = _mm512_setzero_si512(), x = cv;
  if (carry) {
    uint64_t c = 0;
    memcpy(&c, carry, (size_t)elem);
    cv = elem == 4 ? _mm512_set1_epi32((int)(uint32_t)c) : _mm512_set1_epi64((long long)c);
  }
  unsigned lm;
  seg_sum_vector(kind, v, n, 0, false, carry != NULL, bits, tails, out, stream, &nt, &cv, &x, &lm);
  for (; i + lanes <= n; i += lanes)
    seg_sum_vector(kind, v, n, i, true, true, bits, tails, out, stream, &nt, &cv, &x, &lm);
  if (i < n)
    seg_sum_vector(kind, v, n, i, false, true, bits, tails, out, stream, &nt, &cv, &x, &lm);
  /* The sum at item n - 1: the last vector's highest loaded lane. */
  store_lane(elem, x, 31u - (unsigned)__builtin_clz(lm), last);
  return nt;
}

#define SEG_SUM(NAME, KIND)                                                                        \
  static AVX512 size_t NAME(const void *v, size_t n, const uint64_t *bits, const void *carry,     \
                            void *tails, void *out, bool stream, void *last) {                    \
    return seg_sum(KIND, v, n, bits, carry, tails, out, stream, last);                            \
  }
SEG_SUM(seg_sum_i32, V_I32)
SEG_SUM(seg_sum_f32, V_F32)
SEG_SUM(seg_sum_i64, V_I64)
SEG_SUM(seg_sum_f64, V_F64)
#undef SEG_SUM

/* ---- reduce_by_key's one pass (keys and values of one width) ----
   The heads and the run totals in the same loop: a lane is a head where its key differs from the
   one before it (item 0 always), a tail where it differs from the one after it (the partition's
   last item never: its sum is *last); the values' segmented sum is compressed at the tails. The
   same sums as heads() then seg_sum() with no carry, without the bit array between them. */
/* One vector of reduce_runs(): sel heads and nt tails so far, cv the carry (the sum at the
   previous vector's last lane), *x the vector's sums, *lm its lanes inside n. full: i > 0 and
   every lane has a successor (no masks). Always inlined: out of line, as GCC 12.2 -O2
   -fsanitize=thread (the CI's TSan build) left it, GCC miscompiled it for 8-byte keys and values
   (phantom tails; every other build and clang's TSan passed: docs/PERFORMANCE.md, "reduce_by_key
   in one pass"). */
static AVX512 inline __attribute__((always_inline)) void
reduce_runs_vector(int kkind, int vkind, const char *in, const char *v, size_t n, size_t i, bool full,
                   char *buf, char *tails, size_t *sel, size_t *nt, __m512i *cv, __m512i *x,
                   unsigned *lm) {
  const int elem = vkind == V_I32 || vkind == V_F32 ? 4 : 8;
  const size_t lanes = 64 / (size_t)elem;
  const unsigned all = (1u << lanes) - 1;
  unsigned h;
  __m512i kv = vector_heads(kkind, elem, in, n, i, full, lm, &h);
  unsigned nm = full || n - i - 1 >= lanes ? all : (1u << (n - i - 1)) - 1; /* with a successor */
  const char *next = in + i * elem + elem;
  __m512i nv = full ? _mm512_loadu_si512(next) : load_lanes(elem, nm, next);
  unsigned t = differ(kkind, elem, nm, kv, nv);
  *sel += store_packed(buf + *sel * elem, h, kv, elem);
  const char *vi = v + i * elem;
  __m512i y = full ? _mm512_loadu_si512(vi) : load_lanes(elem, *lm, vi);
  y = seg_scan_vector(vkind, elem, y, ~h & all);
  if (full || i) /* the carry on the lanes before the first head (all without one), no branch */
    y = add_lanes(vkind, y, ((h & (0u - h)) - 1u) & all, *cv, y);
  *nt += store_packed(tails + *nt * elem, t, y, elem);
  *cv = broadcast_lane(elem, y, (unsigned)lanes - 1);
  *x = y;
}

static AVX512 inline size_t reduce_runs(int kkind, int vkind, const char *in, const char *v,
                                        size_t n, char *buf, char *tails, size_t *ntails,
                                        void *last) {
  const int elem = vkind == V_I32 || vkind == V_F32 ? 4 : 8;
  const size_t lanes = 64 / (size_t)elem;
  size_t sel = 0, nt = 0, i = lanes;
  __m512i cv = _mm512_setzero_si512(), x = cv;
  unsigned lm;
  reduce_runs_vector(kkind, vkind, in, v, n, 0, false, buf, tails, &sel, &nt, &cv, &x, &lm);
  for (; i + lanes < n; i += lanes)
    reduce_runs_vector(kkind, vkind, in, v, n, i, true, buf, tails, &sel, &nt, &cv, &x, &lm);
  if (i < n)
    reduce_runs_vector(kkind, vkind, in, v, n, i, false, buf, tails, &sel, &nt, &cv, &x, &lm);
  store_lane(elem, x, 31u - (unsigned)__builtin_clz(lm), last);
  *ntails = nt;
  return sel;
}

#define REDUCE_RUNS(NAME, KKIND, VKIND)                                                            \
  static AVX512 size_t NAME(const void *in, const void *v, size_t n, void *buf, void *tails,       \
                            size_t *ntails, void *last) {                                          \
    return reduce_runs(KKIND, VKIND, in, v, n, buf, tails, ntails, last);                          \
  }
REDUCE_RUNS(reduce_runs_ki_i32, K_INT, V_I32)
REDUCE_RUNS(reduce_runs_ki_f32, K_INT, V_F32)
REDUCE_RUNS(reduce_runs_kf_i32, K_F32, V_I32)
REDUCE_RUNS(reduce_runs_kf_f32, K_F32, V_F32)
REDUCE_RUNS(reduce_runs_ki_i64, K_INT, V_I64)
REDUCE_RUNS(reduce_runs_ki_f64, K_INT, V_F64)
REDUCE_RUNS(reduce_runs_kf_i64, K_F64, V_I64)
REDUCE_RUNS(reduce_runs_kf_f64, K_F64, V_F64)
#undef REDUCE_RUNS

pscan__cpu_reduce_runs_fn pscan__cpu_avx512_reduce_runs(pscan_dtype key, pscan_dtype val,
                                                        pscan_op op) {
  if (op != PSCAN_SUM)
    return NULL;
  bool kf = key == PSCAN_F32 || key == PSCAN_F64;
  bool k4 = key == PSCAN_I32 || key == PSCAN_U32 || key == PSCAN_F32;
  bool k8 = key == PSCAN_I64 || key == PSCAN_U64 || key == PSCAN_F64;
  switch (val) {
  case PSCAN_I32:
  case PSCAN_U32: return !k4 ? NULL : kf ? reduce_runs_kf_i32 : reduce_runs_ki_i32;
  case PSCAN_F32: return !k4 ? NULL : kf ? reduce_runs_kf_f32 : reduce_runs_ki_f32;
  case PSCAN_I64:
  case PSCAN_U64: return !k8 ? NULL : kf ? reduce_runs_kf_i64 : reduce_runs_ki_i64;
  case PSCAN_F64: return !k8 ? NULL : kf ? reduce_runs_kf_f64 : reduce_runs_ki_f64;
  default: return NULL;
  }
}

pscan__cpu_seg_sum_fn pscan__cpu_avx512_seg_sum(pscan_dtype val, pscan_op op) {
  if (op != PSCAN_SUM)
    return NULL;
  switch (val) {
  case PSCAN_I32:
  case PSCAN_U32: return seg_sum_i32;
  case PSCAN_F32: return seg_sum_f32;
  case PSCAN_I64:
  case PSCAN_U64: return seg_sum_i64;
  case PSCAN_F64: return seg_sum_f64;
  default: return NULL;
  }
}

#else
pscan__cpu_heads_fn pscan__cpu_avx512_heads(pscan_dtype key) {
  (void)key;
  return NULL;
}
pscan__cpu_flagged_fn pscan__cpu_avx512_flagged(pscan_dtype t) {
  (void)t;
  return NULL;
}
pscan__cpu_seg_sum_fn pscan__cpu_avx512_seg_sum(pscan_dtype val, pscan_op op) {
  (void)val, (void)op;
  return NULL;
}
pscan__cpu_reduce_runs_fn pscan__cpu_avx512_reduce_runs(pscan_dtype key, pscan_dtype val,
                                                        pscan_op op) {
  (void)key, (void)val, (void)op;
  return NULL;
}
#endif
