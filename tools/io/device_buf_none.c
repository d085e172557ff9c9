/* device_buf.h in a pscan built without CUDA: every call fails and says so. */
#include "device_buf.h"

#include <stdio.h>

static bool not_built(dbuf_err *err) {
  snprintf(err->msg, sizeof err->msg, "this pscan was built without CUDA");
  return false;
}

bool dbuf_built(void) { return false; }

bool dbuf_alloc(void **dev, size_t bytes, dbuf_err *err) {
  (void)bytes;
  *dev = NULL;
  return not_built(err);
}

bool dbuf_upload(void **dev, const void *host, size_t bytes, dbuf_err *err) {
  (void)host;
  return dbuf_alloc(dev, bytes, err);
}

bool dbuf_download(void *host, const void *dev, size_t bytes, dbuf_err *err) {
  (void)host, (void)dev, (void)bytes;
  return not_built(err);
}

void dbuf_free(void *dev) { (void)dev; }
