/* Publishes the launcher table pscan__cuda_kernels_<IN>_<OUT>_table[PSCAN_OP_COUNT] of one
 * (PAIR_IN, PAIR_OUT) pair whose kernels stamp.cuh has stamped. PAIR_OPS(X, N) lists every
 * operator in PSCAN_OPS order: X(op) for one stamped for the pair, N(op) for one it does not
 * offer (bitwise operators on floats), an empty entry. The generated scan units
 * (src/cuda/gen/scan_type.cu.in) define PAIR_IN, PAIR_OUT and PAIR_OPS. */
#define PAIR_ENTRY(OPX)                                                                          \
  {PSCAN__NAME5(launch_scan, PAIR_IN, PAIR_OUT, OPX),                                            \
   PSCAN__NAME5(launch_reduce, PAIR_IN, PAIR_OUT, OPX),                                          \
   PSCAN__NAME5(launch_propagate, PAIR_IN, PAIR_OUT, OPX),                                       \
   PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX),                                                   \
   PSCAN__CAT(PSCAN__SIZE_, PAIR_OUT) == 8 ? 16u : 8u,                                           \
   PSCAN__CAT(PSCAN__NAME5(launch_scan, PAIR_IN, PAIR_OUT, OPX), _small),                        \
   PSCAN__CAT(PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX), _small)},
#define PAIR_NONE(OPX) {},

extern "C" const pscan__cuda_kernels PSCAN__NAME5(pscan__cuda_kernels, PAIR_IN, PAIR_OUT,
                                                  table)[PSCAN_OP_COUNT] = {
    PAIR_OPS(PAIR_ENTRY, PAIR_NONE)};
#undef PAIR_ENTRY
#undef PAIR_NONE
#undef PAIR_OPS
#undef PAIR_IN
#undef PAIR_OUT
