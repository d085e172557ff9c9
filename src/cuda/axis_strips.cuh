/* Include-template, part of axis_stamp.cuh (its names and macros): wide lines side by side, each
 * block walking its own strip of columns down the whole axis.
 *
 * A chained scan per strip (the serial "scan along the axis, carry in registers" of the
 * textbook, one block per group of columns; Blelloch's column-wise decomposition): when the
 * columns are many enough that their strips fill the GPU, no chunk of the axis has to wait for
 * another block, so there is no look-back, flag or fence, and the data moves once each way (2n).
 * A strip is lanes x vw columns, vw the elements of a 16-byte vector (p.vec) or 1. Thread t is
 * lane t % lanes of row slot t / lanes; a stage is slots x AX_STRIP_ROWS rows, slot s holding
 * rows s x AX_STRIP_ROWS .. of it. Each thread scans its rows serially in registers, the slots'
 * totals meet in shared memory, and each thread starts its rows from the strip's carry and the
 * slots before its own. The next stage's loads are issued before a stage is scanned (two register
 * buffers), so 2 x AX_STRIP_ROWS loads a thread stay in flight across the stage's barrier. The
 * host (axis_host.c) picks lanes so that every strip's block is resident at once (launch bounds:
 * two blocks per multiprocessor): a second wave would walk the whole axis again after the first.
 * In place, each element is read and then written by the same thread. */

#define AX_STRIP_ROWS 8
/* Elements of a 16-byte vector of a pair whose input and accumulator have one size of 4 or 8
   bytes (PSCAN_SCAN_PAIRS: then one type), else 1. */
#define AX_STRIP_VEC \
  (sizeof(IN_T) == sizeof(ACC_T) && (ACC_SIZE == 4 || ACC_SIZE == 8) ? 16 / ACC_SIZE : 1)
#define AX_STRIPS_PER_SM PSCAN__AXIS_STRIPS_PER_SM

typedef union {
  uint4 u;
  IN_T in[16 / sizeof(IN_T)];
  ACC_T acc[16 / sizeof(ACC_T)];
} NAME(ax_strip_word);

/* Rows [r0, r0 + AX_STRIP_ROWS) of this thread's vw columns into x (the identity past the axis's
   end and in a column past the last). */
static __device__ __forceinline__ void NAME(ax_strip_load)(ACC_T (*x)[AX_STRIP_VEC],
                                                           const IN_T *in, int64_t si,
                                                           int64_t r0, int64_t len, bool live,
                                                           const int vw) {
#pragma unroll
  for (int i = 0; i < AX_STRIP_ROWS; i++) {
    const int64_t r = r0 + i;
    if (live && r < len && vw > 1) {
      NAME(ax_strip_word) w;
      w.u = *(const uint4 *)(in + r * si);
#pragma unroll
      for (int v = 0; v < vw; v++)
        x[i][v] = (ACC_T)w.in[v];
    } else if (live && r < len) {
      x[i][0] = (ACC_T)in[r * si];
    } else {
#pragma unroll
      for (int v = 0; v < vw; v++)
        x[i][v] = NAME(identity)();
    }
  }
}

/* One stage whose rows are in x (slot's rows from r0): scanned in registers, the slots' totals
   exchanged through tot (this stage's half of the shared buffer, vw accumulators a thread),
   carry advanced past the stage, the rows stored. */
static __device__ __forceinline__ void NAME(ax_strip_stage)(const pscan__cuda_axis_params &p,
                                                            ACC_T (*x)[AX_STRIP_VEC], ACC_T *tot,
                                                            ACC_T *carry, ACC_T *out,
                                                            int64_t r0, bool live,
                                                            unsigned slots, unsigned lanes,
                                                            const int vw) {
  const unsigned slot = threadIdx.x / lanes, lane = threadIdx.x % lanes;
#pragma unroll
  for (int i = 1; i < AX_STRIP_ROWS; i++)
#pragma unroll
    for (int v = 0; v < vw; v++)
      x[i][v] = NAME(op)(x[i - 1][v], x[i][v]);
  NAME(ax_strip_word) w;
#pragma unroll
  for (int v = 0; v < vw; v++)
    w.acc[v] = x[AX_STRIP_ROWS - 1][v];
  if (vw > 1) /* one 16-byte access: no bank conflicts between neighbouring lanes */
    *(uint4 *)(tot + threadIdx.x * vw) = w.u;
  else
    tot[threadIdx.x] = w.acc[0];
  __syncthreads();
  /* pre: the carry and the slots before this one, in order; carry: past every slot */
  ACC_T pre[AX_STRIP_VEC];
#pragma unroll
  for (int v = 0; v < AX_STRIP_VEC; v++)
    pre[v] = NAME(identity)();
  for (unsigned h = 0; h < slots; h++) {
    const ACC_T *t = tot + (h * lanes + lane) * vw;
    if (vw > 1)
      w.u = *(const uint4 *)t;
    else
      w.acc[0] = t[0];
#pragma unroll
    for (int v = 0; v < vw; v++) {
      if (h == slot)
        pre[v] = carry[v];
      carry[v] = NAME(op)(carry[v], w.acc[v]);
    }
  }
  if (!live)
    return;
#pragma unroll
  for (int i = 0; i < AX_STRIP_ROWS; i++) {
    const int64_t r = r0 + i;
    if (r >= p.len)
      break;
#pragma unroll
    for (int v = 0; v < vw; v++) {
      ACC_T y = p.exclusive ? (i == 0 ? pre[v] : NAME(op)(pre[v], x[i - 1][v]))
                            : NAME(op)(pre[v], x[i][v]);
      if (p.exclusive && r == 0 && !p.has_init)
        y = NAME(api_identity)();
      w.acc[v] = y;
    }
    if (vw > 1)
      pscan__st_stream16((uint4 *)(out + r * p.so), w.u);
    else
      out[r * p.so] = w.acc[0];
  }
}

/* The walk of strip blockIdx.x (p.width = lanes x vw columns) down the axis. */
static __device__ __forceinline__ void NAME(ax_strips_body)(const pscan__cuda_axis_params &p,
                                                            ACC_T *tot_s, const int vw) {
  const unsigned lanes = p.width / (unsigned)vw, slots = AX_THREADS / lanes;
  const unsigned slot = threadIdx.x / lanes, lane = threadIdx.x % lanes;
  const uint64_t c = (uint64_t)blockIdx.x * p.width + (uint64_t)lane * (unsigned)vw;
  int64_t io = (int64_t)c, oo = (int64_t)c; /* vectors: one batch dimension, columns contiguous */
  const bool live = vw > 1 ? c < p.nlines : NAME(ax_column)(&p, c, &io, &oo);
  const IN_T *in = (const IN_T *)p.in + io;
  ACC_T *out = (ACC_T *)p.out + oo;
  ACC_T carry[AX_STRIP_VEC], a[AX_STRIP_ROWS][AX_STRIP_VEC], b[AX_STRIP_ROWS][AX_STRIP_VEC];
#pragma unroll
  for (int v = 0; v < AX_STRIP_VEC; v++)
    carry[v] = NAME(ax_start)(&p);
  const int64_t stage = (int64_t)slots * AX_STRIP_ROWS, mine = (int64_t)slot * AX_STRIP_ROWS;
  NAME(ax_strip_load)(a, in, p.si, mine, p.len, live, vw);
  /* two stages a turn, so that the buffers swap roles without a copy (a copy would wait for
     the loads) */
  for (int64_t base = 0;; base += 2 * stage) {
    NAME(ax_strip_load)(b, in, p.si, base + stage + mine, p.len, live, vw);
    NAME(ax_strip_stage)(p, a, tot_s, carry, out, base + mine, live, slots, lanes, vw);
    if (base + stage >= p.len)
      break;
    NAME(ax_strip_load)(a, in, p.si, base + 2 * stage + mine, p.len, live, vw);
    NAME(ax_strip_stage)(p, b, tot_s + AX_THREADS * vw, carry, out, base + stage + mine, live,
                         slots, lanes, vw);
    if (base + 2 * stage >= p.len)
      break;
  }
}

static __global__ void __launch_bounds__(AX_THREADS, AX_STRIPS_PER_SM) NAME(ax_side_strips_kernel)(const pscan__cuda_axis_params p) {
  __shared__ __align__(16) ACC_T tot_s[2 * AX_THREADS];
  NAME(ax_strips_body)(p, tot_s, 1);
}

static __global__ void __launch_bounds__(AX_THREADS, AX_STRIPS_PER_SM) NAME(ax_side_strips_vec_kernel)(const pscan__cuda_axis_params p) {
  __shared__ __align__(16) ACC_T tot_s[2 * AX_THREADS * AX_STRIP_VEC];
  if (AX_STRIP_VEC > 1) /* else never launched: an empty kernel */
    NAME(ax_strips_body)(p, tot_s, AX_STRIP_VEC);
}

/* One block per strip of p->width columns; p->vec: in 16-byte vectors. */
static int NAME(ax_launch_side_strips)(const pscan__cuda_axis_params *p, void *stream) {
  const unsigned strips = (unsigned)((p->nlines + p->width - 1) / p->width);
  if (p->vec && AX_STRIP_VEC > 1)
    NAME(ax_side_strips_vec_kernel)<<<strips, AX_THREADS, 0, (cudaStream_t)stream>>>(*p);
  else
    NAME(ax_side_strips_kernel)<<<strips, AX_THREADS, 0, (cudaStream_t)stream>>>(*p);
  return (int)cudaGetLastError();
}

#undef AX_STRIP_ROWS
#undef AX_STRIP_VEC
#undef AX_STRIPS_PER_SM
