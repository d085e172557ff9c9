/* Stamps the axis kernels of one (PAIR_IN, PAIR_OUT) for each operator of its kind and publishes
 * the launcher table pscan__cuda_axis_<IN>_<OUT>_table[PSCAN_OP_COUNT] (bitwise entries empty for
 * floats). */
#define OP_E SUM
#include "axis_stamp.cuh"
#undef OP_E
#define OP_E PROD
#include "axis_stamp.cuh"
#undef OP_E
#define OP_E MIN
#include "axis_stamp.cuh"
#undef OP_E
#define OP_E MAX
#include "axis_stamp.cuh"
#undef OP_E
#if !PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
#define OP_E AND
#include "axis_stamp.cuh"
#undef OP_E
#define OP_E OR
#include "axis_stamp.cuh"
#undef OP_E
#define OP_E XOR
#include "axis_stamp.cuh"
#undef OP_E
#endif

#define AX_ENTRY(OPX)                                                                            \
  {PSCAN__NAME5(ax_launch_lines, PAIR_IN, PAIR_OUT, OPX),                                        \
   PSCAN__NAME5(ax_launch_side_reduce, PAIR_IN, PAIR_OUT, OPX),                                  \
   PSCAN__NAME5(ax_launch_side_carry, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_scan, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_lb, PAIR_IN, PAIR_OUT, OPX)},

static const pscan__cuda_axis_kernels PSCAN__NAME5(pscan__cuda_axis, PAIR_IN, PAIR_OUT,
                                                   table)[PSCAN_OP_COUNT] = {
    AX_ENTRY(SUM) AX_ENTRY(PROD) AX_ENTRY(MIN) AX_ENTRY(MAX)
#if !PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
    AX_ENTRY(AND) AX_ENTRY(OR) AX_ENTRY(XOR)
#endif
};
#undef AX_ENTRY
#undef PAIR_IN
#undef PAIR_OUT
