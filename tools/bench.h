/* The benchmark behind `pscan bench`: bench.c plans the sweep and reports it (table, CSV,
 * progress); a backend file measures one point of it (bench_cpu.c; bench_gpu.c for --gpu). */
#ifndef PSCAN_TOOL_BENCH_H
#define PSCAN_TOOL_BENCH_H

#include "cli.h"
#include "plot.h"
#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* Progress on stderr (bench.c): what is being done now at point p. */
void bench_progress(const bench_point *p, const char *what);

/* ---- Report (bench_report.c) ---- */

/* The results of one (type, n): every implementation at every thread count. */
typedef struct bench_group {
  bench_result r[CLI_MAX_LIST * BENCH_MAX_PER_POINT];
  int count;
  bool others_known;
  double others, steal; /* CPUs kept busy meanwhile by other processes and by the hypervisor */
} bench_group;

/* Prints the group as a table on stdout: rows by thread count, with Gelem/s, GB/s and the
   fractions of the streaming copy and of memcpy at the same thread count (for GPU rows, of
   cudaMemcpy; their thread count shows as "-"). */
void bench_print_group(const bench_group *g);

/* The CSV goes to a temporary file beside FILE first (safe_out.h) and is renamed to FILE when the
   run is complete, so a failed run never leaves a file that looks finished. */
struct sout;
typedef struct bench_csv {
  FILE *f;
  struct sout *out; /* malloc'd while open */
} bench_csv;
/* Opens the temporary file and writes the header; false after printing why. */
bool bench_csv_open(bench_csv *c, const char *path);
/* One row per result of g; machine names the machine in every row. */
void bench_csv_group(FILE *f, const bench_group *g, const char *machine);
/* Closes; when ok, renames to path (false after printing why if that fails), else removes the
   temporary file and returns false. A bench_csv never opened closes as ok. */
bool bench_csv_close(bench_csv *c, const char *path, bool ok);

/* ---- Plots (bench_plot.c): --plot PREFIX ---- */

/* Every result of the run, kept for the plots drawn at its end. */
typedef struct bench_plot {
  bench_result *r;
  int count, cap;
} bench_plot;
/* Keeps g's results; false after printing why (out of memory). */
bool bench_plot_add(bench_plot *p, const bench_group *g);
void bench_plot_free(bench_plot *p);
/* Whether PREFIX's directory is writable, checked before the run; false after printing why. */
bool bench_plot_check(const char *prefix);
/* Per type measured: PREFIX-throughput-TYPE.png (Gelem/s vs n at the largest thread count) and
   PREFIX-scaling-TYPE.png (Gelem/s vs threads at the largest n). Prints each file written;
   false after printing why one could not be. */
bool bench_plot_write(const bench_plot *p, const char *prefix, const char *machine);
/* Writes c to PREFIX-SUFFIX.png and prints its name; false after printing why not. */
bool bench_plot_save(const plot_chart *c, const char *prefix, const char *suffix);

/* ---- CPU backend (bench_cpu.c) ---- */

typedef struct bench_cpu bench_cpu;

/* Two buffers of max_bytes each, touched once so page faults stay out of the timings: by
   `threads` threads, each its even share (where a machine has several memory nodes, pages then
   sit near the threads that use them, as after a user's own parallel initialisation). NULL after
   printing why on failure. partition > 0 sets PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE on pscan's
   contexts. */
bench_cpu *bench_cpu_create(size_t max_bytes, int threads, long partition);
void bench_cpu_destroy(bench_cpu *b);
/* How many implementations bench_cpu_measure reports for p (at most BENCH_MAX_PER_POINT). */
int bench_cpu_count(const bench_point *p);
/* Measures every implementation at p; results in this order: the copies, the reduction, then
   the scans. Writes bench_cpu_count(p) results to out and returns 0, or prints why and returns 1
   (a scan failed or gave a wrong result). */
int bench_cpu_measure(bench_cpu *b, const bench_point *p, bench_result *out);

#endif /* PSCAN_TOOL_BENCH_H */
