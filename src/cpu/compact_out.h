/* The copies out of a compaction partition's buffer (compact.c, compact_short_runs.c). */
#ifndef PSCAN_CPU_COMPACT_OUT_H
#define PSCAN_CPU_COMPACT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

/* ---- The copies out of a partition's buffer ----
   Where the output is streamed, the whole 64-byte lines of dst are written with non-temporal
   stores and the partial lines at its ends with plain ones: a partial line written
   non-temporally leaves the write-combining buffer as a partial write, which the memory
   controller completes with a read (and the neighbouring partition, on another core, writes the
   rest of that line). No fence here: a partition's outputs are read only by the caller, after
   the pool's completion, so each thread fences its streamed stores once, when it runs out of
   partitions (end_streams), instead of once per copy (a fence waits for every store in flight:
   per partition, under a saturated memory bus, a stall of the order of a microsecond). */
static inline void copy_out(void *dst, const void *src, size_t bytes, bool stream) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (stream && bytes >= 256) {
    char *d = dst;
    const char *s = src;
    size_t head = (64 - (uintptr_t)d % 64) % 64;
    memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; d += 64, s += 64, bytes -= 64)
      for (int j = 0; j < 64; j += 16)
        _mm_stream_si128((__m128i *)(void *)(d + j),
                         _mm_loadu_si128((const __m128i *)(const void *)(s + j)));
    memcpy(d, s, bytes);
    return;
  }
#endif
  (void)stream;
  memcpy(dst, src, bytes);
}

/* Orders this thread's streamed stores before its completion of the task (see copy_out). */
static inline void end_streams(bool stream) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (stream)
    _mm_sfence();
#else
  (void)stream;
#endif
}

#endif /* PSCAN_CPU_COMPACT_OUT_H */
