/* test_compact.c on the CUDA backend (built as test_cuda_compact with TEST_COMPACT_ON_CUDA):
 * every compaction call of the test goes through a wrapper that mirrors its host buffers into
 * fresh device buffers (the poisoned slack past n included, so writes past the result are still
 * caught), calls the library on them, and copies the outputs back. In-place calls stay in place
 * (one device buffer). The count comes back through host memory on odd calls and through device
 * memory on even ones, so both ways of pscan.h are checked. Included by test_compact.c after
 * SLACK. */
#ifndef TEST_COMPACT_ON_CUDA_H
#define TEST_COMPACT_ON_CUDA_H

#include "cuda_ok.h"


static void *to_device(const void *host, size_t bytes) {
  if (!host)
    return NULL;
  void *d = NULL;
  CUDA_OK(cudaMalloc(&d, bytes ? bytes : 1));
  CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

/* Copies an output back (NULL host: nothing) and frees its device mirror. */
static void to_host(void *host, void *dev, size_t bytes) {
  if (!dev)
    return;
  CUDA_OK(cudaDeviceSynchronize());
  if (host)
    CUDA_OK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(dev));
}

static unsigned long count_calls;

/* The count pointer the library sees: the host one, or (every other call) a device mirror. */
static size_t *count_arg(size_t *host) {
  if (!host || count_calls++ % 2 == 0)
    return host;
  return to_device(host, sizeof *host);
}
static void count_back(size_t *host, size_t *arg) {
  if (arg != host)
    to_host(host, arg, sizeof *host);
}

/* The mirrors of one call: in (n elements; the same as out when in place), out (n + SLACK). */
typedef struct mirror {
  void *in, *out;
  size_t out_bytes;
} mirror;

static mirror mirror_io(const void *in, void *out, size_t n, size_t size) {
  mirror m;
  m.out_bytes = (n + SLACK) * size;
  m.out = to_device(out, m.out_bytes);
  m.in = in == out ? m.out : to_device(in, n * size);
  return m;
}
static void mirror_back(mirror m, void *out) {
  if (m.in != m.out)
    to_host(NULL, m.in, 0);
  to_host(out, m.out, m.out_bytes);
}

static pscan_status cuda_select_if(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                   pscan_dtype t, pscan_cmp cmp, const void *value, size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  size_t *c = count_arg(count);
  pscan_status s = pscan_select_if(ctx, m.in, m.out, n, t, cmp, value, c);
  mirror_back(m, out);
  count_back(count, c);
  return s;
}

static pscan_status cuda_partition_if(pscan_ctx *ctx, const void *in, void *out, size_t n,
                                      pscan_dtype t, pscan_cmp cmp, const void *value,
                                      size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  size_t *c = count_arg(count);
  pscan_status s = pscan_partition_if(ctx, m.in, m.out, n, t, cmp, value, c);
  mirror_back(m, out);
  count_back(count, c);
  return s;
}

static pscan_status cuda_select_flagged(pscan_ctx *ctx, const void *in, const uint8_t *flags,
                                        void *out, size_t n, pscan_dtype t, size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  uint8_t *f = to_device(flags, n);
  size_t *c = count_arg(count);
  pscan_status s = pscan_select_flagged(ctx, m.in, f, m.out, n, t, c);
  mirror_back(m, out);
  to_host(NULL, f, 0);
  count_back(count, c);
  return s;
}

static pscan_status cuda_unique(pscan_ctx *ctx, const void *in, void *out, size_t n, pscan_dtype t,
                                size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  size_t *c = count_arg(count);
  pscan_status s = pscan_unique(ctx, m.in, m.out, n, t, c);
  mirror_back(m, out);
  count_back(count, c);
  return s;
}

static pscan_status cuda_run_length_encode(pscan_ctx *ctx, const void *in, void *out,
                                           uint64_t *counts, size_t n, pscan_dtype t,
                                           size_t *count) {
  mirror m = mirror_io(in, out, n, pscan_dtype_size(t));
  uint64_t *d_counts = to_device(counts, (n + SLACK) * sizeof *counts);
  size_t *c = count_arg(count);
  pscan_status s = pscan_run_length_encode(ctx, m.in, m.out, d_counts, n, t, c);
  mirror_back(m, out);
  to_host(counts, d_counts, (n + SLACK) * sizeof *counts);
  count_back(count, c);
  return s;
}

static pscan_status cuda_reduce_by_key(pscan_ctx *ctx, const void *keys_in, pscan_dtype kt,
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

static pscan_status cuda_scan_by_key(pscan_ctx *ctx, const void *keys, pscan_dtype kt,
                                     const void *in, void *out, size_t n, pscan_dtype vt,
                                     pscan_op op, int exclusive, const void *init) {
  void *d_keys = to_device(keys, n * pscan_dtype_size(kt));
  mirror v = mirror_io(in, out, n, pscan_dtype_size(vt));
  pscan_status s = pscan_scan_by_key(ctx, d_keys, kt, v.in, v.out, n, vt, op, exclusive, init);
  mirror_back(v, out);
  to_host(NULL, d_keys, 0);
  return s;
}

/* Function-like, so that (pscan_select_if)(...) still calls the library itself. */
#define pscan_select_if(...) cuda_select_if(__VA_ARGS__)
#define pscan_partition_if(...) cuda_partition_if(__VA_ARGS__)
#define pscan_select_flagged(...) cuda_select_flagged(__VA_ARGS__)
#define pscan_unique(...) cuda_unique(__VA_ARGS__)
#define pscan_run_length_encode(...) cuda_run_length_encode(__VA_ARGS__)
#define pscan_reduce_by_key(...) cuda_reduce_by_key(__VA_ARGS__)
#define pscan_scan_by_key(...) cuda_scan_by_key(__VA_ARGS__)

#endif /* TEST_COMPACT_ON_CUDA_H */
