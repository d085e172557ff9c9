/* Scan kernels for input type u64: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN U64
#define PAIR_OUT U64
#include "pair.cuh"
