/* Include-template: the strided kernels of the axis engines (axis.c) for one (input type,
 * accumulation type) pair, stamped for every operator. axis_kernels.c defines PAIR_IN and PAIR_OUT
 * and includes this file once per pair of PSCAN_SCAN_PAIRS; the operator's combine is the one of
 * kernel_body.h (combine_v), included for the same pair just before.
 *
 * Strides are in elements and may be negative or zero (input only). When out and in are the same
 * view, every kernel reads an element before it writes it. */

#define IN_T PSCAN__CAT(PSCAN__CTYPE_, PAIR_IN)
#define ACC_T PSCAN__CAT(PSCAN__CTYPE_, PAIR_OUT)
#define IS_FLOAT PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
#define ACC_E PSCAN__CAT(PSCAN_, PAIR_OUT)
#define NAME(f) PSCAN__CAT4(f, PAIR_IN, _, PAIR_OUT)
#define COMBINE(op, a, b) NAME(combine_v)(op, a, b)
/* The bodies take the operator as a constant; they must be inlined into every per-op function
   for the switch on it to fold away (and the row loops to vectorise): with seven operators per
   pair, the compiler's inlining budget would otherwise stop short. */
#ifndef AX_INLINE
#if defined(__GNUC__)
#define AX_INLINE static inline __attribute__((always_inline))
#else
#define AX_INLINE static inline
#endif
#endif
#ifndef AX_PREFETCH_ROWS
#define AX_PREFETCH_ROWS 4 /* rows ahead that the side-by-side scan prefetches */
#endif

/* *acc = in[0] ⊕ in[is] ⊕ ... (n >= 1 elements). */
AX_INLINE void NAME(ax_line_reduce_body)(int op, const void *in_, ptrdiff_t is, size_t n,
                                             void *acc_) {
  const IN_T *in = in_;
  ACC_T acc = (ACC_T)in[0];
  for (size_t i = 1; i < n; i++)
    acc = COMBINE(op, acc, (ACC_T)in[(ptrdiff_t)i * is]);
  memcpy(acc_, &acc, sizeof acc);
}

/* Lines side by side: m rows of w lines each, row r's element j at in[r * ir + j * ic] (out alike);
   acc[0..w) carries each line's running value from row to row. fresh: acc holds nothing yet and
   row 0 starts the lines (as carry NULL above). Unit inner strides get their own loops, which the
   compiler vectorises across the w lines. stream: rows of out are written from acc with
   non-temporal stores (pscan__cpu_stream_unfenced, one fence at the end), for outputs too large
   to stay in cache. */
AX_INLINE void NAME(ax_rows_body)(int op, const void *in_, ptrdiff_t ir, ptrdiff_t ic,
                                      void *out_, ptrdiff_t orow, ptrdiff_t oc, size_t m,
                                      size_t w, void *acc_, int fresh, int exclusive,
                                      int stream) {
  const IN_T *in = in_;
  ACC_T *out = out_, *acc = acc_;
  size_t r = 0;
  /* an exclusive row is written before its input is read: not in place */
  bool st = stream && ic == 1 && oc == 1 && (!exclusive || in_ != (const void *)out_);
  if (fresh) {
    ACC_T id;
    pscan__identity(ACC_E, (pscan_op)op, &id);
    for (size_t j = 0; j < w; j++) {
      ACC_T x = (ACC_T)in[(ptrdiff_t)j * ic];
      out[(ptrdiff_t)j * oc] = exclusive ? id : x;
      acc[j] = x;
    }
    r = 1;
  }
  for (; r < m; r++) {
    const IN_T *ip = in + (ptrdiff_t)r * ir;
    ACC_T *op_ = out + (ptrdiff_t)r * orow;
    if (ic == 1 && r + AX_PREFETCH_ROWS < m) { /* rows far apart: start the next loads early */
      uintptr_t ahead = (uintptr_t)(ip + (ptrdiff_t)AX_PREFETCH_ROWS * ir);
      for (size_t b = 0; b < w * sizeof(IN_T); b += 64)
        __builtin_prefetch((const void *)(ahead + b));
    }
    if (st) {
      if (exclusive)
        pscan__cpu_stream_unfenced(op_, acc, w * sizeof(ACC_T));
      for (size_t j = 0; j < w; j++)
        acc[j] = COMBINE(op, acc[j], (ACC_T)ip[j]);
      if (!exclusive)
        pscan__cpu_stream_unfenced(op_, acc, w * sizeof(ACC_T));
    } else if (ic == 1 && oc == 1 && exclusive) {
      for (size_t j = 0; j < w; j++) {
        ACC_T x = (ACC_T)ip[j];
        op_[j] = acc[j];
        acc[j] = COMBINE(op, acc[j], x);
      }
    } else if (ic == 1 && oc == 1) {
      for (size_t j = 0; j < w; j++) {
        ACC_T a = COMBINE(op, acc[j], (ACC_T)ip[j]);
        acc[j] = a;
        op_[j] = a;
      }
    } else {
      for (size_t j = 0; j < w; j++) {
        ACC_T x = (ACC_T)ip[(ptrdiff_t)j * ic];
        ACC_T a = COMBINE(op, acc[j], x);
        op_[(ptrdiff_t)j * oc] = exclusive ? acc[j] : a;
        acc[j] = a;
      }
    }
  }
  if (st) /* before anything the caller publishes: the stores above are weakly ordered */
    pscan__cpu_stream_fence();
}

/* Column reduction of m rows into acc[0..w) (fresh: acc holds nothing yet). */
AX_INLINE void NAME(ax_rows_reduce_body)(int op, const void *in_, ptrdiff_t ir, ptrdiff_t ic,
                                             size_t m, size_t w, void *acc_, int fresh) {
  const IN_T *in = in_;
  ACC_T *acc = acc_;
  size_t r = 0;
  if (fresh) {
    for (size_t j = 0; j < w; j++)
      acc[j] = (ACC_T)in[(ptrdiff_t)j * ic];
    r = 1;
  }
  for (; r < m; r++) {
    const IN_T *ip = in + (ptrdiff_t)r * ir;
    if (ic == 1)
      for (size_t j = 0; j < w; j++)
        acc[j] = COMBINE(op, acc[j], (ACC_T)ip[j]);
    else
      for (size_t j = 0; j < w; j++)
        acc[j] = COMBINE(op, acc[j], (ACC_T)ip[(ptrdiff_t)j * ic]);
  }
}

/* acc[j] = a[j] ⊕ acc[j] for j < w (a's lines come first). */
AX_INLINE void NAME(ax_vec_combine_body)(int op, const void *a_, void *acc_, size_t w) {
  const ACC_T *a = a_;
  ACC_T *acc = acc_;
  for (size_t j = 0; j < w; j++)
    acc[j] = COMBINE(op, a[j], acc[j]);
}

/* acc[j] = acc[j] ⊕ a[j] for j < w (acc's lines come first). */
AX_INLINE void NAME(ax_vec_fold_body)(int op, const void *a_, void *acc_, size_t w) {
  const ACC_T *a = a_;
  ACC_T *acc = acc_;
  for (size_t j = 0; j < w; j++)
    acc[j] = COMBINE(op, acc[j], a[j]);
}

/* Segments one after another along a contiguous forward view (the segment engine's chunks of
   short segments: one call for many, rather than one a segment). */
AX_INLINE void NAME(ax_segs_body)(int op, const void *in_, void *out_, size_t pos, size_t end,
                                  const int64_t *off, size_t s, const void *carry,
                                  const void *init, int exclusive) {
  const IN_T *in = in_;
  ACC_T *out = out_, id, start;
  pscan__identity(ACC_E, (pscan_op)op, &id);
  if (init)
    memcpy(&start, init, sizeof start);
  bool first = true;
  while (pos < end) {
    size_t se = (size_t)off[s + 1];
    if (se <= pos) { /* an empty segment (or the one just finished): the next */
      s++;
      continue;
    }
    if (se > end)
      se = end;
    ACC_T acc;
    size_t i = pos;
    if (first && carry) {
      memcpy(&acc, carry, sizeof acc);
    } else if (init) {
      acc = start;
    } else {
      ACC_T x = (ACC_T)in[i];
      out[i] = exclusive ? id : x;
      acc = x;
      i++;
    }
    if (exclusive)
      for (; i < se; i++) {
        ACC_T x = (ACC_T)in[i];
        out[i] = acc;
        acc = COMBINE(op, acc, x);
      }
    else
      for (; i < se; i++) {
        acc = COMBINE(op, acc, (ACC_T)in[i]);
        out[i] = acc;
      }
    first = false;
    pos = se;
  }
}

/* The same for tiny segments (a few items each on average), without a branch per segment: a
   block of AX_SEG_BLOCK positions first marks its segments' first items in a flag array (one
   store per segment start, empty segments mark the same item again), then scans with the running
   value restarted where a flag is set, chosen by a select rather than a branch. With segments of
   a few items each, a loop per segment mispredicts its exit about once a segment. The first item
   of a segment takes init ⊕ x (x without init), the others acc ⊕ x, as one segment's scan does;
   the chunk's first segment continues from carry when it began in an earlier chunk (its first
   item here is then not marked). */
#ifndef AX_SEG_BLOCK
#define AX_SEG_BLOCK 2048 /* positions a block of ax_segs_tiny_body marks, then scans */
#endif
/* f ? a : b without a branch (compilers branch on a float select, and at a few items a segment
   the flags are random): by masks over the bits. */
AX_INLINE ACC_T NAME(ax_pick)(unsigned f, ACC_T a, ACC_T b) {
  ACC_T r;
  if (sizeof(ACC_T) == 8) {
    uint64_t x, y, m = (uint64_t)0 - (uint64_t)(f != 0);
    memcpy(&x, &a, 8), memcpy(&y, &b, 8);
    x = (x & m) | (y & ~m);
    memcpy(&r, &x, 8);
  } else if (sizeof(ACC_T) == 4) {
    uint32_t x, y, m = (uint32_t)0 - (uint32_t)(f != 0);
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    x = (x & m) | (y & ~m);
    memcpy(&r, &x, 4);
  } else {
    r = f ? a : b; /* 1- and 2-byte integers: a conditional move */
  }
  return r;
}

AX_INLINE void NAME(ax_segs_tiny_body)(int op, const void *in_, void *out_, size_t pos, size_t end,
                                  const int64_t *off, size_t s, const void *carry,
                                  const void *init, int exclusive) {
  const IN_T *in = in_;
  ACC_T *out = out_, id, start, acc;
  pscan__identity(ACC_E, (pscan_op)op, &id);
  start = id;
  if (init)
    memcpy(&start, init, sizeof start);
  const ACC_T head_out = init ? start : id; /* an exclusive scan's first item of a segment */
  if (carry)
    memcpy(&acc, carry, sizeof acc);
  else
    acc = id; /* (unused: pos is a segment's first item, so it is marked) */
  unsigned char flag[AX_SEG_BLOCK];
  while ((size_t)off[s] < pos) /* the segment holding pos began at or before it */
    s++;
  for (size_t b0 = pos; b0 < end; b0 += AX_SEG_BLOCK) {
    size_t len = end - b0 < AX_SEG_BLOCK ? end - b0 : AX_SEG_BLOCK;
    memset(flag, 0, len);
    for (; (size_t)off[s] < b0 + len; s++) /* offsets[num_segments] = n >= end stops it */
      flag[(size_t)off[s] - b0] = 1;
    const IN_T *x = in + b0;
    ACC_T *o = out + b0;
    if (exclusive) {
      for (size_t i = 0; i < len; i++) {
        ACC_T v = (ACC_T)x[i], fresh = init ? COMBINE(op, start, v) : v;
        o[i] = NAME(ax_pick)(flag[i], head_out, acc);
        acc = NAME(ax_pick)(flag[i], fresh, COMBINE(op, acc, v));
      }
    } else {
      for (size_t i = 0; i < len; i++) {
        ACC_T v = (ACC_T)x[i], fresh = init ? COMBINE(op, start, v) : v;
        acc = NAME(ax_pick)(flag[i], fresh, COMBINE(op, acc, v));
        o[i] = acc;
      }
    }
  }
}

#define AX_STAMP_OP(E, opname, int_only)                                                          \
  static void NAME(ax_line_##opname)(const void *in, ptrdiff_t is, void *out, ptrdiff_t os,       \
                                     size_t n, const void *carry, int exclusive) {               \
    NAME(scan_strided)(PSCAN_##E, in, is, out, os, n, carry, exclusive); /* kernel_body.h */     \
  }                                                                                              \
  static void NAME(ax_line_reduce_##opname)(const void *in, ptrdiff_t is, size_t n, void *acc) { \
    NAME(ax_line_reduce_body)(PSCAN_##E, in, is, n, acc);                                        \
  }                                                                                              \
  static void NAME(ax_rows_##opname)(const void *in, ptrdiff_t ir, ptrdiff_t ic, void *out,      \
                                     ptrdiff_t orow, ptrdiff_t oc, size_t m, size_t w,           \
                                     void *acc, int fresh, int exclusive, int stream) {          \
    NAME(ax_rows_body)(PSCAN_##E, in, ir, ic, out, orow, oc, m, w, acc, fresh, exclusive, stream);\
  }                                                                                              \
  static void NAME(ax_rows_reduce_##opname)(const void *in, ptrdiff_t ir, ptrdiff_t ic, size_t m, \
                                            size_t w, void *acc, int fresh) {                    \
    NAME(ax_rows_reduce_body)(PSCAN_##E, in, ir, ic, m, w, acc, fresh);                          \
  }                                                                                              \
  static void NAME(ax_vec_combine_##opname)(const void *a, void *acc, size_t w) {                \
    NAME(ax_vec_combine_body)(PSCAN_##E, a, acc, w);                                             \
  }                                                                                              \
  static void NAME(ax_vec_fold_##opname)(const void *a, void *acc, size_t w) {                   \
    NAME(ax_vec_fold_body)(PSCAN_##E, a, acc, w);                                                \
  }                                                                                              \
  static void NAME(ax_segs_##opname)(const void *in, void *out, size_t pos, size_t end,          \
                                     const int64_t *offsets, size_t s, const void *carry,        \
                                     const void *init, int exclusive) {                          \
    NAME(ax_segs_body)(PSCAN_##E, in, out, pos, end, offsets, s, carry, init, exclusive);        \
  }                                                                                              \
  static void NAME(ax_segs_tiny_##opname)(const void *in, void *out, size_t pos, size_t end,     \
                                          const int64_t *offsets, size_t s, const void *carry,   \
                                          const void *init, int exclusive) {                     \
    NAME(ax_segs_tiny_body)(PSCAN_##E, in, out, pos, end, offsets, s, carry, init, exclusive);   \
  }                                                                                              \
  static const pscan__cpu_axis_kernels NAME(ax_k_##opname) = {                                   \
      NAME(ax_line_##opname),        NAME(ax_line_reduce_##opname), NAME(ax_rows_##opname),      \
      NAME(ax_rows_reduce_##opname), NAME(ax_vec_combine_##opname), NAME(ax_vec_fold_##opname),  \
      NAME(ax_segs_##opname),        NAME(ax_segs_tiny_##opname)};

#define AX_TABLE_ENTRY(E, opname, int_only) [PSCAN_##E] = &NAME(ax_k_##opname),

#if IS_FLOAT
#define AX_FLOAT_OPS(X) X(SUM, sum, 0) X(PROD, prod, 0) X(MIN, min, 0) X(MAX, max, 0)
AX_FLOAT_OPS(AX_STAMP_OP)
static const pscan__cpu_axis_kernels *const NAME(ax_ks)[PSCAN_OP_COUNT] = {
    AX_FLOAT_OPS(AX_TABLE_ENTRY)};
#undef AX_FLOAT_OPS
#else
PSCAN_OPS(AX_STAMP_OP)
static const pscan__cpu_axis_kernels *const NAME(ax_ks)[PSCAN_OP_COUNT] = {
    PSCAN_OPS(AX_TABLE_ENTRY)};
#endif

#undef AX_TABLE_ENTRY
#undef AX_STAMP_OP
#undef COMBINE
#undef IN_T
#undef ACC_T
#undef IS_FLOAT
#undef ACC_E
#undef NAME
#undef PAIR_IN
#undef PAIR_OUT
