/* Include-template stamped once per pair by cpu_scan_pairs.h for axis_kernels.c: the pair's
 * kernel_body.h (whose combine_v is the operator), which keeps PAIR_IN and PAIR_OUT defined for
 * it here, then its axis_body.h, which undefines them. No include guard. */
#define KB_KEEP_PAIR
#include "kernel_body.h"
#undef KB_KEEP_PAIR
#include "axis_body.h"
