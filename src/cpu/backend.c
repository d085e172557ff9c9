/* The CPU backend: its state in a context (thread pool, scratch), the choice of strategy, and
 * the dispatch of a validated call to it. */
#define _GNU_SOURCE
#include "cpu.h"
#include "axis.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cpu_state {
  pscan__pool *pool; /* created on the first parallel call; recreated when THREADS changes */
  char *work;        /* scratch: partition descriptors, then per-thread slots */
  size_t work_bytes;
  uint64_t epoch; /* call counter tagging the status words in work */
} cpu_state;

/* Below this many elements one thread is faster than waking the pool (measured:
   docs/PERFORMANCE.md,
   "When a CPU scan goes parallel"). */
enum { AUTO_SEQUENTIAL_BELOW = 1 << 16, AUTO_MIN_ELEMS_PER_THREAD = 1 << 15 };
/* Default partition: this many bytes of input, so a partition stays in the core's cache between
   the reduction and the scan of the single-pass strategy. */
enum { AUTO_PARTITION_BYTES = 64 << 10, MIN_PARTITION = 64 };
/* With many threads (AUTO_LARGE_THREADS or more) an input of at least AUTO_LARGE_INPUT bytes (far
   beyond any last-level cache) scans in partitions of AUTO_LARGE_PARTITION_BYTES: a quarter as
   many look-backs and partition claims for the threads to contend on, and each partition still
   fits a core's L2 between its reduction and its scan. Measured (docs/PERFORMANCE.md, "CPU
   partition size"): +2-13% on 16
   threads at 2^28, 1 MiB partitions -25%, and slower on 2 threads, so fewer threads keep 64 KiB.
   Deterministic order-sensitive scans always use 64 KiB: their partition boundaries fix the
   order of combination, which must not depend on the thread count. */
enum { AUTO_LARGE_INPUT = 64 << 20, AUTO_LARGE_PARTITION_BYTES = 256 << 10, AUTO_LARGE_THREADS = 16 };

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

int pscan__cpu_hardware_threads(void) {
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static pscan_status cpu_init(pscan_ctx *ctx) {
  cpu_state *st = pscan__calloc(1, sizeof *st);
  if (!st)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_create: out of memory");
  ctx->impl = st;
  return PSCAN_OK;
}

static void cpu_fini(pscan_ctx *ctx) {
  cpu_state *st = ctx->impl;
  if (!st)
    return;
  pscan__pool_destroy(st->pool);
  pscan__free(st->work);
  pscan__free(st);
  ctx->impl = NULL;
}

static pscan_status cpu_check_param(pscan_ctx *ctx, pscan_param p, int64_t v) {
  if (p == PSCAN_PARAM_BLOCK_ALGO && v != PSCAN_BLOCK_AUTO)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "pscan_set_param: BLOCK_ALGO selects a GPU tile scan; the CPU backend has none");
  return PSCAN_OK;
}

static pscan_status cpu_set_stream(pscan_ctx *ctx, void *stream) {
  if (stream)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "pscan_set_stream: the CPU backend runs synchronously and takes no stream");
  return PSCAN_OK;
}

static pscan_status cpu_synchronize(pscan_ctx *ctx) {
  (void)ctx;
  return PSCAN_OK;
}

static pscan_status cpu_check_memory(pscan_ctx *ctx, const void *p, const char *what) {
  if (pscan__cuda_is_device_pointer(p))
    return pscan__fail(ctx, PSCAN_ERR_WRONG_MEMORY,
                       "%s is GPU device memory; the CPU backend needs host memory", what);
  return PSCAN_OK;
}

static pscan_status ensure_pool(pscan_ctx *ctx, cpu_state *st, int nthreads) {
  if (st->pool && pscan__pool_threads(st->pool) == nthreads)
    return PSCAN_OK;
  pscan__pool_destroy(st->pool);
  st->pool = NULL;
  return pscan__pool_create(ctx, &st->pool, nthreads);
}

/* Grows the scratch to at least bytes. New memory is zeroed: status words of epoch 0, which no
   call uses, so they read as unpublished. */
static pscan_status ensure_work(pscan_ctx *ctx, cpu_state *st, size_t bytes) {
  if (bytes <= st->work_bytes)
    return PSCAN_OK;
  size_t size = bytes > SIZE_MAX / 2 ? bytes : round_up(bytes + bytes / 4, 64);
  char *w = pscan__aligned_alloc(64, size);
  if (!w)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "out of memory for %zu bytes of scratch", size);
  memset(w, 0, size);
  pscan__free(st->work);
  st->work = w;
  st->work_bytes = size;
  return PSCAN_OK;
}

static int configured_threads(const pscan_ctx *ctx);

size_t pscan__cpu_partition_size(const pscan_ctx *ctx, const pscan__scan_call *c) {
  if (ctx->params[PSCAN__SLOT_PARTITION_SIZE] > 0)
    return (size_t)ctx->params[PSCAN__SLOT_PARTITION_SIZE];
  const bool fixed_order = ctx->params[PSCAN_PARAM_DETERMINISTIC] && pscan__order_sensitive(c);
  const bool large = !fixed_order && configured_threads(ctx) >= AUTO_LARGE_THREADS &&
                     c->n >= AUTO_LARGE_INPUT / c->in_size;
  size_t part = (large ? AUTO_LARGE_PARTITION_BYTES : AUTO_PARTITION_BYTES) / c->in_size;
  return part < MIN_PARTITION ? MIN_PARTITION : part;
}

static int configured_threads(const pscan_ctx *ctx) {
  int64_t t = ctx->params[PSCAN_PARAM_THREADS];
  return t > 0 ? (int)t : pscan__cpu_hardware_threads();
}

/* Picks the strategy and thread count. With DETERMINISTIC = 1 and an order-sensitive operator,
   AUTO never depends on the thread count: it always runs the chained partition order, which every
   thread count (one included) reproduces bit for bit. */
static int choose_algo(const pscan_ctx *ctx, const pscan__scan_call *c, size_t nparts,
                       int *nthreads) {
  int algo = (int)ctx->params[PSCAN_PARAM_ALGO];
  int threads = configured_threads(ctx);
  bool fixed_order = ctx->params[PSCAN_PARAM_DETERMINISTIC] && pscan__order_sensitive(c);
  if (algo == PSCAN_ALGO_AUTO) {
    size_t useful = c->n / AUTO_MIN_ELEMS_PER_THREAD;
    if (useful < (size_t)threads)
      threads = useful < 1 ? 1 : (int)useful;
    if (fixed_order)
      algo = PSCAN_ALGO_CHAINED;
    else
      algo = c->n < AUTO_SEQUENTIAL_BELOW || threads == 1 ? PSCAN_ALGO_SEQUENTIAL
                                                           : PSCAN_ALGO_DECOUPLED_LOOKBACK;
  }
  if ((size_t)threads > nparts)
    threads = (int)nparts;
  *nthreads = algo == PSCAN_ALGO_SEQUENTIAL ? 1 : threads;
  return algo;
}

/* a * b + c, or PSCAN_ERR_OVERFLOW (possible only with huge custom elements). */
static pscan_status size_mad(pscan_ctx *ctx, size_t a, size_t b, size_t c, size_t *r) {
  if ((b != 0 && a > (SIZE_MAX - c) / b))
    return pscan__fail(ctx, PSCAN_ERR_OVERFLOW, "scratch size overflows size_t");
  *r = a * b + c;
  return PSCAN_OK;
}

/* Scratch: partition descriptors (status word + 2 accumulators + the compaction's last-element
   slot, on their own cache lines), then per-thread slots of 4 accumulators followed by
   extra_per_thread bytes (pscan__thread_extra). */
static pscan_status layout_scratch(pscan_ctx *ctx, cpu_state *st, pscan__cpu_job *job,
                                   size_t extra_per_thread) {
  size_t acc = job->op->acc_size, desc_bytes = 0, total = 0;
  PSCAN__CHECK(size_mad(ctx, 2, acc, 2 * sizeof(uint64_t) + 63, &job->desc_stride));
  PSCAN__CHECK(size_mad(ctx, 4, acc, 63, &job->scratch_stride));
  job->desc_stride &= ~(size_t)63;
  job->scratch_stride &= ~(size_t)63;
  PSCAN__CHECK(size_mad(ctx, 1, extra_per_thread, job->scratch_stride + 63, &job->scratch_stride));
  job->scratch_stride &= ~(size_t)63;
  PSCAN__CHECK(size_mad(ctx, job->nparts, job->desc_stride, 0, &desc_bytes));
  PSCAN__CHECK(size_mad(ctx, (size_t)job->nthreads, job->scratch_stride, desc_bytes, &total));
  PSCAN__CHECK(ensure_work(ctx, st, total));
  job->desc = st->work;
  job->scratch = st->work + desc_bytes;
  job->epoch = ++st->epoch;
  /* The status words of this call start cleared. The epoch alone is not enough: the same bytes
     held other data in earlier calls (another call's thread scratch, or value slots of another
     stride), and a small value written over the low byte of an old status word can turn it into
     this call's epoch with state A or P — a look-back then takes a value nobody published. The
     fuzzer found this (tests/fuzz/regressions/README.md); clearing costs one store per
     partition. */
  for (size_t k = 0; k < job->nparts; k++)
    atomic_store_explicit((_Atomic uint64_t *)(job->desc + k * job->desc_stride), 0,
                          memory_order_relaxed);
  return PSCAN_OK;
}

/* The built-in operator's kernels for c. SEQUENTIAL asked for by name is the plain left-to-right
   loop, bit for bit (numpy.cumsum's order): the SIMD kernels of float SUM and PROD combine lanes
   in another bracketing, so an order-sensitive operator takes the portable kernel. (AUTO's
   one-thread runs keep SIMD.) */
static pscan_status builtin_op_for(pscan_ctx *ctx, const pscan__scan_call *c,
                                   const pscan__cpu_op **op) {
  bool plain = ctx->params[PSCAN_PARAM_ALGO] == PSCAN_ALGO_SEQUENTIAL && pscan__order_sensitive(c);
  *op = plain ? pscan__cpu_scalar_op(c->in_type, c->out_type, (pscan_op)c->op)
              : pscan__cpu_builtin_op(c->in_type, c->out_type, (pscan_op)c->op);
  if (!*op)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CPU kernel for %s -> %s %s",
                       pscan__dtype_name(c->in_type), pscan__dtype_name(c->out_type),
                       pscan__op_name(c->op));
  return PSCAN_OK;
}

static pscan_status cpu_scan(pscan_ctx *ctx, const pscan__scan_call *c) {
  pscan__cpu_op custom;
  const pscan__cpu_op *op;
  if (c->op == PSCAN__OP_CUSTOM) {
    pscan__cpu_custom_op(&custom, c->in_size, c->fn, c->user);
    op = &custom;
  } else {
    PSCAN__CHECK(builtin_op_for(ctx, c, &op));
  }
  return pscan__cpu_scan_with(ctx, c, op);
}

static pscan_status scan_job(pscan_ctx *ctx, const pscan__scan_call *c, const pscan__cpu_op *op,
                             bool mirror) {
  cpu_state *st = ctx->impl;
  pscan__cpu_job job = {.op = op, .in = c->in, .out = c->out, .n = c->n, .init = c->init,
                        .exclusive = c->exclusive, .mirror = mirror,
                        .out_forward = mirror && c->out_forward};
  job.part = pscan__cpu_partition_size(ctx, c);
  job.nparts = (c->n - 1) / job.part + 1;
  int algo = choose_algo(ctx, c, job.nparts, &job.nthreads);
  job.oversubscribed = job.nthreads > pscan__cpu_hardware_threads();
  job.chained = algo == PSCAN_ALGO_CHAINED ||
                (ctx->params[PSCAN_PARAM_DETERMINISTIC] && pscan__order_sensitive(c));

  job.stream = pscan__cpu_stream_output(c->n * op->acc_size); /* single pass and sequential */

  PSCAN__CHECK(layout_scratch(ctx, st, &job, 0));
  if (algo == PSCAN_ALGO_SEQUENTIAL) {
    pscan__cpu_scan(op, c->exclusive, job.stream, c->in, c->out, c->n, c->init, job.scratch,
                    (const void *)((uintptr_t)c->in + PSCAN__PREFETCH_AHEAD));
    return PSCAN_OK;
  }
  if (job.nthreads > 1)
    PSCAN__CHECK(ensure_pool(ctx, st, configured_threads(ctx)));
  switch (algo) {
  case PSCAN_ALGO_REDUCE_THEN_SCAN: pscan__cpu_scan_reduce_then_scan(st->pool, &job); break;
  case PSCAN_ALGO_SCAN_THEN_PROPAGATE: pscan__cpu_scan_then_propagate(st->pool, &job); break;
  default: pscan__cpu_scan_lookback(st->pool, &job); break;
  }
  return PSCAN_OK;
}

pscan_status pscan__cpu_scan_with(pscan_ctx *ctx, const pscan__scan_call *c,
                                  const pscan__cpu_op *op) {
  return scan_job(ctx, c, op, false);
}

pscan_status pscan__cpu_scan_mirrored(pscan_ctx *ctx, const pscan__scan_call *c) {
  const pscan__cpu_op *op;
  pscan__cpu_mirror m;
  PSCAN__CHECK(builtin_op_for(ctx, c, &op)); /* (refuses PSCAN__OP_CUSTOM) */
  if (!pscan__cpu_mirrored_strategy(ctx) || !pscan__cpu_mirror_op(&m, op))
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no mirrored CPU kernel for %s",
                       pscan__op_name(c->op));
  m.out_forward = c->out_forward;
  return scan_job(ctx, c, &m.op, true);
}

/* pscan_reduce: the reduce-then-scan strategy's first phase on the scan's partitions and
   threads (AUTO: the threads a scan of n would take), then the aggregates folded in order. */
static pscan_status cpu_reduce(pscan_ctx *ctx, const pscan__scan_call *c, void *total) {
  PSCAN__CHECK(cpu_check_memory(ctx, total, "total"));
  if (c->n == 0) {
    if (c->init)
      memcpy(total, c->init, c->out_size);
    else
      pscan__identity(c->out_type, (pscan_op)c->op, total);
    return PSCAN_OK;
  }
  const pscan__cpu_op *op;
  PSCAN__CHECK(builtin_op_for(ctx, c, &op));
  return pscan__cpu_reduce_with(ctx, c, op, total);
}

pscan_status pscan__cpu_reduce_with(pscan_ctx *ctx, const pscan__scan_call *c,
                                    const pscan__cpu_op *op, void *total) {
  cpu_state *st = ctx->impl;
  pscan__cpu_job job = {.op = op, .in = c->in, .n = c->n, .init = c->init};
  job.part = pscan__cpu_partition_size(ctx, c);
  job.nparts = (c->n - 1) / job.part + 1;
  choose_algo(ctx, c, job.nparts, &job.nthreads);
  PSCAN__CHECK(layout_scratch(ctx, st, &job, 0));
  if (job.nthreads > 1)
    PSCAN__CHECK(ensure_pool(ctx, st, configured_threads(ctx)));
  pscan__cpu_reduce(st->pool, &job, total);
  return PSCAN_OK;
}

/* Compaction partitions: 64 KiB of items per thread's buffer, which stays in cache with the input
   it was gathered from, and the scans' larger partitions (AUTO_LARGE_*) on many threads over a
   large input, except in deterministic mode, whose float results must not depend on the thread
   count. Measured on 16 threads (docs/PERFORMANCE.md, "The partition A/B on 16 cores"): the
   larger partitions lifted every op's median (run_length_encode 43-49 -> 74-78% of the copy,
   reduce_by_key 47-52 -> 67-68%). PSCAN_CPU_COMPACT_PARTITION (read once) picks an earlier rule
   for A/B runs: "items" (64 KiB of items always) or "positions" (64 KiB counting 8 bytes of run
   heads' positions an item for the run ops, which the portable path keeps). The buffer holds a
   whole partition, so a partition longer than the input is cut to the input (the caller). */
typedef enum { COMPACT_PART_POSITIONS, COMPACT_PART_ITEMS, COMPACT_PART_SCAN } compact_part_rule;
static pthread_once_t compact_part_once = PTHREAD_ONCE_INIT;
static compact_part_rule compact_part;

static void choose_compact_part(void) {
  const char *v = getenv("PSCAN_CPU_COMPACT_PARTITION");
  compact_part = v && strcmp(v, "items") == 0       ? COMPACT_PART_ITEMS
                 : v && strcmp(v, "positions") == 0 ? COMPACT_PART_POSITIONS
                                                    : COMPACT_PART_SCAN;
}

static size_t compact_partition(const pscan_ctx *ctx, const pscan__compact_call *c) {
  if (ctx->params[PSCAN__SLOT_PARTITION_SIZE] > 0)
    return (size_t)ctx->params[PSCAN__SLOT_PARTITION_SIZE];
  pthread_once(&compact_part_once, choose_compact_part);
  bool runs = c->kind == PSCAN__COMPACT_RUN_LENGTH || c->kind == PSCAN__COMPACT_REDUCE_BY_KEY ||
              c->kind == PSCAN__COMPACT_SCAN_BY_KEY;
  if (compact_part == COMPACT_PART_POSITIONS)
    return AUTO_PARTITION_BYTES / (c->size + (runs ? sizeof(size_t) : 0));
  bool large = compact_part == COMPACT_PART_SCAN && !ctx->params[PSCAN_PARAM_DETERMINISTIC] &&
               configured_threads(ctx) >= AUTO_LARGE_THREADS &&
               c->n >= AUTO_LARGE_INPUT / c->size;
  return (large ? AUTO_LARGE_PARTITION_BYTES : AUTO_PARTITION_BYTES) / c->size;
}

/* Compaction: one single-pass strategy (compact.c). ALGO picks the thread count and the look-back:
   AUTO (one thread below AUTO_SEQUENTIAL_BELOW elements, at most one per
   AUTO_MIN_ELEMS_PER_THREAD), SEQUENTIAL (one thread), CHAINED (look-back of one), any other
   (decoupled look-back on all configured threads). */
static pscan_status cpu_compact(pscan_ctx *ctx, const pscan__compact_call *c) {
  cpu_state *st = ctx->impl;
  if (c->n == 0) { /* nothing to select (scan_by_key never comes here with n == 0) */
    *c->num_selected = 0;
    return PSCAN_OK;
  }
  pscan__cpu_compact_op op;
  pscan__cpu_count_op(&op, c);
  if (c->kind == PSCAN__COMPACT_REDUCE_BY_KEY || c->kind == PSCAN__COMPACT_SCAN_BY_KEY) {
    op.value = c->user_value ? pscan__cpu_op_kernels(c->user_value)
                             : pscan__cpu_builtin_op(c->val_type, c->val_type, c->op);
    if (!op.value)
      return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "no CPU kernel for %s %s",
                         pscan__dtype_name(c->val_type), pscan__op_name(c->op));
  }
  pscan__cpu_job job = {.op = &op.base, .in = c->in, .out = c->out, .n = c->n,
                        .stream = pscan__cpu_stream_output(c->n * c->size)};
  job.part = compact_partition(ctx, c);
  if (job.part > c->n)
    job.part = c->n;
  if (job.part > UINT32_MAX) /* run-length encoding keeps 32-bit positions within a partition */
    job.part = UINT32_MAX;
  job.nparts = (c->n - 1) / job.part + 1;
  int algo = (int)ctx->params[PSCAN_PARAM_ALGO];
  int threads = configured_threads(ctx);
  if (algo == PSCAN_ALGO_AUTO) {
    size_t useful = c->n / AUTO_MIN_ELEMS_PER_THREAD;
    if (c->n < AUTO_SEQUENTIAL_BELOW || useful < 1)
      threads = 1;
    else if (useful < (size_t)threads)
      threads = (int)useful;
  } else if (algo == PSCAN_ALGO_SEQUENTIAL) {
    threads = 1;
  }
  if ((size_t)threads > job.nparts)
    threads = (int)job.nparts;
  job.nthreads = threads;
  job.oversubscribed = job.nthreads > pscan__cpu_hardware_threads();
  job.chained = algo == PSCAN_ALGO_CHAINED;
  size_t extra = pscan__cpu_compact_extra(c, job.part);
  if (!extra)
    return pscan__fail(ctx, PSCAN_ERR_OVERFLOW, "scratch size overflows size_t");
  PSCAN__CHECK(layout_scratch(ctx, st, &job, extra));
  if (job.nthreads > 1)
    PSCAN__CHECK(ensure_pool(ctx, st, configured_threads(ctx)));
  size_t written = pscan__cpu_compact(st->pool, &job, c);
  if (c->num_selected)
    *c->num_selected = written;
  return PSCAN_OK;
}

/* ---- For the axis engines (axis.c) ---- */

int pscan__cpu_threads(const pscan_ctx *ctx) { return configured_threads(ctx); }

pscan_status pscan__cpu_pool(pscan_ctx *ctx, pscan__pool **pool) {
  cpu_state *st = ctx->impl;
  PSCAN__CHECK(ensure_pool(ctx, st, configured_threads(ctx)));
  *pool = st->pool;
  return PSCAN_OK;
}

pscan_status pscan__cpu_scratch(pscan_ctx *ctx, size_t bytes, char **scratch) {
  cpu_state *st = ctx->impl;
  PSCAN__CHECK(ensure_work(ctx, st, bytes ? bytes : 1));
  *scratch = st->work;
  return PSCAN_OK;
}

const pscan__backend pscan__cpu_backend = {
    .name = "cpu",
    .init = cpu_init,
    .fini = cpu_fini,
    .check_param = cpu_check_param,
    .set_stream = cpu_set_stream,
    .synchronize = cpu_synchronize,
    .check_memory = cpu_check_memory,
    .scan = cpu_scan,
    .reduce = cpu_reduce,
    .compact = cpu_compact,
    .scan_axis = pscan__cpu_scan_axis,
    .op_create = pscan__cpu_op_create,
    .op_destroy = pscan__cpu_op_destroy,
    .scan_op = pscan__cpu_scan_op,
    .reduce_op = pscan__cpu_reduce_op,
    .select_op = pscan__cpu_select_op,
    .op_target = pscan__cpu_op_target,
};
