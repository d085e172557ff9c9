/* The CPU part of `pscan bench` (bench_cpu.c): one point of the sweep, pscan's algorithms and the
 * CPU peers on the same buffers and threads. The driver (bench.c) plans the points. */
#ifndef PSCAN_TOOL_BENCH_CPU_H
#define PSCAN_TOOL_BENCH_CPU_H

#include "result.h"

#include <stddef.h>

typedef struct bench_cpu bench_cpu;

/* Two buffers of max_bytes each, touched once so page faults stay out of the timings: by
   `threads` threads, each its even share (where a machine has several memory nodes, pages then
   sit near the threads that use them, as after a user's own parallel initialisation). NULL after
   printing why on failure. partition > 0 sets PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE on pscan's
   contexts. */
bench_cpu *bench_cpu_create(size_t max_bytes, int threads, long partition);
void bench_cpu_destroy(bench_cpu *b);
/* How many implementations bench_cpu_measure reports for p (at most BENCH_MAX_PER_POINT). */
int bench_cpu_count(const bench_point *p);
/* Measures every implementation at p; results in this order: the copies, the reduction, then
   the scans. Writes bench_cpu_count(p) results to out and returns 0, or prints why and returns 1
   (a scan failed or gave a wrong result). */
int bench_cpu_measure(bench_cpu *b, const bench_point *p, bench_result *out);

#endif /* PSCAN_TOOL_BENCH_CPU_H */
