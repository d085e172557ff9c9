/* AVX-512 kernels: the AVX2 variant list (simd_avx2.c) on 512-bit vectors (the 8- and 16-bit
 * operators from AVX512BW), plus what AVX-512 adds for 64-bit lanes: PROD (vpmullq, AVX512DQ) and
 * signed/unsigned MIN and MAX (vpminsq, vpminuq, ...). See AVX512_USES for the exact list.
 *
 * The in-register scan is the Kogge-Stone network over 64 x 8-bit, 32 x 16-bit, 16 x 32-bit or
 * 8 x 64-bit lanes: log2(lanes) steps, each a lane shift and one operator. A shift by whole
 * dwords is valignd/valignq of the vector with a broadcast identity, which shifts lanes across
 * the whole register and fills the vacated lanes with the identity in one instruction (Intel SDM
 * vol. 2, VALIGND/VALIGNQ); a shift by 1 or 2 bytes is vpalignr, which shifts within 128-bit
 * blocks, fed the block below by a valignd. The same instructions with the carry make the
 * exclusive vector. Float sums associate within a vector as on the AVX2
 * path, only over more lanes: their bits are fixed by the position in the partition (so
 * DETERMINISTIC holds on one machine), but differ from the scalar and AVX2 paths.
 *
 * Compiled for every x86-64 target through function attributes (AVX512F, BW, DQ, VL, as Skylake-SP
 * and later have); used only when the CPU has them and the OS saves the zmm and mask registers
 * (CPUID and XGETBV, kernels.c), and PSCAN_CPU_ISA allows it. */
#include "cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <string.h>

#include "simd_lists.h"

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

/* ---- The vector operators (on integer-typed vectors; floats cast inside) ---- */
#define VOP(name, expr)                                                                            \
  static AVX512 inline __m512i name(__m512i a, __m512i b) { return expr; }
SIMD_COMMON_VOPS(VOP, _mm512, si512)
VOP(vmul_i64, _mm512_mullo_epi64(a, b))
VOP(vmin_i64, _mm512_min_epi64(a, b))
VOP(vmin_u64, _mm512_min_epu64(a, b))
VOP(vmax_i64, _mm512_max_epi64(a, b))
VOP(vmax_u64, _mm512_max_epu64(a, b))

/* The variants: the shared list (simd_lists.h) plus what AVX-512 adds for 64-bit lanes. */
#define AVX512_VARIANTS(X)                                                                         \
  SIMD_COMMON_VARIANTS(X)                                                                          \
  X(i64_prod, 8, vmul_i64, 1, I64, PROD)                                                           \
  X(i64_min, 8, vmin_i64, 0x7FFFFFFFFFFFFFFFull, I64, MIN)                                         \
  X(u64_min, 8, vmin_u64, 0xFFFFFFFFFFFFFFFFull, U64, MIN)                                         \
  X(i64_max, 8, vmax_i64, 0x8000000000000000ull, I64, MAX)                                         \
  X(u64_max, 8, vmax_u64, 0, U64, MAX)

/* Which (type, op) each variant serves: X(type, op, variant). */
#define AVX512_USES(X)                                                                             \
  SIMD_COMMON_USES(X)                                                                              \
  X(I64, PROD, i64_prod) X(U64, PROD, i64_prod)                                                    \
  X(I64, MIN, i64_min) X(U64, MIN, u64_min) X(I64, MAX, i64_max) X(U64, MAX, u64_max)

/* ---- The vector helpers simd_body.h expects ---- */
typedef __m512i simd_v;
static AVX512 inline __m512i v_loadu(const void *p) { return _mm512_loadu_si512(p); }
static AVX512 inline void v_storeu(void *p, __m512i x) { _mm512_storeu_si512(p, x); }
static AVX512 inline void v_stream(void *p, __m512i x) { _mm512_stream_si512((__m512i *)p, x); }

static AVX512 inline __m512i v_broadcast(uint64_t bits, int elem) {
  switch (elem) {
  case 1: return _mm512_set1_epi8((char)(uint8_t)bits);
  case 2: return _mm512_set1_epi16((short)(uint16_t)bits);
  case 4: return _mm512_set1_epi32((int)(uint32_t)bits);
  default: return _mm512_set1_epi64((long long)bits);
  }
}

/* x shifted up the whole register by one 128-bit block, fill's block shifted in: the bytes that
   vpalignr (which shifts within blocks) takes from below each block. */
static AVX512 inline __m512i v_block_below(__m512i x, __m512i fill) {
  return _mm512_alignr_epi32(x, fill, 12);
}

/* valign(x, fill, L - k): lane i takes x[i - k], or fill where i < k. */
static AVX512 inline __m512i v_scan(__m512i x, int elem, __m512i (*op)(__m512i, __m512i),
                                    uint64_t id_bits) {
  __m512i id = v_broadcast(id_bits, elem);
  if (elem == 1) /* shifts by 1 and 2 bytes: vpalignr across the blocks (v_block_below) */
    x = op(x, _mm512_alignr_epi8(x, v_block_below(x, id), 15));
  if (elem <= 2)
    x = op(x, _mm512_alignr_epi8(x, v_block_below(x, id), 14));
  if (elem <= 4) { /* shifts by 4, 8, 16 and 32 bytes */
    x = op(x, _mm512_alignr_epi32(x, id, 15));
    x = op(x, _mm512_alignr_epi32(x, id, 14));
    x = op(x, _mm512_alignr_epi32(x, id, 12));
    return op(x, _mm512_alignr_epi32(x, id, 8));
  }
  x = op(x, _mm512_alignr_epi64(x, id, 7));
  x = op(x, _mm512_alignr_epi64(x, id, 6));
  return op(x, _mm512_alignr_epi64(x, id, 4));
}

static AVX512 inline __m512i v_last(__m512i x, int elem) {
  if (elem == 1) /* the top dword everywhere, then its top byte (vpermb would need VBMI) */
    return _mm512_shuffle_epi8(_mm512_permutexvar_epi32(_mm512_set1_epi32(15), x),
                               _mm512_set1_epi8(3));
  if (elem == 2)
    return _mm512_permutexvar_epi16(_mm512_set1_epi16(31), x);
  return elem == 4 ? _mm512_permutexvar_epi32(_mm512_set1_epi32(15), x)
                   : _mm512_permutexvar_epi64(_mm512_set1_epi64(7), x);
}

/* last(r): 16 lanes take ~5 cycles of port 0/5 throughput (512-bit ops have no third port),
   more than the chain's op + permute (4 cycles), so the op saved counts, not the latency. */
static AVX512 inline __m512i v_next_carry(__m512i s, __m512i r, __m512i c, int elem,
                                          __m512i (*op)(__m512i, __m512i)) {
  (void)s, (void)c, (void)op;
  return v_last(r, elem);
}

/* (c0, s0 .. s_{L-2}): the exclusive vector from the inclusive one and the carry. */
static AVX512 inline __m512i v_shift_in(__m512i s, __m512i c, int elem) {
  if (elem == 1)
    return _mm512_alignr_epi8(s, v_block_below(s, c), 15);
  if (elem == 2)
    return _mm512_alignr_epi8(s, v_block_below(s, c), 14);
  return elem == 4 ? _mm512_alignr_epi32(s, c, 15) : _mm512_alignr_epi64(s, c, 7);
}

#define SIMD_TARGET AVX512
#define SIMD_BYTES 64
#define SIMD_VARIANTS AVX512_VARIANTS
#define SIMD_USES AVX512_USES
#endif /* x86-64 */

#define SIMD_ISA avx512
#include "simd_body.h"
