/* Compaction kernels with i32 items, and the by-key kernels with i32 values. */
#include "compact_common.cuh"

#define TYPE I32
#include "compact_stamp.cuh"
