/* pscan_mpi — scans and compaction over arrays sharded across the ranks of an MPI communicator.
 *
 * An array is sharded over the ranks of comm in rank order; each rank passes its own shard (host
 * memory on a CPU context, device memory on a CUDA context). Every call is collective over comm
 * and gives each rank the part of the result that a single-process call on the concatenation
 * would have put at its shard's positions. Shards may be empty (n == 0, pointers may be NULL).
 *
 * Agreement: before anything is written, the ranks compare what they were given (types, op,
 * exclusive, whether an init is given and its value, the compaction's comparison and value).
 * Ranks that disagree answer PSCAN_ERR_INVALID_ARGUMENT on every rank; a rank that refuses its
 * own arguments makes every rank answer that rank's status. No rank hangs: every rank always
 * reaches the same collectives. The one-line reason is in pscan_mpi_last_error(ctx) on every rank
 * (the failing rank's own detail, which also stays in its pscan_last_error(ctx)).
 * A failure during the local work itself, after the ranks agreed (out of memory, a device error),
 * is also answered on every rank; other ranks may then have written their outputs.
 *
 * Only per-rank totals and boundary elements cross the host, so CUDA-aware MPI is not needed.
 * Every call is synchronous: on a CUDA context it waits for the context's stream.
 *
 * Local traffic per element (reads + writes of the shard): a scan reduces the shard with
 * pscan_reduce (one read) and then scans it with the prefix of the ranks before it as init (a
 * read and a write): 3n on either backend. The last rank's total is needed by no one, so it scans
 * once (2n); a single rank is a plain scan. pscan_mpi_scan_op alike, with pscan_reduce_op. */
#ifndef PSCAN_MPI_H
#define PSCAN_MPI_H

#include <mpi.h>

#include "pscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The distributed pscan_scan: local describes this rank's shard (in, out, n) and the call, which
   every rank must give alike (in_type, out_type, op, exclusive; init on every rank or on none, the
   same value). Floating-point SUM and PROD associate differently at shard boundaries than one
   process would, so they agree with the single-process result up to rounding. */
PSCAN_API pscan_status pscan_mpi_scan(pscan_ctx *ctx, MPI_Comm comm, const pscan_scan_args *local);

/* The distributed pscan_scan_op: a scan with a user COMBINE operator (created on each rank's own
   ctx from the same description). The per-rank totals are combined in rank order, so the
   operator need not be commutative. */
PSCAN_API pscan_status pscan_mpi_scan_op(pscan_ctx *ctx, MPI_Comm comm, const void *in, void *out,
                                         size_t n, const pscan_user_op *op, int exclusive,
                                         const void *init);

/* Compaction: each rank keeps its selected items locally (out, *num_selected, as pscan_select_if
   on its shard) and learns where they start in the global result (*global_offset) and the
   global count (*global_count). cmp and *value must agree across ranks. */
PSCAN_API pscan_status pscan_mpi_select_if(pscan_ctx *ctx, MPI_Comm comm, const void *in, void *out,
                                           size_t n, pscan_dtype type, pscan_cmp cmp,
                                           const void *value, size_t *num_selected,
                                           uint64_t *global_offset, uint64_t *global_count);

/* Runs that cross shard boundaries are merged: a run belongs to the rank where it starts, which
   reports its whole length; a rank whose shard begins inside a run started earlier leaves that
   part out. Empty ranks, and ranks that lie wholly inside one run, pass the run through. */
PSCAN_API pscan_status pscan_mpi_run_length_encode(pscan_ctx *ctx, MPI_Comm comm, const void *in,
                                                   void *unique_out, uint64_t *counts_out, size_t n,
                                                   pscan_dtype type, size_t *num_runs,
                                                   uint64_t *global_offset,
                                                   uint64_t *global_count);

/* As pscan_reduce_by_key, with runs of equal keys merged across shard boundaries as in
   pscan_mpi_run_length_encode (the run's value is reduced over all of its shards, in order). */
PSCAN_API pscan_status pscan_mpi_reduce_by_key(pscan_ctx *ctx, MPI_Comm comm, const void *keys_in,
                                               pscan_dtype key_type, const void *vals_in,
                                               pscan_dtype val_type, void *keys_out,
                                               void *vals_out, size_t n, pscan_op op,
                                               size_t *num_runs, uint64_t *global_offset,
                                               uint64_t *global_count);

/* One line on the most recent failed pscan_mpi call made on ctx by this thread: the failing
   rank and its reason ("" when the thread's last pscan_mpi failure was on another context, or
   none failed). pscan_last_error(ctx) keeps the core's own detail of a local refusal. Never NULL;
   valid until this thread's next pscan_mpi call. */
PSCAN_API const char *pscan_mpi_last_error(const pscan_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PSCAN_MPI_H */
