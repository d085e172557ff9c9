/* Differential fuzzing of the compaction API on the CPU backend: every input is decoded into one
 * call of pscan_select_if, pscan_select_flagged, pscan_partition_if, pscan_unique,
 * pscan_run_length_encode, pscan_reduce_by_key or pscan_scan_by_key (types, value types and
 * operators of the by-key ops, cmp, threshold, exclusive and init, in place or partially
 * overlapping buffers, a NULL count, algorithm, threads, partition size — values out of range
 * included) and its result is compared bit for bit with the sequential references of
 * tests/reference.c, or, for a request the API must refuse, with the expected status. Every
 * buffer lies in one poisoned arena that is compared whole after the call: nothing may be written
 * past the result (past n for partition_if; in place, the tail keeps the input), to an input, or,
 * on a refusal, anywhere (the count included). Any disagreement aborts with a description.
 *
 * Built like fuzz_scan.c: with libFuzzer (tests/fuzz/fuzz_compact, scripts/ci-fuzz-compact.sh)
 * and as a replay program over tests/fuzz/corpus/compact that ctest runs with any compiler
 * (fuzz_compact_corpus).
 *
 * Input layout: 16 header bytes, 8 bytes of threshold (select_if, partition_if) or init
 * (scan_by_key), then the data: n items; n items and n flags (select_flagged); n keys and n
 * values (by-key ops).
 *   [0] op (0..6, in the order above)          [1] item or key type (FUZZ_TYPE_CHOICES, last two invalid)
 *   [2] value type, by-key ops (as [1])         [3] pscan_op, by-key ops (0..7: 7 invalid)
 *   [4] cmp (0..7: 6 and 7, meaning -1, invalid)
 *   [5] flags: 1 exclusive, 2 init, 4 in place, 8 partial overlap, 16 exclusive = 2 (invalid),
 *       32 NULL count, 64 threshold/init = an element of the input, 128 ... read from inside the
 *       arena (the call may overwrite it: it must use the value it had on entry)
 *   [6] algorithm (0..6: 6 is invalid)         [7] threads (1..8)
 *   [8] partition size (0: default, else 1..255)
 *   [9] partial overlap: bits 0-2 which pair of buffers, bits 3-7 the shift (8-byte units)
 *   [10] items or keys: 0 raw bytes, 1 an element whose first byte is odd repeats the one before,
 *        2 small values (0..4, and -0.0, NaN, inf for floats); flags: 0 raw, else 0 when even */
#include "fuzz_exact.h"
#include "reference.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER = 24, MAX_N = 1 << 13, POISON = 0xA5, GAP = 64 };
enum { SELECT_IF, SELECT_FLAGGED, PARTITION_IF, UNIQUE, RLE, REDUCE_BY_KEY, SCAN_BY_KEY, NOPS };
static const char *const op_names[NOPS] = {"select_if", "select_flagged", "partition_if", "unique",
                                           "run_length_encode", "reduce_by_key", "scan_by_key"};
/* The arena's buffers: A items or keys in, B flags or values in, C items or keys out, D values
   out (reduce_by_key, scan_by_key) or counts (run_length_encode). */
enum { A, B, C, D, NBUF };
static const char *const buf_names[NBUF] = {"in/keys", "flags/vals_in", "out/keys_out",
                                            "vals_out/counts"};
/* Pairs (moved, anchor) that partial overlap places one inside the other, per op. */
static const int8_t overlap_pairs[NOPS][8][2] = {
    [SELECT_IF] = {{C, A}, {A, C}},
    [SELECT_FLAGGED] = {{C, A}, {A, C}, {B, C}, {C, B}},
    [PARTITION_IF] = {{C, A}, {A, C}},
    [UNIQUE] = {{C, A}, {A, C}},
    [RLE] = {{C, A}, {A, C}, {D, A}, {D, C}, {C, D}},
    [REDUCE_BY_KEY] = {{C, A}, {A, C}, {D, B}, {B, D}, {C, B}, {D, A}, {C, D}, {D, C}},
    [SCAN_BY_KEY] = {{D, B}, {B, D}, {A, D}, {D, A}, {A, B}},
};
static const int n_overlap_pairs[NOPS] = {2, 4, 2, 2, 5, 8, 5};

static pscan_ctx *ctx;
static const uint8_t *hdr;
static size_t cur_n;

/* Aborts with the printf-style description and the decoded header. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...) {
  const uint8_t *h = hdr;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr,
          "fuzz_compact: %s (%s type %u vtype %u op %u cmp %u flags 0x%x algo %u threads %u "
          "part %u overlap 0x%x shape %u n %zu); last error: %s\n",
          what, op_names[h[0] % NOPS], h[1] % FUZZ_TYPE_CHOICES, h[2] % FUZZ_TYPE_CHOICES, h[3] % 8,
          h[4] % 8, h[5], h[6] % 7, 1 + h[7] % 8, h[8], h[9], h[10] % 3, cur_n, pscan_last_error(ctx));
  abort();
}

static bool valid_type(int t) { return t >= 0 && t < PSCAN_DTYPE_COUNT; }
static size_t size_of(int t) { return valid_type(t) ? ref_dtype_size((pscan_dtype)t) : 4; }

/* Stores the small integer v (or, for floats, v = 5, 6, 7: -0.0, NaN, inf) as one element. */
static void put_small(pscan_dtype t, uint8_t *p, int v) {
  if (t == PSCAN_F32 || t == PSCAN_F64) {
    double d = v == 5 ? -0.0 : v == 6 ? NAN : v == 7 ? INFINITY : v;
    float f = (float)d;
    if (t == PSCAN_F32)
      memcpy(p, &f, 4);
    else
      memcpy(p, &d, 8);
  } else {
    int64_t x = v == 5 ? -1 : v == 6 ? INT64_MAX : v == 7 ? INT64_MIN : v;
    memcpy(p, &x, ref_dtype_size(t)); /* the low bytes (little-endian), truncated */
  }
}

/* Gives raw elements structure (header byte 10). */
static void shape(pscan_dtype t, uint8_t *p, size_t n, int mode) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++)
    if (mode == 1 && i > 0 && (p[i * s] & 1))
      memcpy(p + i * s, p + (i - 1) * s, s);
    else if (mode == 2)
      put_small(t, p + i * s, p[i * s] % 8);
}

static bool ov(const uint8_t *a, size_t ab, const uint8_t *b, size_t bb) {
  return (uintptr_t)a < (uintptr_t)b + bb && (uintptr_t)b < (uintptr_t)a + ab;
}

/* One typed input and its output: a known type, then out == in or no byte shared. */
static pscan_status buffers_status(int t, bool partial_overlap) {
  return !valid_type(t)     ? PSCAN_ERR_INVALID_ARGUMENT
         : partial_overlap ? PSCAN_ERR_OVERLAP
                           : PSCAN_OK;
}

/* What pscan.h asks of these arguments, in the order the checks are documented per function (an
   output sharing bytes with what it may not: PSCAN_ERR_OVERLAP; out == in is the in-place case). */
static pscan_status expected_status(int op, int kt, int vt, int pop, int cmp, int exclusive,
                                    uint8_t *const *p, size_t n, bool count) {
  size_t kb = n * size_of(kt), vb = n * size_of(vt);
  bool in_out = n && p[A] != p[C] && ov(p[A], kb, p[C], kb);
  bool vals_in_out = n && p[B] != p[D] && ov(p[B], vb, p[D], vb);
  bool pop_ok =
      pop < PSCAN_OP_COUNT && valid_type(vt) && ref_op_valid((pscan_dtype)vt, (pscan_op)pop);
  if (op == SCAN_BY_KEY) {
    pscan_status s =
        valid_type(kt) ? buffers_status(vt, vals_in_out) : PSCAN_ERR_INVALID_ARGUMENT;
    if (s != PSCAN_OK)
      return s;
    if (!pop_ok || exclusive > 1)
      return PSCAN_ERR_INVALID_ARGUMENT;
    return n && ov(p[A], kb, p[D], vb) ? PSCAN_ERR_OVERLAP : PSCAN_OK;
  }
  pscan_status s = buffers_status(kt, in_out);
  if (s != PSCAN_OK || !count)
    return s != PSCAN_OK ? s : PSCAN_ERR_INVALID_ARGUMENT;
  switch (op) {
  case SELECT_IF:
  case PARTITION_IF:
    if (cmp < 0 || cmp >= PSCAN_CMP_COUNT)
      return PSCAN_ERR_INVALID_ARGUMENT;
    return op == PARTITION_IF && n && p[A] == p[C] ? PSCAN_ERR_OVERLAP : PSCAN_OK;
  case SELECT_FLAGGED:
    return n && ov(p[B], n, p[C], kb) ? PSCAN_ERR_OVERLAP : PSCAN_OK;
  case RLE:
    return n && (ov(p[D], n * 8, p[A], kb) || ov(p[D], n * 8, p[C], kb)) ? PSCAN_ERR_OVERLAP
                                                                        : PSCAN_OK;
  case REDUCE_BY_KEY:
    s = buffers_status(vt, vals_in_out);
    if (s != PSCAN_OK || !pop_ok)
      return s != PSCAN_OK ? s : PSCAN_ERR_INVALID_ARGUMENT;
    return n && (ov(p[C], kb, p[A], kb) || ov(p[C], kb, p[B], vb) || ov(p[D], vb, p[A], kb) ||
                 ov(p[D], vb, p[B], vb) || ov(p[C], kb, p[D], vb))
               ? PSCAN_ERR_OVERLAP
               : PSCAN_OK;
  default: /* UNIQUE */
    return PSCAN_OK;
  }
}

static void set_params(const uint8_t *h) {
  int algo = h[6] % 7;
  pscan_status s = pscan_set_param(ctx, PSCAN_PARAM_ALGO, algo);
  if ((algo < PSCAN_ALGO_COUNT) != (s == PSCAN_OK))
    fail("set_param(ALGO) answered wrongly");
  if (s != PSCAN_OK) /* (reset, so that an input does not depend on the ones before it) */
    s = pscan_set_param(ctx, PSCAN_PARAM_ALGO, PSCAN_ALGO_AUTO);
  if (s != PSCAN_OK || pscan_set_param(ctx, PSCAN_PARAM_THREADS, 1 + h[7] % 8) != PSCAN_OK ||
      pscan_set_param(ctx, PSCAN_PARAM_EXPERIMENTAL_PARTITION_SIZE, h[8]) != PSCAN_OK)
    fail("a valid set_param was refused");
}

/* The first byte where the arena differs from the expected one, as "buffer[element]". */
static void report_arena(const uint8_t *got, const uint8_t *want, size_t bytes,
                         const size_t *off, const size_t *elem, const char *what) {
  size_t at = 0;
  while (at < bytes && got[at] == want[at])
    at++;
  int best = -1;
  for (int b = 0; b < NBUF; b++)
    if (off[b] <= at && (best < 0 || off[b] > off[best]))
      best = b;
  fail("%s: byte %zu differs (%s[%zu], got 0x%02x, want 0x%02x)", what, at,
       best < 0 ? "?" : buf_names[best], best < 0 ? 0 : (at - off[best]) / elem[best], got[at],
       want[at]);
}

/* Decodes one input (size >= HEADER), makes the call and checks it. */
static void check_one(const uint8_t *data, size_t size) {
  const uint8_t *h = hdr = data;
  int op = h[0] % NOPS, kt = h[1] % FUZZ_TYPE_CHOICES, vt = h[2] % FUZZ_TYPE_CHOICES;
  int pop = h[3] % 8, cmp = h[4] % 8;
  if (cmp == 7)
    cmp = -1;
  int exclusive = h[5] & 16 ? 2 : h[5] & 1, with_init = h[5] & 2, in_place = h[5] & 4;
  int overlap = (h[5] & 8) && !in_place, null_count = h[5] & 32, from_input = h[5] & 64;
  int inside = h[5] & 128, mode = h[10] % 3;
  bool by_key = op >= REDUCE_BY_KEY;
  if (!by_key)
    vt = PSCAN_U8; /* (B holds flags, if anything) */
  size_t ks = size_of(kt), vs = by_key ? size_of(vt) : 1;
  size_t n = (size - HEADER) / (ks + (by_key || op == SELECT_FLAGGED ? vs : 0));
  if (n > MAX_N)
    n = MAX_N;
  cur_n = n;
  set_params(h);

  /* Buffer extents and offsets in the arena (8-byte aligned, poisoned gaps between them). */
  size_t elem[NBUF] = {ks, vs, ks, op == RLE ? 8 : vs}, off[NBUF], end = 0;
  for (int b = 0; b < NBUF; b++) {
    off[b] = (end + GAP + 7) / 8 * 8;
    end = off[b] + n * elem[b];
  }
  if (in_place) { /* allowed for the select family, unique, rle and scan_by_key's values */
    if (op != SCAN_BY_KEY)
      off[C] = off[A];
    if (op == REDUCE_BY_KEY || op == SCAN_BY_KEY)
      off[D] = off[B];
  } else if (overlap) {
    const int8_t *pair = overlap_pairs[op][h[9] % 8 % n_overlap_pairs[op]];
    off[pair[0]] = off[pair[1]] + 8 * (size_t)(1 + (h[9] >> 3) % 8);
  }
  size_t bytes = 0;
  for (int b = 0; b < NBUF; b++)
    if (off[b] + n * elem[b] + GAP > bytes)
      bytes = off[b] + n * elem[b] + GAP;
  uint8_t *arena = malloc(bytes), *copy = malloc(bytes), *want = malloc(bytes);
  uint8_t *want_vals = malloc(n * 8 + 8);
  uint64_t *want_counts = malloc(n * 8 + 8);
  if (!arena || !copy || !want || !want_vals || !want_counts)
    abort();
  uint8_t *p[NBUF];
  for (int b = 0; b < NBUF; b++)
    p[b] = arena + off[b];

  /* The data: inputs A then B, copied from the input (A before B: where they overlap, B wins). */
  memset(arena, POISON, bytes);
  const uint8_t *src = data + HEADER;
  memcpy(p[A], src, n * ks);
  ref_legalize((pscan_dtype)kt, p[A], n);
  if (valid_type(kt))
    shape((pscan_dtype)kt, p[A], n, mode);
  uint8_t value[8];
  memcpy(value, data + 16, 8);
  if (valid_type(kt) && mode == 2)
    shape((pscan_dtype)kt, value, 1, 2);
  if (op == SELECT_FLAGGED) {
    memcpy(p[B], src + n * ks, n);
    for (size_t i = 0; mode && i < n; i++)
      p[B][i] = p[B][i] & 1 ? p[B][i] : 0;
  } else if (by_key) {
    memcpy(p[B], src + n * ks, n * vs);
    ref_legalize((pscan_dtype)vt, p[B], n);
    bool exact = valid_type(vt) && ref_is_float((pscan_dtype)vt) &&
                 (pop == PSCAN_SUM || pop == PSCAN_PROD);
    if (exact) { /* float sums and products: values exact in any order (fuzz_exact.h) */
      exact_floats(p[B], (pscan_dtype)vt, n, pop, src + n * ks);
      exact_floats(value, (pscan_dtype)vt, 1, pop, data + 16);
    }
  }
  ref_legalize((pscan_dtype)(op == SCAN_BY_KEY ? vt : kt), value, 1);
  /* The threshold or init: a copy, an element of the input, or that element in place. */
  uint8_t *vsrc = op == SCAN_BY_KEY ? p[B] : p[A];
  size_t vsize = op == SCAN_BY_KEY ? vs : ks, vidx = n ? data[16] % n : 0;
  if ((from_input || inside) && n)
    memcpy(value, vsrc + vidx * vsize, vsize);
  const void *value_arg = inside && n ? (const void *)(vsrc + vidx * vsize) : value;
  memcpy(copy, arena, bytes);

  pscan_status expect = expected_status(op, kt, vt, pop, cmp, exclusive, p, n, !null_count);
  size_t count, want_count = 0;
  memset(&count, POISON, sizeof count);
  size_t poisoned_count = count, *count_arg = null_count ? NULL : &count;
  memcpy(want, copy, bytes);
  const uint8_t *in_a = copy + off[A], *in_b = copy + off[B]; /* the inputs as they were */
  if (expect == PSCAN_OK) {
    pscan_dtype t = (pscan_dtype)kt;
    switch (op) {
    case REDUCE_BY_KEY:
      want_count = ref_reduce_by_key(in_a, t, in_b, (pscan_dtype)vt, n, (pscan_op)pop,
                                     want + off[C], want_vals);
      break;
    case SCAN_BY_KEY:
      ref_scan_by_key(in_a, t, in_b, want_vals, n, (pscan_dtype)vt, (pscan_op)pop, exclusive,
                      with_init ? value : NULL);
      want_count = n;
      break;
    default:
      want_count = ref_compact((ref_compact_op)op, t, in_a, in_b, n, (pscan_cmp)cmp, value,
                               want + off[C], want_counts);
      if (op == RLE)
        memcpy(want + off[D], want_counts, want_count * 8);
    }
  }

  pscan_status got = PSCAN_OK;
  switch (op) {
  case SELECT_IF:
    got = pscan_select_if(ctx, p[A], p[C], n, (pscan_dtype)kt, (pscan_cmp)cmp, value_arg,
                          count_arg);
    break;
  case SELECT_FLAGGED:
    got = pscan_select_flagged(ctx, p[A], p[B], p[C], n, (pscan_dtype)kt, count_arg);
    break;
  case PARTITION_IF:
    got = pscan_partition_if(ctx, p[A], p[C], n, (pscan_dtype)kt, (pscan_cmp)cmp, value_arg,
                             count_arg);
    break;
  case UNIQUE:
    got = pscan_unique(ctx, p[A], p[C], n, (pscan_dtype)kt, count_arg);
    break;
  case RLE:
    got = pscan_run_length_encode(ctx, p[A], p[C], (uint64_t *)(void *)p[D], n, (pscan_dtype)kt,
                                  count_arg);
    break;
  case REDUCE_BY_KEY:
    got = pscan_reduce_by_key(ctx, p[A], (pscan_dtype)kt, p[B], (pscan_dtype)vt, p[C], p[D], n,
                              (pscan_op)pop, count_arg);
    break;
  default:
    got = pscan_scan_by_key(ctx, p[A], (pscan_dtype)kt, p[B], p[D], n, (pscan_dtype)vt,
                            (pscan_op)pop, exclusive, with_init ? value_arg : NULL);
  }
  if (got != expect)
    fail("returned %s, want %s", pscan_status_name(got), pscan_status_name(expect));
  if (expect != PSCAN_OK) {
    if (memcmp(arena, copy, bytes) != 0)
      report_arena(arena, copy, bytes, off, elem, "a refused call wrote to memory");
    if (count != poisoned_count)
      fail("a refused call wrote the count");
  } else {
    if (op != SCAN_BY_KEY && count != want_count)
      fail("count %zu, want %zu", count, want_count);
    if (by_key) { /* values: the same value (any NaN matches any NaN), then as written */
      size_t at = ref_first_difference((pscan_dtype)vt, p[D], want_vals, want_count);
      if (at != want_count) {
        char got_s[64], want_s[64];
        ref_format((pscan_dtype)vt, p[D] + at * vs, got_s, sizeof got_s);
        ref_format((pscan_dtype)vt, want_vals + at * vs, want_s, sizeof want_s);
        fail("vals_out[%zu] = %s, reference %s", at, got_s, want_s);
      }
      memcpy(want + off[D], p[D], want_count * vs);
    }
    if (memcmp(arena, want, bytes) != 0)
      report_arena(arena, want, bytes, off, elem, "result differs from the reference");
  }
  free(arena);
  free(copy);
  free(want);
  free(want_vals);
  free(want_counts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx && pscan_create(&ctx, PSCAN_BACKEND_CPU) != PSCAN_OK)
    abort();
  if (size >= HEADER)
    check_one(data, size);
  return 0;
}
