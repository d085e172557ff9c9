/* The CUDA backend's scans by offsets (pscan_segmented_scan). The offsets are checked on the
 * device (one small kernel and a copy of a flag and of offsets[num_segments] to the host, which
 * waits for it: reading up to 2^28 offsets to the host would cost more than the scan), then one
 * single-pass segmented scan runs on the flat scan's tiles (scan/tile_lines.cuh,
 * scan_segments_kernel; DETERMINISTIC float sums and products: the by-key scan, host/compact.c,
 * SCAN_BY_KEY, with the offsets as its run heads). Each tile reads the offsets that fall in it,
 * from the first one found by a binary search per tile (tile_segments_kernel), so no key is
 * written or read and one huge segment among many empty ones parallelises alike. With many short
 * segments the check itself sets the segment starts as bits, which the tiles read instead of the
 * offsets (one pass over the offsets, not two). Reverse scans by offsets read the values on
 * mirrored tiles, with the offsets reversed (axis_reverse.cu) or the bits set at the mirrored
 * starts; the by-key scan also reverses the values and the result (~2 extra passes over the
 * data). */
#include "axis_host.h"
#include "axis_launch.h"
#include "launch.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

/* The verdict on offsets checked on the device (bad: offsets_check's bits; last:
   offsets[num_segments]) and on the n they give; nothing is written before it is PSCAN_OK. */
static pscan_status offsets_verdict(pscan_ctx *ctx, const pscan__axis_call *c, unsigned bad,
                                    int64_t last, size_t *n) {
  static const char fn[] = "pscan_segmented_scan";
  if (bad & 1)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: offsets[0] is not 0", fn);
  if (bad & 2)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: offsets decrease", fn);
  size_t bytes;
  if ((uint64_t)last > (uint64_t)INT64_MAX / 2 ||
      __builtin_mul_overflow((size_t)last, c->in_size, &bytes))
    return pscan__fail(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %lld elements overflow size_t", fn,
                       (long long)last);
  *n = (size_t)last;
  if (c->in != (const void *)c->out && ranges_overlap(c->in, bytes, c->out, bytes))
    return pscan__fail(ctx, PSCAN_ERR_OVERLAP, "%s: in and out overlap without being the same", fn);
  if (ranges_overlap(c->offsets, (c->num_segments + 1) * sizeof *c->offsets, c->out, bytes))
    return pscan__fail(ctx, PSCAN_ERR_OVERLAP, "%s: offsets and out overlap", fn);
  return PSCAN_OK;
}

/* Where the segmented tiles find their segments' starts: the offsets (reversed where the scan
   is) from each tile's first segment, or the starts as bits; values: the values reversed into
   a buffer of their own, scanned in place there (PSCAN_CUDA_AXIS_MIRROR=0), else NULL; gate:
   the verdict the scan waits on (run_trusted), else NULL. */
typedef struct segment_starts {
  const int64_t *offsets;
  const uint64_t *tile_segment;
  const unsigned *head_bits;
  void *values;
  const unsigned *gate;
} segment_starts;

/* The segmented scan on the flat scan's tiles (scan/tile_lines.cuh, scan_segments_kernel). */
static pscan_status scan_segments(pscan_ctx *ctx, const pscan__axis_call *c, size_t n,
                                  bool mirror, const segment_starts *at) {
  const size_t last = mirror ? n - 1 : 0; /* mirrored: item 0 is the last element */
  pscan__scan_call scan = {.in = at->values ? at->values : (const char *)c->in + last * c->in_size,
                           .out = at->values ? at->values : (char *)c->out + last * c->out_size,
                           .n = n, .in_type = c->in_type, .out_type = c->out_type, .op = c->op,
                           .exclusive = c->exclusive, .init = c->init, .in_size = c->in_size,
                           .out_size = c->out_size, .offsets = at->offsets,
                           .num_segments = c->num_segments, .tile_segment = at->tile_segment,
                           .head_bits = at->head_bits, .gate = at->gate, .mirror = mirror};
  return pscan__cuda_backend.scan(ctx, &scan);
}

/* Checks the device offsets and reads n, in one wait; nothing is written before this returns
   PSCAN_OK. */
static pscan_status check_offsets(pscan_ctx *ctx, const pscan__axis_call *c, void *stream,
                                  size_t *n) {
  unsigned *bad = NULL;
  PSCAN__CHECK(pscan__cuda_temp_alloc(ctx, sizeof *bad, (void **)&bad));
  unsigned host_bad = 0;
  int64_t last = 0;
  int e = cudaMemsetAsync(bad, 0, sizeof *bad, (cudaStream_t)stream);
  if (e == 0)
    e = pscan__cuda_offsets_check(c->offsets, c->num_segments, -1, bad, stream);
  if (e == 0)
    e = cudaMemcpyAsync(&host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost,
                        (cudaStream_t)stream);
  if (e == 0)
    e = cudaMemcpyAsync(&last, c->offsets + c->num_segments, sizeof last, cudaMemcpyDeviceToHost,
                        (cudaStream_t)stream);
  cudaFreeAsync(bad, (cudaStream_t)stream);
  if (e == 0)
    e = cudaStreamSynchronize((cudaStream_t)stream);
  AX_CHECK(ctx, e, "pscan_segmented_scan: offsets check");
  return offsets_verdict(ctx, c, host_bad, last, n);
}

/* Short segments: the offsets' check also sets the segment starts as bits (one an item), which
   the scan's tiles read instead of the offsets, so 8 bytes of offset an item are read once, not
   twice. It needs n before the check: one more wait for the device, worth it from
   SEGMENT_BITS_MIN segments of at most SEGMENT_BITS_LEN items on average (docs/PERFORMANCE.md,
   "Segment starts as bits"). PSCAN_CUDA_SEGMENT_BITS: 1 (default) there, 0 never, 2 wherever
   the segmented tiles run (tests). */
enum { SEGMENT_BITS_LEN = 64 };
#define SEGMENT_BITS_MIN ((size_t)1 << 22)

/* Whether the bits may serve (before n is known), and whether they do for n items. */
static bool bits_may_serve(const pscan__axis_call *c, bool mirror, unsigned mode) {
  return mode != 0 && (!c->reverse || mirror) && (mode != 1 || c->num_segments >= SEGMENT_BITS_MIN);
}
static bool bits_serve(const pscan__axis_call *c, bool mirror, unsigned mode, uint64_t n) {
  return bits_may_serve(c, mirror, mode) && n > 0 && n <= (uint64_t)INT64_MAX / 2 &&
         (mode != 1 || n <= (uint64_t)SEGMENT_BITS_LEN * c->num_segments);
}

/* n, or 0 where the bits are not worth it here (or the offsets are bad: the usual check says
   so). */
static size_t segment_bits_n(const pscan__axis_call *c, void *stream, bool mirror,
                             unsigned mode) {
  if (!bits_may_serve(c, mirror, mode))
    return 0;
  int64_t last = 0;
  if (cudaMemcpyAsync(&last, c->offsets + c->num_segments, sizeof last, cudaMemcpyDeviceToHost,
                      (cudaStream_t)stream) != cudaSuccess ||
      cudaStreamSynchronize((cudaStream_t)stream) != cudaSuccess) {
    (void)cudaGetLastError(); /* the usual check meets it again and reports it */
    return 0;
  }
  return last > 0 && bits_serve(c, mirror, mode, (uint64_t)last) ? (size_t)last : 0;
}

/* The segmented tiles over the bits: check, set the bits, wait for the verdict, scan. */
static pscan_status run_segment_bits(pscan_ctx *ctx, const pscan__axis_call *c, void *stream,
                                     const pscan__cuda_kernels *k, size_t n, bool mirror) {
  const uint64_t tiles = (n + k->tile_items - 1) / k->tile_items;
  const size_t bits_bytes = tiles * (k->tile_items / 32) * sizeof(unsigned);
  unsigned *bad = NULL;
  PSCAN__CHECK(pscan__cuda_temp_alloc(ctx, 16 + bits_bytes, (void **)&bad));
  unsigned *bits = bad + 4, host_bad = 0;
  int e = cudaMemsetAsync(bad, 0, 16 + bits_bytes, (cudaStream_t)stream);
  if (e == 0)
    e = pscan__cuda_offsets_heads(c->offsets, c->num_segments, n, mirror, bad, bits, stream);
  if (e == 0)
    e = cudaMemcpyAsync(&host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost,
                        (cudaStream_t)stream);
  if (e == 0)
    e = cudaStreamSynchronize((cudaStream_t)stream);
  pscan_status s = e ? pscan__cuda_axis_fail(ctx, e, "pscan_segmented_scan: offsets check")
                     : offsets_verdict(ctx, c, host_bad, (int64_t)n, &n);
  if (s == PSCAN_OK) {
    const segment_starts at = {.offsets = c->offsets, .head_bits = bits};
    s = scan_segments(ctx, c, n, mirror, &at);
  }
  cudaFreeAsync(bad, (cudaStream_t)stream);
  return s;
}

/* ---- the last call's n, trusted ----
   Waiting for n (to size the grid) and for the verdict (the call's status) before the scan is
   launched leaves the GPU idle between the check and the scan (~40 us a call on the H200 at 2^28
   items: docs/PERFORMANCE.md, "The last call's n, trusted"). Offsets are mostly used again, so a
   context remembers the n of the last offsets it scanned (their address and count). A call on
   the same offsets queues the check (which also compares offsets[num_segments] with that n), a
   copy of the verdict to pinned memory, the starts and the scan, which writes nothing unless the
   verdict is 0 (launch.h gate), and only then waits for the verdict: a 4 (n changed) runs the
   call again the usual way; 1 or 2 is the usual refusal, nothing written. */
typedef struct segments_memo {
  const int64_t *offsets;
  size_t num_segments, n; /* n > 0: remembered */
  unsigned *verdict;      /* pinned host memory (NULL: none could be had, the usual way only) */
  cudaEvent_t copied;     /* recorded after the verdict's copy */
} segments_memo;

void pscan__cuda_segments_forget(void *memo) {
  segments_memo *m = memo;
  if (!m)
    return;
  if (m->verdict) {
    cudaEventDestroy(m->copied);
    cudaFreeHost(m->verdict);
  }
  pscan__free(m);
}

/* The context's memo, made on first use; NULL if none can be had. */
static segments_memo *memo_of(pscan_ctx *ctx) {
  void **slot = pscan__cuda_segments_slot(ctx);
  if (!*slot) {
    segments_memo *m = pscan__calloc(1, sizeof *m);
    if (!m)
      return NULL;
    if (cudaMallocHost((void **)&m->verdict, 16) != cudaSuccess) {
      m->verdict = NULL;
    } else if (cudaEventCreateWithFlags(&m->copied, cudaEventDisableTiming) != cudaSuccess) {
      cudaFreeHost(m->verdict);
      m->verdict = NULL;
    }
    (void)cudaGetLastError();
    *slot = m;
  }
  return *slot;
}

static void remember(segments_memo *m, const pscan__axis_call *c, size_t n, pscan_status s) {
  if (m && s == PSCAN_OK)
    m->offsets = c->offsets, m->num_segments = c->num_segments, m->n = n;
}

/* The call on the remembered n (m->n), the starts as bits or as each tile's first segment.
   *retry: n was not the offsets' (or the host's checks fail with it), nothing was written, the
   usual way is to run; otherwise the call's status. */
static pscan_status run_trusted(pscan_ctx *ctx, const pscan__axis_call *c, void *stream,
                                const pscan__cuda_kernels *k, const segments_memo *m, bool mirror,
                                unsigned bits_mode, bool *retry) {
  const size_t n = m->n;
  *retry = true;
  size_t bytes;
  if (!m->verdict || __builtin_mul_overflow(n, c->in_size, &bytes) ||
      (c->in != (const void *)c->out && ranges_overlap(c->in, bytes, c->out, bytes)) ||
      ranges_overlap(c->offsets, (c->num_segments + 1) * sizeof *c->offsets, c->out, bytes))
    return PSCAN_OK; /* the usual way says what is wrong, with the offsets' own n */
  const bool bits = bits_serve(c, mirror, bits_mode, n);
  const uint64_t tiles = (n + k->tile_items - 1) / k->tile_items;
  const size_t starts_bytes = bits ? tiles * (k->tile_items / 32) * sizeof(unsigned)
                                   : (tiles * sizeof(uint64_t) + 15) / 16 * 16,
               rev_bytes = !bits && c->reverse ? (c->num_segments + 1) * sizeof *c->offsets : 0;
  unsigned *gate = NULL;
  PSCAN__CHECK(pscan__cuda_temp_alloc(ctx, 16 + starts_bytes + rev_bytes, (void **)&gate));
  char *starts = (char *)gate + 16;
  segment_starts at = {.offsets = c->offsets, .gate = gate};
  int e = cudaMemsetAsync(gate, 0, 16 + (bits ? starts_bytes : 0), (cudaStream_t)stream);
  if (e == 0)
    e = bits ? pscan__cuda_offsets_heads(c->offsets, c->num_segments, n, mirror, gate,
                                         (unsigned *)starts, stream)
             : pscan__cuda_offsets_check(c->offsets, c->num_segments, (int64_t)n, gate, stream);
  if (e == 0)
    e = cudaMemcpyAsync(m->verdict, gate, sizeof *gate, cudaMemcpyDeviceToHost,
                        (cudaStream_t)stream);
  if (e == 0)
    e = cudaEventRecord(m->copied, (cudaStream_t)stream);
  if (e == 0 && rev_bytes) {
    at.offsets = (const int64_t *)(starts + starts_bytes);
    e = pscan__cuda_reverse_offsets((int64_t *)(starts + starts_bytes), c->offsets,
                                    c->num_segments, n, stream);
  }
  if (e == 0 && !bits)
    e = pscan__cuda_tile_segments(at.offsets, c->num_segments, tiles, k->tile_items,
                                  (uint64_t *)starts, stream);
  if (bits)
    at.head_bits = (const unsigned *)(const void *)starts;
  else
    at.tile_segment = (const uint64_t *)(const void *)starts;
  pscan_status s = e ? pscan__cuda_axis_fail(ctx, e, "pscan_segmented_scan: offsets check")
                     : scan_segments(ctx, c, n, mirror, &at);
  cudaFreeAsync(gate, (cudaStream_t)stream);
  if (s == PSCAN_OK && (e = cudaEventSynchronize(m->copied)) != 0)
    s = pscan__cuda_axis_fail(ctx, e, "pscan_segmented_scan: offsets check");
  if (s != PSCAN_OK || (*m->verdict & 4u)) {
    *retry = s == PSCAN_OK;
    return s;
  }
  *retry = false;
  size_t same_n;
  return offsets_verdict(ctx, c, *m->verdict, (int64_t)n, &same_n);
}

/* Segments by offsets on the flat scan's tiles (scan/tile_lines.cuh, scan_segments_kernel);
   in DETERMINISTIC mode for float sums and products, and with PSCAN_CUDA_SEGMENTS_FLAT=0 (A/B
   runs), the by-key scan with the offsets as its run heads (its keys would be one-byte ones: the
   bitmap of a tile's heads lives in their buffer). Short segments read their starts as bits
   (run_segment_bits); otherwise the tiles' first segments come from a binary search per tile, a
   reverse scan reverses the offsets first, and the by-key scan also the values before and the
   result after. */
pscan_status pscan__cuda_segmented_scan(pscan_ctx *ctx, const pscan__axis_call *c, void *stream) {
  static const char fn[] = "pscan_segmented_scan";
  const bool flat = !pscan__cuda_axis_fixed_order(ctx, (int)c->out_type, c->op) &&
                    pscan__env_uint("PSCAN_CUDA_SEGMENTS_FLAT", 1);
  const pscan__cuda_kernels *k =
      flat ? pscan__cuda_kernels_for((int)c->in_type, (int)c->out_type, c->op) : NULL;
  /* reverse: the segmented tiles read the values mirrored (from the last one down) */
  const bool mirror = c->reverse && flat && pscan__env_uint("PSCAN_CUDA_AXIS_MIRROR", 1);
  const unsigned bits_mode = pscan__env_uint("PSCAN_CUDA_SEGMENT_BITS", 1);
  segments_memo *m = k && k->scan_segments && (!c->reverse || mirror) &&
                             pscan__env_uint("PSCAN_CUDA_SEGMENTS_TRUST", 1)
                         ? memo_of(ctx)
                         : NULL;
  if (m && m->n && m->offsets == c->offsets && m->num_segments == c->num_segments) {
    bool retry;
    pscan_status s = run_trusted(ctx, c, stream, k, m, mirror, bits_mode, &retry);
    if (!retry)
      return s;
  }
  size_t n = k && k->scan_segments ? segment_bits_n(c, stream, mirror, bits_mode) : 0;
  if (n) {
    pscan_status s = run_segment_bits(ctx, c, stream, k, n, mirror);
    remember(m, c, n, s);
    return s;
  }
  PSCAN__CHECK(check_offsets(ctx, c, stream, &n));
  if (n == 0)
    return PSCAN_OK;
  const pscan__cuda_compact_kernel *bk =
      flat ? NULL
           : pscan__cuda_by_key_kernel(ctx, PSCAN__COMPACT_SCAN_BY_KEY, 1, (int)c->in_type,
                                       (int)c->op, n);
  if (flat ? !k || !k->scan_segments : !bk)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "%s: no CUDA segmented scan for %s", fn,
                       pscan__dtype_name(c->in_type));
  const unsigned tile_items = flat ? k->tile_items : bk->tile_items;
  const uint64_t tiles = (n + tile_items - 1) / tile_items;
  /* reverse: mirrored tiles need only the offsets reversed; the by-key scan (and
     PSCAN_CUDA_AXIS_MIRROR=0) reverses the values too, and the result back. The reversed offsets
     (and values) follow the tiles' segments in one allocation. */
  const size_t seg_bytes = (tiles * sizeof(uint64_t) + 15) / 16 * 16,
               off_bytes = (c->num_segments + 1) * sizeof *c->offsets,
               rev_bytes = c->reverse && !mirror ? n * c->in_size : 0;
  uint64_t *tile_segment = NULL;
  PSCAN__CHECK(pscan__cuda_temp_alloc(ctx, seg_bytes + (c->reverse ? off_bytes + rev_bytes : 0),
                                      (void **)&tile_segment));
  int64_t *rev_offsets = c->reverse ? (int64_t *)((char *)tile_segment + seg_bytes) : NULL;
  void *rev = rev_bytes ? (char *)rev_offsets + off_bytes : NULL;
  const int64_t *offsets = rev_offsets ? rev_offsets : c->offsets;
  int e = 0;
  if (rev_offsets)
    e = pscan__cuda_reverse_offsets(rev_offsets, c->offsets, c->num_segments, n, stream);
  if (e == 0 && rev)
    e = pscan__cuda_reverse(rev, c->in, n, c->in_size, stream);
  if (e == 0)
    e = pscan__cuda_tile_segments(offsets, c->num_segments, tiles, tile_items, tile_segment,
                                  stream);
  pscan_status s = e ? pscan__cuda_axis_fail(ctx, e, "segment heads") : PSCAN_OK;
  if (s == PSCAN_OK && flat) {
    const segment_starts at = {.offsets = offsets, .tile_segment = tile_segment, .values = rev};
    s = scan_segments(ctx, c, n, mirror, &at);
    remember(m, c, n, s);
  } else if (s == PSCAN_OK) {
    pscan__compact_call by_key = {.kind = PSCAN__COMPACT_SCAN_BY_KEY, .n = n, .type = PSCAN_U8,
                                  .size = 1, .vals_in = rev ? rev : c->in,
                                  .vals_out = rev ? rev : c->out,
                                  .val_type = c->in_type, .val_size = c->in_size,
                                  .op = (pscan_op)c->op, .exclusive = c->exclusive,
                                  .init = c->init, .offsets = offsets,
                                  .num_segments = c->num_segments, .tile_segment = tile_segment};
    s = pscan__cuda_backend.compact(ctx, &by_key);
  }
  if (s == PSCAN_OK && rev && (e = pscan__cuda_reverse(c->out, rev, n, c->in_size, stream)) != 0)
    s = pscan__cuda_axis_fail(ctx, e, "reversing the segments' scan");
  cudaFreeAsync(tile_segment, (cudaStream_t)stream);
  return s;
}

