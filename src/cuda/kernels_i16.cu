/* Scan kernels for input type i16: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN I16
#define PAIR_OUT I16
#include "pair.cuh"
#define PAIR_IN I16
#define PAIR_OUT I32
#include "pair.cuh"
#define PAIR_IN I16
#define PAIR_OUT I64
#include "pair.cuh"
