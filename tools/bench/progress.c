/* Progress of `pscan bench` on stderr: see progress.h. */
#define _POSIX_C_SOURCE 200809L /* isatty */
#include "progress.h"
#include "timing.h"
#include "cli/cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

static struct {
  int points_done, points;
  bool tty, shown;
  double start;
} progress;

void progress_start(int points) {
  progress.tty = isatty(STDERR_FILENO);
  progress.start = timing_now();
  progress.points = points;
  progress.points_done = 0;
}

void progress_what(const bench_point *p, const char *what) {
  char count[32];
  if (!progress.tty)
    return;
  fprintf(stderr, "\r\033[K[point %d/%d, %.0f s] %s, n = %s, %d thread%s: %s",
          progress.points_done + 1, progress.points, progress_elapsed(),
          cli_dtype_name(p->type), cli_format_count(p->n, count, sizeof count), p->threads,
          p->threads == 1 ? "" : "s", what);
  progress.shown = true;
}

void progress_point(const bench_point *p) {
  char count[32];
  if (!progress.tty)
    fprintf(stderr, "pscan bench: [point %d/%d, %.0f s] %s, n = %s, %d thread%s\n",
            progress.points_done + 1, progress.points, progress_elapsed(),
            cli_dtype_name(p->type), cli_format_count(p->n, count, sizeof count), p->threads,
            p->threads == 1 ? "" : "s");
}

void progress_done(int k) { progress.points_done += k; }

void progress_clear(void) {
  if (progress.shown)
    fputs("\r\033[K", stderr);
  progress.shown = false;
}

double progress_elapsed(void) { return timing_now() - progress.start; }
