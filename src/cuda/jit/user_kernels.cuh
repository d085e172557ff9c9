/* The program NVRTC compiles for a user operator (jit_source.c builds it): the user's source and
 * the glue (pscan_user_t; pscan_user_combine or pscan_user_keep; PSCAN_USER_ELEM_SIZE,
 * PSCAN_USER_PREDICATE) come first, then this. The shared device headers are the built-in
 * kernels' own (common.cuh, block_scan.cuh, lookback.cuh, scan_ops.cuh), embedded in the library
 * at build time. Kernels: pscan_user_scan, pscan_user_scan_ordered (COMBINE) or
 * pscan_user_select (PREDICATE), each taking one pscan_user_params; with PSCAN_USER_AXIS the
 * axis kernels of user_axis.cuh (COMBINE), taking one pscan__user_axis_params; with
 * PSCAN_USER_BY_KEY 1 or 2 pscan_user_scan_by_key or pscan_user_reduce_by_key (user_by_key.cuh). */
#include "common.cuh"
/* User launches never poll eagerly (lookback.cuh, PSCAN__LB_EAGER; jit_cuda.c). */
#define PSCAN__LB_EAGER 0

#if PSCAN_USER_AXIS
/* The axis program (its own program, compiled on the first axis scan): user_axis.cuh only. */
#include "user_axis.cuh"
#elif PSCAN_USER_PREDICATE
/* The kept counts: the built-in 64-bit sum. */
#define PAIR_IN U64
#define PAIR_OUT U64
#define OP_E SUM
#include "scan_ops.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "scan_ops_end.cuh"
enum { PSCAN_USER_SIZE = (int)sizeof(pscan_user_t) };
#include "user_tile.cuh"
#include "user_select.cuh"
#else
#if PSCAN_USER_BY_KEY == 2
/* reduce by key: the run counts' look-back, the built-in 64-bit sum (user_by_key.cuh's CNAME) */
#define PAIR_IN U64
#define PAIR_OUT U64
#define OP_E SUM
#include "scan_ops.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "scan_ops_end.cuh"
#undef PAIR_IN
#undef PAIR_OUT
#undef OP_E
#endif
#include "user_ops.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "user_tile.cuh"
#include "user_scan.cuh"
#if PSCAN_USER_BY_KEY
#include "user_by_key.cuh"
#endif
#endif
