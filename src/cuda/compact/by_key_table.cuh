/* Publishes the by-key launcher table pscan__cuda_compact_by_key_<VAL>_table[PSCAN_OP_COUNT] of
 * one value type VAL whose kernels by_key_stamp.cuh has stamped. VAL_OPS(X, N) lists every
 * operator in PSCAN_OPS order: X(op) for one stamped for VAL, N(op) for one it does not offer
 * (bitwise operators on floats), an empty entry. The generated compaction units
 * (src/cuda/gen/compact_type.cu.in) define VAL and VAL_OPS. */
#define BY_KEY_ENTRY(OPX) {PSCAN__NAME5(launch_by_key, bykey, VAL, OPX), PSCAN__NAME5(TILE, bykey, VAL, OPX)},
#define BY_KEY_NONE(OPX) {},
extern "C" const pscan__cuda_compact_kernel PSCAN__NAME5(pscan__cuda_compact, by_key, VAL,
                                                         table)[PSCAN_OP_COUNT] = {
    VAL_OPS(BY_KEY_ENTRY, BY_KEY_NONE)};
#undef BY_KEY_ENTRY
#undef BY_KEY_NONE
#undef VAL_OPS
#undef VAL
