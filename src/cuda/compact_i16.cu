/* Compaction kernels with i16 items, and the by-key kernels with i16 values. */
#include "compact_common.cuh"

#define TYPE I16
#include "compact_stamp.cuh"
