/* The entry points of scans along an axis and segmented scans: every argument is validated here,
 * once, and a pscan__axis_call handed to the backend. A refusal writes nothing.
 *
 * Views are validated in bytes: each strided view covers the byte range from its lowest to its
 * highest element (negative strides reach below the base pointer), and in and out may share a byte
 * only as exactly the same view (same pointer, strides and element size: the in-place scan). */
#include "axis_norm.h"
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(ctx, status, ...) pscan__fail((ctx), (status), __VA_ARGS__)

/* The byte range [lo, hi) that a view covers, as offsets from its base pointer. */
typedef struct view_extent {
  int64_t lo, hi;
} view_extent;

static bool mul_overflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}

/* Extent of shape/strides (elements of size bytes, every shape entry >= 1); false on overflow. */
static bool extent_of(int ndim, const int64_t *shape, const int64_t *strides, size_t size,
                      view_extent *e) {
  int64_t lo = 0, hi = 0, reach;
  for (int d = 0; d < ndim; d++) {
    if (mul_overflows(shape[d] - 1, strides[d], &reach))
      return false;
    if (reach < 0 ? __builtin_add_overflow(lo, reach, &lo) : __builtin_add_overflow(hi, reach, &hi))
      return false;
  }
  if (mul_overflows(lo, (int64_t)size, &lo) || mul_overflows(hi, (int64_t)size, &hi) ||
      __builtin_add_overflow(hi, (int64_t)size, &hi))
    return false;
  e->lo = lo, e->hi = hi;
  return true;
}

/* Whether every element of the view has bytes of its own, by construction: taken from the
   smallest stride up, each |stride| reaches past everything the smaller ones span. This refuses
   zero strides (broadcast) and interleavings, and a few exotic views whose elements are distinct
   without following that pattern (they are refused too, rather than scanned with a race). */
static bool elements_distinct(int ndim, const int64_t *shape, const int64_t *strides) {
  int order[PSCAN_MAX_DIMS], m = 0;
  for (int d = 0; d < ndim; d++)
    if (shape[d] > 1)
      order[m++] = d;
  for (int i = 1; i < m; i++) /* insertion sort by |stride| */
    for (int j = i; j > 0 && llabs(strides[order[j]]) < llabs(strides[order[j - 1]]); j--) {
      int t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  int64_t span = 1; /* elements spanned by the smaller strides, plus one */
  for (int i = 0; i < m; i++) {
    int64_t s = llabs(strides[order[i]]);
    if (s < span)
      return false;
    span += (shape[order[i]] - 1) * s; /* no overflow: the extent was computed already */
  }
  return true;
}

static bool same_view(const pscan__axis_call *c) {
  if (c->in != (const void *)c->out || c->in_size != c->out_size)
    return false;
  for (int d = 0; d < c->ndim; d++)
    if (c->shape[d] > 1 && c->in_strides[d] != c->out_strides[d])
      return false;
  return true;
}

static pscan_status check_pointer(pscan_ctx *ctx, const char *fn, const char *what, const void *p,
                                  size_t size) {
  if (!p)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
  if (size > 1 && (uintptr_t)p % size != 0)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: %s (%p) is not aligned to its element size of %zu bytes", fn, what, p, size);
  if (ctx->backend->check_memory)
    return ctx->backend->check_memory(ctx, p, what);
  return PSCAN_OK;
}

/* Pointers, alignment, memory kind and aliasing of the two views of c (c->n > 0). */
static pscan_status check_views(pscan_ctx *ctx, const char *fn, const pscan__axis_call *c) {
  /* A user type's elements are accessed unaligned (as pscan_scan_op does): no alignment rule. */
  bool custom = c->op == PSCAN__OP_CUSTOM;
  PSCAN__CHECK(check_pointer(ctx, fn, "in", c->in, custom ? 1 : c->in_size));
  PSCAN__CHECK(check_pointer(ctx, fn, "out", c->out, custom ? 1 : c->out_size));
  view_extent ei, eo;
  if (!extent_of(c->ndim, c->shape, c->in_strides, c->in_size, &ei) ||
      !extent_of(c->ndim, c->shape, c->out_strides, c->out_size, &eo))
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: the byte extent of a strided view overflows", fn);
  if (!elements_distinct(c->ndim, c->shape, c->out_strides))
    return FAIL(ctx, PSCAN_ERR_OVERLAP,
                "%s: out_strides make elements of out share bytes (a zero or interleaved stride)",
                fn);
  intptr_t in0 = (intptr_t)c->in, out0 = (intptr_t)c->out;
  if ((ei.lo < 0 && in0 < -ei.lo) || (eo.lo < 0 && out0 < -eo.lo) ||
      (intptr_t)INTPTR_MAX - in0 < ei.hi || (intptr_t)INTPTR_MAX - out0 < eo.hi)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: a strided view wraps around the address space",
                fn);
  bool apart = in0 + ei.hi <= out0 + eo.lo || out0 + eo.hi <= in0 + ei.lo;
  if (!apart && !same_view(c))
    return FAIL(ctx, PSCAN_ERR_OVERLAP,
                "%s: in and out overlap without being the same view (pointer, strides, type)", fn);
  return PSCAN_OK;
}

/* Type, operator and flag checks shared by both entry points. */
static pscan_status check_scan_kind(pscan_ctx *ctx, const char *fn, int in_type, int out_type,
                                    int op, int exclusive, int reverse) {
  if (!pscan__dtype_valid(in_type))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown in_type %d", fn, in_type);
  if (!pscan__dtype_valid(out_type))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown out_type %d", fn, out_type);
  if (!pscan__op_valid(op))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown op %d", fn, op);
  if (pscan__op_integer_only((pscan_op)op) &&
      pscan__dtype_kind((pscan_dtype)in_type) == PSCAN__FLOAT)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: op %s is for integer types, not %s", fn,
                pscan__op_name(op), pscan__dtype_name(in_type));
  if (!pscan__scan_pair_valid((pscan_dtype)in_type, (pscan_dtype)out_type))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: out_type %s is neither in_type %s nor a wider type of the same kind", fn,
                pscan__dtype_name(out_type), pscan__dtype_name(in_type));
  if (exclusive != 0 && exclusive != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: exclusive must be 0 or 1, not %d", fn,
                exclusive);
  if (reverse != 0 && reverse != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: reverse must be 0 or 1, not %d", fn, reverse);
  return PSCAN_OK;
}

/* ndim, axis, shape and strides of a into c (C order where a gives no strides); *n the element
   count, checked against size_t for both element sizes. */
static pscan_status fill_shape(pscan_ctx *ctx, const char *fn, const pscan_axis_args *a,
                               pscan__axis_call *c) {
  if (a->ndim < 1 || a->ndim > PSCAN_MAX_DIMS)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: ndim %d is not in 1..%d", fn, a->ndim,
                PSCAN_MAX_DIMS);
  if (!a->shape)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: shape is NULL", fn);
  if (a->axis < -1 || a->axis >= a->ndim)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: axis %d is not in -1..%d", fn, a->axis,
                a->ndim - 1);
  c->ndim = a->ndim;
  c->axis = a->axis < 0 ? a->ndim - 1 : a->axis;
  size_t n = 1;
  bool overflow = false;
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] < 0)
      return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: shape[%d] = %lld is negative", fn, d,
                  (long long)a->shape[d]);
    c->shape[d] = a->shape[d];
    overflow |= (uint64_t)a->shape[d] > SIZE_MAX || __builtin_mul_overflow(n, (size_t)a->shape[d], &n);
  }
  size_t bytes;
  if (overflow || __builtin_mul_overflow(n, c->in_size, &bytes) ||
      __builtin_mul_overflow(n, c->out_size, &bytes) || n > (size_t)INT64_MAX)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: the shape's size (in bytes) overflows size_t", fn);
  c->n = n;
  int64_t in_run = 1, out_run = 1; /* C-order strides; no overflow once n * size fits */
  for (int d = a->ndim; d-- > 0;) {
    c->in_strides[d] = a->in_strides ? a->in_strides[d] : in_run;
    c->out_strides[d] = a->out_strides ? a->out_strides[d] : out_run;
    in_run *= n ? c->shape[d] : 1;
    out_run *= n ? c->shape[d] : 1;
  }
  return PSCAN_OK;
}

/* init is read once, here: it may lie inside out, which the call overwrites. */
static const void *copy_init(const void *init, size_t size, uint64_t *buf) {
  if (!init)
    return NULL;
  memcpy(buf, init, size);
  return buf;
}

static pscan_status run_axis(pscan_ctx *ctx, const char *fn, const pscan__axis_call *c) {
  if (!ctx->backend->scan_axis)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend does not offer axis scans yet", fn,
                ctx->backend->name);
  return pscan__call_done(ctx, ctx->backend->scan_axis(ctx, c));
}

/* ---- User operators along an axis (CPU backend; the CUDA backend's are cuda/jit/jit_axis.c) ----
   Each line of the normalised views (axis_norm.h: reverse is a negative axis stride) is scanned
   by the backend's scan_op, the path of pscan_scan_op: a line contiguous forward in both views
   in place of the caller's memory, any other line gathered into scratch, scanned there in place
   and scattered back. Every line is read whole before any of it is written, so the in-place view
   (in == out, equal strides) is safe. */

static pscan_status run_user_op_lines(pscan_ctx *ctx, const char *fn, const pscan__axis_call *c,
                                      void *impl) {
  pscan__axis_norm v;
  pscan__axis_normalise(c, &v);
  size_t s = c->in_size, len = (size_t)v.len;
  bool direct = v.si == 1 && v.so == 1;
  unsigned char *scratch = NULL;
  if (!direct) {
    size_t bytes = (len * s + 63) / 64 * 64; /* fits: len * s <= n * s, checked by fill_shape */
    scratch = pscan__aligned_alloc(64, bytes);
    if (!scratch)
      return FAIL(ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory (%zu bytes of scratch)", fn,
                  bytes);
  }
  pscan_status st = PSCAN_OK;
  for (size_t l = 0; l < v.nlines && st == PSCAN_OK; l++) {
    const void *src;
    void *dst;
    pscan__axis_line(c, &v, l, &src, &dst);
    if (direct) {
      st = ctx->backend->scan_op(ctx, impl, src, dst, len, c->exclusive, c->init);
      continue;
    }
    for (size_t k = 0; k < len; k++)
      memcpy(scratch + k * s, (const char *)src + (int64_t)k * v.si * (int64_t)s, s);
    st = ctx->backend->scan_op(ctx, impl, scratch, scratch, len, c->exclusive, c->init);
    if (st != PSCAN_OK)
      break;
    for (size_t k = 0; k < len; k++)
      memcpy((char *)dst + (int64_t)k * v.so * (int64_t)s, scratch + k * s, s);
  }
  pscan__free(scratch);
  return st;
}

static pscan_status scan_axis_user_op(pscan_ctx *ctx, const char *fn, const pscan_axis_args *a) {
  const pscan_user_op *op = a->user_op;
  PSCAN__CHECK(pscan__op_check(ctx, fn, op, PSCAN_KIND_COMBINE));
  if (a->exclusive != 0 && a->exclusive != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: exclusive must be 0 or 1, not %d", fn,
                a->exclusive);
  if (a->reverse != 0 && a->reverse != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: reverse must be 0 or 1, not %d", fn,
                a->reverse);
  if (a->exclusive && !a->init && !pscan__op_identity(op))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: an exclusive scan needs init or an operator with an identity", fn);
  size_t size = pscan__op_elem_size(op);
  pscan__axis_call c = {.in = a->in, .out = a->out, .op = PSCAN__OP_CUSTOM, .in_size = size,
                        .out_size = size, .user_impl = pscan__op_impl(op),
                        .exclusive = a->exclusive, .reverse = a->reverse};
  PSCAN__CHECK(fill_shape(ctx, fn, a, &c));
  /* The CPU scans line by line here; the CUDA backend's scan_axis takes the operator itself. */
  const bool by_lines = ctx->kind == PSCAN_BACKEND_CPU && ctx->backend->scan_op;
  if (!by_lines && !(ctx->kind == PSCAN_BACKEND_CUDA && ctx->backend->scan_axis))
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED,
                "%s: user operators along an axis run on the CPU and CUDA backends only", fn);
  if (c.n == 0)
    return PSCAN_OK;
  PSCAN__CHECK(check_views(ctx, fn, &c));
  /* init (or the identity) is read once, here: it may lie inside out, which the call overwrites. */
  const void *from = a->init ? a->init : a->exclusive ? pscan__op_identity(op) : NULL;
  void *copy = NULL;
  if (from) {
    copy = pscan__calloc(1, size);
    if (!copy)
      return FAIL(ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    memcpy(copy, from, size);
  }
  c.init = copy;
  pscan_status st = by_lines ? run_user_op_lines(ctx, fn, &c, c.user_impl) : run_axis(ctx, fn, &c);
  pscan__free(copy);
  return st;
}

pscan_status pscan_scan_axis(pscan_ctx *ctx, const pscan_axis_args *a) {
  static const char fn[] = "pscan_scan_axis";
  if (!ctx || !a) /* the message goes to ctx where there is one */
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, ctx ? "args" : "ctx");
  if (a->user_op)
    return scan_axis_user_op(ctx, fn, a);
  PSCAN__CHECK(check_scan_kind(ctx, fn, (int)a->in_type, (int)a->out_type, (int)a->op,
                               a->exclusive, a->reverse));
  pscan__axis_call c = {.in = a->in, .out = a->out, .op = (int)a->op, .in_type = a->in_type,
                        .out_type = a->out_type, .in_size = pscan_dtype_size(a->in_type),
                        .out_size = pscan_dtype_size(a->out_type), .exclusive = a->exclusive,
                        .reverse = a->reverse};
  PSCAN__CHECK(fill_shape(ctx, fn, a, &c));
  if (c.n == 0)
    return PSCAN_OK;
  PSCAN__CHECK(check_views(ctx, fn, &c));
  uint64_t init_buf;
  c.init = copy_init(a->init, c.out_size, &init_buf);
  return run_axis(ctx, fn, &c);
}

/* Host offsets (CPU backend): offsets[0] == 0 and *n = offsets[num_segments]. That the offsets
   never decrease is checked here only when n is 0 (no backend call follows); otherwise the CPU
   backend checks it on all its threads before it writes (cpu/axis_segments.c: on one thread here
   it took longer than scanning short segments). */
static pscan_status check_offsets(pscan_ctx *ctx, const char *fn, const int64_t *offsets,
                                  size_t num_segments, size_t *n) {
  if (offsets[0] != 0)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: offsets[0] = %lld, not 0", fn,
                (long long)offsets[0]);
  if (offsets[num_segments] <= 0) /* (below 0: some offset decreases, found here) */
    for (size_t s = 0; s < num_segments; s++)
      if (offsets[s + 1] < offsets[s])
        return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                    "%s: offsets decrease at segment %zu (%lld after %lld)", fn, s,
                    (long long)offsets[s + 1], (long long)offsets[s]);
  if ((uint64_t)offsets[num_segments] > SIZE_MAX)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: n = offsets[num_segments] overflows size_t", fn);
  *n = (size_t)offsets[num_segments];
  return PSCAN_OK;
}

pscan_status pscan_segmented_scan(pscan_ctx *ctx, const void *in, void *out, pscan_dtype type,
                                  pscan_op op, const int64_t *offsets, size_t num_segments,
                                  int exclusive, int reverse, const void *init) {
  static const char fn[] = "pscan_segmented_scan";
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  PSCAN__CHECK(check_scan_kind(ctx, fn, (int)type, (int)type, (int)op, exclusive, reverse));
  if (!offsets)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: offsets is NULL", fn);
  if (num_segments >= SIZE_MAX / sizeof *offsets)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: num_segments + 1 offsets overflow size_t", fn);
  PSCAN__CHECK(check_pointer(ctx, fn, "offsets", offsets, sizeof *offsets));
  size_t size = pscan_dtype_size(type);
  pscan__axis_call c = {.in = in, .out = out, .ndim = 1, .axis = 0, .shape = {1},
                        .in_strides = {1}, .out_strides = {1}, .op = (int)op, .in_type = type,
                        .out_type = type, .in_size = size, .out_size = size,
                        .exclusive = exclusive, .reverse = reverse, .offsets = offsets,
                        .num_segments = num_segments};
  uint64_t init_buf;
  c.init = copy_init(init, size, &init_buf);
  if (ctx->kind != PSCAN_BACKEND_CPU) {
    /* Device offsets: their values (and so n) are unknown here. The pointers are checked here;
       the offsets, n and the overlap of in, out and offsets by the backend, before it writes
       (see pscan__axis_call). */
    PSCAN__CHECK(check_pointer(ctx, fn, "in", in, size));
    PSCAN__CHECK(check_pointer(ctx, fn, "out", out, size));
    return run_axis(ctx, fn, &c);
  }
  PSCAN__CHECK(check_offsets(ctx, fn, offsets, num_segments, &c.n));
  size_t bytes;
  if (__builtin_mul_overflow(c.n, size, &bytes) || c.n > (size_t)INT64_MAX)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %zu elements of %zu bytes overflow size_t", fn,
                c.n, size);
  if (c.n == 0)
    return PSCAN_OK;
  c.shape[0] = (int64_t)c.n;
  PSCAN__CHECK(check_views(ctx, fn, &c));
  uintptr_t o0 = (uintptr_t)offsets, o1 = o0 + (num_segments + 1) * sizeof *offsets;
  if (o0 < (uintptr_t)out + bytes && (uintptr_t)out < o1)
    return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: offsets and out overlap", fn);
  return run_axis(ctx, fn, &c);
}
