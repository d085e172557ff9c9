/* Include-template: one tile size of the by-key kernels (by_key_stamp.cuh defines NAME and
 * BY_KEY_ITEMS; both are undefined here at the end). */
#include "compact_ops.cuh"
#include "../scan/lookback.cuh"
#include "by_key_tile.cuh"
#undef ACC_T
#undef NAME
#undef BY_KEY_ITEMS
