/* A persistent team of pthreads (see team.h). A run bumps a generation under the lock and
 * broadcasts; workers spin briefly for the next generation, then sleep. The caller waits for a
 * count of finished workers the same way (spin, yield, then sleep). */
#define _POSIX_C_SOURCE 200809L
#include "team.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

enum { SPINS = 2000, YIELDS = 200 };

typedef struct start {
  struct team *t;
  int tid;
} start;

struct team {
  int nthreads;
  pthread_t *threads;
  start *starts; /* what each worker was started with */
  team_fn fn;
  void *arg;
  bool stop;
  _Atomic unsigned long generation;
  _Atomic int finished;
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
};

static void *worker(void *p) {
  start *s = p;
  team *t = s->t;
  int tid = s->tid;
  unsigned long seen = 0;
  for (;;) {
    unsigned long g;
    int spins = 0;
    while ((g = atomic_load_explicit(&t->generation, memory_order_acquire)) == seen &&
           spins < SPINS + YIELDS)
      if (++spins > SPINS)
        sched_yield();
    if (g == seen) {
      pthread_mutex_lock(&t->lock);
      while ((g = atomic_load_explicit(&t->generation, memory_order_acquire)) == seen)
        pthread_cond_wait(&t->wake, &t->lock);
      pthread_mutex_unlock(&t->lock);
    }
    seen = g;
    if (t->stop)
      return NULL;
    t->fn(t->arg, tid, t->nthreads);
    if (atomic_fetch_add_explicit(&t->finished, 1, memory_order_acq_rel) + 1 == t->nthreads - 1) {
      pthread_mutex_lock(&t->lock);
      pthread_cond_signal(&t->done);
      pthread_mutex_unlock(&t->lock);
    }
  }
}

static void publish(team *t, team_fn fn, void *arg, bool stop) {
  t->fn = fn;
  t->arg = arg;
  t->stop = stop;
  atomic_store_explicit(&t->finished, 0, memory_order_relaxed);
  pthread_mutex_lock(&t->lock);
  atomic_fetch_add_explicit(&t->generation, 1, memory_order_release);
  pthread_cond_broadcast(&t->wake);
  pthread_mutex_unlock(&t->lock);
}

void team_run(team *t, team_fn fn, void *arg) {
  if (t->nthreads == 1) {
    fn(arg, 0, 1);
    return;
  }
  publish(t, fn, arg, false);
  fn(arg, 0, t->nthreads);
  int workers = t->nthreads - 1, spins = 0;
  while (atomic_load_explicit(&t->finished, memory_order_acquire) != workers) {
    if (++spins < SPINS + YIELDS) {
      if (spins > SPINS)
        sched_yield();
      continue;
    }
    pthread_mutex_lock(&t->lock);
    while (atomic_load_explicit(&t->finished, memory_order_acquire) != workers)
      pthread_cond_wait(&t->done, &t->lock);
    pthread_mutex_unlock(&t->lock);
  }
}

/* Stops and joins the first started workers, then frees t. */
static void teardown(team *t, int started) {
  if (started > 0)
    publish(t, NULL, NULL, true);
  for (int i = 0; i < started; i++)
    pthread_join(t->threads[i], NULL);
  pthread_cond_destroy(&t->done);
  pthread_cond_destroy(&t->wake);
  pthread_mutex_destroy(&t->lock);
  free(t->threads);
  free(t->starts);
  free(t);
}

team *team_create(int nthreads) {
  team *t = calloc(1, sizeof *t);
  if (!t || nthreads < 1) {
    free(t);
    return NULL;
  }
  t->nthreads = nthreads;
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->wake, NULL);
  pthread_cond_init(&t->done, NULL);
  size_t workers = (size_t)nthreads - 1;
  t->starts = workers ? calloc(workers, sizeof *t->starts) : NULL;
  t->threads = workers ? calloc(workers, sizeof *t->threads) : NULL;
  if (workers && (!t->starts || !t->threads)) {
    teardown(t, 0);
    return NULL;
  }
  for (size_t i = 0; i < workers; i++) {
    t->starts[i] = (start){t, (int)i + 1};
    if (pthread_create(&t->threads[i], NULL, worker, &t->starts[i]) != 0) {
      teardown(t, (int)i);
      return NULL;
    }
  }
  return t;
}

void team_destroy(team *t) {
  if (t)
    teardown(t, t->nthreads - 1);
}

int team_threads(const team *t) { return t->nthreads; }
