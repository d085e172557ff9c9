/* The plain loops of the compaction family (bench_sweep_cpu.h): branch-free where the obvious C
 * is (the selections and unique store every item and advance on a kept one), branchy where a
 * user would write it so (partition, the runs). */
#include "bench_sweep_cpu.h"

#include <stdbool.h>

/* A branch-free selection: every item is stored at out[k], and k advances when KEEP (of in, i
   and the parameter PARAM) holds. */
#define KEEP_LOOP(T, NAME, PARAM, KEEP)                                                           \
  static size_t NAME(const T *in, PARAM, T *out, size_t n) {                                      \
    size_t k = 0;                                                                                 \
    for (size_t i = 0; i < n; i++) {                                                              \
      out[k] = in[i];                                                                             \
      k += KEEP;                                                                                  \
    }                                                                                             \
    return k;                                                                                     \
  }

#define LOOPS(T, V)                                                                               \
  KEEP_LOOP(T, select_##T, T thr, in[i] < thr)                                                    \
  KEEP_LOOP(T, flagged_##T, const uint8_t *fl, fl[i] != 0)                                        \
  static size_t partition_##T(const T *in, T *out, size_t n, T thr) {                             \
    size_t k = 0, r = n;                                                                          \
    for (size_t i = 0; i < n; i++) {                                                              \
      if (in[i] < thr)                                                                            \
        out[k++] = in[i];                                                                         \
      else                                                                                        \
        out[--r] = in[i];                                                                         \
    }                                                                                             \
    return k;                                                                                     \
  }                                                                                               \
  static size_t unique_##T(const T *in, T *out, size_t n) {                                       \
    size_t k = 1;                                                                                 \
    out[0] = in[0];                                                                               \
    for (size_t i = 1; i < n; i++) {                                                              \
      out[k] = in[i];                                                                             \
      k += in[i] != in[i - 1];                                                                    \
    }                                                                                             \
    return k;                                                                                     \
  }                                                                                               \
  static size_t rle_##T(const T *in, T *out, uint64_t *counts, size_t n) {                        \
    size_t k = 0, start = 0;                                                                      \
    for (size_t i = 1; i <= n; i++)                                                               \
      if (i == n || in[i] != in[i - 1]) {                                                         \
        out[k] = in[start];                                                                       \
        counts[k++] = i - start;                                                                  \
        start = i;                                                                                \
      }                                                                                           \
    return k;                                                                                     \
  }                                                                                               \
  static size_t rbk_##T(const T *in, const V *v, T *out, V *vout, size_t n) {                     \
    size_t k = 0;                                                                                 \
    V acc = v[0];                                                                                 \
    for (size_t i = 1; i <= n; i++) {                                                             \
      if (i == n || in[i] != in[i - 1]) {                                                         \
        out[k] = in[i - 1];                                                                       \
        vout[k++] = acc;                                                                          \
        if (i < n)                                                                                \
          acc = v[i];                                                                             \
      } else {                                                                                    \
        acc += v[i];                                                                              \
      }                                                                                           \
    }                                                                                             \
    return k;                                                                                     \
  }                                                                                               \
  static size_t sbk_##T(const T *in, const V *v, V *vout, size_t n) {                             \
    V acc = 0;                                                                                    \
    for (size_t i = 0; i < n; i++) {                                                              \
      acc = i > 0 && in[i] == in[i - 1] ? acc + v[i] : v[i];                                      \
      vout[i] = acc;                                                                              \
    }                                                                                             \
    return n;                                                                                     \
  }
LOOPS(int32_t, float)
LOOPS(int64_t, double)
#undef LOOPS
#undef KEEP_LOOP

#define DISPATCH(p, F, ...) \
  (pscan_dtype_size((p)->key) == 8 ? F##_int64_t(__VA_ARGS__) : F##_int32_t(__VA_ARGS__))

size_t sweep_cpu_loop(const sweep_point *p, const void *a, const uint8_t *flags, const void *vals,
                      void *out, void *vout, void *counts, int64_t thr) {
  size_t n = p->n;
  switch (p->op) {
  case SWEEP_SELECT_IF: return DISPATCH(p, select, a, thr, out, n);
  case SWEEP_SELECT_FLAGGED: return DISPATCH(p, flagged, a, flags, out, n);
  case SWEEP_PARTITION_IF: return DISPATCH(p, partition, a, out, n, thr);
  case SWEEP_UNIQUE: return DISPATCH(p, unique, a, out, n);
  case SWEEP_RUN_LENGTH_ENCODE: return DISPATCH(p, rle, a, out, counts, n);
  case SWEEP_REDUCE_BY_KEY: return DISPATCH(p, rbk, a, vals, out, vout, n);
  case SWEEP_SCAN_BY_KEY: return DISPATCH(p, sbk, a, vals, vout, n);
  default: return 0;
  }
}
