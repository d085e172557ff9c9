/* AVX2 kernels for 32- and 64-bit scans: SUM, PROD, MIN, MAX, AND, OR, XOR of the integer types
 * and SUM, PROD of the float types where AVX2 has the instruction (the scans and the partition
 * reductions; propagation and combination stay scalar). See AVX2_USES for the exact list.
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

/* ---- The vector operators (on integer-typed vectors; floats cast inside) ---- */
#define VOP(name, expr)                                                                            \
  static AVX2 inline __m256i name(__m256i a, __m256i b) { return expr; }
VOP(vadd_i32, _mm256_add_epi32(a, b))
VOP(vadd_i64, _mm256_add_epi64(a, b))
VOP(vadd_f32, _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))))
VOP(vadd_f64, _mm256_castpd_si256(_mm256_add_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b))))
VOP(vmul_i32, _mm256_mullo_epi32(a, b))
VOP(vmul_f32, _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))))
VOP(vmul_f64, _mm256_castpd_si256(_mm256_mul_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b))))
VOP(vmin_i32, _mm256_min_epi32(a, b))
VOP(vmin_u32, _mm256_min_epu32(a, b))
VOP(vmax_i32, _mm256_max_epi32(a, b))
VOP(vmax_u32, _mm256_max_epu32(a, b))
VOP(vand, _mm256_and_si256(a, b))
VOP(vor, _mm256_or_si256(a, b))
VOP(vxor, _mm256_xor_si256(a, b))

/* The variants: X(name, element bytes, vector operator, identity bits, scalar type, op). Every
   operator here is commutative, so the lanes may be combined in any bracketing and order; float
   MIN and MAX are not among them (their tie rule between -0.0 and +0.0 depends on operand order).
   The unsigned types reuse the signed variants where the bits are the same. */
#define AVX2_VARIANTS(X)                                                \
  X(i32_sum, 4, vadd_i32, 0, I32, SUM)                                  \
  X(i64_sum, 8, vadd_i64, 0, I64, SUM)                                  \
  X(f32_sum, 4, vadd_f32, 0x80000000u, F32, SUM)                        \
  X(f64_sum, 8, vadd_f64, 0x8000000000000000ull, F64, SUM)              \
  X(i32_prod, 4, vmul_i32, 1, I32, PROD)                                \
  X(f32_prod, 4, vmul_f32, 0x3F800000u, F32, PROD)                      \
  X(f64_prod, 8, vmul_f64, 0x3FF0000000000000ull, F64, PROD)            \
  X(i32_min, 4, vmin_i32, 0x7FFFFFFFu, I32, MIN)                        \
  X(u32_min, 4, vmin_u32, 0xFFFFFFFFu, U32, MIN)                        \
  X(i32_max, 4, vmax_i32, 0x80000000u, I32, MAX)                        \
  X(u32_max, 4, vmax_u32, 0, U32, MAX)                                  \
  X(x32_and, 4, vand, 0xFFFFFFFFu, I32, AND)                            \
  X(x64_and, 8, vand, 0xFFFFFFFFFFFFFFFFull, I64, AND)                  \
  X(x32_or, 4, vor, 0, I32, OR)                                         \
  X(x64_or, 8, vor, 0, I64, OR)                                         \
  X(x32_xor, 4, vxor, 0, I32, XOR)                                      \
  X(x64_xor, 8, vxor, 0, I64, XOR)

/* Which (type, op) each variant serves: X(type, op, variant). */
#define AVX2_USES(X)                                                                               \
  X(I32, SUM, i32_sum) X(U32, SUM, i32_sum) X(I64, SUM, i64_sum) X(U64, SUM, i64_sum)              \
  X(F32, SUM, f32_sum) X(F64, SUM, f64_sum)                                                        \
  X(I32, PROD, i32_prod) X(U32, PROD, i32_prod) X(F32, PROD, f32_prod) X(F64, PROD, f64_prod)      \
  X(I32, MIN, i32_min) X(U32, MIN, u32_min) X(I32, MAX, i32_max) X(U32, MAX, u32_max)              \
  X(I32, AND, x32_and) X(U32, AND, x32_and) X(I64, AND, x64_and) X(U64, AND, x64_and)              \
  X(I32, OR, x32_or) X(U32, OR, x32_or) X(I64, OR, x64_or) X(U64, OR, x64_or)                      \
  X(I32, XOR, x32_xor) X(U32, XOR, x32_xor) X(I64, XOR, x64_xor) X(U64, XOR, x64_xor)

static AVX2 inline __m256i broadcast(uint64_t bits, int elem) {
  return elem == 4 ? _mm256_set1_epi32((int)(uint32_t)bits) : _mm256_set1_epi64x((long long)bits);
}

/* Inclusive scan of one vector (Kogge-Stone inside the register). Lanes a shift fills with zeros
   get the identity's bits OR-ed in (z1, z2); the upper half then adds the lower half's total. */
static AVX2 inline __m256i scan_vector(__m256i x, int elem, __m256i (*op)(__m256i, __m256i),
                                       uint64_t id_bits) {
  __m256i id = broadcast(id_bits, elem);
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

static AVX2 inline __m256i last_lane(__m256i x, int elem) {
  return elem == 4 ? _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7))
                   : _mm256_permute4x64_epi64(x, 0xFF);
}

/* Whole vectors of in[0..n) -> out, from the broadcast carry; returns the elements done. */
static AVX2 inline size_t vector_part(const char *in, char *out, size_t n, __m256i *carry,
                                      int exclusive, int elem, __m256i (*op)(__m256i, __m256i),
                                      uint64_t id_bits) {
  const size_t lanes = 32 / (size_t)elem;
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(in + i * elem));
    __m256i s = op(scan_vector(x, elem, op, id_bits), *carry);
    __m256i r = s;
    if (exclusive) { /* (carry, s0 .. s_{L-2}) */
      r = elem == 4 ? _mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6))
                    : _mm256_permute4x64_epi64(s, 0x93);
      r = elem == 4 ? _mm256_blend_epi32(r, *carry, 0x01) : _mm256_blend_epi32(r, *carry, 0x03);
    }
    _mm256_storeu_si256((__m256i *)(out + i * elem), r);
    *carry = last_lane(s, elem);
  }
  return i;
}

/* A scan: whole vectors here, the tail (and the API's first exclusive element) by the variant's
   scalar kernel, so NULL carries and identities follow the scalar rules exactly. */
static AVX2 inline void scan_any(const pscan__cpu_op *scalar, const void *in, void *out, size_t n,
                                 const void *carry, void *scratch, int exclusive, int elem,
                                 __m256i (*op)(__m256i, __m256i), uint64_t id_bits) {
  uint64_t bits = id_bits;
  size_t first = 0;
  if (!carry && exclusive) { /* out[0] is the API's identity; continue from in[0] */
    memcpy(&bits, in, (size_t)elem); /* before out[0] overwrites it (in place) */
    scalar->scan_excl(scalar, in, out, 1, NULL, scratch);
    first = 1;
  } else if (carry) {
    memcpy(&bits, carry, (size_t)elem);
  }
  if (first >= n)
    return;
  __m256i c = broadcast(bits, elem);
  const char *src = (const char *)in + first * elem;
  char *dst = (char *)out + first * elem;
  size_t done = vector_part(src, dst, n - first, &c, exclusive, elem, op, id_bits);
  if (first + done < n) {
    char next[32];
    _mm256_storeu_si256((__m256i *)next, c);
    const void *tail_carry = done > 0 || carry || first ? (const void *)next : NULL;
    (exclusive ? scalar->scan_excl : scalar->scan_incl)(scalar, src + done * elem,
                                                       dst + done * elem, n - first - done,
                                                       tail_carry, scratch);
  }
}

/* Reduction: four independent vector accumulators (the ops of one do not wait on another), then
   the lanes, then the tail. The order depends only on positions within the call. */
static AVX2 inline void reduce_any(const pscan__cpu_op *scalar, const void *in_, size_t n,
                                   void *acc, int elem, __m256i (*op)(__m256i, __m256i),
                                   uint64_t id_bits) {
  const char *in = in_;
  const size_t lanes = 32 / (size_t)elem;
  __m256i id = broadcast(id_bits, elem), a0 = id, a1 = id, a2 = id, a3 = id;
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const __m256i *p = (const __m256i *)(in + i * elem);
    a0 = op(a0, _mm256_loadu_si256(p));
    a1 = op(a1, _mm256_loadu_si256(p + 1));
    a2 = op(a2, _mm256_loadu_si256(p + 2));
    a3 = op(a3, _mm256_loadu_si256(p + 3));
  }
  char v[32], total[8];
  _mm256_storeu_si256((__m256i *)v, op(op(a0, a1), op(a2, a3)));
  memcpy(total, v, (size_t)elem);
  for (size_t l = 1; l < lanes; l++)
    scalar->combine(scalar, total, total, v + l * elem);
  if (i < n) {
    char tail[8];
    scalar->reduce(scalar, in + i * elem, n - i, tail);
    scalar->combine(scalar, total, total, tail);
  }
  memcpy(acc, total, (size_t)elem);
}

/* Stamps the kernels of one variant; its scalar operator is set by pscan__cpu_avx2_init. */
#define STAMP(V, ELEM, OPF, ID, TYPE, OP)                                                          \
  static const pscan__cpu_op *scalar_##V;                                                          \
  static AVX2 void scan_incl_##V(const pscan__cpu_op *self, const void *in, void *out, size_t n,   \
                                 const void *carry, void *scratch) {                               \
    (void)self;                                                                                    \
    scan_any(scalar_##V, in, out, n, carry, scratch, 0, ELEM, OPF, ID);                            \
  }                                                                                                \
  static AVX2 void scan_excl_##V(const pscan__cpu_op *self, const void *in, void *out, size_t n,   \
                                 const void *carry, void *scratch) {                               \
    (void)self;                                                                                    \
    scan_any(scalar_##V, in, out, n, carry, scratch, 1, ELEM, OPF, ID);                            \
  }                                                                                                \
  static AVX2 void reduce_##V(const pscan__cpu_op *self, const void *in, size_t n, void *acc) {    \
    (void)self;                                                                                    \
    reduce_any(scalar_##V, in, n, acc, ELEM, OPF, ID);                                             \
  }
AVX2_VARIANTS(STAMP)
#undef STAMP

#define COUNT_USE(T, O, V) +1
enum { NUSES = 0 AVX2_USES(COUNT_USE) };
#undef COUNT_USE
static pscan__cpu_op ops[NUSES];

/* Built once (kernels.c calls it under pthread_once): each AVX2 operator is the scalar one of
   its (type, op) with the scans and the reduction replaced. */
void pscan__cpu_avx2_init(void) {
#define SET_SCALAR(V, ELEM, OPF, ID, TYPE, OP)                                                     \
  scalar_##V = pscan__cpu_scalar_op(PSCAN_##TYPE, PSCAN_##TYPE, PSCAN_##OP);
  AVX2_VARIANTS(SET_SCALAR)
#undef SET_SCALAR
  int i = 0;
#define FILL(T, O, V)                                                                              \
  ops[i] = *pscan__cpu_scalar_op(PSCAN_##T, PSCAN_##T, PSCAN_##O);                                 \
  ops[i].scan_incl = scan_incl_##V;                                                                \
  ops[i].scan_excl = scan_excl_##V;                                                                \
  ops[i].reduce = reduce_##V;                                                                      \
  i++;
  AVX2_USES(FILL)
#undef FILL
}

const pscan__cpu_op *pscan__cpu_avx2_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  if (in != acc)
    return NULL;
  int i = 0;
#define FIND(T, O, V)                                                                              \
  if (in == PSCAN_##T && op == PSCAN_##O)                                                          \
    return &ops[i];                                                                                \
  i++;
  AVX2_USES(FIND)
#undef FIND
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
