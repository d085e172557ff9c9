/* Two-pass scans across threads: the classic strategies that single-pass look-back improves on.
 *
 * REDUCE_THEN_SCAN (~3n data movement; e.g. Blelloch's "Prefix sums and their applications",
 * and the upsweep/downsweep of MGPU and CUB's early scans): reduce every partition, scan the
 * partition aggregates on one thread, scan every partition again from its exclusive prefix.
 *
 * SCAN_THEN_PROPAGATE (~4n; the hierarchical scan of Kirk & Hwu, "Programming Massively Parallel
 * Processors", ch. 9): scan every partition locally, writing the output, scan the partition
 * totals, then combine each partition's prefix into its output (shifting it by one for an
 * exclusive scan).
 *
 * The reduction (pscan_reduce) is the first phase of REDUCE_THEN_SCAN and the fold of its
 * aggregates, ~n.
 *
 * Partitions are fixed by the job, never by the thread count, and the aggregates are combined in
 * order, so both give the same bits for any number of threads. Each thread takes a contiguous run
 * of partitions. The partition descriptors of the job hold the aggregate (slot 0) and the
 * exclusive prefix (slot 1) of each partition. */
#include "cpu.h"

#include <string.h>

static char *aggregate_slot(const pscan__cpu_job *job, size_t k) {
  return job->desc + k * job->desc_stride + sizeof(uint64_t);
}
static char *prefix_slot(const pscan__cpu_job *job, size_t k) {
  return aggregate_slot(job, k) + job->op->acc_size;
}

/* One phase: fn on every partition, each thread taking a contiguous run of them. */
typedef void (*part_fn)(const pscan__cpu_job *job, size_t k, int tid);
typedef struct phase {
  const pscan__cpu_job *job;
  part_fn fn;
} phase;

static void phase_task(void *arg, int tid, int nthreads) {
  const phase *p = arg;
  size_t first = p->job->nparts * (size_t)tid / (size_t)nthreads;
  size_t last = p->job->nparts * (size_t)(tid + 1) / (size_t)nthreads;
  for (size_t k = first; k < last; k++)
    p->fn(p->job, k, tid);
}

static void run_phase(pscan__pool *pool, pscan__cpu_job *job, part_fn fn) {
  phase p = {job, fn};
  pscan__pool_run(pool, phase_task, &p, job->nthreads);
}

/* Exclusive prefixes of the partitions from their aggregates, in order, on one thread. Partition
   0's prefix is init (none when no init was given). */
static void scan_aggregates(const pscan__cpu_job *job) {
  const pscan__cpu_op *op = job->op;
  const void *running = job->init; /* the prefix so far, NULL while empty */
  for (size_t k = 0; k < job->nparts; k++) {
    if (k > 0) {
      char *prefix = prefix_slot(job, k);
      if (running)
        op->combine(op, prefix, running, aggregate_slot(job, k - 1));
      else
        memcpy(prefix, aggregate_slot(job, k - 1), op->acc_size);
      running = prefix;
    } else if (running) {
      memcpy(prefix_slot(job, 0), running, op->acc_size);
    }
  }
}

static const void *partition_prefix(const pscan__cpu_job *job, size_t k) {
  return k > 0 || job->init ? prefix_slot(job, k) : NULL;
}

static void reduce_part(const pscan__cpu_job *job, size_t k, int tid) {
  (void)tid;
  job->op->reduce(job->op, pscan__part_in(job, k), pscan__part_len(job, k),
                  aggregate_slot(job, k));
}

static void rescan_part(const pscan__cpu_job *job, size_t k, int tid) {
  const pscan__cpu_op *op = job->op;
  (job->exclusive ? op->scan_excl : op->scan_incl)(
      op, pscan__part_in(job, k), pscan__part_out(job, k), pscan__part_len(job, k),
      partition_prefix(job, k), pscan__thread_scratch(job, tid));
}

void pscan__cpu_scan_reduce_then_scan(pscan__pool *pool, pscan__cpu_job *job) {
  run_phase(pool, job, reduce_part);
  scan_aggregates(job);
  run_phase(pool, job, rescan_part);
}

void pscan__cpu_reduce(pscan__pool *pool, pscan__cpu_job *job, void *total) {
  const pscan__cpu_op *op = job->op;
  run_phase(pool, job, reduce_part);
  char *running = prefix_slot(job, 0);
  if (job->init)
    op->combine(op, running, job->init, aggregate_slot(job, 0));
  else
    memcpy(running, aggregate_slot(job, 0), op->acc_size);
  for (size_t k = 1; k < job->nparts; k++)
    op->combine(op, running, running, aggregate_slot(job, k));
  memcpy(total, running, op->acc_size);
}

/* Local inclusive scans; the last output of a partition is its total. */
static void local_scan_part(const pscan__cpu_job *job, size_t k, int tid) {
  const pscan__cpu_op *op = job->op;
  size_t len = pscan__part_len(job, k);
  char *out = pscan__part_out(job, k);
  op->scan_incl(op, pscan__part_in(job, k), out, len, NULL, pscan__thread_scratch(job, tid));
  memcpy(aggregate_slot(job, k), out + (len - 1) * op->acc_size, op->acc_size);
}

static void propagate_part(const pscan__cpu_job *job, size_t k, int tid) {
  const pscan__cpu_op *op = job->op;
  const void *prefix = partition_prefix(job, k);
  size_t len = pscan__part_len(job, k);
  (void)tid;
  if (job->exclusive)
    op->propagate_excl(op, pscan__part_out(job, k), len, prefix);
  else if (prefix)
    op->propagate_incl(op, pscan__part_out(job, k), len, prefix);
}

void pscan__cpu_scan_then_propagate(pscan__pool *pool, pscan__cpu_job *job) {
  run_phase(pool, job, local_scan_part);
  scan_aggregates(job);
  run_phase(pool, job, propagate_part);
}
