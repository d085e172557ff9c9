/* AVX-512 kernels of the compaction family beyond select_if (compact_runs_avx512.c, and
 * compact_rle_avx512.c for run-length encoding): the run heads of unique, run-length encoding and
 * the by-key operations, select_flagged, and the segmented sum of the by-key operations. compact.c uses them where pscan__cpu_simd_gather_if
 * offers a kernel (the CPU and PSCAN_CPU_ISA allow AVX-512) and the types are covered; each
 * getter answers NULL (or false) otherwise, and the portable kernels of compact_body.h run. */
#ifndef PSCAN_CPU_COMPACT_SIMD_H
#define PSCAN_CPU_COMPACT_SIMD_H

#include "cpu.h"

/* Whether the AVX-512 kernels below may run (the CPU has them and PSCAN_CPU_ISA allows them). */
static inline bool pscan__cpu_avx512_allowed(void) {
  return pscan__cpu_simd_gather_if(PSCAN_I32) != NULL;
}

/* compact_body.h's gather_heads contract (buf[0] = in[0], pos[0] = base, then every item that
   differs from the one before it), where buf and pos may each be NULL (not written); with bits,
   also bit i of bits (64-bit words, little-endian bit order) set iff item i is a head (bit 0
   set), for i < n, and every bit from n to the end of word n / 64 + 1 cleared. Returns the count
   of heads, item 0 included. */
typedef size_t (*pscan__cpu_heads_fn)(const void *in, size_t n, void *buf, size_t *pos, size_t base,
                                      uint64_t *bits);
pscan__cpu_heads_fn pscan__cpu_avx512_heads(pscan_dtype key);

/* compact_body.h's gather_flagged contract. */
typedef size_t (*pscan__cpu_flagged_fn)(const uint8_t *flags, const void *in, size_t n, void *buf);
pscan__cpu_flagged_fn pscan__cpu_avx512_flagged(pscan_dtype t);

/* The segmented inclusive sum of v[0..n) (n >= 1), segments starting at the items whose bit is
   set in bits (pscan__cpu_heads_fn's layout, cleared past n); the items before the first head
   continue from *carry (NULL: they sum from item 0, as a segment of their own). tails (may be NULL): the sum at each
   item i < n - 1 whose successor is a head, compressed, in order; out (may be NULL, may equal v):
   the sum at every item, with non-temporal stores where stream and out's vectors are aligned
   (not fenced: the caller fences, as compact.c's end_streams does). *last: the sum at item n - 1 (the reduction since the last head).
   Returns the count of tails. */
typedef size_t (*pscan__cpu_seg_sum_fn)(const void *v, size_t n, const uint64_t *bits,
                                        const void *carry, void *tails, void *out, bool stream,
                                        void *last);
/* The kernel for values of type val summed (PSCAN_SUM), or NULL. */
pscan__cpu_seg_sum_fn pscan__cpu_avx512_seg_sum(pscan_dtype val, pscan_op op);

/* reduce_by_key's one pass over a partition (keys in, values v, n >= 1): the heads' keys to buf
   (as pscan__cpu_heads_fn, item 0 a head), the run totals at the items i < n - 1 whose successor
   is a head to tails (as pscan__cpu_seg_sum_fn with no carry; their count in *ntails), and the
   sum since the last head in *last. Returns the count of heads. */
typedef size_t (*pscan__cpu_reduce_runs_fn)(const void *in, const void *v, size_t n, void *buf,
                                            void *tails, size_t *ntails, void *last);
/* The kernel for keys of type key and values of type val summed, both 4 or both 8 bytes wide;
   NULL otherwise. */
pscan__cpu_reduce_runs_fn pscan__cpu_avx512_reduce_runs(pscan_dtype key, pscan_dtype val,
                                                        pscan_op op);

/* run_length_encode's one pass over a partition (keys in, 1 <= n < 2^32): the heads' keys to buf
   (as pscan__cpu_heads_fn, item 0 a head; returns their count h), the lengths of the runs that
   end inside the partition to lens[0 .. h - 1) (local run r's length, item 0 starting run 0: the
   last run is left open), and the last head's index in *last_head. */
typedef size_t (*pscan__cpu_run_counts_fn)(const void *in, size_t n, void *buf, uint32_t *lens,
                                           size_t *last_head);
/* The kernel for keys of type key (32- or 64-bit), or NULL. */
pscan__cpu_run_counts_fn pscan__cpu_avx512_run_counts(pscan_dtype key);

#endif
