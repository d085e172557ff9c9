/* Compaction kernels with u16 items, and the by-key kernels with u16 values. */
#include "compact_common.cuh"

#define TYPE U16
#include "compact_stamp.cuh"
