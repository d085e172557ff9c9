/* What the CUDA backend's user-operator launches share (jit_cuda.c, jit_by_key.c): the compiled
 * operator, its kernels and buffers, the launch parameters' layout, and the steps of a launch. */
#ifndef PSCAN_CUDA_JIT_LAUNCH_H
#define PSCAN_CUDA_JIT_LAUNCH_H

#include "jit.h"

#include "../launch.h"

#include <cuda_runtime_api.h>

/* The kernels an operator may load (cuda_op.k): 0 the scan or the select, 1 the ordered scan,
   then these. */
enum { K_AXIS = 2, K_LINES = 3, K_REDUCE = 4, K_BY_KEY = 5, K_REDUCE_BY_KEY = 6, K_COUNT = 7 };

typedef struct cuda_op {
  pscan_op_desc desc; /* source, type_name and name point into strings */
  char *strings;
  unsigned char identity[PSCAN__JIT_MAX_ELEM];
  bool has_identity;
  char key[33];
  int arch;
  struct {
    cudaLibrary_t lib;
    cudaKernel_t kernel;
    int rows; /* resident blocks per multiprocessor (the staggered rows) */
  } k[K_COUNT]; /* [K_AXIS] the axis program, [K_LINES] the scan of lines back to back,
                   [K_REDUCE] the tile totals of a reduction, [K_BY_KEY] the scan by key,
                   [K_REDUCE_BY_KEY] the reduction by key */
  void *axis[4]; /* the axis program's kernels (user_axis.h's PSCAN__UA_KERNELS) */
  char *status;
  size_t status_bytes;
  char *totals; /* a reduction's tile totals and their scan */
  size_t totals_bytes;
  char *count_words; /* the reduction by key's run counts' tile status (built-in 64-bit words) */
  size_t count_words_bytes;
  uint32_t epoch;
  unsigned tile_items;
  size_t slot;
} cuda_op;

/* The launch parameters as user_tile.cuh's pscan_user_params lays them out; the flags, and the
   key's kind above KEY_SHIFT as user_by_key.cuh reads it. */
enum {
  FLAGS_AT = sizeof(pscan__cuda_scan_params),
  COUNT_AT = FLAGS_AT + 8,
  KEYS_AT = FLAGS_AT + 16,
  KEYS_OUT_AT = FLAGS_AT + 24,
  COUNT_WORDS_AT = FLAGS_AT + 32,
  VALUE_AT = FLAGS_AT + 40
};
enum { HAS_INIT = 1, HAS_FIRST = 2, PARTITION = 4, KEY_SHIFT = 8, KEY_FLOAT = 16 };
typedef union params_buf {
  unsigned char bytes[VALUE_AT + PSCAN__JIT_MAX_ELEM + 16];
  pscan__cuda_scan_params base;
  unsigned long long align;
} params_buf;

/* Loads kernel `which` (0, 1: the ordered scan, or one of K_*) from the disk cache, else
   compiles it. */
pscan_status pscan__jit_load_kernel(pscan_ctx *ctx, cuda_op *op, int which);
/* The common part of a launch's parameters. lookback: the kernel publishes tile statuses (the
   scans, not the reduction's tile totals), so the status buffer grows and a new epoch begins. */
pscan_status pscan__jit_prepare(pscan_ctx *ctx, cuda_op *op, const pscan__cuda_env *env,
                                const void *in, void *out, size_t n, bool lookback,
                                params_buf *buf);
/* Launches kernel `which` over the parameters' tiles; the counter moves only if it runs. */
pscan_status pscan__jit_launch(pscan_ctx *ctx, cuda_op *op, int which, const pscan__cuda_env *env,
                               params_buf *buf);
/* A count the call returns (num_selected, num_runs; NULL: none): where its kernel writes it (num
   itself in device memory, else the context's slot), and after the launch, read back into host
   memory (waiting for the stream) where num is there. An empty input's count, 0, is written by
   pscan__jit_count_zero. */
unsigned long long *pscan__jit_count_target(pscan_ctx *ctx, const pscan__cuda_env *env,
                                            size_t *num);
pscan_status pscan__jit_count_back(pscan_ctx *ctx, const pscan__cuda_env *env, size_t *num);
pscan_status pscan__jit_count_zero(pscan_ctx *ctx, const pscan__cuda_env *env, size_t *num);

#endif /* PSCAN_CUDA_JIT_LAUNCH_H */
