/* X-macro lists: the single source of truth for names, sizes and dispatch tables.
 * The public enums in pscan.h are written out for readers; types.c checks at compile time that
 * the counts agree, and its designated initialisers ([PSCAN_##E] = ...) that every entry names an
 * enumerator. */
#ifndef PSCAN_LISTS_H
#define PSCAN_LISTS_H

#include <stdint.h>

/* X(ENUM, short name, C type, kind) — kind: SINT, UINT or FLOAT */
#define PSCAN_TYPES(X)              \
  X(I8, i8, int8_t, SINT)           \
  X(I16, i16, int16_t, SINT)        \
  X(I32, i32, int32_t, SINT)        \
  X(I64, i64, int64_t, SINT)        \
  X(U8, u8, uint8_t, UINT)          \
  X(U16, u16, uint16_t, UINT)       \
  X(U32, u32, uint32_t, UINT)       \
  X(U64, u64, uint64_t, UINT)       \
  X(F32, f32, float, FLOAT)         \
  X(F64, f64, double, FLOAT)

/* X(ENUM, short name, integer types only) */
#define PSCAN_OPS(X) \
  X(SUM, sum, 0)     \
  X(PROD, prod, 0)   \
  X(MIN, min, 0)     \
  X(MAX, max, 0)     \
  X(AND, and, 1)     \
  X(OR, or, 1)       \
  X(XOR, xor, 1)

/* Scan (input type, accumulation/output type) pairs: the same type, or a wider one of the same
   kind. X(IN, OUT) */
#define PSCAN_SCAN_PAIRS(X)                                   \
  X(I8, I8) X(I8, I16) X(I8, I32) X(I8, I64)                  \
  X(I16, I16) X(I16, I32) X(I16, I64)                         \
  X(I32, I32) X(I32, I64)                                     \
  X(I64, I64)                                                 \
  X(U8, U8) X(U8, U16) X(U8, U32) X(U8, U64)                  \
  X(U16, U16) X(U16, U32) X(U16, U64)                         \
  X(U32, U32) X(U32, U64)                                     \
  X(U64, U64)                                                 \
  X(F32, F32) X(F32, F64)                                     \
  X(F64, F64)

#define PSCAN_STATUSES(X)     \
  X(OK)                       \
  X(ERR_INVALID_ARGUMENT)     \
  X(ERR_UNSUPPORTED)          \
  X(ERR_OVERLAP)              \
  X(ERR_OVERFLOW)             \
  X(ERR_OUT_OF_MEMORY)        \
  X(ERR_NO_DEVICE)            \
  X(ERR_WRONG_MEMORY)         \
  X(ERR_DEVICE)               \
  X(ERR_INTERNAL)

/* X(ENUM, short name used by tools and tests) */
#define PSCAN_ALGOS(X)                             \
  X(AUTO, auto)                                    \
  X(SEQUENTIAL, sequential)                        \
  X(DECOUPLED_LOOKBACK, decoupled-lookback)        \
  X(CHAINED, chained)                              \
  X(REDUCE_THEN_SCAN, reduce-then-scan)            \
  X(SCAN_THEN_PROPAGATE, scan-then-propagate)

#define PSCAN_BLOCK_ALGOS(X)       \
  X(AUTO, auto)                    \
  X(RAKING, raking)                \
  X(WARP_SCANS, warp-scans)        \
  X(KOGGE_STONE, kogge-stone)      \
  X(BRENT_KUNG, brent-kung)        \
  X(SKLANSKY, sklansky)            \
  X(HYBRID, hybrid)

#define PSCAN_CMPS(X) X(LT, lt) X(LE, le) X(GT, gt) X(GE, ge) X(EQ, eq) X(NE, ne)

#endif /* PSCAN_LISTS_H */
