/* User operators and predicates from source: the public entry points, their validation, the
 * key, and the per-context cache of compiled operators.
 *
 * The backend builds the compiled form (op_create) under a key: a hash of everything the compiled
 * code depends on (source, names, kind, element size, pscan version, backend and the backend's
 * target string), which the backend may also use to name a disk-cache entry (cache.h). The
 * context keeps every compiled form it has built until it is destroyed, so a second
 * pscan_op_create of the same operator on the same context compiles and loads nothing; a
 * pscan_user_op is a small handle (the identity, the kind) onto a compiled form. */
#include "../internal.h"
#include "cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(ctx, status, ...) pscan__fail((ctx), (status), __VA_ARGS__)

enum { MAX_ELEM_SIZE = PSCAN__OP_MAX_ELEM };

/* One compiled form held by a context. host_fn / host_user are part of its identity: the CPU
   backend runs a host_fn operator through that very function, which the key does not name. */
typedef struct op_entry {
  struct op_entry *next;
  char key[33];
  pscan_combine_fn host_fn;
  void *host_user;
  void *impl;
} op_entry;

typedef struct pscan__op_state {
  op_entry *entries;
  char *log; /* the last compile's log, or NULL */
} pscan__op_state;

struct pscan_user_op {
  pscan_ctx *ctx;
  pscan_op_kind kind;
  size_t elem_size;
  void *impl;     /* owned by ctx's cache */
  void *identity; /* a copy, or NULL */
  char key[33];
};

static pscan__op_state *op_state(pscan_ctx *ctx) {
  if (!ctx->ops)
    ctx->ops = pscan__calloc(1, sizeof *ctx->ops);
  return ctx->ops;
}

void pscan__op_set_log(pscan_ctx *ctx, const char *log, size_t len) {
  pscan__op_state *st = op_state(ctx);
  if (!st)
    return;
  pscan__free(st->log);
  st->log = NULL;
  if (!log || !len)
    return;
  st->log = pscan__calloc(1, len + 1);
  if (st->log)
    memcpy(st->log, log, len);
}

const char *pscan_op_compile_log(const pscan_ctx *ctx) {
  return ctx && ctx->ops && ctx->ops->log ? ctx->ops->log : "";
}

void pscan__op_release_all(pscan_ctx *ctx) {
  pscan__op_state *st = ctx->ops;
  if (!st)
    return;
  for (op_entry *e = st->entries, *next; e; e = next) {
    next = e->next;
    if (ctx->backend->op_destroy)
      ctx->backend->op_destroy(ctx, e->impl);
    pscan__free(e);
  }
  pscan__free(st->log);
  pscan__free(st);
  ctx->ops = NULL;
}

/* ---- Creation ---- */

static pscan_status check_desc(pscan_ctx *ctx, const char *fn, const pscan_op_desc *d) {
  if (!d)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: desc is NULL", fn);
  if (d->kind != PSCAN_KIND_COMBINE && d->kind != PSCAN_KIND_PREDICATE)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: unknown kind %d", fn, (int)d->kind);
  if (!d->source || !d->type_name || !d->name)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: desc->%s is NULL", fn,
                !d->source ? "source" : !d->type_name ? "type_name" : "name");
  if (!*d->type_name || !*d->name)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: desc->%s is empty", fn,
                !*d->type_name ? "type_name" : "name");
  if (d->elem_size == 0 || d->elem_size > MAX_ELEM_SIZE)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: elem_size %zu is not in [1, %d]", fn,
                d->elem_size, MAX_ELEM_SIZE);
  if (d->kind == PSCAN_KIND_PREDICATE && (d->identity || d->host_fn))
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: identity and host_fn are for COMBINE operators, not predicates", fn);
  return PSCAN_OK;
}

static void make_key(pscan_ctx *ctx, const pscan_op_desc *d, char key[33]) {
  const char *target = ctx->backend->op_target ? ctx->backend->op_target(ctx, d) : NULL;
  if (!target)
    target = "";
  const char *version = pscan_version_string();
  int32_t kind = (int32_t)d->kind;
  uint64_t size = (uint64_t)d->elem_size;
  /* the identity too: a backend may compile it in (the CUDA backend's accumulator does) */
  const bool has_id = d->kind == PSCAN_KIND_COMBINE && d->identity;
  const void *parts[] = {d->source, d->type_name, d->name, &kind, &size,
                         version,   ctx->backend->name, target, has_id ? d->identity : ""};
  size_t sizes[] = {strlen(d->source), strlen(d->type_name), strlen(d->name), sizeof kind,
                    sizeof size,       strlen(version),      strlen(ctx->backend->name),
                    strlen(target),    has_id ? d->elem_size : 0};
  pscan__hash_hex(parts, sizes, (int)(sizeof parts / sizeof parts[0]), key);
}

/* The compiled form of d under key: the context's own, or a new one from the backend. */
static pscan_status find_or_build(pscan_ctx *ctx, const pscan_op_desc *d, const char *key,
                                  void **impl) {
  pscan__op_state *st = op_state(ctx);
  if (!st)
    return FAIL(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  pscan__op_set_log(ctx, NULL, 0); /* the log is the compile's of this call, if any */
  for (op_entry *e = st->entries; e; e = e->next)
    if (!strcmp(e->key, key) && e->host_fn == d->host_fn && e->host_user == d->host_user) {
      *impl = e->impl;
      return PSCAN_OK;
    }
  op_entry *e = pscan__calloc(1, sizeof *e);
  if (!e)
    return FAIL(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  pscan_status s = ctx->backend->op_create(ctx, d, key, &e->impl);
  if (s != PSCAN_OK) {
    pscan__free(e);
    return s;
  }
  memcpy(e->key, key, 33);
  e->host_fn = d->host_fn;
  e->host_user = d->host_user;
  e->next = st->entries;
  st->entries = e;
  *impl = e->impl;
  return PSCAN_OK;
}

pscan_status pscan_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, pscan_user_op **op) {
  static const char fn[] = "pscan_op_create";
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  if (!op)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: op is NULL", fn);
  *op = NULL;
  PSCAN__CHECK(check_desc(ctx, fn, desc));
  if (!ctx->backend->op_create)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED,
                "%s: the %s backend of this build compiles no user operators", fn,
                ctx->backend->name);
  pscan_user_op *h = pscan__calloc(1, sizeof *h);
  if (!h || (desc->identity && !(h->identity = pscan__calloc(1, desc->elem_size)))) {
    pscan__free(h);
    return FAIL(ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  }
  if (desc->identity)
    memcpy(h->identity, desc->identity, desc->elem_size);
  make_key(ctx, desc, h->key);
  pscan_status s = find_or_build(ctx, desc, h->key, &h->impl);
  if (s != PSCAN_OK) {
    pscan__free(h->identity);
    pscan__free(h);
    return s;
  }
  h->ctx = ctx;
  h->kind = desc->kind;
  h->elem_size = desc->elem_size;
  *op = h;
  return PSCAN_OK;
}

/* The compiled form stays with the context (a later create of the same operator reuses it). */
void pscan_op_destroy(pscan_user_op *op) {
  if (!op)
    return;
  pscan__free(op->identity);
  pscan__free(op);
}

/* ---- Calls ---- */

size_t pscan__op_elem_size(const pscan_user_op *op) { return op->elem_size; }
/* The public form (pscan.h extension): NULL answers 0. */
size_t pscan_op_elem_size(const pscan_user_op *op) { return op ? op->elem_size : 0; }
const void *pscan__op_identity(const pscan_user_op *op) { return op->identity; }
void *pscan__op_impl(const pscan_user_op *op) { return op->impl; }

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

pscan_status pscan__op_check(pscan_ctx *ctx, const char *fn, const pscan_user_op *op,
                             pscan_op_kind kind) {
  if (!op)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                kind == PSCAN_KIND_COMBINE ? "op" : "pred");
  if (op->ctx != ctx)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: the operator was created on another context", fn);
  if (op->kind != kind)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: needs a %s operator, not a %s", fn,
                kind == PSCAN_KIND_COMBINE ? "COMBINE" : "PREDICATE",
                kind == PSCAN_KIND_COMBINE ? "PREDICATE" : "COMBINE");
  return PSCAN_OK;
}

/* Pointers, size, aliasing (in place allowed when in_place_ok) and memory kind of in and out. */
static pscan_status check_buffers(pscan_ctx *ctx, const char *fn, const void *in, void *out,
                                  size_t n, size_t size, bool in_place_ok) {
  if (n > SIZE_MAX / size)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %zu elements of %zu bytes overflow size_t", fn,
                n, size);
  if (n == 0)
    return PSCAN_OK;
  if (!in || !out)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, in ? "out" : "in");
  if (in == out && !in_place_ok)
    return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: does not run in place (out == in)", fn);
  if (in != out && ranges_overlap(in, n * size, out, n * size))
    return FAIL(ctx, PSCAN_ERR_OVERLAP, "%s: in and out overlap without being the same buffer",
                fn);
  if (ctx->backend->check_memory) {
    PSCAN__CHECK(ctx->backend->check_memory(ctx, in, "in"));
    PSCAN__CHECK(ctx->backend->check_memory(ctx, out, "out"));
  }
  return PSCAN_OK;
}

/* The checks every COMBINE call starts with. */
static pscan_status check_combine(pscan_ctx *ctx, const char *fn, const pscan_user_op *op) {
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  return pscan__op_check(ctx, fn, op, PSCAN_KIND_COMBINE);
}

/* A private copy of from (NULL: none) in local when it fits: init may lie inside out (the backend
   reads it before writing, as the built-in scans do not promise). *copy: pscan__free it unless it
   is local. */
static pscan_status copy_value(pscan_ctx *ctx, const char *fn, const pscan_user_op *op,
                               const void *from, unsigned char local[256], void **copy) {
  *copy = NULL;
  if (!from)
    return PSCAN_OK;
  *copy = op->elem_size <= 256 ? local : pscan__calloc(1, op->elem_size);
  if (!*copy)
    return FAIL(ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  memcpy(*copy, from, op->elem_size);
  return PSCAN_OK;
}

pscan_status pscan_scan_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                           const pscan_user_op *op, int exclusive, const void *init) {
  static const char fn[] = "pscan_scan_op";
  PSCAN__CHECK(check_combine(ctx, fn, op));
  if (exclusive != 0 && exclusive != 1)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: exclusive must be 0 or 1, not %d", fn,
                exclusive);
  if (exclusive && !init && !op->identity)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: an exclusive scan needs init or an operator with an identity", fn);
  PSCAN__CHECK(check_buffers(ctx, fn, in, out, n, op->elem_size, true));
  if (n == 0)
    return PSCAN_OK;
  if (!ctx->backend->scan_op)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend runs no user operators", fn,
                ctx->backend->name);
  unsigned char local[256];
  void *copy;
  PSCAN__CHECK(copy_value(ctx, fn, op, init ? init : exclusive ? op->identity : NULL, local, &copy));
  pscan_status s =
      pscan__call_done(ctx, ctx->backend->scan_op(ctx, op->impl, in, out, n, exclusive, copy));
  if (copy != local)
    pscan__free(copy);
  return s;
}

pscan_status pscan_reduce_op(pscan_ctx *ctx, const void *in, size_t n, const pscan_user_op *op,
                             const void *init, void *total) {
  static const char fn[] = "pscan_reduce_op";
  PSCAN__CHECK(check_combine(ctx, fn, op));
  if (!total)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: total is NULL", fn);
  if (n > SIZE_MAX / op->elem_size)
    return FAIL(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %zu elements of %zu bytes overflow size_t", fn,
                n, op->elem_size);
  if (n == 0 && !init && !op->identity)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                "%s: an empty reduction needs init or an operator with an identity", fn);
  if (n > 0 && !in)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: in is NULL", fn);
  if (n > 0 && ctx->backend->check_memory)
    PSCAN__CHECK(ctx->backend->check_memory(ctx, in, "in"));
  if (!ctx->backend->reduce_op)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend runs no user operators", fn,
                ctx->backend->name);
  unsigned char local[256];
  void *copy;
  PSCAN__CHECK(copy_value(ctx, fn, op, init ? init : n == 0 ? op->identity : NULL, local, &copy));
  pscan_status s =
      pscan__call_done(ctx, ctx->backend->reduce_op(ctx, op->impl, in, n, copy, total));
  if (copy != local)
    pscan__free(copy);
  return s;
}

static pscan_status select_op(const char *fn, pscan_ctx *ctx, const void *in, void *out,
                              size_t n, const pscan_user_op *pred, size_t *num_selected,
                              int partition) {
  if (!ctx)
    return FAIL(NULL, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  PSCAN__CHECK(pscan__op_check(ctx, fn, pred, PSCAN_KIND_PREDICATE));
  if (!num_selected)
    return FAIL(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: num_selected is NULL", fn);
  PSCAN__CHECK(check_buffers(ctx, fn, in, out, n, pred->elem_size, !partition));
  if (!ctx->backend->select_op)
    return FAIL(ctx, PSCAN_ERR_UNSUPPORTED, "%s: the %s backend runs no user predicates", fn,
                ctx->backend->name);
  return pscan__call_done(
      ctx, ctx->backend->select_op(ctx, pred->impl, in, out, n, partition, num_selected));
}

pscan_status pscan_select_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                             const pscan_user_op *pred, size_t *num_selected) {
  return select_op("pscan_select_op", ctx, in, out, n, pred, num_selected, 0);
}

pscan_status pscan_partition_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                const pscan_user_op *pred, size_t *num_selected) {
  return select_op("pscan_partition_op", ctx, in, out, n, pred, num_selected, 1);
}
