/* The one-thread plain loops of the compaction family: the CPU sweep's always-present peer
 * (bench_sweep_cpu.c), what a C user writes for each op. */
#ifndef PSCAN_BENCH_SWEEP_CPU_H
#define PSCAN_BENCH_SWEEP_CPU_H

#include "bench_sweep.h"

#include <stdint.h>

/* The plain loop of p's op on p's keys (i32 or i64; values f32 or f64) over p->n items: a the
   keys or items, flags (select_flagged), vals (the by-key ops), out the kept items or run keys,
   vout the by-key values, counts the run lengths; thr: kept when an item is < thr. Returns the
   count kept (runs; n for scan_by_key). */
size_t sweep_cpu_loop(const sweep_point *p, const void *a, const uint8_t *flags, const void *vals,
                      void *out, void *vout, void *counts, int64_t thr);

#endif
