/* What the parts of the axis suite share (one program, test_axis): test_axis.c holds the views,
 * the calls on the backend's buffers, the per-line reference and main; test_axis_chunks.c,
 * test_axis_lines.c and test_axis_segments.c more cases. */
#ifndef TEST_AXIS_H
#define TEST_AXIS_H

#include "backend.h"
#include "reference.h"
#include "test.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MAXD = PSCAN_MAX_DIMS };
/* The layouts of a view (make_view): bits. */
/* LAYOUT_FLIP_LAST: the last dimension's stride negated always (x[..., ::-1]), the others
   under LAYOUT_NEGATE at random. */
enum { LAYOUT_PERMUTE = 1, LAYOUT_PAD = 2, LAYOUT_NEGATE = 4, LAYOUT_FLIP_LAST = 8 };

extern const test_backend *B; /* the backend under test */

/* ---- values and calls (test_axis.c) ---- */
void fill_values(test_rng *r, pscan_dtype t, pscan_op op, void *buf, size_t count);
void fill_init(test_rng *r, pscan_dtype t, pscan_op op, void *init);
pscan_ctx *ctx_for(int threads);
pscan_status call_axis(pscan_ctx *ctx, pscan_axis_args a, const void *in_buf, size_t in_bytes,
                       void *out_buf, size_t out_bytes);
pscan_status call_segmented(pscan_ctx *ctx, const void *in, void *out, size_t bytes,
                            pscan_dtype t, pscan_op op, const int64_t *offsets, size_t nseg,
                            int exclusive, int reverse, const void *init);

/* ---- one case against the per-line reference (test_axis.c) ---- */
typedef struct spec {
  int ndim;
  int64_t shape[MAXD];
  int axis; /* as passed: -1 allowed */
  pscan_dtype in_type, out_type;
  pscan_op op;
  int exclusive, reverse, use_init, in_place, null_strides;
  int in_layout, out_layout;
  int threads;
  int deterministic;
  int algo; /* PSCAN_PARAM_ALGO (0: AUTO) */
} spec;

bool run_case(test_rng *r, spec s);
/* PSCAN_TEST_SANITIZE=1, for compute-sanitizer: a thin slice of the quick run (one thread count,
   fewer layouts, modes and random cases) that still reaches every kernel. */
bool axis_light(void);
/* PSCAN_TEST_QUICK=1 or the light slice. */
bool axis_quick(void);
spec spec2(int64_t a, int64_t b, int axis, pscan_dtype t, pscan_op op);

/* ---- the cases of test_axis_chunks.c, test_axis_lines.c and test_axis_segments.c ---- */
void test_side_chunks(uint64_t seed);
void test_lines_back_to_back(uint64_t seed);
void test_reversed_strategies(uint64_t seed);
void test_reversed_into_lines(uint64_t seed);
void test_deterministic(uint64_t seed);
void test_segmented(uint64_t seed);
void test_segmented_sums(uint64_t seed);
void test_segmented_reused(uint64_t seed);
void test_bad_input(void);

#endif
