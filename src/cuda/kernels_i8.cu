/* Scan kernels for input type i8: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN I8
#define PAIR_OUT I8
#include "pair.cuh"
#define PAIR_IN I8
#define PAIR_OUT I16
#include "pair.cuh"
#define PAIR_IN I8
#define PAIR_OUT I32
#include "pair.cuh"
#define PAIR_IN I8
#define PAIR_OUT I64
#include "pair.cuh"
