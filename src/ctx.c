/* Contexts: creation, parameters and the per-context last-error text. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failures with no context to hold them (pscan_create, a NULL ctx) land in the thread's slot. */
static _Thread_local char thread_last_error[PSCAN__ERROR_LEN];

pscan_status pscan__fail(pscan_ctx *ctx, pscan_status status, const char *fmt, ...) {
  char *dst = ctx ? ctx->last_error : thread_last_error;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, PSCAN__ERROR_LEN, fmt, ap);
  va_end(ap);
  return status;
}

const char *pscan_last_error(const pscan_ctx *ctx) {
  return ctx ? ctx->last_error : thread_last_error;
}

static pscan_status create_on(pscan_ctx **out, const pscan__backend *backend, pscan_backend kind) {
  pscan_ctx *ctx = pscan__calloc(1, sizeof *ctx);
  if (!ctx)
    return pscan__fail(NULL, PSCAN_ERR_OUT_OF_MEMORY, "pscan_create: out of memory for the context");
  ctx->backend = backend;
  ctx->kind = kind;
  pscan_status s = backend->init(ctx);
  if (s != PSCAN_OK) {
    pscan__fail(NULL, s, "%s", ctx->last_error);
    pscan__free(ctx);
    return s;
  }
  *out = ctx;
  return PSCAN_OK;
}

pscan_status pscan_create(pscan_ctx **ctx, pscan_backend backend) {
  if (!ctx)
    return pscan__fail(NULL, PSCAN_ERR_INVALID_ARGUMENT, "pscan_create: ctx is NULL");
  *ctx = NULL;
  switch (backend) {
  case PSCAN_BACKEND_CPU:
    return create_on(ctx, &pscan__cpu_backend, PSCAN_BACKEND_CPU);
  case PSCAN_BACKEND_CUDA:
    return create_on(ctx, &pscan__cuda_backend, PSCAN_BACKEND_CUDA);
  case PSCAN_BACKEND_AUTO:
    if (pscan__cuda_built() && create_on(ctx, &pscan__cuda_backend, PSCAN_BACKEND_CUDA) == PSCAN_OK)
      return PSCAN_OK;
    return create_on(ctx, &pscan__cpu_backend, PSCAN_BACKEND_CPU);
  }
  return pscan__fail(NULL, PSCAN_ERR_INVALID_ARGUMENT, "pscan_create: unknown backend %d",
                     (int)backend);
}

void pscan_destroy(pscan_ctx *ctx) {
  if (!ctx)
    return;
  pscan__op_release_all(ctx);
  ctx->backend->fini(ctx);
  pscan__free(ctx);
}

pscan_backend pscan_get_backend(const pscan_ctx *ctx) { return ctx ? ctx->kind : PSCAN_BACKEND_AUTO; }

/* The generic range of each parameter; the backend may refuse more (check_param). */
static pscan_status check_param_range(pscan_ctx *ctx, pscan_param p, int64_t v) {
  int64_t lo = 0, hi = 0;
  switch (p) {
  case PSCAN_PARAM_THREADS: hi = 1024; break;
  case PSCAN_PARAM_DEVICE: hi = 1023; break;
  case PSCAN_PARAM_ALGO: hi = PSCAN_ALGO_COUNT - 1; break;
  case PSCAN_PARAM_BLOCK_ALGO: hi = PSCAN_BLOCK_ALGO_COUNT - 1; break;
  case PSCAN_PARAM_DETERMINISTIC: hi = 1; break;
  case PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE: hi = (int64_t)1 << 30; break;
  default:
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "pscan_set_param: unknown parameter %d",
                       (int)p);
  }
  if (v < lo || v > hi)
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "pscan_set_param: value %lld out of range [%lld, %lld] for parameter %d",
                       (long long)v, (long long)lo, (long long)hi, (int)p);
  return PSCAN_OK;
}

/* p's slot in ctx->params (internal.h), or -1 for an unknown parameter. */
static int param_slot(pscan_param p) {
  if ((int)p >= 0 && (int)p <= PSCAN__PARAM_LAST_STABLE)
    return (int)p;
  if (p == PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE)
    return PSCAN__SLOT_PARTITION_SIZE;
  return -1;
}

pscan_status pscan_set_param(pscan_ctx *ctx, pscan_param p, int64_t value) {
  if (!ctx)
    return pscan__fail(NULL, PSCAN_ERR_INVALID_ARGUMENT, "pscan_set_param: ctx is NULL");
  PSCAN__CHECK(check_param_range(ctx, p, value));
  PSCAN__CHECK(ctx->backend->check_param(ctx, p, value));
  ctx->params[param_slot(p)] = value;
  return PSCAN_OK;
}

pscan_status pscan_get_param(const pscan_ctx *ctx, pscan_param p, int64_t *value) {
  if (!ctx || !value)
    return pscan__fail((pscan_ctx *)ctx, PSCAN_ERR_INVALID_ARGUMENT, "pscan_get_param: %s is NULL",
                       ctx ? "value" : "ctx");
  int slot = param_slot(p);
  if (slot < 0)
    return pscan__fail((pscan_ctx *)ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "pscan_get_param: unknown parameter %d", (int)p);
  *value = ctx->params[slot];
  return PSCAN_OK;
}

pscan_status pscan_set_stream(pscan_ctx *ctx, void *cuda_stream) {
  if (!ctx)
    return pscan__fail(NULL, PSCAN_ERR_INVALID_ARGUMENT, "pscan_set_stream: ctx is NULL");
  return ctx->backend->set_stream(ctx, cuda_stream);
}

pscan_status pscan_synchronize(pscan_ctx *ctx) {
  if (!ctx)
    return pscan__fail(NULL, PSCAN_ERR_INVALID_ARGUMENT, "pscan_synchronize: ctx is NULL");
  return ctx->backend->synchronize(ctx);
}
