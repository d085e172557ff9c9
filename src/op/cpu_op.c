/* The CPU backend's user operators: a compiled operator (cpu_compile.c) or a host_fn behind the
 * same pscan__cpu_op kernel interface as the built-in operators, so that scans run through the
 * CPU backend's own strategies (single-pass decoupled look-back on the context's pool, and the
 * others ALGO selects) and predicates through its single-pass compaction (compact.c) with the
 * compiled gather in place of the built-in comparison. */
#include "../cpu/cpu.h"
#include "cpu_compile.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

typedef struct cpu_uop {
  pscan__cpu_op base; /* first: the strategies see a pscan__cpu_op */
  pscan_op_kind kind;
  size_t elem_size;
  pscan__uop_lib lib; /* lib.dl NULL: a host_fn operator (base.user_fn) */
  uint64_t call;      /* the running call's number (its context runs one call at a time) */
} cpu_uop;

static const cpu_uop *uop_of(const pscan__cpu_op *op) { return (const cpu_uop *)(const void *)op; }
static const pscan__uop_lib *lib_of(const pscan__cpu_op *op) { return &uop_of(op)->lib; }

/* The reduction's memo (cpu_compile.h): the single-pass scan reduces a partition and then, on the
 * same thread, scans it; the scan takes the quarter reductions of each block from the memo rather
 * than computing them again (a quarter fewer operator calls per element). A memo is used only for
 * the same elements (input pointer and count) in the same call of the same operator, so a stale
 * one (another call, a partition another thread scans) is never taken. */
enum { MEMO_BYTES = 16 << 10 };
static _Thread_local struct {
  const void *in;
  size_t n;
  uint64_t call;
  const cpu_uop *op;
  _Alignas(64) char red[MEMO_BYTES];
} memo;
static _Atomic uint64_t calls;

static bool memo_fits(size_t n, size_t s) {
  size_t block = PSCAN__UOP_BLOCK / s ? PSCAN__UOP_BLOCK / s : 1;
  return (n + block - 1) / block <= MEMO_BYTES / (PSCAN__UOP_MEMO_PER_BLOCK * s);
}

/* The memo for (op, in, n) in this call, or NULL; consumed either way. */
static const char *memo_take(const pscan__cpu_op *op, const void *in, size_t n) {
  const cpu_uop *u = uop_of(op);
  bool hit = memo.in == in && memo.n == n && memo.op == u && memo.call == u->call;
  memo.in = NULL;
  return hit ? memo.red : NULL;
}

static void k_reduce(const pscan__cpu_op *op, const void *in, size_t n, void *acc) {
  const cpu_uop *u = uop_of(op);
  if (!memo_fits(n, u->elem_size)) {
    memo.in = NULL;
    u->lib.reduce(acc, in, n);
    return;
  }
  u->lib.reduce_memo(acc, in, n, memo.red);
  memo.in = in, memo.n = n, memo.op = u, memo.call = u->call;
}
static void k_scan_incl(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                        const void *carry, void *scratch) {
  (void)scratch;
  lib_of(op)->scan(out, in, n, carry, memo_take(op, in, n));
}
static void k_scan_excl(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                        const void *carry, void *scratch) {
  (void)scratch;
  /* carry: the scan's init (api: never NULL here) */
  lib_of(op)->scan_excl(out, in, n, carry, memo_take(op, in, n));
}
static void k_propagate_incl(const pscan__cpu_op *op, void *out, size_t n, const void *carry) {
  lib_of(op)->propagate(out, n, carry);
}
static void k_propagate_excl(const pscan__cpu_op *op, void *out, size_t n, const void *carry) {
  lib_of(op)->propagate_excl(out, n, carry);
}
static void k_combine(const pscan__cpu_op *op, void *out, const void *a, const void *b) {
  lib_of(op)->combine(out, a, b);
}

/* Streaming forms (outputs too large to stay in cache): the compiled scan writes a chunk into a
   per-thread buffer that stays in L1, and pscan__cpu_copy_out moves it to out with non-temporal
   stores, so out's lines are not read before being written (the copy's fence also orders them
   before the call returns). The running value passes from chunk to chunk; in place is safe, as
   each chunk's input is read before its output is stored. */
/* A chunk is one block of the glue, so that the memo's blocks are the chunks' own. */
enum { STREAM_CHUNK = PSCAN__UOP_BLOCK };
static _Thread_local _Alignas(64) char stream_buf[STREAM_CHUNK];

static void k_scan_stream(const pscan__cpu_op *op, int exclusive, const void *in_, void *out_,
                          size_t n, const void *carry) {
  const pscan__uop_lib *lib = lib_of(op);
  size_t s = op->acc_size, chunk = STREAM_CHUNK / s;
  const char *in = in_, *known = memo_take(op, in_, n);
  char *out = out_;
  _Alignas(64) char running[2][PSCAN__OP_MAX_ELEM];
  int r = 0;
  for (size_t at = 0; at < n; at += chunk) {
    size_t len = n - at < chunk ? n - at : chunk;
    const char *src = in + at * s;
    const char *m = known ? known + at / chunk * PSCAN__UOP_MEMO_PER_BLOCK * s : NULL;
    (exclusive ? lib->scan_excl : lib->scan)(stream_buf, src, len, carry, m);
    /* The running value after the chunk (read from src before out overwrites it in place). */
    if (exclusive)
      lib->combine(running[r], stream_buf + (len - 1) * s, src + (len - 1) * s);
    else
      memcpy(running[r], stream_buf + (len - 1) * s, s);
    pscan__cpu_copy_out(out + at * s, stream_buf, len * s, true);
    carry = running[r];
    r ^= 1;
  }
}
static void k_scan_incl_stream(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                               const void *carry, void *scratch, const void *prefetch) {
  (void)scratch, (void)prefetch;
  k_scan_stream(op, 0, in, out, n, carry);
}
static void k_scan_excl_stream(const pscan__cpu_op *op, const void *in, void *out, size_t n,
                               const void *carry, void *scratch, const void *prefetch) {
  (void)scratch, (void)prefetch;
  k_scan_stream(op, 1, in, out, n, carry);
}

const char *pscan__cpu_op_target(pscan_ctx *ctx, const pscan_op_desc *desc) {
  (void)ctx;
  return desc->host_fn ? "host_fn" : pscan__uop_target();
}

pscan_status pscan__cpu_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, const char *key,
                                  void **impl) {
  cpu_uop *u = pscan__calloc(1, sizeof *u);
  if (!u)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  u->kind = desc->kind;
  u->elem_size = desc->elem_size;
  if (desc->host_fn) { /* the existing custom-operator kernels: nothing to compile */
    pscan__cpu_custom_op(&u->base, desc->elem_size, desc->host_fn, desc->host_user);
    *impl = u;
    return PSCAN_OK;
  }
  pscan_status s = pscan__uop_compile(ctx, desc, key, &u->lib);
  if (s == PSCAN_OK && u->lib.size_of() != desc->elem_size) {
    s = pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                    "pscan_op_create: elem_size %zu but sizeof(%s) is %zu", desc->elem_size,
                    desc->type_name, u->lib.size_of());
    pscan__uop_unload(&u->lib);
  }
  if (s != PSCAN_OK) {
    pscan__free(u);
    return s;
  }
  u->base = (pscan__cpu_op){.reduce = k_reduce,
                            .scan_incl = k_scan_incl,
                            .scan_excl = k_scan_excl,
                            .propagate_incl = k_propagate_incl,
                            .propagate_excl = k_propagate_excl,
                            .combine = k_combine,
                            .in_size = desc->elem_size,
                            .acc_size = desc->elem_size,
                            .scan_incl_stream = k_scan_incl_stream,
                            .scan_excl_stream = k_scan_excl_stream};
  *impl = u;
  return PSCAN_OK;
}

void pscan__cpu_op_destroy(pscan_ctx *ctx, void *impl) {
  cpu_uop *u = impl;
  (void)ctx;
  if (!u)
    return;
  pscan__uop_unload(&u->lib);
  pscan__free(u);
}

static void compiled_combine(void *out, const void *a, const void *b, void *user) {
  ((const cpu_uop *)user)->lib.combine(out, a, b);
}

void pscan__cpu_op_host_combine(void *impl, pscan_combine_fn *fn, void **user) {
  cpu_uop *u = impl;
  *fn = u->base.user_fn ? u->base.user_fn : compiled_combine;
  *user = u->base.user_fn ? u->base.user : u;
}

const pscan__cpu_op *pscan__cpu_op_kernels(void *impl) {
  cpu_uop *u = impl;
  u->call = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) + 1; /* a new call's memo */
  return &u->base;
}

pscan_status pscan__cpu_scan_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                int exclusive, const void *init) {
  cpu_uop *u = impl;
  u->call = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) + 1;
  pscan__scan_call c = {.in = in, .out = out, .n = n, .op = PSCAN__OP_CUSTOM,
                        .exclusive = exclusive, .init = init, .in_size = u->elem_size,
                        .out_size = u->elem_size, .fn = u->base.user_fn, .user = u->base.user};
  return pscan__cpu_scan_with(ctx, &c, &u->base);
}

pscan_status pscan__cpu_reduce_op(pscan_ctx *ctx, void *impl, const void *in, size_t n,
                                  const void *init, void *total) {
  cpu_uop *u = impl;
  PSCAN__CHECK(ctx->backend->check_memory(ctx, total, "total"));
  if (n == 0) {
    memcpy(total, init, u->elem_size);
    return PSCAN_OK;
  }
  u->call = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) + 1;
  pscan__scan_call c = {.in = in, .n = n, .op = PSCAN__OP_CUSTOM, .init = init,
                        .in_size = u->elem_size, .out_size = u->elem_size,
                        .fn = u->base.user_fn, .user = u->base.user};
  return pscan__cpu_reduce_with(ctx, &c, &u->base, total);
}

static size_t gather(const void *pred, const void *in, size_t n, void *buf, bool rejects) {
  return ((const cpu_uop *)pred)->lib.gather(buf, in, n, rejects ? 1 : 0);
}

pscan_status pscan__cpu_select_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                  int partition, size_t *num_selected) {
  cpu_uop *u = impl;
  pscan__compact_call c = {
      .kind = partition ? PSCAN__COMPACT_PARTITION_IF : PSCAN__COMPACT_SELECT_IF,
      .in = in, .out = out, .n = n, .type = PSCAN_U8, .size = u->elem_size,
      .num_selected = num_selected, .user_gather = gather, .user_pred = u};
  return pscan__cpu_backend.compact(ctx, &c);
}
