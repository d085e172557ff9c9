/* How `pscan bench` times its CPU implementations: one method, shared by the CPU benchmark
 * (bench_cpu.c) and the CPU sweep (bench_sweep_cpu.c), so that a figure of one can be checked
 * against the other.
 *
 * Per implementation: a warm-up call (the caller checks its result), then a calibration call
 * that sets how many calls make a sample (at least ROUNDS_MIN_SAMPLE_S, so short calls are not
 * lost in the clock's resolution; none after a warm-up longer than ROUNDS_LONG_CALL_S: one call
 * is then a sample). Then rounds: each round takes one sample of every
 * implementation that wants more, in turn, so a machine whose speed drifts slows them all alike
 * and the ratios between them (a scan against the copy) hold. The figure is the median sample
 * divided by the calls in it. Clock: CLOCK_MONOTONIC (timing.h).
 *
 * Parallel runtimes (OpenMP, TBB) keep their idle workers spinning after a call returns (libgomp
 * ~300,000 pause instructions a thread: 5-20 ms); whatever is timed next would share the cores
 * with them. After every call of an implementation marked spins_after, outside the timing, the
 * process waits until it is quiet (rounds_settle). */
#ifndef PSCAN_TOOL_BENCH_ROUNDS_H
#define PSCAN_TOOL_BENCH_ROUNDS_H

#include <stdbool.h>

#define ROUNDS_MIN_SAMPLE_S 2e-3
#define ROUNDS_LONG_CALL_S (4 * ROUNDS_MIN_SAMPLE_S)
enum { ROUNDS_MAX_SAMPLES = 1000 };

typedef struct rounds_impl {
  /* Set by the caller. */
  int (*call)(void *arg);   /* one call: 0, or nonzero after printing why */
  int (*before)(void *arg); /* NULL, or run untimed before each sample (e.g. set a parameter) */
  void *arg;
  const char *name; /* for PSCAN_BENCH_SAMPLES (rounds_run); NULL: "?" */
  bool spins_after; /* a runtime whose idle threads spin after a call: settle after each */
  long max_inner;   /* calls per sample at most; 0: 1 << 20 */
  int want;         /* samples wanted, the warm-up included where it is one (rounds_calibrate) */
  /* Set by rounds_warm_up and rounds_calibrate. */
  double warm_s;   /* the warm-up call */
  double sample_s; /* the expected length of one sample */
  long inner;      /* calls per sample */
  bool warm_is_sample;
  /* Set by rounds_run. */
  int count;
  double seconds; /* the median time of one call */
} rounds_impl;

/* One call, timed (m->warm_s); its status. */
int rounds_warm_up(rounds_impl *m);
/* Sets m->inner and m->sample_s from one more timed call. Where the warm-up took longer than
   ROUNDS_LONG_CALL_S, no call is made: one call is a sample (inner 1) whatever the next call
   would take. Where it took longer than big_s (> 0), the warm-up is also the first sample
   (warm_is_sample), which keeps a one-thread loop at 2^28 items to one or two calls. */
int rounds_calibrate(rounds_impl *m, double big_s);
/* Rounds until every implementation has its want samples (at least 1); medians into seconds.
   on_round (may be NULL) is told each round's number before it starts. 0, or the first failed
   call's status (after printing why: the call's own message). With PSCAN_BENCH_SAMPLES=1 in
   the environment, every sample (ms a call, in the order taken) goes to stderr, a line per
   implementation. */
int rounds_run(rounds_impl *v, int count, void (*on_round)(int round, void *ctx), void *ctx);
/* Waits (at most ~0.2 s) until this process's threads stop using CPU: until, in a 5 ms window
   of sleep, they used less than 1 ms of CPU time. */
void rounds_settle(void);

#endif /* PSCAN_TOOL_BENCH_ROUNDS_H */
