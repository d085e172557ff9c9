/* What the parts of the floating-point suite share (one program, test_float): test_float.c holds
 * the tolerance, NaN and signed-zero cases and main; test_float_determinism.c the determinism
 * cases. */
#ifndef TEST_FLOAT_H
#define TEST_FLOAT_H

#include "reference.h"
#include "test.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NCTX 6
extern const int thread_counts[NCTX];
extern pscan_ctx *ctxs[NCTX]; /* one context per thread count */
extern test_rng rng;
extern bool quick;

enum { MODE_INCL, MODE_EXCL, MODE_INCL_INIT, MODE_EXCL_INIT, NMODES };
extern const char *const mode_names[NMODES];
static inline bool is_exclusive(int mode) { return mode == MODE_EXCL || mode == MODE_EXCL_INIT; }
static inline bool has_init(int mode) { return mode == MODE_INCL_INIT || mode == MODE_EXCL_INIT; }

/* Element i of an f32 or f64 array, as a double; and stored back. */
double load(pscan_dtype t, const void *base, size_t i);
void store(pscan_dtype t, void *base, size_t i, double d);
/* One pscan_scan of n elements in mode (init used only where the mode has one). */
pscan_status scan(pscan_ctx *ctx, pscan_dtype in_t, pscan_dtype out_t, pscan_op op, int mode,
                  const void *in, void *out, size_t n, const void *init);
/* The algorithm, partition size and DETERMINISTIC of ctx. */
void configure(pscan_ctx *ctx, int algo, int64_t partition, int deterministic);

/* ---- test_float_determinism.c ---- */
void test_determinism(void);

#endif
