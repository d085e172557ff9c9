/* Include-template, part 3: decoupled look-back (Merrill & Garland, NVR-2016-002) and its
 * variants, run by warp 0 of a tile once the tile's total is known.
 *
 * Tile status lives in two arrays of one-word descriptors (scan_ops.cuh): agg_words[k] holds
 * tile k's aggregate, incl_words[k] its inclusive prefix, each tagged with the launch's epoch.
 * A word of another epoch reads as "not yet published" (status X). Tile 0 publishes only its
 * inclusive prefix; every other tile publishes its aggregate first (status A), looks back, then
 * publishes its inclusive prefix (status P). */

/* PSCAN__LB_EAGER 0 (set by an includer before the first inclusion) leaves the eager poll out of
   its kernels, whose launches never ask for it (launch.h lb_eager): the compaction kernels and
   the user kernels, where the unused branch cost registers (more spills in keys_kernel). */
#ifndef PSCAN__LB_EAGER
#define PSCAN__LB_EAGER 1
#endif

/* The block-wide look-back (look_back_block) is built into the eager kernels of inputs of 4 bytes
   and more: in the 8- and 16-bit inputs' large-tile kernels it raised the spills (I8 SUM 20 ->
   164 bytes, I16 MAX 48 -> 164), and the 8-bit large scans read 9-11% slower on the H200
   (docs/PERFORMANCE.md, "A block-wide look-back in one-wave launches"). Redefined at each
   inclusion (one per stamp). */
#undef LB_BLOCK_BUILT
#if PSCAN__LB_EAGER && !(defined(PAIR_IN) && PSCAN__CAT(PSCAN__SIZE_, PAIR_IN) < 4)
#define LB_BLOCK_BUILT 1
#else
#define LB_BLOCK_BUILT 0
#endif

/* Spins (with backoff) until every lane's predecessor has published its aggregate or inclusive
   prefix; returns whether this lane's is the inclusive prefix. Lanes before tile 0 read as an
   inclusive identity and are never reached past tile 0, which always publishes a prefix. eager:
   ask for both words at once (1), not (0), or as the launch asks (PSCAN__LB_AS_LAUNCH: launch.h
   lb_eager, in kernels that build the eager poll in). A constant where inlined. */
#ifndef PSCAN__LB_AS_LAUNCH
#define PSCAN__LB_AS_LAUNCH (-1)
#endif
static __device__ __forceinline__ bool NAME(poll)(const pscan__cuda_scan_params *p, long long j,
                                                  ACC_T *v, const int eager) {
  unsigned ns = PSCAN__BACKOFF_FIRST_NS;
  for (;;) {
    bool inclusive = true, ready = true;
    *v = NAME(identity)();
    /* both requests at once: one round trip (written so that the launch's choice compiles as it
       did before poll took `eager`) */
    if ((PSCAN__LB_EAGER || eager == 1) && j >= 0 && (eager == 1 || (eager && p->lb_eager))) {
      ACC_T a;
      inclusive = NAME(read_word)(p->incl_words, (unsigned long long)j, p->epoch, v);
      ready = NAME(read_word)(p->agg_words, (unsigned long long)j, p->epoch, &a);
      if (!inclusive)
        *v = a;
      ready = ready || inclusive;
    } else if (j >= 0) {
      inclusive = NAME(read_word)(p->incl_words, (unsigned long long)j, p->epoch, v);
      if (!inclusive)
        ready = NAME(read_word)(p->agg_words, (unsigned long long)j, p->epoch, v);
    }
    if (__all_sync(PSCAN__FULL_MASK, ready))
      return inclusive;
    pscan__backoff(&ns);
  }
}

/* Warp 0: the exclusive prefix of tile `tile` > 0 by decoupled look-back, polling as `eager`
   says (poll). */
static __device__ __forceinline__ ACC_T NAME(look_back_as)(const pscan__cuda_scan_params *p,
                                                           unsigned long long tile,
                                                           const int eager) {
  const int lane = threadIdx.x & 31;
  ACC_T acc = NAME(identity)(); /* combination of the predecessors already passed */
  for (long long base = (long long)tile - 1;; base -= 32) {
    ACC_T v;
    bool inclusive = NAME(poll)(p, base - lane, &v, eager);
    unsigned pmask = __ballot_sync(PSCAN__FULL_MASK, inclusive);
    int stop = pmask ? __ffs(pmask) - 1 : 31; /* nearest inclusive prefix, lane 0 = tile - 1 */
    if (lane > stop)
      v = NAME(identity)();
    /* Fold the window, farther lanes (higher) on the left. */
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      ACC_T far = NAME(shfl_down)(v, d);
      if (lane + d < 32)
        v = NAME(op)(far, v);
    }
    acc = NAME(op)(NAME(shfl)(v, 0), acc);
    if (pmask)
      return acc;
  }
}
/* ... as the launch asks. */
static __device__ ACC_T NAME(look_back)(const pscan__cuda_scan_params *p, unsigned long long tile) {
  return NAME(look_back_as)(p, tile, PSCAN__LB_AS_LAUNCH);
}

/* One warp's poll in look_back_block: reads its lanes' words (both at once) until every lane up
   to the warp's nearest inclusive prefix is ready, or a nearer warp has found one (*stop < warp:
   this warp's values will not be folded). Returns the ballot of inclusive lanes among the ready
   prefix (0: none, or the warp is not needed); *v: this lane's value (identity before tile 0). */
static __device__ __forceinline__ unsigned NAME(poll_block)(const pscan__cuda_scan_params *p,
                                                            long long j, ACC_T *v,
                                                            const volatile int *stop) {
  const int warp = threadIdx.x >> 5;
  unsigned ns = PSCAN__BACKOFF_FIRST_NS;
  for (;;) {
    bool inclusive = true, ready = true;
    *v = NAME(identity)();
    if (j >= 0) {
      ACC_T a;
      inclusive = NAME(read_word)(p->incl_words, (unsigned long long)j, p->epoch, v);
      ready = NAME(read_word)(p->agg_words, (unsigned long long)j, p->epoch, &a) || inclusive;
      if (!inclusive)
        *v = a;
    }
    const unsigned missing = __ballot_sync(PSCAN__FULL_MASK, !ready);
    const unsigned incl = __ballot_sync(PSCAN__FULL_MASK, inclusive && ready);
    /* complete: no lane missing before the nearest inclusive lane (lane 0 is the nearest) */
    if (!missing || (incl && __ffs(incl) < __ffs(missing)))
      return incl;
    if (*stop < warp)
      return 0;
    pscan__backoff(&ns);
  }
}

/* Every warp of the block, in launches whose tiles all look back at about the same time (lb_block:
   one wave, host/state.h): a window of PSCAN__THREADS predecessors a round instead of 32. Each
   warp polls 32 of them (poll_block) and folds them as look_back does; the warps' folds meet in
   scratch (the nearer warp on the right), up to the nearest warp holding an inclusive prefix, and
   a warp beyond one that has found an inclusive prefix stops waiting. In one wave every aggregate
   lands within microseconds, and a tile k would otherwise walk back k / 32 windows, an L2 round
   trip each. scratch: PSCAN__WARPS values and PSCAN__WARPS + 1 ints, free. Ends after a barrier;
   returns the prefix in every thread. */
static __device__ ACC_T NAME(look_back_block)(const pscan__cuda_scan_params *p,
                                              unsigned long long tile, ACC_T *scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int *found = (int *)((char *)scratch + (PSCAN__WARPS * sizeof(ACC_T) + 15) / 16 * 16);
  int *stop = found + PSCAN__WARPS; /* the nearest warp known to hold an inclusive prefix */
  ACC_T acc = NAME(identity)();
  if (threadIdx.x == 0)
    *stop = PSCAN__WARPS;
  __syncthreads();
  for (long long base = (long long)tile - 1;; base -= PSCAN__THREADS) {
    ACC_T v;
    const unsigned pmask = NAME(poll_block)(p, base - (long long)threadIdx.x, &v, stop);
    if (pmask && lane == 0)
      atomicMin(stop, warp);
    const int last = pmask ? __ffs(pmask) - 1 : 31;
    if (lane > last)
      v = NAME(identity)();
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      ACC_T far = NAME(shfl_down)(v, d);
      if (lane + d < 32)
        v = NAME(op)(far, v);
    }
    if (lane == 0) {
      scratch[warp] = v;
      found[warp] = pmask != 0;
    }
    __syncthreads();
    ACC_T window = NAME(identity)();
    bool done = false;
#pragma unroll 1 /* unrolled, the f64 and 8-bit scan kernels spilled */
    for (int w = 0; w < PSCAN__WARPS && !done; w++) { /* every thread, from shared memory */
      window = NAME(op)(scratch[w], window);
      done = found[w];
    }
    acc = NAME(op)(window, acc);
    __syncthreads(); /* scratch is rewritten next round */
    if (done)
      return acc;
  }
}

/* Folds predecessors j+1 .. tile-1 (their aggregates) onto acc, strictly left to right, a window
   of 32 at a time. Lane 0 folds each window out of shared memory: its loads do not depend on acc,
   so only the operators form the serial chain (a chain of shuffles would add a shuffle's latency
   to every step). The next window's words are requested before lane 0 folds the current one, so
   the round trip to L2 overlaps the fold. Returns the result in every lane. */
static __device__ ACC_T NAME(fold_aggregates)(const pscan__cuda_scan_params *p, long long j,
                                              unsigned long long tile, ACC_T acc, ACC_T *window) {
  const int lane = threadIdx.x & 31;
  long long first = j + 1;
  ACC_T v = NAME(identity)();
  bool ready = first + lane >= (long long)tile ||
               NAME(read_word)(p->agg_words, (unsigned long long)(first + lane), p->epoch, &v);
  while (first < (long long)tile) {
    unsigned ns = PSCAN__BACKOFF_FIRST_NS;
    while (!__all_sync(PSCAN__FULL_MASK, ready)) { /* wait for this window's aggregates */
      pscan__backoff(&ns);
      ready = NAME(read_word)(p->agg_words, (unsigned long long)(first + lane), p->epoch, &v);
    }
    const long long count = (long long)tile - first < 32 ? (long long)tile - first : 32;
    window[lane] = v;
    __syncwarp();
    const long long next = first + 32;
    v = NAME(identity)(); /* the next window's words, in flight during the fold */
    ready = next + lane >= (long long)tile ||
            NAME(read_word)(p->agg_words, (unsigned long long)(next + lane), p->epoch, &v);
    if (lane == 0)
      for (int l = 0; l < count; l++)
        acc = NAME(op)(acc, window[l]);
    __syncwarp(); /* the window is rewritten next round */
    first = next;
  }
  return NAME(shfl)(acc, 0);
}

/* Warp 0, deterministic mode: the same prefix, folded strictly left to right from a published
   inclusive prefix, E_k = ((P_j ⊕ A_{j+1}) ⊕ ...) ⊕ A_{k-1}. Every inclusive prefix is then
   the left fold of the aggregates, whichever predecessor the search stops at, so float results
   do not depend on timing. Usually the nearest prefix is in the first window and the fold runs
   over the values already in the lanes; otherwise the aggregates are read again, in order. */
static __device__ ACC_T NAME(look_back_ordered)(const pscan__cuda_scan_params *p,
                                                unsigned long long tile, ACC_T *window) {
  const int lane = threadIdx.x & 31;
  ACC_T v;
  bool inclusive = NAME(poll)(p, (long long)tile - 1 - lane, &v, PSCAN__LB_AS_LAUNCH);
  unsigned pmask = __ballot_sync(PSCAN__FULL_MASK, inclusive);
  if (pmask) { /* lane 0 is tile - 1: fold lanes stop .. 0 in that order */
    int stop = __ffs(pmask) - 1;
    window[lane] = v;
    __syncwarp();
    ACC_T acc = window[stop];
    if (lane == 0) { /* shared-memory loads do not depend on acc: only the ops form a chain */
#pragma unroll 8
      for (int l = stop - 1; l >= 0; l--)
        acc = NAME(op)(acc, window[l]);
    }
    acc = NAME(shfl)(acc, 0);
    __syncwarp();
    return acc;
  }
  long long j = -1;
  ACC_T acc = NAME(identity)();
  unsigned ns = PSCAN__BACKOFF_FIRST_NS;
  for (long long base = (long long)tile - 33; j < 0;) { /* find a published prefix further back */
    long long t = base - lane;
    ACC_T w = NAME(identity)();
    bool found = t >= 0 && NAME(read_word)(p->incl_words, (unsigned long long)t, p->epoch, &w);
    unsigned m = __ballot_sync(PSCAN__FULL_MASK, found);
    if (m) {
      int l = __ffs(m) - 1;
      j = base - l;
      acc = NAME(shfl)(w, l);
    } else if (base - 31 <= 0) {
      pscan__backoff(&ns); /* tile 0's window: wait for it */
    } else {
      base -= 32;
    }
  }
  return NAME(fold_aggregates)(p, j, tile, acc, window);
}

/* Warp 0, chained mode (StreamScan): wait for the predecessor's inclusive prefix. */
static __device__ ACC_T NAME(wait_predecessor)(const pscan__cuda_scan_params *p,
                                               unsigned long long tile) {
  ACC_T v = NAME(identity)();
  if ((threadIdx.x & 31) == 0) /* the chain's latency is the whole cost: spin without sleeping */
    while (!NAME(read_word)(p->incl_words, tile - 1, p->epoch, &v))
      ;
  return NAME(shfl)(v, 0);
}

/* A look-back warp (compact_heads.cuh, by_key_heads.cuh; decoupled look-back mode, never
   deterministic, no init): the exclusive prefix of a tile whose aggregate is already published,
   and its inclusive prefix published. eager: poll eagerly, whatever the kernel was built with (a
   constant false keeps the kernel's code as without it). */
static __device__ __forceinline__ ACC_T NAME(warp_prefix)(const pscan__cuda_scan_params *p,
                                                          unsigned long long tile, ACC_T total,
                                                          const bool eager) {
  const bool leader = (threadIdx.x & 31) == 0;
  ACC_T before = NAME(identity)();
  if (tile > 0) {
    if (leader)
      pscan__perturb(tile, 2);
    before = eager ? NAME(look_back_as)(p, tile, 1) : NAME(look_back)(p, tile);
  }
  if (leader) {
    pscan__perturb(tile, tile > 0 ? 3 : 1);
    NAME(publish)(p->incl_words, tile, NAME(op)(before, total), p->epoch);
  }
  return before;
}

/* The exclusive prefix of a tile whose total is known, by the launch's mode. */
/* broadcast: one shared value; scratch: 32 shared values (and, with lb_block, PSCAN__WARPS + 1
   ints after PSCAN__WARPS of them) free during the look-back. ordered (a
   constant where inlined): whether this kernel can be asked for the ordered look-back of
   deterministic mode; kernels that cannot compile it out, which frees registers. */
static __device__ __forceinline__ ACC_T NAME(tile_prefix)(const pscan__cuda_scan_params *p,
                                                          ACC_T *broadcast, ACC_T *scratch,
                                                          unsigned long long tile, ACC_T total,
                                                          ACC_T *running, const bool ordered) {
  const ACC_T start = p->has_init ? NAME(from_bits)((NAME(bits_t))p->init) : NAME(identity)();
  switch (p->mode) {
  case PSCAN__MODE_SINGLE: {
    ACC_T e = *running;
    *running = NAME(op)(e, total);
    return e;
  }
  case PSCAN__MODE_PREFIX:
    return ((const ACC_T *)p->tile_values)[tile];
  case PSCAN__MODE_LOCAL: {
    ACC_T e = tile == 0 ? start : NAME(identity)();
    if (threadIdx.x == 0)
      ((ACC_T *)p->tile_values)[tile] = NAME(op)(e, total);
    return e;
  }
  default: /* LOOKBACK, CHAINED */
    if (tile == 0) {
      if (threadIdx.x == 0) {
        pscan__perturb(tile, 1);
        NAME(publish)(p->incl_words, 0, NAME(op)(start, total), p->epoch);
      }
      return start;
    }
    if (LB_BLOCK_BUILT && p->lb_block && p->mode == PSCAN__MODE_LOOKBACK &&
        !(ordered && p->deterministic)) {
      if (threadIdx.x == 0) {
        pscan__perturb(tile, 2);
        NAME(publish)(p->agg_words, tile, total, p->epoch);
      }
      const ACC_T e = NAME(look_back_block)(p, tile, scratch);
      if (threadIdx.x == 0) {
        pscan__perturb(tile, 3);
        NAME(publish)(p->incl_words, tile, NAME(op)(e, total), p->epoch);
      }
      return e;
    }
    if (threadIdx.x < 32) {
      if (threadIdx.x == 0 && p->mode == PSCAN__MODE_LOOKBACK) {
        pscan__perturb(tile, 2);
        NAME(publish)(p->agg_words, tile, total, p->epoch);
      }
      ACC_T e = p->mode == PSCAN__MODE_CHAINED ? NAME(wait_predecessor)(p, tile)
                : ordered && p->deterministic ? NAME(look_back_ordered)(p, tile, scratch)
                                              : NAME(look_back)(p, tile);
      if (threadIdx.x == 0) {
        pscan__perturb(tile, 3);
        NAME(publish)(p->incl_words, tile, NAME(op)(e, total), p->epoch);
        *broadcast = e;
      }
    }
    __syncthreads();
    return *broadcast;
  }
}

/* Lines back to back (scan_lines_kernel): the exclusive prefix of a tile's first item within
   its line. The tile's total is the pair (total_head, total): with a line start in the tile,
   total is already the inclusive prefix of the tile's last item, published at once, so that
   successors in the same line stop their look-back here; a tile that starts a line needs no
   predecessor (tile 0 always does). Only a tile that opens inside a line looks back. init (every
   line's start) is in the values already. Look-back mode, or one block walking the tiles. */
static __device__ ACC_T NAME(lines_tile_prefix)(const pscan__cuda_scan_params *p, ACC_T *broadcast,
                                                unsigned long long tile, bool total_head,
                                                ACC_T total, bool starts_line, ACC_T *running) {
  if (p->mode == PSCAN__MODE_SINGLE) {
    const ACC_T e = *running;
    *running = total_head ? total : NAME(op)(e, total);
    return e;
  }
  if (total_head && threadIdx.x == 0) {
    pscan__perturb(tile, 1);
    NAME(publish)(p->incl_words, tile, total, p->epoch);
  }
  if (starts_line)
    return NAME(identity)();
  if (threadIdx.x < 32) {
    if (!total_head && threadIdx.x == 0) {
      pscan__perturb(tile, 2);
      NAME(publish)(p->agg_words, tile, total, p->epoch);
    }
    const ACC_T e = NAME(look_back)(p, tile);
    if (threadIdx.x == 0) {
      if (!total_head) {
        pscan__perturb(tile, 3);
        NAME(publish)(p->incl_words, tile, NAME(op)(e, total), p->epoch);
      }
      *broadcast = e;
    }
  }
  __syncthreads();
  return *broadcast;
}
