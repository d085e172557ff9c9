/* What the parts of pscan_mpi's test share (one program, test_mpi; test_mpi_cuda on CUDA
 * contexts): test_mpi.c holds the shard layouts, the values, the calls under test, the scans,
 * refusals, user operators and main; test_mpi_compact.c the compaction cases. */
#ifndef TEST_MPI_H
#define TEST_MPI_H

#include "pscan_mpi.h"
#include "test.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern int rank, nranks;

/* ---- shard layouts ---- */
enum { LAYOUT_EVEN, LAYOUT_FIRST_EMPTY, LAYOUT_MIDDLE_EMPTY, LAYOUT_ONE_HOLDS_ALL, LAYOUT_ONES,
       LAYOUT_RANDOM, LAYOUTS };
extern const char *const layout_names[LAYOUTS];
/* offsets[0..nranks]: where each rank's shard starts in the global array of n elements */
void layout(int kind, size_t n, test_rng *r, size_t *offsets);

/* n values of t drawn from [lo, hi]; with run > 1 a new value is drawn at every multiple of run
   and at one item in four in between (the rest repeat the one before) */
void fill(pscan_dtype t, void *p, size_t n, test_rng *r, int lo, int hi, size_t run);

extern pscan_ctx *cpu; /* the single-process reference */

/* ---- the calls under test (test_mpi.c: on the CUDA build through device mirrors) ---- */
pscan_status call_select(const void *in, void *out, size_t n, pscan_dtype t, pscan_cmp cmp,
                         const void *value, size_t *kept, uint64_t *off, uint64_t *cnt);
pscan_status call_rle(const void *in, void *out, uint64_t *counts, size_t n, pscan_dtype t,
                      size_t *runs, uint64_t *off, uint64_t *cnt);
pscan_status call_rbk(const void *k, pscan_dtype kt, const void *v, pscan_dtype vt, void *ko,
                      void *vo, size_t n, pscan_op op, size_t *runs, uint64_t *off,
                      uint64_t *cnt);

/* ---- test_mpi_compact.c ---- */
void test_compaction(test_rng *r);

#endif
