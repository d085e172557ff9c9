/* Compaction kernels with u32 items, and the by-key kernels with u32 values. */
#include "compact_common.cuh"

#define TYPE U32
#include "compact_stamp.cuh"
