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
  bool has = carry.has != 0;
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

/* One kernel per program, so that a cold compile builds only what the call needs: the plain
   kernel, or with PSCAN_USER_ORDERED (deterministic mode, compiled on its first use) the one with
   the ordered look-back (lookback.cuh), whose results do not depend on timing. */
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
