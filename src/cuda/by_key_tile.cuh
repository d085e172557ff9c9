/* Include-template: the single-pass kernel of reduce_by_key and scan_by_key (the segmented scan)
 * for one value type and operator; keys of any type (read by size, compared by type at run
 * time). The includer has stamped the value operator under VNAME (scan_ops.cuh), the pair
 * accumulator with the value reduction as x (compact_ops.cuh, CX_BY_KEY) and block_scan.cuh and
 * lookback.cuh under NAME.
 *
 * Each item is the pair (head, value), head = the item starts a run of equal keys; the scan of
 * these pairs under the pair operator gives, at every item, the number of heads so far and the
 * reduction of the values since the last one (Blelloch's segmented scan as an ordinary scan of
 * pairs; Sengupta et al. 2007). A tile of PSCAN__THREADS x 8 items is staged in shared memory
 * (keys and values), each thread reduces its items, the block scans the per-thread pairs and the
 * tile learns its prefix by the scan's decoupled look-back; then each thread walks its items
 * again from its own prefix:
 *  - reduce_by_key: a head closes the run before it (vals_out[r-1] for head r, its key goes to
 *    keys_out[r]); the last tile closes the last run;
 *  - scan_by_key: every item's result goes back over its value in shared memory, and the tile
 *    leaves with coalesced stores (in place is safe: a tile writes only its own range).
 * The first item of a tile compares with the key before the tile, read from global memory
 * (keys are never written). With init, every segment starts from init. */

#define V_T PSCAN__CAT(PSCAN__CTYPE_, VAL)
enum { NAME(ITEMS) = 8, NAME(TILE) = PSCAN__THREADS * NAME(ITEMS) };
#define ITEMS NAME(ITEMS)
#define TILE NAME(TILE)

typedef struct NAME(by_key_smem) {
  __align__(16) unsigned char keys[TILE * 8];
  __align__(16) unsigned char vals[TILE * sizeof(V_T)];
  ACC_T scan[2 * PSCAN__THREADS];
  ACC_T prefix;
  unsigned long long tile_id;
  unsigned long long key_before; /* the bits of the key before the tile */
} NAME(by_key_smem);

/* Bit i: this thread's item i starts a run (items past the end never do). */
static __device__ __forceinline__ unsigned NAME(head_mask)(const pscan__cuda_compact_params *p,
                                                           const NAME(by_key_smem) *sm,
                                                           unsigned long long start,
                                                           unsigned mine) {
  const unsigned first = threadIdx.x * ITEMS, ks = (unsigned)p->key_size;
  unsigned long long prev = threadIdx.x > 0 ? pscan__elem_bits(sm->keys, first - 1, ks)
                                            : sm->key_before;
  unsigned heads = 0;
  for (unsigned i = 0; i < mine; i++) {
    unsigned long long k = pscan__elem_bits(sm->keys, first + i, ks);
    heads |= (pscan__keys_equal(prev, k, p->key_type) ? 0u : 1u) << i;
    prev = k;
  }
  if (start == 0 && threadIdx.x == 0)
    heads |= 1u;
  return heads;
}

static __device__ __forceinline__ V_T NAME(value_at)(const NAME(by_key_smem) *sm, unsigned i) {
  return *(const V_T *)(sm->vals + pscan__swz(i * (unsigned)sizeof(V_T)));
}

/* The result of scan_by_key at an item, from the pair before it (carry) and the one through it. */
static __device__ __forceinline__ V_T NAME(segment_result)(const pscan__cuda_compact_params *p,
                                                           bool head, ACC_T carry, ACC_T through) {
  V_T init;
  memcpy(&init, &p->init, sizeof init);
  if (!p->exclusive)
    return p->has_init ? VNAME(op)(init, through.x) : through.x;
  if (head)
    return p->has_init ? init : VNAME(api_identity)();
  return p->has_init ? VNAME(op)(init, carry.x) : carry.x;
}

static __device__ void NAME(by_key_tile)(const pscan__cuda_compact_params *p,
                                         NAME(by_key_smem) *sm, unsigned long long tile,
                                         ACC_T *running) {
  const unsigned long long n = p->lb.n, start = tile * (unsigned long long)TILE;
  const unsigned valid = n - start < (unsigned long long)TILE ? (unsigned)(n - start) : TILE;
  const unsigned first = threadIdx.x * ITEMS;
  const unsigned mine = valid > first ? (valid - first < ITEMS ? valid - first : ITEMS) : 0;
  const unsigned ks = (unsigned)p->key_size;
  const bool scan = p->kind == PSCAN__COMPACT_SCAN_BY_KEY;
  /* 1. Read the tile's keys and values (and the key before the tile) once. */
  pscan__stage(sm->keys, p->in, start, valid, ks, p->keys_vector_io && valid == TILE);
  pscan__stage(sm->vals, p->vals_in, start, valid, sizeof(V_T), p->vals_vector_io && valid == TILE);
  if (threadIdx.x == 0 && start > 0)
    sm->key_before = pscan__load_bits(p->in, start - 1, ks);
  __syncthreads();
  const unsigned heads = NAME(head_mask)(p, sm, start, mine);
  V_T vals[ITEMS];
  ACC_T agg = NAME(identity)();
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    vals[i] = (unsigned)i < mine ? NAME(value_at)(sm, first + i) : CX_IDENTITY();
    agg = NAME(op)(agg, NAME(make)(heads >> i & 1u, vals[i]));
  }
  /* 2. Prefixes: the thread's within the tile, the tile's by look-back. */
  ACC_T before, total;
  NAME(block_scan)(PSCAN_BLOCK_WARP_SCANS, agg, sm->scan, &before, &total);
  const ACC_T tile_before = NAME(tile_prefix)(&p->lb, &sm->prefix, sm->scan, tile, total, running);
  /* 3. Walk the items again from the thread's prefix. */
  ACC_T carry = NAME(op)(tile_before, before);
#pragma unroll
  for (unsigned i = 0; i < ITEMS; i++) {
    if (i >= mine)
      break;
    const bool head = heads >> i & 1u;
    const ACC_T through = NAME(op)(carry, NAME(make)(head, vals[i]));
    if (scan) {
      *(V_T *)(sm->vals + pscan__swz((first + i) * (unsigned)sizeof(V_T))) =
          NAME(segment_result)(p, head, carry, through);
    } else if (head) {
      if (carry.count > 0)
        ((V_T *)p->vals_out)[carry.count - 1] = carry.x;
      pscan__store_bits(p->out, carry.count, ks, pscan__elem_bits(sm->keys, first + i, ks));
    }
    carry = through;
  }
  if (scan) {
    __syncthreads();
    pscan__unstage(p->vals_out, sm->vals, start, valid, sizeof(V_T),
                   p->vals_vector_io && valid == TILE);
  } else if (tile == p->lb.num_tiles - 1 && threadIdx.x == 0) {
    const ACC_T through = NAME(op)(tile_before, total);
    ((V_T *)p->vals_out)[through.count - 1] = through.x;
    *p->count_out = through.count;
  }
  __syncthreads(); /* the buffers are reused by the next tile (single-block mode) */
}

__global__ void __launch_bounds__(PSCAN__THREADS)
    NAME(by_key_kernel)(const pscan__cuda_compact_params p) {
  __shared__ NAME(by_key_smem) sm;
  if (p.lb.mode == PSCAN__MODE_SINGLE) {
    ACC_T running = NAME(identity)();
    for (unsigned long long tile = 0; tile < p.lb.num_tiles; tile++)
      NAME(by_key_tile)(&p, &sm, tile, &running);
    return;
  }
  NAME(by_key_tile)(&p, &sm, pscan__compact_tile_id(&p.lb, &sm.tile_id), NULL);
}

static int NAME(launch_by_key)(const pscan__cuda_compact_params *p, uint64_t grid, void *stream) {
  NAME(by_key_kernel)<<<(unsigned)grid, PSCAN__THREADS, 0, (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}

#undef ITEMS
#undef TILE
#undef V_T
