/* The strided kernels of the axis engines: axis_body.h stamped once per (input, accumulation) pair
 * of PSCAN_SCAN_PAIRS (lists.h), each for every operator of its kind. kernel_body.h is stamped
 * before it for the same pair: its combine_v is the operator (so both files combine alike); its
 * flat kernels and their tables, which kernels.c serves, go unused here. */
#include "axis.h"

#include <string.h>

#include "../kernel_types.h"

#define PSCAN__CAT4_(a, b, c, d) a##_##b##c##d
#define PSCAN__CAT4(a, b, c, d) PSCAN__CAT4_(a, b, c, d)

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#define PAIR_IN I8
#define PAIR_OUT I8
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I8
#include "axis_body.h"
#define PAIR_IN I8
#define PAIR_OUT I16
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I16
#include "axis_body.h"
#define PAIR_IN I8
#define PAIR_OUT I32
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I32
#include "axis_body.h"
#define PAIR_IN I8
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I8
#define PAIR_OUT I64
#include "axis_body.h"
#define PAIR_IN I16
#define PAIR_OUT I16
#include "kernel_body.h"
#define PAIR_IN I16
#define PAIR_OUT I16
#include "axis_body.h"
#define PAIR_IN I16
#define PAIR_OUT I32
#include "kernel_body.h"
#define PAIR_IN I16
#define PAIR_OUT I32
#include "axis_body.h"
#define PAIR_IN I16
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I16
#define PAIR_OUT I64
#include "axis_body.h"
#define PAIR_IN I32
#define PAIR_OUT I32
#include "kernel_body.h"
#define PAIR_IN I32
#define PAIR_OUT I32
#include "axis_body.h"
#define PAIR_IN I32
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I32
#define PAIR_OUT I64
#include "axis_body.h"
#define PAIR_IN I64
#define PAIR_OUT I64
#include "kernel_body.h"
#define PAIR_IN I64
#define PAIR_OUT I64
#include "axis_body.h"
#define PAIR_IN U8
#define PAIR_OUT U8
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U8
#include "axis_body.h"
#define PAIR_IN U8
#define PAIR_OUT U16
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U16
#include "axis_body.h"
#define PAIR_IN U8
#define PAIR_OUT U32
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U32
#include "axis_body.h"
#define PAIR_IN U8
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U8
#define PAIR_OUT U64
#include "axis_body.h"
#define PAIR_IN U16
#define PAIR_OUT U16
#include "kernel_body.h"
#define PAIR_IN U16
#define PAIR_OUT U16
#include "axis_body.h"
#define PAIR_IN U16
#define PAIR_OUT U32
#include "kernel_body.h"
#define PAIR_IN U16
#define PAIR_OUT U32
#include "axis_body.h"
#define PAIR_IN U16
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U16
#define PAIR_OUT U64
#include "axis_body.h"
#define PAIR_IN U32
#define PAIR_OUT U32
#include "kernel_body.h"
#define PAIR_IN U32
#define PAIR_OUT U32
#include "axis_body.h"
#define PAIR_IN U32
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U32
#define PAIR_OUT U64
#include "axis_body.h"
#define PAIR_IN U64
#define PAIR_OUT U64
#include "kernel_body.h"
#define PAIR_IN U64
#define PAIR_OUT U64
#include "axis_body.h"
#define PAIR_IN F32
#define PAIR_OUT F32
#include "kernel_body.h"
#define PAIR_IN F32
#define PAIR_OUT F32
#include "axis_body.h"
#define PAIR_IN F32
#define PAIR_OUT F64
#include "kernel_body.h"
#define PAIR_IN F32
#define PAIR_OUT F64
#include "axis_body.h"
#define PAIR_IN F64
#define PAIR_OUT F64
#include "kernel_body.h"
#define PAIR_IN F64
#define PAIR_OUT F64
#include "axis_body.h"

const pscan__cpu_axis_kernels *pscan__cpu_axis_kernels_for(pscan_dtype in, pscan_dtype acc,
                                                           pscan_op op) {
  if (!pscan__op_valid((int)op))
    return NULL;
#define X(IN, OUT)                            \
  if (in == PSCAN_##IN && acc == PSCAN_##OUT) \
    return PSCAN__CAT4(ax_ks, IN, _, OUT)[op];
  PSCAN_SCAN_PAIRS(X)
#undef X
  return NULL;
}
