/* What the parts of the compaction suite share (one program, test_compact): test_compact.c holds
 * the data helpers, the checked calls against the references, the selection cases and main;
 * test_compact_runs.c the run and by-key cases; test_compact_edges.c the cases at the edges of
 * size and memory and the refusals. */
#ifndef TEST_COMPACT_H
#define TEST_COMPACT_H

#include "backend.h"
#include "reference.h"
#include "test.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern const test_backend *backend;
extern test_rng rng;
extern bool quick;
/* PSCAN_TEST_SANITIZE=1 (compute-sanitizer on the CUDA build): a thin slice of every part, still
   reaching every kernel. */
extern bool light;

/* ---- element helpers (test_compact.c; one element from a small integer: ref_store_int) ---- */
void fill(pscan_dtype t, void *p, size_t n, unsigned nan_every);
void fill_flags(uint8_t *f, size_t n, unsigned permille);
void fill_runs(pscan_dtype t, void *p, size_t n, int mode);
void fill_vals(pscan_dtype t, pscan_op op, void *p, size_t n);

/* ---- checked calls (test_compact.c) ---- */
typedef ref_compact_op op_kind;

typedef struct config {
  int threads;
  int64_t part;
  int algo;
} config;
extern int deterministic; /* PSCAN_PARAM_DETERMINISTIC of ctx_for's contexts (default 0) */

enum { SLACK = 16 }; /* poisoned elements past n */

pscan_ctx *ctx_for(const config *c);
const int64_t *boundaries(void);
void run_one(const config *c, op_kind op, pscan_dtype t, const void *in, const uint8_t *flags,
             size_t n, pscan_cmp cmp, int threshold, bool in_place);
void run_by_key(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, const void *keys,
                const void *vals, size_t n);
void run_scan_by_key(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, int exclusive,
                     const void *init, const void *keys, const void *vals, size_t n,
                     bool in_place);

/* ---- the phases of test_compact_runs.c ---- */
void test_heads_per_tile(void);
void test_by_key(void);
void test_by_key_heads_per_tile(void);
void test_scan_by_key(void);
void test_by_key_deterministic(void);
void test_exact_runs(void);
void test_scan_by_key_tiles(void);
void test_geometric_runs(void);
void test_run_edges(void);

/* ---- the phases of test_compact_edges.c ---- */
void test_nearly_all_kept(void);
void test_kept_around_out_buffer(void);
void test_large(void);
void test_big(void);
void test_unaligned_device(void);
void test_refusals(void);

#endif
