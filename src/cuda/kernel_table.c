/* Finds the launcher table of an (input, accumulation, op) among the stamped kernels. */
#include "../internal.h"
#include "launch.h"

#define X(IN, OUT) extern const pscan__cuda_kernels pscan__cuda_kernels_##IN##_##OUT##_table[];
PSCAN_SCAN_PAIRS(X)
#undef X

const pscan__cuda_kernels *pscan__cuda_kernels_for(int in_type, int acc_type, int op) {
  if (!pscan__op_valid(op))
    return NULL;
#define X(IN, OUT)                                                         \
  if (in_type == PSCAN_##IN && acc_type == PSCAN_##OUT) {                  \
    const pscan__cuda_kernels *k = &pscan__cuda_kernels_##IN##_##OUT##_table[op]; \
    return k->scan ? k : NULL;                                             \
  }
  PSCAN_SCAN_PAIRS(X)
#undef X
  return NULL;
}
