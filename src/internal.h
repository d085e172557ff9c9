/* Internal declarations shared by the API layer and the backends.
 * api.c validates every argument once and fills a call descriptor; a backend (a table of function
 * pointers) only ever sees requests that are valid. */
#ifndef PSCAN_INTERNAL_H
#define PSCAN_INTERNAL_H

#include "pscan.h"
#include "lists.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* The operator of a call: a pscan_op, or a user function (pscan_scan_custom). */
#define PSCAN__OP_CUSTOM PSCAN_OP_COUNT

/* One validated scan request. */
typedef struct pscan__scan_call {
  const void *in;
  void *out;
  size_t n;
  pscan_dtype in_type, out_type; /* unused for a custom operator */
  int op;                        /* pscan_op, or PSCAN__OP_CUSTOM */
  int exclusive;
  const void *init;              /* NULL: none given */
  size_t in_size, out_size;      /* bytes per element; both elem_size for a custom operator */
  pscan_combine_fn fn;           /* custom operator only */
  void *user;
  /* CUDA only: segmented scans on the flat scan's tiles (0 / NULL: one line).
     segment_len: lines back to back (pscan_scan_axis), a line starts every segment_len items;
     offsets: pscan_segmented_scan's, checked, with tile_segment[t] the first s >= 1 with
     offsets[s] at or after the kernel's tile t (device memory). */
  size_t segment_len;
  /* mirror: in and out point at item 0 and item i lies i elements below it (a reversed view of
     pscan_scan_axis; CUDA: look-back kernels only; the CPU reads mirror from its own entry,
     pscan__cpu_scan_mirrored); out_forward (with mirror): out's item i lies i elements above it
     instead (a reversed input into a forward output). */
  int mirror;
  int out_forward;
  /* CUDA, with out_forward and segment_len: mirrored line k goes forward from out + k * this
     (elements; reversed lines into forward ones anywhere: the cumsum of x[:, ::-1]) */
  int64_t out_line_step;
  const int64_t *offsets;
  size_t num_segments;
  const uint64_t *tile_segment;
  const unsigned *head_bits; /* CUDA, with offsets: the starts as bits instead (one an item) */
  const unsigned *gate;      /* CUDA, with offsets: nothing written unless *gate is 0 (device) */
  /* keys (CUDA only): pscan_scan_by_key's, of key_type (device memory, not overlapping out); a
     run starts where a key differs from the one before. */
  const void *keys;
  pscan_dtype key_type;
} pscan__scan_call;

/* One validated compaction request (pscan_select_if, pscan_select_flagged, pscan_partition_if,
   pscan_unique, pscan_run_length_encode, pscan_reduce_by_key). n may be 0 (the backend writes
   the count 0); out == in allowed for
   all but PARTITION_IF and REDUCE_BY_KEY;
   flags (SELECT_FLAGGED) and counts_out (RUN_LENGTH) overlap neither in nor out. */
typedef enum {
  PSCAN__COMPACT_SELECT_IF,
  PSCAN__COMPACT_SELECT_FLAGGED,
  PSCAN__COMPACT_PARTITION_IF,
  PSCAN__COMPACT_UNIQUE,
  PSCAN__COMPACT_RUN_LENGTH,
  PSCAN__COMPACT_REDUCE_BY_KEY, /* in, out, type, size: the keys; no aliasing at all */
  PSCAN__COMPACT_SCAN_BY_KEY    /* in, type, size: the keys; out unused; vals_out may be vals_in;
                                   num_selected NULL */
} pscan__compact_kind;

typedef struct pscan__compact_call {
  pscan__compact_kind kind;
  const void *in;
  const uint8_t *flags; /* SELECT_FLAGGED only */
  void *out;
  size_t n;
  pscan_dtype type;
  size_t size;          /* bytes per element */
  pscan_cmp cmp;        /* SELECT_IF and PARTITION_IF */
  const void *value;    /* one element of type, the right-hand side of cmp */
  uint64_t *counts_out;  /* RUN_LENGTH only */
  const void *vals_in;   /* REDUCE_BY_KEY only: the values, their type and size, the op */
  void *vals_out;
  pscan_dtype val_type;
  size_t val_size;
  pscan_op op;
  int exclusive;         /* SCAN_BY_KEY only, with init (NULL: none; else one value) */
  const void *init;
  size_t *num_selected;  /* written only on success (num_unique, num_runs) */
  /* SELECT_IF / PARTITION_IF with a user predicate (src/op/): gathers partition items instead of
     comparing with cmp and value (same contract as pscan__cpu_gather_if_fn); type then unused. */
  size_t (*user_gather)(const void *pred, const void *in, size_t n, void *buf, bool rejects);
  const void *user_pred;
  /* SCAN_BY_KEY by segments (the CUDA pscan_segmented_scan): in is NULL and the run heads are
     offsets[1 .. num_segments - 1]; tile_segment[t] is the first s >= 1 with offsets[s] at or
     after tile t's first item (device memory, one entry per tile of the by-key kernel). */
  const int64_t *offsets;
  size_t num_segments;
  const uint64_t *tile_segment;
  /* REDUCE_BY_KEY / SCAN_BY_KEY with a user operator on the values (pscan_reduce_by_key_op):
     the backend's compiled form (pscan__op_impl); val_size is then its element size (at most
     PSCAN__BY_KEY_VALUE_MAX), and val_type and op are unused. */
  void *user_value;
} pscan__compact_call;
/* The widest by-key value (a user operator's element): the CPU's look-back carries one. */
#define PSCAN__BY_KEY_VALUE_MAX 64

/* One validated scan along an axis (pscan_scan_axis) or by segments (pscan_segmented_scan);
   api_axis.c fills it. Views: element (i_0, ..., i_{ndim-1}) of in is at
   in + sum(i_d * in_strides[d]) * in_size (strides in elements, any sign), likewise out; the two
   views are either exactly the same (in place) or share no byte, and out's elements are distinct.
   The operator is a built-in one (op a pscan_op, in_type -> out_type) or, with
   op == PSCAN__OP_CUSTOM, a generic combine of elem_size bytes: in_size == out_size == elem_size,
   fn/user its host form and user_impl the backend's compiled form of a pscan_user_op
   (pscan_scan_axis refuses user_op until user operators land; these fields are the seam). */
typedef struct pscan__axis_call {
  const void *in;
  void *out;
  int ndim, axis;                   /* axis in 0..ndim-1 */
  int64_t shape[PSCAN_MAX_DIMS];    /* every entry >= 1 (a call with an empty shape never comes) */
  int64_t in_strides[PSCAN_MAX_DIMS], out_strides[PSCAN_MAX_DIMS];
  size_t n;                         /* product of shape */
  int op;                           /* pscan_op, or PSCAN__OP_CUSTOM */
  pscan_dtype in_type, out_type;    /* unused for PSCAN__OP_CUSTOM */
  size_t in_size, out_size;         /* bytes per element */
  pscan_combine_fn fn;              /* PSCAN__OP_CUSTOM: host combine (CPU) */
  void *user;
  void *user_impl;                  /* PSCAN__OP_CUSTOM: the backend's compiled operator */
  int exclusive, reverse;
  const void *init;                 /* NULL: none; else one out element in host memory */
  /* Segmented (pscan_segmented_scan): ndim == 1, axis 0, and the line restarts at every
     offsets[s], s = 0..num_segments (num_segments + 1 entries, backend memory). With
     offsets_checked api_axis.c has read and validated them (host memory) and n is
     offsets[num_segments]; otherwise (device memory) n is 0, and the backend validates them and
     takes n from offsets[num_segments] before writing anything. NULL: not segmented. */
  const int64_t *offsets;
  size_t num_segments;
  bool offsets_checked;
} pscan__axis_call;

/* A backend: what api.c calls once the arguments are known to be valid. */
typedef struct pscan__backend {
  const char *name;
  pscan_status (*init)(pscan_ctx *ctx);     /* backend state in ctx->impl */
  void (*fini)(pscan_ctx *ctx);
  /* Backend-specific check of a parameter value that is otherwise in range (e.g. an algorithm
     the backend does not offer). */
  pscan_status (*check_param)(pscan_ctx *ctx, pscan_param p, int64_t value);
  pscan_status (*set_stream)(pscan_ctx *ctx, void *stream);
  pscan_status (*synchronize)(pscan_ctx *ctx);
  /* After every call that reached the backend, failed or not (NULL entry: nothing to do). The
     CUDA backend marks there where the call's work ends on the caller's stream, so that a later
     set_stream or destroy never has to touch a stream the caller may have destroyed since, and
     gives the calling thread back the device that was current before the call. */
  void (*call_done)(pscan_ctx *ctx);
  /* PSCAN_ERR_WRONG_MEMORY if p is not memory this backend can use; NULL entry: no check. */
  pscan_status (*check_memory)(pscan_ctx *ctx, const void *p, const char *what);
  pscan_status (*scan)(pscan_ctx *ctx, const pscan__scan_call *call);
  /* pscan_reduce: *total (one out_type element, host memory, or device memory on the CUDA
     backend) = the call's total; call->out is NULL, exclusive 0; n may be 0 (init or the
     identity). */
  pscan_status (*reduce)(pscan_ctx *ctx, const pscan__scan_call *call, void *total);
  /* NULL: the backend does not offer compaction (api.c answers PSCAN_ERR_UNSUPPORTED). */
  pscan_status (*compact)(pscan_ctx *ctx, const pscan__compact_call *call);

  /* User operators from source (src/op/ validates, hashes and keeps them per context; these build
     and run the backend's compiled form). NULL: the backend compiles none (PSCAN_ERR_UNSUPPORTED).
     impl is the backend's own compiled operator; key is a hex hash of desc, the pscan version
     and the backend's target, usable as a disk-cache key. */
  pscan_status (*op_create)(pscan_ctx *ctx, const pscan_op_desc *desc, const char *key, void **impl);
  void (*op_destroy)(pscan_ctx *ctx, void *impl);
  /* init: one element (host memory), or NULL for none (an inclusive scan from in[0]). */
  pscan_status (*scan_op)(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                          int exclusive, const void *init);
  /* pscan_reduce_op: *total (one element, host memory, or device memory on the CUDA backend) =
     init ⊕ in[0..n); n == 0 only with init (then *total = init). NULL: none (UNSUPPORTED). */
  pscan_status (*reduce_op)(pscan_ctx *ctx, void *impl, const void *in, size_t n,
                            const void *init, void *total);
  /* n may be 0 (the backend writes the count 0); out == in only when !partition. */
  pscan_status (*select_op)(pscan_ctx *ctx, void *impl, const void *in, void *out, size_t n,
                            int partition, size_t *num_selected);
  /* What the compiled form depends on besides desc and the pscan version (compiler and its
     version, target architecture), hashed into the key; NULL entry or NULL result: "". */
  const char *(*op_target)(pscan_ctx *ctx, const pscan_op_desc *desc);

  /* Scans along an axis and segmented scans (api_axis.c). NULL: not offered
     (PSCAN_ERR_UNSUPPORTED). */
  pscan_status (*scan_axis)(pscan_ctx *ctx, const pscan__axis_call *call);
} pscan__backend;

extern const pscan__backend pscan__cpu_backend;
extern const pscan__backend pscan__cuda_backend; /* cuda/ or cuda_stub.c */
/* Whether this build has the CUDA backend. */
bool pscan__cuda_built(void);
/* True when p is GPU device memory (always false without CUDA); lets the CPU backend refuse it. */
bool pscan__cuda_is_device_pointer(const void *p);

#define PSCAN__ERROR_LEN 256

/* Slots of ctx->params: the stable parameters at their own values (ctx->params[PSCAN_PARAM_ALGO]),
   then the experimental range (public values from 1000) packed after them. A new stable parameter
   goes before the experimental range in pscan.h and moves PSCAN__PARAM_LAST_STABLE; a new
   experimental one gets a slot here and a case in ctx.c (check_param_range, param_slot). */
#define PSCAN__PARAM_LAST_STABLE PSCAN_PARAM_DETERMINISTIC
enum {
  PSCAN__SLOT_PARTITION_SIZE = PSCAN__PARAM_LAST_STABLE + 1, /* EXPERIMENTAL_PARTITION_SIZE */
  PSCAN__PARAM_COUNT
};

struct pscan_ctx {
  const pscan__backend *backend;
  pscan_backend kind;
  int64_t params[PSCAN__PARAM_COUNT]; /* slots as above */
  void *impl;                         /* the backend's own state */
  char last_error[PSCAN__ERROR_LEN];
  struct pscan__op_state *ops; /* compiled user operators and the last compile log (src/op/) */
};

/* An environment knob's value (the A/B switches of docs/PERFORMANCE.md, "Knobs"), else dflt. */
static inline uint64_t pscan__env_uint(const char *name, uint64_t dflt) {
  const char *env = getenv(name);
  return env ? strtoull(env, NULL, 10) : dflt;
}

/* Returns s after the backend's call_done hook: return pscan__call_done(ctx, backend->scan(...)). */
static inline pscan_status pscan__call_done(pscan_ctx *ctx, pscan_status s) {
  if (ctx->backend->call_done)
    ctx->backend->call_done(ctx);
  return s;
}

/* Records a one-line message on ctx (or, for ctx == NULL, in the thread's own slot) and returns
   status, so that a failure reads: return pscan__fail(ctx, PSCAN_ERR_OVERLAP, "...", ...); */
pscan_status pscan__fail(pscan_ctx *ctx, pscan_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Returns early with the status of expr when it is not PSCAN_OK. */
#define PSCAN__CHECK(expr)               \
  do {                                   \
    pscan_status check_s_ = (expr);      \
    if (check_s_ != PSCAN_OK)            \
      return check_s_;                   \
  } while (0)

/* Sets status and jumps to label when expr is not PSCAN_OK (for cleanup paths). */
#define PSCAN__CHECK_GOTO(expr, status, label) \
  do {                                         \
    (status) = (expr);                         \
    if ((status) != PSCAN_OK)                  \
      goto label;                              \
  } while (0)

/* ---- User operators (src/op/op.c) ---- */
/* The largest element a user operator takes (bytes). */
#define PSCAN__OP_MAX_ELEM 4096
/* Releases every compiled operator ctx holds (pscan_destroy, before the backend's fini). */
void pscan__op_release_all(pscan_ctx *ctx);
/* Records the full log of the last compile on ctx (pscan_op_compile_log); len bytes of log. */
void pscan__op_set_log(pscan_ctx *ctx, const char *log, size_t len);
/* For entry points beyond op.c's that take a user operator (pscan_scan_axis): checks op against
   ctx and kind (PSCAN_ERR_INVALID_ARGUMENT, a line naming fn), and gives its element size, its
   identity (NULL: none) and the backend's compiled form (the impl of the backend's hooks). */
pscan_status pscan__op_check(pscan_ctx *ctx, const char *fn, const pscan_user_op *op,
                             pscan_op_kind kind);
size_t pscan__op_elem_size(const pscan_user_op *op);
const void *pscan__op_identity(const pscan_user_op *op);
void *pscan__op_impl(const pscan_user_op *op);

/* Type information from PSCAN_TYPES. */
typedef enum { PSCAN__SINT, PSCAN__UINT, PSCAN__FLOAT } pscan__kind;
bool pscan__dtype_valid(int t);
pscan__kind pscan__dtype_kind(pscan_dtype t);
const char *pscan__dtype_name(int t);   /* "i32"; "?" when unknown */
const char *pscan__op_name(int op);     /* "sum"; "custom"; "?" when unknown */
const char *pscan__algo_name(int algo); /* "decoupled-lookback"; "?" when unknown */
bool pscan__op_valid(int op);
bool pscan__op_integer_only(pscan_op op);
/* true when (in, out) is in PSCAN_SCAN_PAIRS */
bool pscan__scan_pair_valid(pscan_dtype in, pscan_dtype out);
/* True when the call's result depends on the order of combination (float SUM and PROD, and any
   custom operator): only those need DETERMINISTIC's fixed order. */
bool pscan__order_sensitive(const pscan__scan_call *c);
/* Writes the identity of op in type t (at most 8 bytes) to dst. */
void pscan__identity(pscan_dtype t, pscan_op op, void *dst);

/* ---- Heap allocations (alloc.c): every one the library makes goes through these, so that a
   test can make any of them fail. Memory from either is released with pscan__free. ---- */
void *pscan__calloc(size_t count, size_t size);
void *pscan__aligned_alloc(size_t alignment, size_t size); /* size a multiple of alignment */
void pscan__free(void *p);

/* Fault injection, for tests only (tests/test_faults.c, tests/test_cuda_faults.c). A fault point
   is an allocation above (or of CUDA workspace), a thread creation (cpu/pool.c asks
   pscan__fault_inject before pthread_create), or a CUDA kernel launch
   (cuda/host/scan.c, compact.c). */
typedef enum {
  PSCAN__FAULT_ALLOC,
  PSCAN__FAULT_THREAD,
  PSCAN__FAULT_LAUNCH,
  PSCAN__FAULT_KINDS
} pscan__fault_kind;
/* True when this fault point of kind must fail: the armed one, once. */
bool pscan__fault_inject(pscan__fault_kind kind);
/* Makes the k-th (from 0) fault point of kind from now fail, once; k < 0 disarms. Arming with
   LONG_MAX fails none and only counts. */
void pscan__fault_arm(pscan__fault_kind kind, long k);
/* Disarms kind; returns how many of its fault points were passed since it was armed (the failed
   one included). */
long pscan__fault_disarm(pscan__fault_kind kind);

#endif /* PSCAN_INTERNAL_H */
