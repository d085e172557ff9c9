/* Include-template: the sequential kernels of one (input type, accumulation type) pair, stamped
 * for every operator. kernels.c defines PAIR_IN and PAIR_OUT (enumerator suffixes such as I8 and
 * I32) and includes this file once per pair of PSCAN_SCAN_PAIRS (through the generated cpu_scan_pairs.h).
 *
 * Each kernel is one static inline body that takes the operator as a constant; the small per-op
 * functions below pass the constant, so the compiler folds the switch away. Integer SUM and PROD
 * are computed in an unsigned type of at least int's width: they wrap without undefined
 * behaviour, for signed types and for the small types that would otherwise promote to int. */

#ifndef KB_ALWAYS_INLINE
#if defined(__GNUC__)
#define KB_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define KB_ALWAYS_INLINE static inline
#endif
#endif

#define IN_T PSCAN__CAT(PSCAN__CTYPE_, PAIR_IN)
#define ACC_T PSCAN__CAT(PSCAN__CTYPE_, PAIR_OUT)
#define WRAP_T PSCAN__CAT(PSCAN__WRAP_, PAIR_OUT)
#define IS_FLOAT PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
#define ACC_E PSCAN__CAT(PSCAN_, PAIR_OUT)
#define NAME(f) PSCAN__CAT4(f, PAIR_IN, _, PAIR_OUT)

static inline ACC_T NAME(combine_v)(int op, ACC_T a, ACC_T b) {
  switch (op) {
#if IS_FLOAT
  case PSCAN_SUM: return a + b;
  case PSCAN_PROD: return a * b;
  case PSCAN_MIN: return (a < b || a != a) ? a : b; /* NaN in either operand wins */
  case PSCAN_MAX: return (a > b || a != a) ? a : b;
#else
  case PSCAN_SUM: return (ACC_T)((WRAP_T)a + (WRAP_T)b);
  case PSCAN_PROD: return (ACC_T)((WRAP_T)a * (WRAP_T)b);
  case PSCAN_MIN: return a < b ? a : b;
  case PSCAN_MAX: return a > b ? a : b;
  case PSCAN_AND: return a & b;
  case PSCAN_OR: return a | b;
  case PSCAN_XOR: return a ^ b;
#endif
  }
  return a;
}

static inline ACC_T NAME(load_acc)(const void *p) {
  ACC_T v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void NAME(reduce_body)(int op, const void *in_, size_t n, void *acc_) {
  const IN_T *in = in_;
  ACC_T acc = (ACC_T)in[0];
  for (size_t i = 1; i < n; i++)
    acc = NAME(combine_v)(op, acc, (ACC_T)in[i]);
  memcpy(acc_, &acc, sizeof acc);
}

/* The inclusive or exclusive scan of in[0], in[is], ... into out[0], out[os], ... (strides in
   elements), from *carry, or without one from in[0] (out[0] gets in[0], or for an exclusive scan
   the identity). The flat kernels below pass strides 1 and a constant exclusive; the axis lines
   (axis_body.h) their own. Always inlined, so that each caller's constants fold. When out and in
   are the same, in[i] is read before out[i] is written. */
KB_ALWAYS_INLINE void NAME(scan_strided)(int op, const void *in_, ptrdiff_t is, void *out_,
                                         ptrdiff_t os, size_t n, const void *carry,
                                         int exclusive) {
  const IN_T *in = in_;
  ACC_T *out = out_;
  ACC_T acc;
  size_t i = 0;
  if (carry) {
    acc = NAME(load_acc)(carry);
  } else {
    acc = (ACC_T)in[0];
    if (exclusive)
      pscan__identity(ACC_E, (pscan_op)op, &out[0]);
    else
      out[0] = acc;
    i = 1;
  }
  if (exclusive)
    for (; i < n; i++) {
      ACC_T x = (ACC_T)in[(ptrdiff_t)i * is];
      out[(ptrdiff_t)i * os] = acc;
      acc = NAME(combine_v)(op, acc, x);
    }
  else
    for (; i < n; i++) {
      acc = NAME(combine_v)(op, acc, (ACC_T)in[(ptrdiff_t)i * is]);
      out[(ptrdiff_t)i * os] = acc;
    }
}

static inline void NAME(propagate_incl_body)(int op, void *out_, size_t n, const void *carry) {
  ACC_T *out = out_;
  ACC_T c = NAME(load_acc)(carry);
  for (size_t i = 0; i < n; i++)
    out[i] = NAME(combine_v)(op, c, out[i]);
}

static inline void NAME(propagate_excl_body)(int op, void *out_, size_t n, const void *carry) {
  ACC_T *out = out_;
  if (carry) {
    ACC_T c = NAME(load_acc)(carry);
    for (size_t i = n - 1; i > 0; i--)
      out[i] = NAME(combine_v)(op, c, out[i - 1]);
    out[0] = c;
  } else {
    memmove(out + 1, out, (n - 1) * sizeof *out);
    pscan__identity(ACC_E, (pscan_op)op, &out[0]);
  }
}

/* Stamps the per-op functions and their operator table entry. */
#define STAMP_OP(E, opname, int_only)                                                            \
  static void NAME(reduce_##opname)(const pscan__cpu_op *self, const void *in, size_t n,          \
                                    void *acc) {                                                 \
    (void)self;                                                                                  \
    NAME(reduce_body)(PSCAN_##E, in, n, acc);                                                    \
  }                                                                                              \
  static void NAME(scan_incl_##opname)(const pscan__cpu_op *self, const void *in, void *out,      \
                                       size_t n, const void *carry, void *scratch) {             \
    (void)self, (void)scratch;                                                                   \
    NAME(scan_strided)(PSCAN_##E, in, 1, out, 1, n, carry, 0);                                          \
  }                                                                                              \
  static void NAME(scan_excl_##opname)(const pscan__cpu_op *self, const void *in, void *out,      \
                                       size_t n, const void *carry, void *scratch) {             \
    (void)self, (void)scratch;                                                                   \
    NAME(scan_strided)(PSCAN_##E, in, 1, out, 1, n, carry, 1);                                          \
  }                                                                                              \
  static void NAME(propagate_incl_##opname)(const pscan__cpu_op *self, void *out, size_t n,       \
                                            const void *carry) {                                 \
    (void)self;                                                                                  \
    NAME(propagate_incl_body)(PSCAN_##E, out, n, carry);                                         \
  }                                                                                              \
  static void NAME(propagate_excl_##opname)(const pscan__cpu_op *self, void *out, size_t n,       \
                                            const void *carry) {                                 \
    (void)self;                                                                                  \
    NAME(propagate_excl_body)(PSCAN_##E, out, n, carry);                                         \
  }                                                                                              \
  static void NAME(combine_##opname)(const pscan__cpu_op *self, void *out, const void *a,         \
                                     const void *b) {                                            \
    (void)self;                                                                                  \
    ACC_T r = NAME(combine_v)(PSCAN_##E, NAME(load_acc)(a), NAME(load_acc)(b));                  \
    memcpy(out, &r, sizeof r);                                                                   \
  }                                                                                              \
  static const pscan__cpu_op NAME(op_##opname) = {                                               \
      NAME(reduce_##opname), NAME(scan_incl_##opname), NAME(scan_excl_##opname),                 \
      NAME(propagate_incl_##opname), NAME(propagate_excl_##opname), NAME(combine_##opname),      \
      sizeof(IN_T), sizeof(ACC_T), NULL, NULL, NULL, NULL};

#define TABLE_ENTRY(E, opname, int_only) [PSCAN_##E] = &NAME(op_##opname),

#if IS_FLOAT
/* Floats take the operators of PSCAN_OPS that are not integer-only. */
#define FLOAT_ONLY_0(M, E, opname) M(E, opname, 0)
#define FLOAT_ONLY_1(M, E, opname)
#define FLOAT_STAMP_OP(E, opname, int_only) PSCAN__CAT(FLOAT_ONLY_, int_only)(STAMP_OP, E, opname)
#define FLOAT_TABLE_ENTRY(E, opname, int_only)                                                 \
  PSCAN__CAT(FLOAT_ONLY_, int_only)(TABLE_ENTRY, E, opname)
PSCAN_OPS(FLOAT_STAMP_OP)
static const pscan__cpu_op *const NAME(ops)[PSCAN_OP_COUNT] = {PSCAN_OPS(FLOAT_TABLE_ENTRY)};
#undef FLOAT_ONLY_0
#undef FLOAT_ONLY_1
#undef FLOAT_STAMP_OP
#undef FLOAT_TABLE_ENTRY
#else
PSCAN_OPS(STAMP_OP)
static const pscan__cpu_op *const NAME(ops)[PSCAN_OP_COUNT] = {PSCAN_OPS(TABLE_ENTRY)};
#endif

#undef TABLE_ENTRY
#undef STAMP_OP
#undef IN_T
#undef ACC_T
#undef WRAP_T
#undef IS_FLOAT
#undef ACC_E
#undef NAME
#ifndef KB_KEEP_PAIR /* axis_pair.h stamps axis_body.h for the same pair next */
#undef PAIR_IN
#undef PAIR_OUT
#endif
