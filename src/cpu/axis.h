/* The CPU backend's scans along an axis and by segments (axis.c), and the strided kernels they
 * are made of (axis_body.h, stamped in axis_kernels.c). */
#ifndef PSCAN_CPU_AXIS_H
#define PSCAN_CPU_AXIS_H

#include "cpu.h"

#include <stddef.h>

/* The strided kernels of one (input type, accumulation type, op). Strides are in elements and may
   be negative; "fresh" means no running value yet (an inclusive line starts from its first
   element, an exclusive one writes the identity first). */
typedef struct pscan__cpu_axis_kernels {
  /* out[i * os] = scan of in[0], in[is], ... (n >= 1); carry NULL: fresh. */
  void (*line)(const void *in, ptrdiff_t is, void *out, ptrdiff_t os, size_t n, const void *carry,
               int exclusive);
  /* *acc = in[0] ⊕ in[is] ⊕ ... (n >= 1). */
  void (*line_reduce)(const void *in, ptrdiff_t is, size_t n, void *acc);
  /* w lines side by side over m rows (row r, line j at in[r * ir + j * ic]); acc[0..w) holds the
     running values (accumulation type, contiguous) and is updated. stream: write out's rows
     with non-temporal stores where they are contiguous. */
  void (*rows)(const void *in, ptrdiff_t ir, ptrdiff_t ic, void *out, ptrdiff_t orow, ptrdiff_t oc,
               size_t m, size_t w, void *acc, int fresh, int exclusive, int stream);
  /* acc[j] = (fresh ? row 0 : acc[j] ⊕ row 0) ⊕ ... ⊕ row m-1, column by column. */
  void (*rows_reduce)(const void *in, ptrdiff_t ir, ptrdiff_t ic, size_t m, size_t w, void *acc,
                      int fresh);
  /* acc[j] = a[j] ⊕ acc[j], j < w. */
  void (*vec_combine)(const void *a, void *acc, size_t w);
  /* acc[j] = acc[j] ⊕ a[j], j < w (a's lines come after acc's). */
  void (*vec_fold)(const void *a, void *acc, size_t w);
  /* Segments of a contiguous forward view, positions [pos, end) of in and out, segment s holding
     pos (offsets[s] <= pos < offsets[s + 1]): the first segment continues from carry (NULL: it
     starts at pos), every later one starts from init (NULL: fresh). Element by element. */
  void (*segs)(const void *in, void *out, size_t pos, size_t end, const int64_t *offsets,
               size_t s, const void *carry, const void *init, int exclusive);
  /* The same for segments of a few items: no branch a segment (flags, then a select). */
  void (*segs_tiny)(const void *in, void *out, size_t pos, size_t end, const int64_t *offsets,
                    size_t s, const void *carry, const void *init, int exclusive);
} pscan__cpu_axis_kernels;

/* NULL where the combination is not offered. */
const pscan__cpu_axis_kernels *pscan__cpu_axis_kernels_for(pscan_dtype in, pscan_dtype acc,
                                                           pscan_op op);

/* The backend table's scan_axis entry. */
pscan_status pscan__cpu_scan_axis(pscan_ctx *ctx, const pscan__axis_call *call);

/* From backend.c: the configured thread count; the context's pool (created for that count);
   its scratch grown to at least bytes (64-byte aligned; valid until the next call that uses
   scratch, a flat scan included); the flat scan's partition length for call. */
int pscan__cpu_threads(const pscan_ctx *ctx);
pscan_status pscan__cpu_pool(pscan_ctx *ctx, pscan__pool **pool);
pscan_status pscan__cpu_scratch(pscan_ctx *ctx, size_t bytes, char **scratch);
size_t pscan__cpu_partition_size(const pscan_ctx *ctx, const pscan__scan_call *call);

#endif /* PSCAN_CPU_AXIS_H */
