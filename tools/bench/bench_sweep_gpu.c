/* `pscan bench --gpu --sweep`: the CUDA backend at each point of the sweep (bench_sweep.h), beside
 * CUB (peers_cub_sweep.cu for the compaction family, peers_cub.cu's DeviceScan::InclusiveSum for
 * the scans) and cudaMemcpy device to device, on the same device buffers and the default stream.
 *
 * Timing as in bench_gpu.c: per implementation one warm-up call, whose count (read back) and
 * output checksum must agree with the other implementation's, and one calibration batch; then
 * reps rounds, each timing one batch of each implementation with CUDA events. A batch repeats the
 * call to last GPU_TIMER_MIN_BATCH_MS (gpu_timer_inner); the result is the median batch divided
 * by its calls. pscan's counts go to a device size_t, CUB's to a device
 * int64: neither call waits for the host. */
#include "bench_sweep.h"

#include "gpu_timer.h"
#include "timing.h"
#include "cli/cli.h"
#include "io/device_buf.h"
#include "peers/peers_cub.h"
#include "peers/peers_cub_sweep.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPS = 1000 };

typedef struct gpu_state {
  pscan_ctx *ctx;
  gpu_timer timer;
  void *a, *out, *vals, *vout, *counts, *flags; /* a: keys, items or the scan's input */
  size_t *d_count;
  int64_t *d_num;
  sweep_held held;
  char name[320];
} gpu_state;

static int cuda_fail(int e, const char *what) {
  cudaGetLastError(); /* clear a non-sticky error */
  cli_error("bench", "--gpu --sweep: %s: %s (%s)", what, cudaGetErrorString((cudaError_t)e),
            cudaGetErrorName((cudaError_t)e));
  return 1;
}

static int point_fail(const sweep_point *p, const char *impl, const char *what) {
  char count[32];
  cli_error("bench", "--gpu --sweep: %s, %s, n = %s, run %zu, %d%%: %s (%s)",
            sweep_op_name(p->op), cli_dtype_name(p->key),
            cli_format_count(p->n, count, sizeof count), p->run_length, p->sel_pct, what, impl);
  return 1;
}

/* ---- data ---- */

static int fill_one(void *arg, sweep_fill what, const sweep_point *p) {
  gpu_state *s = arg;
  void *dst = what == SWEEP_FILL_VALS ? s->vals : what == SWEEP_FILL_FLAGS ? s->flags : s->a;
  int e = sweep_gpu_fill(what, p, dst);
  return e == 0 ? 0
                : cuda_fail(e, what == SWEEP_FILL_VALS    ? "filling the values"
                               : what == SWEEP_FILL_FLAGS ? "filling the flags"
                                                          : "filling the input");
}

static int gpu_fill(sweep_backend *b, const sweep_point *p) {
  return sweep_refill(&((gpu_state *)b->state)->held, p, fill_one, b->state);
}

/* ---- calls ---- */

enum { PSCAN_IMPL, CUB_IMPL };

/* Enqueues one call of impl at p. 0, or 1 after printing why. */
static int enqueue(gpu_state *s, int impl, const sweep_point *p) {
  size_t n = p->n;
  if (impl == CUB_IMPL) {
    int e;
    if (p->op == SWEEP_SCAN) {
      e = peer_gpu_scan(PEER_CUB, p->key, s->a, s->out, n, NULL);
    } else {
      sweep_gpu_bufs gb = {s->a, s->vals, s->flags, s->out, s->vout, s->counts, s->d_num};
      e = sweep_cub_call(p, &gb);
    }
    return e == 0 ? 0 : point_fail(p, "cub", cudaGetErrorString((cudaError_t)e));
  }
  int64_t thr64 = sweep_threshold(p->sel_pct < 0 ? 0 : p->sel_pct);
  int32_t thr32 = (int32_t)thr64;
  const void *thr = pscan_dtype_size(p->key) == 8 ? (const void *)&thr64 : (const void *)&thr32;
  pscan_ctx *c = s->ctx;
  size_t *cnt = s->d_count;
  pscan_status st = PSCAN_OK;
  switch (p->op) {
  case SWEEP_SELECT_IF: st = pscan_select_if(c, s->a, s->out, n, p->key, PSCAN_LT, thr, cnt); break;
  case SWEEP_SELECT_FLAGGED:
    st = pscan_select_flagged(c, s->a, s->flags, s->out, n, p->key, cnt);
    break;
  case SWEEP_PARTITION_IF:
    st = pscan_partition_if(c, s->a, s->out, n, p->key, PSCAN_LT, thr, cnt);
    break;
  case SWEEP_UNIQUE: st = pscan_unique(c, s->a, s->out, n, p->key, cnt); break;
  case SWEEP_RUN_LENGTH_ENCODE:
    st = pscan_run_length_encode(c, s->a, s->out, s->counts, n, p->key, cnt);
    break;
  case SWEEP_REDUCE_BY_KEY:
    st = pscan_reduce_by_key(c, s->a, p->key, s->vals, p->val, s->out, s->vout, n, PSCAN_SUM, cnt);
    break;
  case SWEEP_SCAN_BY_KEY:
    st = pscan_scan_by_key(c, s->a, p->key, s->vals, s->vout, n, p->val, PSCAN_SUM, 0, NULL);
    break;
  case SWEEP_SCAN: st = pscan_inclusive_scan(c, s->a, s->out, n, p->key, PSCAN_SUM); break;
  default: break;
  }
  return st == PSCAN_OK ? 0 : point_fail(p, "pscan", pscan_last_error(c));
}

/* The count of the call just made (n for the scans and scan_by_key). */
static int read_count(gpu_state *s, int impl, const sweep_point *p, size_t *count) {
  int e;
  if (p->op == SWEEP_SCAN || p->op == SWEEP_SCAN_BY_KEY) {
    *count = p->n;
    return (e = cudaDeviceSynchronize()) == cudaSuccess ? 0 : cuda_fail(e, "a call");
  }
  if (impl == PSCAN_IMPL)
    e = cudaMemcpy(count, s->d_count, sizeof *count, cudaMemcpyDeviceToHost);
  else {
    int64_t v = 0;
    e = cudaMemcpy(&v, s->d_num, sizeof v, cudaMemcpyDeviceToHost);
    *count = (size_t)v;
  }
  return e == cudaSuccess ? 0 : cuda_fail(e, "reading a count back");
}

/* The checksum of what the call wrote (RLE: the keys only; pscan's run lengths are 8 bytes wide
   and CUB's 4, so their bytes differ; the tests check pscan's run lengths). */
static int output_sum(gpu_state *s, const sweep_point *p, size_t count, unsigned long long *h) {
  size_t ks = pscan_dtype_size(p->key), vs = pscan_dtype_size(p->val);
  unsigned long long h2 = 0;
  int e;
  switch (p->op) {
  case SWEEP_PARTITION_IF: e = sweep_gpu_checksum(s->out, p->n * ks, h); break;
  case SWEEP_SCAN: e = sweep_gpu_checksum(s->out, p->n * ks, h); break;
  case SWEEP_SCAN_BY_KEY: e = sweep_gpu_checksum(s->vout, p->n * vs, h); break;
  case SWEEP_REDUCE_BY_KEY:
    e = sweep_gpu_checksum(s->out, count * ks, h);
    if (e == 0)
      e = sweep_gpu_checksum(s->vout, count * vs, &h2);
    *h ^= h2 * 3;
    break;
  default: e = sweep_gpu_checksum(s->out, count * ks, h); break;
  }
  return e == 0 ? 0 : cuda_fail(e, "the output's checksum");
}

typedef struct call_args {
  gpu_state *s;
  int impl;
  const sweep_point *p;
  size_t bytes; /* the copy's */
} call_args;

static int call_once(void *arg) {
  call_args *c = arg;
  return -enqueue(c->s, c->impl, c->p);
}

static int copy_once(void *arg) {
  call_args *c = arg;
  return (int)cudaMemcpyAsync(c->s->out, c->s->a, c->bytes, cudaMemcpyDeviceToDevice, 0);
}

/* inner calls between two events; seconds per call. */
static int batch(gpu_state *s, int impl, const sweep_point *p, long inner, double *seconds) {
  call_args c = {s, impl, p, 0};
  int e = gpu_timer_batch(&s->timer, inner, call_once, &c, seconds);
  return e <= 0 ? -e : cuda_fail(e, "timing a batch with CUDA events");
}

static int gpu_measure(sweep_backend *b, sweep_result *r, int reps) {
  gpu_state *s = b->state;
  const sweep_point *p = &r->p;
  static double samples[2][MAX_REPS];
  long inner[2];
  size_t kept[2];
  unsigned long long sum[2];
  for (int i = 0; i < 2; i++) {
    double one;
    int e = cudaMemset(s->out, 0x7F, p->n * pscan_dtype_size(p->key));
    if (e != cudaSuccess)
      return cuda_fail(e, "cudaMemset");
    if (batch(s, i, p, 1, &one) || read_count(s, i, p, &kept[i]) ||
        output_sum(s, p, kept[i], &sum[i]))
      return 1;
    if (batch(s, i, p, 1, &one))
      return 1;
    inner[i] = gpu_timer_inner(one);
  }
  if (kept[0] != kept[1])
    return point_fail(p, "pscan against cub", "WRONG RESULT: the counts differ");
  if (sum[0] != sum[1])
    return point_fail(p, "pscan against cub", "WRONG RESULT: the outputs differ");
  for (int rep = 0; rep < reps; rep++)
    for (int i = 0; i < 2; i++)
      if (batch(s, i, p, inner[i], &samples[i][rep]))
        return 1;
  r->pscan_s = timing_median(samples[0], (size_t)reps);
  r->peer_s = timing_median(samples[1], (size_t)reps);
  r->pscan_bytes = sweep_bytes(p, kept[0], 8);
  r->peer_bytes = sweep_bytes(p, kept[1], 4); /* CUB's run lengths: int */
  r->peer = "cub";
  return 0;
}

static int gpu_copy(sweep_backend *b, size_t bytes, int reps, double *seconds) {
  gpu_state *s = b->state;
  static double v[MAX_REPS];
  long inner = 1;
  call_args c = {s, 0, NULL, bytes};
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up and calibration */
    double one = 0;
    int e = gpu_timer_batch(&s->timer, inner, copy_once, &c, &one);
    if (e != 0)
      return cuda_fail(e, "the copy");
    if (r < 0) {
      inner = gpu_timer_inner(one);
    } else {
      v[r] = one;
    }
  }
  *seconds = timing_median(v, (size_t)reps);
  return 0;
}

static double gpu_available(sweep_backend *b) {
  size_t free_bytes = 0, total = 0;
  (void)b;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return (double)free_bytes * 0.8;
}

static void gpu_close(sweep_backend *b) {
  gpu_state *s = b->state;
  if (!s)
    return;
  void *bufs[] = {s->a, s->out, s->vals, s->vout, s->counts, s->flags, s->d_count, s->d_num};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    dbuf_free(bufs[i]);
  gpu_timer_close(&s->timer);
  sweep_cub_release();
  peer_gpu_release();
  pscan_destroy(s->ctx);
  free(s);
  b->state = NULL;
}

static int gpu_open(sweep_backend *b, size_t compact_n, size_t scan_n, const sweep_opts *o) {
  gpu_state *s = b->state;
  size_t an = compact_n > scan_n ? compact_n : scan_n;
  dbuf_err err;
  (void)o;
  if (!dbuf_alloc(&s->a, an * 8, &err) || !dbuf_alloc(&s->out, an * 8, &err) ||
      !dbuf_alloc(&s->vals, compact_n * 8, &err) || !dbuf_alloc(&s->vout, compact_n * 8, &err) ||
      !dbuf_alloc(&s->counts, compact_n * 8, &err) || !dbuf_alloc(&s->flags, compact_n, &err) ||
      !dbuf_alloc((void **)&s->d_count, sizeof(size_t), &err) ||
      !dbuf_alloc((void **)&s->d_num, sizeof(int64_t), &err)) {
    cli_error("bench", "--gpu --sweep: %s", err.msg);
    return 1;
  }
  return 0;
}

int sweep_gpu_backend(sweep_backend *b, const sweep_opts *o) {
  (void)o;
  gpu_state *s = calloc(1, sizeof *s);
  if (!s) {
    cli_error("bench", "out of memory");
    return 1;
  }
  b->state = s;
  pscan_status st = pscan_create(&s->ctx, PSCAN_BACKEND_CUDA);
  if (st != PSCAN_OK) {
    cli_error("bench", "no usable GPU: %s: %s", pscan_status_name(st), pscan_last_error(NULL));
    gpu_close(b);
    return 1;
  }
  int e = gpu_timer_open(&s->timer);
  if (e != 0) {
    cuda_fail(e, "cudaEventCreate");
    gpu_close(b);
    return 1;
  }
  int dev = 0;
  struct cudaDeviceProp prop;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    snprintf(s->name, sizeof s->name, "%s (sm_%d%d, %d SMs, %.0f GiB)", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount, (double)prop.totalGlobalMem / (1 << 30));
  else
    snprintf(s->name, sizeof s->name, "GPU %d", dev), cudaGetLastError();
  b->name = s->name;
  b->peer_kind = "CUB (DeviceSelect, DevicePartition, DeviceRunLengthEncode, DeviceReduce, "
                 "DeviceScan)";
  b->copy_kind = "cudaMemcpy device to device of the n keys";
  b->default_reps = 9;
  b->available = gpu_available;
  b->open = gpu_open;
  b->fill = gpu_fill;
  b->measure = gpu_measure;
  b->copy = gpu_copy;
  b->close = gpu_close;
  return 0;
}
