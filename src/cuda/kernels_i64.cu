/* Scan kernels for input type i64: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN I64
#define PAIR_OUT I64
#include "pair.cuh"
