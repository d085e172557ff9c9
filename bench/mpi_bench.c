/* pscan_mpi_bench: weak scaling of the distributed scan, with its ceiling and a peer in the same
 * run. Every rank holds a shard of --n elements (default 2^26; --type i64, i32 or f64) and, all
 * ranks at once after a barrier, times (median of --reps):
 *   copy   its own copy of the shard (memcpy; cudaMemcpy on the GPU): the rank's ceiling
 *   local  its own single-device pscan scan of the shard (what the ranks could do alone)
 *   mpi    pscan_mpi_scan over all shards
 *   coll   pscan_mpi_scan with empty shards: the collectives alone (agreement, MPI_Exscan, outcome)
 *   reduce its own pscan_reduce of the shard (a read of n): with local, what the 3n form costs
 *   peer   (CPU) a plain loop cumsum, MPI_Exscan of the totals (MPI_SUM), a plain loop adding the
 *          prefix: what MPI_Scan over totals plus a local numpy cumsum does
 * GB/s counts a scan's useful bytes, n read + n written, as for one device. Rank 0 prints each
 * rank's figures and the aggregate: mpi throughput (all elements / slowest rank) against the sum
 * of the ranks' local scans. --threads sets each CPU context's threads (default: cores / ranks).
 * --op affine: the same with a user operator from source (f32 affine maps, 8-byte elements; the
 * linear recurrence): pscan_scan_op, pscan_mpi_scan_op and pscan_reduce_op; no peer. */
#define _POSIX_C_SOURCE 200809L
#include "pscan_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef PSCAN_MPI_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

enum { T_COPY, T_LOCAL, T_MPI, T_COLL, T_PEER, T_REDUCE, T_COUNT };
static const char *const names[T_COUNT] = {"copy", "local", "mpi", "coll", "peer", "reduce"};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int rank, nranks, cuda;
static pscan_ctx *ctx;
static pscan_user_op *affine; /* --op affine */
static const char affine_src[] =
    "typedef struct { float a, b; } affine;\n"
    "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }\n";
static void *in, *out;
static size_t n, es;
static pscan_dtype type;

static void die(const char *what, pscan_status s) {
  fprintf(stderr, "rank %d: %s: %s: %s\n", rank, what, pscan_status_name(s),
          pscan_mpi_last_error(ctx)[0] ? pscan_mpi_last_error(ctx) : pscan_last_error(ctx));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void sync_dev(void) {
#ifdef PSCAN_MPI_BENCH_CUDA
  if (cuda)
    cudaDeviceSynchronize();
#endif
}

/* The plain loop peer (i64 or i32 sums on the host). */
static void peer(void) {
  int64_t total = 0, prefix = 0;
  if (type == PSCAN_F64) {
    double *a = in, *b = out, acc = 0, pre = 0;
    for (size_t i = 0; i < n; i++)
      b[i] = acc += a[i];
    MPI_Exscan(&acc, &pre, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      pre = 0;
    for (size_t i = 0; i < n; i++)
      b[i] += pre;
    return;
  }
  if (type == PSCAN_I64) {
    int64_t *a = in, *b = out, acc = 0;
    for (size_t i = 0; i < n; i++)
      b[i] = acc += a[i];
    total = acc;
  } else {
    int32_t *a = in, *b = out, acc = 0;
    for (size_t i = 0; i < n; i++)
      b[i] = acc += a[i];
    total = acc;
  }
  MPI_Exscan(&total, &prefix, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    prefix = 0;
  if (type == PSCAN_I64) {
    int64_t *b = out;
    for (size_t i = 0; i < n; i++)
      b[i] += prefix;
  } else {
    int32_t *b = out;
    for (size_t i = 0; i < n; i++)
      b[i] += (int32_t)prefix;
  }
}

static void run_one(int what) {
  pscan_status s = PSCAN_OK;
  pscan_scan_args a = {.in = in, .in_type = type, .out = out, .out_type = type, .n = n,
                       .op = PSCAN_SUM};
  if (affine && what != T_COPY) {
    float total[2];
    size_t m = what == T_COLL ? 0 : n;
    s = what == T_LOCAL    ? pscan_scan_op(ctx, in, out, m, affine, 0, NULL)
        : what == T_REDUCE ? pscan_reduce_op(ctx, in, m, affine, NULL, total)
                           : pscan_mpi_scan_op(ctx, MPI_COMM_WORLD, in, out, m, affine, 0, NULL);
    if (s != PSCAN_OK)
      die(names[what], s);
    sync_dev();
    return;
  }
  switch (what) {
  case T_COPY:
#ifdef PSCAN_MPI_BENCH_CUDA
    if (cuda) {
      cudaMemcpy(out, in, n * es, cudaMemcpyDeviceToDevice);
      break;
    }
#endif
    memcpy(out, in, n * es);
    break;
  case T_LOCAL: s = pscan_scan(ctx, &a); break;
  case T_MPI: s = pscan_mpi_scan(ctx, MPI_COMM_WORLD, &a); break;
  case T_COLL: a.n = 0; s = pscan_mpi_scan(ctx, MPI_COMM_WORLD, &a); break;
  case T_PEER: peer(); break;
  case T_REDUCE: {
    int64_t total = 0;
    s = pscan_reduce(ctx, &a, &total);
    break;
  }
  }
  if (s != PSCAN_OK)
    die(names[what], s);
  sync_dev();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  n = (size_t)1 << 26;
  int reps = 10, threads = -1;
  type = PSCAN_I64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--n"))
      n = (size_t)strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--reps"))
      reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--threads"))
      threads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--type"))
      type = !strcmp(argv[i + 1], "i32") ? PSCAN_I32 : !strcmp(argv[i + 1], "f64") ? PSCAN_F64
                                                                              : PSCAN_I64;
    else if (!strcmp(argv[i], "--backend"))
      cuda = !strcmp(argv[i + 1], "cuda");
    else if (!strcmp(argv[i], "--op"))
      affine = !strcmp(argv[i + 1], "affine") ? (pscan_user_op *)1 : NULL;
  }
  if (reps < 1 || reps > 1000)
    reps = 10;
  es = affine ? 8 : pscan_dtype_size(type);
  pscan_status s = pscan_create(&ctx, cuda ? PSCAN_BACKEND_CUDA : PSCAN_BACKEND_CPU);
  if (s != PSCAN_OK) {
    fprintf(stderr, "rank %d: pscan_create: %s\n", rank, pscan_last_error(NULL));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 0)
    threads = cores / nranks > 0 ? (int)(cores / nranks) : 1;
  if (!cuda)
    pscan_set_param(ctx, PSCAN_PARAM_THREADS, threads);
  /* data: small values, the same pattern on every rank */
  char *host = malloc(n * es);
  if (!host) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < n; i++) {
    int64_t v = (int64_t)(i % 7) - 3;
    double d = (double)v;
    float ab[2] = {i % 3 ? 1.0f : -1.0f, (float)v};
    if (affine)
      memcpy(host + i * 8, ab, 8);
    else if (type == PSCAN_F64)
      memcpy(host + i * 8, &d, 8);
    else if (type == PSCAN_I64)
      memcpy(host + i * 8, &v, 8);
    else {
      int32_t w = (int32_t)v;
      memcpy(host + i * 4, &w, 4);
    }
  }
#ifdef PSCAN_MPI_BENCH_CUDA
  if (cuda) {
    int gpus = 1;
    cudaGetDeviceCount(&gpus);
    cudaSetDevice(rank % gpus);
    pscan_set_param(ctx, PSCAN_PARAM_DEVICE, rank % gpus);
    if (cudaMalloc(&in, n * es) != cudaSuccess || cudaMalloc(&out, n * es) != cudaSuccess) {
      fprintf(stderr, "rank %d: cudaMalloc failed\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cudaMemcpy(in, host, n * es, cudaMemcpyHostToDevice);
    cudaMemset(out, 0, n * es);
    free(host);
    host = NULL;
  }
#else
  if (cuda) {
    fprintf(stderr, "pscan_mpi_bench: built without CUDA\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#endif
  if (!cuda) {
    in = host;
    out = malloc(n * es);
    if (!out) {
      fprintf(stderr, "rank %d: out of memory\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(out, 0, n * es); /* touch the pages before timing */
  }
  if (affine) {
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = affine_src, .type_name = "affine",
                       .name = "compose", .elem_size = 8};
    affine = NULL;
    if ((s = pscan_op_create(ctx, &d, &affine)) != PSCAN_OK)
      die("pscan_op_create", s);
  }
  double mine[T_COUNT], slowest[T_COUNT];
  double *t = malloc(sizeof(double) * (size_t)reps), *tmax = malloc(sizeof(double) * (size_t)reps);
  for (int what = 0; what < T_COUNT; what++) {
    if (what == T_PEER && (cuda || affine)) {
      mine[what] = slowest[what] = 0;
      continue;
    }
    run_one(what); /* warm-up */
    for (int r = 0; r < reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = now();
      run_one(what);
      t[r] = now() - t0;
      MPI_Allreduce(&t[r], &tmax[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    mine[what] = median(t, reps);
    slowest[what] = median(tmax, reps);
  }
  /* check the result once: the sum of i%7-3 patterns is known in closed form per rank */
  double *all = rank == 0 ? malloc(sizeof(double) * T_COUNT * (size_t)nranks) : NULL;
  MPI_Gather(mine, T_COUNT, MPI_DOUBLE, all, T_COUNT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double bytes = 2.0 * (double)n * (double)es, gb = 1e9;
    printf("pscan_mpi_bench: %d ranks, %zu %s per rank, %s, %d threads per rank, %d reps (medians)\n",
           nranks, n,
           affine ? "affine f32 (user op)" : type == PSCAN_I64 ? "i64" : type == PSCAN_F64 ? "f64" : "i32",
           cuda ? "cuda" : "cpu", cuda ? 0 : threads,
           reps);
    printf("rank,copy_GBps,local_GBps,mpi_GBps,mpi_pct_of_copy,local_pct_of_copy,peer_GBps,"
           "reduce_read_GBps,mpi_pct_of_reduce_plus_local\n");
    double sum_local = 0, sum_copy = 0;
    for (int q = 0; q < nranks; q++) {
      double *m = all + q * T_COUNT;
      double c = bytes / m[T_COPY] / gb, l = bytes / m[T_LOCAL] / gb, x = bytes / m[T_MPI] / gb;
      sum_local += l, sum_copy += c;
      printf("%d,%.2f,%.2f,%.2f,%.1f,%.1f,%.2f,%.2f,%.1f\n", q, c, l, x, 100 * x / c, 100 * l / c,
             m[T_PEER] > 0 ? bytes / m[T_PEER] / gb : 0.0, bytes / 2 / m[T_REDUCE] / gb,
             100 * (m[T_REDUCE] + m[T_LOCAL]) / m[T_MPI]);
    }
    double agg_mpi = nranks * bytes / slowest[T_MPI] / gb;
    double agg_peer = cuda || affine ? 0 : nranks * bytes / slowest[T_PEER] / gb;
    printf("aggregate: copy %.2f GB/s (sum), local scans %.2f GB/s (sum), pscan_mpi_scan %.2f GB/s "
           "(%.1f%% of the local sum), peer loop+MPI_Exscan %.2f GB/s; collectives alone %.1f us\n",
           sum_copy, sum_local, agg_mpi, 100 * agg_mpi / sum_local, agg_peer,
           1e6 * slowest[T_COLL]);
  }
  free(all), free(t), free(tmax);
#ifdef PSCAN_MPI_BENCH_CUDA
  if (cuda) {
    cudaFree(in);
    cudaFree(out);
  } else
#endif
  {
    free(in);
    free(out);
  }
  pscan_op_destroy(affine);
  pscan_destroy(ctx);
  MPI_Finalize();
  return 0;
}
