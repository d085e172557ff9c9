/* Include-template, the end of scan_ops.cuh's part: undefines the names scan_ops.cuh defines for
 * one (PAIR_IN, PAIR_OUT, OP_E) stamp, so that the includer can stamp the next one. The includer
 * undefines its own names (PAIR_IN, PAIR_OUT, OP_E and the rest). */
#undef NAME
#undef IN_T
#undef ACC_T
#undef WRAP_T
#undef ACC_SIZE
#undef IS_FLOAT
#undef OP
