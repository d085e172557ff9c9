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
  X(x64_xor, 8, vxor, 0, I64, XOR)

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
  X(I32, XOR, x32_xor) X(U32, XOR, x32_xor) X(I64, XOR, x64_xor) X(U64, XOR, x64_xor)

#endif /* PSCAN_CPU_SIMD_LISTS_H */
