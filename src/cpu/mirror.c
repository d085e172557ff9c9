/* Mirrored operators: the kernels of an operator (pscan__cpu_op) over a reversed contiguous span.
 *
 * A span whose item i lies i elements below its item 0 (a reversed view: pscan_scan_axis with
 * reverse, or a stride of -1) is scanned a block of MIRROR_BLOCK items at a time: the block is
 * mirrored into a buffer in L1, scanned there by the operator's own (SIMD) kernel, mirrored back
 * and stored, streamed where asked. Memory sees the same 2n as a forward scan; the extra copies
 * stay in L1. The in and out pointers the kernels take are the spans' item 0 (their highest
 * address), so the strategies run unchanged over a job whose partitions step downwards
 * (pscan__cpu_job.mirror): the sequential one, the look-back and chained ones and
 * reduce-then-scan. Scan-then-propagate is not offered (no propagate kernels: a reversed line
 * asking for it goes to the segment engine; pscan__cpu_mirrored_strategy).
 *
 * Built-in operators only: they commute, so a reduction reads its span forward in memory (its
 * item order reversed). */
#include "cpu.h"

#include <stdint.h>

enum { MIRROR_BLOCK = PSCAN__CPU_MIRROR_BLOCK, MIRROR_MAX_ELEM = 8 };

#if defined(__GNUC__)
typedef uint16_t u16_alias __attribute__((may_alias));
typedef uint32_t u32_alias __attribute__((may_alias));
typedef uint64_t u64_alias __attribute__((may_alias));
#define MIRROR_LOOP(T)                                                                           \
  do {                                                                                           \
    T *d = dst;                                                                                  \
    const T *s = src;                                                                            \
    for (size_t i = 0; i < n; i++)                                                               \
      d[i] = s[n - 1 - i];                                                                       \
  } while (0)
#endif

/* dst[i] = src[n - 1 - i] for elements of `size` bytes. */
static void mirror_copy(void *dst, const void *src, size_t n, size_t size) {
#if defined(__GNUC__)
  switch (size) {
  case 1: MIRROR_LOOP(unsigned char); return;
  case 2: MIRROR_LOOP(u16_alias); return;
  case 4: MIRROR_LOOP(u32_alias); return;
  case 8: MIRROR_LOOP(u64_alias); return;
  default: break;
  }
#endif
  for (size_t i = 0; i < n; i++)
    memcpy((char *)dst + i * size, (const char *)src + (n - 1 - i) * size, size);
}

static const pscan__cpu_mirror *mirror_of(const pscan__cpu_op *m) {
  return (const pscan__cpu_mirror *)(const void *)m;
}
static const pscan__cpu_op *base_of(const pscan__cpu_op *m) { return mirror_of(m)->base; }

/* The items [at, at + m) of the span from in (item 0), mirrored into buf. */
static void take_block(const pscan__cpu_op *b, void *buf, const char *in, size_t at, size_t m) {
  mirror_copy(buf, in - (at + m - 1) * b->in_size, m, b->in_size);
}

/* The results s (scan order) of the items [at, at + m) of the span to out (item 0): mirrored
   through buf, or as they are where out runs forward; streamed where asked (unfenced). */
static void put_block(const pscan__cpu_mirror *mo, char *out, size_t at, size_t m,
                      const unsigned char *s, unsigned char *buf, bool stream) {
  const size_t acc = mo->base->acc_size;
  const unsigned char *res = s;
  char *lo = out + at * acc;
  if (!mo->out_forward) {
    mirror_copy(buf, s, m, acc);
    res = buf, lo = out - (at + m - 1) * acc;
  }
  if (stream)
    pscan__cpu_stream_unfenced(lo, res, m * acc);
  else
    memcpy(lo, res, m * acc);
}

/* The built-in operators commute: forward over the memory, the item order reversed. */
static void mirrored_reduce(const pscan__cpu_op *op, const void *in, size_t n, void *acc) {
  const pscan__cpu_op *b = base_of(op);
  b->reduce(b, (const char *)in - (n - 1) * b->in_size, n, acc);
}

/* The scan, inclusive or exclusive, block by block; the next block's carry is the inclusive
   prefix at the block's last item (an exclusive block adds its last item, converted to the
   accumulation type by a one-item reduction). */
static void mirrored_scan(const pscan__cpu_op *op, int exclusive, bool stream, const void *in_,
                          void *out_, size_t n, const void *carry) {
  const pscan__cpu_op *b = base_of(op);
  const char *in = in_;
  char *out = out_;
  const size_t acc = b->acc_size;
  _Alignas(64) unsigned char a[MIRROR_BLOCK * MIRROR_MAX_ELEM], s[MIRROR_BLOCK * MIRROR_MAX_ELEM];
  _Alignas(64) unsigned char scratch[128], run[2][16], last[16];
  const void *from = carry;
  for (size_t at = 0, k = 0; at < n; at += MIRROR_BLOCK, k ^= 1) {
    size_t m = n - at < MIRROR_BLOCK ? n - at : MIRROR_BLOCK;
    take_block(b, a, in, at, m);
    (exclusive ? b->scan_excl : b->scan_incl)(b, a, s, m, from, scratch);
    if (exclusive) {
      b->reduce(b, a + (m - 1) * b->in_size, 1, last);
      b->combine(b, run[k], s + (m - 1) * acc, last);
    } else {
      memcpy(run[k], s + (m - 1) * acc, acc);
    }
    put_block(mirror_of(op), out, at, m, s, a, stream);
    from = run[k]; /* (the other slot is written next) */
  }
  if (stream) /* as the forward streaming kernels: fenced before they return */
    pscan__cpu_stream_fence();
}

static void scan_incl(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                      const void *carry, void *scratch) {
  (void)scratch;
  mirrored_scan(op, 0, false, in, out, n, carry);
}
static void scan_excl(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                      const void *carry, void *scratch) {
  (void)scratch;
  mirrored_scan(op, 1, false, in, out, n, carry);
}
static void scan_incl_stream(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                             const void *carry, void *scratch, const void *prefetch) {
  (void)scratch, (void)prefetch; /* (a forward prefetch address means nothing here) */
  mirrored_scan(op, 0, true, in, out, n, carry);
}
static void scan_excl_stream(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                             const void *carry, void *scratch, const void *prefetch) {
  (void)scratch, (void)prefetch;
  mirrored_scan(op, 1, true, in, out, n, carry);
}

static void combine(const pscan__cpu_op *op, void *out, const void *a, const void *b_) {
  const pscan__cpu_op *b = base_of(op);
  b->combine(b, out, a, b_);
}

void pscan__cpu_mirror_pieces(const pscan__cpu_mirror *mo, int exclusive, bool stream,
                              const void *in_, void *out_, size_t m, size_t npieces,
                              const size_t *starts, const void *const *carries) {
  const pscan__cpu_op *b = mo->base;
  const size_t isz = b->in_size, acc = b->acc_size;
  _Alignas(64) unsigned char a[MIRROR_BLOCK * MIRROR_MAX_ELEM], s[MIRROR_BLOCK * MIRROR_MAX_ELEM];
  _Alignas(64) unsigned char scratch[128];
  take_block(b, a, in_, 0, m);
  for (size_t k = 0; k < npieces; k++) {
    size_t p0 = starts[k], p1 = k + 1 < npieces ? starts[k + 1] : m;
    pscan__cpu_scan(b, exclusive, false, a + p0 * isz, s + p0 * acc, p1 - p0, carries[k], scratch,
                    NULL);
  }
  put_block(mo, out_, 0, m, s, a, stream);
}

bool pscan__cpu_mirror_op(pscan__cpu_mirror *m, const pscan__cpu_op *base) {
  if (base->in_size > MIRROR_MAX_ELEM || base->acc_size > MIRROR_MAX_ELEM || base->user_fn)
    return false;
  m->op = (pscan__cpu_op){.reduce = mirrored_reduce, .scan_incl = scan_incl,
                          .scan_excl = scan_excl, .combine = combine,
                          .in_size = base->in_size, .acc_size = base->acc_size,
                          .scan_incl_stream = scan_incl_stream,
                          .scan_excl_stream = scan_excl_stream};
  m->base = base;
  m->out_forward = false;
  return true;
}
