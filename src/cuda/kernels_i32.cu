/* Scan kernels for input type i32: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN I32
#define PAIR_OUT I32
#include "pair.cuh"
#define PAIR_IN I32
#define PAIR_OUT I64
#include "pair.cuh"
