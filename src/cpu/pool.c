/* A pool of persistent worker threads, owned by a context and reused by every call.
 *
 * A dispatch publishes (fn, arg, nthreads) and bumps a generation counter; workers notice it by
 * spinning for a short while after their last task and otherwise sleep on a condition variable.
 * Every worker acknowledges every generation, so the dispatch fields are never rewritten while a
 * slow worker may still read them. All waits back off from spinning to yielding to sleeping, so
 * the pool makes progress even with far more threads than cores. */
#define _GNU_SOURCE
#include "cpu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define CPU_PAUSE() __asm__ __volatile__("yield")
#else
#define CPU_PAUSE() ((void)0)
#endif

/* Sleeping only helps when threads outnumber cores (the thread being waited for needs the
   core). Otherwise a sleeping waiter notices its predecessor a timer tick late (~50 us with the
   default timer slack), and in a chain of hand-offs (CHAINED) every waiter then sleeps: a 16-thread
   chain was seen stuck at a tenth of its speed that way (docs/PERFORMANCE.md, "Waits that spin").
   */
enum { SPIN_STEPS = 256, YIELD_STEPS = 512, MAX_SLEEP_US = 20 };

void pscan__backoff(unsigned *spins, bool may_sleep) {
  unsigned s = (*spins)++;
  if (s < SPIN_STEPS) {
    CPU_PAUSE();
  } else if (s < SPIN_STEPS + YIELD_STEPS || !may_sleep) {
    sched_yield();
  } else {
    unsigned us = (s - (SPIN_STEPS + YIELD_STEPS)) / 8 + 1;
    struct timespec ts = {0, (long)(us < MAX_SLEEP_US ? us : MAX_SLEEP_US) * 1000L};
    nanosleep(&ts, NULL);
  }
}

typedef struct worker {
  struct pscan__pool *pool;
  int tid;
  pthread_t thread;
} worker;

struct pscan__pool {
  int nthreads; /* workers + the calling thread */
  worker *workers;
  /* The current dispatch: written before generation is bumped, read after it is seen. */
  pscan__task_fn fn;
  void *arg;
  int active;
  bool stopping;
  _Atomic uint64_t generation;
  _Atomic int pending; /* workers yet to acknowledge the current generation */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
};

/* Spin (with backoff) for a new generation, then sleep until one comes. */
static uint64_t wait_generation(struct pscan__pool *p, uint64_t seen) {
  unsigned spins = 0;
  uint64_t g;
  while ((g = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen) {
    if (spins >= SPIN_STEPS + YIELD_STEPS) {
      pthread_mutex_lock(&p->lock);
      while ((g = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen)
        pthread_cond_wait(&p->wake, &p->lock);
      pthread_mutex_unlock(&p->lock);
      return g;
    }
    pscan__backoff(&spins, true); /* parks on a condition variable first */
  }
  return g;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  struct pscan__pool *p = w->pool;
  uint64_t seen = 0;
  for (;;) {
    seen = wait_generation(p, seen);
    bool stop = p->stopping;
    if (!stop && w->tid < p->active)
      p->fn(p->arg, w->tid, p->active);
    if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&p->lock);
      pthread_cond_broadcast(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
    if (stop)
      return NULL;
  }
}

/* Publishes a dispatch to every worker and waits until all of them have acknowledged it. */
static void dispatch(struct pscan__pool *p, pscan__task_fn fn, void *arg, int nthreads, bool stop) {
  int nworkers = p->nthreads - 1;
  p->fn = fn;
  p->arg = arg;
  p->active = nthreads;
  p->stopping = stop;
  atomic_store_explicit(&p->pending, nworkers, memory_order_relaxed);
  pthread_mutex_lock(&p->lock);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);

  if (!stop && nthreads > 0)
    fn(arg, 0, nthreads);

  unsigned spins = 0;
  while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0) {
    if (spins >= SPIN_STEPS + YIELD_STEPS) {
      pthread_mutex_lock(&p->lock);
      while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0)
        pthread_cond_wait(&p->done, &p->lock);
      pthread_mutex_unlock(&p->lock);
      break;
    }
    pscan__backoff(&spins, true); /* parks on a condition variable first */
  }
}

static void stop_workers(struct pscan__pool *p, int started) {
  int all = p->nthreads;
  p->nthreads = started + 1; /* only the started workers acknowledge the stop */
  if (started > 0)
    dispatch(p, NULL, NULL, 0, true);
  for (int i = 0; i < started; i++)
    pthread_join(p->workers[i].thread, NULL);
  p->nthreads = all;
}

static void free_pool(struct pscan__pool *p) {
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  pscan__free(p->workers);
  pscan__free(p);
}

pscan_status pscan__pool_create(pscan_ctx *ctx, pscan__pool **out, int nthreads) {
  *out = NULL;
  struct pscan__pool *p = pscan__calloc(1, sizeof *p);
  worker *ws = nthreads > 1 ? pscan__calloc((size_t)nthreads - 1, sizeof *ws) : NULL;
  if (!p || (nthreads > 1 && !ws)) {
    pscan__free(p);
    pscan__free(ws);
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "thread pool: out of memory");
  }
  p->nthreads = nthreads;
  p->workers = ws;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  for (int i = 0; i < nthreads - 1; i++) {
    ws[i] = (worker){.pool = p, .tid = i + 1};
    int err = pscan__fault_inject(PSCAN__FAULT_THREAD)
                  ? EAGAIN /* what pthread_create answers when out of resources */
                  : pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]);
    if (err != 0) {
      stop_workers(p, i);
      free_pool(p);
      return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY,
                         "thread pool: could not start worker %d of %d: %s", i + 1, nthreads - 1,
                         strerror(err));
    }
  }
  *out = p;
  return PSCAN_OK;
}

void pscan__pool_destroy(pscan__pool *p) {
  if (!p)
    return;
  stop_workers(p, p->nthreads - 1);
  free_pool(p);
}

int pscan__pool_threads(const pscan__pool *p) { return p->nthreads; }

void pscan__pool_run(pscan__pool *p, pscan__task_fn fn, void *arg, int nthreads) {
  if (nthreads <= 1 || !p || p->nthreads <= 1) {
    fn(arg, 0, 1);
    return;
  }
  dispatch(p, fn, arg, nthreads, false);
}
