/* Single-pass scans across threads: decoupled look-back and its look-back-of-one variant.
 *
 * Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (NVIDIA
 * NVR-2016-002); the chained variant is Yan, Long & Zhang's StreamScan (PPoPP 2013).
 * Data movement: ~2n (each partition is read once from memory to reduce it, then again from cache
 * to scan it, and written once).
 *
 * Threads take partitions in increasing order from an atomic counter, so every predecessor of a
 * partition is already owned by a running thread: a wait always ends. Partition k reduces its
 * input to an aggregate A_k and publishes it (status A), then walks back over its predecessors,
 * folding aggregates until it meets an inclusive prefix (status P); that gives its exclusive prefix
 * E_k, from which it publishes P_k = E_k ⊕ A_k and scans its input starting from E_k. CHAINED, and
 * DECOUPLED_LOOKBACK in deterministic mode, wait instead for the predecessor's inclusive prefix, so
 * the combination order is fixed: P_k = P_{k-1} ⊕ A_k whatever the timing.
 *
 * Publication: a status word holds (epoch << 2) | state; the value it announces is written to its
 * own slot first and never changed afterwards, and the word is stored with release and read with
 * acquire, so a reader never sees a torn or stale value. The epoch changes with every call, so
 * words left over from earlier calls read as "not yet published" and no reset pass is needed. */
#include "cpu.h"

#include <stdatomic.h>
#include <string.h>

enum { STATUS_X = 0, STATUS_A = 1, STATUS_P = 2 };

static _Atomic uint64_t *status_word(const pscan__cpu_job *job, size_t k) {
  return (_Atomic uint64_t *)(job->desc + k * job->desc_stride);
}
static char *aggregate_slot(const pscan__cpu_job *job, size_t k) {
  return job->desc + k * job->desc_stride + sizeof(uint64_t);
}
static char *prefix_slot(const pscan__cpu_job *job, size_t k) {
  return aggregate_slot(job, k) + job->op->acc_size;
}

static void publish(const pscan__cpu_job *job, size_t k, int state) {
  atomic_store_explicit(status_word(job, k), job->epoch << 2 | (uint64_t)state,
                        memory_order_release);
}

/* Waits until partition k has published at least min_state in this call; returns the state. */
static int wait_status(const pscan__cpu_job *job, size_t k, int min_state) {
  unsigned spins = 0;
  for (;;) {
    uint64_t w = atomic_load_explicit(status_word(job, k), memory_order_acquire);
    if (w >> 2 == job->epoch && (int)(w & 3) >= min_state)
      return (int)(w & 3);
    pscan__backoff(&spins, job->oversubscribed);
  }
}

/* The exclusive prefix of partition k > 0, into excl. */
static void look_back(const pscan__cpu_job *job, size_t k, void *excl) {
  const pscan__cpu_op *op = job->op;
  int min_state = job->chained ? STATUS_P : STATUS_A;
  bool have = false;
  for (size_t j = k; j-- > 0;) {
    int state = wait_status(job, j, min_state);
    const char *value = state == STATUS_P ? prefix_slot(job, j) : aggregate_slot(job, j);
    if (have)
      op->combine(op, excl, value, excl); /* predecessors are on the left */
    else
      memcpy(excl, value, op->acc_size);
    have = true;
    if (state == STATUS_P)
      return;
  }
}

static void scan_partition(const pscan__cpu_job *job, size_t k, const void *carry, void *scratch) {
  const pscan__cpu_op *op = job->op;
  void (*scan)(const pscan__cpu_op *, const void *, void *, size_t, const void *, void *) =
      job->exclusive ? op->scan_excl : op->scan_incl;
  scan(op, pscan__part_in(job, k), pscan__part_out(job, k), pscan__part_len(job, k), carry,
       scratch);
}

static void single_pass_task(void *arg, int tid, int nthreads) {
  pscan__cpu_job *job = arg;
  const pscan__cpu_op *op = job->op;
  size_t s = op->acc_size;
  char *excl = pscan__thread_scratch(job, tid);
  char *kernel_scratch = excl + 2 * s; /* 2 accumulators for the kernel */
  (void)nthreads;
  for (;;) {
    size_t k = atomic_fetch_add_explicit(&job->next_part, 1, memory_order_relaxed);
    if (k >= job->nparts)
      return;
    char *agg = aggregate_slot(job, k);
    op->reduce(op, pscan__part_in(job, k), pscan__part_len(job, k), agg);
    const void *carry;
    if (k == 0) {
      carry = job->init;
    } else {
      publish(job, k, STATUS_A);
      look_back(job, k, excl);
      carry = excl;
    }
    if (carry)
      op->combine(op, prefix_slot(job, k), carry, agg);
    else
      memcpy(prefix_slot(job, k), agg, s);
    publish(job, k, STATUS_P);
    scan_partition(job, k, carry, kernel_scratch);
  }
}

void pscan__cpu_scan_lookback(pscan__pool *pool, pscan__cpu_job *job) {
  atomic_store_explicit(&job->next_part, 0, memory_order_relaxed);
  pscan__pool_run(pool, single_pass_task, job, job->nthreads);
}
