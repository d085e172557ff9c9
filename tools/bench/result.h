/* What every part of `pscan bench` measures and reports in (the CPU, GPU and compaction parts,
 * the report, the plots): one measured implementation at one point of the sweep. The labels are
 * report.c's. */
#ifndef PSCAN_TOOL_BENCH_RESULT_H
#define PSCAN_TOOL_BENCH_RESULT_H

#include "pscan.h"
#include "cli/cli.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum bench_impl {
  IMPL_PSCAN,       /* the library, one row per algorithm */
  IMPL_PLAIN_LOOP,  /* the obvious sequential loop (one thread) */
  IMPL_MEMCPY,      /* memcpy, threads split evenly */
  IMPL_STREAM_COPY, /* copy with non-temporal stores: the ceiling a scan chases */
  IMPL_REDUCE,      /* read-only reduction: the read half of the traffic alone */
  IMPL_STD_SEQ,     /* the C++ peers (peers_cxx.h), measured when compiled in: */
  IMPL_STD_PAR,     /*   std::inclusive_scan sequential (one thread) and with execution::par, */
  IMPL_TBB,         /*   tbb::parallel_scan, */
  IMPL_OMP,         /*   OpenMP `scan` */
  IMPL_CUDA_PSCAN,  /* the library's CUDA backend, one row per algorithm (bench_gpu.c; threads 0) */
  IMPL_CUDA_MEMCPY, /* cudaMemcpy device to device on the same buffers: the GPU's ceiling */
  IMPL_CUB,         /* the GPU peers (peers_cub.h): cub::DeviceScan::InclusiveSum, */
  IMPL_THRUST,      /*   thrust::inclusive_scan */
  IMPL_USER_OP      /* pscan_scan_op with a user operator from source: affine maps of f32 pairs
                       (8 bytes), on the f64 points (bench_cpu.c) */
} bench_impl;

typedef struct bench_result {
  bench_impl impl;
  pscan_algo algo; /* IMPL_PSCAN and IMPL_CUDA_PSCAN only */
  pscan_dtype type;
  size_t n;
  int threads;
  double seconds; /* median time of one call */
  double bytes;   /* bytes read + written by one call */
} bench_result;

/* One point of the sweep. */
typedef struct bench_point {
  pscan_dtype type;
  size_t n;
  int threads;
  int reps;
  bool one_thread_impls; /* also measure those that always run on one thread (SEQUENTIAL, the
                            plain loop): done once per (type, n), reported as threads = 1 */
} bench_point;

enum { BENCH_MAX_PER_POINT = 16 };

/* "pscan decoupled-lookback", "memcpy", ... into buf; returns buf. */
const char *bench_impl_label(const bench_result *r, char *buf, size_t len);

/* The results of one (type, n): every implementation at every thread count. */
typedef struct bench_group {
  bench_result r[CLI_MAX_LIST * BENCH_MAX_PER_POINT];
  int count;
  bool others_known;
  double others, steal; /* CPUs kept busy meanwhile by other processes and by the hypervisor */
} bench_group;

#endif /* PSCAN_TOOL_BENCH_RESULT_H */
