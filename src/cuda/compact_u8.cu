/* Compaction kernels with u8 items, and the by-key kernels with u8 values. */
#include "compact_common.cuh"

#define TYPE U8
#include "compact_stamp.cuh"
