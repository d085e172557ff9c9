/* Include-template, part 1: the operator of one (input type, accumulation type, op) stamp.
 * The includer defines PAIR_IN, PAIR_OUT (type suffixes such as I32) and OP_E (SUM, MIN, ...).
 *
 * Identities: the internal identity of a float SUM is -0.0, not +0.0, because -0.0 + x == x for
 * every x (+0.0 + -0.0 is +0.0), so a carry that starts at the identity never changes a result.
 * The API's identity (+0.0) is written only where the API asks for it (out[0] of an exclusive
 * scan without init). Every other identity is exact. */

#define IN_T PSCAN__CAT(PSCAN__CTYPE_, PAIR_IN)
#define ACC_T PSCAN__CAT(PSCAN__CTYPE_, PAIR_OUT)
#define WRAP_T PSCAN__CAT(PSCAN__WRAP_, PAIR_OUT)
#define ACC_SIZE PSCAN__CAT(PSCAN__SIZE_, PAIR_OUT)
#define IS_FLOAT PSCAN__CAT(PSCAN__ISFLOAT_, PAIR_OUT)
#define OP PSCAN__CAT(PSCAN_, OP_E)
#define NAME(f) PSCAN__NAME5(f, PAIR_IN, PAIR_OUT, OP_E)

static __device__ __forceinline__ ACC_T NAME(op)(ACC_T a, ACC_T b) {
#if IS_FLOAT
  if (OP == PSCAN_SUM) return a + b;
  if (OP == PSCAN_PROD) return a * b;
  if (OP == PSCAN_MIN) return (a < b || a != a) ? a : b; /* NaN in either operand wins */
  return (a > b || a != a) ? a : b;                      /* MAX */
#else
  if (OP == PSCAN_SUM) return (ACC_T)((WRAP_T)a + (WRAP_T)b);
  if (OP == PSCAN_PROD) return (ACC_T)((WRAP_T)a * (WRAP_T)b);
  if (OP == PSCAN_MIN) return a < b ? a : b;
  if (OP == PSCAN_MAX) return a > b ? a : b;
  if (OP == PSCAN_AND) return a & b;
  if (OP == PSCAN_OR) return a | b;
  return a ^ b; /* XOR */
#endif
}

static __device__ __forceinline__ ACC_T NAME(api_identity)(void) {
#if IS_FLOAT
  if (OP == PSCAN_SUM) return (ACC_T)0;
  if (OP == PSCAN_PROD) return (ACC_T)1;
  if (OP == PSCAN_MIN) return (ACC_T)INFINITY;
  return (ACC_T)-INFINITY;
#else
  const ACC_T zero = (ACC_T)0, ones = (ACC_T)~zero;
  const bool is_signed = (ACC_T)-1 < zero;
  const ACC_T max_v = is_signed ? (ACC_T)(((WRAP_T)1 << (8 * ACC_SIZE - 1)) - 1) : ones;
  const ACC_T min_v = is_signed ? (ACC_T)(max_v + (WRAP_T)1) : zero;
  if (OP == PSCAN_PROD) return (ACC_T)1;
  if (OP == PSCAN_MIN) return max_v;
  if (OP == PSCAN_MAX) return min_v;
  if (OP == PSCAN_AND) return ones;
  return zero;
#endif
}

static __device__ __forceinline__ ACC_T NAME(identity)(void) {
#if IS_FLOAT
  if (OP == PSCAN_SUM) return (ACC_T)-0.0;
#endif
  return NAME(api_identity)();
}

/* Bit casts to the 32- or 64-bit words used by shuffles and status words. */
#if ACC_SIZE == 8
typedef unsigned long long NAME(bits_t);
#else
typedef unsigned int NAME(bits_t);
#endif
static __device__ __forceinline__ NAME(bits_t) NAME(to_bits)(ACC_T v) {
  NAME(bits_t) b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}
static __device__ __forceinline__ ACC_T NAME(from_bits)(NAME(bits_t) b) {
  ACC_T v;
  memcpy(&v, &b, sizeof v);
  return v;
}
static __device__ __forceinline__ ACC_T NAME(shfl_up)(ACC_T v, unsigned d) {
  return NAME(from_bits)(__shfl_up_sync(PSCAN__FULL_MASK, NAME(to_bits)(v), d));
}
static __device__ __forceinline__ ACC_T NAME(shfl_down)(ACC_T v, unsigned d) {
  return NAME(from_bits)(__shfl_down_sync(PSCAN__FULL_MASK, NAME(to_bits)(v), d));
}
static __device__ __forceinline__ ACC_T NAME(shfl)(ACC_T v, int lane) {
  return NAME(from_bits)(__shfl_sync(PSCAN__FULL_MASK, NAME(to_bits)(v), lane));
}

/* Status words of tile `tile`: publish a value, or read it if it was published in this epoch. */
static __device__ __forceinline__ void NAME(publish)(void *words, unsigned long long tile, ACC_T v,
                                                     uint32_t epoch) {
#if ACC_SIZE == 8
  pscan__st_word128((char *)words + 16 * tile, NAME(to_bits)(v), epoch);
#else
  pscan__st_word64((char *)words + 8 * tile,
                   (unsigned long long)epoch << 32 | (unsigned long long)NAME(to_bits)(v));
#endif
}
static __device__ __forceinline__ bool NAME(read_word)(const void *words, unsigned long long tile,
                                                       uint32_t epoch, ACC_T *v) {
#if ACC_SIZE == 8
  unsigned long long value, e;
  pscan__ld_word128((const char *)words + 16 * tile, &value, &e);
  *v = NAME(from_bits)(value);
  return e == epoch;
#else
  unsigned long long w = pscan__ld_word64((const char *)words + 8 * tile);
  *v = NAME(from_bits)((NAME(bits_t))(w & 0xffffffffu));
  return (uint32_t)(w >> 32) == epoch;
#endif
}
