/* The pieces of the single-pass compaction (compact.c) that its per-partition paths share: the
   portable kernels of each type, the look-back's aggregate, the descriptor's last-element slot and
   the look-back itself. compact.c drives the pass and holds the general path (gather, the by-key
   runs one at a time, scan_by_key's segments); compact_runs.c holds run_length_encode's partition
   and the by-key operations' partition with the AVX-512 kernels. */
#ifndef PSCAN_CPU_COMPACT_PASS_H
#define PSCAN_CPU_COMPACT_PASS_H

#include "compact_simd.h"
#include "cpu.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef pscan__cpu_gather_if_fn gather_if_fn;
typedef size_t (*gather_flagged_fn)(const uint8_t *flags, const void *in, size_t n, void *buf);
typedef size_t (*gather_heads_fn)(const void *in, size_t n, void *buf, size_t *pos, size_t base);
typedef bool (*equal_fn)(const void *a, const void *b);

/* The portable kernels of one type (compact_body.h). */
typedef struct portable_kernels {
  gather_if_fn gather_if;
  gather_flagged_fn gather_flagged;
  gather_heads_fn gather_heads;
  equal_fn equal;
} portable_kernels;

/* Indexed by pscan_dtype (the order of PSCAN_TYPES); compact.c stamps them. */
extern const portable_kernels pscan__cpu_compact_portable[PSCAN_DTYPE_COUNT];

/* A count and a second part: run-length encoding: the position of the last run head (the right
   operand's wins when it has any run: the rightmost head); reduce_by_key: the reduction of the
   values since the last run head (the right operand's alone when it has a head, else the left's
   continued by it). Both are associative. Only count is used by the other kinds. The look-back
   moves the first acc_size bytes (pscan__cpu_count_op): 16 but for a user operator's values
   wider than 8 bytes. */
typedef struct pair {
  size_t count;
  union {
    uint64_t x;                               /* a position, or a built-in value's bits */
    unsigned char v[PSCAN__BY_KEY_VALUE_MAX]; /* a value's val_size bytes */
  };
} pair;

static inline bool has_positions(const pscan__compact_call *call) {
  return call->kind == PSCAN__COMPACT_RUN_LENGTH || call->kind == PSCAN__COMPACT_REDUCE_BY_KEY ||
         call->kind == PSCAN__COMPACT_SCAN_BY_KEY;
}

/* The descriptor's slot for the partition's last input element (unique, run-length encoding, the
   by-key operations), announced with status L, after the aggregate and the prefix (backend.c
   lays out 8 bytes for it after the two accumulators). */
static inline char *last_slot(const pscan__cpu_job *job, size_t k) {
  return pscan__lb_prefix(job, k) + job->op->acc_size;
}

/* Publishes partition k's aggregate agg, looks back, and publishes its inclusive prefix
   (*through); returns the exclusive one (the partitions before k; zero for the first). Without
   positions only the counts add up (acc_size covers the count alone). */
pair pscan__cpu_compact_look_back(pscan__cpu_job *job, const pscan__compact_call *c, size_t k,
                                  pair agg, char *excl_slot, pair *through);

/* ---- reduce_by_key and scan_by_key with the AVX-512 kernels (compact_simd.h) ----
   One partition: the keys give the head bits (and, for reduce_by_key, the run keys in buf); the
   aggregate is the count of heads and the reduction of the values since the last one. One
   segmented sum over the partition's values gives reduce_by_key's run totals (the sums at the
   items followed by a head) in order, before the look-back: the first closes the incoming run
   (run before.count - 1), and takes the predecessors' reduction before.x on its left after it,
   unless the partition starts with a head, when before.x alone closes that run. scan_by_key's
   one pass comes after the look-back, continuing the incoming run from before.x.
   No per-run work, no indirect call per item: the cost does not depend on the run lengths. */
typedef struct by_key_simd {
  pscan__cpu_heads_fn heads;
  pscan__cpu_seg_sum_fn sum;
  pscan__cpu_reduce_runs_fn reduce_runs; /* reduce_by_key's heads and sum in one pass, or NULL */
} by_key_simd;

/* One partition of reduce_by_key or scan_by_key with the AVX-512 kernels (compact_runs.c). */
void pscan__cpu_by_key_partition_simd(pscan__cpu_job *job, const pscan__compact_call *c,
                                      const by_key_simd *f, size_t k, char *excl_slot, char *buf,
                                      char *stage, uint64_t *bits);

/* One partition of run_length_encode (compact_runs.c); fn is the AVX-512 run-counts kernel of the
   type, or NULL for the portable one. */
void pscan__cpu_rle_partition(pscan__cpu_job *job, const pscan__compact_call *c,
                              pscan__cpu_run_counts_fn fn, size_t k, char *excl_slot, char *buf,
                              uint32_t *lens);

#endif
