/* Publishes the by-key launcher table pscan__cuda_compact_by_key_<VAL>_table[2 * PSCAN_OP_COUNT]
 * of one value type VAL whose kernels by_key_stamp.cuh has stamped: by operator, the kernels of
 * full tiles, then those of half tiles (empty entries unless VAL has 8 bytes). VAL_OPS(X, N)
 * lists every operator in PSCAN_OPS order: X(op) for one stamped for VAL, N(op) for one it does
 * not offer (bitwise operators on floats), an empty entry. The generated compaction units
 * (src/cuda/gen/compact_type.cu.in) define VAL and VAL_OPS. */
#define BY_KEY_ENTRY(OPX) {PSCAN__NAME5(launch_by_key, bykey, VAL, OPX), PSCAN__NAME5(TILE, bykey, VAL, OPX)},
#if PSCAN__CAT(PSCAN__SIZE_, VAL) == 8
#define BY_KEY_HALF(OPX) {PSCAN__NAME5(launch_by_key, bykey8, VAL, OPX), PSCAN__NAME5(TILE, bykey8, VAL, OPX)},
#else
#define BY_KEY_HALF(OPX) {},
#endif
#define BY_KEY_NONE(OPX) {},
extern "C" const pscan__cuda_compact_kernel PSCAN__NAME5(pscan__cuda_compact, by_key, VAL,
                                                         table)[2 * PSCAN_OP_COUNT] = {
    VAL_OPS(BY_KEY_ENTRY, BY_KEY_NONE) VAL_OPS(BY_KEY_HALF, BY_KEY_NONE)};
#undef BY_KEY_ENTRY
#undef BY_KEY_HALF
#undef BY_KEY_NONE
#undef VAL_OPS
#undef VAL
