/* `pscan bench --gpu --user-op`: operators from source (pscan_op_create, compiled with NVRTC) on
 * the CUDA backend. Each operator's scan is measured beside a device copy of the same bytes
 * (cudaMemcpyAsync), CUB's DeviceScan::InclusiveScan with the same operator as a C++ functor
 * (peers/peers_cub_user_op.cu) and, for the i32 SUM, the built-in pscan_inclusive_scan; then the
 * costs around a call (user_op_report.c: create costs; here the host time of a small
 * pscan_scan_op call beside the built-in scan's, the stream drained between rounds). Between the
 * two, the by-key calls with the affine operators (bench_user_op_by_key.c). The CPU's
 * counterpart is bench_user_op_cpu.c.
 *
 * The data are exact in every association order (affine maps with a = +-1 and b in {-1, 0, 1},
 * signed permutation matrices, small integers), so every implementation's output is checked
 * whole against a sequential scan on the host, a chunk at a time (floating-point members as
 * numbers: the sign of a zero depends on the order). Timing as in bench_gpu.c: a warm-up call,
 * a batch calibrated to last GPU_TIMER_MIN_BATCH_MS (gpu_timer_inner) between two CUDA events,
 * then reps rounds that time a batch of every implementation in turn; medians. */
#include "bench_gpu.h"
#include "bench_user_op.h"
#include "bench_user_op_by_key.h"
#include "gpu_timer.h"
#include "report.h"
#include "timing.h"
#include "user_op_report.h"
#include "cli/cli.h"
#include "io/device_buf.h"
#include "peers/peers_cub_user_op.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPS = 1000, CHUNK_BYTES = 1 << 24, CALL_N = 1024 };

/* ---- the run's state ---- */

/* UI_PSCAN_ID: the same operator created with its identity (the GPU kernels' accumulator is
   then the plain value, jit/user_ops.cuh). */
typedef enum uimpl { UI_COPY, UI_PSCAN, UI_CUB, UI_PSCAN_ID, UI_BUILTIN, UI_COUNT } uimpl;
static const char *const uimpl_names[UI_COUNT] = {"cudaMemcpy", "pscan user op", "CUB functor",
                                                  "pscan user op + identity", "pscan built-in"};
static const char *const uimpl_csv[UI_COUNT] = {"cudaMemcpy", "pscan_user_op", "cub_functor",
                                                "pscan_user_op_identity", "pscan_builtin"};

typedef struct uop_bench {
  pscan_ctx *ctx;
  pscan_user_op *ops[UOP_NCASES], *ops_id[UOP_NCASES]; /* without, with the identity */
  void *d_in, *d_out;
  unsigned char *h_a, *h_b; /* CHUNK_BYTES each: the input and the output of one chunk */
  gpu_timer timer;
  uop_out out;
} uop_bench;

int uop_cuda_error(int e, const char *what) {
  cudaGetLastError(); /* clear a non-sticky error */
  cli_error("bench", "--user-op: %s: %s (%s)", what, cudaGetErrorString((cudaError_t)e),
            cudaGetErrorName((cudaError_t)e));
  return 1;
}

static int pscan_error(const uop_bench *b, const char *what, const uop_case *c) {
  cli_error("bench", "--user-op: %s (%s): %s", what, c->name, pscan_last_error(b->ctx));
  return 1;
}

/* One call of implementation `i` on case c at n, on the default stream. */
typedef struct call_args {
  uop_bench *b;
  const uop_case *c;
  uimpl i;
  size_t n;
} call_args;

static int call_once(void *arg) {
  call_args *a = arg;
  uop_bench *b = a->b;
  switch (a->i) {
  case UI_COPY: return (int)cudaMemcpyAsync(b->d_out, b->d_in, a->n * a->c->elem,
                                            cudaMemcpyDeviceToDevice, 0);
  case UI_CUB: return peer_user_op_scan(a->c->peer, b->d_in, b->d_out, a->n);
  case UI_BUILTIN:
    return pscan_inclusive_scan(b->ctx, b->d_in, b->d_out, a->n, PSCAN_I32, PSCAN_SUM) == PSCAN_OK
               ? 0
               : -(pscan_error(b, "pscan_inclusive_scan", a->c));
  default: {
    pscan_user_op *op = (a->i == UI_PSCAN_ID ? b->ops_id : b->ops)[a->c - uop_cases];
    return pscan_scan_op(b->ctx, b->d_in, b->d_out, a->n, op, 0, NULL) == PSCAN_OK
               ? 0
               : -(pscan_error(b, "pscan_scan_op", a->c));
  }
  }
}

static int batch(call_args *a, long inner, double *seconds) {
  int e = gpu_timer_batch(&a->b->timer, inner, call_once, a, seconds);
  return e <= 0 ? -e : uop_cuda_error(e, "a timed batch");
}

/* ---- data and checks, a chunk at a time ---- */

static int upload(uop_bench *b, const uop_case *c, size_t n) {
  size_t per = CHUNK_BYTES / c->elem;
  for (size_t first = 0; first < n; first += per) {
    size_t count = n - first < per ? n - first : per;
    for (size_t k = 0; k < count; k++)
      c->fill(b->h_a + k * c->elem, first + k);
    int e = (int)cudaMemcpy((char *)b->d_in + first * c->elem, b->h_a, count * c->elem,
                            cudaMemcpyHostToDevice);
    if (e)
      return uop_cuda_error(e, "cudaMemcpy of the input");
  }
  return 0;
}

/* The output of implementation i against the sequential scan (the input, for the copy). */
static int check(uop_bench *b, const uop_case *c, size_t n, uimpl i) {
  size_t per = CHUNK_BYTES / c->elem;
  unsigned char acc[64];
  for (size_t first = 0; first < n; first += per) {
    size_t count = n - first < per ? n - first : per;
    int e = (int)cudaMemcpy(b->h_b, (const char *)b->d_out + first * c->elem, count * c->elem,
                            cudaMemcpyDeviceToHost);
    if (e)
      return uop_cuda_error(e, "cudaMemcpy of the output");
    for (size_t k = 0; k < count; k++) {
      c->fill(b->h_a, first + k);
      if (i == UI_COPY || first + k == 0)
        memcpy(acc, b->h_a, c->elem);
      else
        uop_combine(c, acc, b->h_a);
      if (!uop_equal(c, b->h_b + k * c->elem, acc)) {
        char count_s[32];
        cli_error("bench", "--user-op: WRONG RESULT: %s of %s at n = %s differs from the "
                  "sequential scan at element %zu", uimpl_names[i], c->name,
                  cli_format_count(n, count_s, sizeof count_s), first + k);
        return 1;
      }
    }
  }
  return 0;
}

/* ---- one (operator, n) ---- */

static int measure(uop_bench *b, const uop_case *c, size_t n, int reps) {
  uimpl impls[UI_COUNT] = {UI_COPY, UI_PSCAN, UI_CUB, UI_PSCAN_ID, UI_BUILTIN};
  int count = c->peer == PEER_UOP_SUM_I32 ? 5 : 4;
  long inner[UI_COUNT];
  static double samples[UI_COUNT][MAX_REPS];
  double sec[UI_COUNT];
  if (upload(b, c, n))
    return 1;
  for (int k = 0; k < count; k++) { /* warm up, check, calibrate */
    call_args a = {b, c, impls[k], n};
    double one;
    int e = (int)cudaMemset(b->d_out, 0x7F, n * c->elem);
    if (e)
      return uop_cuda_error(e, "cudaMemset");
    if (batch(&a, 1, &one) || check(b, c, n, impls[k]) || batch(&a, 1, &one))
      return 1;
    inner[k] = gpu_timer_inner(one);
  }
  for (int rep = 0; rep < reps; rep++)
    for (int k = 0; k < count; k++) {
      call_args a = {b, c, impls[k], n};
      if (batch(&a, inner[k], &samples[k][rep]))
        return 1;
    }
  for (int k = 0; k < count; k++)
    sec[k] = timing_median(samples[k], (size_t)reps);
  for (int k = 0; k < count; k++)
    uop_row(&b->out, c, n, 0, uimpl_names[impls[k]], uimpl_csv[impls[k]], sec[k], sec[0],
            impls[k] == UI_PSCAN || impls[k] == UI_PSCAN_ID ? sec[2] : 0, "CUB",
            impls[k] != UI_COPY);
  return 0;
}

/* ---- the costs around a call ---- */

/* Host time of one call at CALL_N items (no synchronisation between calls, the stream drained
   between rounds): the user operator's i32 SUM beside the built-in. */
static int call_costs(uop_bench *b, int rounds) {
  const uop_case *c = &uop_cases[UOP_NCASES - 1];
  double user[MAX_REPS], builtin[MAX_REPS];
  for (int r = 0; r < rounds; r++)
    for (int which = 0; which < 2; which++) {
      call_args a = {b, c, which ? UI_BUILTIN : UI_PSCAN, CALL_N};
      double t = timing_now();
      for (int i = 0; i < 2000; i++)
        if (call_once(&a))
          return 1;
      (which ? builtin : user)[r] = (timing_now() - t) / 2000;
      int e = (int)cudaDeviceSynchronize();
      if (e)
        return uop_cuda_error(e, "cudaDeviceSynchronize");
    }
  uop_call_costs(&b->out, CALL_N, 0, timing_median(user, (size_t)rounds),
                 timing_median(builtin, (size_t)rounds));
  return 0;
}

/* ---- the run ---- */

static void close_bench(uop_bench *b) {
  for (int k = 0; k < UOP_NCASES; k++) {
    pscan_op_destroy(b->ops[k]);
    pscan_op_destroy(b->ops_id[k]);
  }
  dbuf_free(b->d_in);
  dbuf_free(b->d_out);
  free(b->h_a);
  free(b->h_b);
  gpu_timer_close(&b->timer);
  peer_user_op_release();
  pscan_destroy(b->ctx);
}

/* The context, the operators, the events and buffers of max_bytes. */
static int open_bench(uop_bench *b, size_t max_bytes) {
  if (bench_gpu_context(&b->ctx))
    return 1;
  for (int k = 0; k < UOP_NCASES; k++) {
    pscan_op_desc d = uop_desc(&uop_cases[k], 0), id = uop_desc(&uop_cases[k], 1);
    if (pscan_op_create(b->ctx, &d, &b->ops[k]) != PSCAN_OK ||
        pscan_op_create(b->ctx, &id, &b->ops_id[k]) != PSCAN_OK)
      return pscan_error(b, "pscan_op_create", &uop_cases[k]);
  }
  int e = gpu_timer_open(&b->timer);
  if (e)
    return uop_cuda_error(e, "cudaEventCreate");
  dbuf_err err;
  if (!dbuf_alloc(&b->d_in, max_bytes, &err) || !dbuf_alloc(&b->d_out, max_bytes, &err)) {
    cli_error("bench", "--user-op: %s", err.msg);
    return 1;
  }
  b->h_a = malloc(CHUNK_BYTES);
  b->h_b = malloc(CHUNK_BYTES);
  if (!b->h_a || !b->h_b) {
    cli_error("bench", "--user-op: out of host memory");
    return 1;
  }
  return 0;
}

/* Whether (c, n)'s two buffers fit in 80% of the GPU memory free at the start. */
static bool fits(const uop_case *c, size_t n, size_t free_bytes) {
  return n <= SIZE_MAX / 2 / c->elem && n * c->elem <= free_bytes / 10 * 4;
}

static int sweep(uop_bench *b, const size_t *sizes, int nsizes, int reps, size_t free_bytes) {
  uop_table_header();
  for (int k = 0; k < UOP_NCASES; k++)
    for (int s = 0; s < nsizes; s++) {
      char n_s[32];
      cli_format_count(sizes[s], n_s, sizeof n_s);
      if (!fits(&uop_cases[k], sizes[s], free_bytes)) {
        fprintf(stderr, "pscan bench: --user-op: skipping %s at n = %s: its two buffers do not "
                "fit in 80%% of the GPU memory free\n", uop_cases[k].name, n_s);
        continue;
      }
      fprintf(stderr, "pscan bench: --user-op: %s, n = %s\n", uop_cases[k].name, n_s);
      if (measure(b, &uop_cases[k], sizes[s], reps))
        return 1;
    }
  return 0;
}

static void print_header(const char *machine, int reps) {
  printf("pscan bench --gpu --user-op: libpscan %s, CUDA backend on %s, median of %d batches "
         "timed with CUDA events\n"
         "operators from source (pscan_op_create, NVRTC) against cudaMemcpy device to device of "
         "the same bytes and\ncub::DeviceScan::InclusiveScan with the same operator as a C++ "
         "functor (and the built-in SUM for sum_i32);\nGB/s counts bytes read + written (2 x n "
         "x element bytes); every output is checked against a sequential scan\n",
         pscan_version_string(), machine, reps);
}

int bench_user_op_run(const size_t *sizes, int nsizes, int reps, bool quick, const char *csv_path,
                      const char *plot_prefix) {
  if (reps < 1 || reps > MAX_REPS)
    return cli_usage_error("bench", "--reps must be 1 to %d", MAX_REPS);
  size_t free_bytes = 0, total = 0, max_bytes = 0;
  int e = (int)cudaMemGetInfo(&free_bytes, &total);
  if (e) {
    cudaGetLastError();
    cli_error("bench", "no usable GPU: %s", cudaGetErrorString((cudaError_t)e));
    return 1;
  }
  for (int k = 0; k < UOP_NCASES; k++)
    for (int s = 0; s < nsizes; s++)
      if (fits(&uop_cases[k], sizes[s], free_bytes) && sizes[s] * uop_cases[k].elem > max_bytes)
        max_bytes = sizes[s] * uop_cases[k].elem;
  if (max_bytes == 0) {
    cli_error("bench", "--user-op: no size fits in GPU memory");
    return 1;
  }
  static plot_chart chart;
  char machine[320];
  uop_bench b = {.out = {.machine = machine, .chart = plot_prefix ? &chart : NULL}};
  bench_csv csv = {NULL, NULL};
  int rc = open_bench(&b, max_bytes < CALL_N * 4 ? CALL_N * 4 : max_bytes);
  if (rc == 0) {
    bench_gpu_describe(machine, sizeof machine);
    print_header(machine, reps);
    if (csv_path && !bench_csv_open_header(&csv, csv_path, UOP_CSV_HEADER))
      rc = 1;
    b.out.csv = csv.f;
  }
  if (rc == 0)
    rc = sweep(&b, sizes, nsizes, reps, free_bytes);
  if (rc == 0) {
    uop_by_key_env by_key = {b.ctx, b.ops, b.ops_id, &b.timer, &b.out};
    rc = uop_by_key_sweep(&by_key, sizes, nsizes, reps);
  }
  if (rc == 0)
    rc = call_costs(&b, quick ? 3 : 7);
  if (rc == 0)
    rc = uop_create_costs(&b.out, PSCAN_BACKEND_CUDA, quick ? 1 : 3);
  if (!bench_csv_close(&csv, csv_path, rc == 0) && rc == 0)
    rc = 1;
  if (rc == 0 && csv_path)
    printf("\nwrote %s\n", csv_path);
  if (rc == 0 && plot_prefix && !uop_plot_write(&chart, plot_prefix, "on the GPU", machine))
    rc = 1;
  close_bench(&b);
  return rc;
}
