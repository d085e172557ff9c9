/* pscan-mpi: scans a sharded .npy set with pscan_mpi_scan.
 *
 *   mpirun -np P pscan-mpi scan [--op OP] [--exclusive] [--dtype T] [--threads N] IN_DIR OUT_DIR
 *
 * IN_DIR holds part-0000.npy, part-0001.npy, ... (1-D, one type; the array is their
 * concatenation). Rank r takes the parts [r*K/P, (r+1)*K/P) of the K parts (a rank may get none),
 * scans them as one shard, and writes each part's slice of the result to OUT_DIR/part-XXXX.npy
 * (written beside the final name and renamed into place only when the whole call succeeded on
 * every rank). --dtype: the accumulation and output type (a wider type of the same kind).
 * Files are read and written through the pscan tool's array layer (tools/io/array_io.c, npy.c).
 * Exit status: 0 done, 1 a failure (on any rank: every rank says so), 2 a wrong command line. */
#define _POSIX_C_SOURCE 200809L
#include "io/array_io.h"
#include "cli/cli.h"
#include "pscan_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char cmd[] = "scan";
static const char *const op_names[PSCAN_OP_COUNT] = {"sum", "prod", "min", "max", "and", "or", "xor"};

typedef struct options {
  pscan_op op;
  int exclusive;
  int out_type; /* AIO_NO_TYPE: the input's */
  long threads;
  const char *in_dir, *out_dir;
} options;

static int usage(int rank) {
  if (rank == 0)
    fprintf(stderr, "usage: mpirun -np P pscan-mpi scan [--op sum|prod|min|max|and|or|xor] "
                    "[--exclusive] [--dtype T] [--threads N] IN_DIR OUT_DIR\n");
  return EXIT_USAGE;
}

static int parse(int argc, char **argv, options *o, int rank) {
  *o = (options){.op = PSCAN_SUM, .out_type = AIO_NO_TYPE};
  if (argc < 2 || strcmp(argv[1], "scan") != 0)
    return usage(rank);
  int positional = 0;
  for (int i = 2; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (cli_is_help(argv[i]))
      return usage(rank);
    if (!strcmp(argv[i], "--exclusive")) {
      o->exclusive = 1;
    } else if ((r = cli_value(cmd, argc, argv, &i, "--op", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      int k = 0;
      while (k < PSCAN_OP_COUNT && strcmp(op_names[k], v) != 0)
        k++;
      if (k == PSCAN_OP_COUNT)
        return cli_usage_error(cmd, "unknown --op '%s'", v);
      o->op = (pscan_op)k;
    } else if ((r = cli_value(cmd, argc, argv, &i, "--dtype", &v)) != 0) {
      pscan_dtype t;
      int count = 0;
      if (r < 0 || !cli_parse_types(cmd, "--dtype", v, &t, &count))
        return EXIT_USAGE;
      o->out_type = (int)t;
    } else if ((r = cli_value(cmd, argc, argv, &i, "--threads", &v)) != 0) {
      if (r < 0 || !cli_parse_int(cmd, "--threads", v, 0, CLI_MAX_THREADS, &o->threads))
        return EXIT_USAGE;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else if (positional < 2) {
      *(positional++ == 0 ? &o->in_dir : &o->out_dir) = argv[i];
    } else {
      return cli_usage_error(cmd, "one IN_DIR and one OUT_DIR, not '%s' too", argv[i]);
    }
  }
  return positional == 2 ? 0 : usage(rank);
}

static void part_path(char *buf, size_t len, const char *dir, int k) {
  snprintf(buf, len, "%s/part-%04d.npy", dir, k);
}

/* Every rank's verdict: true when all succeeded. */
static bool all_ok(bool ok) {
  int v = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

typedef struct shard {
  int first, count;  /* this rank's parts */
  aio_array *parts;
  size_t n;
  pscan_dtype type;
  char *in;          /* the parts concatenated (or the one part's data) */
  bool in_owned;
} shard;

static bool load(const options *o, int rank, int nranks, int k, shard *s, aio_err *err) {
  s->first = (int)((long)rank * k / nranks);
  s->count = (int)((long)(rank + 1) * k / nranks) - s->first;
  s->parts = calloc((size_t)s->count + 1, sizeof *s->parts);
  if (!s->parts) {
    aio_errorf(err, "out of memory");
    return false;
  }
  s->type = PSCAN_I64;
  for (int i = 0; i < s->count; i++) {
    char path[4096];
    part_path(path, sizeof path, o->in_dir, s->first + i);
    if (!aio_load(path, AIO_NO_TYPE, &s->parts[i], err))
      return false;
    if (i > 0 && s->parts[i].type != s->type) {
      aio_errorf(err, "%s: type %s, but %s before it", path, cli_dtype_name(s->parts[i].type),
                 cli_dtype_name(s->type));
      return false;
    }
    s->type = s->parts[i].type;
    s->n += s->parts[i].n;
  }
  size_t es = pscan_dtype_size(s->type);
  if (s->count == 1) {
    s->in = (char *)s->parts[0].data;
    return true;
  }
  s->in = malloc(s->n * es + 1);
  s->in_owned = true;
  if (!s->in) {
    aio_errorf(err, "out of memory for %zu elements", s->n);
    return false;
  }
  for (int i = 0, at = 0; i < s->count; at += (int)s->parts[i].n, i++)
    memcpy(s->in + (size_t)at * es, s->parts[i].data, s->parts[i].n * es);
  return true;
}

/* Writes each part's slice of out to temporary files; renames them only once every rank wrote. */
static bool store(const options *o, const shard *s, pscan_dtype t, const char *out, aio_err *err) {
  aio_output *outs = calloc((size_t)s->count + 1, sizeof *outs);
  bool ok = outs != NULL;
  char (*paths)[4096] = calloc((size_t)s->count + 1, sizeof *paths);
  ok = ok && paths;
  size_t at = 0, es = pscan_dtype_size(t);
  for (int i = 0; ok && i < s->count; at += s->parts[i].n, i++) {
    part_path(paths[i], sizeof paths[i], o->out_dir, s->first + i);
    ok = aio_write(&outs[i], paths[i], t, out + at * es, s->parts[i].n, err);
  }
  ok = all_ok(ok);
  for (int i = 0; ok && i < s->count; i++)
    ok = aio_commit(&outs[i], err);
  for (int i = 0; outs && i < s->count; i++)
    aio_discard(&outs[i]);
  free(outs), free(paths);
  return all_ok(ok);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  options o;
  int rc = parse(argc, argv, &o, rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  /* rank 0 counts the parts */
  int k = 0;
  if (rank == 0) {
    char path[4096];
    struct stat st;
    for (;; k++) {
      part_path(path, sizeof path, o.in_dir, k);
      if (stat(path, &st) != 0)
        break;
    }
  }
  MPI_Bcast(&k, 1, MPI_INT, 0, MPI_COMM_WORLD);
  aio_err err = {{0}};
  shard s = {0};
  bool ok = k > 0;
  if (!ok)
    aio_errorf(&err, "%s: no part-0000.npy", o.in_dir);
  ok = ok && load(&o, rank, nranks, k, &s, &err);
  pscan_ctx *ctx = NULL;
  if (ok && pscan_create(&ctx, PSCAN_BACKEND_CPU) != PSCAN_OK) {
    aio_errorf(&err, "pscan_create: %s", pscan_last_error(NULL));
    ok = false;
  }
  if (ok && o.threads > 0)
    pscan_set_param(ctx, PSCAN_PARAM_THREADS, o.threads);
  /* A rank without parts knows no type: it takes the type of the ranks with parts (the largest
     code, should they differ: pscan_mpi_scan then says they disagree). */
  int mine_t = ok && s.count > 0 ? (int)s.type : -1, any_t = -1;
  MPI_Allreduce(&mine_t, &any_t, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (ok && s.count == 0 && any_t >= 0)
    s.type = (pscan_dtype)any_t;
  pscan_dtype out_t = o.out_type == AIO_NO_TYPE ? s.type : (pscan_dtype)o.out_type;
  char *out = ok ? malloc(s.n * pscan_dtype_size(out_t) + 1) : NULL;
  if (ok && !out) {
    aio_errorf(&err, "out of memory");
    ok = false;
  }
  if (!all_ok(ok)) {
    if (err.msg[0])
      fprintf(stderr, "pscan-mpi scan: rank %d: %s\n", rank, err.msg);
    rc = 1;
    goto done;
  }
  /* Every rank agrees on the type, op and flags inside the call (a part set of mixed types
     fails on every rank with the reason). */
  pscan_scan_args a = {.in = s.in, .in_type = s.type, .out = out, .out_type = out_t, .n = s.n,
                       .op = o.op, .exclusive = o.exclusive};
  pscan_status st = pscan_mpi_scan(ctx, MPI_COMM_WORLD, &a);
  if (st != PSCAN_OK) {
    if (rank == 0)
      fprintf(stderr, "pscan-mpi scan: %s: %s\n", pscan_status_name(st), pscan_mpi_last_error(ctx));
    rc = 1;
    goto done;
  }
  if (!store(&o, &s, out_t, out, &err)) {
    if (err.msg[0])
      fprintf(stderr, "pscan-mpi scan: rank %d: %s\n", rank, err.msg);
    rc = 1;
  }
done:
  for (int i = 0; s.parts && i < s.count; i++)
    aio_free(&s.parts[i]);
  if (s.in_owned)
    free(s.in);
  free(s.parts);
  free(out);
  pscan_destroy(ctx);
  MPI_Finalize();
  return rc;
}
