/* Tiles of user elements (NVRTC only; user_kernels.cuh includes this after the shared headers),
 * for the single-pass scan (user_scan.cuh) and the predicate select / partition
 * (user_select.cuh), both by decoupled look-back. The tile pipeline is
 * the built-in one (tile_scan.cuh): the whole tile goes to shared memory with 16-byte cp.async
 * copies (swizzled), each thread reduces its consecutive items, the block scans the thread totals
 * (block_scan.cuh, warp scans), warp 0 finds the tile's prefix (lookback.cuh), the threads rescan
 * their items in place and the tile leaves with 16-byte streaming stores. What differs is the
 * element: any size, moved as raw bytes.
 *
 * A thread reads its items out of shared memory in 16-byte chunks when a batch of them fills
 * whole chunks within 64 bytes (1-4, 6, 8, 12, 16, 24, 32, 48 and 64-byte elements: 8-byte
 * elements move as 2 per chunk, 16-byte ones 1 per chunk), else unit by unit, the unit being the
 * largest power of two up to 16 that divides the size. Tiles hold about 32 KB; elements of up to
 * 128 bytes fit (jit_cuda.c refuses larger ones). Data movement: n reads + n writes, as the
 * built-ins. */

enum {
  PU_SIZE = PSCAN_USER_SIZE,
  PU_UNIT = (PU_SIZE & -PU_SIZE) > 16 ? 16 : (PU_SIZE & -PU_SIZE),
  PU_PER_CHUNKS = 16 / PU_UNIT, /* items that fill whole 16-byte chunks */
  PU_CHUNKED = PU_PER_CHUNKS * PU_SIZE <= 64,
  PU_RAW = 64 / PU_SIZE > 16 ? 16 : 64 / PU_SIZE,
  PU_ITEMS = PU_CHUNKED ? (PU_RAW / PU_PER_CHUNKS > 1 ? PU_RAW / PU_PER_CHUNKS : 1) * PU_PER_CHUNKS
                        : (PU_RAW > 1 ? PU_RAW : 1),
  PU_BATCHES = 128 / (PU_ITEMS * PU_SIZE) > 1 ? 128 / (PU_ITEMS * PU_SIZE) : 1,
  PU_ITEMS_TOTAL = PU_ITEMS * PU_BATCHES,
  PU_TILE = PSCAN__THREADS * PU_ITEMS_TOTAL,
  PU_TILE_BYTES = PU_TILE * PU_SIZE,
  PU_TILE_CHUNKS = PU_TILE_BYTES / 16,
  PU_BATCH_CHUNKS = PU_CHUNKED ? PU_ITEMS * PU_SIZE / 16 : 1,
  /* resident blocks the register bound is set for: 6 for small elements (as the built-in 4-byte
     scans), fewer as elements grow */
  PU_MIN_BLOCKS = PU_SIZE <= 4 ? PSCAN__MIN_BLOCKS_HIGH : PU_SIZE <= 16 ? PSCAN__MIN_BLOCKS
                  : PU_SIZE <= 32 ? 3 : 2
};
/* Words of a bitmask with one bit per item of a thread (kept items, run heads). */
enum { PU_MASK_WORDS = (PU_ITEMS_TOTAL + 31) / 32 };
/* The host's view of the same (jit_source.c defines these from its own arithmetic and types). */
static_assert(PU_TILE == PSCAN_USER_TILE_ITEMS, "user_tile.cuh and jit_source.c disagree on tiles");
static_assert(sizeof(pscan__cuda_scan_params) == PSCAN_USER_BASE_BYTES,
              "NVRTC and the host disagree on pscan__cuda_scan_params");

/* The launch parameters: the shared scan parameters first (base.has_init is always 0), then this
   kernel's own. jit_cuda.c lays out the same bytes: flags at sizeof(base), then a word each for
   count_out, keys, keys_out and count_words, then value. */
typedef struct pscan_user_params {
  pscan__cuda_scan_params base;
  unsigned long long flags;       /* PU_HAS_INIT, PU_HAS_FIRST, PU_PARTITION; the key's kind */
  unsigned long long *count_out;  /* select, reduce by key: the number kept, the runs */
  const void *keys;               /* by key (user_by_key.cuh): the keys, */
  void *keys_out;                 /* reduce by key: each run's key, */
  void *count_words;              /* and the run counts' tile status (agg, then incl) */
  unsigned char value[PSCAN_USER_ELEM_SIZE]; /* scan: the init, or out[0] of an exclusive scan */
} pscan_user_params;
enum { PU_HAS_INIT = 1, PU_HAS_FIRST = 2, PU_PARTITION = 4 };

/* ---- moving bytes ---- */

/* One unit of u bytes (u a power of two up to 16, both addresses aligned to it). */
static __device__ __forceinline__ void pu_move(unsigned char *dst, const unsigned char *src,
                                               unsigned u) {
  switch (u) {
  case 16: *(uint4 *)dst = *(const uint4 *)src; break;
  case 8: *(uint2 *)dst = *(const uint2 *)src; break;
  case 4: *(unsigned *)dst = *(const unsigned *)src; break;
  case 2: *(unsigned short *)dst = *(const unsigned short *)src; break;
  default: *dst = *src; break;
  }
}

/* One element to global memory at g, in units of u bytes. */
static __device__ __forceinline__ void pu_store_item(unsigned char *g, const pscan_user_t *x,
                                                     unsigned u) {
  unsigned char bytes[PU_SIZE];
  memcpy(bytes, x, PU_SIZE);
  for (unsigned w = 0; w < (unsigned)PU_SIZE; w += u)
    pu_move(g + w, bytes + w, u);
}

/* The largest power of two up to 16 dividing both a and b. */
static __device__ __forceinline__ unsigned pu_unit_of(unsigned long long a, unsigned long long b) {
  unsigned long long x = a | b | 16;
  return (unsigned)(x & (~x + 1));
}

/* Global -> shared (swizzled) for `bytes` bytes from g, the tile's first byte. */
static __device__ void pu_gather(unsigned char *buf, const unsigned char *g, unsigned bytes) {
  const unsigned u = pu_unit_of((unsigned long long)g, bytes);
  for (unsigned i = threadIdx.x * u; i < bytes; i += PSCAN__THREADS * u)
    pu_move(buf + pscan__swz(i), g + i, u);
}
/* Shared -> global, the reverse. */
static __device__ void pu_scatter(unsigned char *g, const unsigned char *buf, unsigned bytes) {
  const unsigned u = pu_unit_of((unsigned long long)g, bytes);
  for (unsigned i = threadIdx.x * u; i < bytes; i += PSCAN__THREADS * u)
    pu_move(g + i, buf + pscan__swz(i), u);
}

/* One unit global -> shared, asynchronously where cp.async copies its size (4, 8 or 16 bytes;
   pscan__cp_async_wait_all() waits for them). */
static __device__ __forceinline__ void pu_move_async(unsigned char *dst, const unsigned char *src,
                                                     unsigned u) {
  if (u >= 4)
    pscan__cp_async_unit(dst, src, u);
  else
    pu_move(dst, src, u);
}

/* Mirrored (p->mirror, a reversed view): item j at g - j x PU_SIZE, its bytes ascending; moved
   item by item, unit by unit (asynchronously, so a thread's copies are in flight together), so
   the tile in shared memory is in scan order. */
static __device__ void pu_gather_mirrored(unsigned char *buf, const unsigned char *g,
                                          unsigned items) {
  const unsigned u = pu_unit_of((unsigned long long)g, PU_SIZE), per = PU_SIZE / u;
  for (unsigned q = threadIdx.x; q < items * per; q += PSCAN__THREADS) {
    const unsigned j = q / per, w = (q - j * per) * u;
    pu_move_async(buf + pscan__swz(j * PU_SIZE + w), g - (size_t)j * PU_SIZE + w, u);
  }
  pscan__cp_async_commit();
  pscan__cp_async_wait_all();
}
static __device__ void pu_scatter_mirrored(unsigned char *g, const unsigned char *buf,
                                           unsigned items) {
  const unsigned u = pu_unit_of((unsigned long long)g, PU_SIZE), per = PU_SIZE / u;
  for (unsigned q = threadIdx.x; q < items * per; q += PSCAN__THREADS) {
    const unsigned j = q / per, w = (q - j * per) * u;
    pu_move(g - (size_t)j * PU_SIZE + w, buf + pscan__swz(j * PU_SIZE + w), u);
  }
}

/* A whole mirrored tile whose span lies in aligned 16-byte chunks (p->mirror_vec; elements of
   1, 2, 4 or 8 bytes) moves as the built-in tiles move it (common.cuh: pscan__mirror_chunks_*). */
enum { PU_MIRROR_CHUNKS = PU_SIZE < 16 && 16 % PU_SIZE == 0 };

static __device__ __forceinline__ unsigned pu_tile_valid(const pscan__cuda_scan_params *p,
                                                         unsigned long long tile) {
  return pscan__tile_items(p->n, tile * (unsigned long long)PU_TILE, PU_TILE);
}

static __device__ __forceinline__ void pu_load_tile(const pscan__cuda_scan_params *p,
                                                    unsigned char *buf, unsigned long long tile,
                                                    unsigned valid) {
  const unsigned char *g = (const unsigned char *)p->in + tile * (unsigned long long)PU_TILE_BYTES;
  if (p->mirror) {
    const unsigned char *top =
        (const unsigned char *)p->in - tile * (unsigned long long)PU_TILE_BYTES;
    if (PU_MIRROR_CHUNKS && p->mirror_vec && valid == PU_TILE) {
      pscan__mirror_chunks_issue(buf, (const uint4 *)(top + PU_SIZE - PU_TILE_BYTES),
                                 PU_TILE_CHUNKS);
      pscan__cp_async_commit();
      pscan__cp_async_wait_all();
      pscan__mirror_chunks_order(buf, PU_TILE_CHUNKS, PU_SIZE);
    } else
      pu_gather_mirrored(buf, top, valid);
  } else if (p->vector_io && valid == PU_TILE) {
#pragma unroll
    for (int v = 0; v < (PU_TILE_CHUNKS + PSCAN__THREADS - 1) / PSCAN__THREADS; v++) {
      const unsigned c = threadIdx.x + v * PSCAN__THREADS;
      if (PU_TILE_CHUNKS % PSCAN__THREADS == 0 || c < PU_TILE_CHUNKS)
        pscan__cp_async16(buf + pscan__swz(c * 16), g + 16 * c);
    }
    pscan__cp_async_commit();
    pscan__cp_async_wait_all();
  } else {
    pu_gather(buf, g, valid * PU_SIZE);
  }
}

static __device__ __forceinline__ void pu_store_tile(const pscan__cuda_scan_params *p,
                                                     const unsigned char *buf,
                                                     unsigned long long tile, unsigned valid) {
  unsigned char *g = (unsigned char *)p->out + tile * (unsigned long long)PU_TILE_BYTES;
  if (p->mirror) {
    unsigned char *top = (unsigned char *)p->out - tile * (unsigned long long)PU_TILE_BYTES;
    if (PU_MIRROR_CHUNKS && p->mirror_vec && valid == PU_TILE)
      pscan__mirror_chunks_store((uint4 *)(top + PU_SIZE - PU_TILE_BYTES), buf, PU_TILE_CHUNKS,
                                 PU_SIZE);
    else
      pu_scatter_mirrored(top, buf, valid);
  } else if (p->vector_io && valid == PU_TILE) {
#pragma unroll
    for (int v = 0; v < (PU_TILE_CHUNKS + PSCAN__THREADS - 1) / PSCAN__THREADS; v++) {
      const unsigned c = threadIdx.x + v * PSCAN__THREADS;
      if (PU_TILE_CHUNKS % PSCAN__THREADS == 0 || c < PU_TILE_CHUNKS)
        pscan__st_stream16((uint4 *)(g + 16 * c), *(const uint4 *)(buf + pscan__swz(c * 16)));
    }
  } else {
    pu_scatter(g, buf, valid * PU_SIZE);
  }
}

/* Runs the statements ON_ITEM on each of this thread's first `count` items in order, read from
   buf a batch of PU_ITEMS at a time into items[] (i: the item's index in the batch, k: in the
   thread), then the statements AFTER_BATCH (b: the batch; empty for none). */
#define PU_FOR_ITEMS(buf, count, items, AFTER_BATCH, ...)                                        \
  _Pragma("unroll") for (int b = 0; b < PU_BATCHES; b++) {                                       \
    if ((unsigned)(b * PU_ITEMS) >= (count))                                                     \
      break;                                                                                     \
    pu_read_batch(buf, b, items);                                                                \
    _Pragma("unroll") for (int i = 0; i < PU_ITEMS; i++) {                                       \
      const unsigned k = b * PU_ITEMS + i;                                                       \
      (void)k;                                                                                   \
      if (k < (count)) {                                                                         \
        __VA_ARGS__                                                                              \
      }                                                                                          \
    }                                                                                            \
    AFTER_BATCH                                                                                  \
  }

/* Shared -> batch b of this thread's items (its items are consecutive, from item
   threadIdx.x * PU_ITEMS_TOTAL of the tile). */
static __device__ __forceinline__ void pu_read_batch(const unsigned char *buf, int b,
                                                     pscan_user_t items[PU_ITEMS]) {
  const unsigned first = (threadIdx.x * PU_ITEMS_TOTAL + b * PU_ITEMS) * PU_SIZE;
  if (PU_CHUNKED) {
    uint4 raw[PU_BATCH_CHUNKS];
#pragma unroll
    for (int q = 0; q < PU_BATCH_CHUNKS; q++)
      raw[q] = *(const uint4 *)(buf + pscan__swz(first + 16 * q));
#pragma unroll
    for (int k = 0; k < PU_ITEMS; k++)
      memcpy(&items[k], (const unsigned char *)raw + k * PU_SIZE, PU_SIZE);
  } else {
#pragma unroll
    for (int k = 0; k < PU_ITEMS; k++) {
      unsigned char bytes[PU_SIZE];
#pragma unroll
      for (int w = 0; w < PU_SIZE / PU_UNIT; w++)
        pu_move(bytes + w * PU_UNIT, buf + pscan__swz(first + k * PU_SIZE + w * PU_UNIT), PU_UNIT);
      memcpy(&items[k], bytes, PU_SIZE);
    }
  }
}

/* Batch b of this thread's results -> shared, over its input. */
static __device__ __forceinline__ void pu_write_batch(unsigned char *buf, int b,
                                                      const pscan_user_t items[PU_ITEMS]) {
  const unsigned first = (threadIdx.x * PU_ITEMS_TOTAL + b * PU_ITEMS) * PU_SIZE;
  if (PU_CHUNKED) {
    uint4 raw[PU_BATCH_CHUNKS];
#pragma unroll
    for (int k = 0; k < PU_ITEMS; k++)
      memcpy((unsigned char *)raw + k * PU_SIZE, &items[k], PU_SIZE);
#pragma unroll
    for (int q = 0; q < PU_BATCH_CHUNKS; q++)
      *(uint4 *)(buf + pscan__swz(first + 16 * q)) = raw[q];
  } else {
#pragma unroll
    for (int k = 0; k < PU_ITEMS; k++) {
      unsigned char bytes[PU_SIZE];
      memcpy(bytes, &items[k], PU_SIZE);
#pragma unroll
      for (int w = 0; w < PU_SIZE / PU_UNIT; w++)
        pu_move(buf + pscan__swz(first + k * PU_SIZE + w * PU_UNIT), bytes + w * PU_UNIT, PU_UNIT);
    }
  }
}

/* The tile this block scans: from the counter (launch order), or its index in one-tile grids. */
static __device__ __forceinline__ unsigned long long pu_take_tile(const pscan__cuda_scan_params *p,
                                                                  unsigned long long *slot) {
  if (p->num_tiles == 1)
    return 0;
  if (threadIdx.x == 0) {
    pscan__stagger_first_wave(p);
    const unsigned long long guess = blockIdx.x;
    if (p->vector_io && (guess + 1) * PU_TILE <= p->n) /* the likely tile (common.cuh) */
      pscan__prefetch_l2((const unsigned char *)p->in + guess * PU_TILE_BYTES, PU_TILE_BYTES);
    else if (p->mirror && (guess + 1) * PU_TILE <= p->n) /* its span, widened to 16 bytes */
      pscan__prefetch_l2_span((const unsigned char *)p->in + PU_SIZE -
                                  (guess + 1) * (unsigned long long)PU_TILE_BYTES,
                              PU_TILE_BYTES);
    *slot = atomicAdd(p->tile_counter, 1ull) - p->tile_base;
  }
  __syncthreads();
  return *slot;
}

