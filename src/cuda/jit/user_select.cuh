/* The user predicate's select and partition (NVRTC only): user_tile.cuh's tiles; each thread
 * marks and counts the items it keeps, the block scans the counts, and warp 0 finds the count
 * kept before the tile by the built-in decoupled look-back over a 64-bit sum (scan_ops.cuh's
 * U64 SUM stamp, CNAME). Kept items go to out[kept before them], in order; a partition puts the
 * rejected ones at out[n - 1 - rejected before them] (from the back, in reverse order).
 *
 * In place (out == in, select only) is safe in one pass: a tile publishes its count only once its
 * whole input is in shared memory, and writes only after every predecessor has published, to
 * positions below the end of its own input. */
#define CNAME(f) PSCAN__NAME5(f, U64, U64, SUM)

typedef struct pscan_user_select_smem {
  __align__(16) unsigned char tile[PU_TILE_BYTES];
  unsigned long long scan[32]; /* the block scan's warp totals */
  unsigned long long prefix;
  unsigned long long tile_id;
} pscan_user_select_smem;

/* Marks this thread's first `count` items that the predicate keeps; returns how many. */
static __device__ __forceinline__ unsigned pu_mark(const unsigned char *buf, unsigned count,
                                                   unsigned mask[PU_MASK_WORDS]) {
  pscan_user_t items[PU_ITEMS];
  unsigned kept = 0;
#pragma unroll
  for (int w = 0; w < PU_MASK_WORDS; w++)
    mask[w] = 0;
  PU_FOR_ITEMS(buf, count, items, , {
    if (pscan_user_keep(items[i])) {
      mask[k / 32] |= 1u << (k % 32);
      kept++;
    }
  })
  return kept;
}

extern "C" __global__ void __launch_bounds__(PSCAN__THREADS, PU_MIN_BLOCKS)
    pscan_user_select(const pscan_user_params up) {
  __shared__ pscan_user_select_smem sm;
  pscan__wait_for_predecessor();
  const pscan__cuda_scan_params *p = &up.base;
  const unsigned long long tile = pu_take_tile(p, &sm.tile_id);
  const unsigned valid = pu_tile_valid(p, tile);
  pu_load_tile(p, sm.tile, tile, valid);
  __syncthreads();
  const unsigned count = pscan__thread_items(valid, threadIdx.x * PU_ITEMS_TOTAL, PU_ITEMS_TOTAL);
  unsigned mask[PU_MASK_WORDS];
  const unsigned kept = valid == PU_TILE ? pu_mark(sm.tile, PU_ITEMS_TOTAL, mask)
                                         : pu_mark(sm.tile, count, mask);
  unsigned long long before, total;
  CNAME(block_warp_scans)((unsigned long long)kept, sm.scan, &before, &total);
  const unsigned long long prefix =
      CNAME(tile_prefix)(p, &sm.prefix, sm.scan, tile, total, NULL, false);
  unsigned long long pos = prefix + before; /* kept before this thread's next item */
  const unsigned long long first = tile * PU_TILE + threadIdx.x * PU_ITEMS_TOTAL;
  const bool partition = (up.flags & PU_PARTITION) != 0;
  unsigned char *out = (unsigned char *)p->out;
  const unsigned u = pu_unit_of((unsigned long long)out, PU_SIZE);
  pscan_user_t items[PU_ITEMS];
#pragma unroll 1
  for (int b = 0; b < PU_BATCHES; b++) {
    if ((unsigned)(b * PU_ITEMS) >= count)
      break;
    pu_read_batch(sm.tile, b, items);
#pragma unroll
    for (int i = 0; i < PU_ITEMS; i++) {
      const unsigned k = b * PU_ITEMS + i;
      if (k >= count)
        break;
      unsigned long long dst;
      if (mask[k / 32] >> (k % 32) & 1u)
        dst = pos++;
      else if (partition)
        dst = p->n - 1 - (first + k - pos);
      else
        continue;
      pu_store_item(out + dst * PU_SIZE, &items[i], u);
    }
  }
  if (tile == p->num_tiles - 1 && threadIdx.x == 0)
    *up.count_out = prefix + total;
}
#undef CNAME
