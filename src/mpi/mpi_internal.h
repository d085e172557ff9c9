/* Internal declarations of pscan_mpi: the agreement between ranks, the per-thread error line,
 * and the few element moves between host and the context's memory (mem_host.c, or mem_cuda.c
 * in a CUDA build). pscan_mpi uses only the public API of pscan plus MPI. */
#ifndef PSCAN_MPI_INTERNAL_H
#define PSCAN_MPI_INTERNAL_H

#include "pscan_mpi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PSCAN_MPI__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PSCAN_MPI__PRINTF(f, a)
#endif

enum { PSCAN_MPI__ERROR_LEN = 320 };

/* Records the line for pscan_mpi_last_error(ctx) and returns status. */
pscan_status pscan_mpi__fail(const pscan_ctx *ctx, pscan_status status, const char *fmt, ...)
    PSCAN_MPI__PRINTF(3, 4);
/* A failed core call: its pscan_last_error line becomes this thread's pscan_mpi line too. */
pscan_status pscan_mpi__core(pscan_ctx *ctx, pscan_status status);
/* This thread's current line (what the failing rank sends to the others). */
const char *pscan_mpi__message(void);

/* The agreement (one MPI_Allreduce): every rank gives the same nfields fields (each within
   +-2^62), and its own status. A rank that failed makes every rank answer its status (the lowest
   failing rank wins; its line is broadcast); otherwise fields that differ between ranks are
   PSCAN_ERR_INVALID_ARGUMENT on every rank, naming names[i]. nfields <= PSCAN_MPI__MAX_FIELDS. */
enum { PSCAN_MPI__MAX_FIELDS = 12 };
pscan_status pscan_mpi__agree(pscan_ctx *ctx, MPI_Comm comm, const char *fn, const int64_t *fields,
                              const char *const *names, int nfields, pscan_status local);
/* An MPI call that failed (with an error handler that returns): PSCAN_ERR_INTERNAL. */
pscan_status pscan_mpi__mpi_failed(const pscan_ctx *ctx, const char *fn, const char *call, int rc);

/* ---- the context's memory: host memory on a CPU context, device memory on a CUDA one ---- */
bool pscan_mpi__on_device(const pscan_ctx *ctx);
/* PSCAN_ERR_WRONG_MEMORY when p is not memory ctx's backend takes. */
pscan_status pscan_mpi__check_memory(pscan_ctx *ctx, const void *p, const char *what);
/* Copies between host and ctx's memory; waits for ctx's work first. */
pscan_status pscan_mpi__read(pscan_ctx *ctx, void *host_dst, const void *src, size_t bytes);
pscan_status pscan_mpi__write(pscan_ctx *ctx, void *dst, const void *host_src, size_t bytes);
pscan_status pscan_mpi__alloc(pscan_ctx *ctx, size_t bytes, void **p);
void pscan_mpi__free(pscan_ctx *ctx, void *p);
/* Drops the first of count elements of elem bytes at p: p[0..count-1) = p[1..count). */
pscan_status pscan_mpi__drop_first(pscan_ctx *ctx, void *p, size_t count, size_t elem);

/* ---- checks shared by the entry points ---- */
/* in/out of n elements: NULL, size overflow, alignment (typed), overlap other than in == out
   with equal sizes (allow_in_place), memory kind. */
pscan_status pscan_mpi__check_buffers(pscan_ctx *ctx, const char *fn, const void *in,
                                      size_t in_size, const void *out, size_t out_size, size_t n,
                                      bool typed, bool allow_in_place);
/* The rank and size of comm (PSCAN_ERR_INVALID_ARGUMENT for MPI_COMM_NULL or an MPI failure). */
pscan_status pscan_mpi__comm(const pscan_ctx *ctx, MPI_Comm comm, const char *fn, int *rank,
                             int *size);

#endif /* PSCAN_MPI_INTERNAL_H */
