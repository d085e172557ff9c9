/* Scan kernels for input type f64: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN F64
#define PAIR_OUT F64
#include "pair.cuh"
