/* Stamps every kernel of one (PAIR_IN, PAIR_OUT, OP_E). */
#include "scan_ops.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "tile_scan.cuh"
#undef NAME
