/* The memory the library sees in test_compact.c, on its run-time backend (backend.h). Every
 * compaction call of the test goes through a wrapper: on the CPU it passes the test's host
 * buffers as they are; on CUDA it mirrors them into fresh device buffers (the poisoned slack past
 * n included, so writes past the result are still caught), calls the library on those, and copies
 * the outputs back. In-place calls stay in place (one device buffer). On CUDA the count comes
 * back through host memory on odd calls and through device memory on even ones, so both ways of
 * pscan.h are checked. Included by test_compact.c and test_compact_edges.c after test_compact.h
 * (SLACK, `backend`). */
#ifndef TEST_COMPACT_MIRRORS_H
#define TEST_COMPACT_MIRRORS_H

#include <stdint.h>

/* The library's copy of bytes of host (NULL: NULL); host itself on the CPU. */
static void *to_lib(const void *host, size_t bytes) {
  if (!host || !backend->device)
    return (void *)(uintptr_t)host;
  void *d = test_backend_alloc(backend, bytes);
  test_backend_put(backend, d, host, bytes);
  return d;
}

/* Copies an output back (NULL host: nothing) and frees the library's copy; nothing on the CPU. */
static void from_lib(void *host, void *lib, size_t bytes) {
  if (!lib || !backend->device)
    return;
  test_backend_sync(backend);
  if (host)
    test_backend_get(backend, host, lib, bytes);
  test_backend_free(backend, lib);
}

static unsigned long count_calls;

/* The count pointer the library sees: the host one, or (every other call on CUDA) a mirror. */
static size_t *count_arg(size_t *host) {
  if (!host || !backend->device || count_calls++ % 2 == 0)
    return host;
  return to_lib(host, sizeof *host);
}
static void count_back(size_t *host, size_t *arg) {
  if (arg != host)
    from_lib(host, arg, sizeof *host);
}

/* The mirrors of one call: in (n elements; the same as out when in place), out (n + SLACK). */
typedef struct mirror {
  void *in, *out;
  size_t out_bytes;
} mirror;

static mirror mirror_io(const void *in, void *out, size_t n, size_t size) {
  mirror m;
  m.out_bytes = (n + SLACK) * size;
  m.out = to_lib(out, m.out_bytes);
  m.in = in == out ? m.out : to_lib(in, n * size);
  return m;
}
static void mirror_back(mirror m, void *out) {
  if (m.in != m.out)
    from_lib(NULL, m.in, 0);
  from_lib(out, m.out, m.out_bytes);
}

/* pscan_select_if and pscan_partition_if (f), which take the same arguments. */
typedef pscan_status (*cmp_call)(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                 pscan_dtype t, pscan_cmp cmp, const void *value, size_t *count);

static pscan_status mirrored_cmp(cmp_call f, pscan_ctx *ctx, const void *in, void *out, size_t n,
                                 pscan_dtype t, pscan_cmp cmp, const void *value, size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  size_t *c = count_arg(count);
  pscan_status s = f(ctx, m.in, m.out, n, t, cmp, value, c);
  mirror_back(m, out);
  count_back(count, c);
  return s;
}

static pscan_status mirrored_select_flagged(pscan_ctx *ctx, const void *in, const uint8_t *flags,
                                            void *out, size_t n, pscan_dtype t, size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  uint8_t *f = to_lib(flags, n);
  size_t *c = count_arg(count);
  pscan_status s = pscan_select_flagged(ctx, m.in, f, m.out, n, t, c);
  mirror_back(m, out);
  from_lib(NULL, f, 0);
  count_back(count, c);
  return s;
}

static pscan_status mirrored_unique(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                    pscan_dtype t, size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  size_t *c = count_arg(count);
  pscan_status s = pscan_unique(ctx, m.in, m.out, n, t, c);
  mirror_back(m, out);
  count_back(count, c);
  return s;
}

static pscan_status mirrored_run_length_encode(pscan_ctx *ctx, const void *in, void *out,
                                               uint64_t *counts, size_t n, pscan_dtype t,
                                               size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  uint64_t *lib_counts = to_lib(counts, (n + SLACK) * sizeof *counts);
  size_t *c = count_arg(count);
  pscan_status s = pscan_run_length_encode(ctx, m.in, m.out, lib_counts, n, t, c);
  mirror_back(m, out);
  from_lib(counts, lib_counts, (n + SLACK) * sizeof *counts);
  count_back(count, c);
  return s;
}

static pscan_status mirrored_reduce_by_key(pscan_ctx *ctx, const void *keys_in, pscan_dtype kt,
                                           const void *vals_in, pscan_dtype vt, void *keys_out,
                                           void *vals_out, size_t n, pscan_op op, size_t *count) {
  mirror k = mirror_io(keys_in, keys_out, n, pscan_dtype_size(kt));
  mirror v = mirror_io(vals_in, vals_out, n, pscan_dtype_size(vt));
  size_t *c = count_arg(count);
  pscan_status s = pscan_reduce_by_key(ctx, k.in, kt, v.in, vt, k.out, v.out, n, op, c);
  mirror_back(k, keys_out);
  mirror_back(v, vals_out);
  count_back(count, c);
  return s;
}

static pscan_status mirrored_scan_by_key(pscan_ctx *ctx, const void *keys, pscan_dtype kt,
                                         const void *in, void *out, size_t n, pscan_dtype vt,
                                         pscan_op op, int exclusive, const void *init) {
  void *lib_keys = to_lib(keys, n * pscan_dtype_size(kt));
  mirror v = mirror_io(in, out, n, pscan_dtype_size(vt));
  pscan_status s = pscan_scan_by_key(ctx, lib_keys, kt, v.in, v.out, n, vt, op, exclusive, init);
  mirror_back(v, out);
  from_lib(NULL, lib_keys, 0);
  return s;
}

/* Function-like, so that (pscan_select_if)(...) still calls the library itself. */
#define pscan_select_if(...) mirrored_cmp(pscan_select_if, __VA_ARGS__)
#define pscan_partition_if(...) mirrored_cmp(pscan_partition_if, __VA_ARGS__)
#define pscan_select_flagged(...) mirrored_select_flagged(__VA_ARGS__)
#define pscan_unique(...) mirrored_unique(__VA_ARGS__)
#define pscan_run_length_encode(...) mirrored_run_length_encode(__VA_ARGS__)
#define pscan_reduce_by_key(...) mirrored_reduce_by_key(__VA_ARGS__)
#define pscan_scan_by_key(...) mirrored_scan_by_key(__VA_ARGS__)

#endif /* TEST_COMPACT_MIRRORS_H */
