/* A tiny program built against the installed pscan (tests/test_install.cmake): it scans a few
 * numbers and checks the result, so that the header, the library and the link all work. */
#include <pscan.h>

#include <stdio.h>
#include <string.h>

#ifndef CONSUMER_LINKAGE
#define CONSUMER_LINKAGE "?"
#endif

static int fail(const char *what, pscan_status s) {
  printf("consumer (" CONSUMER_LINKAGE "): %s: %s\n", what, pscan_status_name(s));
  return 1;
}

int main(void) {
  pscan_ctx *ctx = NULL;
  pscan_status s = pscan_create(&ctx, PSCAN_BACKEND_CPU);
  if (s != PSCAN_OK)
    return fail("pscan_create", s);
  const int32_t in[5] = {1, 2, 3, 4, 5}, init = 10;
  const int32_t incl[5] = {1, 3, 6, 10, 15}, excl[5] = {10, 11, 13, 16, 20};
  int32_t out[5];
  if ((s = pscan_inclusive_scan(ctx, in, out, 5, PSCAN_I32, PSCAN_SUM)) != PSCAN_OK)
    return fail("pscan_inclusive_scan", s);
  if (memcmp(out, incl, sizeof out) != 0)
    return fail("wrong inclusive sum", s);
  if ((s = pscan_exclusive_scan(ctx, in, out, 5, PSCAN_I32, PSCAN_SUM, &init)) != PSCAN_OK)
    return fail("pscan_exclusive_scan", s);
  if (memcmp(out, excl, sizeof out) != 0)
    return fail("wrong exclusive sum", s);
  pscan_destroy(ctx);

  /* The header and the library must be of the same version. */
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", PSCAN_VERSION_MAJOR, PSCAN_VERSION_MINOR,
           PSCAN_VERSION_PATCH);
  if (strncmp(pscan_version_string(), version, strlen(version)) != 0) {
    printf("consumer: header %s, library %s\n", version, pscan_version_string());
    return 1;
  }
  printf("consumer (" CONSUMER_LINKAGE "): ok, pscan %s\n", pscan_version_string());
  return 0;
}
