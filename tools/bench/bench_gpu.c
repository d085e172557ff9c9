/* `pscan bench --gpu`: the CUDA backend's inclusive SUM with every GPU algorithm, its peers
 * cub::DeviceScan::InclusiveSum and thrust::inclusive_scan (peers_cub.cu), and cudaMemcpy device
 * to device on the same two buffers as the ceiling. Rows go through report.c (table and
 * CSV), like the CPU's.
 *
 * Timing: per implementation, one warm-up call whose result is copied back and checked against
 * the plain loop, and one calibration batch; then reps rounds, each timing one batch of every
 * implementation in turn with CUDA events on the default stream (CUB and Thrust too). A batch
 * repeats the call often enough to last GPU_TIMER_MIN_BATCH_MS (gpu_timer_inner), so launch
 * overhead is amortised the way a stream of calls amortises it. The result is the median batch
 * divided by its calls. */
#include "bench_gpu.h"
#include "gpu_timer.h"
#include "bench_plot.h"
#include "report.h"
#include "timing.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "io/device_buf.h"
#include "peers/peers_cpu.h"
#include "peers/peers_cub.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPS = 1000, POISON = 0x7F };

static const pscan_algo gpu_algos[] = {PSCAN_ALGO_DECOUPLED_LOOKBACK, PSCAN_ALGO_CHAINED,
                                       PSCAN_ALGO_REDUCE_THEN_SCAN,
                                       PSCAN_ALGO_SCAN_THEN_PROPAGATE, PSCAN_ALGO_AUTO};
enum { NALGOS = sizeof gpu_algos / sizeof gpu_algos[0], NIMPLS = NALGOS + 3 };

typedef struct gpu_bench {
  void *d_in, *d_out; /* device buffers of max_bytes */
  void *h_in, *h_out; /* host buffers: the input as filled, the output as checked */
  size_t max_bytes;
  pscan_ctx *ctx;
  gpu_timer timer;
} gpu_bench;

bool bench_gpu_usable(void) {
  pscan_ctx *ctx;
  if (pscan_create(&ctx, PSCAN_BACKEND_CUDA) != PSCAN_OK)
    return false;
  pscan_destroy(ctx);
  return true;
}

static int cuda_error(cudaError_t e, const char *what) {
  cudaGetLastError(); /* clear a non-sticky error */
  cli_error("bench", "--gpu: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return 1;
}

static int point_error(const gpu_bench *g, const bench_result *r, const char *what) {
  char label[64], count[32];
  cli_error("bench", "--gpu: %s on %s, n = %s: %s", bench_impl_label(r, label, sizeof label),
            cli_dtype_name(r->type), cli_format_count(r->n, count, sizeof count),
            what ? what : pscan_last_error(g->ctx));
  return 1;
}

/* ---- setup ---- */

static void gpu_free(gpu_bench *g) {
  dbuf_free(g->d_in);
  dbuf_free(g->d_out);
  free(g->h_in);
  free(g->h_out);
  gpu_timer_close(&g->timer);
  peer_gpu_release();
  pscan_destroy(g->ctx);
}

int bench_gpu_context(pscan_ctx **ctx) {
  pscan_status s = pscan_create(ctx, PSCAN_BACKEND_CUDA);
  if (s == PSCAN_OK)
    return 0;
  cli_error("bench", "no usable GPU: %s: %s", pscan_status_name(s),
            s == PSCAN_ERR_NO_DEVICE ? sysinfo_gpu_why(pscan_last_error(NULL))
                                     : pscan_last_error(NULL));
  return 1;
}

/* The context and the events. */
static int gpu_open(gpu_bench *g) {
  if (bench_gpu_context(&g->ctx))
    return 1;
  int e = gpu_timer_open(&g->timer);
  return e ? cuda_error((cudaError_t)e, "cudaEventCreate") : 0;
}

/* Two device and two host buffers of max_bytes. */
static int gpu_buffers(gpu_bench *g, size_t max_bytes) {
  dbuf_err err;
  g->max_bytes = max_bytes;
  if (!dbuf_alloc(&g->d_in, max_bytes, &err) || !dbuf_alloc(&g->d_out, max_bytes, &err)) {
    cli_error("bench", "--gpu: %s", err.msg);
    return 1;
  }
  g->h_in = malloc(max_bytes);
  g->h_out = malloc(max_bytes);
  if (!g->h_in || !g->h_out) {
    cli_error("bench", "--gpu: cannot allocate 2 host buffers of %zu bytes", max_bytes);
    return 1;
  }
  return 0;
}

/* Bytes of one buffer of (t, n), or 0 if twice that overflows. */
static size_t buffer_bytes(pscan_dtype t, size_t n) {
  size_t es = pscan_dtype_size(t);
  return n > SIZE_MAX / 2 / es ? 0 : n * es;
}

/* Whether the two device buffers of (t, n) fit in 80% of the GPU memory free at the start. */
static bool fits_gpu(pscan_dtype t, size_t n, size_t free_bytes) {
  size_t b = buffer_bytes(t, n);
  return b != 0 && b <= free_bytes / 10 * 4;
}

/* ---- one call, one batch ---- */

/* A peer's cudaError_t as point_error's message. */
static int peer_error(const gpu_bench *g, const bench_result *r, int e) {
  char what[160];
  cudaGetLastError(); /* clear a non-sticky error */
  snprintf(what, sizeof what, "%s (%s)", cudaGetErrorString((cudaError_t)e),
           cudaGetErrorName((cudaError_t)e));
  return point_error(g, r, what);
}

/* One call of r's implementation on the default stream, where the library's calls go too. */
static int enqueue(gpu_bench *g, const bench_result *r) {
  int e = cudaSuccess;
  switch (r->impl) {
  case IMPL_CUDA_MEMCPY:
    e = cudaMemcpyAsync(g->d_out, g->d_in, r->n * pscan_dtype_size(r->type),
                        cudaMemcpyDeviceToDevice, 0);
    break;
  case IMPL_CUB: e = peer_gpu_scan(PEER_CUB, r->type, g->d_in, g->d_out, r->n, NULL); break;
  case IMPL_THRUST: e = peer_gpu_scan(PEER_THRUST, r->type, g->d_in, g->d_out, r->n, NULL); break;
  default:
    return pscan_inclusive_scan(g->ctx, g->d_in, g->d_out, r->n, r->type, PSCAN_SUM) == PSCAN_OK
               ? 0
               : point_error(g, r, NULL);
  }
  return e == cudaSuccess ? 0 : peer_error(g, r, e);
}

typedef struct call_args {
  gpu_bench *g;
  const bench_result *r;
} call_args;

static int call_once(void *arg) {
  call_args *c = arg;
  return -enqueue(c->g, c->r);
}

/* inner calls between two events; the time of one call through *seconds. */
static int batch(gpu_bench *g, const bench_result *r, long inner, double *seconds) {
  if (r->impl == IMPL_CUDA_PSCAN &&
      pscan_set_param(g->ctx, PSCAN_PARAM_ALGO, r->algo) != PSCAN_OK)
    return point_error(g, r, NULL);
  call_args c = {g, r};
  int e = gpu_timer_batch(&g->timer, inner, call_once, &c, seconds);
  return e <= 0 ? -e : cuda_error((cudaError_t)e, "timing a batch with CUDA events");
}

/* The output (copied back to h_out) against the plain loop's sum, or the input for the copy. */
static int check_result(const gpu_bench *g, const bench_result *r) {
  char expected[48], got[48], what[160];
  if (r->impl == IMPL_CUDA_MEMCPY)
    return memcmp(g->h_in, g->h_out, r->n * pscan_dtype_size(r->type)) == 0
               ? 0
               : point_error(g, r, "WRONG RESULT: the copy differs from the input");
  size_t i = peer_scan_check(r->type, g->h_in, g->h_out, r->n, expected, got, sizeof got);
  if (i == SIZE_MAX)
    return 0;
  snprintf(what, sizeof what, "WRONG RESULT at element %zu: expected %s, got %s", i, expected,
           got);
  return point_error(g, r, what);
}

/* The warm-up call, its result copied back and checked; then *inner for a batch. */
static int prepare(gpu_bench *g, const bench_result *r, long *inner) {
  size_t bytes = r->n * pscan_dtype_size(r->type);
  dbuf_err err;
  cudaError_t e = cudaMemset(g->d_out, POISON, bytes);
  if (e != cudaSuccess)
    return cuda_error(e, "cudaMemset");
  double one;
  if (batch(g, r, 1, &one))
    return 1;
  if (!dbuf_download(g->h_out, g->d_out, bytes, &err))
    return point_error(g, r, err.msg);
  if (check_result(g, r))
    return 1;
  if (batch(g, r, 1, &one))
    return 1;
  *inner = gpu_timer_inner(one);
  return 0;
}

/* ---- one (type, n) ---- */

static int plan(pscan_dtype t, size_t n, bench_result *out) {
  bench_result base = {.impl = IMPL_CUDA_MEMCPY, .type = t, .n = n, .threads = 0,
                       .bytes = 2.0 * (double)n * (double)pscan_dtype_size(t)};
  out[0] = base;
  for (int a = 0; a < NALGOS; a++) {
    out[1 + a] = base;
    out[1 + a].impl = IMPL_CUDA_PSCAN;
    out[1 + a].algo = gpu_algos[a];
  }
  out[1 + NALGOS] = base;
  out[1 + NALGOS].impl = IMPL_CUB;
  out[2 + NALGOS] = base;
  out[2 + NALGOS].impl = IMPL_THRUST;
  return NIMPLS;
}

static int measure(gpu_bench *g, pscan_dtype t, size_t n, int reps, bench_group *grp) {
  bench_result *r = grp->r;
  long inner[NIMPLS];
  double samples[NIMPLS][MAX_REPS];
  grp->count = plan(t, n, r);
  grp->others_known = false;
  peer_fill_input(t, g->h_in, n, 0x243F6A8885A308D3u ^ n);
  cudaError_t e = cudaMemcpy(g->d_in, g->h_in, n * pscan_dtype_size(t), cudaMemcpyHostToDevice);
  if (e != cudaSuccess)
    return cuda_error(e, "cudaMemcpy of the input");
  for (int k = 0; k < grp->count; k++)
    if (prepare(g, &r[k], &inner[k]))
      return 1;
  for (int rep = 0; rep < reps; rep++)
    for (int k = 0; k < grp->count; k++)
      if (batch(g, &r[k], inner[k], &samples[k][rep]))
        return 1;
  for (int k = 0; k < grp->count; k++)
    r[k].seconds = timing_median(samples[k], (size_t)reps);
  return 0;
}

/* ---- the sweep ---- */

void bench_gpu_describe(char *buf, size_t len) {
  int dev = 0;
  struct cudaDeviceProp p;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    cudaGetLastError();
    snprintf(buf, len, "GPU %d", dev);
    return;
  }
  snprintf(buf, len, "%s (sm_%d%d, %d SMs, %.0f GiB)", p.name, p.major, p.minor,
           p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30));
}

/* The largest buffer the points that fit need; 0 when none fits. */
static size_t plan_gpu_memory(const pscan_dtype *types, int ntypes, const size_t *sizes,
                              int nsizes, size_t free_bytes) {
  size_t max_bytes = 0;
  for (int t = 0; t < ntypes; t++)
    for (int s = 0; s < nsizes; s++) {
      char count[32];
      size_t b = buffer_bytes(types[t], sizes[s]);
      if (fits_gpu(types[t], sizes[s], free_bytes))
        max_bytes = b > max_bytes ? b : max_bytes;
      else
        fprintf(stderr, "pscan bench: --gpu: skipping %s at n = %s: its two buffers do not fit "
                        "in 80%% of the %.1f GiB of GPU memory free\n",
                cli_dtype_name(types[t]), cli_format_count(sizes[s], count, sizeof count),
                (double)free_bytes / (1 << 30));
    }
  return max_bytes;
}

static int sweep(gpu_bench *g, const pscan_dtype *types, int ntypes, const size_t *sizes,
                 int nsizes, int reps, bench_csv *csv, const char *machine, size_t free_bytes,
                 bench_plot *plots) {
  static bench_group grp;
  for (int t = 0; t < ntypes; t++)
    for (int s = 0; s < nsizes; s++) {
      char count[32];
      if (!fits_gpu(types[t], sizes[s], free_bytes))
        continue;
      fprintf(stderr, "pscan bench: --gpu: %s, n = %s\n", cli_dtype_name(types[t]),
              cli_format_count(sizes[s], count, sizeof count));
      if (measure(g, types[t], sizes[s], reps, &grp))
        return 1;
      if (!bench_report_group(&grp, csv, machine, plots))
        return 1;
    }
  return 0;
}

int bench_gpu_run(const pscan_dtype *types, int ntypes, const size_t *sizes, int nsizes, int reps,
                  const char *csv_path, const char *plot_prefix) {
  bench_plot plots = {0};
  gpu_bench g = {0};
  size_t free_bytes = 0, total = 0;
  if (reps < 1 || reps > MAX_REPS)
    return cli_usage_error("bench", "--reps must be 1 to %d", MAX_REPS);
  int rc = gpu_open(&g);
  cudaError_t e = rc ? cudaSuccess : cudaMemGetInfo(&free_bytes, &total);
  if (e != cudaSuccess)
    rc = cuda_error(e, "cudaMemGetInfo");
  size_t max_bytes = rc ? 0 : plan_gpu_memory(types, ntypes, sizes, nsizes, free_bytes);
  if (rc == 0 && max_bytes == 0) {
    cli_error("bench", "--gpu: no size fits in GPU memory");
    rc = 1;
  }
  char machine[320];
  bench_csv csv = {NULL, NULL};
  if (rc == 0 && (rc = gpu_buffers(&g, max_bytes)) == 0) {
    bench_gpu_describe(machine, sizeof machine);
    printf("pscan bench --gpu: libpscan %s, CUDA backend on %s, inclusive sum, median of %d "
           "batches timed with CUDA events\n"
           "GB/s counts bytes read + written (2 x n x element size); 'of memcpy': speed as a "
           "fraction of cudaMemcpy\ndevice to device on the same buffers; the peers CUB "
           "DeviceScan::InclusiveSum and thrust::inclusive_scan\n(thrust::cuda::par, as a Thrust "
           "user calls it: it synchronizes after every call) run on the same\nbuffers and "
           "stream.\n",
           pscan_version_string(), machine, reps);
    if (csv_path && !bench_csv_open(&csv, csv_path))
      rc = 1;
    if (rc == 0)
      rc = sweep(&g, types, ntypes, sizes, nsizes, reps, &csv, machine, free_bytes,
                 plot_prefix ? &plots : NULL);
    if (!bench_csv_close(&csv, csv_path, rc == 0) && rc == 0)
      rc = 1;
    if (rc == 0 && csv_path)
      printf("\nwrote %s\n", csv_path);
    if (rc == 0 && plot_prefix && !bench_plot_write(&plots, plot_prefix, machine))
      rc = 1;
  }
  bench_plot_free(&plots);
  gpu_free(&g);
  return rc;
}
