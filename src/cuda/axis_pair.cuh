/* Publishes the axis launcher table pscan__cuda_axis_<IN>_<OUT>_table[PSCAN_OP_COUNT] of one
 * (PAIR_IN, PAIR_OUT) pair whose kernels axis_stamp.cuh has stamped. PAIR_OPS(X, N) lists every
 * operator in PSCAN_OPS order: X(op) for one stamped for the pair, N(op) for one it does not
 * offer (bitwise operators on floats), an empty entry. The generated axis units
 * (src/cuda/gen/axis_type.cu.in) define PAIR_IN, PAIR_OUT and PAIR_OPS. */
#define AX_ENTRY(OPX)                                                                            \
  {PSCAN__NAME5(ax_launch_lines, PAIR_IN, PAIR_OUT, OPX),                                        \
   PSCAN__NAME5(ax_launch_side_reduce, PAIR_IN, PAIR_OUT, OPX),                                  \
   PSCAN__NAME5(ax_launch_side_carry, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_scan, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_lb, PAIR_IN, PAIR_OUT, OPX)},

#define AX_NONE(OPX) {},

extern "C" const pscan__cuda_axis_kernels PSCAN__NAME5(pscan__cuda_axis, PAIR_IN, PAIR_OUT,
                                                       table)[PSCAN_OP_COUNT] = {
    PAIR_OPS(AX_ENTRY, AX_NONE)};
#undef AX_ENTRY
#undef AX_NONE
#undef PAIR_OPS
#undef PAIR_IN
#undef PAIR_OUT
