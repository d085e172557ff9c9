/* Timing for the benchmark: a monotonic clock and the median of repeated measurements. */
#ifndef PSCAN_TOOL_TIMING_H
#define PSCAN_TOOL_TIMING_H

#include <stddef.h>

/* Seconds since an arbitrary fixed point, from CLOCK_MONOTONIC. */
double timing_now(void);

/* The median of v[0..n) (n >= 1; the mean of the two middle values when n is even).
   Sorts v in place. */
double timing_median(double *v, size_t n);

#endif /* PSCAN_TOOL_TIMING_H */
