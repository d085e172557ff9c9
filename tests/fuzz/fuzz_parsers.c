/* Fuzzing of the pscan tool's file parsers (tools/io/npy.c, text_io.c) over memory buffers.
 *
 * Byte 0 chooses: bit 0 the parser (0 .npy header, 1 text), bits 1.. the element type of the
 * text (mod 10). The rest of the input is the file. Besides the sanitizers' checks (reads past the
 * buffer, which is not NUL-terminated, overflow, leaks), every accepted input must round-trip:
 *   .npy: the data fills the buffer exactly; a header written for the parsed type and length
 *         parses back to the same type and length, and the data can be byte-swapped;
 *   text: the values written back as text parse to the same values (NaN to a NaN).
 * Any disagreement aborts with a description.
 *
 * Built two ways, like fuzz_scan: with libFuzzer (clang, -DPSCAN_FUZZ=ON; run by
 * scripts/ci-fuzz-parsers.sh over tests/fuzz/corpus/parsers), and as a replay program over that
 * corpus that ctest runs with any compiler (fuzz_parsers_corpus). */
#define _POSIX_C_SOURCE 200809L
#include "io/array_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what) {
  fprintf(stderr, "fuzz_parsers: %s\n", what);
  abort();
}

static void check_npy(const uint8_t *buf, size_t len) {
  npy_header h;
  aio_err err;
  if (!npy_parse("fuzz.npy", buf, len, &h, &err)) {
    if (strncmp(err.msg, "fuzz.npy: ", 10) != 0 || strchr(err.msg, '\n'))
      fail("an error message that does not start with the file name or is not one line");
    return;
  }
  size_t size = pscan_dtype_size(h.type);
  if (size == 0 || h.data_offset > len || (len - h.data_offset) / size != h.n ||
      (len - h.data_offset) % size != 0)
    fail("accepted a header whose data does not fill the file");
  /* the same data behind a header of our own, swapped twice */
  size_t bytes = len - h.data_offset;
  uint8_t *copy = malloc(NPY_HEADER_MAX + bytes);
  if (!copy)
    return;
  size_t hlen = npy_format_header(h.type, h.n, (char *)copy);
  memcpy(copy + hlen, buf + h.data_offset, bytes);
  aio_swap_bytes(copy + hlen, h.n, size);
  aio_swap_bytes(copy + hlen, h.n, size);
  npy_header back;
  if (hlen % 64 != 0 || !npy_parse("fuzz.npy", copy, hlen + bytes, &back, &err) ||
      back.type != h.type || back.n != h.n || back.data_offset != hlen || back.swap ||
      memcmp(copy + hlen, buf + h.data_offset, bytes) != 0)
    fail("a header written for the parsed type and length does not parse back");
  free(copy);
}

static bool same_value(pscan_dtype t, const void *a, const void *b) {
  if (t == PSCAN_F32 || t == PSCAN_F64) {
    double x = t == PSCAN_F32 ? *(const float *)a : *(const double *)a;
    double y = t == PSCAN_F32 ? *(const float *)b : *(const double *)b;
    if (isnan(x) || isnan(y))
      return isnan(x) && isnan(y);
  }
  return memcmp(a, b, pscan_dtype_size(t)) == 0;
}

static void check_text(pscan_dtype t, const char *buf, size_t len) {
  void *data, *again;
  size_t n, n2;
  aio_err err;
  if (!text_parse("fuzz.txt", buf, len, t, &data, &n, &err)) {
    if (strncmp(err.msg, "fuzz.txt:", 9) != 0 || strchr(err.msg, '\n'))
      fail("an error message that does not start with the file name or is not one line");
    return;
  }
  char *out = NULL;
  size_t out_len = 0;
  FILE *f = open_memstream(&out, &out_len);
  if (!f || !text_write(f, t, data, n) || fclose(f) != 0)
    fail("text_write failed");
  if (!text_parse("again.txt", out, out_len, t, &again, &n2, &err))
    fail(err.msg);
  if (n2 != n)
    fail("the text written back has another number of values");
  size_t size = pscan_dtype_size(t);
  for (size_t i = 0; i < n; i++)
    if (!same_value(t, (const char *)data + i * size, (const char *)again + i * size))
      fail("a value does not survive writing and reading back");
  free(data);
  free(again);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  /* a copy of exactly the file's length, so that reading one byte past it is caught */
  size_t len = size - 1;
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf)
    return 0;
  memcpy(buf, data + 1, len);
  if (data[0] & 1)
    check_text((pscan_dtype)((data[0] >> 1) % PSCAN_DTYPE_COUNT), (const char *)buf, len);
  else
    check_npy(buf, len);
  free(buf);
  return 0;
}
