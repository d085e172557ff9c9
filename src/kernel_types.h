/* Type tables shared by the CPU kernels (cpu/kernels.c) and the CUDA kernels (cuda/common.cuh):
 * the C type of each element type, the unsigned type its SUM and PROD wrap in, and size and
 * float-ness as macros that #if can test. Used by the include-templates through PSCAN__CAT. */
#ifndef PSCAN_KERNEL_TYPES_H
#define PSCAN_KERNEL_TYPES_H

#include <stdint.h>

#include "lists.h"

#define PSCAN__CAT_(a, b) a##b
#define PSCAN__CAT(a, b) PSCAN__CAT_(a, b)

#define X(E, name, ctype, kind) typedef ctype PSCAN__CTYPE_##E;
PSCAN_TYPES(X)
#undef X

/* Integer SUM/PROD wrap in an unsigned type at least as wide as int (no UB for signed or small
   types); floats never use theirs. */
typedef uint32_t PSCAN__WRAP_I8, PSCAN__WRAP_I16, PSCAN__WRAP_I32;
typedef uint32_t PSCAN__WRAP_U8, PSCAN__WRAP_U16, PSCAN__WRAP_U32;
typedef uint64_t PSCAN__WRAP_I64, PSCAN__WRAP_U64;
typedef double PSCAN__WRAP_F32, PSCAN__WRAP_F64;

/* For #if: every other type reads as 0 (an undefined name). */
#define PSCAN__ISFLOAT_F32 1
#define PSCAN__ISFLOAT_F64 1
/* Operators whose float results depend on the order of combination (pscan__order_sensitive). */
#define PSCAN__ORDER_SENSITIVE_SUM 1
#define PSCAN__ORDER_SENSITIVE_PROD 1
#define PSCAN__SIZE_I8 1
#define PSCAN__SIZE_U8 1
#define PSCAN__SIZE_I16 2
#define PSCAN__SIZE_U16 2
#define PSCAN__SIZE_I32 4
#define PSCAN__SIZE_U32 4
#define PSCAN__SIZE_F32 4
#define PSCAN__SIZE_I64 8
#define PSCAN__SIZE_U64 8
#define PSCAN__SIZE_F64 8
/* For #if in a stamp of (PAIR_IN, PAIR_OUT): the pair does not widen (the scan-by-key kernels,
   whose keys' runs index input and output alike, exist only for such pairs). */
#define PSCAN__PAIR_SAME_SIZE                                                                    \
  (PSCAN__CAT(PSCAN__SIZE_, PAIR_IN) == PSCAN__CAT(PSCAN__SIZE_, PAIR_OUT))

#endif /* PSCAN_KERNEL_TYPES_H */
