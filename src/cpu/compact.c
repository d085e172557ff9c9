/* The compaction family on the CPU, in one pass: select_if, select_flagged, partition_if,
 * unique, run_length_encode, reduce_by_key, and the segmented scan scan_by_key.
 *
 * The selection is fused into the scan of the selection flags (Merrill & Garland's single-pass
 * select): threads take partitions in increasing order from an atomic counter; partition k reads
 * its input once, gathering the items it keeps (and, for partition_if, the ones it rejects) into
 * a private per-thread buffer that stays in cache, and counting them; it publishes the count as
 * its aggregate, looks back over its predecessors for its exclusive prefix (the number of items
 * kept before it), publishes its inclusive prefix, and copies the buffer to out at that offset.
 * No flags array goes to memory, and the input is read once. The status words and the look-back
 * are the single-pass scan's own (pscan__lb_* in cpu.h), with a size_t count as the aggregate.
 *
 * partition_if: the r-th rejected item of the whole input goes to out[n-1-r]. Partition k keeps
 * c_k items after E_k kept before it, and so rejects len_k - c_k items after R_k = start_k - E_k
 * rejected before it; its rejects land in out[n - R_k - (len_k - c_k) .. n - R_k), in reverse
 * order, which is exactly the back of its buffer as the gather kernel leaves it: one memcpy.
 *
 * unique, run_length_encode, reduce_by_key: the kept items are the run heads (in[i] != in[i-1]
 * under C ==, so NaN is never equal). Whether a partition's first item is a head depends on the
 * predecessor's last item; the predecessor announces it in its descriptor (status L) as the first
 * thing it does, and the successor reads it from there, never from in (which may already be
 * overwritten in place). A run's length (its reduction) is known where the next head is: the
 * partition holding head r writes counts_out[r-1] (vals_out[r-1]); the look-back aggregate
 * carries, with the count, the position of the last head (the reduction since the last head),
 * and the last partition closes the last run. reduce_by_key reads its values a second time (from
 * cache) after the look-back, so it does not run in place (nor does pscan.h allow it).
 * scan_by_key has the same aggregate as reduce_by_key (heads, and the reduction since the last
 * one); after the look-back each partition scans its segments (pscan__cpu_scan_segments in
 * compact_short_runs.c), the first one continuing from the carry. It writes only its own range,
 * so it may run in place.
 *
 * Why in place (out == in: select_if, select_flagged, unique, run_length_encode's values) is
 * safe, in the same single pass:
 *  1. Partition k reads in[start_k .. end_k) only during its gather, and the gather finishes
 *     before k publishes its aggregate (status A). Its own items then live in its buffer. (The
 *     status L of unique comes before the gather, but announces a value copied into the
 *     descriptor, so no reader of L touches k's input.)
 *  2. Partition k writes out[E_k .. E_k + c_k) only after its look-back has returned. The
 *     look-back returns only once every predecessor j < k has published A or P: directly (k read
 *     j's status word), or through an inclusive prefix P_i (i > j) that i could compute only after
 *     its own look-back saw j's, and so on by induction. Each of those status words was stored
 *     with release and read with acquire, so every predecessor's gather (all its reads of its
 *     input) happens before k's first write. No predecessor can still be reading what k writes.
 *  3. E_k + c_k <= end_k (a partition keeps at most its own items, so the items kept before
 *     end_k number at most end_k): k never writes at or past the start of a successor's input,
 *     so no successor's read can see k's writes, whatever the timing.
 *  4. Partitions write disjoint ranges of out (consecutive counts).
 * So every read of an input element happens before any write to its position, and each kept item
 * lands where a sequential stable compaction would put it. The same holds with the chained
 * look-back and on one thread. flags and counts_out never overlap out (api.c refuses that), and
 * select's comparison value is copied by api.c before the call (it may lie inside out).
 *
 * Where the parts live: this file stamps the portable kernels of each type (compact_body.h),
 * holds the look-back's operators, the gather, the look-back itself, the general partition (the
 * select family, unique, reduce_by_key run by run) and the driver; compact_runs.c holds the
 * partitions of run_length_encode and of the by-key operations with the AVX-512 kernels;
 * compact_pass.h what they share; compact_short_runs.c scan_by_key's segments. */
#include "compact_out.h"
#include "compact_pass.h"
#include "compact_short_runs.h"

#include <stdatomic.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "../kernel_types.h"

/* compact_body.h for every type of PSCAN_TYPES (cpu_types.h is generated from the list). */
#define PSCAN_TYPE_TEMPLATE "cpu/compact_body.h"
#include "cpu_types.h"
#undef PSCAN_TYPE_TEMPLATE

/* Indexed by pscan_dtype (the order of PSCAN_TYPES). */
#define X(E, name, ctype, kind) {gather_if_##E, gather_flagged_##E, gather_heads_##E, equal_##E},
const portable_kernels pscan__cpu_compact_portable[PSCAN_DTYPE_COUNT] = {PSCAN_TYPES(X)};
#undef X

/* ---- The operators of the look-back ---- */

/* A count of items. */
static void count_combine(const pscan__cpu_op *op, void *out, const void *a, const void *b) {
  (void)op;
  size_t x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  x += y;
  memcpy(out, &x, sizeof x);
}

/* Run-length encoding and the by-key operations: the pair of compact_pass.h. */
static void runs_combine(const pscan__cpu_op *op, void *out, const void *a, const void *b) {
  pair x, y;
  memcpy(&x, a, op->acc_size);
  memcpy(&y, b, op->acc_size);
  x.x = y.count ? y.x : x.x;
  x.count += y.count;
  memcpy(out, &x, op->acc_size);
}

static void by_key_combine(const pscan__cpu_op *op, void *out, const void *a, const void *b) {
  const pscan__cpu_op *value = ((const pscan__cpu_compact_op *)(const void *)op)->value;
  pair x, y;
  memcpy(&x, a, op->acc_size);
  memcpy(&y, b, op->acc_size);
  if (y.count)
    memcpy(x.v, y.v, op->acc_size - sizeof x.count);
  else
    value->combine(value, x.v, x.v, y.v);
  x.count += y.count;
  memcpy(out, &x, op->acc_size);
}

void pscan__cpu_count_op(pscan__cpu_compact_op *cop, const pscan__compact_call *call) {
  memset(cop, 0, sizeof *cop);
  pscan__cpu_op *op = &cop->base;
  op->combine = call->kind == PSCAN__COMPACT_RUN_LENGTH      ? runs_combine
                : call->kind == PSCAN__COMPACT_REDUCE_BY_KEY ? by_key_combine
                : call->kind == PSCAN__COMPACT_SCAN_BY_KEY   ? by_key_combine
                                                             : count_combine;
  op->in_size = call->size;
  /* the count, then a position or a value: 8 bytes, or a wider user value's (rounded up) */
  size_t second = call->kind == PSCAN__COMPACT_RUN_LENGTH ? 8 : (call->val_size + 7) / 8 * 8;
  op->acc_size = has_positions(call) ? sizeof(size_t) + (second > 8 ? second : 8) : sizeof(size_t);
}

/* The per-thread extra space: KERNEL_SCRATCH bytes for the scan kernels (scan_by_key), then the
   buffer of part items, then (run-length encoding, the by-key operations) part head positions
   (run-length encoding: its 32-bit run lengths, compact_runs.c). */
enum { KERNEL_SCRATCH = 64 };
static size_t items_bytes(const pscan__compact_call *call, size_t part) {
  return (part * call->size + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t);
}

/* Words of the head bit array of the by-key SIMD path (compact_simd.h: bits up to word
   part / 64 + 1). */
static size_t bit_words(size_t part) { return part / 64 + 2; }

size_t pscan__cpu_compact_extra(const pscan__compact_call *call, size_t part) {
  size_t per = call->size + (has_positions(call) ? sizeof(size_t) + 1 : 0);
  if (part > (SIZE_MAX - 2 * KERNEL_SCRATCH) / per - 64)
    return 0;
  return KERNEL_SCRATCH + items_bytes(call, part) +
         (has_positions(call) ? part * sizeof(size_t) + bit_words(part) * sizeof(uint64_t) : 0);
}
/* ---- The single-pass task ---- */

typedef struct compact_task {
  pscan__cpu_job *job;
  const pscan__compact_call *call;
} compact_task;

/* Partition k's kept items in buf[0..*kept) (partition_if: its rejected ones at the back), and
   for the by-key operations their positions; returns the first kept item (run-length encoding
   has its own partition, compact_runs.c). Reads only the partition's own input (and a
   predecessor's announced last element). */
static const char *gather(const pscan__cpu_job *job, const pscan__compact_call *c, size_t k,
                          char *buf, size_t *pos, size_t *kept, size_t **first_pos) {
  size_t start = k * job->part, len = pscan__part_len(job, k), size = c->size;
  const char *in = pscan__part_in(job, k);
  const portable_kernels *portable = &pscan__cpu_compact_portable[c->type];
  switch (c->kind) {
  case PSCAN__COMPACT_SELECT_FLAGGED:
  {
    pscan__cpu_flagged_fn fn =
        pscan__cpu_avx512_allowed() ? pscan__cpu_avx512_flagged(c->type) : NULL;
    *kept = (fn ? fn : portable->gather_flagged)(c->flags + start, in, len, buf);
    return buf;
  }
  case PSCAN__COMPACT_SELECT_IF:
  case PSCAN__COMPACT_PARTITION_IF:
  {
    if (c->user_gather) {
      *kept = c->user_gather(c->user_pred, in, len, buf, c->kind == PSCAN__COMPACT_PARTITION_IF);
      return buf;
    }
    gather_if_fn fn = pscan__cpu_simd_gather_if(c->type);
    *kept = (fn ? fn : portable->gather_if)(c->cmp, c->value, in, len, buf,
                                            c->kind == PSCAN__COMPACT_PARTITION_IF);
    return buf;
  }
  case PSCAN__COMPACT_UNIQUE:
  case PSCAN__COMPACT_RUN_LENGTH:
  case PSCAN__COMPACT_REDUCE_BY_KEY:
  case PSCAN__COMPACT_SCAN_BY_KEY:
    break;
  }
  /* Announce the last element first: the successor needs it to decide its first head, and it
     must not read it from in, which a predecessor may already be overwriting in place. */
  memcpy(last_slot(job, k), in + (len - 1) * size, size);
  pscan__lb_publish(job, k, PSCAN__STATUS_L);
  pscan__cpu_heads_fn fn = pscan__cpu_avx512_allowed() ? pscan__cpu_avx512_heads(c->type) : NULL;
  size_t heads = fn ? fn(in, len, buf, pos, start, NULL)
                    : portable->gather_heads(in, len, buf, pos, start);
  size_t skip = 0;
  if (k > 0) {
    /* The predecessor was claimed first and announces L before anything else: a short wait. */
    pscan__lb_wait(job, k - 1, PSCAN__STATUS_L);
    skip = portable->equal(buf, last_slot(job, k - 1)) ? 1 : 0;
  }
  *kept = heads - skip;
  *first_pos = pos ? pos + skip : NULL;
  return buf + skip * size;
}

/* Publishes partition k's aggregate agg, looks back, and publishes its inclusive prefix
   (*through); returns the exclusive one (the partitions before k; zero for the first). Without
   positions only the counts add up (acc_size covers the count alone). */
pair pscan__cpu_compact_look_back(pscan__cpu_job *job, const pscan__compact_call *c, size_t k,
                                  pair agg, char *excl_slot, pair *through) {
  memcpy(pscan__lb_aggregate(job, k), &agg, job->op->acc_size);
  pair before = {0, {0}};
  if (k > 0) {
    pscan__lb_publish(job, k, PSCAN__STATUS_A);
    pscan__lb_look_back(job, k, excl_slot);
    memcpy(&before, excl_slot, job->op->acc_size);
  }
  *through = before;
  if (has_positions(c))
    job->op->combine(job->op, through, &before, &agg);
  else
    through->count += agg.count;
  memcpy(pscan__lb_prefix(job, k), through, job->op->acc_size);
  pscan__lb_publish(job, k, PSCAN__STATUS_P);
  return before;
}
static void compact_partitions(void *arg, int tid, int nthreads) {
  const compact_task *t = arg;
  pscan__cpu_job *job = t->job;
  const pscan__compact_call *c = t->call;
  size_t size = c->size;
  char *excl_slot = pscan__thread_scratch(job, tid);
  char *kernel_scratch = pscan__thread_extra(job, tid);
  char *buf = kernel_scratch + KERNEL_SCRATCH;
  bool rle = c->kind == PSCAN__COMPACT_RUN_LENGTH, seg_scan = c->kind == PSCAN__COMPACT_SCAN_BY_KEY;
  pscan__cpu_run_counts_fn run_counts =
      rle && pscan__cpu_avx512_allowed() ? pscan__cpu_avx512_run_counts(c->type) : NULL;
  bool by_key = c->kind == PSCAN__COMPACT_REDUCE_BY_KEY || seg_scan;
  const pscan__cpu_op *vop = ((const pscan__cpu_compact_op *)(const void *)job->op)->value;
  size_t vs = c->val_size;
  size_t *pos_buf = has_positions(c) ? (size_t *)(void *)(buf + items_bytes(c, job->part)) : NULL;
  char *out = c->out;
  (void)nthreads;
  by_key_simd simd = {NULL, NULL, NULL};
  if (by_key && !c->user_value && pscan__cpu_avx512_allowed() &&
      !(seg_scan && (c->exclusive || c->init))) {
    simd.heads = pscan__cpu_avx512_heads(c->type);
    simd.sum = pscan__cpu_avx512_seg_sum(c->val_type, c->op);
    simd.reduce_runs = pscan__cpu_avx512_reduce_runs(c->type, c->val_type, c->op);
  }
  uint64_t *bits = pos_buf ? (uint64_t *)(void *)(pos_buf + job->part) : NULL;
  for (;;) {
    size_t k = atomic_fetch_add_explicit(&job->next_part, 1, memory_order_relaxed);
    if (k >= job->nparts)
      break;
    if (simd.heads && simd.sum) {
      pscan__cpu_by_key_partition_simd(job, c, &simd, k, excl_slot, buf, (char *)pos_buf, bits);
      continue;
    }
    if (rle) {
      pscan__cpu_rle_partition(job, c, run_counts, k, excl_slot, buf, (uint32_t *)(void *)pos_buf);
      continue;
    }
    size_t start = k * job->part, len = pscan__part_len(job, k);
    /* 1. Read the whole partition once: gather and count. */
    size_t kept = 0, *pos = NULL;
    const char *items = gather(job, c, k, buf, pos_buf, &kept, &pos);
    pair agg = {kept, {.x = kept && pos ? pos[kept - 1] : 0}};
    const char *vals = by_key ? (const char *)c->vals_in + start * vs : NULL;
    if (by_key) { /* the values since the last head (all of them without a head) */
      size_t last = kept ? pos[kept - 1] : start;
      vop->reduce(vop, vals + (last - start) * vs, start + len - last, agg.v);
    }
    /* 2. Publish, look back, publish the inclusive prefix. */
    pair through, before = pscan__cpu_compact_look_back(job, c, k, agg, excl_slot, &through);
    /* 3. Write (in place: see the top of the file for why this cannot clobber unread input). */
    if (seg_scan) {
      pscan__cpu_scan_segments(c, vop, start, len, pos, kept, k > 0 ? before.v : NULL,
                               kernel_scratch, job->stream);
      continue;
    }
    if (kept)
      copy_out(out + before.count * size, items, kept * size, job->stream);
    if (c->kind == PSCAN__COMPACT_PARTITION_IF && kept < len) {
      size_t rejected = len - kept, rejected_before = start - before.count;
      copy_out(out + (job->n - rejected_before - rejected) * size, buf + kept * size,
                          rejected * size, job->stream);
    }
    if (by_key) {
      /* Like the counts: head i closes the run before it (vals_out[r - 1] for head r); the
         first local head closes the run that came in from the predecessors (before.x, the
         values since their last head), continued by this partition's values up to the head.
         Head 0's value goes straight out; heads 1 .. kept - 1 put theirs in slot i - 1 of
         slots: vals_out from run before.count on, or, where the output is streamed, a stage
         over the positions (slot i - 1 ends at byte i * vs <= 8 i, below pos[i], which is still
         to be read) that goes out in one streamed copy, as the counts of run-length encoding
         do (values of at most 8 bytes: a wider user value goes straight out). */
      char *vals_out = c->vals_out;
      bool staged = job->stream && vs <= sizeof(size_t);
      char *slots = staged ? (char *)(void *)pos : vals_out + before.count * vs;
      for (size_t i = 0; i < kept; i++) {
        size_t r = before.count + i;
        if (r == 0)
          continue;
        _Alignas(8) unsigned char acc[PSCAN__BY_KEY_VALUE_MAX];
        if (i > 0 && pos[i] - pos[i - 1] == 1) {
          /* A stretch of runs of one item (heads i .. m - 1 one apart): their reductions are
             their values, consecutive in vals: one copy. */
          size_t m = unit_stretch(pos, i, kept);
          memcpy(slots + (i - 1) * vs, vals + (pos[i - 1] - start) * vs, (m - i) * vs);
          i = m - 1;
          continue;
        }
        if (i > 0) {
          run_reduce(vop, vals + (pos[i - 1] - start) * vs, pos[i] - pos[i - 1], vs, acc);
          copy_val(slots + (i - 1) * vs, acc, vs);
          continue;
        }
        if (pos[0] > start) {
          run_reduce(vop, vals, pos[0] - start, vs, acc);
          vop->combine(vop, acc, before.v, acc);
        } else {
          copy_val(acc, before.v, vs);
        }
        copy_val(vals_out + (r - 1) * vs, acc, vs);
      }
      if (staged && kept > 1)
        copy_out(vals_out + before.count * vs, slots, (kept - 1) * vs, true);
      if (k == job->nparts - 1)
        memcpy(vals_out + (through.count - 1) * vs, through.v, vs);
    }
  }
  end_streams(job->stream);
}

size_t pscan__cpu_compact(pscan__pool *pool, pscan__cpu_job *job, const pscan__compact_call *call) {
  compact_task t = {.job = job, .call = call};
  atomic_store_explicit(&job->next_part, 0, memory_order_relaxed);
  pscan__pool_run(pool, compact_partitions, &t, job->nthreads);
  size_t total;
  memcpy(&total, pscan__lb_prefix(job, job->nparts - 1), sizeof total);
  return total;
}
