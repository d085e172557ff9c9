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

/* The compaction kernels (compact_<type>.cu), by item type and by value type. */
#define X(E, name, ctype, kind)                                                       \
  extern const pscan__cuda_compact_kernel pscan__cuda_compact_keys_##E##_table;      \
  extern const pscan__cuda_compact_kernel pscan__cuda_compact_by_key_##E##_table[];
PSCAN_TYPES(X)
#undef X

const pscan__cuda_compact_kernel *pscan__cuda_compact_for(int kind, int key_type, int val_type,
                                                          int op) {
  bool by_key = kind == PSCAN__COMPACT_REDUCE_BY_KEY || kind == PSCAN__COMPACT_SCAN_BY_KEY;
  if (by_key && !pscan__op_valid(op))
    return NULL;
  const pscan__cuda_compact_kernel *k = NULL;
#define X(E, name, ctype, kind_)                                                      \
  if (!by_key && key_type == PSCAN_##E)                                               \
    k = &pscan__cuda_compact_keys_##E##_table;                                        \
  if (by_key && val_type == PSCAN_##E)                                                \
    k = &pscan__cuda_compact_by_key_##E##_table[op];
  PSCAN_TYPES(X)
#undef X
  return k && k->launch ? k : NULL;
}
