/* The kernel lookup: the launcher tables that the generated units publish (src/cuda/gen/,
 * one scan and one compaction unit per element type), indexed by (family, type, op) in tables
 * built from the lists of src/lists.h. A scan's entry holds its launchers of every kind (scan,
 * reduce, propagate, small-tile scan). */
#include "../../internal.h"
#include "../launch.h"

/* The generated launcher tables are in PSCAN_OPS order (positional C++ initialisers): it must be
   the order of pscan_op. */
enum {
#define X(E, name, int_only) OP_POSITION_##E,
  PSCAN_OPS(X)
#undef X
};
#define X(E, name, int_only)                                                                   \
  _Static_assert((int)PSCAN_##E == (int)OP_POSITION_##E, "PSCAN_OPS is not in pscan_op order");
PSCAN_OPS(X)
#undef X

/* ---- Scans: by (input type, accumulation type), then op ---- */

#define X(IN, OUT) extern const pscan__cuda_kernels pscan__cuda_kernels_##IN##_##OUT##_table[];
PSCAN_SCAN_PAIRS(X)
#undef X

static const pscan__cuda_kernels *const scan_tables[PSCAN_DTYPE_COUNT][PSCAN_DTYPE_COUNT] = {
#define X(IN, OUT) [PSCAN_##IN][PSCAN_##OUT] = pscan__cuda_kernels_##IN##_##OUT##_table,
    PSCAN_SCAN_PAIRS(X)
#undef X
};

const pscan__cuda_kernels *pscan__cuda_kernels_for(int in_type, int acc_type, int op) {
  if (!pscan__dtype_valid(in_type) || !pscan__dtype_valid(acc_type) || !pscan__op_valid(op))
    return NULL;
  const pscan__cuda_kernels *table = scan_tables[in_type][acc_type];
  return table && table[op].scan ? &table[op] : NULL;
}

/* ---- Compaction: by family (the keys kernel, by item type, serves every op; the by-key
   kernels go by value type and op) ---- */

#define X(E, name, ctype, kind)                                                                \
  extern const pscan__cuda_compact_kernel pscan__cuda_compact_keys_##E##_table;               \
  extern const pscan__cuda_compact_kernel pscan__cuda_compact_by_key_##E##_table[];
PSCAN_TYPES(X)
#undef X

enum { FAMILY_KEYS, FAMILY_BY_KEY, FAMILY_COUNT };

/* Each row: the first entry of the type's table, and whether the table goes on by op. */
static const struct compact_row {
  const pscan__cuda_compact_kernel *first;
  bool by_op;
} compact_tables[FAMILY_COUNT][PSCAN_DTYPE_COUNT] = {
#define X(E, name, ctype, kind)                                                                \
  [FAMILY_KEYS][PSCAN_##E] = {&pscan__cuda_compact_keys_##E##_table, false},                   \
  [FAMILY_BY_KEY][PSCAN_##E] = {pscan__cuda_compact_by_key_##E##_table, true},
    PSCAN_TYPES(X)
#undef X
};

const pscan__cuda_compact_kernel *pscan__cuda_compact_for(int kind, int key_type, int val_type,
                                                          int op) {
  bool by_key = kind == PSCAN__COMPACT_REDUCE_BY_KEY || kind == PSCAN__COMPACT_SCAN_BY_KEY;
  int type = by_key ? val_type : key_type;
  if (!pscan__dtype_valid(type) || (by_key && !pscan__op_valid(op)))
    return NULL;
  const struct compact_row *row = &compact_tables[by_key ? FAMILY_BY_KEY : FAMILY_KEYS][type];
  const pscan__cuda_compact_kernel *k = row->first ? row->first + (row->by_op ? op : 0) : NULL;
  return k && k->launch ? k : NULL;
}

/* A by-key table goes on with the kernels of half tiles, PSCAN_OP_COUNT entries on. */
const pscan__cuda_compact_kernel *pscan__cuda_compact_half(int val_type, int op) {
  if (!pscan__dtype_valid(val_type) || !pscan__op_valid(op))
    return NULL;
  const pscan__cuda_compact_kernel *k = compact_tables[FAMILY_BY_KEY][val_type].first;
  k = k ? k + PSCAN_OP_COUNT + op : NULL;
  return k && k->launch ? k : NULL;
}
