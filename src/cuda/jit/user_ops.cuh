/* The user operator as an accumulator for the shared block scans and look-back (block_scan.cuh,
 * lookback.cuh): compiled by NVRTC only (jit_source.c puts the user's source, pscan_user_t and
 * pscan_user_combine in front of it).
 *
 * A user operator need not have an identity, but the block scans and the look-back need one
 * (padding lanes, tiles before tile 0). Without one the accumulator adjoins one: {v, has}, where
 * has == 0 is the identity and combines with nothing. With the operator's own identity in the
 * program (PSCAN_USER_IDENTITY: jit_source.c writes pscan_user_identity_value) and an element of
 * whole 32-bit words, the accumulator is the plain value: the warp scans shuffle one word fewer
 * and combine without a branch. The threads' serial loops over their own items (user_tile.cuh)
 * combine plain values either way.
 *
 * Tile status (lookback.cuh's publish / read_word, one slot per tile and word array):
 *   elements up to 4 bytes  one 8-byte word {value, epoch}, one relaxed access (as the built-ins)
 *   up to 8 bytes           one 16-byte word {value, epoch}
 *   up to 32 bytes          one 16-byte word {8 bytes of the value, epoch} per 8 bytes, each a
 *                           relaxed access: a reader takes the value when every word carries the
 *                           launch's epoch (each word is written once, whole, so each then holds
 *                           its part of the value); no fence, one round trip
 *   larger                  a slot of 16 + the value rounded up to 16 bytes: the epoch flag at
 *                           its start, the value from byte 16. The writer stores the value, then
 *                           the flag with release semantics; a reader loads the flag with acquire
 *                           semantics and only then the value, so a current flag always comes with
 *                           its value. Every slot of a launch is written once; the next launch's
 *                           epoch differs. */
#ifndef PSCAN_JIT_USER_OPS_CUH
#define PSCAN_JIT_USER_OPS_CUH

#ifndef PSCAN_USER_SPLIT_MAX /* the largest value published in split words (jit_source.c) */
#define PSCAN_USER_SPLIT_MAX 32
#endif

#if defined(PSCAN_USER_IDENTITY) && PSCAN_USER_IDENTITY && PSCAN_USER_ELEM_SIZE % 4 == 0
#define PSCAN_USER_ADJOINED 0
typedef struct pscan_user_acc {
  pscan_user_t v;
} pscan_user_acc;
#else
#define PSCAN_USER_ADJOINED 1
typedef struct pscan_user_acc {
  pscan_user_t v;
  unsigned has; /* 0: the adjoined identity */
} pscan_user_acc;
#endif

enum {
  PSCAN_USER_SIZE = (int)sizeof(pscan_user_t),
  PSCAN_USER_ACC_WORDS = (int)(sizeof(pscan_user_acc) / 4),
  /* bytes of one status slot (jit_cuda.c computes the same from elem_size) */
  PSCAN_USER_SPLIT_WORDS = (PSCAN_USER_SIZE + 7) / 8,
  PSCAN_USER_SLOT = PSCAN_USER_SIZE <= 4                      ? 8
                    : PSCAN_USER_SIZE <= 8                    ? 16
                    : PSCAN_USER_SIZE <= PSCAN_USER_SPLIT_MAX ? 16 * PSCAN_USER_SPLIT_WORDS
                                                              : 16 + (PSCAN_USER_SIZE + 15) / 16 * 16
};

#define IN_T pscan_user_t
#define ACC_T pscan_user_acc
#define NAME(f) f##_user

static __device__ __forceinline__ ACC_T NAME(make)(pscan_user_t v) {
  ACC_T a;
  a.v = v;
#if PSCAN_USER_ADJOINED
  a.has = 1;
#endif
  return a;
}
/* Whether a holds a value of the user's (always, where the identity is the user's own). */
static __device__ __forceinline__ bool NAME(has)(ACC_T a) {
#if PSCAN_USER_ADJOINED
  return a.has != 0;
#else
  (void)a;
  return true;
#endif
}
static __device__ __forceinline__ ACC_T NAME(identity)(void) {
  ACC_T a;
#if PSCAN_USER_ADJOINED
  memset(&a, 0, sizeof a);
#else
  a.v = pscan_user_identity_value();
#endif
  return a;
}
static __device__ __forceinline__ ACC_T NAME(op)(ACC_T a, ACC_T b) {
#if PSCAN_USER_ADJOINED
  if (!a.has)
    return b;
  if (!b.has)
    return a;
#endif
  return NAME(make)(pscan_user_combine(a.v, b.v));
}

/* lookback.cuh reads an init value through these when has_init is set; the user kernels fold
   their init in themselves (user_tile.cuh) and always launch with has_init == 0. */
typedef unsigned long long NAME(bits_t);
static __device__ __forceinline__ ACC_T NAME(from_bits)(NAME(bits_t) b) {
  (void)b;
  return NAME(identity)();
}

/* Shuffles move the accumulator as 32-bit words. */
#define PSCAN_USER_SHFL(fname, call)                                         \
  static __device__ __forceinline__ ACC_T NAME(fname)(ACC_T v, unsigned d) { \
    unsigned w[PSCAN_USER_ACC_WORDS];                                        \
    memcpy(w, &v, sizeof v);                                                 \
    _Pragma("unroll") for (int i = 0; i < PSCAN_USER_ACC_WORDS; i++)         \
        w[i] = call(PSCAN__FULL_MASK, w[i], d);                              \
    memcpy(&v, w, sizeof v);                                                 \
    return v;                                                                \
  }
PSCAN_USER_SHFL(shfl_up, __shfl_up_sync)
PSCAN_USER_SHFL(shfl_down, __shfl_down_sync)
PSCAN_USER_SHFL(shfl_lane, __shfl_sync)
#undef PSCAN_USER_SHFL
static __device__ __forceinline__ ACC_T NAME(shfl)(ACC_T v, int lane) {
  return NAME(shfl_lane)(v, (unsigned)lane);
}

/* Large values: the flag with release / acquire ordering (above). */
static __device__ __forceinline__ void pscan_user_st_release(unsigned *p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ unsigned pscan_user_ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

static __device__ __forceinline__ void NAME(publish)(void *words, unsigned long long tile, ACC_T a,
                                                     uint32_t epoch) {
  char *slot = (char *)words + (unsigned long long)PSCAN_USER_SLOT * tile;
  if (PSCAN_USER_SIZE <= 4) {
    unsigned bits = 0;
    memcpy(&bits, &a.v, PSCAN_USER_SIZE <= 4 ? PSCAN_USER_SIZE : 4);
    pscan__st_word64(slot, (unsigned long long)epoch << 32 | bits);
  } else if (PSCAN_USER_SIZE <= 8) {
    unsigned long long bits = 0;
    memcpy(&bits, &a.v, PSCAN_USER_SIZE <= 8 ? PSCAN_USER_SIZE : 8);
    pscan__st_word128(slot, bits, epoch);
  } else if (PSCAN_USER_SIZE <= PSCAN_USER_SPLIT_MAX) {
    unsigned long long part[PSCAN_USER_SPLIT_WORDS];
    part[PSCAN_USER_SPLIT_WORDS - 1] = 0;
    memcpy(part, &a.v, PSCAN_USER_SIZE);
#pragma unroll
    for (int i = 0; i < PSCAN_USER_SPLIT_WORDS; i++)
      pscan__st_word128(slot + 16 * i, part[i], epoch);
  } else {
    enum { WORDS = (PSCAN_USER_SIZE + 3) / 4 };
    unsigned w[WORDS];
    w[WORDS - 1] = 0;
    memcpy(w, &a.v, PSCAN_USER_SIZE);
#pragma unroll
    for (int i = 0; i < WORDS; i++)
      __stcg((unsigned *)(slot + 16) + i, w[i]);
    pscan_user_st_release((unsigned *)slot, epoch);
  }
}

static __device__ __forceinline__ bool NAME(read_word)(const void *words, unsigned long long tile,
                                                       uint32_t epoch, ACC_T *a) {
  const char *slot = (const char *)words + (unsigned long long)PSCAN_USER_SLOT * tile;
#if PSCAN_USER_ADJOINED
  a->has = 1;
#endif
  if (PSCAN_USER_SIZE <= 4) {
    unsigned long long w = pscan__ld_word64(slot);
    unsigned bits = (unsigned)w;
    memcpy(&a->v, &bits, PSCAN_USER_SIZE <= 4 ? PSCAN_USER_SIZE : 4);
    return (uint32_t)(w >> 32) == epoch;
  }
  if (PSCAN_USER_SIZE <= 8) {
    unsigned long long bits, e;
    pscan__ld_word128(slot, &bits, &e);
    memcpy(&a->v, &bits, PSCAN_USER_SIZE <= 8 ? PSCAN_USER_SIZE : 8);
    return e == epoch;
  }
  if (PSCAN_USER_SIZE <= PSCAN_USER_SPLIT_MAX) {
    unsigned long long part[PSCAN_USER_SPLIT_WORDS], e[PSCAN_USER_SPLIT_WORDS];
#pragma unroll
    for (int i = 0; i < PSCAN_USER_SPLIT_WORDS; i++)
      pscan__ld_word128(slot + 16 * i, &part[i], &e[i]);
    bool current = true;
#pragma unroll
    for (int i = 0; i < PSCAN_USER_SPLIT_WORDS; i++)
      current &= e[i] == epoch;
    memcpy(&a->v, part, PSCAN_USER_SIZE);
    return current;
  }
  if (pscan_user_ld_acquire((const unsigned *)slot) != epoch)
    return false;
  enum { WORDS = (PSCAN_USER_SIZE + 3) / 4 };
  unsigned w[WORDS];
#pragma unroll
  for (int i = 0; i < WORDS; i++)
    w[i] = __ldcg((const unsigned *)(slot + 16) + i);
  memcpy(&a->v, w, PSCAN_USER_SIZE);
  return true;
}

#endif /* PSCAN_JIT_USER_OPS_CUH */
