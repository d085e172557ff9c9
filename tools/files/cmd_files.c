/* The file subcommands of the pscan tool: `pscan scan` and one command per compaction operation
 * (select, select-flagged, partition, unique, rle, reduce-by-key, scan-by-key). Each is a table
 * entry (file_cmd.h) plus a run function that makes one library call; parsing, loading, the
 * context and the atomic writing of the outputs are shared (file_args.c, file_cmd.c). docs/CLI.md
 * is the user's guide. */
#include "commands.h"
#include "cmd_user_op.h"
#include "file_cmd.h"
#include "lists.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int status_exit(const file_job *job, pscan_status s) {
  return s == PSCAN_OK ? 0 : job_lib_error(job, s);
}

/* ---- scan ---- */

/* 'i', 'u' or 'f': the kind of a type (pscan.h lists the signed, then unsigned, then floats). */
static char kind_of(pscan_dtype t) {
  return cli_dtype_is_float(t) ? 'f' : t <= PSCAN_I64 ? 'i' : 'u';
}

static const bool op_int_only[] = {
#define X(E, name, int_only) int_only,
    PSCAN_OPS(X)
#undef X
};

static const char *const op_text[] = {
#define X(E, name, int_only) #name,
    PSCAN_OPS(X)
#undef X
};

/* --op and, or, xor on floats: a usage error, found before the library is called. */
static bool check_op(const file_job *job, pscan_dtype t, const char *file) {
  if (!op_int_only[job->o.op] || !cli_dtype_is_float(t))
    return true;
  cli_usage_error(job->cmd->name, "--op %s is for integers; %s holds %s", op_text[job->o.op], file,
                  cli_dtype_name(t));
  return false;
}

/* The unsigned type of t's width, for a bool input widened to t: sums and products wrap the same
   way in both, so the bits are the same. */
static pscan_dtype unsigned_of(pscan_dtype t) {
  size_t s = pscan_dtype_size(t);
  return s == 1 ? PSCAN_U8 : s == 2 ? PSCAN_U16 : s == 4 ? PSCAN_U32 : PSCAN_U64;
}

/* The accumulation (and output) type of scan: --out-dtype, or IN's type; a NumPy bool array
   summed or multiplied widens to i64 as numpy.cumsum does (computed as the unsigned type of the
   same width). *lib_t is the type the library computes in. false after a usage error. */
static bool scan_out_type(const file_job *job, pscan_dtype *out_t, pscan_dtype *lib_t) {
  const aio_array *in = &job->in[0];
  bool widen_bool = in->is_bool && (job->o.op == PSCAN_SUM || job->o.op == PSCAN_PROD);
  *out_t = job->o.out_dtype != AIO_NO_TYPE ? (pscan_dtype)job->o.out_dtype
           : widen_bool                    ? PSCAN_I64
                                           : in->type;
  *lib_t = *out_t;
  if (widen_bool && !cli_dtype_is_float(*out_t))
    *lib_t = unsigned_of(*out_t);
  if (kind_of(*lib_t) != kind_of(in->type) || pscan_dtype_size(*lib_t) < pscan_dtype_size(in->type)) {
    cli_usage_error(job->cmd->name, "--out-dtype %s: %s holds %s; the output type must be %s or a "
                    "wider type of the same kind", cli_dtype_name(*out_t), job->in_path[0],
                    in->is_bool ? "bool" : cli_dtype_name(in->type),
                    in->is_bool ? "an integer type" : cli_dtype_name(in->type));
    return false;
  }
  return check_op(job, *out_t, job->in_path[0]);
}

/* --axis / --reverse, or an input of several dimensions: pscan_scan_axis, and OUT keeps IN's
   shape. The shape of the scan into shape[0..*ndim); false after a usage error. */
static bool scan_axis_shape(file_job *job, int *ndim, int64_t *shape) {
  const aio_array *in = &job->in[0];
  *ndim = in->ndim > 1 ? in->ndim : 1;
  for (int d = 0; d < *ndim; d++)
    shape[d] = (int64_t)(in->ndim > 1 ? in->shape[d] : in->n);
  return job_check_axis(job, *ndim, "");
}

static pscan_status scan_axis(file_job *job, pscan_dtype lib_t, int ndim, const int64_t *shape,
                              const void *init) {
  job->out_ndim[0] = ndim;
  for (int d = 0; d < ndim; d++)
    job->out_shape[0][d] = (size_t)shape[d];
  pscan_axis_args a = {.in = job->in_lib[0], .in_type = job->in[0].type, .out = job->out_lib[0],
                       .out_type = lib_t, .ndim = ndim, .shape = shape,
                       .axis = job->o.axis_given ? job->o.axis : -1, .op = job->o.op,
                       .exclusive = job->o.exclusive, .reverse = job->o.reverse, .init = init};
  return pscan_scan_axis(job->ctx, &a);
}

static int run_scan(file_job *job) {
  if (job->o.op_source)
    return run_scan_user_op(job);
  const aio_array *in = &job->in[0];
  pscan_dtype out_t, lib_t;
  if (!scan_out_type(job, &out_t, &lib_t))
    return EXIT_USAGE;
  uint64_t init[1]; /* room and alignment for any type */
  if (job->o.init && !job_parse_value(job, "--init", job->o.init, out_t, init))
    return EXIT_USAGE;
  bool along_axis = in->ndim > 1 || job->o.axis_given || job->o.reverse;
  int ndim = 1;
  int64_t shape[AIO_MAX_DIMS];
  if (along_axis && !scan_axis_shape(job, &ndim, shape))
    return EXIT_USAGE;
  if (!job_alloc_out(job, 0, lib_t, in->n))
    return 1;
  pscan_status st;
  if (along_axis) {
    st = scan_axis(job, lib_t, ndim, shape, job->o.init ? init : NULL);
  } else {
    pscan_scan_args a = {.in = job->in_lib[0], .in_type = in->type, .out = job->out_lib[0],
                         .out_type = lib_t, .n = in->n, .op = job->o.op,
                         .exclusive = job->o.exclusive, .init = job->o.init ? init : NULL};
    st = pscan_scan(job->ctx, &a);
  }
  job->out_type[0] = out_t; /* the same bits, written as the type asked for */
  return status_exit(job, st);
}

/* The scan's last element alone (pscan_reduce): one element of the scan's output type. */
static int run_reduce(file_job *job) {
  if (job->o.op_source)
    return run_reduce_user_op(job);
  const aio_array *in = &job->in[0];
  pscan_dtype out_t, lib_t;
  if (!scan_out_type(job, &out_t, &lib_t))
    return EXIT_USAGE;
  uint64_t init[1];
  if (job->o.init && !job_parse_value(job, "--init", job->o.init, out_t, init))
    return EXIT_USAGE;
  if (!job_alloc_host_out(job, 0, lib_t, 1)) /* a host total: the call waits for it */
    return 1;
  pscan_scan_args a = {.in = job->in_lib[0], .in_type = in->type, .out_type = lib_t,
                       .n = in->n, .op = job->o.op, .init = job->o.init ? init : NULL};
  pscan_status st = pscan_reduce(job->ctx, &a, job->out[0]);
  job->out_type[0] = out_t;
  return status_exit(job, st);
}

static int run_scan_by_key(file_job *job) {
  if (job->o.op_source)
    return run_scan_by_key_user_op(job);
  const aio_array *keys = &job->in[0], *vals = &job->in[1];
  if (!check_op(job, vals->type, job->in_path[1]))
    return EXIT_USAGE;
  uint64_t init[1];
  if (job->o.init && !job_parse_value(job, "--init", job->o.init, vals->type, init))
    return EXIT_USAGE;
  if (!job_alloc_out(job, 0, vals->type, vals->n))
    return 1;
  return status_exit(job, pscan_scan_by_key(job->ctx, job->in_lib[0], keys->type, job->in_lib[1],
                                            job->out_lib[0], vals->n, vals->type, job->o.op,
                                            job->o.exclusive, job->o.init ? init : NULL));
}

/* ---- compaction ---- */

typedef pscan_status (*cmp_fn)(pscan_ctx *, const void *, void *, size_t, pscan_dtype, pscan_cmp,
                               const void *, size_t *);

/* select_if and partition_if: out holds all n (partition) or the first *k (select). */
static int run_cmp(file_job *job, cmp_fn fn, bool keep_all, size_t *k) {
  if (job->o.op_source)
    return run_select_user_op(job, keep_all, k);
  const aio_array *in = &job->in[0];
  uint64_t value[1];
  if (!job_parse_value(job, "--value", job->o.value, in->type, value))
    return EXIT_USAGE;
  if (!job_alloc_out(job, 0, in->type, in->n))
    return 1;
  pscan_status s = fn(job->ctx, job->in_lib[0], job->out_lib[0], in->n, in->type,
                      (pscan_cmp)job->o.cmp, value, k);
  if (!keep_all)
    job->out_n[0] = *k;
  return status_exit(job, s);
}

static int run_select(file_job *job) {
  size_t k = 0;
  return run_cmp(job, pscan_select_if, false, &k);
}

static int run_partition(file_job *job) {
  size_t k = 0;
  int rc = run_cmp(job, pscan_partition_if, true, &k);
  if (rc != 0)
    return rc;
  if (!job->o.count_out) {
    fprintf(stderr, "pscan partition: %zu of %zu selected\n", k, job->in[0].n);
    return 0;
  }
  job->out_path[1] = job->o.count_out;
  if (!job_alloc_host_out(job, 1, PSCAN_U64, 1))
    return 1;
  uint64_t count = k;
  memcpy(job->out[1], &count, sizeof count);
  return 0;
}

/* Flags of any integer type become bytes 0/1. */
static bool flags_as_bytes(file_job *job, uint8_t **bytes) {
  const aio_array *f = &job->in[1];
  if (cli_dtype_is_float(f->type)) {
    cli_error(job->cmd->name, "%s: flags must be integers, not %s", job->in_path[1],
              cli_dtype_name(f->type));
    return false;
  }
  *bytes = malloc(f->n ? f->n : 1);
  if (!*bytes) {
    cli_error(job->cmd->name, "out of memory");
    return false;
  }
  size_t size = pscan_dtype_size(f->type);
  const uint8_t *p = f->data;
  for (size_t i = 0; i < f->n; i++, p += size) {
    uint8_t any = 0;
    for (size_t b = 0; b < size; b++)
      any |= p[b];
    (*bytes)[i] = any != 0;
  }
  return true;
}

static int run_select_flagged(file_job *job) {
  const aio_array *in = &job->in[0];
  uint8_t *flags;
  const void *lib_flags;
  if (!flags_as_bytes(job, &flags))
    return 1;
  bool ready =
      job_lib_input(job, flags, in->n, &lib_flags) && job_alloc_out(job, 0, in->type, in->n);
  size_t k = 0;
  pscan_status s = PSCAN_OK;
  if (ready)
    s = pscan_select_flagged(job->ctx, job->in_lib[0], lib_flags, job->out_lib[0], in->n, in->type,
                             &k);
  free(flags);
  job->out_n[0] = k;
  return ready ? status_exit(job, s) : 1;
}

static int run_unique(file_job *job) {
  const aio_array *in = &job->in[0];
  if (!job_alloc_out(job, 0, in->type, in->n))
    return 1;
  pscan_status s = pscan_unique(job->ctx, job->in_lib[0], job->out_lib[0], in->n, in->type,
                                &job->out_n[0]);
  return status_exit(job, s);
}

static int run_rle(file_job *job) {
  const aio_array *in = &job->in[0];
  if (!job_alloc_out(job, 0, in->type, in->n) || !job_alloc_out(job, 1, PSCAN_U64, in->n))
    return 1;
  size_t runs = 0;
  pscan_status s = pscan_run_length_encode(job->ctx, job->in_lib[0], job->out_lib[0],
                                           job->out_lib[1], in->n, in->type, &runs);
  job->out_n[0] = job->out_n[1] = runs;
  return status_exit(job, s);
}

static int run_reduce_by_key(file_job *job) {
  if (job->o.op_source)
    return run_reduce_by_key_user_op(job);
  const aio_array *keys = &job->in[0], *vals = &job->in[1];
  if (!check_op(job, vals->type, job->in_path[1]))
    return EXIT_USAGE;
  if (!job_alloc_out(job, 0, keys->type, keys->n) || !job_alloc_out(job, 1, vals->type, vals->n))
    return 1;
  size_t runs = 0;
  pscan_status s = pscan_reduce_by_key(job->ctx, job->in_lib[0], keys->type, job->in_lib[1],
                                       vals->type, job->out_lib[0], job->out_lib[1], keys->n,
                                       job->o.op, &runs);
  job->out_n[0] = job->out_n[1] = runs;
  return status_exit(job, s);
}

/* ---- the commands ---- */

static const file_cmd scan_cmd = {
    "scan",
    OPT_OP | OPT_USER_OP | OPT_USER_IDENTITY | OPT_EXCLUSIVE | OPT_INIT | OPT_OUT_DTYPE | OPT_AXIS,
    1, 1, {ROLE_DATA}, "IN OUT",
    "Writes the prefix scan of IN to OUT: out[i] = in[0] op ... op in[i] (inclusive), or\n"
    "init op in[0] op ... op in[i-1] with out[0] = init (--exclusive). Integer sums and products\n"
    "wrap around; float min and max propagate NaN. --out-dtype widens the accumulation and the\n"
    "output (i32 -> i64, u8 -> u64, f32 -> f64, ...). --init is read in the output type.\n"
    "A .npy IN of several dimensions is scanned along --axis K, each line on its own\n"
    "(numpy.cumsum(x, axis=K)); OUT has IN's shape. --reverse scans from the end.\n"
    "--op-source scans with your own operator T FN(T a, T b) (associative), compiled at run\n"
    "time (the system C compiler, or NVRTC on the GPU; cached): an element of type T is one\n"
    "value of IN, or the last axis of a .npy of 2+ dimensions (shape (n, 2) float32: n pairs);\n"
    "--init and --op-identity are then an element's values, 'V,V'. The source must be valid\n"
    "C11 and CUDA C alike.",
    "  pscan scan data.npy prefix.npy                  inclusive sum, .npy in and out\n"
    "  pscan scan --op max --exclusive in.txt out.txt  running maximum before each element\n"
    "  pscan scan --dtype u8 --out-dtype u64 img.raw sums.npy   widen bytes while summing\n"
    "  seq 10 | pscan scan - -                         text from stdin to stdout\n"
    "  pscan scan --axis 0 m.npy colsums.npy           running sums down each column\n"
    "  pscan scan --op-source affine.c --op-type affine --op-fn compose --op-identity 1,0 \\\n"
    "             ab.npy h.npy       h[t] = a[t] h[t-1] + b[t]: ab.npy (n, 2) f32, see docs/CLI.md\n",
    run_scan};

static const file_cmd reduce_cmd = {
    "reduce", OPT_OP | OPT_USER_OP | OPT_USER_IDENTITY | OPT_INIT | OPT_OUT_DTYPE, 1, 1,
    {ROLE_DATA}, "IN OUT",
    "Writes one element to OUT: init op in[0] op ... op in[n-1] over all of IN (1-D), the\n"
    "last element of 'pscan scan' with IN read once and nothing else stored (pscan_reduce). An\n"
    "empty IN gives --init, or the op's identity. Types and --out-dtype as for scan; float sums\n"
    "and products may differ from the scan's last element in the last bits (another order).\n"
    "--op-source reduces with your own operator, as for scan (pscan_reduce_op): OUT is one\n"
    "element, its values.",
    "  pscan reduce data.npy total.npy                 the sum, as a 1-element .npy\n"
    "  seq 100 | pscan reduce --out-dtype i64 - -      5050 on stdout\n"
    "  pscan reduce --op max in.txt -                  the largest element\n",
    run_reduce};

static const file_cmd select_cmd = {
    "select", OPT_CMP | OPT_USER_OP, 1, 1, {ROLE_DATA},
    "IN OUT",
    "Writes the elements x of IN for which 'x CMP VALUE' holds, in order (pscan_select_if).\n"
    "Or your own predicate instead of --cmp and --value: --op-source FILE defines int FN(T x),\n"
    "nonzero keeps x, compiled at run time; elements as for 'pscan scan --op-source'.",
    "  pscan select --cmp gt --value 0 in.npy positive.npy\n"
    "  pscan select --cmp ne --value 7 --dtype i32 in.raw out.txt\n"
    "  pscan select --op-source inside.c --op-type point --op-fn inside xy.npy kept.npy\n",
    run_select};

static const file_cmd select_flagged_cmd = {
    "select-flagged", OPT_FLAGS_DTYPE, 2, 1,
    {ROLE_DATA, ROLE_FLAGS}, "IN FLAGS OUT",
    "Writes the elements of IN whose flag in FLAGS (same length, any integer type; a NumPy bool\n"
    "array too) is non-zero, in order (pscan_select_flagged).",
    "  pscan select-flagged values.npy mask.npy kept.npy\n"
    "  pscan select-flagged --flags-dtype i32 in.txt flags.txt out.txt\n",
    run_select_flagged};

static const file_cmd partition_cmd = {
    "partition", OPT_CMP | OPT_COUNT_OUT | OPT_USER_OP, 1, 1,
    {ROLE_DATA}, "IN OUT",
    "Writes all of IN to OUT: first the elements x with 'x CMP VALUE', in order, then the others\n"
    "in reverse order (pscan_partition_if). The number selected (where the second part starts)\n"
    "is printed on stderr as 'pscan partition: K of N selected', or written to --count-out FILE\n"
    "(one u64, in FILE's format: 'K' as text, or a 1-element .npy) and then not printed.\n"
    "--op-source: your own predicate instead, as for 'pscan select'.",
    "  pscan partition --cmp lt --value 100 in.npy out.npy\n"
    "  pscan partition --cmp ge --value 0.5 --count-out k.txt in.npy out.npy\n",
    run_partition};

static const file_cmd unique_cmd = {
    "unique", 0, 1, 1, {ROLE_DATA}, "IN OUT",
    "Writes the first element of each run of equal consecutive elements of IN (pscan_unique;\n"
    "like 'uniq'; sort first for distinct values). Floats compare with ==, so NaNs all stay.",
    "  pscan unique sorted.npy distinct.npy\n", run_unique};

static const file_cmd rle_cmd = {
    "rle", 0, 1, 2, {ROLE_DATA},
    "IN VALUES_OUT COUNTS_OUT",
    "Writes one value per maximal run of equal consecutive elements of IN to VALUES_OUT, and\n"
    "the run's length (u64) to COUNTS_OUT (pscan_run_length_encode).",
    "  pscan rle in.npy values.npy counts.npy\n"
    "  printf '1 1 2 2 2 1' | pscan rle - values.txt counts.txt\n",
    run_rle};

static const file_cmd reduce_by_key_cmd = {
    "reduce-by-key", OPT_OP | OPT_USER_OP | OPT_KEY_DTYPE, 2, 2,
    {ROLE_KEYS, ROLE_DATA}, "KEYS VALS KEYS_OUT VALS_OUT",
    "For each run of equal consecutive keys in KEYS, writes the key to KEYS_OUT and the op-\n"
    "reduction of the matching elements of VALS (same length) to VALS_OUT (pscan_reduce_by_key).",
    "  pscan reduce-by-key keys.npy vals.npy k.npy sums.npy\n"
    "  pscan reduce-by-key --op max --key-dtype i32 --dtype f64 k.txt v.txt ko.txt vo.txt\n",
    run_reduce_by_key};

static const file_cmd scan_by_key_cmd = {
    "scan-by-key",
    OPT_OP | OPT_USER_OP | OPT_USER_IDENTITY | OPT_EXCLUSIVE | OPT_INIT | OPT_KEY_DTYPE, 2, 1,
    {ROLE_KEYS, ROLE_DATA}, "KEYS VALS OUT",
    "Scans VALS, restarting at each run of equal consecutive keys in KEYS (same length)\n"
    "(pscan_scan_by_key). --init, in VALS' type, starts every segment.",
    "  pscan scan-by-key keys.npy vals.npy out.npy\n"
    "  pscan scan-by-key --exclusive --op prod keys.txt vals.txt out.txt\n"
    "  pscan scan-by-key --op-source affine.c --op-type affine --op-fn compose ids.npy ab.npy h.npy\n",
    run_scan_by_key};

/* The entry points named in main.c's command table. */
#define FILE_COMMAND(fn, def) \
  int fn(int argc, char **argv) { return file_cmd_main(&def, argc, argv); }
FILE_COMMAND(cmd_scan, scan_cmd)
FILE_COMMAND(cmd_reduce, reduce_cmd)
FILE_COMMAND(cmd_select, select_cmd)
FILE_COMMAND(cmd_select_flagged, select_flagged_cmd)
FILE_COMMAND(cmd_partition, partition_cmd)
FILE_COMMAND(cmd_unique, unique_cmd)
FILE_COMMAND(cmd_rle, rle_cmd)
FILE_COMMAND(cmd_reduce_by_key, reduce_by_key_cmd)
FILE_COMMAND(cmd_scan_by_key, scan_by_key_cmd)
