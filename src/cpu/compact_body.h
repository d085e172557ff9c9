/* Include-template: the sequential gather kernels of the compaction family for one element type.
 * compact.c stamps it once per type of PSCAN_TYPES (through the generated cpu_types.h, which
 * defines ELEM, an enumerator suffix such as I32).
 *
 * Each kernel reads in[0..n) once and writes the items it keeps (or the run heads), compacted, to buf (a private
 * per-thread buffer of n elements), without branches on the data: every item is stored at the
 * next free slot and the slot advances only when the item is kept. Float items compare with the
 * C operators, so NaN satisfies only NE. */

#define T PSCAN__CAT(PSCAN__CTYPE_, ELEM)
#define NAME(f) PSCAN__CAT(f, ELEM)

/* buf[0..count) = the items with pred(in[i]) in order; with rejects, also buf[n-1-r] = the r-th
   rejected item (so buf[n-rejected..n) holds the rejected items in reverse order). Each step
   writes both candidate slots; slot sel < n - rej until the last item, where they coincide. */
#define GATHER_LOOP(PRED)                                \
  do {                                                   \
    if (rejects) {                                       \
      for (size_t i = 0; i < n; i++) {                   \
        T v = in[i];                                     \
        size_t s = (PRED) ? 1 : 0;                       \
        buf[sel] = v;                                    \
        buf[n - 1 - (i - sel)] = v;                      \
        sel += s;                                        \
      }                                                  \
    } else {                                             \
      for (size_t i = 0; i < n; i++) {                   \
        T v = in[i];                                     \
        buf[sel] = v;                                    \
        sel += (PRED) ? 1 : 0;                           \
      }                                                  \
    }                                                    \
  } while (0)

static size_t NAME(gather_if_)(pscan_cmp cmp, const void *value_, const void *in_, size_t n,
                               void *buf_, bool rejects) {
  const T *in = in_;
  T *buf = buf_;
  T x;
  memcpy(&x, value_, sizeof x);
  size_t sel = 0;
  switch (cmp) {
  case PSCAN_LT: GATHER_LOOP(v < x); break;
  case PSCAN_LE: GATHER_LOOP(v <= x); break;
  case PSCAN_GT: GATHER_LOOP(v > x); break;
  case PSCAN_GE: GATHER_LOOP(v >= x); break;
  case PSCAN_EQ: GATHER_LOOP(v == x); break;
  case PSCAN_NE: GATHER_LOOP(v != x); break;
  }
  return sel;
}

static size_t NAME(gather_flagged_)(const uint8_t *flags, const void *in_, size_t n, void *buf_) {
  const T *in = in_;
  T *buf = buf_;
  size_t sel = 0;
  bool rejects = false;
  GATHER_LOOP(flags[i] != 0);
  return sel;
}

/* Run heads for unique and run-length encoding: buf[0] = in[0] (pos[0] = base), then every
   in[i], i >= 1, that differs from in[i-1] (pos: base + i). Returns the count, in[0] included:
   whether in[0] is a head depends on the element before it, which the caller decides. Equality
   is the C ==, so a NaN is never equal to anything and always starts a run. */
static size_t NAME(gather_heads_)(const void *in_, size_t n, void *buf_, size_t *pos, size_t base) {
  const T *in = in_;
  T *buf = buf_;
  size_t sel = 1;
  buf[0] = in[0];
  if (pos) {
    pos[0] = base;
    for (size_t i = 1; i < n; i++) {
      T v = in[i];
      buf[sel] = v;
      pos[sel] = base + i;
      sel += v != in[i - 1] ? 1 : 0;
    }
  } else {
    for (size_t i = 1; i < n; i++) {
      T v = in[i];
      buf[sel] = v;
      sel += v != in[i - 1] ? 1 : 0;
    }
  }
  return sel;
}

static bool NAME(equal_)(const void *a_, const void *b_) {
  T a, b;
  memcpy(&a, a_, sizeof a);
  memcpy(&b, b_, sizeof b);
  return a == b;
}

#undef GATHER_LOOP
#undef NAME
#undef T
#undef ELEM
