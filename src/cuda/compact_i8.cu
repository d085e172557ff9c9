/* Compaction kernels with i8 items, and the by-key kernels with i8 values. */
#include "compact_common.cuh"

#define TYPE I8
#include "compact_stamp.cuh"
