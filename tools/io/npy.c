/* The NumPy .npy format (see array_io.h): header parser over a buffer, and header writer.
 *
 * A .npy file is the magic "\x93NUMPY", a major and a minor version byte, the header length (2
 * bytes little-endian in version 1, 4 bytes in versions 2 and 3), then the header: a Python dict
 * literal such as {'descr': '<i4', 'fortran_order': False, 'shape': (5,), } padded with spaces
 * and ended by a newline, then the data. The dict is parsed strictly: the three keys exactly once
 * each, string, boolean and tuple values, nothing else. */
#include "array_io.h"
#include "cli/cli.h"

#include "lists.h"

#include <stdarg.h>
#include <string.h>

static const char MAGIC[6] = "\x93NUMPY";
enum { MAX_HEADER = 1 << 20 }; /* numpy writes < 100 bytes; anything huge is hostile */

/* NumPy's kind letter of each pscan_dtype, from the lists (a new type gets its letter with its
   entry); its size is pscan_dtype_size. */
#define NPY_KIND_SINT 'i'
#define NPY_KIND_UINT 'u'
#define NPY_KIND_FLOAT 'f'
static const char dtype_kind[PSCAN_DTYPE_COUNT] = {
#define X(E, name, ctype, kind) [PSCAN_##E] = NPY_KIND_##kind,
    PSCAN_TYPES(X)
#undef X
};

void aio_errorf(aio_err *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
}

static bool host_is_big_endian(void) {
  const uint16_t one = 1;
  uint8_t first;
  memcpy(&first, &one, 1);
  return first == 0;
}

void aio_swap_bytes(void *data, size_t n, size_t size) {
  uint8_t *p = data;
  for (size_t i = 0; i < n; i++, p += size)
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
      uint8_t t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* ---- the dict ---- */

typedef struct cursor {
  const char *start, *p, *end;
  const char *name; /* the file, for messages */
  aio_err *err;
} cursor;

static bool bad(cursor *c, const char *what) {
  aio_errorf(c->err, "%s: bad .npy header: %s at offset %ld of the dict", c->name, what,
             (long)(c->p - c->start));
  return false;
}

static void skip_ws(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

/* Skips white space, then the character ch if it is next. */
static bool accept(cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A quoted string without escapes, of at most cap - 1 characters. */
static bool parse_string(cursor *c, char *out, size_t cap) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return bad(c, "expected a quoted string");
  char q = *c->p++;
  size_t len = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' || len + 1 >= cap)
      return bad(c, "unsupported or too long string");
    if ((unsigned char)*c->p < 0x20 || (unsigned char)*c->p >= 0x7f) /* messages quote strings */
      return bad(c, "unprintable character in a string");
    out[len++] = *c->p++;
  }
  if (c->p >= c->end)
    return bad(c, "unterminated string");
  c->p++;
  out[len] = '\0';
  return true;
}

static bool parse_bool(cursor *c, bool *v) {
  skip_ws(c);
  size_t left = (size_t)(c->end - c->p);
  if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
    *v = true, c->p += 4;
    return true;
  }
  if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
    *v = false, c->p += 5;
    return true;
  }
  return bad(c, "expected True or False");
}

/* A non-negative integer (Python 2 numpy wrote a trailing L); *huge when it is 2^64 or more
   (then *v is UINT64_MAX). */
static bool parse_dim(cursor *c, uint64_t *v, bool *huge) {
  skip_ws(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9')
    return bad(c, "expected a dimension");
  *v = 0;
  *huge = false;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    unsigned d = (unsigned)(*c->p++ - '0');
    if (*v > (UINT64_MAX - d) / 10)
      *huge = true;
    *v = *huge ? UINT64_MAX : *v * 10 + d;
  }
  if (c->p < c->end && *c->p == 'L')
    c->p++;
  return true;
}

/* A tuple of dimensions: "()", "(5,)", "(3, 4)"; the first AIO_MAX_DIMS go to dims; *huge when
   one of them is 2^64 or more. */
static bool parse_shape(cursor *c, int *ndim, uint64_t *dims, bool *huge) {
  if (!accept(c, '('))
    return bad(c, "expected a shape tuple");
  *ndim = 0;
  *huge = false;
  bool comma = true;
  while (!accept(c, ')')) {
    uint64_t d;
    bool dim_huge;
    if (!comma || !parse_dim(c, &d, &dim_huge))
      return comma ? false : bad(c, "expected ',' in the shape");
    *huge |= dim_huge;
    if (*ndim < AIO_MAX_DIMS)
      dims[*ndim] = d;
    ++*ndim;
    comma = accept(c, ',');
  }
  if (*ndim == 1 && !comma)
    return bad(c, "a 1-tuple needs a trailing comma");
  return true;
}

/* '<i4', '>f8', '|u1' -> type and byte order. */
static bool parse_descr(const char *name, const char *d, npy_header *h, aio_err *err) {
  h->is_bool = strcmp(d, "|b1") == 0;
  if (h->is_bool) { /* numpy bool: u8 0/1 (the tool widens it where numpy does) */
    h->type = PSCAN_U8;
    h->swap = false;
    return true;
  }
  char order = d[0];
  int type = -1;
  if (order != '\0') {
    for (int t = 0; t < PSCAN_DTYPE_COUNT; t++) {
      char want[8];
      snprintf(want, sizeof want, "%c%zu", dtype_kind[t], pscan_dtype_size((pscan_dtype)t));
      /* The first match: a later type of the same kind and size (a bool listed as UINT would
         be u1 too) must not take the name of the one before it. */
      if (type < 0 && strcmp(d + 1, want) == 0)
        type = t;
    }
  }
  bool one_byte = type >= 0 && pscan_dtype_size((pscan_dtype)type) == 1;
  if (type < 0 || !(order == '<' || order == '>' || (order == '|' && one_byte))) {
    aio_errorf(err, "%s: unsupported dtype '%.20s' (supported: little or big endian i1-i8, u1-u8, "
                    "f4, f8, and |b1 as u8)", name, d);
    return false;
  }
  h->type = (pscan_dtype)type;
  h->swap = !one_byte && (order == '>') != host_is_big_endian();
  return true;
}

typedef struct dict_seen {
  bool descr, fortran, shape;
  char descr_text[32];
  bool fortran_order;
  int ndim;
  uint64_t dims[AIO_MAX_DIMS];
  bool dims_huge; /* a dimension of 2^64 or more */
} dict_seen;

static bool parse_entry(cursor *c, dict_seen *s) {
  char key[32];
  if (!parse_string(c, key, sizeof key))
    return false;
  if (!accept(c, ':'))
    return bad(c, "expected ':' after a key");
  bool *seen = strcmp(key, "descr") == 0           ? &s->descr
               : strcmp(key, "fortran_order") == 0 ? &s->fortran
               : strcmp(key, "shape") == 0         ? &s->shape
                                                   : NULL;
  if (!seen) {
    aio_errorf(c->err, "%s: bad .npy header: unknown key '%s'", c->name, key);
    return false;
  }
  if (*seen) {
    aio_errorf(c->err, "%s: bad .npy header: key '%s' given twice", c->name, key);
    return false;
  }
  *seen = true;
  if (seen == &s->descr)
    return parse_string(c, s->descr_text, sizeof s->descr_text);
  if (seen == &s->fortran)
    return parse_bool(c, &s->fortran_order);
  return parse_shape(c, &s->ndim, s->dims, &s->dims_huge);
}

static bool parse_dict(cursor *c, dict_seen *s) {
  if (!accept(c, '{'))
    return bad(c, "expected '{'");
  while (!accept(c, '}')) {
    if (!parse_entry(c, s))
      return false;
    if (!accept(c, ',')) {
      if (!accept(c, '}'))
        return bad(c, "expected ',' or '}'");
      break;
    }
  }
  skip_ws(c);
  if (c->p != c->end)
    return bad(c, "text after the dict");
  if (!s->descr || !s->fortran || !s->shape) {
    aio_errorf(c->err, "%s: bad .npy header: missing key '%s'", c->name,
               !s->descr ? "descr" : !s->fortran ? "fortran_order" : "shape");
    return false;
  }
  return true;
}

/* ---- the whole header ---- */

/* Magic, version and header length: sets *dict and *dict_len. */
static bool parse_prefix(const char *name, const uint8_t *buf, size_t len, size_t *dict,
                         size_t *dict_len, aio_err *err) {
  if (len < 10 || memcmp(buf, MAGIC, sizeof MAGIC) != 0) {
    aio_errorf(err, "%s: not a .npy file (no \\x93NUMPY magic at the start)", name);
    return false;
  }
  unsigned major = buf[6], minor = buf[7];
  if (major < 1 || major > 3 || minor != 0) {
    aio_errorf(err, "%s: unsupported .npy version %u.%u (1.0, 2.0 and 3.0 are read)", name, major,
               minor);
    return false;
  }
  size_t prefix = major == 1 ? 10 : 12;
  if (len < prefix) {
    aio_errorf(err, "%s: truncated .npy header", name);
    return false;
  }
  size_t hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
  if (major > 1)
    hlen |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
  if (hlen > MAX_HEADER || hlen > len - prefix) {
    aio_errorf(err, "%s: .npy header length %zu runs past the end of the file (%zu bytes)", name,
               hlen, len);
    return false;
  }
  *dict = prefix;
  *dict_len = hlen;
  return true;
}

bool npy_parse(const char *name, const uint8_t *buf, size_t len, npy_header *h, aio_err *err) {
  size_t off, hlen;
  if (!parse_prefix(name, buf, len, &off, &hlen, err))
    return false;
  const char *dict = (const char *)buf + off;
  cursor c = {dict, dict, dict + hlen, name, err};
  dict_seen s = {0};
  if (!parse_dict(&c, &s) || !parse_descr(name, s.descr_text, h, err))
    return false;
  if (s.fortran_order) {
    aio_errorf(err, "%s: fortran_order True is not supported (save a C-ordered array)", name);
    return false;
  }
  if (s.ndim < 1 || s.ndim > AIO_MAX_DIMS) {
    aio_errorf(err, "%s: the array has %d dimensions; 1 to %d are supported", name, s.ndim,
               AIO_MAX_DIMS);
    return false;
  }
  size_t size = pscan_dtype_size(h->type), avail = len - off - hlen;
  if (s.dims_huge) {
    if (s.ndim == 1)
      aio_errorf(err, "%s: truncated: the header says 2^64 or more elements of %s, the file holds "
                      "%zu data bytes", name, cli_dtype_name(h->type), avail);
    else
      aio_errorf(err, "%s: truncated: the header's shape has a dimension of 2^64 or more, the file "
                      "holds %zu data bytes", name, avail);
    return false;
  }
  uint64_t count = 1;
  bool too_many = false;
  for (int d = 0; d < s.ndim; d++) {
    too_many |= s.dims[d] != 0 && count > avail / size / s.dims[d];
    count = too_many ? count : count * s.dims[d];
    h->shape[d] = (size_t)s.dims[d];
  }
  if (too_many) {
    aio_errorf(err, "%s: truncated: the header's shape holds more elements of %s than the file's "
                    "%zu data bytes", name, cli_dtype_name(h->type), avail);
    return false;
  }
  if (count * size != avail) {
    aio_errorf(err, "%s: %s: the header says %llu elements of %s, the file holds %zu data bytes",
               name, count * size > avail ? "truncated" : "trailing bytes",
               (unsigned long long)count, cli_dtype_name(h->type), avail);
    return false;
  }
  h->ndim = s.ndim;
  h->n = (size_t)count;
  h->data_offset = off + hlen;
  return true;
}

size_t npy_format_header(pscan_dtype t, size_t n, char *buf) {
  return npy_format_header_shape(t, 1, &n, buf);
}

size_t npy_format_header_shape(pscan_dtype t, int ndim, const size_t *shape, char *buf) {
  char descr[8], dims[AIO_MAX_DIMS * 22 + 2] = "";
  size_t k = 0;
  for (int d = 0; d < ndim; d++)
    k += (size_t)snprintf(dims + k, sizeof dims - k, "%s%zu", d ? ", " : "", shape[d]);
  if (ndim == 1)
    snprintf(dims + k, sizeof dims - k, ",");
  size_t size = pscan_dtype_size(t);
  snprintf(descr, sizeof descr, "%c%c%zu", size == 1 ? '|' : host_is_big_endian() ? '>' : '<',
           dtype_kind[t], size);
  int len = snprintf(buf + 10, NPY_HEADER_MAX - 10,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
  size_t total = (10 + (size_t)len + 1 + 63) / 64 * 64; /* the data starts 64-byte aligned */
  memset(buf + 10 + len, ' ', total - 10 - (size_t)len);
  buf[total - 1] = '\n';
  memcpy(buf, MAGIC, sizeof MAGIC);
  buf[6] = 1;
  buf[7] = 0;
  buf[8] = (char)((total - 10) & 0xff);
  buf[9] = (char)((total - 10) >> 8);
  return total;
}
