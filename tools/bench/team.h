/* A team of plain pthreads for the benchmark's peers (memcpy, streaming copy, reduction), kept
 * apart from the library's own pool so the peers owe nothing to it. Workers persist between runs
 * (created once per thread count, like the library's pool, so both pay the same per-call cost)
 * and sleep on a condition variable between runs so they never hold a core while pscan runs. */
#ifndef PSCAN_TOOL_TEAM_H
#define PSCAN_TOOL_TEAM_H

typedef struct team team;
typedef void (*team_fn)(void *arg, int tid, int nthreads);

/* A team of nthreads (the caller plus nthreads - 1 workers); NULL if threads cannot be made. */
team *team_create(int nthreads);
void team_destroy(team *t); /* NULL is a no-op */
int team_threads(const team *t);
/* Runs fn(arg, tid, nthreads) on every thread of the team (the caller is tid 0) and returns when
   all have finished. */
void team_run(team *t, team_fn fn, void *arg);

#endif /* PSCAN_TOOL_TEAM_H */
