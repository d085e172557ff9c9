/* The built-in operators: kernel_body.h stamped once per (input, accumulation) pair of
 * PSCAN_SCAN_PAIRS (lists.h), each for every operator of PSCAN_OPS that applies to it; the choice
 * of instruction set; streaming stores. */
#define _GNU_SOURCE /* sysconf(_SC_LEVEL3_CACHE_SIZE) */
#include "cpu.h"

#include <pthread.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel_types.h"

#define PSCAN__CAT4_(a, b, c, d) a##_##b##c##d
#define PSCAN__CAT4(a, b, c, d) PSCAN__CAT4_(a, b, c, d)

/* kernel_body.h for every pair of PSCAN_SCAN_PAIRS (cpu_scan_pairs.h is generated from the list:
   cmake/pscan_variants.cmake). */
#define PSCAN_PAIR_TEMPLATE "cpu/kernel_body.h"
#include "cpu_scan_pairs.h"
#undef PSCAN_PAIR_TEMPLATE

/* Each pair's table by op, by (input type, accumulation type). */
static const pscan__cpu_op *const *const scalar_ops[PSCAN_DTYPE_COUNT][PSCAN_DTYPE_COUNT] = {
#define X(IN, OUT) [PSCAN_##IN][PSCAN_##OUT] = PSCAN__CAT4(ops, IN, _, OUT),
    PSCAN_SCAN_PAIRS(X)
#undef X
};

const pscan__cpu_op *pscan__cpu_scalar_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  if (!pscan__dtype_valid((int)in) || !pscan__dtype_valid((int)acc) || !pscan__op_valid((int)op))
    return NULL;
  const pscan__cpu_op *const *ops = scalar_ops[in][acc];
  return ops ? ops[op] : NULL;
}

/* ---- Choice of instruction set, once per process ----
   The best set that both the CPU (CPUID) and the OS (XGETBV: it saves the registers on a context
   switch) support; PSCAN_CPU_ISA=scalar|avx2|avx512 caps it, so tests reach every kernel set on
   one machine. A cap above what the machine has gives the best it has (avx512 on an AVX2-only
   CPU runs AVX2): a forced path never fails, and pscan__cpu_isa() says what runs. Each set falls
   back to the next lower one for the (type, op) it does not cover. */
enum { ISA_SCALAR, ISA_AVX2, ISA_AVX512 };
static const char *const isa_names[] = {"scalar", "avx2", "avx512"};
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static int isa;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* XCR0: the register states the OS saves. Intel SDM vol. 1, 13.3 (XSAVE) and 15.2 (AVX-512):
   bits 1-2 xmm/ymm, 5-7 opmask, upper zmm0-15, zmm16-31. */
static uint64_t os_saved_state(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
    return 0;
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t)hi << 32 | lo;
}

static int best_isa(void) {
  unsigned a, b, c, d;
  uint64_t os = os_saved_state();
  if ((os & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2))
    return ISA_SCALAR;
  unsigned avx512 = bit_AVX512F | bit_AVX512DQ | bit_AVX512BW | bit_AVX512VL;
  return (os & 0xE6) == 0xE6 && (b & avx512) == avx512 ? ISA_AVX512 : ISA_AVX2;
}
#else
static int best_isa(void) { return ISA_SCALAR; }
#endif

static void choose_isa(void) {
  isa = best_isa();
  const char *force = getenv("PSCAN_CPU_ISA");
  for (int i = 0; force && i < (int)(sizeof isa_names / sizeof isa_names[0]); i++)
    if (strcmp(force, isa_names[i]) == 0 && i < isa)
      isa = i;
  if (isa >= ISA_AVX2)
    pscan__cpu_avx2_init();
  if (isa >= ISA_AVX512)
    pscan__cpu_avx512_init();
}

const char *pscan__cpu_isa(void) {
  pthread_once(&isa_once, choose_isa);
  return isa_names[isa];
}

const pscan__cpu_op *pscan__cpu_builtin_op(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  pthread_once(&isa_once, choose_isa);
  const pscan__cpu_op *fast = isa >= ISA_AVX512 ? pscan__cpu_avx512_op(in, acc, op) : NULL;
  if (!fast && isa >= ISA_AVX2)
    fast = pscan__cpu_avx2_op(in, acc, op);
  return fast ? fast : pscan__cpu_scalar_op(in, acc, op);
}

pscan__cpu_gather_if_fn pscan__cpu_simd_gather_if(pscan_dtype t) {
  pthread_once(&isa_once, choose_isa);
  return isa >= ISA_AVX512 ? pscan__cpu_avx512_gather_if(t) : NULL;
}

/* ---- Streaming stores ----
   A scan's output is worth keeping in cache only if it can stay there for the next reader; an
   output larger than about half the last-level cache (which also holds the input) evicts itself
   before the scan ends, and ordinary stores then cost a read for ownership of every line on top
   (3n bytes of traffic instead of 2n). The cache counted is at most LLC_CAP_BYTES: a virtual
   machine reports its host's whole L3 (480 MiB on the development VM), shared with every other
   guest. Measured there, one thread, i32 (docs/PERFORMANCE.md, "CPU
   streaming stores"): streaming loses at 16 MiB of output
   (3.6 -> 3.1 Gelem/s), is about even at 32 MiB and wins from 64 MiB (2.1 -> 2.6).
   PSCAN_CPU_STREAM=0 never streams, =1 streams whatever the size (for benchmarking and tests);
   unset or anything else: AUTO, the rule above. */
enum { DEFAULT_LLC_BYTES = 32 << 20, LLC_CAP_BYTES = 32 << 20 };
static pthread_once_t stream_once = PTHREAD_ONCE_INIT;
static size_t stream_above;

static void choose_stream(void) {
  long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
  llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  size_t cache = llc > 0 ? (size_t)llc : (size_t)DEFAULT_LLC_BYTES;
  stream_above = (cache < LLC_CAP_BYTES ? cache : (size_t)LLC_CAP_BYTES) / 2;
  const char *force = getenv("PSCAN_CPU_STREAM");
  if (force && strcmp(force, "0") == 0)
    stream_above = SIZE_MAX;
  else if (force && strcmp(force, "1") == 0)
    stream_above = 0;
}

bool pscan__cpu_stream_output(size_t out_bytes) {
  pthread_once(&stream_once, choose_stream);
  return out_bytes > stream_above;
}

void pscan__cpu_copy_out(void *dst, const void *src, size_t bytes, bool stream) {
#if defined(__x86_64__) || defined(_M_X64)
  if (stream && bytes >= 256) {
    pscan__cpu_stream_unfenced(dst, src, bytes);
    /* Non-temporal stores are weakly ordered: fence them before anything the caller publishes
       (or the pool's completion) can make another thread read them. */
    _mm_sfence();
    return;
  }
#endif
  (void)stream;
  memcpy(dst, src, bytes);
}

void pscan__cpu_stream_unfenced(void *dst, const void *src, size_t bytes) {
#if defined(__x86_64__) || defined(_M_X64)
  char *d = dst;
  const char *s = src;
  size_t head = (16 - (uintptr_t)d % 16) % 16;
  head = head > bytes ? bytes : head;
  memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  for (; bytes >= 16; d += 16, s += 16, bytes -= 16)
    _mm_stream_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
  memcpy(d, s, bytes);
#else
  memcpy(dst, src, bytes);
#endif
}

void pscan__cpu_stream_fence(void) {
#if defined(__x86_64__) || defined(_M_X64)
  _mm_sfence();
#endif
}
