/* Text arrays (see array_io.h): numbers separated by white space, '#' comments, parsed with
 * strtoll / strtoull / strtof / strtod and checked against the range of the element type. */
#include "array_io.h"
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TOKEN = 96 };
typedef enum { NUM_OK, NUM_GARBAGE, NUM_RANGE } num_result;

static const int64_t smin[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN};
static const int64_t smax[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
static const uint64_t umax[] = {UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX};

/* Index 0..3 of a 1, 2, 4, 8-byte integer type. */
static int width_index(pscan_dtype t) {
  size_t s = pscan_dtype_size(t);
  return s == 1 ? 0 : s == 2 ? 1 : s == 4 ? 2 : 3;
}

static bool is_signed(pscan_dtype t) { return t <= PSCAN_I64; }

/* Stores v (already in range) as one element of the integer type t. */
static void store_int(pscan_dtype t, uint64_t v, void *out) {
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;
  const void *src[] = {&u8, &u16, &u32, &v};
  memcpy(out, src[width_index(t)], pscan_dtype_size(t));
}

/* One element of an integer type, its bits zero-extended. */
static uint64_t load_uint(pscan_dtype t, const void *p) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  void *dst[] = {&u8, &u16, &u32, &u64};
  int w = width_index(t);
  memcpy(dst[w], p, pscan_dtype_size(t));
  return w == 0 ? u8 : w == 1 ? u16 : w == 2 ? u32 : u64;
}

/* One element of a signed integer type: its bits sign-extended without a narrowing cast. */
static int64_t load_int(pscan_dtype t, const void *p) {
  uint64_t u = load_uint(t, p), sign = (uint64_t)1 << (8 * pscan_dtype_size(t) - 1);
  uint64_t mask = sign | (sign - 1);
  return (u & sign) ? -(int64_t)(~u & mask) - 1 : (int64_t)u;
}

/* The whole of s was a number (strto* skip leading white space, which a value may not have). */
static bool consumed(const char *s, const char *end) {
  return end != s && *end == '\0' && !isspace((unsigned char)s[0]);
}

static num_result parse_signed(const char *s, pscan_dtype t, void *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!consumed(s, end))
    return NUM_GARBAGE;
  int w = width_index(t);
  if (errno == ERANGE || v < smin[w] || v > smax[w])
    return NUM_RANGE;
  store_int(t, (uint64_t)(int64_t)v, out);
  return NUM_OK;
}

static num_result parse_unsigned(const char *s, pscan_dtype t, void *out) {
  if (s[0] == '-') { /* strtoull would wrap it: only minus zero is in range */
    num_result r = parse_unsigned(s + 1, t, out);
    return r != NUM_OK ? r : load_uint(t, out) == 0 ? NUM_OK : NUM_RANGE;
  }
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (!consumed(s, end))
    return NUM_GARBAGE;
  if (errno == ERANGE || v > umax[width_index(t)])
    return NUM_RANGE;
  store_int(t, (uint64_t)v, out);
  return NUM_OK;
}

/* Overflow to infinity is out of range; underflow to a denormal or zero is accepted. */
static num_result parse_float(const char *s, pscan_dtype t, void *out) {
  char *end;
  errno = 0;
  float f = 0;
  double d = t == PSCAN_F32 ? (f = strtof(s, &end)) : strtod(s, &end); /* f32: d is f, widened */
  if (!consumed(s, end))
    return NUM_GARBAGE;
  if (errno == ERANGE && isinf(d))
    return NUM_RANGE;
  if (t == PSCAN_F32)
    memcpy(out, &f, sizeof f);
  else
    memcpy(out, &d, sizeof d);
  return NUM_OK;
}

static num_result parse_number(const char *s, pscan_dtype t, void *out) {
  if (cli_dtype_is_float(t))
    return parse_float(s, t, out);
  return is_signed(t) ? parse_signed(s, t, out) : parse_unsigned(s, t, out);
}

bool text_parse_value(const char *s, pscan_dtype t, void *out) {
  return (unsigned)t < PSCAN_DTYPE_COUNT && parse_number(s, t, out) == NUM_OK;
}

int text_parse_value_why(const char *s, pscan_dtype t, void *out) {
  if ((unsigned)t >= PSCAN_DTYPE_COUNT)
    return TEXT_VALUE_GARBAGE;
  num_result r = parse_number(s, t, out);
  return r == NUM_OK ? TEXT_VALUE_OK : r == NUM_RANGE ? TEXT_VALUE_RANGE : TEXT_VALUE_GARBAGE;
}

/* ---- whole texts ---- */

typedef struct growing {
  uint8_t *data;
  size_t n, cap, size; /* elements, capacity in elements, element size */
} growing;

static bool grow(growing *g) {
  size_t cap = g->cap ? g->cap * 2 : 1024;
  if (cap < g->cap || cap > SIZE_MAX / g->size)
    return false;
  uint8_t *p = realloc(g->data, cap * g->size);
  if (!p)
    return false;
  g->data = p;
  g->cap = cap;
  return true;
}

/* The token, with anything unprintable shown as '?', for a message. */
static void printable(const char *tok, size_t len, char *buf, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < len && k + 4 < cap; i++)
    buf[k++] = isprint((unsigned char)tok[i]) ? tok[i] : '?';
  if (len > k)
    buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
  buf[k] = '\0';
}

static bool token_error(const char *name, long line, const char *tok, size_t len, num_result r,
                        pscan_dtype t, aio_err *err) {
  char shown[48];
  printable(tok, len, shown, sizeof shown);
  if (r == NUM_RANGE)
    aio_errorf(err, "%s:%ld: %s is out of the range of %s", name, line, shown, cli_dtype_name(t));
  else
    aio_errorf(err, "%s:%ld: '%s' is not a%s %s number%s", name, line, shown,
               cli_dtype_name(t)[0] == 'i' ? "n" : "", cli_dtype_name(t),
               cli_dtype_is_float(t) ? "" : " (give --dtype f64 for floating point)");
  return false;
}

/* Parses the token tok[0..len) into the next element of g. A long token (a hundred digits, or
   leading zeros) is copied to the heap: its value decides, not its length. */
static bool add_token(const char *name, long line, const char *tok, size_t len, pscan_dtype t,
                      growing *g, aio_err *err) {
  char small[MAX_TOKEN];
  char *buf = len < sizeof small ? small : malloc(len + 1);
  if (!buf || (g->n == g->cap && !grow(g))) {
    if (buf != small)
      free(buf);
    aio_errorf(err, "%s:%ld: out of memory", name, line);
    return false;
  }
  memcpy(buf, tok, len);
  buf[len] = '\0';
  num_result r = memchr(tok, '\0', len) ? NUM_GARBAGE : parse_number(buf, t, g->data + g->n * g->size);
  if (buf != small)
    free(buf);
  if (r != NUM_OK)
    return token_error(name, line, tok, len, r, t, err);
  g->n++;
  return true;
}

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool text_parse(const char *name, const char *buf, size_t len, pscan_dtype t, void **data,
                size_t *n, aio_err *err) {
  growing g = {NULL, 0, 0, pscan_dtype_size(t)};
  long line = 1;
  size_t i = 0;
  while (i < len) {
    char c = buf[i];
    if (c == '\n') {
      line++, i++;
    } else if (is_space(c)) {
      i++;
    } else if (c == '#') {
      while (i < len && buf[i] != '\n')
        i++;
    } else {
      size_t start = i;
      while (i < len && !is_space(buf[i]) && buf[i] != '#')
        i++;
      if (!add_token(name, line, buf + start, i - start, t, &g, err)) {
        free(g.data);
        return false;
      }
    }
  }
  *data = g.data;
  *n = g.n;
  return true;
}

bool text_write(FILE *f, pscan_dtype t, const void *data, size_t n) {
  const uint8_t *p = data;
  size_t size = pscan_dtype_size(t);
  for (size_t i = 0; i < n; i++, p += size) {
    if (t == PSCAN_F32) {
      float v;
      memcpy(&v, p, sizeof v);
      fprintf(f, "%.9g\n", v);
    } else if (t == PSCAN_F64) {
      double v;
      memcpy(&v, p, sizeof v);
      fprintf(f, "%.17g\n", v);
    } else if (is_signed(t)) {
      fprintf(f, "%" PRId64 "\n", load_int(t, p));
    } else {
      fprintf(f, "%" PRIu64 "\n", load_uint(t, p));
    }
  }
  return !ferror(f);
}
