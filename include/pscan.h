/* pscan — parallel prefix scans and the scan-based compaction family, in C.
 *
 * One header, C11, no CUDA or C++ include. This header is the contract: every function below says
 * what it does, every status it can return, what may alias what, and when it returns on each
 * backend. docs/ALGORITHMS.md explains the algorithms, docs/PERFORMANCE.md the measured choices
 * behind the defaults, docs/CLI.md the command-line tool.
 *
 * Rules common to every function (not repeated below):
 * - Every function that can fail returns a pscan_status; results come back through out-parameters.
 * - ctx == NULL is PSCAN_ERR_INVALID_ARGUMENT; its one-line detail is in pscan_last_error(NULL).
 *   Any other failure leaves its one line in pscan_last_error(ctx).
 * - A call refused for its arguments (any status but PSCAN_ERR_DEVICE) has written nothing to any
 *   output and leaked nothing; the context stays usable.
 * - n == 0 is valid and does nothing (data pointers may then be NULL); compaction calls still
 *   write their count, 0.
 * - Typed buffers (those of a pscan_dtype) must be aligned to their element size
 *   (PSCAN_ERR_INVALID_ARGUMENT otherwise). Custom operators' buffers may have any address.
 * - n * element size must fit in size_t (PSCAN_ERR_OVERFLOW otherwise).
 * - Memory: the CPU backend takes host memory (GPU device memory is PSCAN_ERR_WRONG_MEMORY); the
 *   CUDA backend takes device memory, from cudaMalloc or managed (host memory is
 *   PSCAN_ERR_WRONG_MEMORY). Single values passed by pointer (init, value) are read on the host
 *   on both backends: they must be host memory. Counts (size_t *num_selected and friends): see
 *   "Compaction".
 * - Any call may also answer PSCAN_ERR_OUT_OF_MEMORY (scratch, worker threads that could not be
 *   started, GPU workspace) and, on the CUDA backend, PSCAN_ERR_DEVICE (a CUDA runtime error;
 *   an error of work queued earlier may surface in any later call or in pscan_synchronize).
 * - When a call returns: on the CPU backend every call is synchronous (done when it returns). On
 *   the CUDA backend a data call enqueues its kernels on the context's stream and returns without
 *   waiting for them; the only calls that wait are compaction calls whose count pointer is host
 *   memory, pscan_reduce with a total in host memory, pscan_synchronize and pscan_destroy.
 * - A context is used by one thread at a time; different contexts may be used from different
 *   threads at once (they share nothing). */
#ifndef PSCAN_H
#define PSCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(PSCAN_SHARED_BUILD)
#define PSCAN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PSCAN_API __attribute__((visibility("default")))
#else
#define PSCAN_API
#endif

#define PSCAN_VERSION_MAJOR 0
#define PSCAN_VERSION_MINOR 1
#define PSCAN_VERSION_PATCH 0

/* ---------------------------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------------------------- */

typedef enum pscan_status {
  PSCAN_OK = 0,
  PSCAN_ERR_INVALID_ARGUMENT, /* NULL where a pointer is required, unknown enum, bad combination
                                 (e.g. XOR on f32, elem_size 0, exclusive custom scan without init),
                                 a misaligned typed buffer, a value out of range */
  PSCAN_ERR_UNSUPPORTED,      /* valid request this build/backend cannot serve (CUDA not built,
                                 a host-function operator on the GPU, an algorithm or parameter
                                 value the backend does not offer) */
  PSCAN_ERR_OVERLAP,          /* buffers overlap in a way the call does not allow (each call
                                 below says which aliasing it allows) */
  PSCAN_ERR_OVERFLOW,         /* n * element size (or a derived size) does not fit in size_t */
  PSCAN_ERR_OUT_OF_MEMORY,    /* host or GPU memory, or a worker thread that could not start */
  PSCAN_ERR_NO_DEVICE,        /* CUDA backend asked for, no usable GPU */
  PSCAN_ERR_WRONG_MEMORY,     /* host pointer given to the CUDA backend, device pointer to the CPU one */
  PSCAN_ERR_DEVICE,           /* CUDA runtime or driver error; detail in pscan_last_error */
  PSCAN_ERR_INTERNAL          /* a bug in pscan (a kernel missing from a table); please report */
} pscan_status;

typedef struct pscan_ctx pscan_ctx;

/* The enumerator's name, e.g. "PSCAN_ERR_OVERLAP"; "PSCAN_ERR_UNKNOWN" for a value out of range.
   Never NULL; a static string. */
PSCAN_API const char *pscan_status_name(pscan_status s);

/* One line of detail on the most recent failed call on ctx; "" if no call on ctx has failed yet.
   The text stays until the next failure (like errno): a successful call does not clear it.
   ctx == NULL gives the detail of the calling thread's last failure that had no context to hold
   it (pscan_create, or a call passed a NULL ctx). Never NULL; valid until the next call on ctx
   (or, for NULL, the thread's next such failure). */
PSCAN_API const char *pscan_last_error(const pscan_ctx *ctx);

/* "MAJOR.MINOR.PATCH" followed by the backends built in, e.g. "0.1.0 (cpu, cuda)". A static
   string. */
PSCAN_API const char *pscan_version_string(void);

/* ---------------------------------------------------------------------------------------------
 * Types and operators
 * ------------------------------------------------------------------------------------------- */

typedef enum pscan_dtype {
  PSCAN_I8, PSCAN_I16, PSCAN_I32, PSCAN_I64,
  PSCAN_U8, PSCAN_U16, PSCAN_U32, PSCAN_U64,
  PSCAN_F32, PSCAN_F64
} pscan_dtype;
#define PSCAN_DTYPE_COUNT 10

typedef enum pscan_op {
  PSCAN_SUM, PSCAN_PROD, PSCAN_MIN, PSCAN_MAX,
  PSCAN_AND, PSCAN_OR, PSCAN_XOR /* integer types only */
} pscan_op;
#define PSCAN_OP_COUNT 7

/* Semantics:
 * - Integer SUM and PROD wrap modulo 2^bits, for signed types too (no undefined behaviour).
 * - Float MIN and MAX propagate NaN (as numpy.minimum / numpy.maximum). Between -0.0 and +0.0,
 *   which compare equal, MIN and MAX return the later operand.
 * - Identities (out[0] of an exclusive scan without init): SUM 0, PROD 1, MIN the type's largest
 *   value (+inf for floats), MAX its smallest (-inf), AND all ones, OR 0, XOR 0. An inclusive scan
 *   without init starts from in[0] itself, so a float sum of {-0.0} is -0.0.
 * - Float SUM and PROD depend on the order of combination, which depends on the algorithm, the
 *   thread count and the timing unless PSCAN_PARAM_DETERMINISTIC is 1. Every other (type, op)
 *   gives the same bits whatever the algorithm. */

/* Size in bytes of one element of t; 0 for an unknown value. */
PSCAN_API size_t pscan_dtype_size(pscan_dtype t);

/* ---------------------------------------------------------------------------------------------
 * Context
 * ------------------------------------------------------------------------------------------- */

typedef enum pscan_backend { PSCAN_BACKEND_AUTO, PSCAN_BACKEND_CPU, PSCAN_BACKEND_CUDA } pscan_backend;

/* Creates a context on backend. AUTO: CUDA when built and a GPU is usable, else CPU (a failure to
   create the CUDA context falls back to the CPU silently).
   Returns PSCAN_OK with *ctx set; on failure *ctx is NULL (when ctx is not NULL) and
   pscan_last_error(NULL) says why:
     PSCAN_ERR_INVALID_ARGUMENT  ctx == NULL, or an unknown backend
     PSCAN_ERR_UNSUPPORTED       CUDA asked for in a build without it
     PSCAN_ERR_NO_DEVICE         CUDA asked for, no usable GPU
     PSCAN_ERR_OUT_OF_MEMORY     the context's own memory
     PSCAN_ERR_DEVICE            the CUDA runtime failed to set up the device
   The CPU backend starts no thread here: its worker threads start with its first parallel call
   (and again when PSCAN_PARAM_THREADS changes). */
PSCAN_API pscan_status pscan_create(pscan_ctx **ctx, pscan_backend backend);

/* Frees the context, its worker threads and its scratch memory. NULL is a no-op. On the CUDA
 * backend it waits for the work queued on the context's stream (it frees the workspace that work
 * uses).
 * What C cannot check: a pointer that is not a live context (destroyed already, never created,
 * or any other address) is undefined behaviour in every function, as with free(); so is using
 * one context from two threads at once (use one context per thread: contexts share nothing).
 * On the CUDA backend, after a sticky device error (PSCAN_ERR_DEVICE, e.g. an illegal address)
 * CUDA has lost the process's GPU context: every later CUDA call answers PSCAN_ERR_DEVICE; only a
 * new process recovers. pscan_destroy still returns and frees the host side. */
PSCAN_API void pscan_destroy(pscan_ctx *ctx);

/* The backend actually in use (never AUTO); PSCAN_BACKEND_AUTO for ctx == NULL. */
PSCAN_API pscan_backend pscan_get_backend(const pscan_ctx *ctx);

typedef enum pscan_param {
  PSCAN_PARAM_THREADS,        /* CPU worker threads; 0 = all cores the process may run on
                                 (default); at most 1024. The CUDA backend ignores it. */
  PSCAN_PARAM_DEVICE,         /* CUDA device ordinal; default 0; at most 1023. The CUDA backend
                                 refuses an ordinal with no device (INVALID_ARGUMENT) and a change
                                 after the context's first data call (UNSUPPORTED). pscan_create
                                 and every call on a CUDA context run with the context's device
                                 current (cudaSetDevice) and give the calling thread back the
                                 device that was current before they return. The CPU backend
                                 ignores it. */
  PSCAN_PARAM_ALGO,           /* a pscan_algo; default PSCAN_ALGO_AUTO. The CUDA backend refuses
                                 SEQUENTIAL (UNSUPPORTED). */
  PSCAN_PARAM_BLOCK_ALGO,     /* a pscan_block_algo (GPU tile-level scan); default PSCAN_BLOCK_AUTO.
                                 The CPU backend accepts only AUTO (others: UNSUPPORTED). */
  PSCAN_PARAM_DETERMINISTIC,  /* 1: floating-point results are bitwise identical from run to run on
                                 the same backend and device, and on the CPU for any thread count;
                                 default 0 */

  /* ---- Experimental parameters: values from 1000 ----
     For tests and measurement only, NOT part of the stable API: they may change meaning or
     disappear in any release. A program that sets one must be ready for
     PSCAN_ERR_INVALID_ARGUMENT. */
  PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE = 1000
                              /* elements per partition of the CPU backend's single-pass and
                                 two-pass scans and of its compaction; 0 = automatic (default,
                                 from the type, the thread count and the input size). Small values
                                 (64, 1000) put many partition boundaries in a small test input.
                                 At most 2^30. The CUDA backend ignores it. */
} pscan_param;

/* Sets a parameter of ctx for its later calls. 0 restores the default where the comment above
   says so. Returns
     PSCAN_ERR_INVALID_ARGUMENT  an unknown parameter, or a value out of its range (nothing set)
     PSCAN_ERR_UNSUPPORTED       a value this backend does not offer (see each parameter)
   Synchronous on both backends; it does not wait for queued GPU work. */
PSCAN_API pscan_status pscan_set_param(pscan_ctx *ctx, pscan_param p, int64_t value);

/* Reads a parameter as set (THREADS reads 0 when left at "all cores"; ALGO reads AUTO, not the
   algorithm AUTO picks). PSCAN_ERR_INVALID_ARGUMENT for value == NULL or an unknown parameter
   (*value untouched). */
PSCAN_API pscan_status pscan_get_param(const pscan_ctx *ctx, pscan_param p, int64_t *value);

/* CUDA backend: the context's later work is enqueued on this cudaStream_t (NULL: the legacy
   default stream, the initial setting), after everything already queued on the previous stream
   (an event orders them; the call itself does not wait). The previous stream may have been
   destroyed since the context's last call on it (as Python frameworks do with their streams):
   the context never touches a stream after a call on it has returned, except to queue work
   there again. PSCAN_ERR_DEVICE if CUDA refuses the event or the stream.
   CPU backend: accepts only NULL; any other stream is PSCAN_ERR_UNSUPPORTED. */
PSCAN_API pscan_status pscan_set_stream(pscan_ctx *ctx, void *cuda_stream);

/* Waits for all work of ctx. CUDA backend: synchronises the context's stream; an error of the
   queued work (PSCAN_ERR_DEVICE) is reported here. CPU backend: calls are synchronous already;
   returns PSCAN_OK at once. */
PSCAN_API pscan_status pscan_synchronize(pscan_ctx *ctx);

/* ---------------------------------------------------------------------------------------------
 * Algorithms
 * ------------------------------------------------------------------------------------------- */

typedef enum pscan_algo {
  PSCAN_ALGO_AUTO,                /* fastest for the backend, size and type */
  PSCAN_ALGO_SEQUENTIAL,          /* one thread, one pass (CPU only) */
  PSCAN_ALGO_DECOUPLED_LOOKBACK,  /* single pass, ~2n data movement (Merrill & Garland) */
  PSCAN_ALGO_CHAINED,             /* single pass, look-back of one partition (StreamScan) */
  PSCAN_ALGO_REDUCE_THEN_SCAN,    /* reduce partitions, scan their totals, scan again: ~3n */
  PSCAN_ALGO_SCAN_THEN_PROPAGATE  /* hierarchical: scan blocks, scan block sums, add: ~4n */
} pscan_algo;
#define PSCAN_ALGO_COUNT 6

typedef enum pscan_block_algo {   /* how one GPU tile is scanned */
  PSCAN_BLOCK_AUTO,
  PSCAN_BLOCK_RAKING,             /* reduce-then-scan inside one warp (MatrixScan style) */
  PSCAN_BLOCK_WARP_SCANS,         /* Kogge-Stone warp scans, then a scan of warp totals */
  PSCAN_BLOCK_KOGGE_STONE,        /* Hillis-Steele / Horn: log n steps, n log n work */
  PSCAN_BLOCK_BRENT_KUNG,         /* Blelloch up-sweep / down-sweep: 2 log n steps, O(n) work */
  PSCAN_BLOCK_SKLANSKY,           /* scan-then-fan, minimum depth */
  PSCAN_BLOCK_HYBRID              /* Sengupta, Lefohn & Owens: reduce, Kogge-Stone at the top, down-sweep */
} pscan_block_algo;
#define PSCAN_BLOCK_ALGO_COUNT 7

/* Every algorithm a backend offers gives identical results for integer types. The CPU backend
   offers all of pscan_algo; the CUDA backend all but SEQUENTIAL, and every pscan_block_algo.
   With DETERMINISTIC = 1 the CPU backend's AUTO, DECOUPLED_LOOKBACK, CHAINED and REDUCE_THEN_SCAN
   give the same bits as one another for any thread count. The compaction family has one
   single-pass strategy of its own: ALGO CHAINED makes its look-back chained, SEQUENTIAL (CPU)
   runs it on one thread, AUTO (CPU) picks the thread count from n, every other value is the
   decoupled look-back; BLOCK_ALGO does not apply to it. */

/* ---------------------------------------------------------------------------------------------
 * Scan
 * Statuses, beyond the rules at the top of this header:
 *   PSCAN_ERR_INVALID_ARGUMENT  in or out NULL with n > 0; an unknown type or op; an integer-only
 *                               op on a float type; an out_type that is neither in_type nor a
 *                               wider type of its kind; exclusive not 0 or 1; a misaligned buffer
 *   PSCAN_ERR_OVERFLOW          n * element size does not fit in size_t
 *   PSCAN_ERR_OVERLAP           in and out overlap without being the same buffer of the same type
 *   PSCAN_ERR_WRONG_MEMORY      in or out in the other backend's memory
 *   PSCAN_ERR_UNSUPPORTED       (CUDA) more than 2^31 - 1 tiles of 32 KB in one launch
 * In place: out == in with in_type == out_type. A widening scan (out_type wider than in_type)
 * cannot run in place: out == in is then PSCAN_ERR_OVERLAP.
 * init is read during the call: it must not lie inside out.
 * CPU: synchronous. CUDA: enqueued on the context's stream; returns without waiting.
 * ------------------------------------------------------------------------------------------- */

/* out[i] = in[0] ⊕ ... ⊕ in[i]. */
PSCAN_API pscan_status pscan_inclusive_scan(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                            pscan_dtype type, pscan_op op);

/* out[0] = init, out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1]; init (one element of type, host memory)
   NULL means the op's identity. */
PSCAN_API pscan_status pscan_exclusive_scan(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                            pscan_dtype type, pscan_op op, const void *init);

typedef struct pscan_scan_args {
  const void *in;  pscan_dtype in_type;
  void       *out; pscan_dtype out_type; /* accumulation and output type: in_type, or a wider type
                                            of the same kind (I32->I64, U8->U64, F32->F64, ...) */
  size_t      n;
  pscan_op    op;
  int         exclusive;                 /* 0: out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i]
                                            1: out[0] = init, out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] */
  const void *init;                      /* one element of out_type in host memory; NULL: the op's
                                            identity (an inclusive scan then starts from in[0]) */
} pscan_scan_args;

/* The general form: widening output types and an init value for inclusive scans too.
   args == NULL is PSCAN_ERR_INVALID_ARGUMENT; otherwise the statuses of the section. */
PSCAN_API pscan_status pscan_scan(pscan_ctx *ctx, const pscan_scan_args *args);

/* The reduction: *total = init ⊕ in[0] ⊕ ... ⊕ in[n-1] in out_type (init NULL: from in[0]; n == 0:
   init, or the op's identity) — the last element of the inclusive scan of args, with the input
   read once and nothing stored (~n data movement where the scan moves ~2n). args->out and
   args->exclusive are not used (out may be NULL). Float sums and products may combine in another
   order than the scan's, so the last bits may differ from the scan's last element; with
   PSCAN_PARAM_DETERMINISTIC = 1 they are the same from run to run (and on the CPU for any thread
   count).
   total: one element of out_type. CPU: host memory. CUDA: host memory (the call then waits for the
   result) or device memory aligned to the element size (written asynchronously, like the scan).
   Statuses: those of the section, and PSCAN_ERR_INVALID_ARGUMENT for args or total NULL or a
   misaligned device total; PSCAN_ERR_WRONG_MEMORY for a device total on the CPU backend. */
PSCAN_API pscan_status pscan_reduce(pscan_ctx *ctx, const pscan_scan_args *args, void *total);

/* ---------------------------------------------------------------------------------------------
 * Custom operators (CPU backend)
 * ------------------------------------------------------------------------------------------- */

/* *out = *a ⊕ *b for elements of elem_size bytes; must be associative, need not be commutative;
   out may alias a or b. Called concurrently from several threads on different elements. */
typedef void (*pscan_combine_fn)(void *out, const void *a, const void *b, void *user);

/* A scan with a user operator over elements of elem_size bytes (any size from 1 byte up; no
   alignment is assumed). init (one element, host memory) is required when exclusive, optional
   (NULL) when inclusive. user is passed to every call of fn.
   Returns
     PSCAN_ERR_INVALID_ARGUMENT  elem_size 0; fn NULL; exclusive not 0 or 1; exclusive without
                                 init; in or out NULL with n > 0
     PSCAN_ERR_OVERFLOW          n * elem_size (or the scratch size) does not fit in size_t
     PSCAN_ERR_OVERLAP           in and out overlap without being equal (out == in is in place)
     PSCAN_ERR_WRONG_MEMORY      in or out in GPU memory
     PSCAN_ERR_UNSUPPORTED       on the CUDA backend (a host function cannot run on the GPU; see
                                 "Operators and predicates from source")
   CPU: synchronous; fn is called from the context's worker threads and the calling thread. */
PSCAN_API pscan_status pscan_scan_custom(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                         size_t elem_size, pscan_combine_fn fn, void *user,
                                         int exclusive, const void *init);

/* ---------------------------------------------------------------------------------------------
 * Compaction and segmented operations (both backends)
 *
 * Counts: every call but pscan_scan_by_key writes its result count to a size_t * (num_selected,
 * num_unique, num_runs), which may not be NULL (PSCAN_ERR_INVALID_ARGUMENT, n == 0 included); it
 * is written only on success, n == 0 included (as 0).
 *   CPU backend: host memory (not checked: anything else is undefined behaviour); the call is
 *   synchronous.
 *   CUDA backend: either kind of memory, and it decides when the call returns:
 *     device or managed memory  the count is written by the GPU, in stream order; the call
 *                               returns without waiting (read it after pscan_synchronize or
 *                               after later stream work);
 *     host memory               the call waits for its kernel to finish (it synchronises the
 *                               context's stream, so all earlier work on it too) and the count is
 *                               in place when it returns.
 * Keys and items compare with C's == (for unique, run-length encoding and the by-key calls):
 * NaN never equals anything, and -0.0 equals +0.0. select_if and partition_if evaluate
 * (in[i] cmp *value) as C does: with a NaN on either side only PSCAN_NE holds.
 * value (select_if, partition_if) and init (scan_by_key) are one element in host memory, read
 * once before anything is written: they may lie inside out.
 * Statuses, beyond the rules at the top of this header:
 *   PSCAN_ERR_INVALID_ARGUMENT  a NULL data pointer with n > 0, a NULL count pointer, value NULL,
 *                               an unknown type, cmp or op, an integer-only op on float values,
 *                               exclusive not 0 or 1, a misaligned buffer
 *   PSCAN_ERR_OVERFLOW          n * element size does not fit in size_t
 *   PSCAN_ERR_OVERLAP           aliasing the call does not allow (each call says which it allows)
 *   PSCAN_ERR_WRONG_MEMORY      a data buffer in the other backend's memory
 *   PSCAN_ERR_UNSUPPORTED       (CUDA) more than 2^31 - 1 tiles in one launch
 * ------------------------------------------------------------------------------------------- */

typedef enum pscan_cmp { PSCAN_LT, PSCAN_LE, PSCAN_GT, PSCAN_GE, PSCAN_EQ, PSCAN_NE } pscan_cmp;
#define PSCAN_CMP_COUNT 6

/* Keeps in[i] where (in[i] cmp *value), in order, in out[0 .. *num_selected). out == in runs in
   place; any other overlap of in and out is PSCAN_ERR_OVERLAP. */
PSCAN_API pscan_status pscan_select_if(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                       pscan_dtype type, pscan_cmp cmp, const void *value,
                                       size_t *num_selected);
/* Keeps in[i] where flags[i] != 0 (n bytes, in the backend's memory), in order. out == in runs in
   place; flags may overlap in but not out (PSCAN_ERR_OVERLAP). */
PSCAN_API pscan_status pscan_select_flagged(pscan_ctx *ctx, const void *in, const uint8_t *flags,
                                            void *out, size_t n, pscan_dtype type,
                                            size_t *num_selected);
/* Selected items first, in order; then the rejected ones, filled from the back of out (so they
   appear in reverse order): out[0 .. n) is written whole. Not in place: out == in, or any other
   overlap, is PSCAN_ERR_OVERLAP. */
PSCAN_API pscan_status pscan_partition_if(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                          pscan_dtype type, pscan_cmp cmp, const void *value,
                                          size_t *num_selected);
/* Keeps the first of each run of equal consecutive items. out == in runs in place; any other
   overlap is PSCAN_ERR_OVERLAP. */
PSCAN_API pscan_status pscan_unique(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                    pscan_dtype type, size_t *num_unique);
/* One (value, length) per maximal run of equal consecutive items: unique_out[r] and
   counts_out[r] (uint64_t, 8-byte aligned, in the backend's memory; NULL with n > 0 is
   PSCAN_ERR_INVALID_ARGUMENT). unique_out == in runs in place; counts_out may overlap neither in
   nor unique_out (PSCAN_ERR_OVERLAP). */
PSCAN_API pscan_status pscan_run_length_encode(pscan_ctx *ctx, const void *in, void *unique_out,
                                               uint64_t *counts_out, size_t n, pscan_dtype type,
                                               size_t *num_runs);
/* One (key, op-reduction of its values, in order) per run of equal consecutive keys: keys_out[r],
   vals_out[r]. Keys and values have types of their own. Not in place: no output may share a byte
   with an input or with the other output (PSCAN_ERR_OVERLAP); the inputs may overlap each other.
   With DETERMINISTIC = 1, float SUM and PROD reductions are bitwise reproducible. */
PSCAN_API pscan_status pscan_reduce_by_key(pscan_ctx *ctx, const void *keys_in, pscan_dtype key_type,
                                           const void *vals_in, pscan_dtype val_type,
                                           void *keys_out, void *vals_out, size_t n, pscan_op op,
                                           size_t *num_runs);
/* A scan of in (val_type) that restarts at every run of equal consecutive keys (a segmented
   scan): each run is scanned as pscan_scan would scan it alone, inclusive or exclusive, with init
   (NULL: none; else one value of val_type in host memory) applied at the start of every run. No
   count. out == in runs in place; any other overlap of in and out, or keys overlapping out, is
   PSCAN_ERR_OVERLAP. keys NULL with n > 0 is PSCAN_ERR_INVALID_ARGUMENT.
   CPU: synchronous. CUDA: enqueued; returns without waiting. */
PSCAN_API pscan_status pscan_scan_by_key(pscan_ctx *ctx, const void *keys, pscan_dtype key_type,
                                         const void *in, void *out, size_t n, pscan_dtype val_type,
                                         pscan_op op, int exclusive, const void *init);

/* ---------------------------------------------------------------------------------------------
 * Operators and predicates from source (both backends)
 * A user operator or predicate is source text valid as C11 and as CUDA C alike: a type (any
 * trivially copyable struct or scalar) and a function on values. pscan compiles it at run time —
 * on the GPU with NVRTC (loaded at run time; + nvJitLink where it links), on the CPU with the
 * system C compiler or through host_fn — and caches what it compiled, in the context and on disk
 * ($PSCAN_CACHE_DIR, else $XDG_CACHE_HOME/pscan, else ~/.cache/pscan; an unwritable or corrupt
 * cache is ignored and the operator compiled again, never an error).
 * ------------------------------------------------------------------------------------------- */

typedef enum pscan_op_kind {
  PSCAN_KIND_COMBINE,   /* T name(T a, T b): associative, need not be commutative */
  PSCAN_KIND_PREDICATE  /* int name(T x): nonzero keeps x (select, partition) */
} pscan_op_kind;

typedef struct pscan_op_desc {
  pscan_op_kind kind;
  const char   *source;     /* defines type_name (unless it is a C scalar type) and name */
  const char   *type_name;  /* e.g. "float", "struct affine" or a typedef name from source */
  const char   *name;       /* the function */
  size_t        elem_size;  /* sizeof(type) as the caller lays elements out; checked against the
                               compiled type: a mismatch is PSCAN_ERR_INVALID_ARGUMENT */
  const void   *identity;   /* COMBINE: optional; exclusive scans without init need it. It must
                               be one for the data (op(e, x) == op(x, e) == x, bit for bit: an
                               affine map's (1, 0) is not, for a = inf): the GPU kernels combine it
                               where they otherwise carry an "empty" flag, which makes them
                               faster (elements of whole 4-byte words: 4-30% on an H200); a
                               float sum's +0 identity then turns a first item of -0 into +0 */
  pscan_combine_fn host_fn; /* optional: the same operator as a host function (COMBINE); with it
                               the CPU backend compiles nothing */
  void         *host_user;
} pscan_op_desc;

typedef struct pscan_user_op pscan_user_op;

/* Compiles (or finds in the cache) the operator for ctx's backend and device. A compile error is
   PSCAN_ERR_INVALID_ARGUMENT with the compiler's first error line in pscan_last_error; no compiler
   available (NVRTC not installed, no C compiler and no host_fn) is PSCAN_ERR_UNSUPPORTED. */
PSCAN_API pscan_status pscan_op_create(pscan_ctx *ctx, const pscan_op_desc *desc,
                                       pscan_user_op **op);
/* NULL is a no-op; call it before destroying the operator's context. */
PSCAN_API void pscan_op_destroy(pscan_user_op *op);
/* Extension: sizeof the operator's type (the desc's elem_size); 0 for NULL. Lets code built on
   the public API (pscan_mpi) move elements of a user type it did not describe itself. */
PSCAN_API size_t pscan_op_elem_size(const pscan_user_op *op);

/* A scan of elements of the operator's type (exclusive without init needs the desc's identity). */
PSCAN_API pscan_status pscan_scan_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                     const pscan_user_op *op, int exclusive, const void *init);
/* Extension: the reduction with a COMBINE operator, as pscan_reduce is for the built-in ones:
   *total = init ⊕ in[0] ⊕ ... ⊕ in[n-1] (init NULL: from in[0]) — the last element of the
   inclusive pscan_scan_op of in, with the input read once and nothing stored. n == 0: init, else
   the desc's identity, else PSCAN_ERR_INVALID_ARGUMENT (an empty reduction has no value). The
   operator need not be commutative (only the bracketing differs from the scan's; with
   PSCAN_PARAM_DETERMINISTIC = 1 the CPU gives the same bits for any thread count). total: one
   element; CPU: host memory; CUDA: host memory (the call then waits for the result) or device
   memory (written asynchronously, like the scan). On the GPU the reduction is a kernel of its own,
   compiled (or loaded from the disk cache) on the operator's first reduction. Statuses: those of
   pscan_scan_op, and PSCAN_ERR_INVALID_ARGUMENT for total NULL; PSCAN_ERR_WRONG_MEMORY for a
   device total on the CPU backend. */
PSCAN_API pscan_status pscan_reduce_op(pscan_ctx *ctx, const void *in, size_t n,
                                       const pscan_user_op *op, const void *init, void *total);
/* Select / partition with a PREDICATE operator (same in-place and count rules as select_if). */
PSCAN_API pscan_status pscan_select_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                       const pscan_user_op *pred, size_t *num_selected);
PSCAN_API pscan_status pscan_partition_op(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                          const pscan_user_op *pred, size_t *num_selected);
/* Extension: reduce_by_key and scan_by_key with a COMBINE operator on the values, which are
   elements of its type (any alignment); keys of a built-in type, compared as in
   pscan_reduce_by_key. Same semantics, overlap rules and statuses as those two (the operator need
   not be commutative: each run is reduced / scanned in order); scan_by_key_op's exclusive scan
   without init needs the desc's identity, as pscan_scan_op's does. Elements of at most 64 bytes
   (a run's value travels in the single-pass look-back; wider ones are PSCAN_ERR_UNSUPPORTED,
   nothing written), on both backends; on the GPU each is a kernel of its own, compiled (or
   loaded from the disk cache) on the operator's first call of it, which always takes the
   decoupled look-back (ALGO CHAINED gives the same results by it). */
PSCAN_API pscan_status pscan_reduce_by_key_op(pscan_ctx *ctx, const void *keys_in,
                                              pscan_dtype key_type, const void *vals_in,
                                              void *keys_out, void *vals_out, size_t n,
                                              const pscan_user_op *op, size_t *num_runs);
PSCAN_API pscan_status pscan_scan_by_key_op(pscan_ctx *ctx, const void *keys, pscan_dtype key_type,
                                            const void *in, void *out, size_t n,
                                            const pscan_user_op *op, int exclusive,
                                            const void *init);
/* The full compiler log (warnings and errors) of the last operator compile on ctx: the C
   compiler's output on the CPU, NVRTC's on the GPU; "" when none ran (a cache hit, host_fn).
   Valid until the next pscan_op_create on ctx or its destruction; never NULL. The C compiler is
   $PSCAN_CC, else $CC, else cc (a command, optionally with leading arguments). */
PSCAN_API const char *pscan_op_compile_log(const pscan_ctx *ctx);

/* ---------------------------------------------------------------------------------------------
 * Scans along an axis, segmented by offsets, reversed
 * ------------------------------------------------------------------------------------------- */

#define PSCAN_MAX_DIMS 8

typedef struct pscan_axis_args {
  const void *in;  pscan_dtype in_type;  const int64_t *in_strides;  /* in elements; NULL: C order */
  void       *out; pscan_dtype out_type; const int64_t *out_strides; /* in elements; NULL: C order */
  int            ndim;             /* 1..PSCAN_MAX_DIMS */
  const int64_t *shape;
  int            axis;             /* the dimension scanned; -1 is the last */
  pscan_op       op;               /* ignored when user_op is set */
  const pscan_user_op *user_op;    /* optional COMBINE operator; in/out are then of its type
                                      (types ignored; init one such element, NULL: its identity).
                                      Both backends (CUDA: compiled with NVRTC on first use) */
  int            exclusive;
  int            reverse;          /* 1: scan from the end of the axis towards its start */
  const void    *init;             /* in out_type, the same for every line; NULL: identity */
} pscan_axis_args;

/* Every line along axis is scanned independently: torch.cumsum(x, dim) / numpy.cumsum(x, axis)
   for any shape and strides (negative strides too). out == in with equal strides is in place;
   any other overlap is PSCAN_ERR_OVERLAP. ndim == 1 with reverse == 1 is a reverse scan. */
PSCAN_API pscan_status pscan_scan_axis(pscan_ctx *ctx, const pscan_axis_args *args);

/* Segments given by offsets (CSR style): segment s is [offsets[s], offsets[s+1]); offsets has
   num_segments + 1 non-decreasing entries, offsets[0] == 0, offsets[num_segments] == n (empty
   segments allowed; anything else is PSCAN_ERR_INVALID_ARGUMENT, nothing written). offsets is in
   the backend's memory. */
PSCAN_API pscan_status pscan_segmented_scan(pscan_ctx *ctx, const void *in, void *out,
                                            pscan_dtype type, pscan_op op, const int64_t *offsets,
                                            size_t num_segments, int exclusive, int reverse,
                                            const void *init);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_H */
