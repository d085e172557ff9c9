/* Progress of `pscan bench` on stderr (progress.c): on a terminal one line rewritten in place
 * (the point and what is being done at it), elsewhere one line per point. The driver (bench.c)
 * starts it and counts the points; a part (bench_cpu.c) says what it is doing. */
#ifndef PSCAN_TOOL_BENCH_PROGRESS_H
#define PSCAN_TOOL_BENCH_PROGRESS_H

#include "result.h"

/* A run of `points` points begins now. */
void progress_start(int points);
/* Point p begins (off a terminal: its line). */
void progress_point(const bench_point *p);
/* k points are done (measured or skipped). */
void progress_done(int k);
/* On a terminal: what is being done now at point p. */
void progress_what(const bench_point *p, const char *what);
/* Erases the line being rewritten, if any. */
void progress_clear(void);
/* Seconds since progress_start. */
double progress_elapsed(void);

#endif /* PSCAN_TOOL_BENCH_PROGRESS_H */
