/* Differential fuzzing of the scan API: every input is decoded into one call of pscan_scan (types,
 * operator, inclusive/exclusive, init, in-place or partially overlapping buffers, algorithm,
 * threads, partition size, determinism — enum values out of range included) and its result is
 * compared with the sequential oracle (tests/reference.c), or, for a request the API must refuse,
 * with the expected status and an untouched output. Any disagreement aborts with a description.
 *
 * Built two ways: with libFuzzer (clang, -DPSCAN_FUZZ=ON: tests/fuzz/fuzz_scan, run by .ci/run for
 * a bounded time over tests/fuzz/corpus/scan), and as a replay program over the corpus that ctest
 * runs with any compiler (fuzz_corpus).
 *
 * Input layout: 8 header bytes, then 8 bytes of init value, then the input elements.
 *   [0] in type (the last two of FUZZ_TYPE_CHOICES invalid) [1] out type choice (see pick_out_type)
 *   [2] op (0..7: 7 is invalid)                    [3] flags: 1 exclusive, 2 init, 4 in place,
 *                                                      8 partial overlap, 16 exclusive = 2 (invalid),
 *                                                      32 output misaligned for its type (refused)
 *   [4] algorithm (0..6: 6 is invalid)             [5] threads (0..8)
 *   [6] partition size (0: default, else 1..255)   [7] deterministic (bit 0) */
#include "fuzz_exact.h"
#include "reference.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER = 16, MAX_N = 1 << 15, POISON = 0xA5 };

static pscan_ctx *ctx;

static void fail(const char *what, const uint8_t *h, size_t n) {
  fprintf(stderr,
          "fuzz_scan: %s (in %u out-choice %u op %u flags 0x%x algo %u threads %u part %u det %u "
          "n %zu): %s\n",
          what, h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], n, pscan_last_error(ctx));
  abort();
}

/* Same type, a valid widening, or (choice >= 200) any type at all, valid or not. */
static int pick_out_type(int in, int choice) {
  if (choice >= 200 || in >= PSCAN_DTYPE_COUNT)
    return choice % FUZZ_TYPE_CHOICES;
  int widen = choice % 4, out = in;
  while (widen-- > 0 && ref_pair_valid((pscan_dtype)in, (pscan_dtype)(out + 1)))
    out++;
  return out;
}

/* What the API must answer for these enums (before looking at buffers). */
static pscan_status expected_status(int in, int out, int op, int exclusive) {
  if (in >= PSCAN_DTYPE_COUNT || out >= PSCAN_DTYPE_COUNT || op >= PSCAN_OP_COUNT)
    return PSCAN_ERR_INVALID_ARGUMENT;
  if (!ref_op_valid((pscan_dtype)in, (pscan_op)op))
    return PSCAN_ERR_INVALID_ARGUMENT;
  if (!ref_pair_valid((pscan_dtype)in, (pscan_dtype)out) || exclusive > 1)
    return PSCAN_ERR_INVALID_ARGUMENT;
  return PSCAN_OK;
}

static void set_params(const uint8_t *h) {
  int algo = h[4] % 7;
  pscan_status s = pscan_set_param(ctx, PSCAN_PARAM_ALGO, algo);
  if ((algo < PSCAN_ALGO_COUNT) != (s == PSCAN_OK))
    fail("set_param(ALGO) answered wrongly", h, 0);
  if (pscan_set_param(ctx, PSCAN_PARAM_THREADS, h[5] % 9) != PSCAN_OK ||
      pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, h[6]) != PSCAN_OK ||
      pscan_set_param(ctx, PSCAN_PARAM_DETERMINISTIC, h[7] & 1) != PSCAN_OK)
    fail("a valid set_param was refused", h, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx && pscan_create(&ctx, PSCAN_BACKEND_CPU) != PSCAN_OK)
    abort();
  if (size < HEADER)
    return 0;
  const uint8_t *h = data;
  int in = h[0] % FUZZ_TYPE_CHOICES, out = pick_out_type(in, h[1]), op = h[2] % 8;
  int exclusive = h[3] & 16 ? 2 : h[3] & 1, with_init = h[3] & 2, in_place = h[3] & 4;
  int overlap = h[3] & 8, misalign = h[3] & 32;
  size_t in_size = in < PSCAN_DTYPE_COUNT ? ref_dtype_size((pscan_dtype)in) : 4;
  size_t out_size = out < PSCAN_DTYPE_COUNT ? ref_dtype_size((pscan_dtype)out) : 4;
  size_t n = (size - HEADER) / in_size;
  if (n > MAX_N)
    n = MAX_N;
  pscan_status want = expected_status(in, out, op, exclusive);
  in_place = in_place && in == out && want == PSCAN_OK;
  /* an overlapping output starts one output element into the input (aligned for its type) */
  overlap = overlap && !in_place && n >= 2 && out_size < n * in_size;
  if (want == PSCAN_OK && overlap)
    want = PSCAN_ERR_OVERLAP;
  misalign = misalign && !in_place && !overlap && out_size > 1 && n > 0;
  if (want == PSCAN_OK && misalign)
    want = PSCAN_ERR_INVALID_ARGUMENT; /* typed buffers must be aligned for their type */
  int order_sensitive = want == PSCAN_OK && ref_is_float((pscan_dtype)out) &&
                        (op == PSCAN_SUM || op == PSCAN_PROD);
  set_params(h);

  /* One buffer holds the input and, after it, the output (or the output starts inside the input
     for the overlap case), plus a poisoned element past the end. */
  size_t bytes = n * in_size + (n + 1) * out_size + 32;
  uint8_t *buf = malloc(bytes), *copy = malloc(bytes);
  uint8_t *want_out = malloc((n + 1) * out_size + 8);
  if (!buf || !copy || !want_out)
    abort();
  memset(buf, POISON, bytes);
  memcpy(buf, data + HEADER, n * in_size);
  uint8_t init[8];
  memcpy(init, data + 8, 8);
  ref_legalize((pscan_dtype)in, buf, n);
  ref_legalize((pscan_dtype)out, init, 1);
  if (order_sensitive) { /* see exact_floats */
    exact_floats(buf, (pscan_dtype)in, n, op, data + HEADER);
    exact_floats(init, (pscan_dtype)out, 1, op, data + 8);
  }
  size_t out_at = (n * in_size + 15) / 8 * 8 + (misalign ? 1 : 0); /* aligned unless asked */
  uint8_t *outp = in_place ? buf : overlap ? buf + out_size : buf + out_at;
  memcpy(copy, buf, bytes);
  pscan_scan_args a = {.in = buf, .in_type = (pscan_dtype)in, .out = outp,
                       .out_type = (pscan_dtype)out, .n = n, .op = (pscan_op)op,
                       .exclusive = exclusive, .init = with_init ? init : NULL};
  if (want == PSCAN_OK)
    ref_scan(copy, (pscan_dtype)in, want_out, (pscan_dtype)out, n, (pscan_op)op, exclusive,
             with_init ? init : NULL);
  pscan_status got = pscan_scan(ctx, &a);
  if (n == 0 && want == PSCAN_ERR_OVERLAP)
    want = PSCAN_OK;
  if (got != want)
    fail(pscan_status_name(got), h, n);
  if (want != PSCAN_OK) {
    if (memcmp(buf, copy, bytes) != 0)
      fail("a refused call wrote to memory", h, n);
  } else if (ref_first_difference((pscan_dtype)out, outp, want_out, n) != n) {
    size_t at = ref_first_difference((pscan_dtype)out, outp, want_out, n);
    char got_s[64], want_s[64];
    ref_format((pscan_dtype)out, outp + at * out_size, got_s, sizeof got_s);
    ref_format((pscan_dtype)out, want_out + at * out_size, want_s, sizeof want_s);
    fprintf(stderr, "fuzz_scan: out[%zu] = %s, oracle %s (%zu elements differ)\n", at, got_s,
            want_s, n - at);
    fail("result differs from the sequential oracle", h, n);
  } else if (!in_place && memcmp(buf, copy, n * in_size) != 0) {
    fail("the input was modified", h, n);
  } else if (outp[n * out_size] != POISON) {
    fail("wrote past the end of the output", h, n);
  }
  free(buf);
  free(copy);
  free(want_out);
  return 0;
}
