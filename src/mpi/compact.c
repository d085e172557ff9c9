/* Distributed compaction: select_if, run_length_encode and reduce_by_key over a sharded array.
 *
 * Each rank runs the core's call on its shard (after the ranks agreed, so that a refused call
 * writes nothing), then one MPI_Allgather of a small record per rank (status, count, first and
 * last key, the first run's count or value) gives every rank the whole picture: where its items
 * start globally, the global count, and which runs cross shard boundaries. A run belongs to the
 * rank where it starts: a rank whose first key equals the last key of the nearest non-empty rank
 * before it drops its first run, and the owner extends its last run by the first runs of the ranks
 * after it, through empty ranks and ranks that are one run of that key. Gathering the records
 * serves both directions at once (an exclusive scan would carry the information only forward),
 * and costs p small records per rank. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rank_info {
  int64_t status;
  uint64_t n, count;             /* shard length; items kept or runs found locally */
  uint64_t first_key, last_key;  /* the bits of keys_out[0] and keys_out[count - 1] */
  uint64_t first_count;          /* run_length_encode: counts_out[0] */
  uint64_t first_val;            /* reduce_by_key: the bits of vals_out[0] */
} rank_info;

typedef struct runs_job {
  pscan_ctx *ctx;
  const char *fn;
  pscan_dtype key_type;
  void *keys_out;
  uint64_t *counts_out;  /* run_length_encode */
  pscan_dtype val_type;  /* reduce_by_key: vals_out, val_type, op */
  void *vals_out;
  pscan_op op;
} runs_job;

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a && b && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

static uint64_t hash_bytes(const void *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
  return h;
}

/* Keys compare as the core compares them: floats with == (NaN never equal, -0 == +0). */
static bool keys_equal(pscan_dtype t, uint64_t a, uint64_t b) {
  if (t == PSCAN_F32) {
    float x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
  }
  if (t == PSCAN_F64) {
    double x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
  }
  return memcmp(&a, &b, pscan_dtype_size(t)) == 0;
}

/* Every rank's record. A rank that failed its local call makes every rank fail. */
static pscan_status gather(pscan_ctx *ctx, MPI_Comm comm, const char *fn, const rank_info *mine,
                           rank_info **all, int *rank, int *size) {
  pscan_status s = pscan_mpi__comm(ctx, comm, fn, rank, size);
  if (s != PSCAN_OK)
    return s;
  *all = calloc((size_t)*size, sizeof **all);
  int oom = *all == NULL;
  /* every rank must reach the same collectives: an allocation failure is agreed on first */
  int rc = MPI_Allreduce(MPI_IN_PLACE, &oom, 1, MPI_INT, MPI_MAX, comm);
  if (rc != MPI_SUCCESS || oom) {
    free(*all);
    *all = NULL;
    return rc != MPI_SUCCESS ? pscan_mpi__mpi_failed(ctx, fn, "MPI_Allreduce", rc)
                             : pscan_mpi__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY,
                                               "%s: out of memory on a rank", fn);
  }
  rc = MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, *all, (int)sizeof *mine, MPI_BYTE, comm);
  if (rc != MPI_SUCCESS)
    return pscan_mpi__mpi_failed(ctx, fn, "MPI_Allgather", rc);
  for (int q = 0; q < *size; q++)
    if ((*all)[q].status != PSCAN_OK) {
      if (q == *rank)
        return (pscan_status)mine->status;
      return pscan_mpi__fail(ctx, (pscan_status)(*all)[q].status,
                             "%s: rank %d of %d failed: %s", fn, q, *size,
                             pscan_status_name((pscan_status)(*all)[q].status));
    }
  return PSCAN_OK;
}

static void write_counts(size_t *num, uint64_t *global_offset, uint64_t *global_count, size_t mine,
                         uint64_t before, uint64_t total) {
  *num = mine;
  if (global_offset)
    *global_offset = before;
  if (global_count)
    *global_count = total;
}

/* A call's own arguments: ctx, and its count pointer (named what). A rank that fails here still
   takes part in the agreement, so that no rank waits for it. */
static pscan_status check_call(pscan_ctx *ctx, const char *fn, const void *count,
                               const char *what) {
  if (!ctx)
    return pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
  if (!count)
    return pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
  return PSCAN_OK;
}

/* ---- select_if ---- */

pscan_status pscan_mpi_select_if(pscan_ctx *ctx, MPI_Comm comm, const void *in, void *out,
                                 size_t n, pscan_dtype type, pscan_cmp cmp, const void *value,
                                 size_t *num_selected, uint64_t *global_offset,
                                 uint64_t *global_count) {
  static const char fn[] = "pscan_mpi_select_if";
  static const char *const names[] = {"type", "cmp", "value"};
  int64_t fields[3] = {0};
  size_t dummy = 0, size = 0;
  pscan_status local = check_call(ctx, fn, num_selected, "num_selected");
  if (local == PSCAN_OK)
    local = pscan_mpi__core(ctx, pscan_select_if(ctx, NULL, NULL, 0, type, cmp, value, &dummy));
  if (local == PSCAN_OK) {
    size = pscan_dtype_size(type);
    local = pscan_mpi__check_buffers(ctx, fn, in, size, out, size, n, true, true);
    fields[0] = type, fields[1] = cmp, fields[2] = (int64_t)(hash_bytes(value, size) >> 2);
  }
  pscan_status s = pscan_mpi__agree(ctx, comm, fn, fields, names, 3, local);
  if (s != PSCAN_OK)
    return s;
  size_t kept = 0;
  rank_info mine = {.n = n};
  mine.status = pscan_mpi__core(ctx, pscan_select_if(ctx, in, out, n, type, cmp, value, &kept));
  mine.count = kept;
  rank_info *all = NULL;
  int rank = 0, p = 1;
  s = gather(ctx, comm, fn, &mine, &all, &rank, &p);
  if (s == PSCAN_OK) {
    uint64_t before = 0, total = 0;
    for (int q = 0; q < p; q++) {
      before += q < rank ? all[q].count : 0;
      total += all[q].count;
    }
    write_counts(num_selected, global_offset, global_count, kept, before, total);
  }
  free(all);
  return s;
}

/* ---- runs across shard boundaries (run_length_encode, reduce_by_key) ---- */

/* The record of a rank whose local call found k runs. */
static pscan_status describe(const runs_job *j, size_t k, rank_info *mine) {
  mine->count = k;
  if (k == 0)
    return PSCAN_OK;
  size_t ks = pscan_dtype_size(j->key_type);
  pscan_status s = pscan_mpi__read(j->ctx, &mine->first_key, j->keys_out, ks);
  if (s == PSCAN_OK)
    s = pscan_mpi__read(j->ctx, &mine->last_key, (char *)j->keys_out + (k - 1) * ks, ks);
  if (s == PSCAN_OK && j->counts_out)
    s = pscan_mpi__read(j->ctx, &mine->first_count, j->counts_out, sizeof(uint64_t));
  if (s == PSCAN_OK && j->vals_out)
    s = pscan_mpi__read(j->ctx, &mine->first_val, j->vals_out, pscan_dtype_size(j->val_type));
  return s;
}

/* cont[q]: rank q's first run continues a run of an earlier rank. */
static void continuations(const runs_job *j, const rank_info *all, int p, bool *cont) {
  int prev = -1;
  for (int q = 0; q < p; q++) {
    cont[q] = all[q].count > 0 && prev >= 0 &&
              keys_equal(j->key_type, all[prev].last_key, all[q].first_key);
    if (all[q].count > 0)
      prev = q;
  }
}

/* Extends this rank's last run (index k - 1) by the first runs of the ranks after it that
   continue it. */
static pscan_status extend_last_run(const runs_job *j, const rank_info *all, const bool *cont,
                                    int rank, int p, size_t k) {
  size_t vs = j->vals_out ? pscan_dtype_size(j->val_type) : 0;
  uint64_t extra = 0;
  char *vals = vs ? malloc((size_t)(p + 1) * vs) : NULL; /* the run's parts, in rank order */
  if (vs && !vals)
    return pscan_mpi__fail(j->ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", j->fn);
  size_t parts = 1;
  for (int q = rank + 1; q < p; q++) {
    if (all[q].count == 0)
      continue;
    if (!cont[q])
      break;
    extra += all[q].first_count;
    if (vs)
      memcpy(vals + parts * vs, &all[q].first_val, vs);
    parts++;
    if (all[q].count > 1)
      break;
  }
  pscan_status s = PSCAN_OK;
  if (parts > 1 && j->counts_out) {
    uint64_t c = 0;
    s = pscan_mpi__read(j->ctx, &c, j->counts_out + (k - 1), sizeof c);
    c += extra;
    if (s == PSCAN_OK)
      s = pscan_mpi__write(j->ctx, j->counts_out + (k - 1), &c, sizeof c);
  }
  if (parts > 1 && vs) {
    /* the run's value: its parts combined in order, by the core on a CPU context */
    void *last = (char *)j->vals_out + (k - 1) * vs;
    s = pscan_mpi__read(j->ctx, vals, last, vs);
    pscan_ctx *host = NULL;
    if (s == PSCAN_OK && pscan_mpi__on_device(j->ctx)) {
      s = pscan_create(&host, PSCAN_BACKEND_CPU);
      if (s != PSCAN_OK)
        pscan_mpi__fail(j->ctx, s, "%s: %s", j->fn, pscan_last_error(NULL));
    }
    char *scanned = s == PSCAN_OK ? malloc(parts * vs) : NULL;
    if (s == PSCAN_OK && !scanned)
      s = pscan_mpi__fail(j->ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", j->fn);
    if (s == PSCAN_OK) {
      pscan_ctx *c = host ? host : j->ctx;
      s = pscan_inclusive_scan(c, vals, scanned, parts, j->val_type, j->op);
      if (s != PSCAN_OK)
        pscan_mpi__fail(j->ctx, s, "%s: %s", j->fn, pscan_last_error(c));
    }
    if (s == PSCAN_OK)
      s = pscan_mpi__write(j->ctx, last, scanned + (parts - 1) * vs, vs);
    free(scanned);
    pscan_destroy(host);
  }
  free(vals);
  return s;
}

/* After the local call found k runs (local: its status): the gather, the merge of runs across
   boundaries, the counts, and the last agreement on the outcome. */
static pscan_status merge_runs(const runs_job *j, MPI_Comm comm, pscan_status local, size_t k,
                               size_t *num_runs, uint64_t *global_offset, uint64_t *global_count) {
  rank_info mine = {.status = local};
  if (local == PSCAN_OK)
    mine.status = describe(j, k, &mine);
  rank_info *all = NULL;
  int rank = 0, p = 1;
  pscan_status s = gather(j->ctx, comm, j->fn, &mine, &all, &rank, &p);
  if (s != PSCAN_OK) {
    free(all);
    return s;
  }
  bool *cont = calloc((size_t)p, sizeof *cont);
  if (!cont)
    s = pscan_mpi__fail(j->ctx, PSCAN_ERR_OUT_OF_MEMORY, "%s: out of memory", j->fn);
  uint64_t before = 0, total = 0;
  if (s == PSCAN_OK) {
    continuations(j, all, p, cont);
    for (int q = 0; q < p; q++) {
      uint64_t owned = all[q].count - (cont[q] ? 1 : 0);
      before += q < rank ? owned : 0;
      total += owned;
    }
    if (k > 0 && !(cont[rank] && k == 1))
      s = extend_last_run(j, all, cont, rank, p, k);
  }
  if (s == PSCAN_OK && cont[rank]) {
    s = pscan_mpi__drop_first(j->ctx, j->keys_out, k, pscan_dtype_size(j->key_type));
    if (s == PSCAN_OK && j->counts_out)
      s = pscan_mpi__drop_first(j->ctx, j->counts_out, k, sizeof(uint64_t));
    if (s == PSCAN_OK && j->vals_out)
      s = pscan_mpi__drop_first(j->ctx, j->vals_out, k, pscan_dtype_size(j->val_type));
  }
  bool dropped = cont && cont[rank];
  free(cont);
  free(all);
  s = pscan_mpi__agree(j->ctx, comm, j->fn, NULL, NULL, 0, s);
  if (s == PSCAN_OK)
    write_counts(num_runs, global_offset, global_count, k - (dropped ? 1 : 0), before, total);
  return s;
}

pscan_status pscan_mpi_run_length_encode(pscan_ctx *ctx, MPI_Comm comm, const void *in,
                                         void *unique_out, uint64_t *counts_out, size_t n,
                                         pscan_dtype type, size_t *num_runs,
                                         uint64_t *global_offset, uint64_t *global_count) {
  static const char fn[] = "pscan_mpi_run_length_encode";
  static const char *const names[] = {"type"};
  size_t dummy = 0, size = 0;
  pscan_status local = check_call(ctx, fn, num_runs, "num_runs");
  if (local == PSCAN_OK)
    local = pscan_mpi__core(ctx, pscan_run_length_encode(ctx, NULL, NULL, NULL, 0, type, &dummy));
  if (local == PSCAN_OK) {
    size = pscan_dtype_size(type);
    local = pscan_mpi__check_buffers(ctx, fn, in, size, unique_out, size, n, true, true);
  }
  if (local == PSCAN_OK && n) {
    if (!counts_out || (uintptr_t)counts_out % sizeof(uint64_t))
      local = pscan_mpi__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "%s: counts_out is %s", fn,
                              counts_out ? "not aligned to 8 bytes" : "NULL");
    else if (ranges_overlap(counts_out, n * 8, in, n * size) ||
             ranges_overlap(counts_out, n * 8, unique_out, n * size))
      local = pscan_mpi__fail(ctx, PSCAN_ERR_OVERLAP, "%s: counts_out overlaps in or unique_out",
                              fn);
    else
      local = pscan_mpi__check_memory(ctx, counts_out, "counts_out");
  }
  int64_t fields[1] = {local == PSCAN_OK ? type : 0};
  pscan_status s = pscan_mpi__agree(ctx, comm, fn, fields, names, 1, local);
  if (s != PSCAN_OK)
    return s;
  size_t k = 0;
  local = pscan_mpi__core(ctx, pscan_run_length_encode(ctx, in, unique_out, counts_out, n, type, &k));
  runs_job j = {.ctx = ctx, .fn = fn, .key_type = type, .keys_out = unique_out,
                .counts_out = counts_out};
  return merge_runs(&j, comm, local, k, num_runs, global_offset, global_count);
}

pscan_status pscan_mpi_reduce_by_key(pscan_ctx *ctx, MPI_Comm comm, const void *keys_in,
                                     pscan_dtype key_type, const void *vals_in,
                                     pscan_dtype val_type, void *keys_out, void *vals_out,
                                     size_t n, pscan_op op, size_t *num_runs,
                                     uint64_t *global_offset, uint64_t *global_count) {
  static const char fn[] = "pscan_mpi_reduce_by_key";
  static const char *const names[] = {"key_type", "val_type", "op"};
  size_t dummy = 0;
  pscan_status local = check_call(ctx, fn, num_runs, "num_runs");
  if (local == PSCAN_OK)
    local = pscan_mpi__core(ctx, pscan_reduce_by_key(ctx, NULL, key_type, NULL, val_type, NULL,
                                                     NULL, 0, op, &dummy));
  if (local == PSCAN_OK) {
    size_t ks = pscan_dtype_size(key_type), vs = pscan_dtype_size(val_type);
    local = pscan_mpi__check_buffers(ctx, fn, keys_in, ks, keys_out, ks, n, true, false);
    if (local == PSCAN_OK)
      local = pscan_mpi__check_buffers(ctx, fn, vals_in, vs, vals_out, vs, n, true, false);
    if (local == PSCAN_OK && n &&
        (ranges_overlap(keys_out, n * ks, vals_in, n * vs) ||
         ranges_overlap(vals_out, n * vs, keys_in, n * ks) ||
         ranges_overlap(keys_out, n * ks, vals_out, n * vs)))
      local = pscan_mpi__fail(ctx, PSCAN_ERR_OVERLAP,
                              "%s: keys_out or vals_out overlaps an input or the other output", fn);
  }
  int64_t fields[3] = {0};
  if (local == PSCAN_OK)
    fields[0] = key_type, fields[1] = val_type, fields[2] = op;
  pscan_status s = pscan_mpi__agree(ctx, comm, fn, fields, names, 3, local);
  if (s != PSCAN_OK)
    return s;
  size_t k = 0;
  local = pscan_mpi__core(ctx, pscan_reduce_by_key(ctx, keys_in, key_type, vals_in, val_type,
                                                   keys_out, vals_out, n, op, &k));
  runs_job j = {.ctx = ctx, .fn = fn, .key_type = key_type, .keys_out = keys_out,
                .val_type = val_type, .vals_out = vals_out, .op = op};
  return merge_runs(&j, comm, local, k, num_runs, global_offset, global_count);
}
