/* The command line of the file subcommands (file_args.h). Options are a table: each entry names
 * the command flag that enables it, its spelling, its value and its help line, and a setter;
 * parsing and --help both walk the table. Then the checks of the arguments that need no file. */
#include "file_args.h"
#include "lists.h"
#include "cli/cli.h"
#include "io/safe_out.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

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
  /* set NULL: the value's text is stored as is, at this offset of file_opts (a const char *) */
  size_t text_at;
} opt_def;
#define TEXT(field) NULL, offsetof(file_opts, field)

/* Stores or parses option d's value v into o. */
static bool set_option(const opt_def *d, const char *cmd, file_opts *o, const char *v) {
  if (d->set)
    return d->set(cmd, o, v);
  memcpy((char *)o + d->text_at, &v, sizeof v);
  return true;
}

static bool bad_choice(const char *cmd, const char *opt, const char *v, const char *choices) {
  cli_usage_error(cmd, "%s: unknown value '%s' (%s)", opt, v, choices);
  return false;
}

static bool set_op(const char *cmd, file_opts *o, const char *v) {
  int k = lookup(op_names, PSCAN_OP_COUNT, v);
  o->op = (pscan_op)k;
  o->op_given = true;
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
     set_op, 0},
    {OPT_USER_OP, "--op-source", "FILE", "your own operator or predicate: C source, compiled",
     TEXT(op_source)},
    {0, NULL, NULL, "  at run time, that defines FN and its element type (see above)", NULL, 0},
    {OPT_USER_OP, "--op-fn", "FN", "the function in --op-source (required with it)",
     TEXT(op_fn)},
    {OPT_USER_OP, "--op-type", "T", "its element type (default: the C type of IN's dtype; a",
     TEXT(op_type)},
    {0, NULL, NULL, "  struct's name when each element is the last axis of a .npy)", NULL, 0},
    {OPT_USER_IDENTITY, "--op-identity", "V,..", "its identity, the element's values in IN's dtype",
     TEXT(op_identity)},
    {0, NULL, NULL, "  (optional: faster on the GPU; lets --exclusive go without --init)", NULL, 0},
    {OPT_EXCLUSIVE, "--exclusive", NULL, "exclusive: out[i] combines in[0..i-1], out[0] = init",
     set_exclusive, 0},
    {OPT_INIT, "--init", "VALUE", "start value (default: the op's identity)", TEXT(init)},
    {OPT_AXIS, "--axis", "K", "scan along dimension K of a .npy array (-1: the last; needed",
     set_axis, 0},
    {0, NULL, NULL, "  for 2 or more dimensions), every line on its own", NULL, 0},
    {OPT_AXIS, "--reverse", NULL, "scan from the end towards the start", set_reverse, 0},
    {OPT_OUT_DTYPE, "--out-dtype", "T", "output type: IN's type or a wider one of its kind",
     set_out_dtype, 0},
    {OPT_CMP, "--cmp", "CMP", "lt le gt ge eq ne: keep x where 'x CMP VALUE' (required",
     set_cmp, 0},
    {0, NULL, NULL, "  unless --op-source gives a predicate)", NULL, 0},
    {OPT_CMP, "--value", "V", "the value compared with (required; in IN's type)", TEXT(value)},
    {OPT_COUNT_OUT, "--count-out", "FILE", "write the number selected to FILE (else: stderr)",
     TEXT(count_out)},
    {OPT_COMMON, "--dtype", "T", "type of a text or raw data file (text default i64)", set_dtype, 0},
    {OPT_KEY_DTYPE, "--key-dtype", "T", "type of a text or raw KEYS file (default: --dtype)",
     set_key_dtype, 0},
    {OPT_FLAGS_DTYPE, "--flags-dtype", "T", "type of a text or raw FLAGS file (default u8)",
     set_flags_dtype, 0},
    {OPT_COMMON, "--backend", "B", "auto cpu cuda (default auto: the GPU from 2^20 elements",
     set_backend, 0},
    {0, NULL, NULL, "  when built with CUDA and a GPU is usable, else the CPU)", NULL, 0},
    {OPT_COMMON, "--threads", "N", "CPU worker threads, 0 = all cores (default 0)", set_threads, 0},
    {OPT_COMMON, "--algo", "NAME", "scan algorithm: auto sequential decoupled-lookback chained",
     set_algo, 0},
    {0, NULL, NULL, "  reduce-then-scan scan-then-propagate", NULL, 0},
    {OPT_COMMON, "--deterministic", NULL, "bitwise reproducible float results", set_deterministic, 0},
};
enum { NOPTIONS = sizeof options / sizeof options[0] };

/* ---- help ---- */

static void print_help(const file_cmd *cmd) {
  printf("usage: pscan %s [OPTIONS] %s\n\n%s\n\noptions:\n", cmd->name, cmd->args, cmd->about);
  bool shown = false; /* the last option named: a continuation line (no name) goes with it */
  for (int k = 0; k < NOPTIONS; k++) {
    const opt_def *d = &options[k];
    if (!d->name) {
      if (shown)
        printf("  %-20s  %s\n", "", d->help);
      continue;
    }
    shown = ((cmd->opts | OPT_COMMON) & d->flag) != 0;
    if (!shown)
      continue;
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
      return r < 0 || !set_option(d, cmd->name, o, v) ? -1 : 1;
  }
  return 0;
}

/* Fills o and the positional arguments; returns -1 (usage error), 0 (done: help), 1 (go on). */
int file_parse_args(const file_cmd *cmd, int argc, char **argv, file_job *job) {
  file_opts *o = &job->o;
  *o = (file_opts){.op = PSCAN_SUM, .cmp = -1, .dtype = AIO_NO_TYPE, .key_dtype = AIO_NO_TYPE,
                   .flags_dtype = AIO_NO_TYPE, .out_dtype = AIO_NO_TYPE,
                   .backend = PSCAN_BACKEND_AUTO, .algo = -1, .axis = -1};
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
  if ((cmd->opts & OPT_CMP) && o->op_source && (o->cmp >= 0 || o->value))
    return cli_usage_error(cmd->name, "--cmp/--value and --op-source: give one predicate"), -1;
  if ((cmd->opts & OPT_CMP) && !o->op_source && (o->cmp < 0 || !o->value))
    return cli_usage_error(cmd->name, "--cmp and --value are required (or --op-source)"), -1;
  if (!o->op_source && (o->op_fn || o->op_type || o->op_identity))
    return cli_usage_error(cmd->name, "--op-fn, --op-type and --op-identity go with --op-source"),
           -1;
  if (o->op_source && o->op_given)
    return cli_usage_error(cmd->name, "--op and --op-source: give one operator"), -1;
  if (o->op_source && !o->op_fn)
    return cli_usage_error(cmd->name, "--op-source needs --op-fn (the operator's function)"), -1;
  for (int k = 0; k < cmd->nin; k++)
    job->in_path[k] = pos[k];
  for (int k = 0; k < cmd->nout; k++)
    job->out_path[k] = pos[cmd->nin + k];
  return 1;
}

/* '-' may be read once and written once. */
bool file_check_dashes(const file_job *job) {
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
bool file_check_distinct_outputs(const file_job *job) {
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
bool file_check_outputs(const file_job *job) {
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

/* Options that cannot go together whatever the files hold. */
bool file_check_combinations(const file_job *job) {
  const file_opts *o = &job->o;
  if (o->algo == PSCAN_ALGO_SEQUENTIAL && o->backend == PSCAN_BACKEND_CUDA) {
    cli_usage_error(job->cmd->name, "--algo sequential runs on the CPU only; drop --backend cuda");
    return false;
  }
  return true;
}

const char *file_backend_name(pscan_backend b) {
  return backend_names[b];
}
