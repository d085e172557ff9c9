/* The CPU backend's internal interface.
 *
 * An operator (pscan__cpu_op) bundles the few sequential kernels every parallel strategy is made
 * of. The built-in operators are stamped per (input type, accumulation type, op) in kernels.c; a
 * user's operator gets the same interface from custom.c. The strategies (scan_single_pass.c,
 * scan_two_pass.c) are written once against this interface. */
#ifndef PSCAN_CPU_H
#define PSCAN_CPU_H

#include "../internal.h"

typedef struct pscan__cpu_op pscan__cpu_op;

struct pscan__cpu_op {
  /* *acc = in[0] ⊕ ... ⊕ in[n-1] (n >= 1), accumulated in the accumulation type. */
  void (*reduce)(const pscan__cpu_op *op, const void *in, size_t n, void *acc);
  /* Inclusive scan of in[0..n) continuing from *carry (NULL: start from in[0]).
     scratch: at least 2 * acc_size bytes, 64-byte aligned. out may equal in. */
  void (*scan_incl)(const pscan__cpu_op *op, const void *in, void *out, size_t n, const void *carry,
                    void *scratch);
  /* Exclusive scan: out[0] = *carry (NULL: the identity; never NULL for a custom operator). */
  void (*scan_excl)(const pscan__cpu_op *op, const void *in, void *out, size_t n, const void *carry,
                    void *scratch);
  /* out[i] = *carry ⊕ out[i] (carry never NULL). */
  void (*propagate_incl)(const pscan__cpu_op *op, void *out, size_t n, const void *carry);
  /* Turns a local inclusive scan into the exclusive one: out[i] = *carry ⊕ out[i-1] for i >= 1,
     out[0] = *carry (carry NULL: plain shift, out[0] = the identity). */
  void (*propagate_excl)(const pscan__cpu_op *op, void *out, size_t n, const void *carry);
  /* *out = *a ⊕ *b; out may alias a or b. */
  void (*combine)(const pscan__cpu_op *op, void *out, const void *a, const void *b);
  size_t in_size, acc_size;
  pscan_combine_fn user_fn; /* custom operators only */
  void *user;
};

/* The built-in operator for (in, acc, op), or NULL if the combination is not offered. */
const pscan__cpu_op *pscan__cpu_builtin_op(pscan_dtype in, pscan_dtype acc, pscan_op op);
/* Fills *op for a user operator on elements of elem_size bytes. */
void pscan__cpu_custom_op(pscan__cpu_op *op, size_t elem_size, pscan_combine_fn fn, void *user);

/* Cores this process may run on (its affinity mask). */
int pscan__cpu_hardware_threads(void);

/* ---- Thread pool (pool.c) ---- */

typedef struct pscan__pool pscan__pool;
/* Runs as fn(arg, tid, nthreads) on tid = 0 .. nthreads-1; the calling thread is tid 0. */
typedef void (*pscan__task_fn)(void *arg, int tid, int nthreads);

/* A pool of nthreads - 1 persistent workers (the caller is the n-th thread). */
pscan_status pscan__pool_create(pscan_ctx *ctx, pscan__pool **pool, int nthreads);
void pscan__pool_destroy(pscan__pool *pool);
int pscan__pool_threads(const pscan__pool *pool);
/* Runs fn on nthreads (<= pscan__pool_threads) threads and returns when all have finished.
   With nthreads <= 1 (pool may then be NULL) fn runs on the calling thread alone. */
void pscan__pool_run(pscan__pool *pool, pscan__task_fn fn, void *arg, int nthreads);

/* One step of a wait loop that makes progress whatever the scheduler does: spin with a pause
   first, then yield the core, then (only if may_sleep: more threads than cores) sleep briefly.
   *spins counts the steps taken so far. */
void pscan__backoff(unsigned *spins, bool may_sleep);

/* ---- One parallel scan (backend.c fills it, the strategies run it) ---- */

typedef struct pscan__cpu_job {
  const pscan__cpu_op *op;
  const char *in;
  char *out;
  size_t n;
  size_t part;      /* elements per partition */
  size_t nparts;
  const void *init; /* NULL: none (then the first partition starts from in[0]) */
  int exclusive;
  int chained;      /* look back only to the predecessor's inclusive prefix: fixed order */
  int nthreads;
  bool oversubscribed; /* more threads than cores: waits may sleep */
  /* Partition descriptors: nparts slots of desc_stride bytes, each an atomic status word
     followed by the aggregate and the inclusive prefix (acc_size bytes each). */
  char *desc;
  size_t desc_stride;
  uint64_t epoch;   /* tags this call's status words, so no reset pass is needed */
  /* Per-thread scratch: nthreads slots of scratch_stride bytes (4 accumulators). */
  char *scratch;
  size_t scratch_stride;
  _Atomic size_t next_part; /* single-pass strategies take partitions in order from here */
} pscan__cpu_job;

void pscan__cpu_scan_sequential(const pscan__cpu_job *job);
void pscan__cpu_scan_lookback(pscan__pool *pool, pscan__cpu_job *job);   /* also CHAINED */
void pscan__cpu_scan_reduce_then_scan(pscan__pool *pool, pscan__cpu_job *job);
void pscan__cpu_scan_then_propagate(pscan__pool *pool, pscan__cpu_job *job);

/* Addresses inside a job. */
static inline const char *pscan__part_in(const pscan__cpu_job *job, size_t k) {
  return job->in + k * job->part * job->op->in_size;
}
static inline char *pscan__part_out(const pscan__cpu_job *job, size_t k) {
  return job->out + k * job->part * job->op->acc_size;
}
static inline size_t pscan__part_len(const pscan__cpu_job *job, size_t k) {
  size_t start = k * job->part;
  return job->n - start < job->part ? job->n - start : job->part;
}
static inline char *pscan__thread_scratch(const pscan__cpu_job *job, int tid) {
  return job->scratch + (size_t)tid * job->scratch_stride;
}

#endif /* PSCAN_CPU_H */
