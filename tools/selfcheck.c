/* `pscan selfcheck`: every CPU algorithm against simple loops written here, on a few types and
 * operators, sizes and thread counts. It is a smoke test that the installed library works on this
 * machine, not the test suite (that is tests/, run by ctest). */
#include "commands.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char selfcheck_help[] =
    "usage: pscan selfcheck\n"
    "\n"
    "Checks every CPU algorithm (sequential, decoupled-lookback, chained, reduce-then-scan,\n"
    "scan-then-propagate, auto) against plain loops written in the tool:\n"
    "  i32 sum, i64 max, f64 sum (small integers, so exact), u8 -> u64 widening sum,\n"
    "  i32 exclusive sum from an init value, i32 in-place sum (inclusive and exclusive)\n"
    "on n = 0, 1, 1000, 100003 and 2^20 elements, with 1 thread and with all cores.\n"
    "Prints one line per algorithm and a total; exit status 0 if all pass, 1 otherwise.\n";

enum { MAX_N = 1 << 20, MAX_DETAILS = 5 };
static const size_t sizes[] = {0, 1, 1000, 100003, MAX_N};
static const int32_t EXCL_INIT = 12345;

/* ---- The reference loops: the obvious code, one per case. ---- */

static void ref_i32_sum(const void *in_, void *out_, size_t n) {
  const int32_t *in = in_;
  int32_t *out = out_;
  uint32_t acc = 0; /* wraps like the library */
  for (size_t i = 0; i < n; i++)
    out[i] = (int32_t)(acc += (uint32_t)in[i]);
}

/* The exclusive i32 sum from acc (wrapping). */
static void ref_i32_excl_from(const int32_t *in, int32_t *out, size_t n, uint32_t acc) {
  for (size_t i = 0; i < n; i++) {
    out[i] = (int32_t)acc;
    acc += (uint32_t)in[i];
  }
}

static void ref_i32_excl_init(const void *in, void *out, size_t n) {
  ref_i32_excl_from(in, out, n, (uint32_t)EXCL_INIT);
}

static void ref_i32_excl(const void *in, void *out, size_t n) { ref_i32_excl_from(in, out, n, 0); }

static void ref_i64_max(const void *in_, void *out_, size_t n) {
  const int64_t *in = in_;
  int64_t *out = out_;
  int64_t acc = INT64_MIN;
  for (size_t i = 0; i < n; i++)
    out[i] = acc = in[i] > acc ? in[i] : acc;
}

/* The inclusive sum of IN_T elements in OUT_T, left to right. */
#define REF_SUM(name, IN_T, OUT_T)                                                                 \
  static void name(const void *in_, void *out_, size_t n) {                                        \
    const IN_T *in = in_;                                                                          \
    OUT_T *out = out_;                                                                             \
    OUT_T acc = 0;                                                                                 \
    for (size_t i = 0; i < n; i++)                                                                 \
      out[i] = acc += in[i];                                                                       \
  }
REF_SUM(ref_f64_sum, double, double)
REF_SUM(ref_u8_u64_sum, uint8_t, uint64_t)

/* ---- Inputs ---- */

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static void gen_i32(void *p, size_t n, uint64_t s) {
  for (size_t i = 0; i < n; i++)
    ((int32_t *)p)[i] = (int32_t)(uint32_t)next(&s); /* full range: sums wrap */
}
static void gen_i64(void *p, size_t n, uint64_t s) {
  for (size_t i = 0; i < n; i++)
    ((int64_t *)p)[i] = (int64_t)(next(&s) >> 1) - (INT64_MAX / 2);
}
static void gen_f64_small(void *p, size_t n, uint64_t s) {
  for (size_t i = 0; i < n; i++)
    ((double *)p)[i] = (double)((int)(next(&s) % 17) - 8);
}
static void gen_u8(void *p, size_t n, uint64_t s) {
  for (size_t i = 0; i < n; i++)
    ((uint8_t *)p)[i] = (uint8_t)next(&s);
}

typedef struct sc_case {
  const char *name;
  pscan_dtype in_type, out_type;
  pscan_op op;
  int exclusive;
  const void *init;
  bool in_place;
  void (*gen)(void *in, size_t n, uint64_t seed);
  void (*ref)(const void *in, void *out, size_t n);
} sc_case;

static const sc_case cases[] = {
    {"i32 sum", PSCAN_I32, PSCAN_I32, PSCAN_SUM, 0, NULL, false, gen_i32, ref_i32_sum},
    {"i64 max", PSCAN_I64, PSCAN_I64, PSCAN_MAX, 0, NULL, false, gen_i64, ref_i64_max},
    {"f64 sum", PSCAN_F64, PSCAN_F64, PSCAN_SUM, 0, NULL, false, gen_f64_small, ref_f64_sum},
    {"u8->u64 sum", PSCAN_U8, PSCAN_U64, PSCAN_SUM, 0, NULL, false, gen_u8, ref_u8_u64_sum},
    {"i32 exclusive sum, init", PSCAN_I32, PSCAN_I32, PSCAN_SUM, 1, &EXCL_INIT, false, gen_i32,
     ref_i32_excl_init},
    {"i32 in-place sum", PSCAN_I32, PSCAN_I32, PSCAN_SUM, 0, NULL, true, gen_i32, ref_i32_sum},
    {"i32 in-place exclusive sum", PSCAN_I32, PSCAN_I32, PSCAN_SUM, 1, NULL, true, gen_i32,
     ref_i32_excl},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

typedef struct buffers {
  char *in, *out, *ref;
} buffers;

typedef struct tally {
  int passed, failed, details;
} tally;

/* One scan of c on n elements with ctx as configured; false with a one-line reason on failure.
   The input is in b->in and the expected result in b->ref. */
static bool check_one(pscan_ctx *ctx, const sc_case *c, size_t n, const buffers *b, char *why,
                      size_t len) {
  size_t in_size = pscan_dtype_size(c->in_type), out_size = pscan_dtype_size(c->out_type);
  memset(b->out, 0xA5, n * out_size); /* poison: an element never written cannot pass */
  if (c->in_place)
    memcpy(b->out, b->in, n * in_size);
  pscan_scan_args a = {.in = c->in_place ? b->out : b->in, .in_type = c->in_type,
                       .out = b->out, .out_type = c->out_type, .n = n, .op = c->op,
                       .exclusive = c->exclusive, .init = c->init};
  if (n == 0)
    a.in = a.out = NULL; /* allowed by the API when n == 0 */
  pscan_status s = pscan_scan(ctx, &a);
  if (s != PSCAN_OK) {
    snprintf(why, len, "%s: %s", pscan_status_name(s), pscan_last_error(ctx));
    return false;
  }
  for (size_t i = 0; i < n; i++)
    if (memcmp(b->out + i * out_size, b->ref + i * out_size, out_size) != 0) {
      snprintf(why, len, "first wrong element at index %zu", i);
      return false;
    }
  return true;
}

/* All cases, sizes and thread counts for one algorithm. */
static void check_algo(pscan_algo algo, pscan_ctx *const *ctxs, const int *threads, int nthreads,
                       const buffers *b, tally *t) {
  for (int k = 0; k < NCASES; k++) {
    const sc_case *c = &cases[k];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      c->gen(b->in, n, 0x9E3779B97F4A7C15u ^ (n * 31 + (size_t)k));
      c->ref(b->in, b->ref, n);
      for (int j = 0; j < nthreads; j++) {
        char why[320];
        pscan_status st = pscan_set_param(ctxs[j], PSCAN_PARAM_ALGO, algo);
        bool ok = st == PSCAN_OK;
        if (!ok)
          snprintf(why, sizeof why, "pscan_set_param(ALGO): %s", pscan_status_name(st));
        else
          ok = check_one(ctxs[j], c, n, b, why, sizeof why);
        if (ok) {
          t->passed++;
          continue;
        }
        t->failed++;
        if (t->details++ < MAX_DETAILS)
          printf("    FAIL %s, %s, n = %zu, threads = %d: %s\n", cli_algo_name(algo), c->name, n,
                 threads[j], why);
      }
    }
  }
}

static int run_selfcheck(void) {
  int cpus = sysinfo_cpus();
  int threads[2] = {1, cpus};
  int nthreads = cpus > 1 ? 2 : 1;
  pscan_ctx *ctxs[2] = {NULL, NULL};
  buffers b = {malloc((size_t)MAX_N * 8), malloc((size_t)MAX_N * 8), malloc((size_t)MAX_N * 8)};
  int rc = 1;
  if (!b.in || !b.out || !b.ref) {
    cli_error("selfcheck", "out of memory");
    goto done;
  }
  for (int j = 0; j < nthreads; j++) {
    pscan_status s = pscan_create(&ctxs[j], PSCAN_BACKEND_CPU);
    if (s == PSCAN_OK)
      s = pscan_set_param(ctxs[j], PSCAN_PARAM_THREADS, threads[j]);
    if (s != PSCAN_OK) {
      cli_error("selfcheck", "cannot set up a CPU context with %d threads: %s (%s)", threads[j],
                pscan_status_name(s), pscan_last_error(ctxs[j]));
      goto done;
    }
  }
  printf("selfcheck: pscan %s, CPU backend, threads 1%s", pscan_version_string(),
         nthreads > 1 ? " and " : "\n");
  if (nthreads > 1)
    printf("%d\n", cpus);
  tally total = {0, 0, 0};
  for (int a = 0; a < PSCAN_ALGO_COUNT; a++) {
    tally t = {0, 0, total.details};
    check_algo((pscan_algo)a, ctxs, threads, nthreads, &b, &t);
    printf("  %-22s %4d/%d %s\n", cli_algo_name((pscan_algo)a), t.passed, t.passed + t.failed,
           t.failed ? "FAILED" : "ok");
    total.passed += t.passed;
    total.failed += t.failed;
    total.details = t.details;
  }
  printf("selfcheck: %d passed, %d failed\n", total.passed, total.failed);
  rc = total.failed ? 1 : 0;
done:
  for (int j = 0; j < 2; j++)
    pscan_destroy(ctxs[j]);
  free(b.in);
  free(b.out);
  free(b.ref);
  fflush(stdout);
  return rc;
}

int cmd_selfcheck(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(selfcheck_help, stdout);
      return 0;
    }
    return cli_usage_error("selfcheck", "unexpected argument '%s'", argv[i]);
  }
  return run_selfcheck();
}
