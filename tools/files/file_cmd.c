/* One option parser, one --help generator and one driver for the file subcommands (file_cmd.h).
 * Options are a table: each entry names the command flag that enables it, its spelling, its
 * value and its help line, and a setter; parsing and --help both walk the table. */
#define _POSIX_C_SOURCE 200809L
#include "file_cmd.h"
#include "lists.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "io/device_buf.h"
#include "io/safe_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const op_names[] = {
#define X(E, name, int_only) #name,
    PSCAN_OPS(X)
#undef X
};
static const char *const cmp_names[] = {
#define X(E, name) #name,
    PSCAN_CMPS(X)
#undef X
};
static const char *const backend_names[] = {"auto", "cpu", "cuda"};

static int lookup(const char *const *names, int count, const char *v) {
  for (int k = 0; k < count; k++)
    if (strcmp(v, names[k]) == 0)
      return k;
  return -1;
}

/* ---- the option table ---- */

typedef struct opt_def {
  unsigned flag;
  const char *name, *metavar, *help;
  /* v is NULL for a switch; returns false after a usage error */
  bool (*set)(const char *cmd, file_opts *o, const char *v);
} opt_def;

static bool bad_choice(const char *cmd, const char *opt, const char *v, const char *choices) {
  cli_usage_error(cmd, "%s: unknown value '%s' (%s)", opt, v, choices);
  return false;
}

static bool set_op(const char *cmd, file_opts *o, const char *v) {
  int k = lookup(op_names, PSCAN_OP_COUNT, v);
  o->op = (pscan_op)k;
  return k >= 0 || bad_choice(cmd, "--op", v, "sum prod min max and or xor");
}

static bool set_cmp(const char *cmd, file_opts *o, const char *v) {
  o->cmp = lookup(cmp_names, PSCAN_CMP_COUNT, v);
  return o->cmp >= 0 || bad_choice(cmd, "--cmp", v, "lt le gt ge eq ne");
}

static bool set_backend(const char *cmd, file_opts *o, const char *v) {
  int k = lookup(backend_names, 3, v);
  o->backend = (pscan_backend)k;
  return k >= 0 || bad_choice(cmd, "--backend", v, "auto cpu cuda");
}

static bool set_algo(const char *cmd, file_opts *o, const char *v) {
  o->algo = -1;
  for (int a = 0; a < PSCAN_ALGO_COUNT; a++)
    if (strcmp(v, cli_algo_name((pscan_algo)a)) == 0)
      o->algo = a;
  return o->algo >= 0 ||
         bad_choice(cmd, "--algo", v,
                    "auto sequential decoupled-lookback chained reduce-then-scan "
                    "scan-then-propagate");
}

static bool parse_type(const char *cmd, const char *opt, const char *v, int *out) {
  pscan_dtype t[CLI_MAX_LIST];
  int count;
  if (!cli_parse_types(cmd, opt, v, t, &count))
    return false;
  if (count != 1) {
    cli_usage_error(cmd, "%s takes one type", opt);
    return false;
  }
  *out = (int)t[0];
  return true;
}

static bool set_dtype(const char *cmd, file_opts *o, const char *v) {
  return parse_type(cmd, "--dtype", v, &o->dtype);
}
static bool set_key_dtype(const char *cmd, file_opts *o, const char *v) {
  return parse_type(cmd, "--key-dtype", v, &o->key_dtype);
}
static bool set_flags_dtype(const char *cmd, file_opts *o, const char *v) {
  return parse_type(cmd, "--flags-dtype", v, &o->flags_dtype);
}
static bool set_out_dtype(const char *cmd, file_opts *o, const char *v) {
  return parse_type(cmd, "--out-dtype", v, &o->out_dtype);
}
static bool set_threads(const char *cmd, file_opts *o, const char *v) {
  return cli_parse_int(cmd, "--threads", v, 0, CLI_MAX_THREADS, &o->threads);
}
static bool set_init(const char *cmd, file_opts *o, const char *v) {
  (void)cmd;
  o->init = v;
  return true;
}
static bool set_value(const char *cmd, file_opts *o, const char *v) {
  (void)cmd;
  o->value = v;
  return true;
}
static bool set_count_out(const char *cmd, file_opts *o, const char *v) {
  (void)cmd;
  o->count_out = v;
  return true;
}
static bool set_exclusive(const char *cmd, file_opts *o, const char *v) {
  (void)cmd, (void)v;
  o->exclusive = true;
  return true;
}
static bool set_deterministic(const char *cmd, file_opts *o, const char *v) {
  (void)cmd, (void)v;
  o->deterministic = true;
  return true;
}

static bool set_axis(const char *cmd, file_opts *o, const char *v) {
  long k = -1; /* cli_parse_int reads unsigned numbers: -1 (the last) is spelled out here */
  if (strcmp(v, "-1") != 0 && !cli_parse_int(cmd, "--axis", v, 0, AIO_MAX_DIMS - 1, &k))
    return false;
  o->axis = (int)k, o->axis_given = true;
  return true;
}
static bool set_reverse(const char *cmd, file_opts *o, const char *v) {
  (void)cmd, (void)v;
  o->reverse = true;
  return true;
}

static const opt_def options[] = {
    {OPT_OP, "--op", "NAME", "sum prod min max and or xor (default sum; and/or/xor: integers)",
     set_op},
    {OPT_EXCLUSIVE, "--exclusive", NULL, "exclusive: out[i] combines in[0..i-1], out[0] = init",
     set_exclusive},
    {OPT_INIT, "--init", "VALUE", "start value (default: the op's identity)", set_init},
    {OPT_AXIS, "--axis", "K", "scan along dimension K of a .npy array (-1: the last; needed",
     set_axis},
    {0, NULL, NULL, "  for 2 or more dimensions), every line on its own", NULL},
    {OPT_AXIS, "--reverse", NULL, "scan from the end towards the start", set_reverse},
    {OPT_OUT_DTYPE, "--out-dtype", "T", "output type: IN's type or a wider one of its kind",
     set_out_dtype},
    {OPT_CMP, "--cmp", "CMP", "lt le gt ge eq ne: keep x where 'x CMP VALUE' (required)", set_cmp},
    {OPT_CMP, "--value", "V", "the value compared with (required; in IN's type)", set_value},
    {OPT_COUNT_OUT, "--count-out", "FILE", "write the number selected to FILE (else: stderr)",
     set_count_out},
    {OPT_COMMON, "--dtype", "T", "type of a text or raw data file (text default i64)", set_dtype},
    {OPT_KEY_DTYPE, "--key-dtype", "T", "type of a text or raw KEYS file (default: --dtype)",
     set_key_dtype},
    {OPT_FLAGS_DTYPE, "--flags-dtype", "T", "type of a text or raw FLAGS file (default u8)",
     set_flags_dtype},
    {OPT_COMMON, "--backend", "B", "auto cpu cuda (default auto: the GPU from 2^20 elements",
     set_backend},
    {0, NULL, NULL, "  when built with CUDA and a GPU is usable, else the CPU)", NULL},
    {OPT_COMMON, "--threads", "N", "CPU worker threads, 0 = all cores (default 0)", set_threads},
    {OPT_COMMON, "--algo", "NAME", "scan algorithm: auto sequential decoupled-lookback chained",
     set_algo},
    {0, NULL, NULL, "  reduce-then-scan scan-then-propagate", NULL},
    {OPT_COMMON, "--deterministic", NULL, "bitwise reproducible float results", set_deterministic},
};
enum { NOPTIONS = sizeof options / sizeof options[0] };

/* ---- help ---- */

static void print_help(const file_cmd *cmd) {
  printf("usage: pscan %s [OPTIONS] %s\n\n%s\n\noptions:\n", cmd->name, cmd->args, cmd->about);
  for (int k = 0; k < NOPTIONS; k++) {
    const opt_def *d = &options[k];
    if (d->flag != 0 && !((cmd->opts | OPT_COMMON) & d->flag))
      continue;
    if (!d->name) {
      printf("  %-20s  %s\n", "", d->help);
      continue;
    }
    char left[40];
    snprintf(left, sizeof left, "%s%s%s", d->name, d->metavar ? " " : "",
             d->metavar ? d->metavar : "");
    printf("  %-20s  %s\n", left, d->help);
  }
  printf("  %-20s  %s\n", "-h, --help", "this help");
  printf("\nfiles: a name ending in .npy is NumPy (1-D, any byte order), .txt is text (numbers\n"
         "separated by white space, '#' comments), '-' is text on stdin or stdout, anything else\n"
         "raw binary in this machine's byte order (then --dtype is required). Outputs appear\n"
         "only when the command succeeds (written to a temporary file, then renamed over the\n"
         "output, which keeps its mode; a symbolic link is followed to its target; a device\n"
         "or FIFO is written directly). SIGINT, SIGTERM, SIGHUP remove the temporary file.\n"
         "\nexamples:\n%s"
         "\nExit status: 0 success, 1 a file or the computation failed, 2 a usage error.\n"
         "docs/CLI.md has more.\n",
         cmd->examples);
}

/* ---- parsing ---- */

/* Matches argv[*i] against the options cmd accepts: 1 matched, 0 not an option, -1 error. */
static int match_option(const file_cmd *cmd, int argc, char **argv, int *i, file_opts *o) {
  for (int k = 0; k < NOPTIONS; k++) {
    const opt_def *d = &options[k];
    if (!d->name || !((cmd->opts | OPT_COMMON) & d->flag))
      continue;
    const char *v = NULL;
    int r = 1;
    if (d->metavar)
      r = cli_value(cmd->name, argc, argv, i, d->name, &v);
    else if (strcmp(argv[*i], d->name) != 0)
      r = 0;
    if (r != 0)
      return r < 0 || !d->set(cmd->name, o, v) ? -1 : 1;
  }
  return 0;
}

/* Fills o and the positional arguments; returns -1 (usage error), 0 (done: help), 1 (go on). */
static int parse_args(const file_cmd *cmd, int argc, char **argv, file_job *job) {
  file_opts *o = &job->o;
  *o = (file_opts){PSCAN_SUM, false, NULL, NULL, NULL, -1, AIO_NO_TYPE, AIO_NO_TYPE,
                   AIO_NO_TYPE, AIO_NO_TYPE, PSCAN_BACKEND_AUTO, 0, -1, false, false, false, -1};
  const char *pos[MAX_IN + MAX_OUT];
  int npos = 0, want = cmd->nin + cmd->nout;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (cli_is_help(a)) {
      print_help(cmd);
      return 0;
    }
    int r = strcmp(a, "-") != 0 && a[0] == '-' ? match_option(cmd, argc, argv, &i, o) : 0;
    if (r < 0)
      return -1;
    if (r > 0)
      continue;
    if (a[0] == '-' && a[1] != '\0')
      return cli_usage_error(cmd->name, "unknown option '%s'", a), -1;
    if (npos == want)
      return cli_usage_error(cmd->name, "too many arguments ('%s'): expected %s", a, cmd->args), -1;
    pos[npos++] = a;
  }
  if (npos < want)
    return cli_usage_error(cmd->name, "expected %s", cmd->args), -1;
  if ((cmd->opts & OPT_CMP) && (o->cmp < 0 || !o->value))
    return cli_usage_error(cmd->name, "--cmp and --value are required"), -1;
  for (int k = 0; k < cmd->nin; k++)
    job->in_path[k] = pos[k];
  for (int k = 0; k < cmd->nout; k++)
    job->out_path[k] = pos[cmd->nin + k];
  return 1;
}

/* '-' may be read once and written once. */
static bool check_dashes(const file_job *job) {
  int in = 0, out = 0;
  for (int k = 0; k < job->cmd->nin; k++)
    in += strcmp(job->in_path[k], "-") == 0;
  for (int k = 0; k < job->cmd->nout; k++)
    out += strcmp(job->out_path[k], "-") == 0;
  if (job->o.count_out && strcmp(job->o.count_out, "-") == 0)
    out++;
  if (in > 1 || out > 1) {
    cli_usage_error(job->cmd->name, "'-' (stdin or stdout) may appear once as an input and once "
                                    "as an output");
    return false;
  }
  return true;
}

/* Every output path of the job: the positional outputs, then --count-out. */
static int output_paths(const file_job *job, const char **paths) {
  int n = 0;
  for (int k = 0; k < job->cmd->nout; k++)
    paths[n++] = job->out_path[k];
  if (job->o.count_out)
    paths[n++] = job->o.count_out;
  return n;
}

/* Two outputs may not be one file: one of the results would be lost. */
static bool check_distinct_outputs(const file_job *job) {
  const char *paths[MAX_OUT + 1];
  int n = output_paths(job, paths);
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      if (strcmp(paths[a], "-") != 0 && sout_same_file(paths[a], paths[b])) {
        cli_usage_error(job->cmd->name, "'%s' and '%s' are the same file: give each output its "
                                        "own file", paths[a], paths[b]);
        return false;
      }
  return true;
}

/* Each output can be written (not a directory, its directory exists and is writable): found
   before the inputs are read and the work is done. */
static bool check_outputs(const file_job *job) {
  const char *paths[MAX_OUT + 1];
  int n = output_paths(job, paths);
  for (int k = 0; k < n; k++) {
    char why[SOUT_ERR_LEN];
    if (!sout_check(paths[k], why, sizeof why)) {
      cli_error(job->cmd->name, "%s", why);
      return false;
    }
  }
  return true;
}

/* ---- progress on a terminal ---- */

/* From this many bytes of input on, a command run with stderr on a terminal says what it does
   (reading, computing, writing N%), on one line that it clears at the end. */
enum { PROGRESS_MIN_BYTES = 64 << 20 };

typedef struct progress {
  bool on, shown;
  const char *cmd;
  int last_pct;
} progress;

static void progress_say(progress *p, const char *fmt, ...) {
  if (!p->on)
    return;
  char line[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\rpscan %s: %-60.60s", p->cmd, line);
  fflush(stderr);
  p->shown = true;
}

static void progress_write(void *arg, const char *path, double done) {
  progress *p = arg;
  int pct = (int)(done * 100);
  if (pct != p->last_pct) {
    p->last_pct = pct;
    progress_say(p, "writing %d%%: %s", pct, path); /* a long path is cut, not the figure */
  }
}

static void progress_end(progress *p) {
  if (p->shown)
    fprintf(stderr, "\r%-80s\r", "");
  p->shown = false;
  aio_set_progress(NULL, NULL);
}

/* ---- the driver ---- */

bool job_parse_value(const file_job *job, const char *opt, const char *text, pscan_dtype t,
                     void *out) {
  int why = text_parse_value_why(text, t, out);
  if (why == TEXT_VALUE_OK)
    return true;
  if (why == TEXT_VALUE_RANGE)
    cli_usage_error(job->cmd->name, "%s: %s is out of range for %s", opt, text, cli_dtype_name(t));
  else
    cli_usage_error(job->cmd->name, "%s: '%s' is not a valid %s value", opt, text,
                    cli_dtype_name(t));
  return false;
}

/* Names the first input, as every failure message of a job does. */
static const char *first_input(const file_job *job) {
  return strcmp(job->in_path[0], "-") == 0 ? "stdin" : job->in_path[0];
}

static bool device_error(const file_job *job, const dbuf_err *err) {
  cli_error(job->cmd->name, "%s: --backend cuda: %s", first_input(job), err->msg);
  return false;
}

/* A device buffer of bytes, a copy of host unless host is NULL, owned by the job. */
static bool job_device(file_job *job, const void *host, size_t bytes, void **dev) {
  dbuf_err err;
  if (job->ndev == MAX_DEV) {
    snprintf(err.msg, sizeof err.msg, "internal error: too many device buffers");
    return device_error(job, &err);
  }
  if (!(host ? dbuf_upload(dev, host, bytes, &err) : dbuf_alloc(dev, bytes, &err)))
    return device_error(job, &err);
  job->dev[job->ndev++] = *dev;
  return true;
}

bool job_lib_input(file_job *job, const void *host, size_t bytes, const void **lib) {
  void *dev;
  *lib = host;
  if (!job->on_gpu)
    return true;
  if (!job_device(job, host, bytes, &dev))
    return false;
  *lib = dev;
  return true;
}

static bool alloc_out(file_job *job, int k, pscan_dtype t, size_t n, bool mirror) {
  size_t size = pscan_dtype_size(t);
  job->out_type[k] = t;
  job->out_n[k] = n;
  job->out[k] = job->out_lib[k] = n <= SIZE_MAX / size ? malloc(n ? n * size : 1) : NULL;
  if (job->nout <= k)
    job->nout = k + 1;
  if (!job->out[k]) {
    cli_error(job->cmd->name, "out of memory for %zu elements of %s", n, cli_dtype_name(t));
    return false;
  }
  return !mirror || !job->on_gpu || job_device(job, NULL, n * size, &job->out_lib[k]);
}

bool job_alloc_out(file_job *job, int k, pscan_dtype t, size_t n) {
  return alloc_out(job, k, t, n, true);
}

bool job_alloc_host_out(file_job *job, int k, pscan_dtype t, size_t n) {
  return alloc_out(job, k, t, n, false);
}

int job_lib_error(const file_job *job, pscan_status s) {
  cli_error(job->cmd->name, "%s: %s: %s", first_input(job), pscan_status_name(s),
            pscan_last_error(job->ctx));
  return 1;
}

static int input_type(const file_opts *o, input_role role) {
  if (role == ROLE_FLAGS)
    return o->flags_dtype == AIO_NO_TYPE ? PSCAN_U8 : o->flags_dtype;
  if (role == ROLE_KEYS && o->key_dtype != AIO_NO_TYPE)
    return o->key_dtype;
  return o->dtype;
}

/* The type option that names input k's type explicitly (the --dtype default of KEYS does not). */
static int explicit_type(const file_opts *o, input_role role, const char **opt) {
  *opt = role == ROLE_FLAGS ? "--flags-dtype" : role == ROLE_KEYS ? "--key-dtype" : "--dtype";
  return role == ROLE_FLAGS ? o->flags_dtype : role == ROLE_KEYS ? o->key_dtype : o->dtype;
}

/* A .npy file carries its type: a type option that contradicts it is a usage error, not
   silently ignored. */
static bool check_type_option(file_job *job, int k) {
  const char *opt;
  int t = explicit_type(&job->o, job->cmd->roles[k], &opt);
  const aio_array *a = &job->in[k];
  if (t == AIO_NO_TYPE || aio_format_of(job->in_path[k]) != AIO_NPY || t == (int)a->type)
    return true;
  job->exit_usage = true;
  cli_usage_error(job->cmd->name, "%s %s does not apply to %s, a .npy file that holds %s (its "
                  "own type); drop %s%s", opt, cli_dtype_name((pscan_dtype)t), job->in_path[k],
                  a->is_bool ? "bool" : cli_dtype_name(a->type), opt,
                  job->cmd->opts & OPT_OUT_DTYPE ? ", or widen the output with --out-dtype" : "");
  return false;
}

/* A NumPy bool array of VALS summed or multiplied by key becomes i64, as numpy's sum does. */
static bool widen_bool_values(file_job *job, int k) {
  aio_array *a = &job->in[k];
  if (!a->is_bool || (job->o.op != PSCAN_SUM && job->o.op != PSCAN_PROD))
    return true;
  int64_t *wide = malloc(a->n ? a->n * sizeof *wide : 1);
  if (!wide || a->n > SIZE_MAX / sizeof *wide) {
    free(wide);
    cli_error(job->cmd->name, "%s: out of memory", job->in_path[k]);
    return false;
  }
  size_t n = a->n;
  for (size_t i = 0; i < n; i++)
    wide[i] = ((const uint8_t *)a->data)[i];
  aio_free(a);
  *a = (aio_array){.type = PSCAN_I64, .n = n, .data = wide, .owned = wide, .fd = -1};
  return true;
}

static bool load_inputs(file_job *job) {
  for (int k = 0; k < job->cmd->nin; k++) {
    aio_err err;
    const char *path = job->in_path[k];
    if (!aio_load(path, input_type(&job->o, job->cmd->roles[k]), &job->in[k], &err)) {
      cli_error(job->cmd->name, "%s", err.msg);
      return false;
    }
  }
  for (int k = 0; k < job->cmd->nin; k++)
    if (!check_type_option(job, k))
      return false;
  for (int k = 0; k < job->cmd->nin; k++)
    if (job->in[k].ndim > 1 && !(job->cmd->opts & OPT_AXIS)) {
      cli_error(job->cmd->name, "%s: %d dimensions; this command takes 1-D arrays",
                job->in_path[k], job->in[k].ndim);
      return false;
    }
  for (int k = 1; k < job->cmd->nin; k++)
    if (job->in[k].n != job->in[0].n) {
      cli_error(job->cmd->name, "%s: %zu elements, but %s has %zu", job->in_path[k], job->in[k].n,
                job->in_path[0], job->in[0].n);
      return false;
    }
  for (int k = 0; k < job->cmd->nin; k++)
    if ((job->cmd->opts & OPT_KEY_DTYPE) && job->cmd->roles[k] == ROLE_DATA &&
        !widen_bool_values(job, k))
      return false;
  return true;
}

/* The inputs as they were when they were read: a mapped file that changed since (truncated,
   rewritten) may have given the computation torn data, so nothing is written. */
static bool inputs_unchanged(const file_job *job) {
  for (int k = 0; k < job->cmd->nin; k++) {
    aio_err err;
    if (!aio_unchanged(&job->in[k], job->in_path[k], &err)) {
      cli_error(job->cmd->name, "%s", err.msg);
      return false;
    }
  }
  return true;
}

/* --backend auto: the GPU for a large first input when this tool has CUDA and the algorithm is
   one the GPU offers, else the CPU. */
static pscan_backend auto_backend(const file_job *job) {
  const file_opts *o = &job->o;
  if (o->backend != PSCAN_BACKEND_AUTO)
    return o->backend;
  bool gpu = dbuf_built() && job->in[0].n >= FILE_AUTO_GPU_MIN && o->algo != PSCAN_ALGO_SEQUENTIAL;
  return gpu ? PSCAN_BACKEND_CUDA : PSCAN_BACKEND_CPU;
}

static bool create_context(file_job *job) {
  const file_opts *o = &job->o;
  pscan_backend b = auto_backend(job);
  if (b == PSCAN_BACKEND_CUDA && !dbuf_built()) {
    cli_error(job->cmd->name, "--backend cuda: this pscan was built without CUDA "
                              "(PSCAN_ERR_UNSUPPORTED); use --backend cpu");
    return false;
  }
  pscan_status s = pscan_create(&job->ctx, b);
  if (s != PSCAN_OK && o->backend == PSCAN_BACKEND_AUTO && b == PSCAN_BACKEND_CUDA)
    s = pscan_create(&job->ctx, b = PSCAN_BACKEND_CPU); /* no usable GPU: the CPU */
  if (s != PSCAN_OK) {
    const char *why = pscan_last_error(NULL);
    if (s == PSCAN_ERR_NO_DEVICE)
      why = sysinfo_gpu_why(why);
    cli_error(job->cmd->name, "--backend %s: %s: %s", backend_names[b], pscan_status_name(s), why);
    return false;
  }
  job->on_gpu = pscan_get_backend(job->ctx) == PSCAN_BACKEND_CUDA;
  return true;
}

/* The context, and on the GPU the device mirrors of the inputs. */
static bool make_context(file_job *job) {
  const file_opts *o = &job->o;
  if (!create_context(job))
    return false;
  pscan_status s;
  if ((s = pscan_set_param(job->ctx, PSCAN_PARAM_THREADS, o->threads)) != PSCAN_OK ||
      (o->algo >= 0 && (s = pscan_set_param(job->ctx, PSCAN_PARAM_ALGO, o->algo)) != PSCAN_OK) ||
      (s = pscan_set_param(job->ctx, PSCAN_PARAM_DETERMINISTIC, o->deterministic)) != PSCAN_OK) {
    job_lib_error(job, s);
    return false;
  }
  for (int k = 0; k < job->cmd->nin; k++) {
    const aio_array *a = &job->in[k];
    if (!job_lib_input(job, a->data, a->n * pscan_dtype_size(a->type), &job->in_lib[k]))
      return false;
  }
  return true;
}

/* Copies the outputs the library wrote on the GPU back to host memory. */
static bool fetch_outputs(file_job *job) {
  for (int k = 0; k < job->nout; k++) {
    dbuf_err err;
    if (job->out_lib[k] == job->out[k])
      continue;
    size_t bytes = job->out_n[k] * pscan_dtype_size(job->out_type[k]);
    if (!dbuf_download(job->out[k], job->out_lib[k], bytes, &err))
      return device_error(job, &err);
  }
  return true;
}

/* Writes every output to its temporary file (a device or FIFO directly), then renames them all;
   on failure removes them. */
static bool write_outputs(file_job *job) {
  aio_output outs[MAX_OUT];
  memset(outs, 0, sizeof outs);
  aio_err err;
  bool ok = true;
  for (int k = 0; k < job->nout && ok; k++)
    ok = aio_write_shape(&outs[k], job->out_path[k], job->out_type[k], job->out[k],
                         job->out_n[k], job->out_ndim[k], job->out_shape[k], &err);
  for (int k = 0; k < job->nout && ok; k++)
    ok = aio_commit(&outs[k], &err);
  for (int k = 0; k < job->nout; k++)
    aio_discard(&outs[k]);
  if (!ok)
    cli_error(job->cmd->name, "%s", err.msg);
  return ok;
}

static void job_free(file_job *job) {
  for (int k = 0; k < MAX_IN; k++)
    aio_free(&job->in[k]);
  for (int k = 0; k < MAX_OUT; k++)
    free(job->out[k]);
  for (int k = 0; k < job->ndev; k++)
    dbuf_free(job->dev[k]);
  pscan_destroy(job->ctx);
}

/* Options that cannot go together whatever the files hold. */
static bool check_combinations(const file_job *job) {
  const file_opts *o = &job->o;
  if (o->algo == PSCAN_ALGO_SEQUENTIAL && o->backend == PSCAN_BACKEND_CUDA) {
    cli_usage_error(job->cmd->name, "--algo sequential runs on the CPU only; drop --backend cuda");
    return false;
  }
  return true;
}

static size_t input_bytes(const file_job *job) {
  size_t bytes = 0;
  for (int k = 0; k < job->cmd->nin; k++)
    bytes += job->in[k].n * pscan_dtype_size(job->in[k].type);
  return bytes;
}

/* Loads, computes, checks that the inputs did not change, writes. */
static int run_job(file_job *job) {
  const file_cmd *cmd = job->cmd;
  if (!load_inputs(job))
    return job->exit_usage ? EXIT_USAGE : 1;
  progress p = {isatty(STDERR_FILENO) && input_bytes(job) >= PROGRESS_MIN_BYTES, false, cmd->name,
                -1};
  char size[32];
  progress_say(&p, "computing (%s elements)", cli_format_count(job->in[0].n, size, sizeof size));
  int rc = 1;
  if (make_context(job)) {
    rc = cmd->run(job);
    if (rc == 0 && (!fetch_outputs(job) || !inputs_unchanged(job)))
      rc = 1;
    if (p.on)
      aio_set_progress(progress_write, &p);
    if (rc == 0 && !write_outputs(job))
      rc = 1;
  }
  progress_end(&p);
  return rc;
}

int file_cmd_main(const file_cmd *cmd, int argc, char **argv) {
  file_job job = {.cmd = cmd};
  for (int k = 0; k < MAX_IN; k++)
    job.in[k].fd = -1;
  int r = parse_args(cmd, argc, argv, &job);
  if (r <= 0)
    return r < 0 ? EXIT_USAGE : 0;
  if (!check_dashes(&job) || !check_distinct_outputs(&job) || !check_combinations(&job))
    return EXIT_USAGE;
  if (!check_outputs(&job))
    return 1;
  sout_catch_signals(); /* SIGINT, SIGTERM, SIGHUP: temporary files removed, 128 + signal */
  aio_catch_sigbus(cmd->name);
  int rc = run_job(&job);
  job_free(&job);
  return rc;
}
