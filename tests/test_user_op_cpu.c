/* The user operator suite's cases of the CPU backend alone (test_user_op.c says what the suite
 * covers; shared pieces in test_user_op.h): DETERMINISTIC, allocation failures, the seam for
 * other entry points, the compiler and the disk cache. */
#define _GNU_SOURCE
#include "../src/cpu/cpu.h" /* pscan__fault_arm, the seam for other engines (host combine) */
#include "test_user_op.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- DETERMINISTIC: a float operator on inexact data gives the same bits on any thread count
   (the compiled kernels split partitions at fixed places, whatever the threads) ---- */
void test_deterministic(void) {
  size_t n = quick ? 200001 : 1000003;
  uo_affine_f32 *in = test_malloc(n * sizeof *in), *first = test_malloc(n * sizeof *in),
                *out = test_malloc(n * sizeof *in);
  test_rng rng = test_fork(seed, 4000);
  for (size_t i = 0; i < n; i++)
    in[i] = (uo_affine_f32){(float)(0.9 + 0.1 * test_uniform(&rng)), (float)test_uniform(&rng)};
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = uo_cases[0].source,
                     .type_name = "affine", .name = "compose", .elem_size = sizeof *in};
  static const int threads[] = {1, 2, 3, 5};
  uo_affine_f32 total_first = {0, 0}, total = {0, 0};
  for (int t = 0; t < 4; t++) {
    pscan_ctx *ctx = make_ctx(threads[t]);
    test_set(ctx, PSCAN_PARAM_DETERMINISTIC, 1);
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
    if (op) {
      CHECK_STATUS(pscan_scan_op(ctx, in, t ? out : first, n, op, 0, NULL), PSCAN_OK);
      CHECK_STATUS(pscan_reduce_op(ctx, in, n, op, NULL, t ? &total : &total_first), PSCAN_OK);
      if (t) {
        CHECK(!memcmp(first, out, n * sizeof *in), "deterministic: %d threads differ from 1",
              threads[t]);
        CHECK(!memcmp(&total_first, &total, sizeof total),
              "deterministic reduction: %d threads differ from 1", threads[t]);
      }
    }
    pscan_op_destroy(op);
    pscan_destroy(ctx);
  }
  free(in);
  free(first);
  free(out);
}

/* ---- Allocation failures: each allocation of a create and a scan made to fail in turn (a
   fresh compile, a disk hit and an in-context hit); the call answers OUT_OF_MEMORY or succeeds,
   leaks nothing (ASan) and leaves the context usable. ---- */
void test_alloc_faults(void) {
  const uo_case *c = &uo_cases[0];
  char src[1024];
  snprintf(src, sizeof src, "/* faults %llu */\n%s", (unsigned long long)seed, c->source);
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .identity = c->identity};
  size_t n = 100000;
  uo_affine_f32 *in = test_malloc(n * sizeof *in), *out = test_malloc(n * sizeof *out);
  test_rng rng = test_fork(seed, 5000);
  for (size_t i = 0; i < n; i++)
    c->fill(&rng, &in[i]);
  int oom = 0, ok = 0;
  for (int phase = 0; phase < 3; phase++) {
    for (long k = 0;; k++) {
      pscan_ctx *ctx = make_ctx(2);
      pscan_user_op *op = NULL, *warm = NULL;
      if (phase == 0) /* a source never compiled: the whole build path */
        snprintf(src, sizeof src, "/* faults %llu %ld */\n%s", (unsigned long long)seed, k,
                 c->source);
      if (phase == 2)
        CHECK_STATUS(pscan_op_create(ctx, &d, &warm), PSCAN_OK); /* the in-context hit */
      pscan__fault_arm(PSCAN__FAULT_ALLOC, k);
      pscan_status s = pscan_op_create(ctx, &d, &op);
      if (s == PSCAN_OK)
        s = pscan_scan_op(ctx, in, out, n, op, 1, NULL);
      long passed = pscan__fault_disarm(PSCAN__FAULT_ALLOC);
      CHECK(s == PSCAN_OK || s == PSCAN_ERR_OUT_OF_MEMORY, "fault %ld (phase %d): %s (%s)", k,
            phase, pscan_status_name(s), pscan_last_error(ctx));
      oom += s == PSCAN_ERR_OUT_OF_MEMORY;
      ok += s == PSCAN_OK;
      pscan_op_destroy(op);
      op = NULL;
      /* still usable */
      if (!op)
        CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
      pscan_status again = op ? pscan_scan_op(ctx, in, out, n, op, 0, NULL) : PSCAN_ERR_INTERNAL;
      CHECK(again == PSCAN_OK, "after fault %ld (phase %d): %s (%s)", k, phase,
            pscan_status_name(again), pscan_last_error(ctx));
      pscan_op_destroy(op);
      pscan_op_destroy(warm);
      pscan_destroy(ctx);
      if (passed <= k) /* every allocation of the calls has been failed once */
        break;
    }
    if (phase == 0) /* the last one is now on disk: the disk hits of phase 1 */
      snprintf(src, sizeof src, "/* faults %llu */\n%s", (unsigned long long)seed, c->source);
  }
  CHECK(oom > 0 && ok > 0, "allocation faults: %d refused, %d done", oom, ok);
  free(in);
  free(out);
}

/* ---- The seam for other entry points (pscan_scan_axis): accessors and the host combine of a
   compiled operator and of a host_fn one give the operator's results ---- */
void test_internal_seam(void) {
  const uo_case *c = &uo_cases[2]; /* 2x2 matrices: non-commutative */
  pscan_ctx *ctx = make_ctx(1), *other = make_ctx(1);
  for (int host = 0; host < 2; host++) {
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = c->source, .type_name = c->type_name,
                       .name = c->name, .elem_size = c->size, .identity = c->identity,
                       .host_fn = host ? c->fn : NULL};
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_OK);
    if (!op)
      continue;
    CHECK_STATUS(pscan__op_check(ctx, "seam", op, PSCAN_KIND_COMBINE), PSCAN_OK);
    CHECK_STATUS(pscan__op_check(other, "seam", op, PSCAN_KIND_COMBINE), PSCAN_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pscan__op_check(ctx, "seam", op, PSCAN_KIND_PREDICATE), PSCAN_ERR_INVALID_ARGUMENT);
    CHECK(pscan__op_elem_size(op) == c->size, "elem_size %zu", pscan__op_elem_size(op));
    CHECK(!memcmp(pscan__op_identity(op), c->identity, c->size), "identity differs");
    pscan_combine_fn fn = NULL;
    void *user = NULL;
    pscan__cpu_op_host_combine(pscan__op_impl(op), &fn, &user);
    test_rng rng = test_fork(seed, 6000 + (uint64_t)host);
    uo_mat2 a, b, got, want;
    c->fill(&rng, &a);
    c->fill(&rng, &b);
    fn(&got, &a, &b, user);
    c->fn(&want, &a, &b, NULL);
    CHECK(!memcmp(&got, &want, sizeof got), "host combine (%s) differs", host ? "host_fn" : "compiled");
    const pscan__cpu_op *k = pscan__cpu_op_kernels(pscan__op_impl(op));
    CHECK(k->acc_size == c->size, "kernels' acc_size %zu", k->acc_size);
    pscan_op_destroy(op);
  }
  pscan_destroy(ctx);
  pscan_destroy(other);
}

/* ---- The compiler and the disk cache (CPU) ---- */

char dir[512], counter[600], real_cc[512];

/* A PSCAN_CC that counts its compile runs (not --version) in `counter`, then runs the real one. */
static void make_counting_cc(char *path, size_t len) {
  snprintf(path, len, "%s/count-cc.sh", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    printf("cannot write %s\n", path);
    exit(1);
  }
  fprintf(f, "#!/bin/sh\ncase \"$*\" in *-shared*) echo x >> '%s';; esac\nexec %s \"$@\"\n",
          counter, real_cc);
  fclose(f);
  chmod(path, 0755);
}

static int compiles(void) {
  FILE *f = fopen(counter, "r");
  int n = 0, ch;
  if (!f)
    return 0;
  while ((ch = fgetc(f)) != EOF)
    n += ch == '\n';
  fclose(f);
  return n;
}

/* Creates the operator of src on a fresh context, checks one scan, returns the status. */
static pscan_status create_and_scan(const char *src, pscan_combine_fn host_fn) {
  pscan_ctx *ctx = make_ctx(2);
  const uo_case *c = &uo_cases[0];
  pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = c->type_name,
                     .name = c->name, .elem_size = c->size, .host_fn = host_fn};
  pscan_user_op *op = NULL;
  pscan_status st = pscan_op_create(ctx, &d, &op);
  if (st == PSCAN_OK) {
    test_rng rng = test_fork(seed, 3000);
    check_scan(ctx, c, op, 100000, 0, false, &rng, "cache");
  }
  pscan_op_destroy(op);
  pscan_destroy(ctx);
  return st;
}

void test_compiler_and_cache(void) {
  char cc[700], src[1024], so[1200], own[600];
  make_counting_cc(cc, sizeof cc);
  /* A cache directory of its own (the differential tests filled the other), created on demand. */
  snprintf(own, sizeof own, "%s/cache/pscan", dir);
  setenv("PSCAN_CACHE_DIR", own, 1);
  setenv("PSCAN_CC", cc, 1);
  /* A source no earlier run has compiled (the cache directory is fresh anyway). */
  snprintf(src, sizeof src, "/* seed %llu */\n%s", (unsigned long long)seed, uo_cases[0].source);

  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 1, "first create: %d compiles, want 1", compiles());
  /* The in-context cache: a second create on the same context compiles nothing. */
  {
    pscan_ctx *ctx = make_ctx(1);
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE, .source = src, .type_name = "affine",
                       .name = "compose", .elem_size = 8};
    pscan_user_op *a = NULL, *b = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &a), PSCAN_OK);
    CHECK_STATUS(pscan_op_create(ctx, &d, &b), PSCAN_OK);
    CHECK(compiles() == 1, "in-context and disk hits: %d compiles, want 1", compiles());
    pscan_op_destroy(a);
    pscan_op_destroy(b);
    pscan_destroy(ctx);
  }
  /* A disk hit from a fresh context; the entry is a file in the cache directory. */
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 1, "disk hit: %d compiles, want 1", compiles());
  int sos = 0;
  {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls '%s'/*.so 2>/dev/null | wc -l", own);
    FILE *p = popen(cmd, "r");
    if (p) {
      if (fscanf(p, "%d", &sos) != 1)
        sos = -1;
      pclose(p);
    }
    snprintf(cmd, sizeof cmd, "ls '%s'/*.so 2>/dev/null | head -1", own);
    p = popen(cmd, "r");
    so[0] = '\0';
    if (p) {
      if (!fgets(so, sizeof so, p))
        so[0] = '\0';
      so[strcspn(so, "\n")] = '\0';
      pclose(p);
    }
  }
  CHECK(sos == 1, "%d shared objects in the cache, want 1", sos);

  /* A corrupt entry: rebuilt, no error; then a hit again. */
  FILE *f = so[0] ? fopen(so, "w") : NULL;
  CHECK(f != NULL, "cannot overwrite the cache entry %s", so);
  if (f) {
    fputs("not an ELF object\n", f);
    fclose(f);
  }
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 2, "corrupt entry: %d compiles, want 2", compiles());
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == 2, "rebuilt entry is a hit: %d compiles, want 2", compiles());

  /* A compile error: the compiler's error line in last_error, the whole log available. */
  {
    pscan_ctx *ctx = make_ctx(1);
    pscan_op_desc d = {.kind = PSCAN_KIND_COMBINE,
                       .source = "typedef struct { float a, b; } affine;\n"
                                 "affine compose(affine x, affine y) { return x + y; }\n",
                       .type_name = "affine", .name = "compose", .elem_size = 8};
    pscan_user_op *op = NULL;
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_ERR_INVALID_ARGUMENT);
    const char *msg = pscan_last_error(ctx), *log = pscan_op_compile_log(ctx);
    CHECK(strstr(msg, "error") && strstr(msg, "pscan_op_source:2"),
          "compile error message: %s", msg);
    char line[256];
    snprintf(line, sizeof line, "%s", strstr(msg, "pscan_op_source:2") ? strstr(msg, "pscan_op_source:2") : "?");
    CHECK(strstr(log, line) != NULL, "the log holds the message's line; log: %.200s", log);
    CHECK(op == NULL, "a failed create returned an operator");
    /* A create that compiles nothing (host_fn) leaves no log. */
    pscan_op_desc h = {.kind = PSCAN_KIND_COMBINE, .source = uo_cases[0].source,
                       .type_name = "affine", .name = "compose", .elem_size = 8,
                       .host_fn = uo_cases[0].fn};
    CHECK_STATUS(pscan_op_create(ctx, &h, &op), PSCAN_OK);
    CHECK(strcmp(pscan_op_compile_log(ctx), "") == 0, "log after a host_fn create: %.100s",
          pscan_op_compile_log(ctx));
    pscan_op_destroy(op);
    op = NULL;
    /* an unknown name is an error too */
    d.source = uo_cases[0].source;
    d.name = "no_such_function";
    CHECK_STATUS(pscan_op_create(ctx, &d, &op), PSCAN_ERR_INVALID_ARGUMENT);
    /* also where an undeclared function's implicit int would have compiled (a scalar type) */
    pscan_op_desc sum = {.kind = PSCAN_KIND_COMBINE,
                         .source = "int add(int a, int b) { return a + b; }\n",
                         .type_name = "int", .name = "addd", .elem_size = 4};
    CHECK_STATUS(pscan_op_create(ctx, &sum, &op), PSCAN_ERR_INVALID_ARGUMENT);
    CHECK(strstr(pscan_last_error(ctx), "addd") != NULL, "a misspelt name: %s",
          pscan_last_error(ctx));
    CHECK(op == NULL, "a failed create returned an operator");
    pscan_destroy(ctx);
  }

  /* No usable cache directory: still works (compiled each time in a private directory). */
  char file[600], saved[512];
  snprintf(saved, sizeof saved, "%s", getenv("PSCAN_CACHE_DIR"));
  snprintf(file, sizeof file, "%s/a-file", dir);
  f = fopen(file, "w");
  if (f)
    fclose(f);
  strcat(file, "/cache");
  setenv("PSCAN_CACHE_DIR", file, 1);
  int before = compiles();
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == before + 2, "no cache dir: %d compiles, want %d", compiles(), before + 2);
  /* A directory others may write to is not used (its entries would be loaded as code). */
  snprintf(file, sizeof file, "%s/shared", dir);
  mkdir(file, 0700);
  chmod(file, 0777);
  setenv("PSCAN_CACHE_DIR", file, 1);
  before = compiles();
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  CHECK(compiles() == before + 2, "world-writable cache dir: %d compiles, want %d", compiles(),
        before + 2);
  if (geteuid() != 0) { /* a read-only directory (root would write it anyway) */
    snprintf(file, sizeof file, "%s/readonly", dir);
    mkdir(file, 0500);
    setenv("PSCAN_CACHE_DIR", file, 1);
    CHECK_STATUS(create_and_scan(src, NULL), PSCAN_OK);
  }
  setenv("PSCAN_CACHE_DIR", saved, 1);

  /* No compiler: UNSUPPORTED; host_fn still works without one. */
  setenv("PSCAN_CC", "/nonexistent/cc", 1);
  CHECK_STATUS(create_and_scan(uo_cases[0].source, NULL), PSCAN_ERR_UNSUPPORTED);
  CHECK_STATUS(create_and_scan(uo_cases[0].source, uo_cases[0].fn), PSCAN_OK);
  setenv("PSCAN_CC", real_cc, 1);
}
