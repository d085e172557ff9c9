/* CPU peers and ceilings of the benchmark (see peers_cpu.h). */
#include "peers_cpu.h"

#include "lists.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PEER_X86 1
#endif

/* ---- The plain loop, per type: integers accumulate in uint64_t, whose low bits wrap as the
   library's narrower sums do, without undefined behaviour; floats in their own type. ---- */

#define ACC_SINT(ctype) uint64_t
#define ACC_UINT(ctype) uint64_t
#define ACC_FLOAT(ctype) ctype

#define FMT_SINT(buf, len, v) snprintf(buf, len, "%" PRId64, (int64_t)(v))
#define FMT_UINT(buf, len, v) snprintf(buf, len, "%" PRIu64, (uint64_t)(v))
#define FMT_FLOAT(buf, len, v) snprintf(buf, len, "%.17g", (double)(v))

#define X(E, name, ctype, kind)                                                                  \
  static void loop_##name(const void *in_, void *out_, size_t n) {                              \
    const ctype *in = in_;                                                                       \
    ctype *out = out_;                                                                           \
    ACC_##kind(ctype) acc = 0;                                                                   \
    for (size_t i = 0; i < n; i++) {                                                             \
      acc = (ACC_##kind(ctype))(acc + (ACC_##kind(ctype))in[i]);                                 \
      out[i] = (ctype)acc;                                                                       \
    }                                                                                            \
  }                                                                                              \
  static size_t check_##name(const void *in_, const void *out_, size_t n, char *expected,      \
                             char *got, size_t len) {                                            \
    const ctype *in = in_, *out = out_;                                                          \
    ACC_##kind(ctype) acc = 0;                                                                   \
    for (size_t i = 0; i < n; i++) {                                                             \
      acc = (ACC_##kind(ctype))(acc + (ACC_##kind(ctype))in[i]);                                 \
      if (out[i] != (ctype)acc) {                                                                \
        FMT_##kind(expected, len, (ctype)acc);                                                   \
        FMT_##kind(got, len, out[i]);                                                            \
        return i;                                                                                \
      }                                                                                          \
    }                                                                                            \
    return SIZE_MAX;                                                                             \
  }                                                                                              \
  static void fill_##name(void *in_, size_t n, uint64_t seed) {                                 \
    ctype *in = in_;                                                                             \
    uint64_t s = seed | 1;                                                                       \
    int running = 0;                                                                             \
    for (size_t i = 0; i < n; i++) {                                                             \
      s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */                                  \
      int v = (int)(s >> 61) - 3;              /* -3 .. 4, folded to -3 .. 3 below */            \
      if (v > 3)                                                                                 \
        v = 0;                                                                                   \
      if (running + v > 100 || running + v < -100)                                               \
        v = -v;                                                                                  \
      running += v;                                                                              \
      in[i] = (ctype)v;                                                                          \
    }                                                                                            \
  }
PSCAN_TYPES(X)
#undef X

void peer_scan_loop(pscan_dtype t, const void *in, void *out, size_t n) {
  switch (t) {
#define X(E, name, ctype, kind) case PSCAN_##E: loop_##name(in, out, n); break;
    PSCAN_TYPES(X)
#undef X
  }
}

size_t peer_scan_check(pscan_dtype t, const void *in, const void *out, size_t n, char *expected,
                       char *got, size_t len) {
  switch (t) {
#define X(E, name, ctype, kind) case PSCAN_##E: return check_##name(in, out, n, expected, got, len);
    PSCAN_TYPES(X)
#undef X
  }
  return 0;
}

void peer_fill_input(pscan_dtype t, void *in, size_t n, uint64_t seed) {
  switch (t) {
#define X(E, name, ctype, kind) case PSCAN_##E: fill_##name(in, n, seed); break;
    PSCAN_TYPES(X)
#undef X
  }
}

/* ---- Copies and the reduction, each thread on an even share of the bytes. ---- */

enum { MAX_SLOTS = 1024 }; /* threads whose reduction results are kept: CLI_MAX_THREADS */

typedef struct share_job {
  char *dst;
  const char *src;
  size_t bytes;
  void (*copy)(char *dst, const char *src, size_t bytes);
  uint64_t *sums; /* reduction: 8 words (a cache line) per thread */
} share_job;

/* Thread tid's share [*begin, *end): boundaries on 64-byte multiples, so each share starts on a
   cache line when the buffers do. */
static void share(size_t bytes, int tid, int nthreads, size_t *begin, size_t *end) {
  size_t lines = (bytes + 63) / 64;
  *begin = lines * (size_t)tid / (size_t)nthreads * 64;
  *end = lines * (size_t)(tid + 1) / (size_t)nthreads * 64;
  if (*begin > bytes)
    *begin = bytes;
  if (*end > bytes)
    *end = bytes;
}

static void copy_task(void *arg, int tid, int nthreads) {
  share_job *job = arg;
  size_t b, e;
  share(job->bytes, tid, nthreads, &b, &e);
  if (e > b)
    job->copy(job->dst + b, job->src + b, e - b);
}

static void copy_memcpy(char *dst, const char *src, size_t bytes) { memcpy(dst, src, bytes); }

static void zero_bytes(char *dst, const char *src, size_t bytes) {
  (void)src;
  memset(dst, 0, bytes);
}

void peer_zero(team *tm, void *dst, size_t bytes) {
  share_job job = {.dst = dst, .bytes = bytes, .copy = zero_bytes};
  team_run(tm, copy_task, &job);
}

void peer_memcpy(team *tm, void *dst, const void *src, size_t bytes) {
  share_job job = {.dst = dst, .src = src, .bytes = bytes, .copy = copy_memcpy};
  team_run(tm, copy_task, &job);
}

/* A copy loop for CPUs without streaming stores (compilers may well turn it into memcpy). */
static void copy_plain(char *dst, const char *src, size_t bytes) {
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, src + i, 8);
    memcpy(dst + i, &w, 8);
  }
  for (; i < bytes; i++)
    dst[i] = src[i];
}

#ifdef PEER_X86
/* Bytes up to the first vec-aligned address of dst, copied plainly (at most bytes). */
static size_t align_head(char *dst, const char *src, size_t bytes, size_t vec) {
  size_t head = (vec - (uintptr_t)dst % vec) % vec;
  if (head > bytes)
    head = bytes;
  memcpy(dst, src, head);
  return head;
}

/* A streaming copy with vectors of type V (target TARGET): four unaligned loads, four aligned
   non-temporal stores per step, then single vectors, then the plain tail. */
#define COPY_STREAM(NAME, TARGET, V, LOADU, STREAM)                                               \
  __attribute__((target(TARGET))) static void NAME(char *dst, const char *src, size_t bytes) {    \
    const size_t w = sizeof(V);                                                                   \
    size_t i = align_head(dst, src, bytes, w);                                                    \
    for (; i + 4 * w <= bytes; i += 4 * w) {                                                      \
      V a = LOADU((const V *)(src + i));                                                          \
      V b = LOADU((const V *)(src + i + w));                                                      \
      V c = LOADU((const V *)(src + i + 2 * w));                                                  \
      V d = LOADU((const V *)(src + i + 3 * w));                                                  \
      STREAM((V *)(dst + i), a);                                                                  \
      STREAM((V *)(dst + i + w), b);                                                              \
      STREAM((V *)(dst + i + 2 * w), c);                                                          \
      STREAM((V *)(dst + i + 3 * w), d);                                                          \
    }                                                                                             \
    for (; i + w <= bytes; i += w)                                                                \
      STREAM((V *)(dst + i), LOADU((const V *)(src + i)));                                        \
    memcpy(dst + i, src + i, bytes - i);                                                          \
    _mm_sfence(); /* non-temporal stores are weakly ordered: visible before returning */          \
  }
COPY_STREAM(copy_stream_avx2, "avx2", __m256i, _mm256_loadu_si256, _mm256_stream_si256)
COPY_STREAM(copy_stream_sse2, "sse2", __m128i, _mm_loadu_si128, _mm_stream_si128)
#endif

typedef void (*copy_fn)(char *dst, const char *src, size_t bytes);

/* The best streaming copy this CPU has, chosen once. */
static copy_fn stream_copy_fn(const char **kind) {
#ifdef PEER_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    *kind = "AVX2 non-temporal stores";
    return copy_stream_avx2;
  }
  if (__builtin_cpu_supports("sse2")) {
    *kind = "SSE2 non-temporal stores";
    return copy_stream_sse2;
  }
#endif
  *kind = "plain copy loop (no streaming stores for this CPU)";
  return copy_plain;
}

const char *peer_stream_copy_kind(void) {
  const char *kind;
  stream_copy_fn(&kind);
  return kind;
}

void peer_stream_copy(team *tm, void *dst, const void *src, size_t bytes) {
  const char *kind;
  share_job job = {.dst = dst, .src = src, .bytes = bytes, .copy = stream_copy_fn(&kind)};
  team_run(tm, copy_task, &job);
}

static void reduce_task(void *arg, int tid, int nthreads) {
  share_job *job = arg;
  size_t b, e;
  share(job->bytes, tid, nthreads, &b, &e);
  const char *p = job->src + b;
  size_t words = (e - b) / 8;
  uint64_t sum = 0; /* a plain loop: compilers vectorize it (paddq) */
  for (size_t i = 0; i < words; i++) {
    uint64_t w;
    memcpy(&w, p + i * 8, 8);
    sum += w;
  }
  for (size_t k = words * 8; k < e - b; k++)
    sum += (unsigned char)p[k];
  if (tid < MAX_SLOTS)
    job->sums[(size_t)tid * 8] = sum;
}

uint64_t peer_reduce(team *tm, const void *src, size_t bytes) {
  static uint64_t sums[MAX_SLOTS * 8]; /* one cache line per thread */
  share_job job = {.src = src, .bytes = bytes, .sums = sums};
  int nthreads = team_threads(tm);
  if (nthreads > MAX_SLOTS)
    nthreads = MAX_SLOTS;
  team_run(tm, reduce_task, &job);
  uint64_t total = 0;
  for (int t = 0; t < nthreads; t++)
    total += sums[(size_t)t * 8];
  return total;
}
