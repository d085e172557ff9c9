/* Include-template, part 2: warp- and block-wide scans of one value per thread, one function
 * per tile-level strategy (PSCAN_PARAM_BLOCK_ALGO). Each returns the exclusive prefix of the
 * calling thread's value (the identity for thread 0) and the block total.
 *
 *   WARP_SCANS   Kogge-Stone within each warp by shuffles, then one warp scans the warp totals.
 *   RAKING       one warp rakes: each lane reduces 8 consecutive values serially, the warp scans
 *                the 32 partials, each lane re-scans its 8 (Merrill & Grimshaw; MatrixScan style).
 *   KOGGE_STONE  Hillis & Steele / Kogge & Stone: log2(256) = 8 steps, n log n work, double buffer.
 *   BRENT_KUNG   Brent & Kung (Blelloch's up-sweep and down-sweep): 2 log n - 1 steps, O(n) work.
 *   SKLANSKY     Sklansky's conditional-sum: in step s the upper half of every 2^(s+1) block adds
 *                the last value of its lower half; log n steps, minimum depth.
 *   HYBRID       Sengupta, Lefohn & Owens: up-sweep until 32 partials remain, Kogge-Stone over
 *                them in one warp, then the down-sweep.
 * Shared memory: s holds 2 * PSCAN__THREADS values. Non-commutative order is kept throughout
 * (the earlier operand is always on the left). */

static __device__ __forceinline__ ACC_T NAME(warp_inclusive)(ACC_T x) {
  const unsigned lane = threadIdx.x & 31;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    ACC_T y = NAME(shfl_up)(x, d);
    if (lane >= d)
      x = NAME(op)(y, x);
  }
  return x;
}

/* Reads the exclusive prefix and the total out of an inclusive scan in s, then frees s. */
static __device__ __forceinline__ void NAME(finish_smem_scan)(ACC_T *s, ACC_T *excl, ACC_T *total) {
  const unsigned t = threadIdx.x;
  __syncthreads();
  *excl = t > 0 ? s[t - 1] : NAME(identity)();
  *total = s[PSCAN__THREADS - 1];
  __syncthreads();
}

static __device__ void NAME(block_warp_scans)(ACC_T x, ACC_T *s, ACC_T *excl, ACC_T *total) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  ACC_T inc = NAME(warp_inclusive)(x);
  if (lane == 31)
    s[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    ACC_T w = lane < PSCAN__WARPS ? s[lane] : NAME(identity)();
    w = NAME(warp_inclusive)(w);
    if (lane < PSCAN__WARPS)
      s[PSCAN__WARPS + lane] = w;
  }
  __syncthreads();
  ACC_T in_warp = NAME(shfl_up)(inc, 1);
  if (lane == 0)
    in_warp = NAME(identity)();
  ACC_T before = warp > 0 ? s[PSCAN__WARPS + warp - 1] : NAME(identity)();
  *excl = NAME(op)(before, in_warp);
  *total = s[2 * PSCAN__WARPS - 1];
  __syncthreads();
}

static __device__ void NAME(block_raking)(ACC_T x, ACC_T *s, ACC_T *excl, ACC_T *total) {
  enum { SEG = PSCAN__THREADS / 32 };
  const unsigned t = threadIdx.x;
  s[t] = x;
  __syncthreads();
  if (t < 32) {
    ACC_T *seg = s + t * SEG;
    ACC_T sum = seg[0];
#pragma unroll
    for (int i = 1; i < SEG; i++)
      sum = NAME(op)(sum, seg[i]);
    ACC_T inc = NAME(warp_inclusive)(sum);
    ACC_T run = NAME(shfl_up)(inc, 1);
    if (t == 0)
      run = NAME(identity)();
#pragma unroll
    for (int i = 0; i < SEG; i++) {
      run = NAME(op)(run, seg[i]);
      seg[i] = run;
    }
  }
  NAME(finish_smem_scan)(s, excl, total);
}

static __device__ void NAME(block_kogge_stone)(ACC_T x, ACC_T *s, ACC_T *excl, ACC_T *total) {
  const unsigned t = threadIdx.x;
  ACC_T *src = s, *dst = s + PSCAN__THREADS;
  src[t] = x;
  __syncthreads();
  for (unsigned d = 1; d < PSCAN__THREADS; d <<= 1) {
    dst[t] = t >= d ? NAME(op)(src[t - d], src[t]) : src[t];
    __syncthreads();
    ACC_T *tmp = src;
    src = dst;
    dst = tmp;
  }
  /* log2(256) = 8 steps, an even number: the result is back in s[0 .. THREADS). */
  NAME(finish_smem_scan)(src, excl, total);
}

/* Up-sweep of Brent-Kung from stride `from` to `to` (exclusive), in place. */
static __device__ __forceinline__ void NAME(up_sweep)(ACC_T *s, unsigned from, unsigned to) {
  const unsigned t = threadIdx.x;
  for (unsigned d = from; d < to; d <<= 1) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < PSCAN__THREADS)
      s[i] = NAME(op)(s[i - d], s[i]);
    __syncthreads();
  }
}
/* Down-sweep (inclusive form) from stride `from` down to 1. */
static __device__ __forceinline__ void NAME(down_sweep)(ACC_T *s, unsigned from) {
  const unsigned t = threadIdx.x;
  for (unsigned d = from; d >= 1; d >>= 1) {
    unsigned i = (t + 1) * 2 * d - 1 + d;
    if (i < PSCAN__THREADS)
      s[i] = NAME(op)(s[i - d], s[i]);
    __syncthreads();
  }
}

static __device__ void NAME(block_brent_kung)(ACC_T x, ACC_T *s, ACC_T *excl, ACC_T *total) {
  s[threadIdx.x] = x;
  __syncthreads();
  NAME(up_sweep)(s, 1, PSCAN__THREADS);
  NAME(down_sweep)(s, PSCAN__THREADS / 4);
  NAME(finish_smem_scan)(s, excl, total);
}

static __device__ void NAME(block_sklansky)(ACC_T x, ACC_T *s, ACC_T *excl, ACC_T *total) {
  const unsigned t = threadIdx.x;
  s[t] = x;
  __syncthreads();
  for (unsigned half = 1; half < PSCAN__THREADS; half <<= 1) {
    if (t & half) {
      unsigned src = (t & ~(2 * half - 1)) + half - 1; /* last of the lower half */
      s[t] = NAME(op)(s[src], s[t]);
    }
    __syncthreads();
  }
  NAME(finish_smem_scan)(s, excl, total);
}

static __device__ void NAME(block_hybrid)(ACC_T x, ACC_T *s, ACC_T *excl, ACC_T *total) {
  enum { SPAN = PSCAN__THREADS / 32 }; /* values per partial once 32 partials remain */
  const unsigned t = threadIdx.x;
  s[t] = x;
  __syncthreads();
  NAME(up_sweep)(s, 1, SPAN);
  if (t < 32) {
    ACC_T v = NAME(warp_inclusive)(s[(t + 1) * SPAN - 1]);
    s[(t + 1) * SPAN - 1] = v;
  }
  __syncthreads();
  NAME(down_sweep)(s, SPAN / 2);
  NAME(finish_smem_scan)(s, excl, total);
}

static __device__ __forceinline__ void NAME(block_scan)(int algo, ACC_T x, ACC_T *s, ACC_T *excl,
                                                        ACC_T *total) {
  switch (algo) {
  case PSCAN_BLOCK_RAKING: NAME(block_raking)(x, s, excl, total); break;
  case PSCAN_BLOCK_KOGGE_STONE: NAME(block_kogge_stone)(x, s, excl, total); break;
  case PSCAN_BLOCK_BRENT_KUNG: NAME(block_brent_kung)(x, s, excl, total); break;
  case PSCAN_BLOCK_SKLANSKY: NAME(block_sklansky)(x, s, excl, total); break;
  case PSCAN_BLOCK_HYBRID: NAME(block_hybrid)(x, s, excl, total); break;
  default: NAME(block_warp_scans)(x, s, excl, total); break;
  }
}

/* Block-wide total only (reduce kernel). The shuffle tree combines lane l with lane l + d for
   d = 16 .. 1, out of order: for commutative operators only (the built-in ones). */
static __device__ __forceinline__ ACC_T NAME(block_reduce)(ACC_T x, ACC_T *s) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (unsigned d = 16; d >= 1; d >>= 1) {
    ACC_T y = NAME(shfl_down)(x, d);
    if (lane + d < 32)
      x = NAME(op)(x, y);
  }
  if (lane == 0)
    s[warp] = x;
  __syncthreads();
  ACC_T total = s[0];
  for (int w = 1; w < PSCAN__WARPS; w++)
    total = NAME(op)(total, s[w]);
  __syncthreads();
  return total;
}

/* ---- Segmented (lines back to back: tile_scan.cuh's scan_lines_kernel) ----
 * Each thread holds a pair (head, x): head = a line starts among its items, x = the reduction of
 * its items since its last line start (all of them if none). The scan of such pairs is
 * Blelloch's segmented scan (Sengupta et al. 2007): (h1, x1) . (h2, x2) = (h1 | h2, h2 ? x2 :
 * x1 ⊕ x2). Within a warp the heads are one ballot, so each lane knows the nearest lane at or
 * below it that holds a line start, and a Kogge-Stone step folds a lane's value only from lanes
 * at or above that one: one shuffle a step, as in warp_inclusive. */
static __device__ __forceinline__ ACC_T NAME(warp_seg_inclusive)(unsigned heads, ACC_T x) {
  const unsigned lane = threadIdx.x & 31, upto = heads & (0xffffffffu >> (31 - lane));
  const unsigned from = upto ? 31u - (unsigned)__clz(upto) : 0u; /* the nearest head lane */
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    ACC_T y = NAME(shfl_up)(x, d);
    if (lane >= d && lane - d >= from)
      x = NAME(op)(y, x);
  }
  return x;
}

/* The block's segmented scan of the threads' pairs: the exclusive pair before this thread
   (*excl_head, *excl) and the block's total pair (*total_head, *total). s: PSCAN__WARPS values,
   warp_heads: PSCAN__WARPS flags, both in shared memory. */
static __device__ __forceinline__ void NAME(block_seg_scan)(bool head, ACC_T x, ACC_T *s,
                                                            unsigned *warp_heads, bool *excl_head,
                                                            ACC_T *excl, bool *total_head,
                                                            ACC_T *total) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned heads = __ballot_sync(PSCAN__FULL_MASK, head);
  const ACC_T inc = NAME(warp_seg_inclusive)(heads, x);
  if (lane == 31) {
    s[warp] = inc;
    warp_heads[warp] = heads != 0;
  }
  ACC_T in_warp = NAME(shfl_up)(inc, 1);
  if (lane == 0)
    in_warp = NAME(identity)();
  const bool head_in_warp = (heads & ((1u << lane) - 1u)) != 0; /* a head in a lane before mine */
  __syncthreads();
  bool h_before = false, h_all = false;
  ACC_T before = NAME(identity)(), all = NAME(identity)();
#pragma unroll
  for (unsigned w = 0; w < PSCAN__WARPS; w++) {
    const bool hw = warp_heads[w] != 0;
    const ACC_T xw = s[w];
    if (w < warp) {
      before = hw ? xw : NAME(op)(before, xw);
      h_before |= hw;
    }
    all = hw ? xw : NAME(op)(all, xw);
    h_all |= hw;
  }
  *excl_head = head_in_warp || h_before;
  *excl = head_in_warp ? in_warp : NAME(op)(before, in_warp);
  *total_head = h_all;
  *total = all;
  __syncthreads(); /* s and warp_heads are reused */
}
