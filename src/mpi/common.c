/* pscan_mpi's shared machinery: the per-thread error line, the agreement between ranks, and the
 * argument checks every entry point makes before anything is written. */
#include "mpi_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The core keeps its error line inside the context and offers no public way to set it, so
   pscan_mpi keeps its own: one per thread (a context is used by one thread at a time), tagged
   with the context of the call that failed. */
static _Thread_local struct {
  const pscan_ctx *ctx;
  char line[PSCAN_MPI__ERROR_LEN];
} last;

pscan_status pscan_mpi__fail(const pscan_ctx *ctx, pscan_status status, const char *fmt, ...) {
  char tmp[PSCAN_MPI__ERROR_LEN]; /* fmt's arguments may point into last.line */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  memcpy(last.line, tmp, sizeof tmp);
  last.ctx = ctx;
  return status;
}

pscan_status pscan_mpi__core(pscan_ctx *ctx, pscan_status status) {
  if (status != PSCAN_OK)
    pscan_mpi__fail(ctx, status, "%s", pscan_last_error(ctx));
  return status;
}

const char *pscan_mpi__message(void) { return last.line; }

const char *pscan_mpi_last_error(const pscan_ctx *ctx) { return last.ctx == ctx ? last.line : ""; }

pscan_status pscan_mpi__mpi_failed(const pscan_ctx *ctx, const char *fn, const char *call, int rc) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return pscan_mpi__fail(ctx, PSCAN_ERR_INTERNAL, "%s: %s failed: %s", fn, call, text);
}

pscan_status pscan_mpi__comm(const pscan_ctx *ctx, MPI_Comm comm, const char *fn, int *rank,
                             int *size) {
  if (comm == MPI_COMM_NULL)
    return pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: comm is MPI_COMM_NULL", fn);
  int rc = MPI_Comm_rank(comm, rank);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_size(comm, size);
  if (rc != MPI_SUCCESS)
    return pscan_mpi__mpi_failed(ctx, fn, "MPI_Comm_rank/size", rc);
  return PSCAN_OK;
}

/* The failing rank's line goes to every rank, so each can say why. */
static pscan_status report_failure(pscan_ctx *ctx, MPI_Comm comm, const char *fn, int rank,
                                   int size, int root, pscan_status status) {
  char line[PSCAN_MPI__ERROR_LEN];
  if (rank == root)
    memcpy(line, last.line, sizeof line);
  int rc = MPI_Bcast(line, (int)sizeof line, MPI_CHAR, root, comm);
  if (rc != MPI_SUCCESS)
    return pscan_mpi__mpi_failed(ctx, fn, "MPI_Bcast", rc);
  line[sizeof line - 1] = '\0';
  if (rank == root)
    return pscan_mpi__fail(ctx, status, "%s (rank %d of %d)", line, rank, size);
  return pscan_mpi__fail(ctx, status, "%s: rank %d of %d failed: %s", fn, root, size, line);
}

pscan_status pscan_mpi__agree(pscan_ctx *ctx, MPI_Comm comm, const char *fn, const int64_t *fields,
                              const char *const *names, int nfields, pscan_status local) {
  int rank = 0, size = 1;
  pscan_status s = pscan_mpi__comm(ctx, comm, fn, &rank, &size);
  if (s != PSCAN_OK)
    return s;
  /* MAX over (f, -f) gives each field's maximum and minimum; the last slot holds the lowest
     failing rank (size - rank, so that MAX picks the lowest) and its status. */
  int64_t buf[2 * PSCAN_MPI__MAX_FIELDS + 1];
  for (int i = 0; i < nfields; i++) {
    buf[2 * i] = fields[i];
    buf[2 * i + 1] = -fields[i];
  }
  buf[2 * nfields] = local != PSCAN_OK ? ((int64_t)(size - rank) << 8) | (int64_t)local : 0;
  int rc = MPI_Allreduce(MPI_IN_PLACE, buf, 2 * nfields + 1, MPI_INT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS)
    return pscan_mpi__mpi_failed(ctx, fn, "MPI_Allreduce", rc);
  int64_t failed = buf[2 * nfields];
  if (failed != 0)
    return report_failure(ctx, comm, fn, rank, size, size - (int)(failed >> 8),
                          (pscan_status)(failed & 0xff));
  for (int i = 0; i < nfields; i++)
    if (buf[2 * i] != -buf[2 * i + 1])
      return pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                             "%s: the ranks disagree on %s (from %lld to %lld; this rank: %lld)", fn,
                             names[i], (long long)-buf[2 * i + 1], (long long)buf[2 * i],
                             (long long)fields[i]);
  return PSCAN_OK;
}

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

pscan_status pscan_mpi__check_buffers(pscan_ctx *ctx, const char *fn, const void *in,
                                      size_t in_size, const void *out, size_t out_size, size_t n,
                                      bool typed, bool allow_in_place) {
  if (n == 0)
    return PSCAN_OK;
  if ((in_size && n > SIZE_MAX / in_size) || (out_size && n > SIZE_MAX / out_size))
    return pscan_mpi__fail(ctx, PSCAN_ERR_OVERFLOW, "%s: n = %zu elements overflow size_t", fn, n);
  if (!in || !out)
    return pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                           in ? "out" : "in");
  if (typed && ((in_size > 1 && (uintptr_t)in % in_size) ||
                (out_size > 1 && (uintptr_t)out % out_size)))
    return pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                           "%s: %s is not aligned to its element size", fn,
                           (in_size > 1 && (uintptr_t)in % in_size) ? "in" : "out");
  bool in_place = allow_in_place && in == out && in_size == out_size;
  if (!in_place && ranges_overlap(in, n * in_size, out, n * out_size))
    return pscan_mpi__fail(ctx, PSCAN_ERR_OVERLAP, "%s: in and out overlap%s", fn,
                           allow_in_place ? " without being the same buffer of the same type" : "");
  pscan_status s = pscan_mpi__check_memory(ctx, in, "in");
  return s != PSCAN_OK ? s : pscan_mpi__check_memory(ctx, out, "out");
}
