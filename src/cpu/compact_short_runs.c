/* The segmented scan of one scan_by_key partition (compact.c): short segments folded with the
   operator's combine, longer ones through its scan kernel (compact_short_runs.h says why). */
#include "compact_short_runs.h"

/* The segment in[0..len) scanned into out (may equal in), starting from *from (NULL: from in[0]
   when inclusive; the identity *ident when exclusive). */
static void short_scan(const pscan__cpu_op *vop, int exclusive, const char *in, char *out,
                       size_t len, size_t vs, const void *from, const void *ident) {
  _Alignas(8) unsigned char acc[PSCAN__BY_KEY_VALUE_MAX], x[PSCAN__BY_KEY_VALUE_MAX];
  if (exclusive) {
    copy_val(acc, from ? from : ident, vs);
    for (size_t j = 0; j < len; j++) {
      copy_val(x, in + j * vs, vs); /* read before the write: in place */
      copy_val(out + j * vs, acc, vs);
      vop->combine(vop, acc, acc, x);
    }
    return;
  }
  if (from)
    vop->combine(vop, acc, from, in);
  else
    copy_val(acc, in, vs);
  copy_val(out, acc, vs);
  for (size_t j = 1; j < len; j++) {
    vop->combine(vop, acc, acc, in + j * vs);
    copy_val(out + j * vs, acc, vs);
  }
}

/* scan_by_key, partition [start, start + len) once its look-back is done: one scan per segment
   between heads (pos[0..kept)), each starting from init (NULL: from its first value, or the
   identity when exclusive); the segment that comes in from the predecessors (before the first
   local head, k > 0) starts from init ⊕ carry, carry being the reduction of the values since the
   last head before this partition. In place is safe: a partition writes only its own range,
   which only it reads, and the scan kernels read in[i] before writing out[i]. Segments shorter
   than SHORT_SEGMENT are scanned by short_scan. */
void pscan__cpu_scan_segments(const pscan__compact_call *c, const pscan__cpu_op *vop, size_t start,
                              size_t len, const size_t *pos, size_t kept, const void *carry,
                              void *scratch, bool stream) {
  size_t vs = c->val_size, lo = start, end = start + len;
  const char *vin = c->vals_in;
  char *vout = c->vals_out;
  _Alignas(8) unsigned char ident[PSCAN__BY_KEY_VALUE_MAX] = {0};
  bool have_ident = false;
  for (size_t i = 0; i <= kept; i++) {
    size_t hi = i < kept ? pos[i] : end;
    if (i > 0 && hi - lo == 1 && !c->exclusive && !c->init) {
      /* Segments of one item, inclusive, no init: each is its own value. A stretch of them
         (segments i .. j, segment t = [pos[t - 1], its end)) is one copy. */
      size_t j = i;
      while (j < kept && (j + 1 < kept ? pos[j + 1] : end) - pos[j] == 1)
        j++;
      hi = j < kept ? pos[j] : end;
      memmove(vout + lo * vs, vin + lo * vs, (hi - lo) * vs); /* in place: the same range */
      lo = hi;
      i = j;
      continue;
    }
    if (hi > lo) {
      _Alignas(8) unsigned char first[PSCAN__BY_KEY_VALUE_MAX];
      const void *from = c->init;
      if (i == 0 && carry) { /* the segment coming in from the predecessors */
        if (c->init)
          vop->combine(vop, first, c->init, carry);
        else
          memcpy(first, carry, vs);
        from = first;
      }
      if (hi - lo >= SHORT_SEGMENT) {
        /* Long segments of a streamed output with non-temporal stores (no read-for-ownership
           of vals_out); the stream kernels fence before they return, a cost that a segment of
           STREAM_SEGMENT items hides. */
        pscan__cpu_scan(vop, c->exclusive, stream && hi - lo >= STREAM_SEGMENT, vin + lo * vs,
                        vout + lo * vs, hi - lo, from, scratch, NULL);
      } else {
        if (c->exclusive && !from && !have_ident) { /* the identity, from the kernel itself */
          _Alignas(8) unsigned char one[PSCAN__BY_KEY_VALUE_MAX];
          memcpy(one, vin + lo * vs, vs);
          vop->scan_excl(vop, one, ident, 1, NULL, scratch);
          have_ident = true;
        }
        short_scan(vop, c->exclusive, vin + lo * vs, vout + lo * vs, hi - lo, vs, from, ident);
      }
    }
    lo = hi;
  }
}

