/* Include-template: the instruction-set-independent half of a SIMD kernel file (simd_avx2.c,
 * simd_avx512.c). The including file defines, for its vector width (off x86-64 only SIMD_ISA:
 * this file then gives entry points that offer no kernels):
 *
 *   SIMD_ISA          the name in the public entry points: pscan__cpu_<SIMD_ISA>_init, _op
 *   SIMD_TARGET       the function attribute that enables the instruction set
 *   SIMD_BYTES        bytes per vector; simd_v, the integer vector type
 *   SIMD_VARIANTS(X)  X(name, element bytes, vector operator, identity bits, scalar type, op)
 *   SIMD_USES(X)      X(type, op, variant): which (type, op) each variant serves
 *   and the static inline vector helpers used below: v_loadu, v_storeu, v_stream (aligned
 *   non-temporal store), v_broadcast(bits, elem), v_scan (inclusive scan of one vector, lanes
 *   shifted in hold the identity), v_shift_in(s, c) (lane 0 from c, lane i from s[i-1]: turns an
 *   inclusive vector into the exclusive one), v_next_carry(s, r, c) (the next vector's carry,
 *   broadcast: last(r) where r = s ⊕ c, or carry ⊕ last(s), whichever suits the width).
 *
 * Per vector: the in-register scan, then the running carry combined in. Both ways of forming the
 * next carry give the same bits, every operator here being commutative; they trade a vector op
 * against a shuffle on the loop-carried chain (see each ISA's v_next_carry).
 * The partition's tail (fewer elements than a vector) and the API's first exclusive element go to
 * the variant's scalar kernel, so NULL carries and identities follow the scalar rules exactly.
 *
 * Streaming variants write whole vectors with non-temporal stores when the output's vectors are
 * aligned (the usual case: 64-byte-aligned buffers, partitions of 64 KiB), ordinary stores
 * otherwise; the values are the same either way, so streaming never changes a result's bits. */

#define SIMD_CAT_(a, b, c) a##b##c
#define SIMD_CAT(a, b, c) SIMD_CAT_(a, b, c)
#define SIMD_PUBLIC(f) SIMD_CAT(pscan__cpu_, SIMD_ISA, f)

#if !(defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)))
/* Not x86-64 (the including file defines only SIMD_ISA): the portable kernels only. */
void SIMD_PUBLIC(_init)(void) {}
const pscan__cpu_op *SIMD_PUBLIC(_op)(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  (void)in, (void)acc, (void)op;
  return NULL;
}
#else

typedef simd_v (*simd_op_fn)(simd_v, simd_v);

/* The loops below are inlined into every variant's stamped kernels, where the operator becomes a
   constant and its vector instruction sits in the loop; left to its heuristics, the compiler
   stops inlining once the lists grow and calls the operator through a pointer per vector. */
#define SIMD_INLINE static SIMD_TARGET inline __attribute__((always_inline))

/* Whole vectors of in[0..n) -> out, from the broadcast *carry; returns the elements done. */
SIMD_INLINE size_t vector_part(const char *in, char *out, size_t n, simd_v *carry, int exclusive,
                               int stream, const char *prefetch, int elem, simd_op_fn op,
                               uint64_t id_bits) {
  const size_t lanes = SIMD_BYTES / (size_t)elem;
  simd_v c = *carry;
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    if (prefetch && (i * elem) % 64 == 0) /* an address, maybe past an array: never dereferenced */
      _mm_prefetch((const char *)((uintptr_t)prefetch + i * elem), _MM_HINT_T1);
    simd_v s = v_scan(v_loadu(in + i * elem), elem, op, id_bits);
    simd_v r = op(s, c);
    simd_v w = exclusive ? v_shift_in(r, c, elem) : r;
    if (stream)
      v_stream(out + i * elem, w);
    else
      v_storeu(out + i * elem, w);
    c = v_next_carry(s, r, c, elem, op);
  }
  *carry = c;
  return i;
}

SIMD_INLINE void scan_any(const pscan__cpu_op *scalar, const void *in, void *out, size_t n,
                          const void *carry, void *scratch, int exclusive, int stream,
                          const void *prefetch, int elem, simd_op_fn op, uint64_t id_bits) {
  uint64_t bits = id_bits;
  size_t first = 0;
  if (!carry && exclusive) { /* out[0] is the API's identity; continue from in[0] */
    memcpy(&bits, in, (size_t)elem); /* before out[0] overwrites it (in place) */
    scalar->scan_excl(scalar, in, out, 1, NULL, scratch);
    first = 1;
  } else if (carry) {
    memcpy(&bits, carry, (size_t)elem);
  }
  if (first >= n)
    return;
  simd_v c = v_broadcast(bits, elem);
  const char *src = (const char *)in + first * elem;
  char *dst = (char *)out + first * elem;
  stream = stream && (uintptr_t)dst % SIMD_BYTES == 0;
  const char *pf = prefetch ? (const char *)((uintptr_t)prefetch + first * elem) : NULL;
  size_t done = vector_part(src, dst, n - first, &c, exclusive, stream, pf, elem, op, id_bits);
  if (first + done < n) {
    char next[SIMD_BYTES];
    v_storeu(next, c);
    const void *tail_carry = done > 0 || carry || first ? (const void *)next : NULL;
    (exclusive ? scalar->scan_excl : scalar->scan_incl)(scalar, src + done * elem,
                                                       dst + done * elem, n - first - done,
                                                       tail_carry, scratch);
  }
  /* Non-temporal stores are weakly ordered: later stores (the pool's "done", a status word
     published with release semantics, which on x86 is a plain store) could otherwise become
     visible before them, and a reader that synchronises with those would see stale output.
     Intel SDM vol. 1, 10.4.6.2 "Caching of Temporal vs. Non-Temporal Data"; vol. 3, 9.2.2. */
  if (stream)
    _mm_sfence();
}

/* Reduction: four independent vector accumulators (the ops of one do not wait on another), then
   the lanes, then the tail. The order depends only on positions within the call. */
SIMD_INLINE void reduce_any(const pscan__cpu_op *scalar, const void *in_, size_t n, void *acc,
                            int elem, simd_op_fn op, uint64_t id_bits) {
  const char *in = in_;
  const size_t lanes = SIMD_BYTES / (size_t)elem, step = SIMD_BYTES;
  simd_v id = v_broadcast(id_bits, elem), a0 = id, a1 = id, a2 = id, a3 = id;
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const char *p = in + i * elem;
    a0 = op(a0, v_loadu(p));
    a1 = op(a1, v_loadu(p + step));
    a2 = op(a2, v_loadu(p + 2 * step));
    a3 = op(a3, v_loadu(p + 3 * step));
  }
  char v[SIMD_BYTES], total[8];
  v_storeu(v, op(op(a0, a1), op(a2, a3)));
  memcpy(total, v, (size_t)elem);
  for (size_t l = 1; l < lanes; l++)
    scalar->combine(scalar, total, total, v + l * elem);
  if (i < n) {
    char tail[8];
    scalar->reduce(scalar, in + i * elem, n - i, tail);
    scalar->combine(scalar, total, total, tail);
  }
  memcpy(acc, total, (size_t)elem);
}

/* Stamps the kernels of one variant; its scalar operator is set by the init function. */
#define SIMD_SCAN_FN(name, V, EXCL, ELEM, OPF, ID)                                                 \
  static SIMD_TARGET void name##_##V(const pscan__cpu_op *self, const void *in, void *out,         \
                                     size_t n, const void *carry, void *scratch) {                 \
    (void)self;                                                                                    \
    scan_any(scalar_##V, in, out, n, carry, scratch, EXCL, 0, NULL, ELEM, OPF, ID);                \
  }                                                                                                \
  static SIMD_TARGET void name##_stream_##V(const pscan__cpu_op *self, const void *in, void *out,  \
                                            size_t n, const void *carry, void *scratch,            \
                                            const void *prefetch) {                                \
    (void)self;                                                                                    \
    scan_any(scalar_##V, in, out, n, carry, scratch, EXCL, 1, prefetch, ELEM, OPF, ID);            \
  }
#define SIMD_STAMP(V, ELEM, OPF, ID, TYPE, OP)                                                     \
  static const pscan__cpu_op *scalar_##V;                                                          \
  SIMD_SCAN_FN(scan_incl, V, 0, ELEM, OPF, ID)                                                     \
  SIMD_SCAN_FN(scan_excl, V, 1, ELEM, OPF, ID)                                                     \
  static SIMD_TARGET void reduce_##V(const pscan__cpu_op *self, const void *in, size_t n,          \
                                     void *acc) {                                                  \
    (void)self;                                                                                    \
    reduce_any(scalar_##V, in, n, acc, ELEM, OPF, ID);                                             \
  }
SIMD_VARIANTS(SIMD_STAMP)
#undef SIMD_STAMP
#undef SIMD_SCAN_FN

#define SIMD_COUNT_USE(T, O, V) +1
enum { NUSES = 0 SIMD_USES(SIMD_COUNT_USE) };
#undef SIMD_COUNT_USE
static pscan__cpu_op ops[NUSES];

/* Built once (kernels.c calls it under pthread_once): each operator is the scalar one of its
   (type, op) with the scans and the reduction replaced. */
void SIMD_PUBLIC(_init)(void) {
#define SIMD_SET_SCALAR(V, ELEM, OPF, ID, TYPE, OP)                                                \
  scalar_##V = pscan__cpu_scalar_op(PSCAN_##TYPE, PSCAN_##TYPE, PSCAN_##OP);
  SIMD_VARIANTS(SIMD_SET_SCALAR)
#undef SIMD_SET_SCALAR
  int i = 0;
#define SIMD_FILL(T, O, V)                                                                         \
  ops[i] = *pscan__cpu_scalar_op(PSCAN_##T, PSCAN_##T, PSCAN_##O);                                 \
  ops[i].scan_incl = scan_incl_##V;                                                                \
  ops[i].scan_excl = scan_excl_##V;                                                                \
  ops[i].scan_incl_stream = scan_incl_stream_##V;                                                  \
  ops[i].scan_excl_stream = scan_excl_stream_##V;                                                  \
  ops[i].reduce = reduce_##V;                                                                      \
  i++;
  SIMD_USES(SIMD_FILL)
#undef SIMD_FILL
}

const pscan__cpu_op *SIMD_PUBLIC(_op)(pscan_dtype in, pscan_dtype acc, pscan_op op) {
  if (in != acc)
    return NULL;
  int i = 0;
#define SIMD_FIND(T, O, V)                                                                         \
  if (in == PSCAN_##T && op == PSCAN_##O)                                                          \
    return &ops[i];                                                                                \
  i++;
  SIMD_USES(SIMD_FIND)
#undef SIMD_FIND
  return NULL;
}

#endif /* x86-64 */

#undef SIMD_INLINE
#undef SIMD_PUBLIC
#undef SIMD_CAT
#undef SIMD_CAT_
