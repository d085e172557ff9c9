/* AVX2 kernels for the most common scans: SUM over 32- and 64-bit integers and floats
 * (the scans and the partition reductions; propagation and combination stay scalar).
 *
 * An in-register scan of one vector takes log2(lanes) shift-and-add steps (the Kogge-Stone
 * network of docs/ALGORITHMS.md, inside a register), then adds the running carry, broadcast
 * from the previous vector's last lane. Integer sums wrap exactly like the scalar kernels. Float
 * sums associate differently from a left fold (((a+b)+(c+d)) for the fourth lane), so their bits
 * can differ from the scalar path, but they are fixed by the element's position in its partition:
 * DETERMINISTIC keeps its guarantee. Lanes shifted in by the network hold the identity -0.0, never
 * +0.0, so a sum of -0.0 values stays -0.0 as on the scalar path.
 *
 * Compiled for every x86-64 target through function attributes; used only when the CPU has AVX2
 * (checked once) and PSCAN_CPU_ISA is not "scalar" (kernels.c). */
#include "cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <string.h>

#define AVX2 __attribute__((target("avx2")))

/* ---- 8 x 32-bit lanes ---- */

/* Inclusive scan of 8 lanes; z fills the shifted-in lanes (the identity's bits). */
#define SCAN8(T, ADD, CAST_IN, CAST_OUT)                                                           \
  static AVX2 inline __m256i scan8_##T(__m256i x, __m256i z_lo1, __m256i z_lo2, __m256i id) {     \
    x = CAST_OUT(ADD(CAST_IN(x), CAST_IN(_mm256_or_si256(_mm256_slli_si256(x, 4), z_lo1))));       \
    x = CAST_OUT(ADD(CAST_IN(x), CAST_IN(_mm256_or_si256(_mm256_slli_si256(x, 8), z_lo2))));       \
    __m256i low_total = _mm256_shuffle_epi32(x, 0xFF); /* lane 3 of each 128-bit half */           \
    __m256i up = _mm256_permute2x128_si256(low_total, low_total, 0x08); /* (zero, low half) */     \
    up = _mm256_blend_epi32(up, id, 0x0F); /* the low half adds the identity */                    \
    return CAST_OUT(ADD(CAST_IN(x), CAST_IN(up)));                                                 \
  }

#define ID_I(x) (x)
SCAN8(i32, _mm256_add_epi32, ID_I, ID_I)
SCAN8(f32, _mm256_add_ps, _mm256_castsi256_ps, _mm256_castps_si256)

/* ---- 4 x 64-bit lanes ---- */
#define SCAN4(T, ADD, CAST_IN, CAST_OUT)                                                           \
  static AVX2 inline __m256i scan4_##T(__m256i x, __m256i z_lo1, __m256i z_lo2, __m256i id) {     \
    (void)z_lo2;                                                                                   \
    x = CAST_OUT(ADD(CAST_IN(x), CAST_IN(_mm256_or_si256(_mm256_slli_si256(x, 8), z_lo1))));       \
    __m256i low_total = _mm256_permute4x64_epi64(x, 0x55); /* lane 1 everywhere */                 \
    __m256i up = _mm256_blend_epi32(id, low_total, 0xF0); /* (identity, low half's total) */       \
    return CAST_OUT(ADD(CAST_IN(x), CAST_IN(up)));                                                 \
  }
SCAN4(i64, _mm256_add_epi64, ID_I, ID_I)
SCAN4(f64, _mm256_add_pd, _mm256_castsi256_pd, _mm256_castpd_si256)

/* The kernels, stamped per type. LANES lanes of ELEM bytes; CARRY broadcasts the last lane. */
#define KERNELS(T, ELEM, LANES, SCANV, ADD, CAST_IN, CAST_OUT, LAST_IDX, ZERO_BITS)                 \
  typedef struct {                                                                                 \
    __m256i z1, z2, id; /* identity bits in the lanes a shift fills; identity everywhere */        \
  } fill_##T;                                                                                      \
  static AVX2 fill_##T fills_##T(void) {                                                           \
    fill_##T f;                                                                                    \
    uint64_t z = ZERO_BITS;                                                                        \
    if (ELEM == 4) {                                                                               \
      f.id = _mm256_set1_epi32((int)(uint32_t)z);                                                  \
      f.z1 = _mm256_blend_epi32(_mm256_setzero_si256(), f.id, 0x11);                               \
      f.z2 = _mm256_blend_epi32(_mm256_setzero_si256(), f.id, 0x33);                               \
    } else {                                                                                       \
      f.id = _mm256_set1_epi64x((long long)z);                                                     \
      f.z1 = _mm256_blend_epi32(_mm256_setzero_si256(), f.id, 0x33);                               \
      f.z2 = f.z1;                                                                                 \
    }                                                                                              \
    return f;                                                                                      \
  }                                                                                                \
  static AVX2 inline __m256i last_##T(__m256i x) {                                                 \
    return ELEM == 4 ? _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7))                        \
                     : _mm256_permute4x64_epi64(x, 0xFF);                                          \
  }                                                                                                \
  /* The scan proper: carry (broadcast) in and out; exclusive shifts by one lane. */               \
  static AVX2 size_t vector_part_##T(const char *in, char *out, size_t n, __m256i *carry,          \
                                     int exclusive) {                                              \
    const fill_##T f = fills_##T();                                                                \
    size_t i = 0;                                                                                  \
    for (; i + LANES <= n; i += LANES) {                                                           \
      __m256i x = _mm256_loadu_si256((const __m256i *)(in + i * ELEM));                            \
      __m256i s = CAST_OUT(ADD(CAST_IN(SCANV(x, f.z1, f.z2, f.id)), CAST_IN(*carry)));                    \
      __m256i r = s;                                                                               \
      if (exclusive) { /* (carry, s0 .. s_{L-2}) */                                                \
        r = ELEM == 4 ? _mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6))  \
                      : _mm256_permute4x64_epi64(s, 0x93);                                         \
        r = _mm256_blend_epi32(r, *carry, ELEM == 4 ? 0x01 : 0x03);                                \
      }                                                                                            \
      _mm256_storeu_si256((__m256i *)(out + i * ELEM), r);                                         \
      *carry = last_##T(s);                                                                        \
    }                                                                                              \
    return i;                                                                                      \
  }

KERNELS(i32, 4, 8, scan8_i32, _mm256_add_epi32, ID_I, ID_I, 7, 0)
KERNELS(f32, 4, 8, scan8_f32, _mm256_add_ps, _mm256_castsi256_ps, _mm256_castps_si256, 7,
        0x80000000u)
KERNELS(i64, 8, 4, scan4_i64, _mm256_add_epi64, ID_I, ID_I, 3, 0)
KERNELS(f64, 8, 4, scan4_f64, _mm256_add_pd, _mm256_castsi256_pd, _mm256_castpd_si256, 3,
        0x8000000000000000ull)

/* Reductions: four independent vector accumulators (the adds of one do not wait on another),
   combined in a fixed order, then the lanes from first to last, then the tail. The order depends
   only on positions within the call, so results are reproducible. Accumulators start at the
   identity (-0.0 for floats). */
#define REDUCE(T, ELEM, LANES, ADD, CAST_IN, CAST_OUT, ZERO_BITS)                                   \
  static AVX2 void reduce_##T(const pscan__cpu_op *op, const void *in_, size_t n, void *acc) {     \
    const char *in = in_;                                                                          \
    uint64_t z = ZERO_BITS;                                                                        \
    __m256i id = ELEM == 4 ? _mm256_set1_epi32((int)(uint32_t)z) : _mm256_set1_epi64x((long long)z); \
    __m256i a0 = id, a1 = id, a2 = id, a3 = id;                                                    \
    size_t i = 0;                                                                                  \
    for (; i + 4 * LANES <= n; i += 4 * LANES) {                                                   \
      const __m256i *p = (const __m256i *)(in + i * ELEM);                                         \
      a0 = CAST_OUT(ADD(CAST_IN(a0), CAST_IN(_mm256_loadu_si256(p))));                             \
      a1 = CAST_OUT(ADD(CAST_IN(a1), CAST_IN(_mm256_loadu_si256(p + 1))));                         \
      a2 = CAST_OUT(ADD(CAST_IN(a2), CAST_IN(_mm256_loadu_si256(p + 2))));                         \
      a3 = CAST_OUT(ADD(CAST_IN(a3), CAST_IN(_mm256_loadu_si256(p + 3))));                         \
    }                                                                                              \
    a0 = CAST_OUT(ADD(CAST_IN(CAST_OUT(ADD(CAST_IN(a0), CAST_IN(a1)))),                           \
                      CAST_IN(CAST_OUT(ADD(CAST_IN(a2), CAST_IN(a3))))));                          \
    char lanes[32], total[8];                                                                      \
    _mm256_storeu_si256((__m256i *)lanes, a0);                                                     \
    memcpy(total, lanes, ELEM);                                                                    \
    for (int l = 1; l < LANES; l++)                                                                \
      scalar_##T->combine(scalar_##T, total, total, lanes + l * ELEM);                             \
    if (i < n) {                                                                                   \
      char tail[8];                                                                                \
      scalar_##T->reduce(scalar_##T, in + i * ELEM, n - i, tail);                                  \
      scalar_##T->combine(scalar_##T, total, total, tail);                                         \
    }                                                                                              \
    (void)op;                                                                                      \
    memcpy(acc, total, ELEM);                                                                      \
  }

/* Type-erased entry points: the vector part, then the scalar kernel finishes the tail from the
   carry (so tails, NULL carries and exclusive identities follow the scalar rules exactly). */
#define ENTRY(T, ELEM, ZERO_BITS)                                                                  \
  static const pscan__cpu_op *scalar_##T;                                                          \
  static AVX2 void start_carry_##T(const void *carry, __m256i *c) {                                \
    uint64_t bits = ZERO_BITS;                                                                     \
    if (carry)                                                                                     \
      memcpy(&bits, carry, ELEM);                                                                  \
    *c = ELEM == 4 ? _mm256_set1_epi32((int)(uint32_t)bits) : _mm256_set1_epi64x((long long)bits); \
  }                                                                                                \
  static AVX2 void scan_##T(const pscan__cpu_op *op, const void *in, void *out, size_t n,          \
                            const void *carry, void *scratch, int exclusive) {                     \
    if (!carry && exclusive) { /* out[0] is the API's identity: leave the first element to the     \
                                  scalar kernel, then continue from in[0] */                       \
      (void)op;                                                                                    \
      char acc[8];                                                                                 \
      memcpy(acc, in, ELEM); /* before out[0] overwrites it (in place) */                          \
      scalar_##T->scan_excl(scalar_##T, in, out, 1, NULL, scratch);                                \
      if (n > 1) {                                                                                 \
        __m256i c;                                                                                 \
        start_carry_##T(acc, &c);                                                                  \
        size_t done = vector_part_##T((const char *)in + ELEM, (char *)out + ELEM, n - 1, &c, 1);  \
        char next[32];                                                                             \
        _mm256_storeu_si256((__m256i *)next, c);                                                   \
        if (done < n - 1)                                                                          \
          scalar_##T->scan_excl(scalar_##T, (const char *)in + ELEM * (1 + done),                  \
                                (char *)out + ELEM * (1 + done), n - 1 - done, next, scratch);     \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    __m256i c;                                                                                     \
    start_carry_##T(carry, &c);                                                                    \
    size_t done = vector_part_##T(in, out, n, &c, exclusive);                                      \
    if (done < n) {                                                                                \
      char next[32];                                                                               \
      _mm256_storeu_si256((__m256i *)next, c);                                                     \
      const void *tail_carry = done > 0 || carry ? (const void *)next : NULL;                      \
      (exclusive ? scalar_##T->scan_excl : scalar_##T->scan_incl)(                                 \
          scalar_##T, (const char *)in + ELEM * done, (char *)out + ELEM * done, n - done,         \
          tail_carry, scratch);                                                                    \
    }                                                                                              \
  }                                                                                                \
  static void scan_incl_##T(const pscan__cpu_op *op, const void *in, void *out, size_t n,          \
                            const void *carry, void *scratch) {                                    \
    scan_##T(op, in, out, n, carry, scratch, 0);                                                   \
  }                                                                                                \
  static void scan_excl_##T(const pscan__cpu_op *op, const void *in, void *out, size_t n,          \
                            const void *carry, void *scratch) {                                    \
    scan_##T(op, in, out, n, carry, scratch, 1);                                                   \
  }

ENTRY(i32, 4, 0)
ENTRY(f32, 4, 0x80000000u)
ENTRY(i64, 8, 0)
ENTRY(f64, 8, 0x8000000000000000ull)
REDUCE(i32, 4, 8, _mm256_add_epi32, ID_I, ID_I, 0)
REDUCE(f32, 4, 8, _mm256_add_ps, _mm256_castsi256_ps, _mm256_castps_si256, 0x80000000u)
REDUCE(i64, 8, 4, _mm256_add_epi64, ID_I, ID_I, 0)
REDUCE(f64, 8, 4, _mm256_add_pd, _mm256_castsi256_pd, _mm256_castpd_si256, 0x8000000000000000ull)

static pscan__cpu_op ops[6];
static const struct {
  pscan_dtype type;
  const pscan__cpu_op **scalar;
  void (*incl)(const pscan__cpu_op *, const void *, void *, size_t, const void *, void *);
  void (*excl)(const pscan__cpu_op *, const void *, void *, size_t, const void *, void *);
  void (*reduce)(const pscan__cpu_op *, const void *, size_t, void *);
} table[6] = {
    {PSCAN_I32, &scalar_i32, scan_incl_i32, scan_excl_i32, reduce_i32},
    {PSCAN_U32, &scalar_i32, scan_incl_i32, scan_excl_i32, reduce_i32},
    {PSCAN_F32, &scalar_f32, scan_incl_f32, scan_excl_f32, reduce_f32},
    {PSCAN_I64, &scalar_i64, scan_incl_i64, scan_excl_i64, reduce_i64},
    {PSCAN_U64, &scalar_i64, scan_incl_i64, scan_excl_i64, reduce_i64},
    {PSCAN_F64, &scalar_f64, scan_incl_f64, scan_excl_f64, reduce_f64},
};

/* Built once (kernels.c calls it under pthread_once): each AVX2 operator is the scalar one with
   its scans replaced. The unsigned types share the signed kernels (same bits, same wrap). */
void pscan__cpu_avx2_init(void) {
  scalar_i32 = pscan__cpu_scalar_op(PSCAN_I32, PSCAN_I32, PSCAN_SUM);
  scalar_f32 = pscan__cpu_scalar_op(PSCAN_F32, PSCAN_F32, PSCAN_SUM);
  scalar_i64 = pscan__cpu_scalar_op(PSCAN_I64, PSCAN_I64, PSCAN_SUM);
  scalar_f64 = pscan__cpu_scalar_op(PSCAN_F64, PSCAN_F64, PSCAN_SUM);
  for (int i = 0; i < 6; i++) {
    ops[i] = *pscan__cpu_scalar_op(table[i].type, table[i].type, PSCAN_SUM);
    ops[i].scan_incl = table[i].incl;
    ops[i].scan_excl = table[i].excl;
    ops[i].reduce = table[i].reduce;
  }
}

const pscan__cpu_op *pscan__cpu_avx2_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  if (op != PSCAN_SUM || in != acc)
    return NULL;
  for (int i = 0; i < 6; i++)
    if (table[i].type == in)
      return &ops[i];
  return NULL;
}

bool pscan__cpu_has_avx2(void) { return __builtin_cpu_supports("avx2"); }

#else /* not x86-64: the portable kernels only */
void pscan__cpu_avx2_init(void) {}
const pscan__cpu_op *pscan__cpu_avx2_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  (void)in, (void)acc, (void)op;
  return NULL;
}
bool pscan__cpu_has_avx2(void) { return false; }
#endif
