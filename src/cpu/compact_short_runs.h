/* Short runs and segments of the by-key operations on the CPU (compact.c): the folds per run
   stay inline here (they run once a run), the segmented scan of a partition lives in
   compact_short_runs.c. */
#ifndef PSCAN_CPU_COMPACT_SHORT_RUNS_H
#define PSCAN_CPU_COMPACT_SHORT_RUNS_H

#include "cpu.h"

#include <stdbool.h>
#include <string.h>

/* ---- Short runs ----
   The operator's reduce and scan kernels (SIMD where the CPU has it) pay a fixed cost per call:
   vector setup, masked loads, a horizontal fold of the lanes through combine. Over a long run it
   vanishes; at run length 1 it is the whole cost (reduce_by_key: ~100 ns a run, 50x a copy of
   the run's bytes). Runs shorter than SHORT_RUN are folded here with combine (a run of one is a
   copy), segments shorter than SHORT_SEGMENT are scanned here (the SIMD scan kernels' setup is
   cheaper: from 3 items on they beat a combine per item). The by-key operators accumulate in
   their value type (backend.c: builtin(val, val, op)), so a value is an accumulator, of at most
   8 bytes for the built-in types and PSCAN__BY_KEY_VALUE_MAX for a user operator's. */
enum { SHORT_RUN = 16, SHORT_SEGMENT = 3, STREAM_SEGMENT = 1024 };

/* memcpy of one value of vs bytes with a constant size where it is 1, 2, 4 or 8 (every built-in
   type), so that it compiles to a move rather than a call; a user operator's element may have
   any size up to 8. */
static inline void copy_val(void *dst, const void *src, size_t vs) {
  switch (vs) {
  case 1: memcpy(dst, src, 1); break;
  case 2: memcpy(dst, src, 2); break;
  case 4: memcpy(dst, src, 4); break;
  case 8: memcpy(dst, src, 8); break;
  default: memcpy(dst, src, vs); break; /* a user operator's 3, 5, 6 or 7 bytes */
  }
}

/* The end m of the stretch of heads i, i + 1, ... (i >= 1) each one item after the one before:
   pos[j] - pos[j - 1] == 1 for i <= j < m. */
static inline size_t unit_stretch(const size_t *pos, size_t i, size_t kept) {
  size_t m = i + 1;
  while (m < kept && pos[m] - pos[m - 1] == 1)
    m++;
  return m;
}

/* *acc = v[0] ⊕ ... ⊕ v[len-1] (len >= 1). */
static inline void run_reduce(const pscan__cpu_op *vop, const char *v, size_t len, size_t vs, void *acc) {
  if (len >= SHORT_RUN) {
    vop->reduce(vop, v, len, acc);
    return;
  }
  copy_val(acc, v, vs);
  for (size_t j = 1; j < len; j++)
    vop->combine(vop, acc, acc, v + j * vs);
}

/* scan_by_key after the look-back: partition [start, start + len)'s segments (heads at pos[0 ..
   kept)), the first one continuing from carry (NULL: none). */
void pscan__cpu_scan_segments(const pscan__compact_call *c, const pscan__cpu_op *vop, size_t start,
                              size_t len, const size_t *pos, size_t kept, const void *carry,
                              void *scratch, bool stream);

#endif /* PSCAN_CPU_COMPACT_SHORT_RUNS_H */
