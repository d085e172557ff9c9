/* AVX2 kernels for 8-, 16-, 32- and 64-bit scans: SUM, PROD, MIN, MAX, AND, OR, XOR of the
 * integer types and SUM, PROD of the float types where AVX2 has the instruction (no 8-bit or
 * 64-bit multiply, no 64-bit MIN/MAX: those stay scalar); the scans and the partition reductions,
 * propagation and combination stay scalar. See AVX2_USES for the exact list.
 *
 * An in-register scan of one vector takes log2(lanes) shift-and-add steps (the Kogge-Stone
 * network of docs/ALGORITHMS.md, inside a register: within each 128-bit half, then the lower
 * half's total into the upper), then adds the running carry, broadcast from the previous vector's
 * last lane. Integer sums and products wrap exactly like the scalar kernels. Float
 * sums associate differently from a left fold (((a+b)+(c+d)) for the fourth lane), so their bits
 * can differ from the scalar path, but they are fixed by the element's position in its partition:
 * DETERMINISTIC keeps its guarantee. Lanes shifted in by the network hold the identity -0.0, never
 * +0.0, so a sum of -0.0 values stays -0.0 as on the scalar path.
 *
 * The loops, the streaming variants and the operator tables are shared with simd_avx512.c
 * (simd_body.h); this file holds what is AVX2's own: the operators and the in-register network.
 * Compiled for every x86-64 target through function attributes; used only when the CPU and the
 * OS support AVX2 (checked once) and PSCAN_CPU_ISA allows it (kernels.c). */
#include "cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <string.h>

#include "simd_lists.h"

#define AVX2 __attribute__((target("avx2")))

/* ---- The vector operators (on integer-typed vectors; floats cast inside) ---- */
#define VOP(name, expr)                                                                            \
  static AVX2 inline __m256i name(__m256i a, __m256i b) { return expr; }
SIMD_COMMON_VOPS(VOP, _mm256, si256)

/* The variants and their uses: the list both vector widths share (simd_lists.h). */
#define AVX2_VARIANTS SIMD_COMMON_VARIANTS
#define AVX2_USES SIMD_COMMON_USES

/* ---- The vector helpers simd_body.h expects ---- */
typedef __m256i simd_v;
static AVX2 inline __m256i v_loadu(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static AVX2 inline void v_storeu(void *p, __m256i x) { _mm256_storeu_si256((__m256i *)p, x); }
static AVX2 inline void v_stream(void *p, __m256i x) { _mm256_stream_si256((__m256i *)p, x); }

static AVX2 inline __m256i v_broadcast(uint64_t bits, int elem) {
  switch (elem) {
  case 1: return _mm256_set1_epi8((char)(uint8_t)bits);
  case 2: return _mm256_set1_epi16((short)(uint16_t)bits);
  case 4: return _mm256_set1_epi32((int)(uint32_t)bits);
  default: return _mm256_set1_epi64x((long long)bits);
  }
}

/* Within each 128-bit half, the last element broadcast (pshufb indexes bytes within halves). */
static AVX2 inline __m256i v_half_last(__m256i x, int elem) {
  return _mm256_shuffle_epi8(x, elem == 1 ? _mm256_set1_epi8(15) : _mm256_set1_epi16(0x0F0E));
}

/* Inclusive scan of one vector (Kogge-Stone inside the register). Lanes a shift fills with zeros
   get the identity's bits OR-ed in (z1, z2); the upper half then adds the lower half's total. */
static AVX2 inline __m256i v_scan(__m256i x, int elem, __m256i (*op)(__m256i, __m256i),
                                  uint64_t id_bits) {
  __m256i id = v_broadcast(id_bits, elem);
  if (elem <= 2) { /* palignr(x, id, 16 - k): a shift by k bytes within each half, id shifted in */
    if (elem == 1)
      x = op(x, _mm256_alignr_epi8(x, id, 15));
    x = op(x, _mm256_alignr_epi8(x, id, 14));
    x = op(x, _mm256_alignr_epi8(x, id, 12));
    x = op(x, _mm256_alignr_epi8(x, id, 8));
    __m256i low_total = v_half_last(x, elem);
    __m256i up = _mm256_permute2x128_si256(low_total, low_total, 0x08);
    return op(x, _mm256_blend_epi32(up, id, 0x0F));
  }
  if (elem == 4) {
    __m256i z1 = _mm256_blend_epi32(_mm256_setzero_si256(), id, 0x11);
    __m256i z2 = _mm256_blend_epi32(_mm256_setzero_si256(), id, 0x33);
    x = op(x, _mm256_or_si256(_mm256_slli_si256(x, 4), z1));
    x = op(x, _mm256_or_si256(_mm256_slli_si256(x, 8), z2));
    __m256i low_total = _mm256_shuffle_epi32(x, 0xFF);
    __m256i up = _mm256_permute2x128_si256(low_total, low_total, 0x08);
    return op(x, _mm256_blend_epi32(up, id, 0x0F));
  }
  __m256i z1 = _mm256_blend_epi32(_mm256_setzero_si256(), id, 0x33);
  x = op(x, _mm256_or_si256(_mm256_slli_si256(x, 8), z1));
  __m256i low_total = _mm256_permute4x64_epi64(x, 0x55);
  return op(x, _mm256_blend_epi32(id, low_total, 0xF0));
}

static AVX2 inline __m256i v_last(__m256i x, int elem) {
  if (elem <= 2) /* the top quadword everywhere, then its last element within each half */
    return v_half_last(_mm256_permute4x64_epi64(x, 0xFF), elem);
  return elem == 4 ? _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7))
                   : _mm256_permute4x64_epi64(x, 0xFF);
}

/* carry ⊕ last(s): only one op on the loop-carried chain (8 lanes are done in ~4 cycles of
   throughput, faster than an op plus a lane-crossing permute of latency 3 on the chain). */
static AVX2 inline __m256i v_next_carry(__m256i s, __m256i r, __m256i c, int elem,
                                        __m256i (*op)(__m256i, __m256i)) {
  (void)r;
  return op(c, v_last(s, elem));
}

/* (c0, s0 .. s_{L-2}): the exclusive vector from the inclusive one and the carry. */
static AVX2 inline __m256i v_shift_in(__m256i s, __m256i c, int elem) {
  if (elem <= 2) { /* each half shifted by one element, the bytes shifted in from (c, s's low half) */
    __m256i below = _mm256_permute2x128_si256(s, c, 0x02);
    return elem == 1 ? _mm256_alignr_epi8(s, below, 15) : _mm256_alignr_epi8(s, below, 14);
  }
  if (elem == 4)
    return _mm256_blend_epi32(
        _mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6)), c, 0x01);
  return _mm256_blend_epi32(_mm256_permute4x64_epi64(s, 0x93), c, 0x03);
}

#define SIMD_TARGET AVX2
#define SIMD_BYTES 32
#define SIMD_VARIANTS AVX2_VARIANTS
#define SIMD_USES AVX2_USES
#endif /* x86-64 */

#define SIMD_ISA avx2
#include "simd_body.h"
