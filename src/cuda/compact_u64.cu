/* Compaction kernels with u64 items, and the by-key kernels with u64 values. */
#include "compact_common.cuh"

#define TYPE U64
#include "compact_stamp.cuh"
