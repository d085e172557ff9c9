/* What the messages say and how long they last: pscan_last_error (empty on a fresh context, kept
 * until the next failure like errno, per context, and per thread for calls without one), the
 * names of the statuses (known and unknown), the sizes of the element types (known and unknown)
 * and the version string. (Every refusal's status and message: tests/test_errors.c.) */
#include "reference.h"
#include "test.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { N = 1000 };
static int32_t in[N], out[N];

static void *fail_in_thread(void *arg) {
  pscan_ctx *c = NULL;
  (void)arg;
  pscan_create(&c, (pscan_backend)77);
  return NULL;
}

static void test_last_error(void) {
  pscan_ctx *ctx = test_ctx(2), *fresh = test_ctx(1);
  CHECK(strcmp(pscan_last_error(fresh), "") == 0, "a fresh context has last_error \"%s\"",
        pscan_last_error(fresh));
  /* The text stays until the next failure, like errno. */
  CHECK_STATUS(pscan_inclusive_scan(ctx, in, out, N, PSCAN_F32, PSCAN_XOR),
               PSCAN_ERR_INVALID_ARGUMENT);
  char saved[512];
  snprintf(saved, sizeof saved, "%s", pscan_last_error(ctx));
  CHECK(test_one_line(saved), "a refused call left last_error \"%s\", not one non-empty line", saved);
  CHECK_STATUS(pscan_inclusive_scan(ctx, in, out, N, PSCAN_I32, PSCAN_SUM), PSCAN_OK);
  CHECK(strcmp(saved, pscan_last_error(ctx)) == 0, "a successful call changed last_error");
  CHECK(strcmp(pscan_last_error(fresh), "") == 0, "a failure on one context showed on another");
  pscan_destroy(fresh);
  pscan_destroy(ctx);

  /* Without a context, the failure belongs to the calling thread. */
  CHECK_STATUS(pscan_synchronize(NULL), PSCAN_ERR_INVALID_ARGUMENT);
  snprintf(saved, sizeof saved, "%s", pscan_last_error(NULL));
  CHECK(test_one_line(saved), "pscan_synchronize(NULL) left last_error(NULL) \"%s\"", saved);
  pthread_t th;
  if (CHECK(pthread_create(&th, NULL, fail_in_thread, NULL) == 0, "pthread_create")) {
    pthread_join(th, NULL);
    CHECK(strcmp(saved, pscan_last_error(NULL)) == 0,
          "another thread's failure changed this thread's pscan_last_error(NULL)");
  }
}

static void test_names(void) {
  static const char *const names[] = {
      "PSCAN_OK",          "PSCAN_ERR_INVALID_ARGUMENT", "PSCAN_ERR_UNSUPPORTED",
      "PSCAN_ERR_OVERLAP", "PSCAN_ERR_OVERFLOW",         "PSCAN_ERR_OUT_OF_MEMORY",
      "PSCAN_ERR_NO_DEVICE", "PSCAN_ERR_WRONG_MEMORY",   "PSCAN_ERR_DEVICE",
      "PSCAN_ERR_INTERNAL"};
  static const pscan_status statuses[] = {
      PSCAN_OK,           PSCAN_ERR_INVALID_ARGUMENT, PSCAN_ERR_UNSUPPORTED,
      PSCAN_ERR_OVERLAP,  PSCAN_ERR_OVERFLOW,         PSCAN_ERR_OUT_OF_MEMORY,
      PSCAN_ERR_NO_DEVICE, PSCAN_ERR_WRONG_MEMORY,    PSCAN_ERR_DEVICE,
      PSCAN_ERR_INTERNAL};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    const char *got = pscan_status_name(statuses[i]);
    CHECK(got && strcmp(got, names[i]) == 0, "pscan_status_name(%d) = %s, expected %s",
          (int)statuses[i], got ? got : "(null)", names[i]);
  }
  const int unknown[] = {PSCAN_ERR_INTERNAL + 1, 99, -1};
  for (size_t i = 0; i < 3; i++) {
    const char *got = pscan_status_name((pscan_status)unknown[i]);
    CHECK(got && strcmp(got, "PSCAN_ERR_UNKNOWN") == 0, "pscan_status_name(%d) = %s", unknown[i],
          got ? got : "(null)");
  }

  /* The sizes are the oracle's, the independent list; a type missing there says so first. */
  int missing = ref_first_missing_type();
  CHECK(missing < 0, "the test oracle (tests/reference.c) does not know dtype %d: add it there",
        missing);
  for (int t = 0; t < REF_NTYPES; t++)
    CHECK(pscan_dtype_size((pscan_dtype)t) == ref_dtype_size((pscan_dtype)t),
          "pscan_dtype_size(%s) = %zu, expected %zu", ref_dtype_name((pscan_dtype)t),
          pscan_dtype_size((pscan_dtype)t), ref_dtype_size((pscan_dtype)t));
  CHECK(pscan_dtype_size((pscan_dtype)PSCAN_DTYPE_COUNT) == 0 &&
            pscan_dtype_size((pscan_dtype)-1) == 0,
        "pscan_dtype_size of an unknown type is not 0");

  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", PSCAN_VERSION_MAJOR, PSCAN_VERSION_MINOR,
           PSCAN_VERSION_PATCH);
  const char *v = pscan_version_string();
  CHECK(v && strncmp(v, version, strlen(version)) == 0 && strstr(v, "cpu"),
        "pscan_version_string() = \"%s\", expected \"%s (cpu...)\"", v ? v : "(null)", version);
}

int main(void) {
  test_init("test_messages");
  test_last_error();
  test_names();
  return test_finish();
}
