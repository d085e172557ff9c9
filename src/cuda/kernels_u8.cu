/* Scan kernels for input type u8: every accumulation type and operator. */
#include "common.cuh"

#define PAIR_IN U8
#define PAIR_OUT U8
#include "pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U16
#include "pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U32
#include "pair.cuh"
#define PAIR_IN U8
#define PAIR_OUT U64
#include "pair.cuh"
