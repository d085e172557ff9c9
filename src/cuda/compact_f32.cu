/* Compaction kernels with f32 items, and the by-key kernels with f32 values. */
#include "compact_common.cuh"

#define TYPE F32
#include "compact_stamp.cuh"
