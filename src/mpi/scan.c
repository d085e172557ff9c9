/* Distributed scans: reduce-then-scan one level up.
 *
 * Each rank reduces its shard to one total, the totals are exclusively scanned across the ranks
 * in rank order (MPI_Exscan with an MPI user op that combines two totals through pscan itself, so
 * the op's semantics — wrapping, NaN, widening, user operators — are the core's), and each rank
 * scans its shard with that prefix as init. Traffic per element, as pscan_mpi.h says: 3n with any
 * operator on either backend (pscan_reduce or pscan_reduce_op reads the shard once, the scan
 * reads and writes it); 2n on the last rank, whose total no one needs, and on a single rank.
 *
 * Order of work, so that a refused call writes nothing and every rank reaches the same
 * collectives: local checks and the reduction (it writes no output); the agreement; the
 * MPI_Exscan; the final scan; a last agreement on the outcome. */
#include "mpi_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { REC_HAS = 1, REC_ERR = 2 };
/* A total as it travels: flags, then the element, padded to 8 bytes. */
typedef struct rec_head {
  uint32_t flags;
  uint32_t pad;
} rec_head;

typedef struct job job;
struct job {
  pscan_ctx *ctx;
  const char *fn;
  const void *in;
  void *out;
  size_t n, in_size, out_size;
  int exclusive;
  const void *init;
  const pscan_scan_args *args; /* pscan_mpi_scan */
  const pscan_user_op *op;     /* pscan_mpi_scan_op */
  pscan_ctx *host;             /* built-ins: a CPU context that combines two totals */
  void *pair;                  /* user operators: 2 elements in ctx's memory for the combine
                                  (allocated on its first use) */
  pscan_status combine_status; /* the first failure inside the MPI user op */
};

static pscan_status local_scan(const job *j, const void *in, void *out, size_t n, int exclusive,
                               const void *init) {
  pscan_status s;
  if (j->args) {
    pscan_scan_args a = *j->args;
    a.in = in, a.out = out, a.n = n, a.exclusive = exclusive, a.init = init;
    s = pscan_scan(j->ctx, &a);
  } else {
    s = pscan_scan_op(j->ctx, in, out, n, j->op, exclusive, init);
  }
  return pscan_mpi__core(j->ctx, s);
}

/* *out = a ⊕ b for two totals in host memory (the reduction of [a, b]). */
static pscan_status combine(job *j, void *out, const void *a, const void *b) {
  size_t e = j->out_size;
  if (j->args) {
    uint64_t pair[2];
    memcpy(&pair[0], a, e);
    memcpy((char *)pair + e, b, e);
    pscan_scan_args c = {.in = pair, .in_type = j->args->out_type,
                         .out_type = j->args->out_type, .n = 2, .op = j->args->op};
    return pscan_mpi__core(j->host, pscan_reduce(j->host, &c, out));
  }
  /* allocated on the first combine (with three ranks or more): an allocation in ctx's memory
     (cudaMalloc, cudaFree) costs more than the rest of a small call */
  if (!j->pair) {
    pscan_status s = pscan_mpi__alloc(j->ctx, 2 * e, &j->pair);
    if (s != PSCAN_OK)
      return s;
  }
  char *p = j->pair;
  pscan_status s = pscan_mpi__write(j->ctx, p, a, e);
  if (s == PSCAN_OK)
    s = pscan_mpi__write(j->ctx, p + e, b, e);
  if (s == PSCAN_OK) /* (a host total: the call waits for it) */
    s = pscan_mpi__core(j->ctx, pscan_reduce_op(j->ctx, p, 2, j->op, NULL, out));
  return s;
}

/* ---- MPI_Exscan of the totals: the user op finds the job through an attribute of the datatype
   it is given, so it needs no global state, whichever thread applies it. ---- */

static int job_key = MPI_KEYVAL_INVALID;
static void make_keyval(void) {
  if (MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &job_key, NULL) !=
      MPI_SUCCESS)
    job_key = MPI_KEYVAL_INVALID;
}
static int job_keyval(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, make_keyval);
  return job_key;
}

static void combine_records(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
  job *j = NULL;
  int found = 0;
  MPI_Type_get_attr(*dt, job_keyval(), &j, &found);
  int rsz = 0;
  MPI_Type_size(*dt, &rsz);
  for (int i = 0; i < *len; i++) {
    char *a = (char *)invec + (size_t)i * (size_t)rsz, *b = (char *)inoutvec + (size_t)i * (size_t)rsz;
    rec_head ha, hb;
    memcpy(&ha, a, sizeof ha);
    memcpy(&hb, b, sizeof hb);
    /* invec holds the lower ranks: b = a ⊕ b */
    if (!found || ((ha.flags | hb.flags) & REC_ERR)) {
      hb.flags = REC_ERR;
    } else if ((ha.flags & REC_HAS) && !(hb.flags & REC_HAS)) {
      memcpy(b + sizeof hb, a + sizeof ha, j->out_size);
      hb.flags = REC_HAS;
    } else if ((ha.flags & REC_HAS) && (hb.flags & REC_HAS)) {
      pscan_status s = combine(j, b + sizeof hb, a + sizeof ha, b + sizeof hb);
      if (s != PSCAN_OK) {
        if (j->combine_status == PSCAN_OK)
          j->combine_status = s;
        hb.flags = REC_ERR;
      }
    }
    memcpy(b, &hb, sizeof hb);
  }
}

static pscan_status exscan(job *j, MPI_Comm comm, const void *mine, void *prefix, size_t rsz) {
  int keyval = job_keyval();
  if (keyval == MPI_KEYVAL_INVALID)
    return pscan_mpi__fail(j->ctx, PSCAN_ERR_INTERNAL, "%s: MPI_Type_create_keyval failed", j->fn);
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int rc = MPI_Type_contiguous((int)rsz, MPI_BYTE, &dt);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_commit(&dt);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_set_attr(dt, keyval, j);
  if (rc == MPI_SUCCESS)
    rc = MPI_Op_create(combine_records, 0 /* not commutative: ranks are ordered */, &op);
  if (rc == MPI_SUCCESS)
    rc = MPI_Exscan(mine, prefix, 1, dt, op, comm);
  if (op != MPI_OP_NULL)
    MPI_Op_free(&op);
  if (dt != MPI_DATATYPE_NULL)
    MPI_Type_free(&dt);
  return rc == MPI_SUCCESS ? PSCAN_OK : pscan_mpi__mpi_failed(j->ctx, j->fn, "MPI_Exscan", rc);
}

/* ---- the local reduction ---- */

/* Where every shard's total starts (total_start, then reduce_shard, which leaves an empty shard's
   as it is): init, rank 0's when given, or none. Not the op's identity, which could change a
   float sum's signed zero. */
static void total_start(const job *j, const void *init, void *total, bool *has) {
  *has = init != NULL;
  if (init)
    memcpy(total, init, j->out_size);
}

/* The shard's total (from init when given), on either backend: pscan_reduce for a built-in
   operator, pscan_reduce_op for a user one. Both read the shard once and write no output, so
   the reduction runs before the agreement. */
static pscan_status reduce_shard(job *j, const void *init, void *total, bool *has) {
  if (j->n == 0)
    return PSCAN_OK;
  pscan_status s;
  if (j->args) {
    pscan_scan_args a = *j->args;
    a.in = j->in, a.out = NULL, a.n = j->n, a.exclusive = 0, a.init = init;
    s = pscan_reduce(j->ctx, &a, total);
  } else {
    s = pscan_reduce_op(j->ctx, j->in, j->n, j->op, init, total);
  }
  *has = s == PSCAN_OK;
  return pscan_mpi__core(j->ctx, s);
}

static uint64_t hash_bytes(const void *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
  return h;
}

/* The whole distributed scan, once the local arguments are checked (local: that check's
   status). fields/names: what the ranks must agree on. */
static pscan_status run(job *j, MPI_Comm comm, const int64_t *fields, const char *const *names,
                        int nfields, pscan_status local) {
  int rank = 0, size = 1;
  pscan_status s = pscan_mpi__comm(j->ctx, comm, j->fn, &rank, &size);
  if (s != PSCAN_OK)
    return s;
  size_t rsz = sizeof(rec_head) + (j->out_size + 7) / 8 * 8;
  char *mine = calloc(2, rsz), *prefix = mine ? mine + rsz : NULL;
  if (!mine && local == PSCAN_OK)
    local = pscan_mpi__fail(j->ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", j->fn);
  bool device = pscan_mpi__on_device(j->ctx), has = false;
  bool need_total = rank < size - 1; /* the last rank's total is nobody's prefix */
  const void *init0 = rank == 0 ? j->init : NULL;
  if (local == PSCAN_OK && need_total) {
    total_start(j, init0, mine + sizeof(rec_head), &has);
    local = reduce_shard(j, init0, mine + sizeof(rec_head), &has);
  }
  s = pscan_mpi__agree(j->ctx, comm, j->fn, fields, names, nfields, local);
  if (s != PSCAN_OK) {
    free(mine);
    return s;
  }
  /* From here on every rank runs to the end, so that all reach the same collectives. */
  local = PSCAN_OK;
  rec_head h = {.flags = local != PSCAN_OK ? REC_ERR : has ? REC_HAS : 0};
  memcpy(mine, &h, sizeof h);
  memset(prefix, 0, rsz);
  pscan_status x = exscan(j, comm, mine, prefix, rsz);
  if (local == PSCAN_OK)
    local = x != PSCAN_OK ? x : j->combine_status;
  rec_head ph;
  memcpy(&ph, prefix, sizeof ph);
  if (rank == 0)
    ph.flags = 0;
  if (local == PSCAN_OK && (ph.flags & REC_ERR))
    local = pscan_mpi__fail(j->ctx, PSCAN_ERR_INTERNAL, "%s: a rank before this one failed", j->fn);
  if (local == PSCAN_OK && j->n > 0) {
    const void *init = rank == 0 ? j->init : (ph.flags & REC_HAS) ? prefix + sizeof ph : NULL;
    local = local_scan(j, j->in, j->out, j->n, j->exclusive, init);
    if (local == PSCAN_OK && device)
      local = pscan_mpi__core(j->ctx, pscan_synchronize(j->ctx));
  }
  free(mine);
  return pscan_mpi__agree(j->ctx, comm, j->fn, NULL, NULL, 0, local);
}

pscan_status pscan_mpi_scan(pscan_ctx *ctx, MPI_Comm comm, const pscan_scan_args *a) {
  static const char fn[] = "pscan_mpi_scan";
  static const char *const names[] = {"in_type", "out_type", "op", "exclusive", "whether init is given",
                                      "init"};
  job j = {.ctx = ctx, .fn = fn, .args = a};
  pscan_status local = PSCAN_OK;
  int64_t fields[6] = {0};
  if (!ctx)
    local = pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  else if (!a)
    local = pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: args is NULL", fn);
  if (local == PSCAN_OK) {
    /* The core checks the types, op and flags of an empty call; the buffers are checked here. */
    pscan_scan_args probe = *a;
    probe.in = NULL, probe.out = NULL, probe.n = 0;
    local = pscan_mpi__core(ctx, pscan_scan(ctx, &probe));
  }
  if (local == PSCAN_OK) {
    j.in = a->in, j.out = a->out, j.n = a->n, j.exclusive = a->exclusive, j.init = a->init;
    j.in_size = pscan_dtype_size(a->in_type), j.out_size = pscan_dtype_size(a->out_type);
    local = pscan_mpi__check_buffers(ctx, fn, a->in, j.in_size, a->out, j.out_size, a->n, true,
                                     true);
    fields[0] = a->in_type, fields[1] = a->out_type, fields[2] = a->op, fields[3] = a->exclusive;
    fields[4] = a->init != NULL;
    fields[5] = a->init ? (int64_t)(hash_bytes(a->init, j.out_size) >> 2) : 0;
  }
  /* Totals combine on the host: a CUDA context borrows a one-thread CPU context for it. */
  pscan_ctx *host = NULL;
  if (local == PSCAN_OK && pscan_mpi__on_device(ctx)) {
    local = pscan_create(&host, PSCAN_BACKEND_CPU);
    if (local != PSCAN_OK)
      pscan_mpi__fail(ctx, local, "%s: %s", fn, pscan_last_error(NULL));
    else
      pscan_set_param(host, PSCAN_PARAM_THREADS, 1);
  }
  j.host = host ? host : ctx;
  /* a rank with a NULL ctx still takes part in the agreement, so that no rank waits for it */
  pscan_status s = run(&j, comm, fields, names, 6, local);
  pscan_destroy(host);
  return s;
}

pscan_status pscan_mpi_scan_op(pscan_ctx *ctx, MPI_Comm comm, const void *in, void *out, size_t n,
                               const pscan_user_op *op, int exclusive, const void *init) {
  static const char fn[] = "pscan_mpi_scan_op";
  static const char *const names[] = {"exclusive", "whether init is given", "the element size",
                                      "init"};
  job j = {.ctx = ctx, .fn = fn, .op = op, .in = in, .out = out, .n = n, .exclusive = exclusive,
           .init = init};
  pscan_status local = PSCAN_OK;
  int64_t fields[4] = {0};
  size_t e = op ? pscan_op_elem_size(op) : 0;
  if (!ctx)
    local = pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  else if (!op)
    local = pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: op is NULL", fn);
  else if (e == 0)
    local = pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: op has no element size", fn);
  if (local == PSCAN_OK)
    local = pscan_mpi__core(ctx, pscan_scan_op(ctx, NULL, NULL, 0, op, exclusive, init));
  if (local == PSCAN_OK) {
    j.in_size = j.out_size = e;
    local = pscan_mpi__check_buffers(ctx, fn, in, e, out, e, n, false, true);
    fields[0] = exclusive, fields[1] = init != NULL, fields[2] = (int64_t)e;
    fields[3] = init ? (int64_t)(hash_bytes(init, e) >> 2) : 0;
  }
  pscan_status s = run(&j, comm, fields, names, 4, local);
  if (j.pair)
    pscan_mpi__free(ctx, j.pair);
  return s;
}
