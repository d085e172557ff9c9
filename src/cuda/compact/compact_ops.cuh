/* Include-template: the accumulator of the compaction family's look-back, in the shape that
 * block_scan.cuh and lookback.cuh expect (NAME(op), NAME(identity), shuffles, status words), so
 * that the compaction kernels run the scan's own block scans and decoupled look-back.
 *
 * The accumulator is a pair (count, x), as on the CPU backend (cpu/compact.c):
 *   count  items kept (select, partition), or run heads (unique, run-length encoding, by key);
 *   x      run-length encoding: the position of the last run head (the right operand's wins
 *          when it has a head); by key (CX_BY_KEY): the reduction of the values since the last
 *          head (the right operand's alone when it has a head, else the left's continued by it).
 * Both combinations are associative, so the look-back may fold any window of predecessors.
 *
 * The includer defines NAME(f), CX_T (the type of x: unsigned long long, or the value type) and
 * CX_BY_KEY (0 or 1); for CX_BY_KEY, CX_OP(a, b) and CX_IDENTITY() (the value operator).
 *
 * Status words: one 16-byte word written and read with single .b128 accesses (common.cuh):
 * word 0 = count << 16 | epoch (16 bits; counts below 2^48 items), word 1 = the bits of x. The
 * backend keeps these words in a buffer of their own with a 16-bit epoch of their own (and
 * clears the buffer when that epoch wraps), so a stale word never carries the current epoch. */

typedef struct NAME(acc) {
  unsigned long long count;
  CX_T x;
} NAME(acc);
#define ACC_T NAME(acc)

static __device__ __forceinline__ ACC_T NAME(make)(unsigned long long count, CX_T x) {
  ACC_T a;
  a.count = count;
  a.x = x;
  return a;
}

static __device__ __forceinline__ ACC_T NAME(identity)(void) {
#if CX_BY_KEY
  return NAME(make)(0, CX_IDENTITY());
#else
  return NAME(make)(0, 0);
#endif
}

static __device__ __forceinline__ ACC_T NAME(op)(ACC_T a, ACC_T b) {
#if CX_BY_KEY
  return NAME(make)(a.count + b.count, b.count ? b.x : CX_OP(a.x, b.x));
#else
  return NAME(make)(a.count + b.count, b.count ? b.x : a.x);
#endif
}

/* x as a 64-bit word and back (zero-extended). */
static __device__ __forceinline__ unsigned long long NAME(x_bits)(CX_T x) {
  unsigned long long b = 0;
  memcpy(&b, &x, sizeof x);
  return b;
}
static __device__ __forceinline__ CX_T NAME(x_from)(unsigned long long b) {
  CX_T x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* lookback.cuh reads an init value through these; compaction launches never have one. */
typedef unsigned long long NAME(bits_t);
static __device__ __forceinline__ ACC_T NAME(from_bits)(NAME(bits_t) b) {
  return NAME(make)(0, NAME(x_from)(b));
}

static __device__ __forceinline__ ACC_T NAME(shfl_up)(ACC_T v, unsigned d) {
  return NAME(make)(__shfl_up_sync(PSCAN__FULL_MASK, v.count, d),
                    NAME(x_from)(__shfl_up_sync(PSCAN__FULL_MASK, NAME(x_bits)(v.x), d)));
}
static __device__ __forceinline__ ACC_T NAME(shfl_down)(ACC_T v, unsigned d) {
  return NAME(make)(__shfl_down_sync(PSCAN__FULL_MASK, v.count, d),
                    NAME(x_from)(__shfl_down_sync(PSCAN__FULL_MASK, NAME(x_bits)(v.x), d)));
}
static __device__ __forceinline__ ACC_T NAME(shfl)(ACC_T v, int lane) {
  return NAME(make)(__shfl_sync(PSCAN__FULL_MASK, v.count, lane),
                    NAME(x_from)(__shfl_sync(PSCAN__FULL_MASK, NAME(x_bits)(v.x), lane)));
}

static __device__ __forceinline__ void NAME(publish)(void *words, unsigned long long tile, ACC_T v,
                                                     uint32_t epoch) {
  pscan__st_word128((char *)words + 16 * tile, v.count << 16 | (epoch & 0xffffu),
                    NAME(x_bits)(v.x));
}
static __device__ __forceinline__ bool NAME(read_word)(const void *words, unsigned long long tile,
                                                       uint32_t epoch, ACC_T *v) {
  unsigned long long w0, w1;
  pscan__ld_word128((const char *)words + 16 * tile, &w0, &w1);
  *v = NAME(make)(w0 >> 16, NAME(x_from)(w1));
  return (w0 & 0xffffu) == (epoch & 0xffffu);
}
