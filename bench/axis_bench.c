/* The benchmark of scans along an axis and by segments (issue "Batched scans"): pscan_scan_axis
 * and pscan_segmented_scan against the ceiling measured in the same run, a copy of the same bytes
 * (CPU: a streaming-store copy on as many threads; GPU: cudaMemcpy device to device), and on the
 * GPU the CUB peer for segments (axis_cub.cu). Medians of --reps runs after a warm-up.
 *
 *   pscan_axis_bench [--gpu] [--threads N] [--reps R] [--quick] [--csv FILE]
 *                    [--shape S] [--axis K] [--type T] [--no-segments] [--segments-only]
 *                    [--k K] [--sync-each] [--pool-keep]
 *
 * --shape "(1048576,64)" (reversed: "rev(1048576,64)"; a reversed view into a forward output:
 * "flip(268435456,)"; several: "(1048576,64)|rev(1048576,64)"),
 * --axis 0 and --type f32|i32|f64 keep only the matching axis cases;
 * --no-segments and --segments-only pick one of the two parts; --k K keeps the segments of mean
 * length K only; --pool-keep has the device's stream-ordered memory pool keep what is freed to it
 * (cudaMemPoolAttrReleaseThreshold; the driver's default releases it at each synchronisation).
 * GPU samples are batches of calls back to back (time_ms); --sync-each times every call alone,
 * its host part included.
 *
 * CSV columns: backend, kind (axis|segmented), dtype, shape ("rev" in front of a reversed scan's),
 * axis (or k of the segment lengths),
 * elements, bytes copied, pscan ms, copy ms, pscan % of copy, peer name, peer ms. The Python peers
 * (numpy, torch, cupy, jax) are measured by bench/py_axis_peers.py on the same shapes. */
#define _POSIX_C_SOURCE 200809L
#include "pscan.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif
#ifdef AXIS_BENCH_CUDA
#include <cuda_runtime.h>
/* axis_cub.cu: CUB's scan by key over segment ids (CUB has no scan by offsets), ms per run. */
double axis_cub_scan_by_key_ms(int dtype, const void *in, void *out, const int32_t *keys, size_t n,
                               int reps, int sync_each);
#endif

typedef struct shape_case {
  int ndim;
  int64_t shape[2];
  int axis;
  int reverse; /* 1: reverse, reported with "rev" in front; 2: the input read through a view
                  reversed along the axis (a stride of -1) into a forward output, "flip" in front */
} shape_case;

/* The shapes of the table. */
static const shape_case shapes[] = {
    {2, {16384, 16384}, 0, 0}, {2, {16384, 16384}, 1, 0}, {2, {1048576, 64}, 0, 0},
    {2, {1048576, 64}, 1, 0},  {2, {64, 4194304}, 1, 0},  {2, {64, 4194304}, 0, 0},
    {2, {1000000, 256}, 0, 0}, {2, {122996, 1024}, 1, 0}, {1, {268435456, 0}, 0, 0},
    /* more side by side widths (one pass with a look-back along the axis from 32 columns) */
    {2, {8388608, 32}, 0, 0},  {2, {2097152, 128}, 0, 0}, {2, {524288, 512}, 0, 0},
    {2, {262144, 1000}, 0, 0}, {2, {4194304, 40}, 0, 0},
    /* wide side by side (from ~4000 columns each block walks a strip of columns down the axis) */
    {2, {65536, 4096}, 0, 0},  {2, {32768, 8192}, 0, 0},  {2, {4096, 65536}, 0, 0},
    /* reversed (pscan_scan_axis's reverse) */
    {1, {268435456, 0}, 0, 1}, {2, {64, 4194304}, 1, 1}, {2, {1048576, 64}, 1, 1},
    {2, {16384, 16384}, 0, 1},
    /* cumsum of x[::-1] (x[:, ::-1] along axis 1) into a fresh array */
    {1, {268435456, 0}, 0, 2}, {2, {1048576, 64}, 1, 2}, {2, {64, 4194304}, 1, 2},
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the CPU ceiling: a streaming-store copy on nthreads threads ---- */

typedef struct copy_part {
  char *dst;
  const char *src;
  size_t bytes;
} copy_part;

static void *copy_thread(void *arg) {
  copy_part *p = arg;
  size_t i = 0;
#if defined(__x86_64__)
  size_t head = (16 - (uintptr_t)p->dst % 16) % 16;
  head = head > p->bytes ? p->bytes : head;
  memcpy(p->dst, p->src, head);
  for (i = head; i + 64 <= p->bytes; i += 64)
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128((__m128i *)(void *)(p->dst + i + k),
                       _mm_loadu_si128((const __m128i *)(const void *)(p->src + i + k)));
  _mm_sfence();
#endif
  memcpy(p->dst + i, p->src + i, p->bytes - i);
  return NULL;
}

static void stream_copy(void *dst, const void *src, size_t bytes, int nthreads) {
  pthread_t th[256];
  copy_part parts[256];
  for (int t = 0; t < nthreads; t++) {
    size_t b = bytes * (size_t)t / (size_t)nthreads, e = bytes * (size_t)(t + 1) / (size_t)nthreads;
    parts[t] = (copy_part){(char *)dst + b, (const char *)src + b, e - b};
    if (t > 0)
      pthread_create(&th[t], NULL, copy_thread, &parts[t]);
  }
  copy_thread(&parts[0]);
  for (int t = 1; t < nthreads; t++)
    pthread_join(th[t], NULL);
}

/* ---- buffers and timing on either backend ---- */

typedef struct bench {
  pscan_ctx *ctx;
  int gpu, threads, reps, sync_each;
  FILE *csv;
} bench;

static void *buf_alloc(const bench *b, size_t bytes) {
#ifdef AXIS_BENCH_CUDA
  if (b->gpu) {
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess)
      return NULL;
    cudaMemset(d, 1, bytes);
    return d;
  }
#endif
  (void)b;
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes) != 0)
    return NULL;
  memset(p, 1, bytes); /* small values; touched so that the first run pays no page faults */
  return p;
}

static void buf_free(const bench *b, void *p) {
#ifdef AXIS_BENCH_CUDA
  if (b->gpu) {
    cudaFree(p);
    return;
  }
#endif
  (void)b;
  free(p);
}

static void buf_upload(const bench *b, void *dst, const void *src, size_t bytes) {
#ifdef AXIS_BENCH_CUDA
  if (b->gpu) {
    cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    return;
  }
#endif
  (void)b;
  memcpy(dst, src, bytes);
}

typedef enum { RUN_AXIS, RUN_SEGMENTED, RUN_COPY } run_kind;

typedef struct run_args {
  run_kind kind;
  const pscan_axis_args *axis;
  const void *in;
  void *out;
  size_t bytes; /* RUN_COPY */
  pscan_dtype type;
  const int64_t *offsets;
  size_t nseg;
  int reverse; /* RUN_SEGMENTED */
} run_args;

static pscan_status run_once(const bench *b, const run_args *r) {
  switch (r->kind) {
  case RUN_AXIS: return pscan_scan_axis(b->ctx, r->axis);
  case RUN_SEGMENTED:
    return pscan_segmented_scan(b->ctx, r->in, r->out, r->type, PSCAN_SUM, r->offsets, r->nseg, 0,
                                r->reverse, NULL);
  case RUN_COPY:
#ifdef AXIS_BENCH_CUDA
    if (b->gpu)
      return cudaMemcpyAsync(r->out, r->in, r->bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess
                 ? PSCAN_OK
                 : PSCAN_ERR_DEVICE;
#endif
    stream_copy(r->out, r->in, r->bytes, b->threads);
    return PSCAN_OK;
  }
  return PSCAN_ERR_INTERNAL;
}

#ifdef AXIS_BENCH_CUDA
/* ms of one GPU sample: `inner` calls back to back between two events, per call. */
static double gpu_sample_ms(const bench *b, const run_args *r, int inner) {
  cudaEvent_t e0, e1;
  float ms = 0;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  cudaEventRecord(e0, 0);
  for (int j = 0; j < inner; j++)
    run_once(b, r);
  cudaEventRecord(e1, 0);
  cudaEventSynchronize(e1);
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  return ms / inner;
}
#endif

/* Median ms of reps runs after one warm-up; a negative value on failure (message printed).
   GPU: each sample is a batch of calls back to back (as tools/bench/bench_gpu.c times the flat
   scans), enough for ~2 ms, so that the host's part of a call (argument checks, a workspace
   from the stream-ordered pool, the launches) overlaps the call before it, as in a pipeline of
   calls; with --sync-each every call is a sample of its own, host part included. */
static double time_ms(const bench *b, const run_args *r) {
  double t[64];
  int reps = b->reps > 64 ? 64 : b->reps;
  pscan_status s = run_once(b, r);
  if (s != PSCAN_OK) {
    fprintf(stderr, "  refused: %s (%s)\n", pscan_status_name(s), pscan_last_error(b->ctx));
    return -1;
  }
#ifdef AXIS_BENCH_CUDA
  if (b->gpu) {
    int inner = 1;
    if (!b->sync_each) {
      double one = gpu_sample_ms(b, r, 1);
      inner = one > 0 ? (int)(2.0 / one) : 64;
      inner = inner < 1 ? 1 : inner > 64 ? 64 : inner;
    }
    for (int i = 0; i < reps; i++)
      t[i] = gpu_sample_ms(b, r, inner);
    return median(t, reps);
  }
#endif
  for (int i = 0; i < reps; i++) {
    double t0 = now_ms();
    run_once(b, r);
    t[i] = now_ms() - t0;
  }
  return median(t, reps);
}

static const char *type_name(pscan_dtype t) {
  return t == PSCAN_F32 ? "f32" : t == PSCAN_I32 ? "i32" : t == PSCAN_F64 ? "f64" : "?";
}

static void report(const bench *b, const char *kind, pscan_dtype t, const char *shape, long axis,
                   size_t n, size_t bytes, double ms, double copy_ms, const char *peer,
                   double peer_ms) {
  double pct = ms > 0 ? 100 * copy_ms / ms : 0;
  printf("%-4s %-9s %-4s %-18s %8ld %12zu  pscan %9.3f ms  copy %9.3f ms  %6.1f%% of copy", b->gpu ? "gpu" : "cpu",
         kind, type_name(t), shape, axis, n, ms, copy_ms, pct);
  if (peer)
    printf("  %s %9.3f ms", peer, peer_ms);
  printf("\n");
  if (b->csv)
    fprintf(b->csv, "%s,%s,%s,\"%s\",%ld,%zu,%zu,%.4f,%.4f,%.2f,%s,%.4f\n", b->gpu ? "gpu" : "cpu",
            kind, type_name(t), shape, axis, n, bytes, ms, copy_ms, pct, peer ? peer : "",
            peer ? peer_ms : 0.0);
}

static void shape_text(const shape_case *c, char *shape, size_t size) {
  const char *rev = c->reverse == 2 ? "flip" : c->reverse ? "rev" : "";
  if (c->ndim == 1)
    snprintf(shape, size, "%s(%lld,)", rev, (long long)c->shape[0]);
  else
    snprintf(shape, size, "%s(%lld,%lld)", rev, (long long)c->shape[0], (long long)c->shape[1]);
}

/* want: one shape as printed, or several separated by '|'. */
static int shape_matches(const shape_case *c, const char *want) {
  char shape[64];
  shape_text(c, shape, sizeof shape);
  for (const char *w = want;; w++) {
    const size_t len = strcspn(w, "|");
    if (len == strlen(shape) && strncmp(shape, w, len) == 0)
      return 1;
    w += len;
    if (*w == '\0')
      return 0;
  }
}

static void bench_axis(const bench *b, const shape_case *c, pscan_dtype t) {
  size_t n = (size_t)c->shape[0] * (size_t)(c->ndim > 1 ? c->shape[1] : 1);
  size_t bytes = n * pscan_dtype_size(t);
  void *in = buf_alloc(b, bytes), *out = buf_alloc(b, bytes);
  char shape[64];
  shape_text(c, shape, sizeof shape);
  if (!in || !out) {
    fprintf(stderr, "%s %s: out of memory for 2 x %zu bytes, skipped\n", type_name(t), shape, bytes);
    buf_free(b, in), buf_free(b, out);
    return;
  }
  pscan_axis_args a = {.in = in, .in_type = t, .out = out, .out_type = t, .ndim = c->ndim,
                       .shape = c->shape, .axis = c->axis, .op = PSCAN_SUM,
                       .reverse = c->reverse == 1};
  int64_t flip_strides[2] = {c->ndim == 1 ? -1 : c->shape[1], 1};
  if (c->reverse == 2) { /* (1-D, or the last axis of 2-D: item 0 of line 0 at its last element) */
    flip_strides[c->ndim - 1] = -1;
    a.in = (const char *)in + (size_t)(c->shape[c->ndim - 1] - 1) * pscan_dtype_size(t);
    a.in_strides = flip_strides;
  }
  run_args ra = {.kind = RUN_AXIS, .axis = &a}, rc = {.kind = RUN_COPY, .in = in, .out = out,
                                                      .bytes = bytes};
  double copy_ms = time_ms(b, &rc), ms = time_ms(b, &ra);
  if (ms >= 0)
    report(b, "axis", t, shape, c->axis, n, bytes, ms, copy_ms, NULL, 0);
  buf_free(b, in), buf_free(b, out);
}

/* Segment lengths uniform in [0, 2k], 2^log_n items in all (the last segment cut to fit). */
static void bench_segments(const bench *b, int log_n, size_t k, pscan_dtype t, int reverse) {
  size_t n = (size_t)1 << log_n, cap = n / (k ? k : 1) + 16, size = pscan_dtype_size(t);
  int64_t *off = malloc((cap + 1) * sizeof *off);
  int32_t *keys = malloc(n * sizeof *keys);
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  size_t s = 0, pos = 0;
  off[0] = 0;
  while (pos < n && s + 1 < cap) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    size_t len = (size_t)((rng >> 33) % (2 * k + 1));
    len = len > n - pos ? n - pos : len;
    for (size_t i = pos; i < pos + len; i++)
      keys[i] = (int32_t)(s & 0x7fffffff);
    pos += len;
    off[++s] = (int64_t)pos;
  }
  for (; pos < n; pos++)
    keys[pos] = (int32_t)s;
  off[s] = (int64_t)n;
  void *in = buf_alloc(b, n * size), *out = buf_alloc(b, n * size);
  int64_t *d_off = buf_alloc(b, (s + 1) * sizeof *off);
  if (!in || !out || !d_off) {
    fprintf(stderr, "segments k %zu: out of memory, skipped\n", k);
  } else {
    buf_upload(b, d_off, off, (s + 1) * sizeof *off);
    size_t bytes = n * size + (s + 1) * sizeof *off; /* the offsets are read too */
    run_args rs = {.kind = RUN_SEGMENTED, .in = in, .out = out, .type = t, .offsets = d_off,
                   .nseg = s, .reverse = reverse};
    /* the ceiling: the copy of in, its time scaled to the bytes of in and the offsets */
    run_args rc = {.kind = RUN_COPY, .in = in, .out = out, .bytes = n * size};
    double copy_ms = time_ms(b, &rc) * (double)bytes / (double)(n * size);
    double ms = time_ms(b, &rs), peer_ms = 0;
    const char *peer = NULL;
#ifdef AXIS_BENCH_CUDA
    if (b->gpu && !reverse) {
      int32_t *d_keys = buf_alloc(b, n * sizeof *keys);
      if (d_keys) {
        buf_upload(b, d_keys, keys, n * sizeof *keys);
        peer_ms = axis_cub_scan_by_key_ms((int)t, in, out, d_keys, n, b->reps, b->sync_each);
        peer = "cub-scan-by-key";
        buf_free(b, d_keys);
      }
    }
#endif
    char shape[64];
    snprintf(shape, sizeof shape, "%s2^%d items, %zu segs", reverse ? "rev " : "", log_n, s);
    if (ms >= 0)
      report(b, "segmented", t, shape, (long)k, n, bytes, ms, copy_ms, peer, peer_ms);
  }
  buf_free(b, in), buf_free(b, out), buf_free(b, d_off);
  free(off);
  free(keys);
}

int main(int argc, char **argv) {
  bench b = {.reps = 11};
  const char *csv = NULL, *only_shape = NULL, *only_type = NULL;
  int quick = 0, only_axis = -1, no_segments = 0, segments_only = 0, pool_keep = 0;
  long only_k = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--gpu") == 0)
      b.gpu = 1;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      b.threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      b.reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
      csv = argv[++i];
    else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
      only_shape = argv[++i];
    else if (strcmp(argv[i], "--axis") == 0 && i + 1 < argc)
      only_axis = atoi(argv[++i]);
    else if (strcmp(argv[i], "--type") == 0 && i + 1 < argc)
      only_type = argv[++i];
    else if (strcmp(argv[i], "--sync-each") == 0)
      b.sync_each = 1;
    else if (strcmp(argv[i], "--no-segments") == 0)
      no_segments = 1;
    else if (strcmp(argv[i], "--segments-only") == 0)
      segments_only = 1;
    else if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
      only_k = atol(argv[++i]);
    else if (strcmp(argv[i], "--pool-keep") == 0)
      pool_keep = 1;
    else {
      fprintf(stderr,
              "usage: %s [--gpu] [--threads N] [--reps R] [--quick] [--csv FILE] [--shape S]\n"
              "       [--axis K] [--type f32|i32|f64] [--no-segments] [--segments-only]\n"
              "       [--k K] [--sync-each] [--pool-keep]\n",
              argv[0]);
      return 2;
    }
  }
  if (b.reps < 1)
    b.reps = 1;
  pscan_status s = pscan_create(&b.ctx, b.gpu ? PSCAN_BACKEND_CUDA : PSCAN_BACKEND_CPU);
  if (s != PSCAN_OK) {
    fprintf(stderr, "pscan_create: %s (%s)\n", pscan_status_name(s), pscan_last_error(NULL));
    return 1;
  }
#ifdef AXIS_BENCH_CUDA
  if (b.gpu && pool_keep) { /* the device's stream-ordered pool keeps what is freed to it */
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess)
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
#else
  (void)pool_keep;
#endif
  if (!b.gpu) {
    if (b.threads > 0)
      pscan_set_param(b.ctx, PSCAN_PARAM_THREADS, b.threads);
    else {
      long nc = sysconf(_SC_NPROCESSORS_ONLN);
      b.threads = nc > 0 ? (int)nc : 1;
    }
  }
  if (csv) {
    b.csv = fopen(csv, "w");
    if (!b.csv) {
      perror(csv);
      return 1;
    }
    fprintf(b.csv, "backend,kind,dtype,shape,axis_or_k,elements,bytes,pscan_ms,copy_ms,"
                   "pct_of_copy,peer,peer_ms\n");
  }
  printf("pscan %s, %s, %d reps (medians%s)%s\n", pscan_version_string(),
         b.gpu ? "CUDA backend" : "CPU backend", b.reps,
         !b.gpu ? "" : b.sync_each ? ", each call synchronised" : ", of calls back to back",
         quick ? ", quick" : "");
  static const pscan_dtype types[] = {PSCAN_F32, PSCAN_I32, PSCAN_F64};
  int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  for (int ti = 0; ti < 3 && !segments_only; ti++)
    for (int k = 0; k < nshapes; k++) {
      if (only_type && strcmp(only_type, type_name(types[ti])) != 0)
        continue;
      if (only_axis >= 0 && shapes[k].axis != only_axis)
        continue;
      if (only_shape && !shape_matches(&shapes[k], only_shape))
        continue;
      if (types[ti] == PSCAN_F64 && k % 3 != 0 && !only_type) /* f64 for a few */
        continue;
      if (quick && shapes[k].ndim == 1 && !b.gpu) /* 2 x 1 GiB: not in a quick CPU run */
        continue;
      bench_axis(&b, &shapes[k], types[ti]);
    }
  /* the k and 4 (short segments, where the starts go as bits on the GPU) */
  static const size_t ks[] = {1, 4, 32, 1024, 1 << 20};
  for (int ti = 0; ti < 2 && !no_segments; ti++)
    for (int k = 0; k < 5; k++)
      if (only_k < 0 || (size_t)only_k == ks[k])
        bench_segments(&b, quick && !b.gpu ? 24 : 28, ks[k], types[ti], 0);
  for (int ti = 0; ti < 2 && !no_segments; ti++) /* reversed, segments of ~1 and ~32 */
    for (int k = 0; k < 3; k += 2)
      if (only_k < 0 || (size_t)only_k == ks[k])
        bench_segments(&b, quick && !b.gpu ? 24 : 28, ks[k], types[ti], 1);
  if (b.csv)
    fclose(b.csv);
  pscan_destroy(b.ctx);
  return 0;
}
