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
 * acquire, so a reader never sees a torn or stale value. Each call's status words are cleared
 * before it starts (one store per partition; see layout_scratch in backend.c for why the epoch
 * alone is not enough). */
#include "cpu.h"

#include <stdatomic.h>
#include <string.h>

/* The status words, publication and look-back are shared with the compaction family
   (compact.c): see pscan__lb_* in cpu.h. */

static void scan_partition(const pscan__cpu_job *job, size_t k, const void *carry, void *scratch) {
  const pscan__cpu_op *op = job->op;
  /* Streaming stores (job->stream) are safe here, in place too: a partition's output is written
     only by its owner, after that owner has read the partition's input, and nobody reads it
     before the call returns; the kernel fences its non-temporal stores before returning, so they
     are visible before the pool reports the call done. */
  pscan__cpu_scan_fn(op, job->exclusive, job->stream)(op, pscan__part_in(job, k), pscan__part_out(job, k), pscan__part_len(job, k), carry,
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
    char *agg = pscan__lb_aggregate(job, k);
    op->reduce(op, pscan__part_in(job, k), pscan__part_len(job, k), agg);
    const void *carry;
    if (k == 0) {
      carry = job->init;
    } else {
      pscan__lb_publish(job, k, PSCAN__STATUS_A);
      pscan__lb_look_back(job, k, excl);
      carry = excl;
    }
    if (carry)
      op->combine(op, pscan__lb_prefix(job, k), carry, agg);
    else
      memcpy(pscan__lb_prefix(job, k), agg, s);
    pscan__lb_publish(job, k, PSCAN__STATUS_P);
    scan_partition(job, k, carry, kernel_scratch);
  }
}

void pscan__cpu_scan_lookback(pscan__pool *pool, pscan__cpu_job *job) {
  atomic_store_explicit(&job->next_part, 0, memory_order_relaxed);
  pscan__pool_run(pool, single_pass_task, job, job->nthreads);
}
