/* The compaction family's partitions that take whole runs at a time on the CPU (the single pass of
 * compact.c, its shared pieces in compact_pass.h): reduce_by_key and scan_by_key with the AVX-512
 * kernels, and run_length_encode (with the AVX-512 run-counts kernel or the portable one). */
#include "compact_out.h"
#include "compact_pass.h"

#include <stdint.h>
#include <string.h>

void pscan__cpu_by_key_partition_simd(pscan__cpu_job *job, const pscan__compact_call *c,
                                      const by_key_simd *f, size_t k, char *excl_slot, char *buf,
                                      char *stage, uint64_t *bits) {
  const pscan__cpu_op *vop = ((const pscan__cpu_compact_op *)(const void *)job->op)->value;
  bool seg_scan = c->kind == PSCAN__COMPACT_SCAN_BY_KEY;
  size_t size = c->size, vs = c->val_size, start = k * job->part, len = pscan__part_len(job, k);
  const char *in = pscan__part_in(job, k);
  const char *vals = (const char *)c->vals_in + start * vs;
  memcpy(last_slot(job, k), in + (len - 1) * size, size); /* as gather() does: L first */
  pscan__lb_publish(job, k, PSCAN__STATUS_L);
  /* reduce_by_key's one pass, where a kernel covers the types: the run totals do not depend on
     whether item 0 is a head (nothing before it in the partition), so the predecessor's last key
     is needed only after it */
  pscan__cpu_reduce_runs_fn fused = seg_scan ? NULL : f->reduce_runs;
  pair agg = {0, {0}};
  size_t tails = 0;
  size_t kept = fused ? fused(in, vals, len, buf, stage, &tails, &agg.x)
                      : f->heads(in, len, seg_scan ? NULL : buf, NULL, start, bits);
  bool first_head = true;
  if (k > 0) { /* the keys are never written (by-key outputs are other arrays): in[0] is safe */
    pscan__lb_wait(job, k - 1, PSCAN__STATUS_L);
    if (pscan__cpu_compact_portable[c->type].equal(in, last_slot(job, k - 1))) {
      if (!fused)
        bits[0] &= ~(uint64_t)1;
      kept--;
      first_head = false;
    }
  }
  const char *items = buf + (first_head ? 0 : size); /* buf[0] is in[0], a head or not */
  /* The reduction since the last head (every value without one): reduce_by_key's local pass
     gives it with the run totals, which need no carry but the first's; scan_by_key's output
     depends on the carry throughout its first segment, so it reduces its last segment here and
     makes its one pass after the look-back. */
  agg.count = kept;
  if (seg_scan) {
    size_t last = 0;
    for (size_t w = (len - 1) / 64 + 1; kept && w-- > 0;)
      if (bits[w]) {
        last = w * 64 + 63 - (size_t)__builtin_clzll(bits[w]);
        break;
      }
    vop->reduce(vop, vals + last * vs, len - last, &agg.x);
  } else if (!fused) {
    tails = f->sum(vals, len, bits, NULL, stage, NULL, false, &agg.x);
  }
  pair through, before = pscan__cpu_compact_look_back(job, c, k, agg, excl_slot, &through);
  if (seg_scan) {
    /* The kernel streams whole vectors where they are 64-byte aligned; a partition whose output
       is not (the default partition of 4-byte values starts every 21844 bytes) goes through the
       stage and out in one streamed copy, rather than with plain stores (a read for ownership
       of every line). */
    uint64_t end_sum;
    char *dst = (char *)c->vals_out + start * vs;
    bool staged = job->stream && (uintptr_t)dst % 64 != 0;
    f->sum(vals, len, bits, first_head ? NULL : &before.x, NULL, staged ? stage : dst,
           job->stream && !staged, &end_sum);
    if (staged)
      copy_out(dst, stage, len * vs, true);
    return;
  }
  char *vals_out = c->vals_out;
  if (kept)
    copy_out((char *)c->out + before.count * size, items, kept * size, job->stream);
  if (tails && !first_head) /* the incoming run's total: the predecessors' part first */
    vop->combine(vop, stage, &before.x, stage);
  if (first_head && before.count > 0)
    memcpy(vals_out + (before.count - 1) * vs, &before.x, vs);
  if (tails) /* tails == kept - first_head: run totals from run before.count - !first_head on */
    copy_out(vals_out + (before.count - (first_head ? 0 : 1)) * vs, stage, tails * vs,
                        job->stream);
  if (k == job->nparts - 1)
    memcpy(vals_out + (through.count - 1) * vs, &through.x, vs);
}

/* ---- run_length_encode ----
   One pass over a partition gives the run heads' keys and the lengths of the runs that end inside
   it (pscan__cpu_run_counts_fn: a run ends where the next one starts, counted locally as if item 0
   started a run); the aggregate is the count of heads and the last one's position. After the
   look-back two fix-ups join the partition to its predecessors: where item 0 continues their last
   run, its first local length gains that run's items before this partition (start - before.x);
   where item 0 starts a run, it closes theirs (start - before.x items). The partition's own last
   run stays open: the next partition, or the last one, closes it. Partition k writes counts_out
   from run before.count - 1 (or before.count) up to run through.count - 2: disjoint from its
   neighbours'. The lengths are 32-bit in the buffer (backend.c keeps partitions below 2^32 items)
   and go out widened in one copy, streamed where the output is (no read for ownership of
   counts_out, at run length 1 half the bytes written). */

/* The portable kernel of the same contract: the heads' positions (size_t, in lens' space), then
   their differences, narrowed, in place: the write of length i (bytes 4i .. 4i + 4) comes after
   the reads of positions i and i + 1 (bytes 8i .. 8i + 16), and every position below i has been
   read; byte copies, so no type-based aliasing assumption reorders them. */
static size_t portable_run_counts(gather_heads_fn gather_heads, const void *in, size_t n, void *buf,
                                  uint32_t *lens, size_t *last_head) {
  char *space = (char *)lens;
  size_t heads = gather_heads(in, n, buf, (size_t *)(void *)space, 0);
  memcpy(last_head, space + (heads - 1) * sizeof(size_t), sizeof(size_t));
  for (size_t i = 0; i + 1 < heads; i++) {
    size_t a, b;
    memcpy(&a, space + i * sizeof(size_t), sizeof a);
    memcpy(&b, space + (i + 1) * sizeof(size_t), sizeof b);
    uint32_t d = (uint32_t)(b - a);
    memcpy(space + i * sizeof d, &d, sizeof d);
  }
  return heads;
}

void pscan__cpu_rle_partition(pscan__cpu_job *job, const pscan__compact_call *c,
                              pscan__cpu_run_counts_fn fn, size_t k, char *excl_slot, char *buf,
                              uint32_t *lens) {
  size_t size = c->size, start = k * job->part, len = pscan__part_len(job, k);
  const char *in = pscan__part_in(job, k);
  memcpy(last_slot(job, k), in + (len - 1) * size, size); /* as gather() does: L first */
  pscan__lb_publish(job, k, PSCAN__STATUS_L);
  size_t last_head = 0;
  size_t heads = fn ? fn(in, len, buf, lens, &last_head)
                    : portable_run_counts(pscan__cpu_compact_portable[c->type].gather_heads, in,
                                          len, buf, lens, &last_head);
  bool first_head = true;
  if (k > 0) { /* buf[0] is in[0], compared with the predecessor's announced last key */
    pscan__lb_wait(job, k - 1, PSCAN__STATUS_L);
    first_head = !pscan__cpu_compact_portable[c->type].equal(buf, last_slot(job, k - 1));
  }
  size_t kept = heads - (first_head ? 0 : 1), nlens = heads - 1;
  pair agg = {kept, {.x = start + last_head}};
  pair through, before = pscan__cpu_compact_look_back(job, c, k, agg, excl_slot, &through);
  uint64_t *counts = c->counts_out;
  if (kept)
    copy_out((char *)c->out + before.count * size, buf + (first_head ? 0 : size), kept * size,
             job->stream);
  if (first_head && before.count > 0)
    counts[before.count - 1] = (uint64_t)(start - before.x);
  if (nlens) {
    uint64_t *to = counts + before.count - (first_head ? 0 : 1);
    if (!first_head) { /* the incoming run: its items before this partition too */
      *to = (uint64_t)lens[0] + (start - before.x);
      to++, lens++, nlens--;
    }
    copy_out_widened(to, lens, nlens, job->stream);
  }
  if (k == job->nparts - 1)
    counts[through.count - 1] = (uint64_t)(job->n - through.x);
}
