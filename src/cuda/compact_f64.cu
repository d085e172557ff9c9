/* Compaction kernels with f64 items, and the by-key kernels with f64 values. */
#include "compact_common.cuh"

#define TYPE F64
#include "compact_stamp.cuh"
