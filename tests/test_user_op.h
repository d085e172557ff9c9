/* What the parts of the user operator suite share (one program, test_user_op; with
 * TEST_USER_OP_ON_CUDA, test_cuda_user_op_api): test_user_op.c holds the calls and main,
 * test_user_op_axis.c, test_user_op_by_key.c and (CPU build only) test_user_op_cpu.c more
 * cases. */
#ifndef TEST_USER_OP_H
#define TEST_USER_OP_H

#include "reference.h"
#include "test.h"
#include "user_ops.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SLACK = 8 }; /* poisoned elements past n that no call may write */

extern bool quick;
extern uint64_t seed;

/* ---- test_user_op.c ---- */
#ifdef TEST_USER_OP_ON_CUDA
#include "cuda_ok.h"
/* A device copy of bytes of host (uninitialised where host is NULL). */
void *dev_copy(const void *host, size_t bytes);
/* Waits for the device, then copies bytes of dev back into host (nothing where host is NULL). */
void dev_back(void *host, void *dev, size_t bytes);
#endif
/* A context of the backend under test (threads workers on the CPU; SKIP, 77, without a GPU). */
pscan_ctx *make_ctx(int threads);
/* The sequential reference of one scan. */
void ref_scan_case(const uo_case *c, const void *in, void *out, size_t n, int excl,
                   const void *init);
/* One scan of n elements against the reference; mode 0: inclusive, 1: inclusive with init,
   2: exclusive with init, 3: exclusive with the identity (init NULL). */
void check_scan(pscan_ctx *ctx, const uo_case *c, const pscan_user_op *op, size_t n, int mode,
                bool in_place, test_rng *rng, const char *how);

/* ---- test_user_op_axis.c ---- */
void test_axis(void);

/* ---- test_user_op_by_key.c ---- */
void test_by_key_op(void);

/* ---- test_user_op_cpu.c (the CPU build only) ---- */
#ifndef TEST_USER_OP_ON_CUDA
/* The private cache directory, the counting compiler's count file, the real compiler (main). */
extern char dir[512], counter[600], real_cc[512];
void test_deterministic(void);
void test_alloc_faults(void);
void test_internal_seam(void);
void test_compiler_and_cache(void);
#endif

#endif
