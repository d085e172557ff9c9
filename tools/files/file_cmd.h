/* The machinery shared by the file subcommands (scan, select, ..., scan-by-key; cmd_files.c):
 * one option parser and one --help generator driven by a table of options, and one driver that
 * loads the inputs, makes the context, runs the command and writes its outputs atomically
 * (file_args.c parses, file_cmd.c drives). */
#ifndef PSCAN_TOOL_FILE_CMD_H
#define PSCAN_TOOL_FILE_CMD_H

#include "io/array_io.h"

/* The options a command accepts besides the common ones (--dtype, --backend, --threads, --algo,
   --deterministic). */
enum {
  OPT_OP = 1 << 0,
  OPT_EXCLUSIVE = 1 << 1,
  OPT_INIT = 1 << 2,
  OPT_OUT_DTYPE = 1 << 3,
  OPT_CMP = 1 << 4, /* --cmp and --value, both required */
  OPT_KEY_DTYPE = 1 << 5,
  OPT_FLAGS_DTYPE = 1 << 6,
  OPT_COUNT_OUT = 1 << 7,
  OPT_COMMON = 1 << 8,
  OPT_AXIS = 1 << 9, /* --axis and --reverse; inputs of any dimension (scan) */
  OPT_USER_OP = 1 << 10, /* --op-source, --op-fn, --op-type (cmd_user_op.c) */
  OPT_USER_IDENTITY = 1 << 11 /* --op-identity (operators, not predicates) */
};

typedef struct file_opts {
  pscan_op op;
  bool exclusive;
  const char *init, *value, *count_out; /* texts, parsed once the types are known */
  int cmp;                              /* -1: not given */
  int dtype, key_dtype, flags_dtype, out_dtype; /* AIO_NO_TYPE: not given */
  pscan_backend backend;
  long threads;
  int algo; /* -1: not given */
  bool deterministic;
  bool axis_given, reverse; /* --axis K (axis), --reverse */
  int axis;
  /* your own operator: the source file's path, its function and type, the identity's text */
  const char *op_source, *op_fn, *op_type, *op_identity;
  bool op_given; /* --op was given */
} file_opts;

/* What each input file is: the data, 0/1 flags, or keys; it decides the type option used for a
   text or raw file. */
typedef enum input_role { ROLE_DATA, ROLE_FLAGS, ROLE_KEYS } input_role;

enum { MAX_IN = 2, MAX_OUT = 3, MAX_DEV = MAX_IN + MAX_OUT + 1 };

/* --backend auto runs a file command on the GPU from this many elements of the first input on
   (when the tool is built with CUDA and a GPU is usable); below it, on the CPU. */
#define FILE_AUTO_GPU_MIN ((size_t)1 << 20)

typedef struct file_job file_job;

typedef struct file_cmd {
  const char *name;
  unsigned opts;
  int nin, nout;              /* positional arguments: nin inputs, then nout outputs */
  input_role roles[MAX_IN];
  const char *args;           /* "KEYS VALS OUT" */
  const char *about;          /* what it computes, for --help */
  const char *examples;       /* lines for --help */
  int (*run)(file_job *job);  /* computes the outputs; returns an exit status */
} file_cmd;

struct file_job {
  const file_cmd *cmd;
  file_opts o;
  const char *in_path[MAX_IN], *out_path[MAX_OUT];
  aio_array in[MAX_IN];
  pscan_ctx *ctx;
  bool on_gpu; /* ctx is a CUDA context: the library reads and writes device mirrors */
  /* what the library reads for input k: in[k].data, or its device mirror */
  const void *in_lib[MAX_IN];
  /* set by run: output k holds out_n[k] elements of out_type[k] at out[k] (malloc'd); the
     library writes it at out_lib[k]: out[k], or a device mirror copied back after run */
  void *out[MAX_OUT], *out_lib[MAX_OUT];
  size_t out_n[MAX_OUT];
  pscan_dtype out_type[MAX_OUT];
  int out_ndim[MAX_OUT]; /* set by run for an output of several dimensions (.npy keeps them) */
  size_t out_shape[MAX_OUT][AIO_MAX_DIMS];
  int nout;
  void *dev[MAX_DEV]; /* every device buffer of the job, freed with it */
  int ndev;
  bool exit_usage; /* a failure while loading was a usage error (exit status 2) */
};

/* Parses the command line, loads, runs, writes: the whole subcommand. */
int file_cmd_main(const file_cmd *cmd, int argc, char **argv);

/* For run: parses an option's value text as one element of t into out; a usage error if not. */
bool job_parse_value(const file_job *job, const char *opt, const char *text, pscan_dtype t,
                     void *out);
/* For run: allocates output k for up to n elements of t, and on the GPU its device mirror
   (out_lib[k]), whose first out_n[k] elements are copied to out[k] after run. */
bool job_alloc_out(file_job *job, int k, pscan_dtype t, size_t n);
/* For run: allocates output k in host memory only, for a value run writes itself at out[k]. */
bool job_alloc_host_out(file_job *job, int k, pscan_dtype t, size_t n);
/* For run: the pointer the library reads host[0..bytes) through: host itself on the CPU, a
   device copy on the GPU. false after printing why. */
bool job_lib_input(file_job *job, const void *host, size_t bytes, const void **lib);
/* For run: --axis against the first input's array of ndim dimensions (note: "" or words that
   say what the dimensions are, added to the messages): a usage error when several dimensions
   come without --axis or --axis is out of range. */
bool job_check_axis(const file_job *job, int ndim, const char *note);
/* For run: reports a failed library call, naming the first input; returns 1. */
int job_lib_error(const file_job *job, pscan_status s);

#endif /* PSCAN_TOOL_FILE_CMD_H */
