/* Compaction kernels with i64 items, and the by-key kernels with i64 values. */
#include "compact_common.cuh"

#define TYPE I64
#include "compact_stamp.cuh"
