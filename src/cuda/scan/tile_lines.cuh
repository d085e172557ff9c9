/* Include-template, part of tile_scan.cuh (the large tiles; scan_by_key's half tiles too):
 * segmented scans on the flat scan's tiles, for pscan_scan_axis along a contiguous last axis
 * (lines back to back: a line starts every p->segment_len items, scan_lines_kernel),
 * pscan_segmented_scan (a segment starts at each of p->offsets, scan_segments_kernel) and
 * pscan_scan_by_key (a run starts where a key differs from the one before, scan_keys_kernel).
 * Each item is the pair (a line starts here?, value): a thread reduces its items since its
 * last line start, the block scans the pairs (block_seg_scan: Blelloch's segmented scan,
 * Sengupta et al. 2007), and lines_tile_prefix (lookback.cuh) gives the tile's first item its
 * prefix within its line. A tile holding a line start publishes its inclusive prefix before
 * anything else, so a look-back never walks past the tile where the line began, and a tile that
 * starts a line waits for nobody. Every line starts from init (or the internal identity). Never
 * deterministic: the host keeps float sums and products in DETERMINISTIC mode off these
 * kernels. */

/* Lines back to back: the index among this thread's items (tile items [threadIdx.x *
   ITEMS_TOTAL, + ITEMS_TOTAL)) of their first line start, ITEMS_TOTAL for none; tile_r = the
   tile's start modulo len. */
static __device__ __forceinline__ unsigned TNAME(first_line_start)(unsigned long long len,
                                                                   unsigned long long tile_r) {
  unsigned long long r = tile_r + threadIdx.x * (unsigned long long)TNAME(ITEMS_TOTAL);
  if (len > TILE)
    r = r >= len ? r - len : r;
  else
    r = (unsigned)r % (unsigned)len; /* (tile_r < len <= TILE: 32 bits) */
  const unsigned long long h = r ? len - r : 0;
  return h < TNAME(ITEMS_TOTAL) ? (unsigned)h : TNAME(ITEMS_TOTAL);
}

/* Segments by offsets or keys: the line starts of batch b of this thread's items, one bit each,
   from the tile's bitmap (a batch is at most 16 items, aligned to its size: one word holds it). */
static __device__ __forceinline__ unsigned TNAME(batch_starts)(const unsigned *bitmap, int b) {
  const unsigned at = (threadIdx.x * BATCHES + (unsigned)b) * ITEMS;
  return (bitmap[at / 32] >> (at % 32)) & (ITEMS >= 32 ? ~0u : (1u << ITEMS) - 1u);
}

/* Where this thread's line starts are: by offsets or keys (a constant where inlined), the
   tile's bitmap; else from the first one (head) every step items. */
typedef struct TNAME(starts) {
  bool by_offsets;
  const unsigned *bitmap;
  unsigned head, step;
} TNAME(starts);

/* Walks this thread's items in the registers of batch b: at a line start, ON_START runs; `at`
   is true there. */
#define LINES_FOR_BATCH(st, b, next, mask, at, ON_START, BODY)                                   \
  _Pragma("unroll") for (int i = 0; i < ITEMS; i++) {                                           \
    const bool at = (st).by_offsets ? ((mask) >> i & 1u) != 0 : (unsigned)((b) * ITEMS + i) == (next); \
    if (at && !(st).by_offsets)                                                                 \
      (next) += (st).step;                                                                      \
    if (at) {                                                                                   \
      ON_START;                                                                                 \
    }                                                                                           \
    BODY;                                                                                       \
  }

/* This thread's items reduced since their last line start (line_start: where a line begins);
   *any: whether a line starts among them. */
static __device__ __forceinline__ ACC_T TNAME(lines_thread_total)(const unsigned char *buf,
                                                                  unsigned valid,
                                                                  const TNAME(starts) st,
                                                                  ACC_T line_start, bool *any) {
  ACC_T items[ITEMS];
  ACC_T mine = NAME(identity)();
  unsigned next = st.head, seen = 0;
#pragma unroll
  for (int b = 0; b < BATCHES; b++) {
    TNAME(read_batch)(buf, valid, b, items);
    const unsigned mask = st.by_offsets ? TNAME(batch_starts)(st.bitmap, b) : 0u;
    seen |= mask;
    LINES_FOR_BATCH(st, b, next, mask, at, mine = line_start, mine = NAME(op)(mine, items[i]))
  }
  *any = st.by_offsets ? seen != 0 : st.head < TNAME(ITEMS_TOTAL);
  return mine;
}

/* Scans a tile already in sm->tile (its line starts in st) and stores it. starts_line: the
   tile's first item starts a line (the same for the whole block). */
static __device__ __forceinline__ void TNAME(scan_lines_tile)(const pscan__cuda_scan_params *p,
                                                              TNAME(smem) *sm,
                                                              unsigned long long tile,
                                                              const TNAME(starts) st,
                                                              bool starts_line, ACC_T *running) {
  const unsigned long long start = tile * (unsigned long long)TILE;
  const unsigned valid = TNAME(tile_valid)(p, tile);
  const ACC_T line_start = p->has_init ? NAME(from_bits)((NAME(bits_t))p->init) : NAME(identity)();
  bool mine_any, before_head, total_head;
  ACC_T before, total;
  const ACC_T mine = TNAME(lines_thread_total)(sm->tile, valid, st, line_start, &mine_any);
  NAME(block_seg_scan)(mine_any, mine, sm->scan, sm->warp_heads, &before_head, &before,
                       &total_head, &total);
  const ACC_T e =
      NAME(lines_tile_prefix)(p, &sm->prefix, tile, total_head, total, starts_line, running);
  ACC_T carry = before_head ? before : NAME(op)(e, before);
  /* An exclusive line starts with init, or the API's identity. */
  const ACC_T first_out = p->has_init ? line_start : NAME(api_identity)();
  const bool widen = ACC_SIZE > sizeof(IN_T); /* as in scan_loaded_tile */
  unsigned next = st.head;
  ACC_T items[ITEMS];
#pragma unroll
  for (int b = 0; b < BATCHES; b++) {
    TNAME(read_batch)(sm->tile, valid, b, items);
    const unsigned mask = st.by_offsets ? TNAME(batch_starts)(st.bitmap, b) : 0u;
    LINES_FOR_BATCH(st, b, next, mask, at, , {
      const ACC_T from = at ? line_start : carry; /* (no commas: a macro argument) */
      const ACC_T x = items[i];
      carry = NAME(op)(from, x);
      items[i] = !p->exclusive ? carry : at ? first_out : from;
    })
    if (widen)
      __syncthreads();
    TNAME(write_batch)(sm->tile, b, items);
  }
  __syncthreads();
  TNAME(store_tile)(p, sm->tile, start, valid);
  __syncthreads(); /* the buffer is reused by the next tile (single-block mode) */
}

/* Lines back to back: one tile, loaded. */
static __device__ __forceinline__ void TNAME(lines_tile)(const pscan__cuda_scan_params *p,
                                                         TNAME(smem) *sm, unsigned long long tile,
                                                         ACC_T *running) {
  const unsigned long long len = p->segment_len, tile_r = tile * (unsigned long long)TILE % len;
  const TNAME(starts) st = {false, NULL, TNAME(first_line_start)(len, tile_r),
                            len < TNAME(ITEMS_TOTAL) ? (unsigned)len : TNAME(ITEMS_TOTAL)};
  TNAME(load_tile)(p, sm->tile, tile * (unsigned long long)TILE, TNAME(tile_valid)(p, tile));
  __syncthreads();
  TNAME(scan_lines_tile)(p, sm, tile, st, tile_r == 0, running);
}

/* Segments by offsets or runs of keys (by_keys, a constant): one tile. Its loads are issued,
   then the bitmap of its segment starts is built (common.cuh) or read (head_bits) while they
   are in flight. */
static __device__ __forceinline__ void TNAME(segments_tile)(const pscan__cuda_scan_params *p,
                                                            TNAME(smem) *sm, unsigned *bitmap,
                                                            unsigned long long tile,
                                                            ACC_T *running, bool by_keys) {
  const unsigned long long start = tile * (unsigned long long)TILE;
  const unsigned valid = TNAME(tile_valid)(p, tile);
  TNAME(load_tile_issue)(p, sm->tile, start, valid);
  if (by_keys)
    pscan__key_bitmap(bitmap, TILE / 32, p->keys, p->key_kind, start, start + valid);
  else if (p->head_bits) /* the starts set by the offsets' check (axis_kernels.cu) */
    for (unsigned w = threadIdx.x; w < TILE / 32; w += PSCAN__THREADS)
      bitmap[w] = p->head_bits[start / 32 + w];
  else
    pscan__segment_bitmap(bitmap, TILE / 32, p->offsets, p->num_segments, p->tile_segment[tile],
                          start, start + valid);
  TNAME(load_tile_wait)(p, sm->tile, valid);
  __syncthreads();
  const TNAME(starts) st = {true, bitmap, 0, 0};
  TNAME(scan_lines_tile)(p, sm, tile, st, (bitmap[0] & 1u) != 0, running);
}

/* SEGMENTS: a constant, which kernel this is (0: lines, 1: offsets, 2: keys). */
#define LINES_KERNEL(KERNEL, SEGMENTS)                                                          \
  __global__ void __launch_bounds__(PSCAN__THREADS, TILE_MIN_BLOCKS)                            \
      KERNEL(const pscan__cuda_scan_params p) {                                                 \
    __shared__ TNAME(smem) sm;                                                                  \
    __shared__ unsigned bitmap[SEGMENTS ? TILE / 32 : 1];                                       \
    pscan__wait_for_predecessor();                                                              \
    ACC_T running = NAME(identity)();                                                           \
    const bool single = p.mode == PSCAN__MODE_SINGLE;                                           \
    unsigned long long tile = single ? 0 : TNAME(take_tile)(&p, &sm);                           \
    /* verdict refused: nothing written (after the tile id: the counter moves as planned) */     \
    if ((SEGMENTS) == 1 && p.gate && __ldcg(p.gate) != 0u)                                      \
      return;                                                                                   \
    for (;;) {                                                                                  \
      if (SEGMENTS)                                                                             \
        TNAME(segments_tile)(&p, &sm, bitmap, tile, single ? &running : NULL,                   \
                             (SEGMENTS) == 2);                                                  \
      else                                                                                      \
        TNAME(lines_tile)(&p, &sm, tile, single ? &running : NULL);                             \
      if (!single || ++tile == p.num_tiles)                                                     \
        return;                                                                                 \
    }                                                                                           \
  }
#if !TILE_KEYS_ONLY
LINES_KERNEL(TNAME(scan_lines_kernel), 0)
LINES_KERNEL(TNAME(scan_segments_kernel), 1)
#endif
#if TILE_BY_KEY /* (scan_by_key: no widening) */
LINES_KERNEL(TNAME(scan_keys_kernel), 2)
#endif
#undef LINES_KERNEL
#undef LINES_FOR_BATCH
