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

static size_t claim(pscan__cpu_job *job) {
  return atomic_fetch_add_explicit(&job->next_part, 1, memory_order_relaxed);
}

/* Partition k's reduction, look-back and publication; returns its carry (its exclusive prefix, or
   the call's init for k = 0, possibly NULL). */
static const void *prefix_of(pscan__cpu_job *job, size_t k, char *excl) {
  const pscan__cpu_op *op = job->op;
  char *agg = pscan__lb_aggregate(job, k);
  op->reduce(op, pscan__part_in(job, k), pscan__part_len(job, k), agg);
  const void *carry = job->init;
  if (k > 0) {
    pscan__lb_publish(job, k, PSCAN__STATUS_A);
    pscan__lb_look_back(job, k, excl);
    carry = excl;
  }
  if (carry)
    op->combine(op, pscan__lb_prefix(job, k), carry, agg);
  else
    memcpy(pscan__lb_prefix(job, k), agg, op->acc_size);
  pscan__lb_publish(job, k, PSCAN__STATUS_P);
  return carry;
}

/* With streaming stores (job->stream: outputs too large to stay in cache), a thread claims its
 * next partition before it scans the current one, and the scan prefetches the next partition's
 * input while it streams its output: otherwise each thread alternates a read-only phase (the
 * reduction, from memory) and a write-only one (the scan, from cache), and neither keeps the
 * memory busy both ways. Claiming early cannot deadlock: claims are still in increasing order,
 * a look-back waits only on smaller partitions, and a thread's claimed-next partition is larger
 * than its current one, whose P it publishes before scanning, i.e. before it waits on nothing; so
 * the smallest unpublished partition's owner can always go on.
 * Streaming stores are safe here, in place too: a partition's output is written only by its owner,
 * after that owner has read the partition's input, and nobody reads it before the call returns;
 * the kernel fences its non-temporal stores before returning, so they are visible before the pool
 * reports the call done. */
static void single_pass_task(void *arg, int tid, int nthreads) {
  pscan__cpu_job *job = arg;
  char *excl = pscan__thread_scratch(job, tid);
  char *kernel_scratch = excl + 2 * job->op->acc_size; /* 2 accumulators for the kernel */
  (void)nthreads;
  for (size_t k = claim(job); k < job->nparts;) {
    const void *carry = prefix_of(job, k, excl);
    size_t next = job->stream ? claim(job) : SIZE_MAX;
    const void *prefetch = next < job->nparts ? pscan__part_in(job, next) : NULL;
    pscan__cpu_scan(job->op, job->exclusive, job->stream, pscan__part_in(job, k),
                    pscan__part_out(job, k), pscan__part_len(job, k), carry, kernel_scratch,
                    prefetch);
    k = job->stream ? next : claim(job);
  }
}

void pscan__cpu_scan_lookback(pscan__pool *pool, pscan__cpu_job *job) {
  atomic_store_explicit(&job->next_part, 0, memory_order_relaxed);
  pscan__pool_run(pool, single_pass_task, job, job->nthreads);
}
