/* The user operator's scan (NVRTC only): user_tile.cuh's tiles, the accumulator of user_ops.cuh
 * in the block scan and the look-back. */

typedef struct pscan_user_smem {
  __align__(16) unsigned char tile[PU_TILE_BYTES];
  pscan_user_acc scan[32];  /* the block scan's warp totals; the look-back's window */
  pscan_user_acc prefix;
  unsigned long long tile_id;
} pscan_user_smem;


/* The combination of this thread's first `count` items (count is PU_ITEMS_TOTAL in a full tile,
   a constant where inlined). */
static __device__ __forceinline__ pscan_user_acc pu_thread_total(const unsigned char *buf,
                                                                 unsigned count) {
  pscan_user_t items[PU_ITEMS], acc;
  bool has = false;
  PU_FOR_ITEMS(buf, count, items, , {
    acc = has ? pscan_user_combine(acc, items[i]) : items[i];
    has = true;
  })
  pscan_user_acc r = NAME(identity)();
  if (has)
    r = NAME(make)(acc);
  return r;
}

/* Rescans this thread's first `count` items in place from carry. first: out[0] of an exclusive
   scan without init (only the tile's first item with no carry can need it). */
static __device__ __forceinline__ void pu_rescan(unsigned char *buf, unsigned count,
                                                 pscan_user_acc carry, int exclusive,
                                                 const pscan_user_t *first) {
  pscan_user_t items[PU_ITEMS], c = carry.v;
  bool has = NAME(has)(carry);
  PU_FOR_ITEMS(buf, count, items, pu_write_batch(buf, b, items);, {
    const pscan_user_t x = items[i];
    const pscan_user_t next = has ? pscan_user_combine(c, x) : x;
    items[i] = exclusive ? (has ? c : *first) : next;
    c = next;
    has = true;
  })
}

static __device__ __forceinline__ void pu_scan_body(const pscan_user_params *up, pscan_user_smem *sm,
                                                    const bool ordered) {
  const pscan__cuda_scan_params *p = &up->base;
  const unsigned long long tile = pu_take_tile(p, &sm->tile_id);
  const unsigned valid = pu_tile_valid(p, tile);
  pu_load_tile(p, sm->tile, tile, valid);
  __syncthreads();
  const bool full = valid == PU_TILE;
  const unsigned count = pscan__thread_items(valid, threadIdx.x * PU_ITEMS_TOTAL, PU_ITEMS_TOTAL);
  pscan_user_acc mine = full ? pu_thread_total(sm->tile, PU_ITEMS_TOTAL)
                             : pu_thread_total(sm->tile, count);
  pscan_user_acc before, total;
  NAME(block_warp_scans)(mine, sm->scan, &before, &total);
  pscan_user_acc carry =
      NAME(op)(NAME(tile_prefix)(p, &sm->prefix, sm->scan, tile, total, NULL, ordered), before);
  pscan_user_t value;
  memcpy(&value, up->value, PU_SIZE);
  if (up->flags & PU_HAS_INIT)
    carry = NAME(op)(NAME(make)(value), carry);
  if (full)
    pu_rescan(sm->tile, PU_ITEMS_TOTAL, carry, p->exclusive, &value);
  else
    pu_rescan(sm->tile, count, carry, p->exclusive, &value);
  __syncthreads();
  pu_store_tile(p, sm->tile, tile, valid);
}

/* Lines back to back (pscan_scan_axis along a contiguous last axis; PSCAN_USER_LINES): every
   line in one launch, a line starting every p->segment_len items, as the built-in
   scan_lines_kernel (scan/tile_lines.cuh, which says how): each line starts from init (or the
   adjoined identity), a tile holding a line start publishes its inclusive prefix at once. */
static __device__ __forceinline__ void pu_lines_body(const pscan_user_params *up,
                                                     pscan_user_smem *sm, unsigned *warp_heads) {
  const pscan__cuda_scan_params *p = &up->base;
  const unsigned long long tile = pu_take_tile(p, &sm->tile_id);
  const unsigned valid = pu_tile_valid(p, tile);
  pu_load_tile(p, sm->tile, tile, valid);
  __syncthreads();
  const unsigned count = pscan__thread_items(valid, threadIdx.x * PU_ITEMS_TOTAL, PU_ITEMS_TOTAL);
  /* this thread's first line start and the step to the next (as first_line_start) */
  const unsigned long long len = p->segment_len, tile_r = tile * (unsigned long long)PU_TILE % len;
  unsigned long long r = tile_r + threadIdx.x * (unsigned long long)PU_ITEMS_TOTAL;
  r = len > PU_TILE ? (r >= len ? r - len : r) : (unsigned)r % (unsigned)len;
  const unsigned head = r == 0 ? 0u : len - r < PU_ITEMS_TOTAL ? (unsigned)(len - r) : PU_ITEMS_TOTAL;
  const unsigned step = len < PU_ITEMS_TOTAL ? (unsigned)len : PU_ITEMS_TOTAL;
  const bool has_init = (up->flags & PU_HAS_INIT) != 0;
  pscan_user_t value; /* init, or the identity that an exclusive line starts with */
  memcpy(&value, up->value, PU_SIZE);
  pscan_user_t items[PU_ITEMS], c;
  bool has = false;
  unsigned next = head;
  PU_FOR_ITEMS(sm->tile, count, items, , {
    if (k == next) {
      has = has_init;
      c = value;
      next += step;
    }
    c = has ? pscan_user_combine(c, items[i]) : items[i];
    has = true;
  })
  pscan_user_acc mine = NAME(identity)(), before, total;
  if (has)
    mine = NAME(make)(c);
  bool before_head, total_head;
  NAME(block_seg_scan)(head < count, mine, sm->scan, warp_heads, &before_head, &before,
                       &total_head, &total);
  const pscan_user_acc e =
      NAME(lines_tile_prefix)(p, &sm->prefix, tile, total_head, total, tile_r == 0, NULL);
  const pscan_user_acc carry = before_head ? before : NAME(op)(e, before);
  c = carry.v;
  has = NAME(has)(carry);
  next = head;
  PU_FOR_ITEMS(sm->tile, count, items, pu_write_batch(sm->tile, b, items);, {
    if (k == next) {
      has = has_init;
      c = value;
      next += step;
    }
    const pscan_user_t x = items[i];
    const pscan_user_t through = has ? pscan_user_combine(c, x) : x;
    items[i] = p->exclusive ? (has ? c : value) : through;
    c = through;
    has = true;
  })
  __syncthreads();
  pu_store_tile(p, sm->tile, tile, valid);
}

/* pscan_reduce_op's first pass (as the built-in reduce_kernel, tile_scan.cuh): block b reduces
   tile b (never empty) into element b of p->out; the host reduces those with the scan. */
static __device__ __forceinline__ void pu_reduce_body(const pscan_user_params *up,
                                                      pscan_user_smem *sm) {
  const pscan__cuda_scan_params *p = &up->base;
  const unsigned long long tile = blockIdx.x;
  const unsigned valid = pu_tile_valid(p, tile);
  pu_load_tile(p, sm->tile, tile, valid);
  __syncthreads();
  const unsigned count = pscan__thread_items(valid, threadIdx.x * PU_ITEMS_TOTAL, PU_ITEMS_TOTAL);
  pscan_user_acc mine = valid == PU_TILE ? pu_thread_total(sm->tile, PU_ITEMS_TOTAL)
                                         : pu_thread_total(sm->tile, count);
  /* (block_warp_scans, not block_reduce: that tree combines lanes out of order, which only the
     built-in operators, all commutative, may do) */
  pscan_user_acc before, total;
  NAME(block_warp_scans)(mine, sm->scan, &before, &total);
  if (threadIdx.x == 0)
    memcpy((unsigned char *)p->out + tile * PU_SIZE, &total.v, PU_SIZE);
}

/* One kernel per program, so that a cold compile builds only what the call needs: the plain
   kernel, with PSCAN_USER_ORDERED (deterministic mode, compiled on its first use) the one with
   the ordered look-back (lookback.cuh), whose results do not depend on timing, with
   PSCAN_USER_LINES (compiled on the first axis scan of lines back to back) pu_lines_body, or with
   PSCAN_USER_REDUCE (on the first pscan_reduce_op) pu_reduce_body, or with PSCAN_USER_BY_KEY
   (on the first pscan_scan_by_key_op) user_by_key.cuh's. */
#if PSCAN_USER_REDUCE
extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_reduce(const pscan_user_params up) {
  __shared__ pscan_user_smem sm;
  pscan__wait_for_predecessor();
  pu_reduce_body(&up, &sm);
}
#elif PSCAN_USER_BY_KEY
/* (user_by_key.cuh's kernel) */
#elif PSCAN_USER_LINES
extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_scan_lines(const pscan_user_params up) {
  __shared__ pscan_user_smem sm;
  __shared__ unsigned warp_heads[PSCAN__WARPS];
  pscan__wait_for_predecessor();
  pu_lines_body(&up, &sm, warp_heads);
}
#else
#if PSCAN_USER_ORDERED
#define PU_SCAN_KERNEL pscan_user_scan_ordered
#else
#define PU_SCAN_KERNEL pscan_user_scan
#endif
extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    PU_SCAN_KERNEL(const pscan_user_params up) {
  __shared__ pscan_user_smem sm;
  pscan__wait_for_predecessor();
  pu_scan_body(&up, &sm, PSCAN_USER_ORDERED != 0);
}
#endif
