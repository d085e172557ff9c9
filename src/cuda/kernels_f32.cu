/* Scan kernels for input type f32: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN F32
#define PAIR_OUT F32
#include "pair.cuh"
#define PAIR_IN F32
#define PAIR_OUT F64
#include "pair.cuh"
