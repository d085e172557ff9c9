/* The CUDA backend's by-key calls with a user operator on the values (user_by_key.cuh):
 * pscan_scan_by_key_op and pscan_reduce_by_key_op, each one launch of the operator's by-key
 * program, compiled (or loaded from the disk cache) on its first use. */
#include "jit_launch.h"

#include <string.h>

/* The flags word of a by-key launch: the key's kind (its size, KEY_FLOAT for floats, which compare
   by value) above KEY_SHIFT. */
static unsigned long long key_flags(pscan_dtype key_type) {
  const bool floats = key_type == PSCAN_F32 || key_type == PSCAN_F64;
  return (unsigned long long)(pscan_dtype_size(key_type) | (floats ? KEY_FLOAT : 0)) << KEY_SHIFT;
}

/* The parameters every by-key launch has: decoupled look-back (whatever PSCAN_PARAM_ALGO says:
   the runs' look-back is the lines kernel's), deterministic mode's ordered search, the keys. */
static pscan_status by_key_params(pscan_ctx *ctx, cuda_op *op, int which, pscan__cuda_env *env,
                                  const void *keys, pscan_dtype key_type, const void *in,
                                  void *out, size_t n, unsigned long long flags, params_buf *buf) {
  PSCAN__CHECK(pscan__jit_load_kernel(ctx, op, which));
  PSCAN__CHECK(pscan__cuda_env_get(ctx, env));
  PSCAN__CHECK(pscan__jit_prepare(ctx, op, env, in, out, n, true, buf));
  buf->base.deterministic = ctx->params[PSCAN_PARAM_DETERMINISTIC] != 0;
  buf->base.mode = PSCAN__MODE_LOOKBACK;
  flags |= key_flags(key_type);
  memcpy(buf->bytes + FLAGS_AT, &flags, sizeof flags);
  memcpy(buf->bytes + KEYS_AT, &keys, sizeof keys);
  return PSCAN_OK;
}

/* The scan by key (user_by_key.cuh): one launch, from init where there is one (api.c passes the
   identity as init for an exclusive scan without one). */
pscan_status pscan__cuda_scan_by_key_op(pscan_ctx *ctx, void *impl, const void *keys,
                                        pscan_dtype key_type, const void *in, void *out, size_t n,
                                        int exclusive, const void *init) {
  cuda_op *op = impl;
  pscan__cuda_env env;
  params_buf buf;
  PSCAN__CHECK(by_key_params(ctx, op, K_BY_KEY, &env, keys, key_type, in, out, n,
                             init ? HAS_INIT : 0, &buf));
  buf.base.exclusive = exclusive;
  if (init)
    memcpy(buf.bytes + VALUE_AT, init, op->desc.elem_size);
  return pscan__jit_launch(ctx, op, K_BY_KEY, &env, &buf);
}

/* The reduction by key (user_by_key.cuh): one launch; the runs' count look-back has status words
   of its own, in the built-in 64-bit layout only (never shared with the operator's slots, whose
   layout differs): zeroed when grown, and when the epoch starts again (pscan__jit_prepare). */
pscan_status pscan__cuda_reduce_by_key_op(pscan_ctx *ctx, void *impl, const void *keys_in,
                                          pscan_dtype key_type, const void *vals_in,
                                          void *keys_out, void *vals_out, size_t n,
                                          size_t *num_runs) {
  cuda_op *op = impl;
  pscan__cuda_env env;
  if (n == 0) {
    PSCAN__CHECK(pscan__cuda_env_get(ctx, &env));
    return pscan__jit_count_zero(ctx, &env, num_runs);
  }
  params_buf buf;
  PSCAN__CHECK(by_key_params(ctx, op, K_REDUCE_BY_KEY, &env, keys_in, key_type, vals_in,
                             vals_out, n, 0, &buf));
  const size_t words = 2 * buf.base.num_tiles * 16;
  PSCAN__CHECK(pscan__cuda_grow(ctx, &op->count_words, &op->count_words_bytes, words));
  unsigned long long *count = pscan__jit_count_target(ctx, &env, num_runs);
  memcpy(buf.bytes + COUNT_AT, &count, sizeof count);
  memcpy(buf.bytes + KEYS_OUT_AT, &keys_out, sizeof keys_out);
  memcpy(buf.bytes + COUNT_WORDS_AT, &op->count_words, sizeof op->count_words);
  PSCAN__CHECK(pscan__jit_launch(ctx, op, K_REDUCE_BY_KEY, &env, &buf));
  return pscan__jit_count_back(ctx, &env, num_runs);
}
