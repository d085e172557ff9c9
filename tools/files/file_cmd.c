/* The driver of the file subcommands (file_cmd.h): parses the command line (file_args.c), loads
 * the inputs, makes the context, runs the command, and writes its outputs atomically; and the
 * helpers a command's run function calls. */
#define _POSIX_C_SOURCE 200809L
#include "file_cmd.h"
#include "file_args.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "io/device_buf.h"
#include "io/safe_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

bool job_check_axis(const file_job *job, int ndim, const char *note) {
  if (ndim > 1 && !job->o.axis_given) {
    cli_usage_error(job->cmd->name, "%s has %d dimensions%s: say which to scan with --axis",
                    job->in_path[0], ndim, note);
    return false;
  }
  if (job->o.axis_given && (job->o.axis >= ndim || job->o.axis < -1)) {
    cli_usage_error(job->cmd->name, "--axis %d: %s has %d dimension%s%s", job->o.axis,
                    job->in_path[0], ndim, ndim > 1 ? "s" : "", note);
    return false;
  }
  return true;
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

/* Input k as elements of --op-source's type: a 2-D data array, (n, K), n elements of K values. */
static bool user_elements(const file_job *job, int k) {
  return job->o.op_source && job->cmd->roles[k] == ROLE_DATA && job->in[k].ndim == 2;
}
static size_t elements_of(const file_job *job, int k) {
  const aio_array *a = &job->in[k];
  return user_elements(job, k) && a->shape[1] ? a->n / a->shape[1] : a->n;
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
    if (job->in[k].ndim > 1 && !(job->cmd->opts & OPT_AXIS) && !user_elements(job, k)) {
      cli_error(job->cmd->name, "%s: %d dimensions; this command takes 1-D arrays",
                job->in_path[k], job->in[k].ndim);
      return false;
    }
  for (int k = 1; k < job->cmd->nin; k++)
    if (elements_of(job, k) != elements_of(job, 0)) {
      cli_error(job->cmd->name, "%s: %zu elements, but %s has %zu", job->in_path[k],
                elements_of(job, k), job->in_path[0], elements_of(job, 0));
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
    cli_error(job->cmd->name, "--backend %s: %s: %s", file_backend_name(b), pscan_status_name(s),
              why);
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
  int r = file_parse_args(cmd, argc, argv, &job);
  if (r <= 0)
    return r < 0 ? EXIT_USAGE : 0;
  if (!file_check_dashes(&job) || !file_check_distinct_outputs(&job) || !file_check_combinations(&job))
    return EXIT_USAGE;
  if (!file_check_outputs(&job))
    return 1;
  sout_catch_signals(); /* SIGINT, SIGTERM, SIGHUP: temporary files removed, 128 + signal */
  aio_catch_sigbus(cmd->name);
  int rc = run_job(&job);
  job_free(&job);
  return rc;
}
