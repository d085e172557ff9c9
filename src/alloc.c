/* The library's heap allocations, and a test-only hook that makes the k-th allocation or thread
 * creation (or CUDA launch) from now fail (tests/test_faults.c, test_cuda_faults.c), so that every failure path can be exercised.
 * Unarmed, a fault point costs one relaxed atomic load. */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>

/* Per kind: fault points left before the one that fails (-1: disarmed), and the value armed. */
static _Atomic long countdown[PSCAN__FAULT_KINDS] = {-1, -1, -1};
static long armed[PSCAN__FAULT_KINDS] = {-1, -1, -1};

bool pscan__fault_inject(pscan__fault_kind kind) {
  _Atomic long *c = &countdown[kind];
  long left = atomic_load_explicit(c, memory_order_relaxed);
  /* A compare-exchange rather than a decrement: concurrent calls (contexts used from several
     threads) never take a disarmed counter below -1, and exactly one of them fails. */
  while (left >= 0 && !atomic_compare_exchange_weak_explicit(c, &left, left - 1,
                                                             memory_order_relaxed,
                                                             memory_order_relaxed))
    continue;
  return left == 0;
}

void pscan__fault_arm(pscan__fault_kind kind, long k) {
  armed[kind] = k < 0 ? -1 : k;
  atomic_store_explicit(&countdown[kind], armed[kind], memory_order_relaxed);
}

long pscan__fault_disarm(pscan__fault_kind kind) {
  long left = atomic_exchange_explicit(&countdown[kind], -1, memory_order_relaxed);
  return armed[kind] < 0 ? 0 : armed[kind] - left;
}

void *pscan__calloc(size_t count, size_t size) {
  return pscan__fault_inject(PSCAN__FAULT_ALLOC) ? NULL : calloc(count, size);
}

void *pscan__aligned_alloc(size_t alignment, size_t size) {
  return pscan__fault_inject(PSCAN__FAULT_ALLOC) ? NULL : aligned_alloc(alignment, size);
}

void pscan__free(void *p) { free(p); }
