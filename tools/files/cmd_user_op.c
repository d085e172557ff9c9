/* `pscan scan`, `pscan reduce`, `pscan scan-by-key` and `pscan reduce-by-key` with your own
 * operator, `pscan select` and `pscan partition` with your own predicate: --op-source FILE
 * --op-fn FN [--op-type T] [--op-identity V,..] (operators only). The source is compiled at run
 * time by the library (pscan_op_create: the system C compiler for the CPU, NVRTC for the GPU;
 * both cache what they compiled), so it must be valid C11 and CUDA C alike, as pscan.h asks.
 *
 * An element of the operator's type is K consecutive values of IN's dtype (VALS' for the by-key
 * commands): the last axis of a .npy array of two or more dimensions (shape (n, 2) float32: n
 * affine maps (a, b)), else one value. The elements form an array of IN's other dimensions,
 * scanned along --axis as pscan_scan_axis scans; the output has IN's type and shape. */
#define _POSIX_C_SOURCE 200809L
#include "cmd_user_op.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source file larger than this is refused: an operator is a few lines. */
enum { SOURCE_MAX = 1 << 20 };

typedef struct uop_layout {
  size_t values;    /* K: values of IN's dtype per element */
  size_t elem_size; /* bytes of an element */
  size_t n;         /* elements */
  int ndim;         /* of the array of elements, >= 1 */
  int64_t shape[AIO_MAX_DIMS];
} uop_layout;

/* The C type of one value of t: the default --op-type of elements of one value. */
static const char *c_type_of(pscan_dtype t) {
  static const char *const names[PSCAN_DTYPE_COUNT] = {
      "signed char",   "short",          "int",          "long long", "unsigned char",
      "unsigned short", "unsigned int", "unsigned long long", "float", "double"};
  return names[t];
}

/* The elements of input `data`; also the checks of the options against the layout (usage
   errors). */
static bool layout_of(const file_job *job, int data, uop_layout *l) {
  const aio_array *in = &job->in[data];
  if (job->o.out_dtype != AIO_NO_TYPE) {
    cli_usage_error(job->cmd->name, "--out-dtype does not apply to --op-source: the output has "
                    "the operator's type");
    return false;
  }
  bool last_axis = in->ndim > 1;
  l->values = last_axis ? in->shape[in->ndim - 1] : 1;
  if (l->values == 0) {
    cli_usage_error(job->cmd->name, "%s: its last axis, the elements of --op-type, is empty",
                    job->in_path[data]);
    return false;
  }
  l->elem_size = l->values * pscan_dtype_size(in->type);
  l->n = in->n / l->values;
  l->ndim = last_axis ? in->ndim - 1 : 1;
  for (int d = 0; d < l->ndim; d++)
    l->shape[d] = (int64_t)(last_axis ? in->shape[d] : in->n);
  if (l->values > 1 && !job->o.op_type) {
    cli_usage_error(job->cmd->name, "%s: each element holds %zu values (its last axis): name "
                    "their type in --op-source with --op-type", job->in_path[data], l->values);
    return false;
  }
  return job_check_axis(job, l->ndim, " of elements (its last axis is the element)");
}

/* Parses "V,V,..": exactly l->values values of t, into out (l->elem_size bytes). */
static bool parse_values(const file_job *job, const char *opt, const char *text, pscan_dtype t,
                         const uop_layout *l, char *out) {
  char *copy = strdup(text), *save = NULL;
  if (!copy) {
    cli_error(job->cmd->name, "out of memory");
    return false;
  }
  size_t count = 0, size = pscan_dtype_size(t);
  bool good = true;
  for (char *v = strtok_r(copy, ", ", &save); v && good; v = strtok_r(NULL, ", ", &save)) {
    if (count == l->values) {
      count++;
      break;
    }
    good = job_parse_value(job, opt, v, t, out + count++ * size);
  }
  free(copy);
  if (good && count != l->values)
    cli_usage_error(job->cmd->name, "%s: an element is %zu value%s of %s, separated by commas",
                    opt, l->values, l->values == 1 ? "" : "s", cli_dtype_name(t));
  return good && count == l->values;
}

/* The whole source file as a string (malloc'd); NULL after saying why. */
static char *read_source(const file_job *job) {
  const char *path = job->o.op_source;
  FILE *f = fopen(path, "rb");
  if (!f) {
    cli_error(job->cmd->name, "%s: %s", path, strerror(errno));
    return NULL;
  }
  char *text = malloc(SOURCE_MAX + 1);
  size_t len = text ? fread(text, 1, SOURCE_MAX + 1, f) : 0;
  bool failed = ferror(f) != 0;
  fclose(f);
  if (!text || failed || len > SOURCE_MAX) {
    cli_error(job->cmd->name, "%s: %s", path,
              !text ? "out of memory" : failed ? "read error" : "larger than 1 MiB: not an operator");
    free(text);
    return NULL;
  }
  text[len] = '\0';
  if (strlen(text) != len) {
    cli_error(job->cmd->name, "%s: holds a NUL byte: not C source", path);
    free(text);
    return NULL;
  }
  return text;
}

/* The operator, compiled (or found in the cache) for the job's context; NULL after saying why. */
static pscan_user_op *make_op(file_job *job, const uop_layout *l, pscan_dtype t,
                              pscan_op_kind kind, const void *identity) {
  char *source = read_source(job);
  if (!source)
    return NULL;
  pscan_op_desc d = {.kind = kind,
                     .source = source,
                     .type_name = job->o.op_type ? job->o.op_type : c_type_of(t),
                     .name = job->o.op_fn,
                     .elem_size = l->elem_size,
                     .identity = identity};
  pscan_user_op *op = NULL;
  pscan_status s = pscan_op_create(job->ctx, &d, &op);
  free(source);
  if (s != PSCAN_OK) {
    cli_error(job->cmd->name, "%s: %s: %s", job->o.op_source, pscan_status_name(s),
              pscan_last_error(job->ctx));
    return NULL;
  }
  return op;
}

/* --op-identity and --init as elements of values of t; false after a usage error. */
static bool element_values(const file_job *job, const uop_layout *l, pscan_dtype t,
                           char *identity, char *init) {
  return (!job->o.op_identity ||
          parse_values(job, "--op-identity", job->o.op_identity, t, l, identity)) &&
         (!job->o.init || parse_values(job, "--init", job->o.init, t, l, init));
}

static int scan_elements(file_job *job, const uop_layout *l, const pscan_user_op *op,
                         const void *init) {
  const aio_array *in = &job->in[0];
  job->out_ndim[0] = in->ndim;
  for (int d = 0; d < in->ndim; d++)
    job->out_shape[0][d] = in->shape[d];
  pscan_status s;
  if (l->ndim == 1 && !job->o.reverse) {
    s = pscan_scan_op(job->ctx, job->in_lib[0], job->out_lib[0], l->n, op, job->o.exclusive,
                      init);
  } else {
    pscan_axis_args a = {.in = job->in_lib[0], .in_type = in->type, .out = job->out_lib[0],
                         .out_type = in->type, .ndim = l->ndim, .shape = l->shape,
                         .axis = job->o.axis_given ? job->o.axis : -1, .user_op = op,
                         .exclusive = job->o.exclusive, .reverse = job->o.reverse,
                         .init = init};
    s = pscan_scan_axis(job->ctx, &a);
  }
  return s == PSCAN_OK ? 0 : job_lib_error(job, s);
}

/* What every command holds: the layout, the identity's and init's elements, the operator. */
typedef struct uop_job {
  uop_layout l;
  char *identity, *init; /* l.elem_size bytes each */
  pscan_user_op *op;
} uop_job;

/* Lays out the elements of input `data`, parses --op-identity and --init, compiles the
   operator (a COMBINE one, or with predicate a PREDICATE): -1 to go on, else the exit status
   (after saying why). */
static int uop_begin(file_job *job, uop_job *u, bool predicate, int data) {
  *u = (uop_job){0};
  if (!layout_of(job, data, &u->l))
    return EXIT_USAGE;
  u->identity = malloc(u->l.elem_size);
  u->init = malloc(u->l.elem_size);
  if (!u->identity || !u->init)
    return cli_error(job->cmd->name, "out of memory"), 1;
  pscan_dtype t = job->in[data].type;
  if (!element_values(job, &u->l, t, u->identity, u->init))
    return EXIT_USAGE;
  u->op = make_op(job, &u->l, t, predicate ? PSCAN_KIND_PREDICATE : PSCAN_KIND_COMBINE,
                  job->o.op_identity ? u->identity : NULL);
  return u->op ? -1 : 1;
}

static int uop_end(uop_job *u, int rc) {
  pscan_op_destroy(u->op);
  free(u->identity);
  free(u->init);
  return rc;
}

int run_scan_user_op(file_job *job) {
  uop_job u;
  int rc = uop_begin(job, &u, false, 0);
  if (rc < 0)
    rc = job_alloc_out(job, 0, job->in[0].type, job->in[0].n)
             ? scan_elements(job, &u.l, u.op, job->o.init ? u.init : NULL)
             : 1;
  return uop_end(&u, rc);
}

int run_reduce_user_op(file_job *job) {
  uop_job u;
  int rc = uop_begin(job, &u, false, 0);
  if (rc < 0 && !job_alloc_host_out(job, 0, job->in[0].type, u.l.values)) /* the call waits */
    rc = 1;
  if (rc < 0) {
    pscan_status s = pscan_reduce_op(job->ctx, job->in_lib[0], u.l.n, u.op,
                                     job->o.init ? u.init : NULL, job->out[0]);
    rc = s == PSCAN_OK ? 0 : job_lib_error(job, s);
  }
  return uop_end(&u, rc);
}

int run_select_user_op(file_job *job, bool partition, size_t *k) {
  uop_job u;
  int rc = uop_begin(job, &u, true, 0);
  const aio_array *in = &job->in[0];
  if (rc < 0 && !job_alloc_out(job, 0, in->type, in->n))
    rc = 1;
  if (rc < 0) {
    pscan_status s = (partition ? pscan_partition_op : pscan_select_op)(
        job->ctx, job->in_lib[0], job->out_lib[0], u.l.n, u.op, k);
    rc = s == PSCAN_OK ? 0 : job_lib_error(job, s);
  }
  if (rc == 0) { /* OUT: the kept elements (select) or all of them, each of its values */
    if (!partition)
      job->out_n[0] = *k * u.l.values;
    job->out_ndim[0] = in->ndim > 1 ? 2 : 1;
    job->out_shape[0][0] = partition ? u.l.n : *k;
    job->out_shape[0][1] = u.l.values;
  }
  return uop_end(&u, rc);
}

/* VALS_OUT (output 1 of reduce-by-key) or OUT (scan-by-key) as VALS is laid out: runs (or n)
   elements of l->values values. */
static void shape_like_vals(file_job *job, int out, const uop_layout *l, size_t elements) {
  job->out_n[out] = elements * l->values;
  job->out_ndim[out] = job->in[1].ndim;
  job->out_shape[out][0] = elements;
  job->out_shape[out][1] = l->values;
}

int run_scan_by_key_user_op(file_job *job) {
  uop_job u;
  int rc = uop_begin(job, &u, false, 1);
  const aio_array *keys = &job->in[0], *vals = &job->in[1];
  if (rc < 0 && !job_alloc_out(job, 0, vals->type, vals->n))
    rc = 1;
  if (rc < 0) {
    pscan_status s = pscan_scan_by_key_op(job->ctx, job->in_lib[0], keys->type, job->in_lib[1],
                                          job->out_lib[0], u.l.n, u.op, job->o.exclusive,
                                          job->o.init ? u.init : NULL);
    rc = s == PSCAN_OK ? 0 : job_lib_error(job, s);
  }
  if (rc == 0)
    shape_like_vals(job, 0, &u.l, u.l.n);
  return uop_end(&u, rc);
}

int run_reduce_by_key_user_op(file_job *job) {
  uop_job u;
  int rc = uop_begin(job, &u, false, 1);
  const aio_array *keys = &job->in[0], *vals = &job->in[1];
  if (rc < 0 && (!job_alloc_out(job, 0, keys->type, keys->n) ||
                 !job_alloc_out(job, 1, vals->type, vals->n)))
    rc = 1;
  size_t runs = 0;
  if (rc < 0) {
    pscan_status s = pscan_reduce_by_key_op(job->ctx, job->in_lib[0], keys->type, job->in_lib[1],
                                            job->out_lib[0], job->out_lib[1], u.l.n, u.op, &runs);
    rc = s == PSCAN_OK ? 0 : job_lib_error(job, s);
  }
  if (rc == 0) {
    job->out_n[0] = runs;
    shape_like_vals(job, 1, &u.l, runs);
  }
  return uop_end(&u, rc);
}
