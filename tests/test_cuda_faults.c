/* The CUDA backend under faults (issue 6): nothing may crash, hang or go wrong silently.
 *
 *   test_cuda_faults            every kernel launch of a call made to fail in turn (the test-only
 *                               hook of src/alloc.c, PSCAN__FAULT_LAUNCH), and every allocation
 *                               (host state, device workspace) of a first call on a fresh context:
 *                               each answers PSCAN_ERR_DEVICE (a launch) or PSCAN_ERR_OUT_OF_MEMORY
 *                               (an allocation) with a one-line message, and the same call
 *                               repeated on the same context is then correct.
 *   test_cuda_faults --sticky   a real device fault: a scan told to read far past its buffer
 *                               faults on the GPU (an illegal address, a sticky error that
 *                               poisons the CUDA context for the rest of the process). The call or
 *                               the next pscan_synchronize must answer PSCAN_ERR_DEVICE with the
 *                               CUDA message, later calls too, promptly, and pscan_destroy must
 *                               return. (ctest runs it as its own process.)
 *
 * Without a usable GPU both print SKIP and exit 77. */
#include "../src/internal.h" /* pscan__fault_arm, pscan__fault_disarm */
#include "cuda_ok.h"
#include "test.h"

#include <limits.h>
#include <string.h>

enum { SKIP = 77, N = 1 << 20 };

static pscan_ctx *gpu_ctx(void) {
  pscan_ctx *ctx = NULL;
  pscan_status s = pscan_create(&ctx, PSCAN_BACKEND_CUDA);
  if (s == PSCAN_ERR_NO_DEVICE || s == PSCAN_ERR_UNSUPPORTED) {
    printf("SKIP: %s\n", pscan_last_error(NULL));
    exit(SKIP);
  }
  CHECK(s == PSCAN_OK, "pscan_create(CUDA): %s: %s", pscan_status_name(s), pscan_last_error(NULL));
  return ctx;
}

/* Device buffers shared by the scenarios: in = 1, 2, 3, ... (i32); out; a count. */
static int32_t *d_in, *d_out;
static size_t *d_count;

typedef enum { SCAN_AUTO, SCAN_CHAINED, SCAN_RTS, SCAN_STP, SCAN_SMALL, SELECT, REDUCE_BY_KEY,
               SCENARIOS } scenario;
static const char *const names[SCENARIOS] = {
    "scan auto", "scan chained", "scan reduce-then-scan", "scan scan-then-propagate",
    "scan of 1000 (one block)", "select_if (device count)", "reduce_by_key (host count)"};

/* Runs one call; on PSCAN_OK, checks its result. */
static pscan_status run(pscan_ctx *ctx, scenario sc) {
  static const int algos[] = {PSCAN_ALGO_AUTO, PSCAN_ALGO_CHAINED, PSCAN_ALGO_REDUCE_THEN_SCAN,
                              PSCAN_ALGO_SCAN_THEN_PROPAGATE, PSCAN_ALGO_AUTO};
  const int32_t limit = N / 2;
  size_t n = sc == SCAN_SMALL ? 1000 : N, count = 0;
  CUDA_OK(cudaMemset(d_out, 0xA5, N * sizeof *d_out));
  pscan_status s;
  if (sc <= SCAN_SMALL) {
    pscan_set_param(ctx, PSCAN_PARAM_ALGO, algos[sc]);
    s = pscan_inclusive_scan(ctx, d_in, d_out, n, PSCAN_I32, PSCAN_SUM);
  } else if (sc == SELECT) {
    s = pscan_select_if(ctx, d_in, d_out, n, PSCAN_I32, PSCAN_LE, &limit, d_count);
  } else { /* keys = values = in: every key its own run */
    s = pscan_reduce_by_key(ctx, d_in, PSCAN_I32, d_in, PSCAN_I32, d_out, d_out + N / 2, n / 2,
                            PSCAN_SUM, &count);
  }
  pscan_status sync = pscan_synchronize(ctx);
  if (s != PSCAN_OK || sync != PSCAN_OK)
    return s != PSCAN_OK ? s : sync;
  int32_t *h = test_malloc(N * sizeof *h);
  CUDA_OK(cudaMemcpy(h, d_out, N * sizeof *h, cudaMemcpyDeviceToHost));
  bool ok = true;
  if (sc <= SCAN_SMALL) {
    for (size_t i = 0; ok && i < n; i++) /* sum of 1..i+1, wrapping like int32 */
      ok = h[i] == (int32_t)(uint32_t)((uint64_t)(i + 1) * (i + 2) / 2);
  } else if (sc == SELECT) {
    CUDA_OK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    ok = count == (size_t)limit;
    for (size_t i = 0; ok && i < count; i++)
      ok = h[i] == (int32_t)(i + 1);
  } else {
    ok = count == n / 2;
    for (size_t i = 0; ok && i < count; i++)
      ok = h[i] == (int32_t)(i + 1) && h[N / 2 + i] == (int32_t)(i + 1);
  }
  free(h);
  CHECK(ok, "%s: wrong result after a fault-free call", "");
  return PSCAN_OK;
}

/* Each launch of each scenario fails in turn. */
static long launch_faults(pscan_ctx *ctx) {
  long injected = 0;
  for (int sc = 0; sc < SCENARIOS; sc++) {
    pscan__fault_arm(PSCAN__FAULT_LAUNCH, LONG_MAX);
    CHECK_STATUS(run(ctx, (scenario)sc), PSCAN_OK);
    long launches = pscan__fault_disarm(PSCAN__FAULT_LAUNCH);
    CHECK(launches >= 1, "%s: no kernel launch counted", names[sc]);
    for (long k = 0; k < launches; k++) {
      pscan__fault_arm(PSCAN__FAULT_LAUNCH, k);
      pscan_status s = run(ctx, (scenario)sc);
      pscan__fault_disarm(PSCAN__FAULT_LAUNCH);
      const char *msg = pscan_last_error(ctx);
      CHECK(s == PSCAN_ERR_DEVICE && strstr(msg, "launch") && !strchr(msg, '\n'),
            "%s, launch %ld of %ld failing: %s (%s), want PSCAN_ERR_DEVICE with the CUDA message",
            names[sc], k, launches, pscan_status_name(s), msg);
      CHECK_STATUS(run(ctx, (scenario)sc), PSCAN_OK); /* the context is still usable */
      injected++;
    }
  }
  return injected;
}

/* Each allocation of a first call on a fresh context (the host state at pscan_create, then the
   device workspace and status words) fails in turn. */
static long alloc_faults(void) {
  long injected = 0;
  for (int sc = 0; sc < SCENARIOS; sc++) {
    pscan__fault_arm(PSCAN__FAULT_ALLOC, LONG_MAX);
    pscan_ctx *ctx = gpu_ctx();
    CHECK_STATUS(run(ctx, (scenario)sc), PSCAN_OK);
    long allocs = pscan__fault_disarm(PSCAN__FAULT_ALLOC);
    pscan_destroy(ctx);
    for (long k = 0; k < allocs; k++) {
      pscan__fault_arm(PSCAN__FAULT_ALLOC, k);
      ctx = NULL;
      pscan_status s = pscan_create(&ctx, PSCAN_BACKEND_CUDA);
      if (s == PSCAN_OK)
        s = run(ctx, (scenario)sc);
      pscan__fault_disarm(PSCAN__FAULT_ALLOC);
      CHECK(s == PSCAN_ERR_OUT_OF_MEMORY, "%s, allocation %ld of %ld failing: %s (%s)", names[sc],
            k, allocs, pscan_status_name(s), pscan_last_error(ctx));
      if (ctx)
        CHECK_STATUS(run(ctx, (scenario)sc), PSCAN_OK);
      pscan_destroy(ctx);
      injected++;
    }
  }
  return injected;
}

static void sticky(void) {
  pscan_ctx *ctx = gpu_ctx();
  int32_t *small = NULL;
  CUDA_OK(cudaMalloc((void **)&small, 4096));
  /* 2^30 elements of a 4 KB buffer: the tiles far past it touch unmapped addresses. */
  double t0 = test_seconds();
  pscan_status s = pscan_inclusive_scan(ctx, small, small, (size_t)1 << 30, PSCAN_I32, PSCAN_SUM);
  if (s == PSCAN_OK)
    s = pscan_synchronize(ctx);
  const char *msg = pscan_last_error(ctx);
  CHECK(s == PSCAN_ERR_DEVICE && strstr(msg, "illegal"),
        "a scan that faults on the GPU: %s (%s), want PSCAN_ERR_DEVICE naming the illegal address",
        pscan_status_name(s), msg);
  printf("faulting scan: %s: %s\n", pscan_status_name(s), msg);
  /* The CUDA context is lost for this process: later calls must say so, not hang. */
  s = pscan_inclusive_scan(ctx, small, small, 1000, PSCAN_I32, PSCAN_SUM);
  if (s == PSCAN_OK)
    s = pscan_synchronize(ctx);
  CHECK(s == PSCAN_ERR_DEVICE, "a call after a sticky device error: %s (%s)",
        pscan_status_name(s), pscan_last_error(ctx));
  printf("next call: %s: %s\n", pscan_status_name(s), pscan_last_error(ctx));
  pscan_destroy(ctx);
  printf("sticky error: reported and destroyed in %.2f s\n", test_seconds() - t0);
}

int main(int argc, char **argv) {
  test_init("test_cuda_faults");
  if (argc > 1 && strcmp(argv[1], "--sticky") == 0) {
    sticky();
    return test_finish();
  }
  pscan_ctx *ctx = gpu_ctx();
  CUDA_OK(cudaMalloc((void **)&d_in, N * sizeof *d_in));
  CUDA_OK(cudaMalloc((void **)&d_out, N * sizeof *d_out));
  CUDA_OK(cudaMalloc((void **)&d_count, sizeof *d_count));
  int32_t *h = test_malloc(N * sizeof *h);
  for (size_t i = 0; i < N; i++)
    h[i] = (int32_t)(i + 1);
  CUDA_OK(cudaMemcpy(d_in, h, N * sizeof *h, cudaMemcpyHostToDevice));
  free(h);
  long launches = launch_faults(ctx);
  pscan_destroy(ctx);
  long allocs = alloc_faults();
  printf("faults injected: %ld kernel launches, %ld allocations\n", launches, allocs);
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  CUDA_OK(cudaFree(d_count));
  return test_finish();
}
