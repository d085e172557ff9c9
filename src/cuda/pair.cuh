/* Stamps one (PAIR_IN, PAIR_OUT) pair for each operator of its kind and publishes its launcher
 * table pscan__cuda_kernels_<IN>_<OUT>[PSCAN_OP_COUNT] (bitwise entries are empty for floats). */
#define OP_E SUM
#include "stamp.cuh"
#undef OP_E
#define OP_E PROD
#include "stamp.cuh"
#undef OP_E
#define OP_E MIN
#include "stamp.cuh"
#undef OP_E
#define OP_E MAX
#include "stamp.cuh"
#undef OP_E
#if !PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
#define OP_E AND
#include "stamp.cuh"
#undef OP_E
#define OP_E OR
#include "stamp.cuh"
#undef OP_E
#define OP_E XOR
#include "stamp.cuh"
#undef OP_E
#endif

#define PAIR_ENTRY(OPX)                                                                          \
  {PSCAN__NAME5(launch_scan, PAIR_IN, PAIR_OUT, OPX),                                            \
   PSCAN__NAME5(launch_reduce, PAIR_IN, PAIR_OUT, OPX),                                          \
   PSCAN__NAME5(launch_propagate, PAIR_IN, PAIR_OUT, OPX),                                       \
   PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX),                                                   \
   PSCAN__CAT(PSCAN__SIZE_, PAIR_OUT) == 8 ? 16u : 8u,                                           \
   PSCAN__CAT(PSCAN__NAME5(launch_scan, PAIR_IN, PAIR_OUT, OPX), _small),                        \
   PSCAN__CAT(PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX), _small)},

extern "C" const pscan__cuda_kernels PSCAN__NAME5(pscan__cuda_kernels, PAIR_IN, PAIR_OUT,
                                                  table)[PSCAN_OP_COUNT] = {
    PAIR_ENTRY(SUM) PAIR_ENTRY(PROD) PAIR_ENTRY(MIN) PAIR_ENTRY(MAX)
#if !PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
    PAIR_ENTRY(AND) PAIR_ENTRY(OR) PAIR_ENTRY(XOR)
#endif
};
#undef PAIR_ENTRY
#undef PAIR_IN
#undef PAIR_OUT
