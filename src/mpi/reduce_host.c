/* The reduction of a shard on the host for integer types (every built-in op, widening too):
 * contiguous ranges reduced by up to THREADS threads, one read of the shard and no stores, so
 * that the distributed scan's extra pass costs what reading the shard costs. Integer ops are
 * associative and commutative (SUM and PROD wrap), so the ranges may combine in any order and
 * the result is exact. SUM and PROD accumulate modulo 2^64 over the sign- or zero-extended items
 * (the result modulo 2^bits of the output type is the same); the other ops work on the items
 * themselves, which commutes with widening. Floating-point types go through the core's scan
 * (scan.c), whose order of combination this must not change. */
#include "mpi_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct part {
  const void *in;
  size_t n;
  pscan_dtype type;
  pscan_op op;
  uint64_t acc; /* SUM/PROD: modulo 2^64; else the item's bits, sign-extended */
} part;

/* One reducer per input type: SUM and PROD in uint64_t, the rest in the type itself. */
#define DEFINE_REDUCE(NAME, T, EXT)                                                 \
  static uint64_t NAME(const T *x, size_t n, pscan_op op) {                          \
    uint64_t w = (uint64_t)(EXT)x[0];                                                \
    T v = x[0];                                                                      \
    switch (op) {                                                                    \
    case PSCAN_SUM:                                                                  \
      for (size_t i = 1; i < n; i++)                                                 \
        w += (uint64_t)(EXT)x[i];                                                    \
      return w;                                                                      \
    case PSCAN_PROD:                                                                 \
      for (size_t i = 1; i < n; i++)                                                 \
        w *= (uint64_t)(EXT)x[i];                                                    \
      return w;                                                                      \
    case PSCAN_MIN:                                                                  \
      for (size_t i = 1; i < n; i++)                                                 \
        v = x[i] < v ? x[i] : v;                                                     \
      break;                                                                         \
    case PSCAN_MAX:                                                                  \
      for (size_t i = 1; i < n; i++)                                                 \
        v = x[i] > v ? x[i] : v;                                                     \
      break;                                                                         \
    case PSCAN_AND:                                                                  \
      for (size_t i = 1; i < n; i++)                                                 \
        v &= x[i];                                                                   \
      break;                                                                         \
    case PSCAN_OR:                                                                   \
      for (size_t i = 1; i < n; i++)                                                 \
        v |= x[i];                                                                   \
      break;                                                                         \
    case PSCAN_XOR:                                                                  \
      for (size_t i = 1; i < n; i++)                                                 \
        v ^= x[i];                                                                   \
      break;                                                                         \
    }                                                                                \
    return (uint64_t)(EXT)v;                                                         \
  }
DEFINE_REDUCE(reduce_i8, int8_t, int64_t)
DEFINE_REDUCE(reduce_i16, int16_t, int64_t)
DEFINE_REDUCE(reduce_i32, int32_t, int64_t)
DEFINE_REDUCE(reduce_i64, int64_t, int64_t)
DEFINE_REDUCE(reduce_u8, uint8_t, uint64_t)
DEFINE_REDUCE(reduce_u16, uint16_t, uint64_t)
DEFINE_REDUCE(reduce_u32, uint32_t, uint64_t)
DEFINE_REDUCE(reduce_u64, uint64_t, uint64_t)

static void *reduce_part(void *arg) {
  part *p = arg;
  switch (p->type) {
  case PSCAN_I8: p->acc = reduce_i8(p->in, p->n, p->op); break;
  case PSCAN_I16: p->acc = reduce_i16(p->in, p->n, p->op); break;
  case PSCAN_I32: p->acc = reduce_i32(p->in, p->n, p->op); break;
  case PSCAN_I64: p->acc = reduce_i64(p->in, p->n, p->op); break;
  case PSCAN_U8: p->acc = reduce_u8(p->in, p->n, p->op); break;
  case PSCAN_U16: p->acc = reduce_u16(p->in, p->n, p->op); break;
  case PSCAN_U32: p->acc = reduce_u32(p->in, p->n, p->op); break;
  case PSCAN_U64: p->acc = reduce_u64(p->in, p->n, p->op); break;
  default: break;
  }
  return NULL;
}

/* Two parts' results combined (as the values they stand for, extended to 64 bits). */
static uint64_t merge(pscan_op op, bool is_signed, uint64_t a, uint64_t b) {
  switch (op) {
  case PSCAN_SUM: return a + b;
  case PSCAN_PROD: return a * b;
  case PSCAN_MIN: return is_signed ? ((int64_t)a < (int64_t)b ? a : b) : (a < b ? a : b);
  case PSCAN_MAX: return is_signed ? ((int64_t)a > (int64_t)b ? a : b) : (a > b ? a : b);
  case PSCAN_AND: return a & b;
  case PSCAN_OR: return a | b;
  case PSCAN_XOR: return a ^ b;
  }
  return a;
}

static bool is_integer(pscan_dtype t) { return t <= PSCAN_U64; }

/* Writes v (modulo 2^bits of t) as one element of t. */
static void store(pscan_dtype t, uint64_t v, void *dst) {
  switch (pscan_dtype_size(t)) {
  case 1: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
  case 2: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
  case 4: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
  default: memcpy(dst, &v, 8); break;
  }
}

bool pscan_mpi__reduce_integers(pscan_ctx *ctx, const pscan_scan_args *a, void *total) {
  if (!is_integer(a->in_type) || !is_integer(a->out_type) || a->n == 0)
    return false;
  int64_t t = 0;
  pscan_get_param(ctx, PSCAN_PARAM_THREADS, &t);
  if (t <= 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    t = c > 0 ? c : 1;
  }
  enum { MIN_PER_THREAD = 1 << 18, MAX_THREADS = 256 };
  size_t k = a->n / MIN_PER_THREAD;
  if (k > (size_t)t)
    k = (size_t)t;
  if (k > MAX_THREADS)
    k = MAX_THREADS;
  if (k < 1)
    k = 1;
  part parts[MAX_THREADS];
  pthread_t threads[MAX_THREADS];
  bool started[MAX_THREADS] = {false};
  size_t es = pscan_dtype_size(a->in_type);
  for (size_t i = 0; i < k; i++) {
    size_t lo = a->n * i / k, hi = a->n * (i + 1) / k;
    parts[i] = (part){.in = (const char *)a->in + lo * es, .n = hi - lo, .type = a->in_type,
                      .op = a->op};
    /* part 0 runs on this thread; a thread that cannot start runs here too */
    if (i > 0)
      started[i] = pthread_create(&threads[i], NULL, reduce_part, &parts[i]) == 0;
  }
  reduce_part(&parts[0]);
  bool is_signed = a->in_type <= PSCAN_I64;
  uint64_t acc = parts[0].acc;
  for (size_t i = 1; i < k; i++) {
    if (started[i])
      pthread_join(threads[i], NULL);
    else
      reduce_part(&parts[i]);
    acc = merge(a->op, is_signed, acc, parts[i].acc);
  }
  store(a->out_type, acc, total);
  return true;
}
