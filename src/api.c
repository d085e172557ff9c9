/* The public entry points: every argument is validated here, once, before a backend sees it.
 * A refusal writes nothing and leaves a one-line message in the context. */
#include "internal.h"

#include <stdint.h>
#include <string.h>

#define FAIL(ctx, status, ...) pscan__fail((ctx), (status), __VA_ARGS__)

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

/* *bytes = n * size, or PSCAN_ERR_OVERFLOW. */
static pscan_status byte_size(pscan_ctx *ctx, const char *fn, size_t n, size_t size, size_t *bytes) {
  if (size != 0 && n > SIZE_MAX / size)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %zu elements of %zu bytes overflow size_t", fn, n,
                size);
  *bytes = n * size;
  return PSCAN_OK;
}

static pscan_status check_dtype(pscan_ctx *ctx, const char *fn, const char *what, int t) {
  if (!pscan__dtype_valid(t))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown %s %d", fn, what, t);
  return PSCAN_OK;
}

static pscan_status check_op(pscan_ctx *ctx, const char *fn, int op, pscan_dtype t) {
  if (!pscan__op_valid(op))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown op %d", fn, op);
  if (pscan__op_integer_only((pscan_op)op) && pscan__dtype_kind(t) == PSCAN__FLOAT)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: op %s is for integer types, not %s", fn,
                pscan__op_name(op), pscan__dtype_name(t));
  return PSCAN_OK;
}

/* Checks common to every call that reads in[0..n) and writes out[0..n): pointers, sizes,
   aliasing (out == in with equal element sizes is the in-place case) and memory kind. */
/* The kernels access typed buffers as arrays of their C type (so do the GPU's), which needs the
   type's alignment; an unaligned pointer is refused rather than read wrongly or faulting. */
static pscan_status check_aligned(pscan_ctx *ctx, const char *fn, const char *what, const void *p,
                                  size_t size) {
  if (p && size > 1 && (uintptr_t)p % size != 0)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: %s (%p) is not aligned to its element size of %zu bytes", fn, what, p, size);
  return PSCAN_OK;
}

/* typed: in and out hold elements of a pscan_dtype (alignment checked), not opaque bytes. */
static pscan_status check_buffers(pscan_ctx *ctx, const char *fn, const void *in, size_t in_size,
                                  const void *out, size_t out_size, size_t n, bool typed) {
  size_t in_bytes = 0, out_bytes = 0;
  PSCAN__CHECK(byte_size(ctx, fn, n, in_size, &in_bytes));
  PSCAN__CHECK(byte_size(ctx, fn, n, out_size, &out_bytes));
  if (n == 0)
    return PSCAN_OK;
  if (!in || !out)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, in ? "out" : "in");
  if (typed) {
    PSCAN__CHECK(check_aligned(ctx, fn, "in", in, in_size));
    PSCAN__CHECK(check_aligned(ctx, fn, "out", out, out_size));
  }
  bool in_place = in == out && in_size == out_size;
  if (!in_place && ranges_overlap(in, in_bytes, out, out_bytes))
    return FAIL(ctx, PSCAN_ERR_OVERLAP,
                "%s: in and out overlap without being the same buffer of the same type", fn);
  if (ctx->backend->check_memory) {
    PSCAN__CHECK(ctx->backend->check_memory(ctx, in, "in"));
    PSCAN__CHECK(ctx->backend->check_memory(ctx, out, "out"));
  }
  return PSCAN_OK;
}

/* The types and op of a scan or reduction. */
static pscan_status check_scan_types(pscan_ctx *ctx, const char *fn, const pscan_scan_args *a) {
  PSCAN__CHECK(check_dtype(ctx, fn, "in_type", (int)a->in_type));
  PSCAN__CHECK(check_dtype(ctx, fn, "out_type", (int)a->out_type));
  PSCAN__CHECK(check_op(ctx, fn, (int)a->op, a->in_type));
  if (!pscan__scan_pair_valid(a->in_type, a->out_type))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: out_type %s is neither in_type %s nor a wider type of the same kind", fn,
                pscan__dtype_name(a->out_type), pscan__dtype_name(a->in_type));
  return PSCAN_OK;
}

pscan_status pscan_scan(pscan_ctx *ctx, const pscan_scan_args *a) {
  static const char fn[] = "pscan_scan";
  if (!ctx || !a) /* the message goes to ctx where there is one */
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, ctx ? "args" : "ctx");
  PSCAN__CHECK(check_scan_types(ctx, fn, a));
  if (a->exclusive != 0 && a->exclusive != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: exclusive must be 0 or 1, not %d", fn,
                a->exclusive);
  pscan__scan_call call = {
      .in = a->in, .out = a->out, .n = a->n, .in_type = a->in_type, .out_type = a->out_type,
      .op = (int)a->op, .exclusive = a->exclusive, .init = a->init,
      .in_size = pscan_dtype_size(a->in_type), .out_size = pscan_dtype_size(a->out_type)};
  PSCAN__CHECK(
      check_buffers(ctx, fn, call.in, call.in_size, call.out, call.out_size, call.n, true));
  if (call.n == 0)
    return PSCAN_OK;
  return pscan__call_done(ctx, ctx->backend->scan(ctx, &call));
}

pscan_status pscan_reduce(pscan_ctx *ctx, const pscan_scan_args *a, void *total) {
  static const char fn[] = "pscan_reduce";
  if (!ctx || !a)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, ctx ? "args" : "ctx");
  PSCAN__CHECK(check_scan_types(ctx, fn, a));
  if (!total)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: total is NULL", fn);
  pscan__scan_call call = {
      .in = a->in, .n = a->n, .in_type = a->in_type, .out_type = a->out_type, .op = (int)a->op,
      .init = a->init, .in_size = pscan_dtype_size(a->in_type),
      .out_size = pscan_dtype_size(a->out_type)};
  size_t in_bytes = 0;
  PSCAN__CHECK(byte_size(ctx, fn, call.n, call.in_size, &in_bytes));
  if (call.n > 0) {
    if (!call.in)
      return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: in is NULL", fn);
    PSCAN__CHECK(check_aligned(ctx, fn, "in", call.in, call.in_size));
    if (ctx->backend->check_memory)
      PSCAN__CHECK(ctx->backend->check_memory(ctx, call.in, "in"));
  }
  if (!ctx->backend->reduce)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend has no reduction", fn,
                ctx->backend->name);
  return pscan__call_done(ctx, ctx->backend->reduce(ctx, &call, total));
}

pscan_status pscan_inclusive_scan(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                  pscan_dtype type, pscan_op op) {
  pscan_scan_args a = {.in = in, .in_type = type, .out = out, .out_type = type, .n = n, .op = op};
  return pscan_scan(ctx, &a);
}

pscan_status pscan_exclusive_scan(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                  pscan_dtype type, pscan_op op, const void *init) {
  pscan_scan_args a = {.in = in, .in_type = type, .out = out, .out_type = type, .n = n, .op = op,
                       .exclusive = 1, .init = init};
  return pscan_scan(ctx, &a);
}

pscan_status pscan_scan_custom(pscan_ctx *ctx, const void *in, void *out, size_t n,
                               size_t elem_size, pscan_combine_fn fn_ptr, void *user, int exclusive,
                               const void *init) {
  static const char fn[] = "pscan_scan_custom";
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  if (elem_size == 0)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: elem_size is 0", fn);
  if (!fn_ptr)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: fn is NULL", fn);
  if (exclusive != 0 && exclusive != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: exclusive must be 0 or 1, not %d", fn,
                exclusive);
  if (exclusive && !init)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: an exclusive scan with a custom operator needs init", fn);
  PSCAN__CHECK(check_buffers(ctx, fn, in, elem_size, out, elem_size, n, false));
  if (n == 0)
    return PSCAN_OK;
  pscan__scan_call call = {.in = in, .out = out, .n = n, .op = PSCAN__OP_CUSTOM,
                           .exclusive = exclusive, .init = init, .in_size = elem_size,
                           .out_size = elem_size, .fn = fn_ptr, .user = user};
  return pscan__call_done(ctx, ctx->backend->scan(ctx, &call));
}

/* ---- Compaction and segmented scan: validated here, run on backends that offer them (the CPU
   backend). ---- */

/* Hands a validated compaction request to the backend, n == 0 included: the backend writes the
   count (0), which on the CUDA backend may be device memory. */
static pscan_status run_compact(pscan_ctx *ctx, const char *fn, const pscan__compact_call *call) {
  if (!ctx->backend->compact)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend does not offer compaction", fn,
                ctx->backend->name);
  return pscan__call_done(ctx, ctx->backend->compact(ctx, call));
}

static pscan_status check_compaction(pscan_ctx *ctx, const char *fn, const void *in, void *out,
                                     size_t n, int type, const void *count) {
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  PSCAN__CHECK(check_dtype(ctx, fn, "type", type));
  size_t size = pscan_dtype_size((pscan_dtype)type);
  PSCAN__CHECK(check_buffers(ctx, fn, in, size, out, size, n, true));
  if (!count)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: count pointer is NULL", fn);
  return PSCAN_OK;
}

static pscan_status check_cmp(pscan_ctx *ctx, const char *fn, int cmp, const void *value) {
  if (cmp < 0 || cmp >= PSCAN_CMP_COUNT)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown cmp %d", fn, cmp);
  if (!value)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: value is NULL", fn);
  return PSCAN_OK;
}

/* select_if and partition_if, checked: the value is read once, here (it may lie inside out,
   which the call overwrites). */
static pscan_status run_compact_cmp(pscan_ctx *ctx, const char *fn, pscan__compact_kind kind,
                                    const void *in, void *out, size_t n, pscan_dtype type,
                                    pscan_cmp cmp, const void *value, size_t *num_selected) {
  uint64_t value_copy = 0;
  memcpy(&value_copy, value, pscan_dtype_size(type));
  pscan__compact_call call = {.kind = kind, .in = in, .out = out, .n = n, .type = type,
                              .size = pscan_dtype_size(type), .cmp = cmp, .value = &value_copy,
                              .num_selected = num_selected};
  return run_compact(ctx, fn, &call);
}

pscan_status pscan_select_if(pscan_ctx *ctx, const void *in, void *out, size_t n, pscan_dtype type,
                             pscan_cmp cmp, const void *value, size_t *num_selected) {
  static const char fn[] = "pscan_select_if";
  PSCAN__CHECK(check_compaction(ctx, fn, in, out, n, (int)type, num_selected));
  PSCAN__CHECK(check_cmp(ctx, fn, (int)cmp, value));
  return run_compact_cmp(ctx, fn, PSCAN__COMPACT_SELECT_IF, in, out, n, type, cmp, value,
                         num_selected);
}

pscan_status pscan_select_flagged(pscan_ctx *ctx, const void *in, const uint8_t *flags, void *out,
                                  size_t n, pscan_dtype type, size_t *num_selected) {
  static const char fn[] = "pscan_select_flagged";
  PSCAN__CHECK(check_compaction(ctx, fn, in, out, n, (int)type, num_selected));
  if (n && !flags)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: flags is NULL", fn);
  /* flags are read while out is written (in place, out also holds in): they must not share a
     byte with out. */
  if (n && ranges_overlap(flags, n, out, n * pscan_dtype_size(type)))
    return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: flags and out overlap", fn);
  if (n && ctx->backend->check_memory)
    PSCAN__CHECK(ctx->backend->check_memory(ctx, flags, "flags"));
  pscan__compact_call call = {.kind = PSCAN__COMPACT_SELECT_FLAGGED, .in = in, .flags = flags,
                              .out = out, .n = n, .type = type, .size = pscan_dtype_size(type),
                              .num_selected = num_selected};
  return run_compact(ctx, fn, &call);
}

pscan_status pscan_partition_if(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                pscan_dtype type, pscan_cmp cmp, const void *value,
                                size_t *num_selected) {
  static const char fn[] = "pscan_partition_if";
  PSCAN__CHECK(check_compaction(ctx, fn, in, out, n, (int)type, num_selected));
  PSCAN__CHECK(check_cmp(ctx, fn, (int)cmp, value));
  if (n && in == out) /* pscan.h allows in place only for the select family and unique */
    return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: out == in; partition_if does not run in place", fn);
  return run_compact_cmp(ctx, fn, PSCAN__COMPACT_PARTITION_IF, in, out, n, type, cmp, value,
                         num_selected);
}

pscan_status pscan_unique(pscan_ctx *ctx, const void *in, void *out, size_t n, pscan_dtype type,
                          size_t *num_unique) {
  static const char fn[] = "pscan_unique";
  PSCAN__CHECK(check_compaction(ctx, fn, in, out, n, (int)type, num_unique));
  pscan__compact_call call = {.kind = PSCAN__COMPACT_UNIQUE, .in = in, .out = out, .n = n,
                              .type = type, .size = pscan_dtype_size(type),
                              .num_selected = num_unique};
  return run_compact(ctx, fn, &call);
}

pscan_status pscan_run_length_encode(pscan_ctx *ctx, const void *in, void *unique_out,
                                     uint64_t *counts_out, size_t n, pscan_dtype type,
                                     size_t *num_runs) {
  static const char fn[] = "pscan_run_length_encode";
  PSCAN__CHECK(check_compaction(ctx, fn, in, unique_out, n, (int)type, num_runs));
  if (n && !counts_out)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: counts_out is NULL", fn);
  if (n)
    PSCAN__CHECK(check_aligned(ctx, fn, "counts_out", counts_out, sizeof(uint64_t)));
  if (n) {
    size_t size = pscan_dtype_size(type), count_bytes = 0;
    PSCAN__CHECK(byte_size(ctx, fn, n, sizeof(uint64_t), &count_bytes));
    if (ranges_overlap(counts_out, count_bytes, in, n * size) ||
        ranges_overlap(counts_out, count_bytes, unique_out, n * size))
      return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: counts_out overlaps in or unique_out", fn);
    if (ctx->backend->check_memory)
      PSCAN__CHECK(ctx->backend->check_memory(ctx, counts_out, "counts_out"));
  }
  pscan__compact_call call = {.kind = PSCAN__COMPACT_RUN_LENGTH, .in = in, .out = unique_out,
                              .n = n, .type = type, .size = pscan_dtype_size(type),
                              .counts_out = counts_out, .num_selected = num_runs};
  return run_compact(ctx, fn, &call);
}

/* The values of a by-key call: a built-in type and operator, or a user operator's elements
   (user: its backend form; any alignment, type and op unused). */
typedef struct by_key_values {
  pscan_dtype type;
  pscan_op op;
  size_t size;
  void *user;
} by_key_values;

/* The values' buffers, and for built-in values their type and op, in the order the built-in
   calls have always checked them (a request with several faults answers the same status). */
static pscan_status check_values(pscan_ctx *ctx, const char *fn, const by_key_values *v,
                                 const void *in, const void *out, size_t n) {
  if (!v->user)
    PSCAN__CHECK(check_dtype(ctx, fn, "type", (int)v->type));
  PSCAN__CHECK(check_buffers(ctx, fn, in, v->size, out, v->size, n, !v->user));
  return v->user ? PSCAN_OK : check_op(ctx, fn, (int)v->op, v->type);
}

static pscan_status reduce_by_key(pscan_ctx *ctx, const char *fn, const void *keys_in,
                                  pscan_dtype key_type, const void *vals_in, void *keys_out,
                                  void *vals_out, size_t n, const by_key_values *v,
                                  size_t *num_runs) {
  PSCAN__CHECK(check_compaction(ctx, fn, keys_in, keys_out, n, (int)key_type, num_runs));
  PSCAN__CHECK(check_values(ctx, fn, v, vals_in, vals_out, n));
  if (n) {
    /* Not in place (pscan.h): the values are read again after the look-back. No output may
       share a byte with an input or with the other output. */
    size_t kb = n * pscan_dtype_size(key_type), vb = n * v->size;
    if (ranges_overlap(keys_out, kb, keys_in, kb) || ranges_overlap(keys_out, kb, vals_in, vb) ||
        ranges_overlap(vals_out, vb, keys_in, kb) || ranges_overlap(vals_out, vb, vals_in, vb) ||
        ranges_overlap(keys_out, kb, vals_out, vb))
      return FAIL(ctx, PSCAN_ERR_OVERLAP,
                  "%s: keys_out or vals_out overlaps an input or the other output", fn);
  }
  pscan__compact_call call = {.kind = PSCAN__COMPACT_REDUCE_BY_KEY, .in = keys_in, .out = keys_out,
                              .n = n, .type = key_type, .size = pscan_dtype_size(key_type),
                              .vals_in = vals_in, .vals_out = vals_out, .val_type = v->type,
                              .val_size = v->size, .op = v->op, .num_selected = num_runs,
                              .user_value = v->user};
  return run_compact(ctx, fn, &call);
}

static pscan_status scan_by_key(pscan_ctx *ctx, const char *fn, const void *keys,
                                pscan_dtype key_type, const void *in, void *out, size_t n,
                                const by_key_values *v, int exclusive, const void *init) {
  PSCAN__CHECK(check_dtype(ctx, fn, "key_type", (int)key_type));
  if (n && !keys)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: keys is NULL", fn);
  if (n)
    PSCAN__CHECK(check_aligned(ctx, fn, "keys", keys, pscan_dtype_size(key_type)));
  PSCAN__CHECK(check_values(ctx, fn, v, in, out, n));
  if (exclusive != 0 && exclusive != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: exclusive must be 0 or 1, not %d", fn,
                exclusive);
  if (n) {
    /* out == in is an in-place scan (each partition writes only its own range, which it reads
       itself); keys are read by every partition while out is written, so they may not overlap. */
    if (ranges_overlap(keys, n * pscan_dtype_size(key_type), out, n * v->size))
      return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: keys and out overlap", fn);
    if (ctx->backend->check_memory)
      PSCAN__CHECK(ctx->backend->check_memory(ctx, keys, "keys"));
  }
  if (!ctx->backend->compact)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend does not offer compaction", fn,
                ctx->backend->name);
  if (n == 0)
    return PSCAN_OK;
  /* init is read once, here (it may lie inside out). */
  _Alignas(8) unsigned char init_copy[PSCAN__BY_KEY_VALUE_MAX] = {0};
  if (init)
    memcpy(init_copy, init, v->size);
  pscan__compact_call call = {.kind = PSCAN__COMPACT_SCAN_BY_KEY, .in = keys, .n = n,
                              .type = key_type, .size = pscan_dtype_size(key_type),
                              .vals_in = in, .vals_out = out, .val_type = v->type,
                              .val_size = v->size, .op = v->op, .exclusive = exclusive,
                              .init = init ? init_copy : NULL, .user_value = v->user};
  return pscan__call_done(ctx, ctx->backend->compact(ctx, &call));
}

/* The built-in values' type and operator (checked with the buffers: check_values). */
static pscan_status builtin_values(pscan_ctx *ctx, const char *fn, pscan_dtype type, pscan_op op,
                                   by_key_values *v) {
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  *v = (by_key_values){.type = type, .op = op, .size = pscan_dtype_size(type)};
  return PSCAN_OK;
}

/* A user operator's values, checked: a COMBINE operator of ctx with elements of at most
   PSCAN__BY_KEY_VALUE_MAX bytes (what the CPU's look-back carries for a run's value). */
static pscan_status user_values(pscan_ctx *ctx, const char *fn, const pscan_user_op *op,
                                by_key_values *v) {
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  PSCAN__CHECK(pscan__op_check(ctx, fn, op, PSCAN_KIND_COMBINE));
  size_t size = pscan__op_elem_size(op);
  if (size > PSCAN__BY_KEY_VALUE_MAX)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: elements of %zu bytes; by-key user operators take "
                "at most %d", fn, size, PSCAN__BY_KEY_VALUE_MAX);
  *v = (by_key_values){.type = PSCAN_U8, .op = PSCAN_SUM, .size = size, .user = pscan__op_impl(op)};
  return PSCAN_OK;
}

pscan_status pscan_reduce_by_key(pscan_ctx *ctx, const void *keys_in, pscan_dtype key_type,
                                 const void *vals_in, pscan_dtype val_type, void *keys_out,
                                 void *vals_out, size_t n, pscan_op op, size_t *num_runs) {
  static const char fn[] = "pscan_reduce_by_key";
  by_key_values v = {0};
  PSCAN__CHECK(builtin_values(ctx, fn, val_type, op, &v));
  return reduce_by_key(ctx, fn, keys_in, key_type, vals_in, keys_out, vals_out, n, &v, num_runs);
}

pscan_status pscan_reduce_by_key_op(pscan_ctx *ctx, const void *keys_in, pscan_dtype key_type,
                                    const void *vals_in, void *keys_out, void *vals_out, size_t n,
                                    const pscan_user_op *op, size_t *num_runs) {
  static const char fn[] = "pscan_reduce_by_key_op";
  by_key_values v = {0};
  PSCAN__CHECK(user_values(ctx, fn, op, &v));
  return reduce_by_key(ctx, fn, keys_in, key_type, vals_in, keys_out, vals_out, n, &v, num_runs);
}

pscan_status pscan_scan_by_key(pscan_ctx *ctx, const void *keys, pscan_dtype key_type,
                               const void *in, void *out, size_t n, pscan_dtype val_type,
                               pscan_op op, int exclusive, const void *init) {
  static const char fn[] = "pscan_scan_by_key";
  by_key_values v = {0};
  PSCAN__CHECK(builtin_values(ctx, fn, val_type, op, &v));
  return scan_by_key(ctx, fn, keys, key_type, in, out, n, &v, exclusive, init);
}

pscan_status pscan_scan_by_key_op(pscan_ctx *ctx, const void *keys, pscan_dtype key_type,
                                  const void *in, void *out, size_t n, const pscan_user_op *op,
                                  int exclusive, const void *init) {
  static const char fn[] = "pscan_scan_by_key_op";
  by_key_values v = {0};
  PSCAN__CHECK(user_values(ctx, fn, op, &v));
  /* Without init, an exclusive run starts from the identity: given as init, which every run
     starts from (identity ⊕ x is x). */
  if (exclusive == 1 && !init) {
    init = pscan__op_identity(op);
    if (!init)
      return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                  "%s: an exclusive scan needs init or an operator with an identity", fn);
  }
  return scan_by_key(ctx, fn, keys, key_type, in, out, n, &v, exclusive, init);
}
