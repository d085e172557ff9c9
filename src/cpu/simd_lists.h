#ifndef PSCAN_CPU_SIMD_LISTS_H
#define PSCAN_CPU_SIMD_LISTS_H

/* The SIMD variant lists that simd_avx2.c and simd_avx512.c share (each file adds its own, and
 * defines the vector operators named here for its width: vadd_i32, vmul_f64, vand, ...).
 *
 * The variants: X(name, element bytes, vector operator, identity bits, scalar type, op). Every
 * operator here is commutative, so the lanes may be combined in any bracketing and order; float
 * MIN and MAX are not among them (their tie rule between -0.0 and +0.0 depends on operand order).
 * The unsigned types reuse the signed variants where the bits are the same. */
#define SIMD_COMMON_VARIANTS(X)                                         \
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
  X(x64_xor, 8, vxor, 0, I64, XOR)                                      \
  SIMD_SMALL_VARIANTS(X)

/* The 8- and 16-bit variants (every width has the byte and word operators: AVX2, AVX512BW).
 * There is no 8-bit vector multiply, so 8-bit PROD stays scalar. */
#define SIMD_SMALL_VARIANTS(X)                                          \
  X(i8_sum, 1, vadd_i8, 0, I8, SUM)                                     \
  X(i16_sum, 2, vadd_i16, 0, I16, SUM)                                  \
  X(i16_prod, 2, vmul_i16, 1, I16, PROD)                                \
  X(i8_min, 1, vmin_i8, 0x7Fu, I8, MIN)                                 \
  X(u8_min, 1, vmin_u8, 0xFFu, U8, MIN)                                 \
  X(i8_max, 1, vmax_i8, 0x80u, I8, MAX)                                 \
  X(u8_max, 1, vmax_u8, 0, U8, MAX)                                     \
  X(i16_min, 2, vmin_i16, 0x7FFFu, I16, MIN)                            \
  X(u16_min, 2, vmin_u16, 0xFFFFu, U16, MIN)                            \
  X(i16_max, 2, vmax_i16, 0x8000u, I16, MAX)                            \
  X(u16_max, 2, vmax_u16, 0, U16, MAX)                                  \
  X(x8_and, 1, vand, 0xFFu, I8, AND)                                    \
  X(x16_and, 2, vand, 0xFFFFu, I16, AND)                                \
  X(x8_or, 1, vor, 0, I8, OR)                                           \
  X(x16_or, 2, vor, 0, I16, OR)                                         \
  X(x8_xor, 1, vxor, 0, I8, XOR)                                        \
  X(x16_xor, 2, vxor, 0, I16, XOR)

/* The vector operators the common variants name, for one width: VOP(name, expression of the
 * integer-typed vectors a and b), W the intrinsics' prefix (_mm256, _mm512), SI the integer
 * vector's suffix (si256, si512); floats are cast inside. */
#define SIMD_CAST_PS(W, SI, x) W##_cast##SI##_ps(x)
#define SIMD_CAST_PD(W, SI, x) W##_cast##SI##_pd(x)
#define SIMD_COMMON_VOPS(VOP, W, SI)                                                               \
  VOP(vadd_i32, W##_add_epi32(a, b))                                                               \
  VOP(vadd_i64, W##_add_epi64(a, b))                                                               \
  VOP(vadd_f32, W##_castps_##SI(W##_add_ps(SIMD_CAST_PS(W, SI, a), SIMD_CAST_PS(W, SI, b))))       \
  VOP(vadd_f64, W##_castpd_##SI(W##_add_pd(SIMD_CAST_PD(W, SI, a), SIMD_CAST_PD(W, SI, b))))       \
  VOP(vmul_i32, W##_mullo_epi32(a, b))                                                             \
  VOP(vmul_f32, W##_castps_##SI(W##_mul_ps(SIMD_CAST_PS(W, SI, a), SIMD_CAST_PS(W, SI, b))))       \
  VOP(vmul_f64, W##_castpd_##SI(W##_mul_pd(SIMD_CAST_PD(W, SI, a), SIMD_CAST_PD(W, SI, b))))       \
  VOP(vmin_i32, W##_min_epi32(a, b))                                                               \
  VOP(vmin_u32, W##_min_epu32(a, b))                                                               \
  VOP(vmax_i32, W##_max_epi32(a, b))                                                               \
  VOP(vmax_u32, W##_max_epu32(a, b))                                                               \
  VOP(vadd_i8, W##_add_epi8(a, b))                                                                 \
  VOP(vadd_i16, W##_add_epi16(a, b))                                                               \
  VOP(vmul_i16, W##_mullo_epi16(a, b))                                                             \
  VOP(vmin_i8, W##_min_epi8(a, b))                                                                 \
  VOP(vmin_u8, W##_min_epu8(a, b))                                                                 \
  VOP(vmax_i8, W##_max_epi8(a, b))                                                                 \
  VOP(vmax_u8, W##_max_epu8(a, b))                                                                 \
  VOP(vmin_i16, W##_min_epi16(a, b))                                                               \
  VOP(vmin_u16, W##_min_epu16(a, b))                                                               \
  VOP(vmax_i16, W##_max_epi16(a, b))                                                               \
  VOP(vmax_u16, W##_max_epu16(a, b))                                                               \
  VOP(vand, W##_and_##SI(a, b))                                                                    \
  VOP(vor, W##_or_##SI(a, b))                                                                      \
  VOP(vxor, W##_xor_##SI(a, b))

/* Which (type, op) each variant serves: X(type, op, variant). */
#define SIMD_COMMON_USES(X)                                                                        \
  X(I32, SUM, i32_sum) X(U32, SUM, i32_sum) X(I64, SUM, i64_sum) X(U64, SUM, i64_sum)              \
  X(F32, SUM, f32_sum) X(F64, SUM, f64_sum)                                                        \
  X(I32, PROD, i32_prod) X(U32, PROD, i32_prod) X(F32, PROD, f32_prod) X(F64, PROD, f64_prod)      \
  X(I32, MIN, i32_min) X(U32, MIN, u32_min) X(I32, MAX, i32_max) X(U32, MAX, u32_max)              \
  X(I32, AND, x32_and) X(U32, AND, x32_and) X(I64, AND, x64_and) X(U64, AND, x64_and)              \
  X(I32, OR, x32_or) X(U32, OR, x32_or) X(I64, OR, x64_or) X(U64, OR, x64_or)                      \
  X(I32, XOR, x32_xor) X(U32, XOR, x32_xor) X(I64, XOR, x64_xor) X(U64, XOR, x64_xor)              \
  X(I8, SUM, i8_sum) X(U8, SUM, i8_sum) X(I16, SUM, i16_sum) X(U16, SUM, i16_sum)                  \
  X(I16, PROD, i16_prod) X(U16, PROD, i16_prod)                                                    \
  X(I8, MIN, i8_min) X(U8, MIN, u8_min) X(I8, MAX, i8_max) X(U8, MAX, u8_max)                      \
  X(I16, MIN, i16_min) X(U16, MIN, u16_min) X(I16, MAX, i16_max) X(U16, MAX, u16_max)              \
  X(I8, AND, x8_and) X(U8, AND, x8_and) X(I16, AND, x16_and) X(U16, AND, x16_and)                  \
  X(I8, OR, x8_or) X(U8, OR, x8_or) X(I16, OR, x16_or) X(U16, OR, x16_or)                          \
  X(I8, XOR, x8_xor) X(U8, XOR, x8_xor) X(I16, XOR, x16_xor) X(U16, XOR, x16_xor)

#endif /* PSCAN_CPU_SIMD_LISTS_H */
