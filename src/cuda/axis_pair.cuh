/* Publishes the axis launcher table pscan__cuda_axis_<IN>_<OUT>_table of one (PAIR_IN, PAIR_OUT)
 * pair whose kernels axis_stamp.cuh has stamped (the generated axis units,
 * src/cuda/gen/axis_type.cu.in; the lookup: axis_kernels.cu). */
#define AX_ENTRY(OPX)                                                                            \
  {PSCAN__NAME5(ax_launch_lines, PAIR_IN, PAIR_OUT, OPX),                                        \
   PSCAN__NAME5(ax_launch_side_reduce, PAIR_IN, PAIR_OUT, OPX),                                  \
   PSCAN__NAME5(ax_launch_side_carry, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_scan, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_lb, PAIR_IN, PAIR_OUT, OPX),                                     \
   PSCAN__NAME5(ax_launch_side_rows, PAIR_IN, PAIR_OUT, OPX),                                   \
   PSCAN__NAME5(ax_launch_side_strips, PAIR_IN, PAIR_OUT, OPX)},
PSCAN__PAIR_TABLE(pscan__cuda_axis_kernels, pscan__cuda_axis, AX_ENTRY)
#undef AX_ENTRY
