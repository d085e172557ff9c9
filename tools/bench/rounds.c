/* The timing method of `pscan bench` on the CPU (see rounds.h). */
#define _POSIX_C_SOURCE 200809L /* nanosleep, CLOCK_PROCESS_CPUTIME_ID */
#include "rounds.h"
#include "timing.h"
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { DEFAULT_MAX_INNER = 1 << 20 };
#define SETTLE_WINDOW_NS 5000000L /* longer than a scheduler tick, which CPU time is counted in */
#define SETTLE_BUSY_S 1e-3
#define SETTLE_MAX_WINDOWS 40

static double process_cpu_s(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return -1;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void rounds_settle(void) {
  for (int w = 0; w < SETTLE_MAX_WINDOWS; w++) {
    double c0 = process_cpu_s();
    struct timespec pause = {0, SETTLE_WINDOW_NS};
    nanosleep(&pause, NULL);
    double c1 = process_cpu_s();
    if (c0 < 0 || c1 < 0 || c1 - c0 < SETTLE_BUSY_S)
      return;
  }
}

static int timed_call(rounds_impl *m, double *seconds) {
  double t0 = timing_now();
  int rc = m->call(m->arg);
  *seconds = timing_now() - t0;
  if (m->spins_after)
    rounds_settle();
  return rc;
}

int rounds_warm_up(rounds_impl *m) {
  m->warm_is_sample = false;
  m->count = 0;
  return timed_call(m, &m->warm_s);
}

int rounds_calibrate(rounds_impl *m, double big_s) {
  long most = m->max_inner > 0 ? m->max_inner : DEFAULT_MAX_INNER;
  double one = m->warm_s;
  m->warm_is_sample = big_s > 0 && m->warm_s > big_s;
  if (!m->warm_is_sample && m->warm_s <= ROUNDS_LONG_CALL_S) {
    int rc = timed_call(m, &one);
    if (rc != 0)
      return rc;
  }
  m->inner = 1;
  if (one < ROUNDS_MIN_SAMPLE_S)
    m->inner = one > 0 ? (long)ceil(ROUNDS_MIN_SAMPLE_S / one) : most;
  if (m->inner > most)
    m->inner = most;
  m->sample_s = one * (double)m->inner;
  return 0;
}

/* One sample of m: inner calls timed together. */
static int sample(rounds_impl *m, double *seconds) {
  int rc = m->before ? m->before(m->arg) : 0;
  double t0 = timing_now();
  for (long j = 0; j < m->inner && rc == 0; j++)
    rc = m->call(m->arg);
  *seconds = (timing_now() - t0) / (double)m->inner;
  if (m->spins_after)
    rounds_settle();
  return rc;
}

static int clamp_want(const rounds_impl *m) {
  int w = m->want < 1 ? 1 : m->want;
  return w > ROUNDS_MAX_SAMPLES ? ROUNDS_MAX_SAMPLES : w;
}

int rounds_run(rounds_impl *v, int count, void (*on_round)(int round, void *ctx), void *ctx) {
  int most = 1;
  for (int i = 0; i < count; i++)
    most = clamp_want(&v[i]) > most ? clamp_want(&v[i]) : most;
  double *s = malloc(sizeof(double) * (size_t)count * (size_t)most);
  if (!s) {
    cli_error("bench", "out of memory");
    return 1;
  }
  for (int i = 0; i < count; i++) {
    v[i].count = 0;
    if (v[i].warm_is_sample)
      s[(size_t)i * (size_t)most + (size_t)v[i].count++] = v[i].warm_s;
  }
  int rc = 0;
  for (int round = 0; round < most && rc == 0; round++) {
    if (on_round)
      on_round(round, ctx);
    for (int i = 0; i < count && rc == 0; i++)
      if (v[i].count < clamp_want(&v[i]))
        rc = sample(&v[i], &s[(size_t)i * (size_t)most + (size_t)v[i].count++]);
  }
  const char *trace = getenv("PSCAN_BENCH_SAMPLES");
  for (int i = 0; i < count && rc == 0 && trace && trace[0] == '1'; i++) {
    fprintf(stderr, "samples, %s, %ld call%s each, ms a call:", v[i].name ? v[i].name : "?",
            v[i].inner, v[i].inner > 1 ? "s" : "");
    for (int k = 0; k < v[i].count; k++)
      fprintf(stderr, " %.4g", s[(size_t)i * (size_t)most + (size_t)k] * 1e3);
    fputc('\n', stderr);
  }
  for (int i = 0; i < count && rc == 0; i++)
    v[i].seconds = timing_median(s + (size_t)i * (size_t)most, (size_t)v[i].count);
  free(s);
  return rc;
}
