/* The CPU backend's internal interface.
 *
 * An operator (pscan__cpu_op) bundles the few sequential kernels every parallel strategy is made
 * of. The built-in operators are stamped per (input type, accumulation type, op) in kernels.c; a
 * user's operator gets the same interface from custom.c. The strategies (scan_single_pass.c,
 * scan_two_pass.c) are written once against this interface. */
#ifndef PSCAN_CPU_H
#define PSCAN_CPU_H

#include "../internal.h"

#include <stdatomic.h>
#include <string.h>

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
  /* scan_incl / scan_excl writing out with non-temporal stores where its vectors are aligned, and
     fenced before they return (simd_body.h says why); the same values as the plain ones. While
     writing out's byte b they prefetch byte b of prefetch into L2 (NULL: none): what the caller
     reads next, so that its reads overlap these writes. NULL where an operator has none. */
  void (*scan_incl_stream)(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                           const void *carry, void *scratch, const void *prefetch);
  void (*scan_excl_stream)(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                           const void *carry, void *scratch, const void *prefetch);
};

/* A built-in operator's kernels over reversed contiguous spans (mirror.c): in and out point at
   item 0, item i lies i elements below it. */
typedef struct pscan__cpu_mirror {
  pscan__cpu_op op; /* first: the kernels find the wrapper from it */
  const pscan__cpu_op *base;
  bool out_forward; /* out's item i lies i elements above item 0 (a reversed input into a
                       forward output; false from pscan__cpu_mirror_op) */
} pscan__cpu_mirror;
/* Fills m for base; false where base is not a built-in operator of items of 8 bytes or less. */
bool pscan__cpu_mirror_op(pscan__cpu_mirror *m, const pscan__cpu_op *base);
/* Short pieces of a reversed contiguous span in one mirrored block: the m <= PSCAN__CPU_MIRROR_BLOCK
   items from in / out (item 0, the highest address; item i i elements below) mirrored into L1 at
   once, piece k (from starts[k], starts[0] = 0, to the next start or m) scanned there by the base
   kernel from carries[k], the block mirrored back (streamed where asked, unfenced). */
enum { PSCAN__CPU_MIRROR_BLOCK = 1024 };
void pscan__cpu_mirror_pieces(const pscan__cpu_mirror *mo, int exclusive, bool stream,
                              const void *in, void *out, size_t m, size_t npieces,
                              const size_t *starts, const void *const *carries);

/* op's inclusive or exclusive scan; the streaming one (with prefetch) when stream and op has one. */
static inline void pscan__cpu_scan(const pscan__cpu_op *op, int exclusive, bool stream,
                                   const void *in, void *out, size_t n, const void *carry,
                                   void *scratch, const void *prefetch) {
  void (*s)(const pscan__cpu_op *, const void *, void *, size_t, const void *, void *,
            const void *) = !stream ? NULL : exclusive ? op->scan_excl_stream : op->scan_incl_stream;
  if (s)
    s(op, in, out, n, carry, scratch, prefetch);
  else
    (exclusive ? op->scan_excl : op->scan_incl)(op, in, out, n, carry, scratch);
}
/* How far ahead of its reads a streaming scan over one array prefetches (prefetch addresses are
   formed as integers: they may lie past the array, and a prefetch never faults). */
enum { PSCAN__PREFETCH_AHEAD = 2048 };

/* The built-in operator for (in, acc, op), or NULL if the combination is not offered: the
   fastest kernels for this CPU (AVX-512, else AVX2, where simd_avx512.c / simd_avx2.c cover the
   combination; the portable ones otherwise). */
const pscan__cpu_op *pscan__cpu_builtin_op(pscan_dtype in, pscan_dtype acc, pscan_op op);
/* The portable kernels (kernel_body.h), whatever the CPU. */
const pscan__cpu_op *pscan__cpu_scalar_op(pscan_dtype in, pscan_dtype acc, pscan_op op);
/* "avx512", "avx2" or "scalar": the best instruction set that the CPU and the OS support, capped
   by PSCAN_CPU_ISA=scalar|avx2|avx512 when set (kernels.c). */
const char *pscan__cpu_isa(void);
/* simd_avx2.c, simd_avx512.c: their operators (NULL where not covered), set up once by _init. */
void pscan__cpu_avx2_init(void);
const pscan__cpu_op *pscan__cpu_avx2_op(pscan_dtype in, pscan_dtype acc, pscan_op op);
void pscan__cpu_avx512_init(void);
const pscan__cpu_op *pscan__cpu_avx512_op(pscan_dtype in, pscan_dtype acc, pscan_op op);
/* Whether a scan writing out_bytes should use non-temporal stores: only when the output cannot
   stay in the last-level cache for a later reader anyway (PSCAN_CPU_STREAM overrides; kernels.c). */
bool pscan__cpu_stream_output(size_t out_bytes);
/* memcpy, or with stream a copy whose stores bypass the caches (x86-64: SSE2 non-temporal
   stores, then an sfence, so the data are visible in order with what the caller stores next). */
void pscan__cpu_copy_out(void *dst, const void *src, size_t bytes, bool stream);
/* The streaming half of pscan__cpu_copy_out without its fence, for a kernel that streams many
   short pieces (the side-by-side rows of axis_body.h) and fences once at the end with
   pscan__cpu_stream_fence (an sfence on x86-64; nothing elsewhere, where this is a memcpy). */
void pscan__cpu_stream_unfenced(void *dst, const void *src, size_t bytes);
void pscan__cpu_stream_fence(void);
/* Fills *op for a user operator on elements of elem_size bytes. */
void pscan__cpu_custom_op(pscan__cpu_op *op, size_t elem_size, pscan_combine_fn fn, void *user);

/* Runs the validated scan c (c->op PSCAN__OP_CUSTOM for a user operator) with op's kernels on
   ctx's pool, with the strategy ctx's parameters choose (backend.c). */
pscan_status pscan__cpu_scan_with(pscan_ctx *ctx, const pscan__scan_call *c,
                                  const pscan__cpu_op *op);
/* The same for a built-in operator over a reversed contiguous span: c->in and c->out point at
   item 0, item i lies i elements below it (mirror.c's kernels, the same strategies; with
   c->out_forward out's item i lies i elements above it), where pscan__cpu_mirrored_strategy(ctx):
   every strategy but scan-then-propagate. */
pscan_status pscan__cpu_scan_mirrored(pscan_ctx *ctx, const pscan__scan_call *c);
static inline bool pscan__cpu_mirrored_strategy(const pscan_ctx *ctx) {
  return ctx->params[PSCAN_PARAM_ALGO] != PSCAN_ALGO_SCAN_THEN_PROPAGATE;
}
/* pscan_reduce of c (n > 0) with op's kernels: the partitions' totals on ctx's pool, folded in
   order into *total (host memory). */
pscan_status pscan__cpu_reduce_with(pscan_ctx *ctx, const pscan__scan_call *c,
                                    const pscan__cpu_op *op, void *total);
/* User operators from source (op/cpu_op.c): the backend table's op_* entries. */
pscan_status pscan__cpu_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, const char *key,
                                  void **impl);
void pscan__cpu_op_destroy(pscan_ctx *ctx, void *impl);
pscan_status pscan__cpu_scan_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                int exclusive, const void *init);
pscan_status pscan__cpu_reduce_op(pscan_ctx *ctx, void *impl, const void *in, size_t n,
                                  const void *init, void *total);
pscan_status pscan__cpu_select_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                  int partition, size_t *num_selected);
const char *pscan__cpu_op_target(pscan_ctx *ctx, const pscan_op_desc *desc);
/* The host combine of a CPU user operator (impl from pscan__op_impl), for engines written against
   pscan_combine_fn (the axis scans): its host_fn, or a call into the compiled operator. */
void pscan__cpu_op_host_combine(void *impl, pscan_combine_fn *fn, void **user);
/* Its kernels (pscan__cpu_op), for engines written against those (the by-key operations), for
   one call: each fetch starts a call, so no reduction memo of an earlier one is taken. */
const pscan__cpu_op *pscan__cpu_op_kernels(void *impl);

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
  bool stream;         /* write the output with non-temporal stores (pscan__cpu_stream_output) */
  bool oversubscribed; /* more threads than cores: waits may sleep */
  bool mirror;         /* in, out: item 0 of reversed spans (op: a pscan__cpu_mirror's) */
  bool out_forward;    /* with mirror: out runs forward (the op's out_forward) */
  /* Partition descriptors: nparts slots of desc_stride bytes, each an atomic status word
     followed by the aggregate and the inclusive prefix (acc_size bytes each). */
  char *desc;
  size_t desc_stride;
  uint64_t epoch;   /* tags this call's status words (cleared at the call's start too) */
  /* Per-thread scratch: nthreads slots of scratch_stride bytes (4 accumulators). */
  char *scratch;
  size_t scratch_stride;
  _Atomic size_t next_part; /* single-pass strategies take partitions in order from here */
} pscan__cpu_job;

void pscan__cpu_scan_sequential(const pscan__cpu_job *job);
void pscan__cpu_scan_lookback(pscan__pool *pool, pscan__cpu_job *job);   /* also CHAINED */
void pscan__cpu_scan_reduce_then_scan(pscan__pool *pool, pscan__cpu_job *job);
void pscan__cpu_scan_then_propagate(pscan__pool *pool, pscan__cpu_job *job);
/* The job's total (init first, when given) into total (acc_size bytes): every partition reduced,
   the aggregates combined in partition order. job->out is not used. */
void pscan__cpu_reduce(pscan__pool *pool, pscan__cpu_job *job, void *total);

/* Addresses inside a job. */
static inline const char *pscan__part_in(const pscan__cpu_job *job, size_t k) {
  size_t off = k * job->part * job->op->in_size;
  return job->mirror ? job->in - off : job->in + off;
}
static inline char *pscan__part_out(const pscan__cpu_job *job, size_t k) {
  size_t off = k * job->part * job->op->acc_size;
  return job->mirror && !job->out_forward ? job->out - off : job->out + off;
}
static inline size_t pscan__part_len(const pscan__cpu_job *job, size_t k) {
  size_t start = k * job->part;
  return job->n - start < job->part ? job->n - start : job->part;
}
static inline char *pscan__thread_scratch(const pscan__cpu_job *job, int tid) {
  return job->scratch + (size_t)tid * job->scratch_stride;
}
/* Bytes of a thread's slot before its extra space (layout_scratch's extra_per_thread). */
static inline size_t pscan__thread_acc_bytes(const pscan__cpu_job *job) {
  return (4 * job->op->acc_size + 63) & ~(size_t)63;
}
static inline char *pscan__thread_extra(const pscan__cpu_job *job, int tid) {
  return pscan__thread_scratch(job, tid) + pscan__thread_acc_bytes(job);
}

/* ---- Compaction (compact.c) ---- */

/* A gather kernel of select_if / partition_if (compact_body.h states the contract). */
typedef size_t (*pscan__cpu_gather_if_fn)(pscan_cmp cmp, const void *value, const void *in,
                                          size_t n, void *buf, bool rejects);
/* The SIMD gather kernel for type t on this CPU (compact_avx512.c), or NULL: then the portable. */
pscan__cpu_gather_if_fn pscan__cpu_simd_gather_if(pscan_dtype t);
pscan__cpu_gather_if_fn pscan__cpu_avx512_gather_if(pscan_dtype t);

/* Fills *op with the operator of the compaction look-back for call: acc is a size_t count,
   combined by addition (run-length encoding: a pair of the count and the position of the last run
   head; reduce_by_key: the count and the reduction of the values since the last run head); in_size
   is the (key) element size, so that pscan__part_in addresses the input. */
typedef struct pscan__cpu_compact_op {
  pscan__cpu_op base;         /* first: the look-back sees a pscan__cpu_op */
  const pscan__cpu_op *value; /* reduce_by_key: the values' operator */
} pscan__cpu_compact_op;
void pscan__cpu_count_op(pscan__cpu_compact_op *op, const pscan__compact_call *call);
/* Bytes of per-thread extra space a compaction job needs for partitions of part elements, or 0
   when that overflows size_t. */
size_t pscan__cpu_compact_extra(const pscan__compact_call *call, size_t part);
/* Runs a compaction job laid out by backend.c (op from pscan__cpu_count_op, the descriptors, and
   pscan__cpu_compact_extra bytes per thread) and returns the number of items written. */
size_t pscan__cpu_compact(pscan__pool *pool, pscan__cpu_job *job, const pscan__compact_call *call);

/* ---- Decoupled look-back, shared by the single-pass scans and the compaction family ----
 *
 * Partition k's descriptor (job->desc + k * job->desc_stride) is an atomic status word followed
 * by the aggregate and the inclusive prefix, acc_size bytes each, combined with job->op->combine.
 * A status word holds (epoch << 2) | state; the value it announces is written to its own slot
 * first and never changed afterwards, and the word is stored with release and read with acquire,
 * so a reader never sees a torn or stale value, and everything the publisher did before
 * publishing (its reads of its input included) happens before whatever the reader does after.
 * The epoch changes with every call, and layout_scratch (backend.c) also clears the call's status
 * words: the bytes may have held other data in earlier calls, and a partial overwrite of an old
 * word could otherwise forge this call's epoch. */
/* X: nothing yet. L: an extra value the partition announces before it has its aggregate (the
   compaction family's unique and run-length encoding: its last input element); the scans never
   use it. A: the aggregate. P: the inclusive prefix. States only grow. */
enum { PSCAN__STATUS_X = 0, PSCAN__STATUS_L = 1, PSCAN__STATUS_A = 2, PSCAN__STATUS_P = 3 };

static inline _Atomic uint64_t *pscan__lb_status(const pscan__cpu_job *job, size_t k) {
  return (_Atomic uint64_t *)(job->desc + k * job->desc_stride);
}
static inline char *pscan__lb_aggregate(const pscan__cpu_job *job, size_t k) {
  return job->desc + k * job->desc_stride + sizeof(uint64_t);
}
static inline char *pscan__lb_prefix(const pscan__cpu_job *job, size_t k) {
  return pscan__lb_aggregate(job, k) + job->op->acc_size;
}

static inline void pscan__lb_publish(const pscan__cpu_job *job, size_t k, int state) {
  atomic_store_explicit(pscan__lb_status(job, k), job->epoch << 2 | (uint64_t)state,
                        memory_order_release);
}

/* Waits until partition k has published at least min_state in this call; returns the state. */
static inline int pscan__lb_wait(const pscan__cpu_job *job, size_t k, int min_state) {
  unsigned spins = 0;
  for (;;) {
    uint64_t w = atomic_load_explicit(pscan__lb_status(job, k), memory_order_acquire);
    if (w >> 2 == job->epoch && (int)(w & 3) >= min_state)
      return (int)(w & 3);
    pscan__backoff(&spins, job->oversubscribed);
  }
}

/* The exclusive prefix of partition k > 0, into excl: walks back over the predecessors, folding
   aggregates until it meets an inclusive prefix (status P). With job->chained it waits for the
   predecessor's inclusive prefix instead (a fixed combination order). On return every partition
   j < k has published (directly, or through the P it was folded into). */
static inline void pscan__lb_look_back(const pscan__cpu_job *job, size_t k, void *excl) {
  const pscan__cpu_op *op = job->op;
  int min_state = job->chained ? PSCAN__STATUS_P : PSCAN__STATUS_A;
  bool have = false;
  for (size_t j = k; j-- > 0;) {
    int state = pscan__lb_wait(job, j, min_state);
    const char *value = state == PSCAN__STATUS_P ? pscan__lb_prefix(job, j)
                                                 : pscan__lb_aggregate(job, j);
    if (have)
      op->combine(op, excl, value, excl); /* predecessors are on the left */
    else
      memcpy(excl, value, op->acc_size);
    have = true;
    if (state == PSCAN__STATUS_P)
      return;
  }
}

#endif /* PSCAN_CPU_H */
