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

/* kernel_body.h then axis_body.h for every pair of PSCAN_SCAN_PAIRS (cpu_scan_pairs.h is generated
   from the list: cmake/pscan_variants.cmake). */
#define PSCAN_PAIR_TEMPLATE "cpu/axis_pair.h"
#include "cpu_scan_pairs.h"
#undef PSCAN_PAIR_TEMPLATE

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
