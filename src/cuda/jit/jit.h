/* User operators on the CUDA backend (host side, C): the user's source compiled at run time by
 * NVRTC (loaded with dlopen, never linked) into a cubin of the kernels in user_*.cuh, cached on
 * disk (op/cache.h), loaded with the CUDA runtime's library API and launched on the context's
 * stream. */
#ifndef PSCAN_CUDA_JIT_H
#define PSCAN_CUDA_JIT_H

#include "../../internal.h"

#include <stddef.h>

/* ---- the program (jit_source.c) ---- */

/* A file embedded at build time (cmake/embed_files.cmake -> jit_embedded.c): the shared device
   headers and the user kernels, under the names their #include lines use. */
typedef struct pscan__jit_file {
  const char *name;
  const char *text;
} pscan__jit_file;
extern const pscan__jit_file pscan__jit_files[];
extern const int pscan__jit_file_count;

/* Largest element the kernels take (a tile of them must fit in 48 KB of shared memory). */
#define PSCAN__JIT_MAX_ELEM 128

/* Items per tile of the user kernels for an element size (user_tile.cuh's PU_TILE; the program
   static_asserts that both agree). */
unsigned pscan__jit_tile_items(size_t elem_size);
/* Bytes of one tile-status slot (user_ops.cuh's PSCAN_USER_SLOT; 16 for a predicate's counts). */
size_t pscan__jit_status_slot(const pscan_op_desc *desc);

/* The kernel a program defines (PSCAN__JIT_AXIS: the axis program, user_axis.cuh, whose
   kernels are named in user_axis.h; pscan__jit_kernel_name gives its first; PSCAN__JIT_SCAN_LINES:
   the scan of lines back to back, PSCAN__JIT_REDUCE: the tile totals of pscan_reduce_op, both in
   user_scan.cuh; PSCAN__JIT_SCAN_BY_KEY / PSCAN__JIT_REDUCE_BY_KEY: pscan_scan_by_key_op /
   pscan_reduce_by_key_op, user_by_key.cuh). */
typedef enum {
  PSCAN__JIT_SCAN,
  PSCAN__JIT_SCAN_ORDERED,
  PSCAN__JIT_SELECT,
  PSCAN__JIT_AXIS,
  PSCAN__JIT_SCAN_LINES,
  PSCAN__JIT_REDUCE,
  PSCAN__JIT_SCAN_BY_KEY,
  PSCAN__JIT_REDUCE_BY_KEY
} pscan__jit_kernel;
const char *pscan__jit_kernel_name(pscan__jit_kernel k);
pscan__jit_kernel pscan__jit_kernel_for(const pscan_op_desc *desc, int ordered);

/* The program's source text (pscan__free it); NULL when out of memory. */
char *pscan__jit_program(const pscan_op_desc *desc, pscan__jit_kernel k);
/* The headers NVRTC sees (the embedded files and small stand-ins for the C headers a user's
   source may include); *count entries. */
void pscan__jit_headers(const char ***names, const char ***texts, int *count);
/* A 32-hex-digit digest of every embedded file (part of the disk-cache key). */
const char *pscan__jit_sources_digest(void);

/* ---- the compiler (jit_nvrtc.c) ---- */

/* Compiles the kernel k of desc's operator with NVRTC for sm_<arch> (e.g. 90) to a cubin.
   Needs no GPU. OK: *cubin (pscan__free) and *size. PSCAN_ERR_INVALID_ARGUMENT: a compile error
   (the compiler's first error line in the message) or an elem_size that differs from the type's
   size (both sizes in the message); *log, when log is not NULL, then holds the whole compiler log
   (pscan__free). PSCAN_ERR_UNSUPPORTED: no NVRTC ("NVRTC not found: ..."; $PSCAN_NVRTC_LIB names
   the library file or a directory holding it). The message goes to ctx (NULL: the thread's). */
pscan_status pscan__jit_compile(pscan_ctx *ctx, const pscan_op_desc *desc, pscan__jit_kernel k,
                                int arch, void **cubin, size_t *size, char **log);

/* ---- the CUDA backend's hooks (jit_cuda.c) ---- */
pscan_status pscan__cuda_op_create(pscan_ctx *ctx, const pscan_op_desc *desc, const char *key,
                                   void **impl);
void pscan__cuda_op_destroy(pscan_ctx *ctx, void *impl);
const char *pscan__cuda_op_target(pscan_ctx *ctx, const pscan_op_desc *desc);
pscan_status pscan__cuda_scan_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                 int exclusive, const void *init);
/* The same over lines back to back, a line starting every len items (never deterministic: the
   caller keeps DETERMINISTIC mode off it), or with len 0 over one line; mirror: in and out point
   at item 0 and item i lies i elements below it (a reversed view, read on mirrored tiles). */
pscan_status pscan__cuda_scan_op_lines(pscan_ctx *ctx, void *impl, const void *in, void *out,
                                       size_t n, size_t len, int mirror, int exclusive,
                                       const void *init);
/* pscan_scan_by_key_op: keys of key_type (device memory, not overlapping out), n >= 1; init in
   host memory (api.c passes the identity as init for an exclusive scan without one). */
pscan_status pscan__cuda_scan_by_key_op(pscan_ctx *ctx, void *impl, const void *keys,
                                        pscan_dtype key_type, const void *in, void *out, size_t n,
                                        int exclusive, const void *init);
/* pscan_reduce_by_key_op: keys_in / vals_in, keys_out / vals_out in device memory (api.c has
   checked their overlaps), n >= 1; *num_runs in host or device memory (NULL: not written). */
pscan_status pscan__cuda_reduce_by_key_op(pscan_ctx *ctx, void *impl, const void *keys_in,
                                          pscan_dtype key_type, const void *vals_in,
                                          void *keys_out, void *vals_out, size_t n,
                                          size_t *num_runs);
/* pscan_reduce_op (the backend's reduce_op entry). */
pscan_status pscan__cuda_reduce_op(pscan_ctx *ctx, void *impl, const void *in, size_t n,
                                   const void *init, void *total);
pscan_status pscan__cuda_select_op(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                                   int partition, size_t *num_selected);
/* The axis kernels of op (cudaKernel_t, in user_axis.h's PSCAN__UA_KERNELS order), compiled or
   loaded from the disk cache on the first axis scan. */
pscan_status pscan__cuda_op_axis_kernels(pscan_ctx *ctx, void *impl, void **kernels);

/* ---- scans along an axis with a user operator (jit_axis.c) ---- */
/* pscan_scan_axis with c->op == PSCAN__OP_CUSTOM (api_axis.c has validated c; exclusive scans
   come with an init). */
pscan_status pscan__cuda_user_axis(pscan_ctx *ctx, const pscan__axis_call *c);

/* ---- what backend.c lends them ---- */
typedef struct pscan__cuda_env {
  int device;
  void *stream;
  int pdl;                        /* programmatic dependent launch (common.cuh) */
  unsigned sm_count, stagger_ns;  /* the staggered first wave of long launches */
  unsigned long long *tile_counter; /* device: the context's tile counter */
  unsigned long long *tile_base;    /* host: its value at the next launch; a launch that takes
                                       ids from it adds the ids it took */
  unsigned long long *count_slot;   /* device: 8 bytes for a count read back */
} pscan__cuda_env;
/* Makes ctx's device current and its workspace (the counter) ready. */
pscan_status pscan__cuda_env_get(pscan_ctx *ctx, pscan__cuda_env *env);
/* Grows a zeroed device buffer to at least bytes, stream-ordered (as the backend's own). */
pscan_status pscan__cuda_grow(pscan_ctx *ctx, char **buf, size_t *cap, size_t bytes);
/* PSCAN_ERR_DEVICE with the CUDA error (a cudaError_t) and what failed. */
pscan_status pscan__cuda_fail(pscan_ctx *ctx, int cuda_error, const char *what);
/* Whether p is device (or managed) memory. */
bool pscan__cuda_on_device(pscan_ctx *ctx, const void *p);
/* Whether a mirrored span (item i at in[-i] and out[-i]) lies in whole 16-byte chunks, tile by
   tile: the chunk above item 0 starts on a 16-byte boundary in both (p->mirror_vec: the tiles
   move whole chunks, each chunk's elements reversed in registers); out NULL: a forward out, not
   asked about. PSCAN_CUDA_MIRROR_VEC=0: never, for A/B runs. */
bool pscan__cuda_mirror_chunks(const void *in, size_t in_size, const void *out, size_t out_size);

#endif /* PSCAN_CUDA_JIT_H */
