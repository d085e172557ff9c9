/* `pscan bench --gpu --user-op`, by key (bench_user_op_by_key.h): pscan_scan_by_key_op
 * (inclusive) and pscan_reduce_by_key_op with the affine operators of user_op_cases.c (f32 and
 * f64 pairs, composed in order) by int32 keys, beside a device copy of the bytes the call moves
 * and CUB's DeviceScan::InclusiveScanByKey / DeviceReduce::ReduceByKey with the same operator as
 * a C++ functor (peers/peers_cub_user_op.cu), in the same rounds.
 *
 * Keys: keys[i] = i / L, runs of exactly L items (the last one shorter), L in run_lengths; the
 * values are the flat scans' (exact in any association order). pscan's run count goes to device
 * memory (pscan.h: the call then returns without waiting), so no synchronisation is timed;
 * CUB's goes to device memory too. Bytes moved, with e-byte values: the scan reads keys and
 * values and writes values, (4 + 2e) n; the reduction reads keys and values and writes a key and
 * a value per run, (4 + e)(n + runs). The copy moves as many: one cudaMemcpyAsync of half of
 * them (a copy reads and writes each byte), from the inputs' block to the outputs' block.
 *
 * Every output of pscan and CUB is read back whole and compared with a sequential computation
 * on the host, a chunk at a time: the scan's values, the reduction's run count, keys and values
 * (floating-point members as numbers). The outputs are overwritten before each implementation's
 * first call, so a call that writes nothing fails. Timing as in bench_user_op.c: a warm-up call
 * (it compiles the by-key kernel and grows the temporary storage), a batch calibrated to last
 * GPU_TIMER_MIN_BATCH_MS between two CUDA events, then reps rounds that time a batch of every
 * implementation in turn; medians. */
#include "bench_user_op_by_key.h"
#include "timing.h"
#include "cli/cli.h"
#include "io/device_buf.h"
#include "peers/peers_cub_user_op.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPS = 1000, CHUNK_BYTES = 1 << 24, NRUNS = 7, NCASES = 2, ALIGN = 256 };
static const size_t run_lengths[NRUNS] = {1, 3, 4, 32, 100, 256, 1000};
/* uop_cases' indices (uop_cases[k].peer == k) */
static const int cases[NCASES] = {PEER_UOP_AFFINE_F32, PEER_UOP_AFFINE_F64};

typedef enum bk_call { BK_SCAN, BK_REDUCE, BK_CALLS } bk_call;
static const char *const call_names[BK_CALLS] = {"scan_by_key", "reduce_by_key"};
static const char *const call_fns[BK_CALLS] = {"pscan_scan_by_key_op", "pscan_reduce_by_key_op"};

/* BI_PSCAN_ID: the same operator created with its identity (jit/user_ops.cuh's plain value). */
typedef enum bimpl { BI_COPY, BI_PSCAN, BI_CUB, BI_PSCAN_ID, BI_COUNT } bimpl;
static const char *const bi_names[BI_COUNT] = {"cudaMemcpy", "pscan user op", "CUB functor",
                                               "pscan user op + identity"};
static const char *const bi_csv[BI_COUNT] = {"cudaMemcpy", "pscan_user_op", "cub_functor",
                                             "pscan_user_op_identity"};

/* The worst point of one (operator, call, pscan variant): the least fraction of the copy's speed
   and the least ratio to CUB's, each with its n and run length (0: none measured yet). */
typedef struct worst {
  double copy, cub;
  size_t copy_n, copy_run, cub_n, cub_run;
} worst;

typedef struct bk_bench {
  const uop_by_key_env *env;
  void *d_in;    /* the keys, then the values at vals_at */
  void *d_out;   /* the values, then (the reduction) the keys at keys_out_at */
  void *d_count; /* pscan's count (size_t) at byte 0, CUB's (int64) at byte 8 */
  unsigned char *h_a, *h_b; /* CHUNK_BYTES each */
  worst worst[NCASES][BK_CALLS][2];
  /* the point */
  int kc; /* index in cases */
  const uop_case *c;
  bk_call call;
  size_t n, run, runs, vals_at, keys_out_at;
} bk_bench;

static size_t round_up(size_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

/* Bytes of either block at n items of e bytes. */
static size_t block_bytes(size_t n, size_t e) { return round_up(n * 4) + round_up(n * e); }

/* Whether n items of e bytes fit: two blocks in 80% of free_bytes. */
static bool fits(size_t n, size_t e, size_t free_bytes) {
  return n <= SIZE_MAX / 64 && block_bytes(n, e) <= free_bytes / 10 * 4;
}

/* Bytes the point's call reads and writes. */
static size_t moved(const bk_bench *b) {
  size_t e = b->c->elem;
  return b->call == BK_SCAN ? (4 + 2 * e) * b->n : (4 + e) * (b->n + b->runs);
}

/* ---- one call ---- */

typedef struct call_args {
  bk_bench *b;
  bimpl i;
} call_args;

/* One call of implementation i at the point, on the default stream. */
static int call_once(void *arg) {
  const call_args *a = arg;
  bk_bench *b = a->b;
  const int32_t *keys = b->d_in;
  const void *vals = (const char *)b->d_in + b->vals_at;
  void *vout = b->d_out;
  int32_t *kout = (int32_t *)(void *)((char *)b->d_out + b->keys_out_at);
  switch (a->i) {
  case BI_COPY:
    return (int)cudaMemcpyAsync(b->d_out, b->d_in, moved(b) / 2, cudaMemcpyDeviceToDevice, 0);
  case BI_CUB:
    return b->call == BK_SCAN
               ? peer_user_op_scan_by_key(b->c->peer, keys, vals, vout, b->n)
               : peer_user_op_reduce_by_key(b->c->peer, keys, kout, vals, vout,
                                            (int64_t *)b->d_count + 1, b->n);
  default: {
    const uop_by_key_env *env = b->env;
    const pscan_user_op *op = (a->i == BI_PSCAN_ID ? env->ops_id : env->ops)[cases[b->kc]];
    pscan_status s =
        b->call == BK_SCAN
            ? pscan_scan_by_key_op(env->ctx, keys, PSCAN_I32, vals, vout, b->n, op, 0, NULL)
            : pscan_reduce_by_key_op(env->ctx, keys, PSCAN_I32, vals, kout, vout, b->n, op,
                                     (size_t *)b->d_count);
    if (s == PSCAN_OK)
      return 0;
    cli_error("bench", "--user-op: %s (%s): %s", call_fns[b->call], b->c->name,
              pscan_last_error(env->ctx));
    return -1;
  }
  }
}

static int batch(call_args *a, long inner, double *seconds) {
  int e = gpu_timer_batch(a->b->env->timer, inner, call_once, a, seconds);
  return e <= 0 ? -e : uop_cuda_error(e, "a timed batch");
}

/* ---- data and checks, a chunk at a time ---- */

/* Item i's key: i / run, as the int32 the device reads (wrapping past 2^31 runs, where
   neighbouring runs still differ). */
static uint32_t key_of(size_t i, size_t run) { return (uint32_t)(i / run); }

static int upload_keys(bk_bench *b) {
  size_t per = CHUNK_BYTES / 4;
  for (size_t first = 0; first < b->n; first += per) {
    size_t count = b->n - first < per ? b->n - first : per;
    for (size_t k = 0; k < count; k++) {
      uint32_t key = key_of(first + k, b->run);
      memcpy(b->h_a + 4 * k, &key, 4);
    }
    int e = (int)cudaMemcpy((char *)b->d_in + 4 * first, b->h_a, 4 * count,
                            cudaMemcpyHostToDevice);
    if (e)
      return uop_cuda_error(e, "cudaMemcpy of the keys");
  }
  return 0;
}

static int upload_values(bk_bench *b) {
  const uop_case *c = b->c;
  size_t per = CHUNK_BYTES / c->elem;
  for (size_t first = 0; first < b->n; first += per) {
    size_t count = b->n - first < per ? b->n - first : per;
    for (size_t k = 0; k < count; k++)
      c->fill(b->h_a + k * c->elem, first + k);
    int e = (int)cudaMemcpy((char *)b->d_in + b->vals_at + first * c->elem, b->h_a,
                            count * c->elem, cudaMemcpyHostToDevice);
    if (e)
      return uop_cuda_error(e, "cudaMemcpy of the values");
  }
  return 0;
}

static int download(void *host, const void *dev, size_t bytes) {
  int e = (int)cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
  return e ? uop_cuda_error(e, "cudaMemcpy of an output") : 0;
}

static int wrong(const bk_bench *b, bimpl i, const char *what, size_t at) {
  char n_s[32];
  cli_error("bench", "--user-op: WRONG RESULT: %s of %s, %s, n = %s, runs of %zu: %s %zu "
            "differs from the sequential computation", bi_names[i], call_names[b->call],
            b->c->name, cli_format_count(b->n, n_s, sizeof n_s), b->run, what, at);
  return 1;
}

/* The scan's values against the sequential scan that restarts at every run. */
static int check_scan(bk_bench *b, bimpl i) {
  const uop_case *c = b->c;
  size_t per = CHUNK_BYTES / c->elem;
  unsigned char acc[64], x[64];
  for (size_t first = 0; first < b->n; first += per) {
    size_t count = b->n - first < per ? b->n - first : per;
    if (download(b->h_b, (const char *)b->d_out + first * c->elem, count * c->elem))
      return 1;
    for (size_t k = 0; k < count; k++) {
      size_t at = first + k;
      c->fill(x, at);
      if (at % b->run == 0)
        memcpy(acc, x, c->elem);
      else
        uop_combine(c, acc, x);
      if (!uop_equal(c, b->h_b + k * c->elem, acc))
        return wrong(b, i, "the value of item", at);
    }
  }
  return 0;
}

/* The reduction's run count, and each run's key and sequential reduction. */
static int check_reduce(bk_bench *b, bimpl i) {
  const uop_case *c = b->c;
  uint64_t got = 0;
  if (i == BI_CUB) {
    int64_t v = 0;
    if (download(&v, (const int64_t *)b->d_count + 1, sizeof v))
      return 1;
    got = v < 0 ? UINT64_MAX : (uint64_t)v;
  } else {
    size_t v = 0;
    if (download(&v, b->d_count, sizeof v))
      return 1;
    got = v;
  }
  if (got != b->runs) {
    char n_s[32];
    cli_error("bench", "--user-op: WRONG RESULT: %s of reduce_by_key, %s, n = %s, runs of %zu: "
              "%llu runs counted, %zu expected", bi_names[i], c->name,
              cli_format_count(b->n, n_s, sizeof n_s), b->run, (unsigned long long)got,
              b->runs);
    return 1;
  }
  size_t per = CHUNK_BYTES / c->elem; /* runs a chunk: their keys take less */
  unsigned char acc[64], x[64];
  for (size_t first = 0; first < b->runs; first += per) {
    size_t count = b->runs - first < per ? b->runs - first : per;
    if (download(b->h_b, (const char *)b->d_out + first * c->elem, count * c->elem) ||
        download(b->h_a, (const char *)b->d_out + b->keys_out_at + 4 * first, 4 * count))
      return 1;
    for (size_t k = 0; k < count; k++) {
      size_t r = first + k, lo = r * b->run, hi = b->n - lo < b->run ? b->n : lo + b->run;
      uint32_t key;
      memcpy(&key, b->h_a + 4 * k, 4);
      if (key != key_of(lo, b->run))
        return wrong(b, i, "the key of run", r);
      c->fill(acc, lo);
      for (size_t j = lo + 1; j < hi; j++) {
        c->fill(x, j);
        uop_combine(c, acc, x);
      }
      if (!uop_equal(c, b->h_b + k * c->elem, acc))
        return wrong(b, i, "the value of run", r);
    }
  }
  return 0;
}

/* ---- one point ---- */

static void row(const bk_bench *b, bimpl i, double s, double copy_s, double cub_s) {
  const uop_out *o = b->env->out;
  double gbs = (double)moved(b) / s / 1e9;
  char n_s[32];
  cli_format_count(b->n, n_s, sizeof n_s);
  printf("%-13s %-11s %5zu %-7s %5zu %-24s %10.2f %9.1f %7.1f%%", call_names[b->call],
         b->c->name, b->c->elem, n_s, b->run, bi_names[i], s * 1e6, gbs, 100.0 * copy_s / s);
  if (i == BI_PSCAN || i == BI_PSCAN_ID)
    printf("   %.2fx CUB", cub_s / s);
  putchar('\n');
  fflush(stdout);
  if (o->csv)
    fprintf(o->csv, "%s_%s_L%zu,%zu,%zu,0,%s,%.9g,%.3f,%.4f,\"%s\"\n", b->c->name,
            call_names[b->call], b->run, b->c->elem, b->n, bi_csv[i], s, gbs, copy_s / s,
            o->machine);
}

static void note_worst(bk_bench *b, bimpl i, double copy, double cub) {
  worst *w = &b->worst[b->kc][b->call][i == BI_PSCAN_ID];
  if (w->copy == 0 || copy < w->copy)
    w->copy = copy, w->copy_n = b->n, w->copy_run = b->run;
  if (w->cub == 0 || cub < w->cub)
    w->cub = cub, w->cub_n = b->n, w->cub_run = b->run;
}

static int measure(bk_bench *b, int reps) {
  static double samples[BI_COUNT][MAX_REPS];
  long inner[BI_COUNT];
  double sec[BI_COUNT];
  b->runs = (b->n + b->run - 1) / b->run;
  for (int k = 0; k < BI_COUNT; k++) { /* warm up, check, calibrate */
    call_args a = {b, (bimpl)k};
    double one;
    int e = (int)cudaMemset(b->d_out, 0x7F, b->keys_out_at + 4 * b->n);
    if (e == 0)
      e = (int)cudaMemset(b->d_count, 0xFF, 16);
    if (e)
      return uop_cuda_error(e, "cudaMemset");
    if (batch(&a, 1, &one))
      return 1;
    if (k != BI_COPY && (b->call == BK_SCAN ? check_scan(b, a.i) : check_reduce(b, a.i)))
      return 1;
    if (batch(&a, 1, &one))
      return 1;
    inner[k] = gpu_timer_inner(one);
  }
  for (int rep = 0; rep < reps; rep++)
    for (int k = 0; k < BI_COUNT; k++) {
      call_args a = {b, (bimpl)k};
      if (batch(&a, inner[k], &samples[k][rep]))
        return 1;
    }
  for (int k = 0; k < BI_COUNT; k++)
    sec[k] = timing_median(samples[k], (size_t)reps);
  for (int k = 0; k < BI_COUNT; k++)
    row(b, (bimpl)k, sec[k], sec[BI_COPY], sec[BI_CUB]);
  note_worst(b, BI_PSCAN, sec[BI_COPY] / sec[BI_PSCAN], sec[BI_CUB] / sec[BI_PSCAN]);
  note_worst(b, BI_PSCAN_ID, sec[BI_COPY] / sec[BI_PSCAN_ID], sec[BI_CUB] / sec[BI_PSCAN_ID]);
  return 0;
}

/* ---- the sweep ---- */

static void print_header(void) {
  printf("\nby key: pscan_scan_by_key_op (inclusive) and pscan_reduce_by_key_op by int32 keys in "
         "runs of `run` items\n(keys[i] = i / run; the reduction's run count written to device "
         "memory: no synchronisation is timed),\nagainst cudaMemcpy of as many bytes as the call "
         "moves (scan: keys and values read, values written;\nreduction: keys and values read, a "
         "key and a value per run written) and cub::DeviceScan::InclusiveScanByKey /\n"
         "cub::DeviceReduce::ReduceByKey with the same operator as a C++ functor; GB/s counts "
         "those bytes; every\noutput (values, keys, the run count) is checked against a "
         "sequential computation on the host\n");
  printf("%-13s %-11s %5s %-7s %5s %-24s %10s %9s %8s\n", "call", "op", "bytes", "n", "run",
         "implementation", "time (us)", "GB/s", "of copy");
}

static void print_worst(const bk_bench *b) {
  printf("\nby key, the worst points (over every n and run length measured):\n");
  for (int kc = 0; kc < NCASES; kc++)
    for (int call = 0; call < BK_CALLS; call++)
      for (int v = 0; v < 2; v++) {
        const worst *w = &b->worst[kc][call][v];
        char n1[32], n2[32];
        if (w->copy == 0)
          continue;
        printf("%-13s %-11s %-24s %6.1f%% of the copy (n = %s, run %zu), %.2fx CUB (n = %s, "
               "run %zu)\n", call_names[call], uop_cases[cases[kc]].name,
               bi_names[v ? BI_PSCAN_ID : BI_PSCAN], 100.0 * w->copy,
               cli_format_count(w->copy_n, n1, sizeof n1), w->copy_run, w->cub,
               cli_format_count(w->cub_n, n2, sizeof n2), w->cub_run);
      }
  fflush(stdout);
}

/* Every run length and call at the point's operator and n. */
static int sweep_point(bk_bench *b, int reps) {
  b->vals_at = round_up(b->n * 4);
  b->keys_out_at = round_up(b->n * b->c->elem);
  if (upload_values(b))
    return 1;
  for (int r = 0; r < NRUNS; r++) {
    b->run = run_lengths[r];
    if (upload_keys(b))
      return 1;
    for (int call = 0; call < BK_CALLS; call++) {
      b->call = (bk_call)call;
      if (measure(b, reps))
        return 1;
    }
  }
  return 0;
}

static int sweep(bk_bench *b, const size_t *sizes, int nsizes, int reps, size_t free_bytes) {
  for (int kc = 0; kc < NCASES; kc++)
    for (int s = 0; s < nsizes; s++) {
      char n_s[32];
      b->kc = kc;
      b->c = &uop_cases[cases[kc]];
      b->n = sizes[s];
      cli_format_count(b->n, n_s, sizeof n_s);
      if (!fits(b->n, b->c->elem, free_bytes)) {
        fprintf(stderr, "pscan bench: --user-op: skipping %s by key at n = %s: its two blocks "
                "do not fit in 80%% of the GPU memory free\n", b->c->name, n_s);
        continue;
      }
      fprintf(stderr, "pscan bench: --user-op: %s by key, n = %s\n", b->c->name, n_s);
      if (sweep_point(b, reps))
        return 1;
    }
  print_worst(b);
  return 0;
}

int uop_by_key_sweep(const uop_by_key_env *env, const size_t *sizes, int nsizes, int reps) {
  if (reps < 1 || reps > MAX_REPS)
    return cli_usage_error("bench", "--reps must be 1 to %d", MAX_REPS);
  size_t free_bytes = 0, total = 0, cap = 0;
  int e = (int)cudaMemGetInfo(&free_bytes, &total);
  if (e)
    return uop_cuda_error(e, "cudaMemGetInfo");
  for (int kc = 0; kc < NCASES; kc++)
    for (int s = 0; s < nsizes; s++) {
      size_t elem = uop_cases[cases[kc]].elem;
      if (fits(sizes[s], elem, free_bytes) && block_bytes(sizes[s], elem) > cap)
        cap = block_bytes(sizes[s], elem);
    }
  static bk_bench zero;
  bk_bench b = zero;
  b.env = env;
  dbuf_err err;
  int rc = 0;
  if (cap && (!dbuf_alloc(&b.d_in, cap, &err) || !dbuf_alloc(&b.d_out, cap, &err) ||
              !dbuf_alloc(&b.d_count, 16, &err))) {
    cli_error("bench", "--user-op: %s", err.msg);
    rc = 1;
  }
  b.h_a = malloc(CHUNK_BYTES);
  b.h_b = malloc(CHUNK_BYTES);
  if (rc == 0 && (!b.h_a || !b.h_b)) {
    cli_error("bench", "--user-op: out of host memory");
    rc = 1;
  }
  if (rc == 0) {
    print_header();
    rc = sweep(&b, sizes, nsizes, reps, free_bytes);
  }
  dbuf_free(b.d_in);
  dbuf_free(b.d_out);
  dbuf_free(b.d_count);
  free(b.h_a);
  free(b.h_b);
  return rc;
}
