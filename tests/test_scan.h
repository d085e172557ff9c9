/* What the parts of the scan suite share (one program, test_scan): test_scan.c holds the engine
 * (inputs, the oracle, one library call and its checks), the sections shared by every backend
 * and main; test_scan_profiles.c each backend's profile (its sizes, settings and own checks). */
#ifndef TEST_SCAN_H
#define TEST_SCAN_H

#include "backend.h"
#include "reference.h"
#include "test.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MODE_INCL, MODE_EXCL, MODE_EXCL_INIT, MODE_INCL_INIT, NMODES };

enum { MAX_CTX = 4 };

typedef struct scan_case {
  pscan_dtype in_type, out_type;
  pscan_op op;
  int mode;
  size_t n;
} scan_case;

/* How one call runs: the context (its thread count on the CPU) and the parameters. */
typedef struct setting {
  int ctx;
  int algo;
  int64_t partition; /* CPU: PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE; 0 is the default */
  int block_algo;    /* CUDA: PSCAN_PARAM_BLOCK_ALGO */
  int deterministic;
} setting;

typedef struct suite suite;

/* What a backend runs in each section (see the top of test_scan.c). */
typedef struct profile {
  const char *backend;
  int nctx;
  const int *threads;                     /* the contexts' thread counts (CPU) */
  void (*type_sizes)(suite *, scan_case); /* the sizes and settings of one (pair, op, kind) */
  void (*strategy_matrix)(suite *);
  size_t determinism_n[3], stress_n[3]; /* sanitize, quick, full */
  void (*own)(suite *);                 /* the backend's own checks; may be NULL */
} profile;

struct suite {
  const test_backend *b;
  const profile *p;
  pscan_ctx *ctx[MAX_CTX];
  test_rng rng;
  bool quick, light;
  unsigned long scans;  /* library calls checked */
  unsigned long rotate; /* picks the thread count in quick mode */
  unsigned pairs, pair_ops;
  /* Host: the input, the oracle's result, what came back (output, input). */
  unsigned char *in, *want, *got, *back;
  size_t in_cap, want_cap, got_cap, back_cap;
  /* The library's buffers (backend memory): its input (out-of-place calls) and output. */
  void *lib_in, *lib_out;
  size_t lib_in_cap, lib_out_cap;
  unsigned char init[8];
};

/* ---- the engine (test_scan.c) ---- */
/* A fresh input for c, its oracle, and the library's copy of it (out-of-place calls). */
void prepare(suite *s, const scan_case *c);
/* Runs c (prepared) under st and checks everything it wrote. */
void run_one(suite *s, const scan_case *c, const setting *st, bool in_place);

/* ---- the backends (test_scan_profiles.c) ---- */
/* The profile of backend b (exits 2 where there is none). */
const profile *profile_for(const test_backend *b);

#endif
