/* Device-side helpers shared by every stamped kernel: type tables, the shared-memory swizzle,
 * status-word publication and backoff. CUDA C: no templates, no classes. */
#ifndef PSCAN_CUDA_COMMON_CUH
#define PSCAN_CUDA_COMMON_CUH

/* Under NVRTC (the user-operator kernels, cuda/jit/) there are no host headers: the compiler's
   built-ins stand in for cuda_runtime.h and jit_source.c supplies stdint.h and string.h. */
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif
#include <stdint.h>
#include <string.h>

#include "../kernel_types.h"
#include "launch.h"
#include "pscan.h"

#define PSCAN__NAME5_(f, a, b, c) f##_##a##_##b##_##c
#define PSCAN__NAME5(f, a, b, c) PSCAN__NAME5_(f, a, b, c)

/* Publishes the launcher table NAME_<PAIR_IN>_<PAIR_OUT>_table[PSCAN_OP_COUNT] of one (input,
   output) pair of the generated units (src/cuda/gen/): ENTRY(op) for each operator stamped for
   the pair, an empty entry for one it does not offer (bitwise operators on floats). The units
   define PAIR_IN, PAIR_OUT and PAIR_OPS(X, N), which lists every operator in PSCAN_OPS order as
   X(op) or N(op). */
#define PSCAN__PAIR_NONE(OPX) {},
#define PSCAN__PAIR_TABLE(TYPE, NAME, ENTRY)                                                     \
  extern "C" const TYPE PSCAN__NAME5(NAME, PAIR_IN, PAIR_OUT, table)[PSCAN_OP_COUNT] = {         \
      PAIR_OPS(ENTRY, PSCAN__PAIR_NONE)};

#define PSCAN__THREADS 256
/* Measured constants (docs/PERFORMANCE.md, "Knobs: environment variables and compile-time
   switches", which records the values that lost): bytes of a tile per thread; the register
   bound (PSCAN__MIN_BLOCKS) is in launch.h, which the host code reads too. */
#define PSCAN__THREAD_BYTES 128
/* ... and of a small tile (stamp.cuh), at least 16. */
#define PSCAN__SMALL_THREAD_BYTES 32
#define PSCAN__WARPS (PSCAN__THREADS / 32)
#define PSCAN__FULL_MASK 0xffffffffu

/* Byte offset inside a tile buffer -> swizzled offset. 16-byte chunks are XOR-permuted within
   each 128-byte row so that both the striped copies to and from global memory and each thread's
   read of its own consecutive chunks are free of bank conflicts. */
static __device__ __forceinline__ unsigned pscan__swz(unsigned byte_off) {
  unsigned c = byte_off >> 4;
  return ((c ^ ((c >> 3) & 7u)) << 4) | (byte_off & 15u);
}

/* 8-bit sums (tile_scan.cuh's packed scan): a word of four items b0..b3 scanned from carry c
   (a byte; the next carry is left there) in two 16-bit lanes: with e = [b0 | b2] and t = [b0+b1 |
   b2+b3], even = [c+b0 | c+b0+b1+b2] and odd = [c+b0+b1 | c+b0+b1+b2+b3] hold the four results in
   their lanes' low bytes. No lane exceeds 1,020, so no carry crosses a lane. Exclusive: the
   results shifted up by one item, c first. */
static __device__ __forceinline__ unsigned pscan__scan_word8(unsigned x, unsigned *carry,
                                                             bool exclusive) {
  const unsigned e = x & 0x00ff00ffu, t = e + (x >> 8 & 0x00ff00ffu), c = *carry * 0x00010001u;
  const unsigned odd = t * 0x00010001u + c, even = e + (t << 16) + c;
  const unsigned incl = __byte_perm(even, odd, 0x6240);
  const unsigned out = exclusive ? __byte_perm(incl, *carry, 0x2104) : incl;
  *carry = odd >> 16 & 0xffu;
  return out;
}

/* Status words. Value and epoch travel in one word, written and read with single relaxed
   accesses at GPU scope: a reader sees either an older word or the whole new one, so no fence is
   needed to order a flag against its value. */
static __device__ __forceinline__ void pscan__st_word64(void *p, unsigned long long w) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
static __device__ __forceinline__ unsigned long long pscan__ld_word64(const void *p) {
  unsigned long long w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
  return w;
}
/* 16-byte words (.b128, one access) for 8-byte values: {value, epoch}. */
static __device__ __forceinline__ void pscan__st_word128(void *p, unsigned long long value,
                                                         unsigned long long epoch) {
  asm volatile("{ .reg .b128 t; mov.b128 t, {%0, %1}; st.relaxed.gpu.global.b128 [%2], t; }" ::"l"(
                   value),
               "l"(epoch), "l"(p)
               : "memory");
}
static __device__ __forceinline__ void pscan__ld_word128(const void *p, unsigned long long *value,
                                                         unsigned long long *epoch) {
  unsigned long long v, e;
  asm volatile("{ .reg .b128 t; ld.relaxed.gpu.global.b128 t, [%2]; mov.b128 {%0, %1}, t; }"
               : "=l"(v), "=l"(e)
               : "l"(p)
               : "memory");
  *value = v;
  *epoch = e;
}

/* 16-byte stores of output that is not read again by the kernel: evict-first in L2 (st.global.cs;
   docs/PERFORMANCE.md, "Streaming stores on the GPU"). */
static __device__ __forceinline__ void pscan__st_stream16(uint4 *dst, uint4 v) { __stcs(dst, v); }

/* Asynchronous 16-byte global -> shared copies (Ampere+ cp.async), grouped by commit. */
static __device__ __forceinline__ void pscan__cp_async16(void *smem, const void *gmem) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
/* The same for one element or unit of 4, 8 or 16 bytes (`bytes`: one of them, usually a constant
   that folds the branches away). */
static __device__ __forceinline__ void pscan__cp_async_unit(void *smem, const void *gmem,
                                                           unsigned bytes) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  if (bytes == 16)
    pscan__cp_async16(smem, gmem);
  else if (bytes == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(gmem) : "memory");
}
/* The elements of a 16-byte chunk in reverse order (elements of 1, 2, 4 or 8 bytes): a mirrored
   tile moves whole chunks and reverses each one in registers (scan/tile_scan.cuh). */
static __device__ __forceinline__ uint4 pscan__reverse_chunk(uint4 c, unsigned size) {
  if (size == 8)
    return make_uint4(c.z, c.w, c.x, c.y);
  const uint4 r = make_uint4(c.w, c.z, c.y, c.x);
  if (size == 4)
    return r;
  const unsigned sel = size == 2 ? 0x1032u : 0x0123u; /* swap the halves / reverse the bytes */
  return make_uint4(__byte_perm(r.x, 0, sel), __byte_perm(r.y, 0, sel), __byte_perm(r.z, 0, sel),
                    __byte_perm(r.w, 0, sel));
}

static __device__ __forceinline__ void pscan__cp_async_commit(void) {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
static __device__ __forceinline__ void pscan__cp_async_wait_all(void) {
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}

/* A whole mirrored tile in 16-byte chunks (the built-in tiles, scan/tile_scan.cuh, and the user
   tiles, jit/user_tile.cuh): shared chunk c (swizzled) holds the span's c-th chunk counted from
   its top, low the span's lowest chunk, `chunks` the tile's count (a constant: the loops unroll
   and the bound check folds where it divides evenly among the threads). Each thread handles
   chunks threadIdx.x + v * PSCAN__THREADS. Issue: the cp.async copies (not committed). Order:
   once they landed, each thread reverses the elements (of `size` bytes) of its own chunks, so no
   barrier is needed between the two. Store: each chunk reversed on its way out, streamed. */
static __device__ __forceinline__ void pscan__mirror_chunks_issue(unsigned char *buf,
                                                                  const uint4 *low,
                                                                  unsigned chunks) {
#pragma unroll
  for (unsigned v = 0; v < (chunks + PSCAN__THREADS - 1) / PSCAN__THREADS; v++) {
    const unsigned c = threadIdx.x + v * PSCAN__THREADS;
    if (chunks % PSCAN__THREADS == 0 || c < chunks)
      pscan__cp_async16(buf + pscan__swz(c * 16), low + (chunks - 1 - c));
  }
}
static __device__ __forceinline__ void pscan__mirror_chunks_order(unsigned char *buf,
                                                                  unsigned chunks, unsigned size) {
#pragma unroll
  for (unsigned v = 0; v < (chunks + PSCAN__THREADS - 1) / PSCAN__THREADS; v++) {
    const unsigned c = threadIdx.x + v * PSCAN__THREADS;
    if (chunks % PSCAN__THREADS == 0 || c < chunks) {
      uint4 *chunk = (uint4 *)(buf + pscan__swz(c * 16));
      *chunk = pscan__reverse_chunk(*chunk, size);
    }
  }
}
static __device__ __forceinline__ void pscan__mirror_chunks_store(uint4 *low,
                                                                  const unsigned char *buf,
                                                                  unsigned chunks, unsigned size) {
#pragma unroll
  for (unsigned v = 0; v < (chunks + PSCAN__THREADS - 1) / PSCAN__THREADS; v++) {
    const unsigned c = threadIdx.x + v * PSCAN__THREADS;
    if (chunks % PSCAN__THREADS == 0 || c < chunks)
      pscan__st_stream16(low + (chunks - 1 - c),
                         pscan__reverse_chunk(*(const uint4 *)(buf + pscan__swz(c * 16)), size));
  }
}

/* Asks L2 to fetch `bytes` (a multiple of 16) of global memory from a 16-byte aligned address:
   a hint (sm_90 bulk prefetch), nothing waits for it.
   Use: while a block waits for its tile id (an atomic: a round trip to L2), L2 can already fetch
   the tile the block will most likely get. Ids are handed out in the order blocks start, nearly
   blockIdx order, so the guess is the tile numbered like the block. A wrong guess costs no
   extra DRAM traffic: each tile is prefetched once, by the block of its number, and read soon
   after by whichever block got it. */
static __device__ __forceinline__ void pscan__prefetch_l2(const void *g, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(g)),
               "r"(bytes)
               : "memory");
}

/* pscan__prefetch_l2 of any span [lo, lo + bytes), widened to the whole 16-byte blocks the bulk
   prefetch wants (a mirrored tile's span need not be aligned). */
static __device__ __forceinline__ void pscan__prefetch_l2_span(const void *lo,
                                                               unsigned long long bytes) {
  const unsigned long long a = (unsigned long long)lo & ~15ull,
                           b = ((unsigned long long)lo + bytes + 15) & ~15ull;
  pscan__prefetch_l2((const void *)a, (unsigned)(b - a));
}

/* Staggered first wave, for launches of more than two waves (stagger_long_launch, host/state.h,
   sets stagger_ns then): if the whole first wave asked for its tiles at once, every tile would
   arrive at about the same time (DRAM interleaves the requests), and the blocks would then scan,
   look back and store in phase, wave after wave, with the loads idle in between. A first-wave
   block of row r = blockIdx.x / sm_count (r < stagger_rows, the blocks resident per
   multiprocessor) waits r x stagger_ns before it takes its tile, which pipelines the rows from
   the first tile on
   (docs/PERFORMANCE.md, "Staggered first wave"). Called by thread 0 before the tile-id atomic. */
static __device__ __forceinline__ void pscan__stagger_first_wave(const pscan__cuda_scan_params *p) {
  if (p->stagger_ns && blockIdx.x < p->stagger_rows * p->sm_count) {
    const unsigned row = blockIdx.x / p->sm_count;
    for (unsigned k = 0; k < row; k++)
      __nanosleep(p->stagger_ns);
  }
}

/* Items of the tile that starts at item `start` (tile_items, or fewer for the last tile). */
static __device__ __forceinline__ unsigned pscan__tile_items(unsigned long long n,
                                                             unsigned long long start,
                                                             unsigned tile_items) {
  return n - start < (unsigned long long)tile_items ? (unsigned)(n - start) : tile_items;
}
/* This thread's items of a tile of `valid` items, when it holds per_thread from item `first`. */
static __device__ __forceinline__ unsigned pscan__thread_items(unsigned valid, unsigned first,
                                                               unsigned per_thread) {
  return valid > first ? (valid - first < per_thread ? valid - first : per_thread) : 0;
}

/* Named barriers (PTX bar.sync / bar.arrive) for blocks whose warps have different jobs:
   `count` threads (a multiple of 32) take part in barrier `id` (1..15; 0 is __syncthreads').
   Either completes the barrier's phase for the calling warp; arrive does not wait for it. Both
   order the caller's earlier memory accesses before the phase completes, for every thread that
   takes part. */
static __device__ __forceinline__ void pscan__bar_sync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
static __device__ __forceinline__ void pscan__bar_arrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

/* Programmatic dependent launch (compute capability 9.0+; CUDA Programming Guide, "Programmatic
   Dependent Launch and Synchronization"). Every kernel starts with this: it waits until the
   kernel before it in the stream has completed and its memory is visible (griddepcontrol.wait;
   at once when the launch had no programmatic dependency), and only then lets the next kernel's
   launch begin (launch_dependents: the next grid may be scheduled once every block of this one
   has said so or exited). Nothing is read or written before the wait, so each call still sees
   all of the work before it; what overlaps is the next call's launch and block scheduling with
   this call's run. */
static __device__ __forceinline__ void pscan__wait_for_predecessor(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

#ifndef __CUDACC_RTC__ /* host code: not for NVRTC */
/* Host side: launches kernel(*params) (one by-value parameter) on `stream`; `pdl`: allow it to
   overlap the previous kernel's run as above; `cooperative`: every block resident at once. */
static int pscan__launch(const void *kernel, uint64_t grid, unsigned threads, size_t smem,
                         void *stream, const void *params, int pdl, int cooperative) {
  cudaLaunchAttribute attrs[2];
  unsigned n = 0;
  if (pdl) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cooperative) {
    attrs[n].id = cudaLaunchAttributeCooperative;
    attrs[n++].val.cooperative = 1;
  }
  cudaLaunchConfig_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDim = dim3((unsigned)grid);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = (cudaStream_t)stream;
  cfg.attrs = attrs;
  cfg.numAttrs = n;
  void *args[] = {(void *)params};
  return (int)cudaLaunchKernelExC(&cfg, kernel, args);
}

/* Host side: the blocks of `kernel` resident per multiprocessor (the rows of a first wave),
   0 if the runtime cannot say (then nothing is staggered). */
static int pscan__resident_blocks(const void *kernel, int threads, size_t dynamic_smem) {
  int rows = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&rows, kernel, threads, dynamic_smem) !=
      cudaSuccess) {
    cudaGetLastError(); /* (not a sticky error) */
    rows = 0;
  }
  return rows;
}
static int pscan__wave_rows(const void *kernel, size_t dynamic_smem) {
  return pscan__resident_blocks(kernel, PSCAN__THREADS, dynamic_smem);
}
#endif

/* A walk over items i, i + step, ... of lines of len items back to back: line = i / len and
   col = i % len, updated without a division per step. */
typedef struct {
  unsigned long long line, col, dline, dcol, len;
} pscan__line_walk;

static __device__ __forceinline__ pscan__line_walk pscan__line_walk_at(unsigned long long i,
                                                                      unsigned long long step,
                                                                      unsigned long long len) {
  const pscan__line_walk w = {i / len, i % len, step / len, step % len, len};
  return w;
}

static __device__ __forceinline__ void pscan__line_walk_next(pscan__line_walk *w) {
  w->line += w->dline;
  w->col += w->dcol;
  if (w->col >= w->len)
    w->col -= w->len, w->line++;
}

/* Segments by offsets (pscan_segmented_scan): the bitmap (`words` words in shared memory) of
   the segment starts among items [start, end), one bit an item: offsets[0] = 0 and the offsets
   that fall there, read from first_segment on (the first s >= 1 with offsets[s] >= start: a
   binary search per tile, axis_kernels.cu), PSCAN__THREADS at a time (coalesced; empty
   segments only repeat a position). The whole block calls it; the bitmap is ready on return. */
static __device__ __forceinline__ void pscan__segment_bitmap(unsigned *bitmap, unsigned words,
                                                             const int64_t *offsets,
                                                             unsigned long long num_segments,
                                                             unsigned long long first_segment,
                                                             unsigned long long start,
                                                             unsigned long long end) {
  for (unsigned w = threadIdx.x; w < words; w += PSCAN__THREADS)
    bitmap[w] = start == 0 && w == 0 ? 1u : 0u;
  __syncthreads();
  for (unsigned long long base = first_segment;; base += PSCAN__THREADS) {
    const unsigned long long s = base + threadIdx.x;
    const unsigned long long at = s < num_segments ? (unsigned long long)offsets[s] : end;
    if (at < end) {
      const unsigned i = (unsigned)(at - start);
      atomicOr(&bitmap[i / 32], 1u << (i % 32));
    }
    if (!__syncthreads_or(threadIdx.x == PSCAN__THREADS - 1 && at < end))
      return;
  }
}

/* scan_by_key on the flat scan's tiles: the bitmap (`words` words in shared memory, one bit an
   item) of the run heads among items [start, end), item i heading a run where i == 0 or
   keys[i] != keys[i - 1] in the key's type (integers by their bits; floats by ==, so NaN never
   equals NaN and -0.0 equals +0.0). A warp builds whole words: lane l reads key start + 32w + l
   (a coalesced load), takes the key before from lane l - 1 (lane 0 reads it), and the ballot is
   word w. A lane's loads of BATCH words are in flight together. Items past end are no heads.
   key_kind (launch.h): the key's size in bytes, plus PSCAN__KEY_FLOAT for float keys. The whole
   block calls it; the bitmap is ready after the caller's next barrier. */
#define PSCAN__KEY_BITMAP(T, SHFL_T)                                                             \
  {                                                                                              \
    enum { BATCH = sizeof(T) == 8 ? 4 : 8 };                                                     \
    const T *k = (const T *)keys;                                                                \
    const unsigned lane = threadIdx.x % 32;                                                      \
    for (unsigned w0 = threadIdx.x / 32; w0 < words; w0 += PSCAN__WARPS * BATCH) {               \
      T cur[BATCH], before[BATCH];                                                               \
      _Pragma("unroll") for (int j = 0; j < BATCH; j++) {                                        \
        const unsigned long long i = start + (w0 + j * PSCAN__WARPS) * 32ull + lane;             \
        cur[j] = i < end ? k[i] : (T)0;                                                          \
        before[j] = lane == 0 && i > 0 && i < end ? k[i - 1] : (T)0;                             \
      }                                                                                          \
      _Pragma("unroll") for (int j = 0; j < BATCH; j++) {                                        \
        const unsigned w = w0 + j * PSCAN__WARPS;                                                \
        const unsigned long long i = start + w * 32ull + lane;                                   \
        const T up = (T)__shfl_up_sync(PSCAN__FULL_MASK, (SHFL_T)cur[j], 1);                     \
        const T prev = lane == 0 ? before[j] : up;                                               \
        const bool head = i < end && (i == 0 || !(cur[j] == prev));                              \
        const unsigned m = __ballot_sync(PSCAN__FULL_MASK, head);                                \
        if (lane == 0 && w < words)                                                              \
          bitmap[w] = m;                                                                         \
      }                                                                                          \
    }                                                                                            \
  }
/* The same for a whole tile of 16-byte aligned keys, from 16-byte loads: a lane holds PER =
   16 / sizeof(T) consecutive keys, so one load of the warp covers PER words; the lane's head
   bits are shifted to their place in their word and OR-ed across the GROUP lanes that share it
   (shuffles). LOADS loads of a lane are in flight together. */
#define PSCAN__KEY_BITMAP_VEC(T, SHFL_T)                                                         \
  {                                                                                              \
    enum { PER = 16 / sizeof(T), GROUP = 32 / PER, LOADS = 4 };                                  \
    const T *k = (const T *)keys + start;                                                        \
    const unsigned lane = threadIdx.x % 32, chunks = words / PER;                                \
    for (unsigned c0 = threadIdx.x / 32; c0 < chunks; c0 += PSCAN__WARPS * LOADS) {              \
      uint4 raw[LOADS];                                                                          \
      T before[LOADS];                                                                           \
      _Pragma("unroll") for (int j = 0; j < LOADS; j++) {                                        \
        const unsigned c = c0 + j * PSCAN__WARPS;                                                \
        raw[j] = c < chunks ? ((const uint4 *)k)[c * 32 + lane] : make_uint4(0, 0, 0, 0);        \
        before[j] = lane == 0 && c < chunks && start + c > 0 ? k[c * 32ll * PER - 1] : (T)0;     \
      }                                                                                          \
      _Pragma("unroll") for (int j = 0; j < LOADS; j++) {                                        \
        const unsigned c = c0 + j * PSCAN__WARPS;                                                \
        T got[PER];                                                                              \
        memcpy(got, &raw[j], 16);                                                                \
        const T up = (T)__shfl_up_sync(PSCAN__FULL_MASK, (SHFL_T)got[PER - 1], 1);               \
        T prev = lane == 0 ? before[j] : up;                                                     \
        unsigned bits = start + c + lane == 0 ? 1u : 0u; /* item 0 of the array */               \
        _Pragma("unroll") for (int q = 0; q < PER; q++) {                                        \
          if (!(got[q] == prev))                                                                 \
            bits |= 1u << q;                                                                     \
          prev = got[q];                                                                         \
        }                                                                                        \
        unsigned v = bits << (PER * (lane % GROUP));                                             \
        _Pragma("unroll") for (int s = 1; s < GROUP; s *= 2)                                     \
          v |= __shfl_xor_sync(PSCAN__FULL_MASK, v, s);                                          \
        if (lane % GROUP == 0 && c < chunks)                                                     \
          bitmap[c * PER + lane / GROUP] = v;                                                    \
      }                                                                                          \
    }                                                                                            \
  }
static __device__ __forceinline__ void pscan__key_bitmap(unsigned *bitmap, unsigned words,
                                                         const void *keys, int key_kind,
                                                         unsigned long long start,
                                                         unsigned long long end) {
  const bool vec = (key_kind & PSCAN__KEY_VEC) && end - start == words * 32ull &&
                   ((unsigned long long)keys & 15u) == 0;
#define PSCAN__KEY_CASE(T, SHFL_T)                                                               \
  if (vec)                                                                                       \
    PSCAN__KEY_BITMAP_VEC(T, SHFL_T)                                                             \
  else                                                                                           \
    PSCAN__KEY_BITMAP(T, SHFL_T)                                                                 \
  break;
  switch (key_kind & PSCAN__KEY_TYPE) {
  case 1: PSCAN__KEY_CASE(unsigned char, unsigned)
  case 2: PSCAN__KEY_CASE(unsigned short, unsigned)
  case 4: PSCAN__KEY_CASE(unsigned, unsigned)
  case 8: PSCAN__KEY_CASE(unsigned long long, unsigned long long)
  case 4 | PSCAN__KEY_FLOAT: PSCAN__KEY_CASE(float, float)
  default: PSCAN__KEY_CASE(double, double)
  }
#undef PSCAN__KEY_CASE
}
#undef PSCAN__KEY_BITMAP
#undef PSCAN__KEY_BITMAP_VEC

/* Waits that back off, so spinning warps leave issue slots and memory bandwidth to the tiles
   they wait for: a wait sleeps PSCAN__BACKOFF_FIRST_NS, then about twice as long each time, up
   to PSCAN__BACKOFF_MAX_NS. */
#define PSCAN__BACKOFF_FIRST_NS 8
#define PSCAN__BACKOFF_MAX_NS 256
static __device__ __forceinline__ void pscan__backoff(unsigned *ns) {
  __nanosleep(*ns);
  *ns = *ns < PSCAN__BACKOFF_MAX_NS ? *ns * 2 + 8 : PSCAN__BACKOFF_MAX_NS;
}

/* Stress builds only (cmake -DPSCAN_CUDA_PERTURB=ON): a tile sleeps a pseudo-random time, from
   nothing to ~20 us, before it publishes, so that tiles finish far out of order and look-backs
   find every mix of X, A and P. The decoupled look-back must stay correct and never deadlock
   whatever the timing (test_scan --backend cuda and test_compact --backend cuda in that build). */
static __device__ __forceinline__ void pscan__perturb(unsigned long long tile, unsigned salt) {
#ifdef PSCAN__PERTURB
  unsigned h = (unsigned)(tile * 0x9E3779B97F4A7C15ull >> 32) ^ salt * 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  if (h % 4 == 0) /* a quarter of the tiles */
    for (unsigned t = h % 20; t > 0; t--)
      __nanosleep(1000);
#else
  (void)tile;
  (void)salt;
#endif
}

#endif /* PSCAN_CUDA_COMMON_CUH */
