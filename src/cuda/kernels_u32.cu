/* Scan kernels for input type u32: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN U32
#define PAIR_OUT U32
#include "pair.cuh"
#define PAIR_IN U32
#define PAIR_OUT U64
#include "pair.cuh"
