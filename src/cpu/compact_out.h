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

/* dst[0..count) = src[0..count) widened to 64 bits, streamed as copy_out streams (whole lines of
   dst non-temporally, the partial ones at its ends plainly). */
static inline void copy_out_widened(uint64_t *dst, const uint32_t *src, size_t count, bool stream) {
  size_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (stream && count >= 32 && (uintptr_t)dst % 8 == 0) {
    for (; (uintptr_t)(dst + i) % 64 != 0; i++)
      dst[i] = src[i];
    const __m128i zero = _mm_setzero_si128();
    for (; i + 8 <= count; i += 8)
      for (int j = 0; j < 8; j += 4) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + i + j));
        _mm_stream_si128((__m128i *)(void *)(dst + i + j), _mm_unpacklo_epi32(x, zero));
        _mm_stream_si128((__m128i *)(void *)(dst + i + j + 2), _mm_unpackhi_epi32(x, zero));
      }
  }
#endif
  (void)stream;
  for (; i < count; i++)
    dst[i] = src[i];
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
