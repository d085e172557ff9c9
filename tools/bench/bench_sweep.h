/* `pscan bench --sweep` (bench_sweep.c): the compaction family and the scans across their input
 * space, each point measured beside a peer and a copy in the same run: on the GPU (--gpu) CUB and
 * cudaMemcpy device to device (bench_sweep_gpu.c, peers_cub_sweep.cu), on the CPU the best CPU
 * peer the tool has and the streaming copy (bench_sweep_cpu.c).
 *
 * A point is (op, key type, n, run length, selectivity). The ops with runs (unique,
 * run_length_encode, reduce_by_key, scan_by_key) sweep the run length, the selections
 * (select_if, select_flagged, partition_if) the selectivity; the scans (op "inclusive_scan",
 * the sum) sweep the dtype and n. One CSV row per point:
 *   op,key_type,n,run_length,selectivity_pct,pscan_GBps,cub_GBps,copy_GBps
 * (run_length 0 where it does not apply, selectivity_pct -1 where it does not apply; on the CPU
 * cub_GBps holds the best CPU peer). GB/s = 1e9 bytes/s of the bytes each implementation reads
 * and writes, counted exactly from the counts it returned (sweep_bytes). On the CPU a read ceiling
 * is measured beside each point too, and each point's % of its bound printed (sweep_of_bound;
 * stdout and the summary only, the CSV's columns staying as above). */
#ifndef PSCAN_TOOL_BENCH_SWEEP_H
#define PSCAN_TOOL_BENCH_SWEEP_H

#include "mix64.h"
#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>

#define SWEEP_OPS(X)                                                                            \
  X(SELECT_IF, "select_if")                                                                     \
  X(SELECT_FLAGGED, "select_flagged")                                                           \
  X(PARTITION_IF, "partition_if")                                                               \
  X(UNIQUE, "unique")                                                                           \
  X(RUN_LENGTH_ENCODE, "run_length_encode")                                                     \
  X(REDUCE_BY_KEY, "reduce_by_key")                                                             \
  X(SCAN_BY_KEY, "scan_by_key")                                                                 \
  X(SCAN, "inclusive_scan")

typedef enum sweep_op {
#define X(E, name) SWEEP_##E,
  SWEEP_OPS(X)
#undef X
  SWEEP_OP_COUNT
} sweep_op;

/* A run length meaning "one run over the whole input". */
#define SWEEP_WHOLE ((size_t)0 - 1)

typedef struct sweep_point {
  sweep_op op;
  pscan_dtype key;   /* the key (item) type; the scans' dtype */
  pscan_dtype val;   /* by-key ops: f32 for 4-byte keys, f64 for 8-byte keys; else = key */
  size_t n;
  size_t run_length; /* the ops with runs: 1 .. or SWEEP_WHOLE; else 0 */
  int sel_pct;       /* the selections: 0 .. 100; else -1 */
} sweep_point;

/* One measured point: median seconds per call and the bytes each call moved. */
typedef struct sweep_result {
  sweep_point p;
  double pscan_s, peer_s, copy_s;
  double pscan_bytes, peer_bytes, copy_bytes;
  /* The read ceiling (CPU): a plain parallel read of the point's items in the same rounds, its
     seconds and bytes (read_s 0: not measured). With the copy it bounds a point's time: see
     sweep_of_bound. */
  double read_s, read_bytes;
  double others; /* CPUs kept busy by other processes and the hypervisor meanwhile; < 0: unknown */
  const char *peer; /* which peer was the best ("cub", "plain loop", "OpenMP scan", ...) */
} sweep_result;

/* What a backend fills in: results for the points it is handed, in order. */
typedef struct sweep_backend sweep_backend;

/* Exactly the bytes of one call of op at p that kept (or produced runs) `count` items: key_bytes
   per key, val_bytes per value, count_bytes per run length written (RLE: 8 for pscan's uint64
   counts, the peer's own width for the peer). */
double sweep_bytes(const sweep_point *p, size_t count, size_t count_bytes);

/* Of those, the bytes the op reads (its inputs; pscan's writes are the rest). */
double sweep_read_bytes(const sweep_point *p);

/* The fraction of its bound that pscan's time reaches at a measured point: the bound is the
   longer of reading the op's input at the read ceiling's rate and moving all its bytes at the
   copy's rate (a read-mostly op is bounded by the first, a copy-like one by the second). 0 where
   the read ceiling was not measured. */
double sweep_of_bound(const sweep_result *r);

/* The op's CSV name. */
const char *sweep_op_name(sweep_op op);
/* Whether op sweeps the run length (else the selectivity, or nothing: the scans). */
bool sweep_op_has_runs(sweep_op op);
bool sweep_op_is_select(sweep_op op);

/* Deterministic data of a point, the same on both backends:
   keys: runs of pseudo-random (geometric) length, mean L: a run starts at i when
   sweep_head(i, L), with probability 1/L (every i when L = 1; only i = 0 for SWEEP_WHOLE);
   key[i] = sweep_key(start of its run), distinct for distinct starts, so neighbouring runs
   differ. sweep_run_start finds the start of i's run (walking back: L steps on average).
   selection items: sweep_item(i) in [0, SWEEP_ITEM_RANGE), kept when < sel_pct * RANGE / 100.
   values (and the scans' input): a, -a in pairs, a in 0 .. 2, so that the sum of any range is
   -2 .. 4: exact in every type, whatever the order of combination. */
#define SWEEP_ITEM_RANGE 1000000u
#ifdef __CUDACC__
#define SWEEP_HD __host__ __device__ /* the GPU's fill kernels use the same functions */
#else
#define SWEEP_HD
#endif
SWEEP_HD static inline unsigned long long sweep_mix(unsigned long long x) {
  return pscan__mix64(x);
}
SWEEP_HD static inline bool sweep_head(size_t i, size_t L) {
  if (i == 0 || L == 1)
    return true;
  if (L == SWEEP_WHOLE)
    return false;
  return sweep_mix(i * 0x9E3779B97F4A7C15ull + L) % L == 0;
}
SWEEP_HD static inline size_t sweep_run_start(size_t i, size_t L) {
  if (L == SWEEP_WHOLE)
    return 0;
  while (!sweep_head(i, L))
    i--;
  return i;
}
SWEEP_HD static inline unsigned long long sweep_key(size_t start) {
  return start * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull; /* odd multiplier: distinct */
}
SWEEP_HD static inline unsigned sweep_item(size_t i) {
  return (unsigned)(sweep_mix(i + 0x243F6A8885A308D3ull) % SWEEP_ITEM_RANGE);
}
SWEEP_HD static inline unsigned sweep_threshold(int sel_pct) {
  return (unsigned)((unsigned long long)SWEEP_ITEM_RANGE * (unsigned)sel_pct / 100u);
}
SWEEP_HD static inline int sweep_value(size_t i) {
  int a = (int)(sweep_mix((i & ~(size_t)1) ^ 0x5851F42D4C957F2Dull) % 3u);
  return i & 1 ? -a : a;
}

/* The data sets of a point, as a backend writes them into its buffers: SWEEP_FILL_KEYS (runs of
   p's run length, keys of p's key type), _ITEMS (selection items, key type), _FLAGS (uint8 flags
   of p's selectivity), _VALS (values of p's value type), _SCAN (the scans' input, p's key type).
   The first of KEYS, ITEMS and SCAN that p's op reads is its input. */
typedef enum sweep_fill { SWEEP_FILL_KEYS, SWEEP_FILL_ITEMS, SWEEP_FILL_FLAGS, SWEEP_FILL_VALS,
                          SWEEP_FILL_SCAN } sweep_fill;

/* What a backend's buffers hold (all zero: nothing), so that a point refills only the data sets
   it changes. */
typedef struct sweep_held {
  int input; /* 0: nothing, else 1 + the sweep_fill of the input buffer's data */
  pscan_dtype type;
  size_t n, run_length;
  pscan_dtype vals_type; /* the values buffer's, valid when vals_n > 0 */
  size_t vals_n;
  int flags_pct; /* the flags buffer's, valid when flags_n > 0 */
  size_t flags_n;
} sweep_held;

/* Fills the data sets p needs that *held says are not there: fill(arg, what, p) writes one into
   the backend's buffer for it (the input, the values or the flags); *held records each one
   written. 0, or the first nonzero value fill returned. */
int sweep_refill(sweep_held *held, const sweep_point *p,
                 int (*fill)(void *arg, sweep_fill what, const sweep_point *p), void *arg);

/* ---- the run ---- */

typedef struct sweep_opts {
  const size_t *sizes; /* NULL: the defaults (compaction 2^20, 2^24, 2^28; scans 2^10 .. 2^30) */
  int nsizes;
  const pscan_dtype *types; /* NULL: i32, i64 (compaction) and every dtype (scans) */
  int ntypes;
  unsigned ops; /* bit per sweep_op; 0: all */
  int reps;     /* 0: the backend's default */
  int threads;  /* CPU: 0 = all cores */
  bool quick;
  const char *csv, *plot;
} sweep_opts;

/* Parses --ops LIST (op names, "scan" for inclusive_scan, "compact" for all but the scans)
   into a bit mask; false after a usage error. */
bool sweep_parse_ops(const char *list, unsigned *mask);

/* Runs the sweep on the GPU or the CPU: a line per point on stdout, the CSV, the plots, and a
   summary (the worst point per op, as x peer and % of copy); returns the exit status. */
int bench_sweep_run(const sweep_opts *o, bool gpu);

/* The summary and, with plot, the charts of a sweep's CSV written earlier (bench_sweep_replot.c;
   gpu: its peer is CUB); nothing is measured. Returns the exit status. */
int bench_sweep_replot(const char *csv, const char *plot, bool gpu);

/* ---- backends (bench_sweep_cpu.c, bench_sweep_gpu.c / bench_sweep_gpu_none.c) ---- */

struct sweep_backend {
  const char *name;      /* "CPU, 16 threads" / "NVIDIA H100 ..." */
  const char *peer_kind; /* for the header: "CUB" / "the best CPU peer" */
  const char *copy_kind; /* "cudaMemcpy device to device" / "streaming copy" */
  void *state;
  int default_reps;
  /* Bytes of memory the benchmark may use (80% of what is free now). */
  double (*available)(sweep_backend *b);
  /* Buffers for compaction points up to compact_n and scans up to scan_n (0: none), items and
     values of up to 8 bytes; 0, or 1 after printing why. */
  int (*open)(sweep_backend *b, size_t compact_n, size_t scan_n, const sweep_opts *o);
  /* Fills the point's input (keys, values, flags; the scans' input). 0 or 1 after printing why. */
  int (*fill)(sweep_backend *b, const sweep_point *p);
  /* Measures one point whose input fill() wrote: pscan and the peer (the best, where several),
     each checked against the other once; sets pscan_s, peer_s, pscan_bytes, peer_bytes, peer.
     0, or 1 after printing why (a wrong result, a failed call). */
  int (*measure)(sweep_backend *b, sweep_result *r, int reps);
  /* Median seconds of the copy of `bytes` bytes (read bytes, write bytes), for a point whose
     measure() left copy_s at 0 (the CPU's times the copy in the same rounds as pscan and sets
     it; the GPU's copy is measured apart, by size, and refreshed every 20 s). */
  int (*copy)(sweep_backend *b, size_t bytes, int reps, double *seconds);
  void (*close)(sweep_backend *b);
};

/* Sizes of the buffers the backends allocate: items per element of a compaction point (keys,
   values, outputs, flags, counts) and of a scan point. */
double sweep_compact_bytes(size_t n);
double sweep_scan_bytes(size_t n);

/* Fill b; 0, or 1 after printing why (the GPU's: no GPU, or a build without CUDA). */
int sweep_cpu_backend(sweep_backend *b, const sweep_opts *o);
int sweep_gpu_backend(sweep_backend *b, const sweep_opts *o);

#endif /* PSCAN_TOOL_BENCH_SWEEP_H */
