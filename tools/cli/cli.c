/* Option matching, list parsing and names for the pscan tool (see cli.h). */
#include "cli.h"

#include "lists.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[PSCAN_DTYPE_COUNT] = {
#define X(E, name, ctype, kind) [PSCAN_##E] = #name,
    PSCAN_TYPES(X)
#undef X
};

#define KIND_IS_FLOAT_SINT false
#define KIND_IS_FLOAT_UINT false
#define KIND_IS_FLOAT_FLOAT true
static const bool dtype_float[PSCAN_DTYPE_COUNT] = {
#define X(E, name, ctype, kind) [PSCAN_##E] = KIND_IS_FLOAT_##kind,
    PSCAN_TYPES(X)
#undef X
};

static const char *const algo_names[PSCAN_ALGO_COUNT] = {
#define X(E, name) [PSCAN_ALGO_##E] = #name,
    PSCAN_ALGOS(X)
#undef X
};

const char *cli_dtype_name(pscan_dtype t) {
  return (unsigned)t < PSCAN_DTYPE_COUNT ? dtype_names[t] : "?";
}

const char *cli_algo_name(pscan_algo a) {
  return (unsigned)a < PSCAN_ALGO_COUNT ? algo_names[a] : "?";
}

bool cli_dtype_is_float(pscan_dtype t) { return (unsigned)t < PSCAN_DTYPE_COUNT && dtype_float[t]; }

static void vprint_error(const char *cmd, const char *fmt, va_list ap) {
  fputs(cmd ? "pscan " : "pscan", stderr);
  if (cmd)
    fputs(cmd, stderr);
  fputs(": ", stderr);
  vfprintf(stderr, fmt, ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint_error(cmd, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (try 'pscan%s%s --help')\n", cmd ? " " : "", cmd ? cmd : "");
  return EXIT_USAGE;
}

void cli_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint_error(cmd, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

bool cli_is_help(const char *arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

int cli_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value) {
  const char *arg = argv[*i];
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0)
    return 0;
  if (arg[len] == '=') {
    *value = arg + len + 1;
    return 1;
  }
  if (arg[len] != '\0')
    return 0;
  if (*i + 1 >= argc) {
    cli_usage_error(cmd, "option %s needs a value", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

/* Splits list at commas into items of at most 63 characters, calling parse on each. */
static bool for_each_item(const char *cmd, const char *opt, const char *list, const char *expect,
                          int *count, bool (*parse)(const char *item, void *out, int k),
                          void *out) {
  *count = 0;
  const char *p = list;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char item[64];
    if (len == 0 || len >= sizeof item) {
      cli_usage_error(cmd, "%s: %s in '%s'", opt, len ? "item too long" : "empty item", list);
      return false;
    }
    if (*count >= CLI_MAX_LIST) {
      cli_usage_error(cmd, "%s: more than %d items", opt, CLI_MAX_LIST);
      return false;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    if (!parse(item, out, *count)) {
      cli_usage_error(cmd, "%s: '%s' is not %s", opt, item, expect);
      return false;
    }
    ++*count;
    if (!end)
      return true;
    p = end + 1;
  }
}

/* A non-negative decimal number that is all digits and fits in uint64_t. */
static bool parse_u64(const char *s, char **end, uint64_t *v) {
  if (!isdigit((unsigned char)s[0]))
    return false;
  errno = 0;
  unsigned long long x = strtoull(s, end, 10);
  if (errno == ERANGE)
    return false;
  *v = (uint64_t)x;
  return true;
}

static bool parse_size_item(const char *item, void *out, int k) {
  char *end;
  uint64_t v;
  if (!parse_u64(item, &end, &v))
    return false;
  if (*end == '^') {
    uint64_t e;
    if (v != 2 || !parse_u64(end + 1, &end, &e) || *end != '\0' || e > 62)
      return false;
    v = (uint64_t)1 << e;
  } else if (*end != '\0') {
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    default: return false;
    }
    if (end[1] != '\0' || v > (UINT64_MAX >> shift))
      return false;
    v <<= shift;
  }
  if (v == 0 || v > SIZE_MAX)
    return false;
  ((size_t *)out)[k] = (size_t)v;
  return true;
}

static bool parse_thread_item(const char *item, void *out, int k) {
  char *end;
  uint64_t v;
  if (!parse_u64(item, &end, &v) || *end != '\0' || v < 1 || v > CLI_MAX_THREADS)
    return false;
  ((int *)out)[k] = (int)v;
  return true;
}

static bool parse_type_item(const char *item, void *out, int k) {
  for (int t = 0; t < PSCAN_DTYPE_COUNT; t++)
    if (strcmp(item, dtype_names[t]) == 0) {
      ((pscan_dtype *)out)[k] = (pscan_dtype)t;
      return true;
    }
  return false;
}

bool cli_parse_sizes(const char *cmd, const char *opt, const char *list, size_t *out, int *count) {
  return for_each_item(cmd, opt, list, "a size (like 1000, 2^20, 64K, 16M, 1G; at least 1)", count,
                       parse_size_item, out);
}

bool cli_parse_threads(const char *cmd, const char *opt, const char *list, int *out, int *count) {
  return for_each_item(cmd, opt, list, "a thread count from 1 to 1024", count, parse_thread_item,
                       out);
}

bool cli_parse_types(const char *cmd, const char *opt, const char *list, pscan_dtype *out,
                     int *count) {
  return for_each_item(cmd, opt, list, "a type (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64)", count,
                       parse_type_item, out);
}

/* Whether s is one or more decimal digits and nothing else. */
static bool all_digits(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s))
      return false;
  return true;
}

bool cli_parse_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out) {
  char *end;
  uint64_t v;
  bool number = all_digits(text);
  if (!parse_u64(text, &end, &v) || *end != '\0' || v < (uint64_t)lo || v > (uint64_t)hi) {
    if (number) /* digits only: a whole number, too large (or too small) */
      cli_usage_error(cmd, "%s: %s is out of range (%ld to %ld)", opt, text, lo, hi);
    else
      cli_usage_error(cmd, "%s: '%s' is not a whole number from %ld to %ld", opt, text, lo, hi);
    return false;
  }
  *out = (long)v;
  return true;
}

const char *cli_format_count(size_t n, char *buf, size_t len) {
  if (n != 0 && (n & (n - 1)) == 0) {
    int e = 0;
    while (((size_t)1 << e) != n)
      e++;
    snprintf(buf, len, "2^%d", e);
  } else {
    snprintf(buf, len, "%zu", n);
  }
  return buf;
}

const char *cli_format_bytes(double bytes, char *buf, size_t len) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    u++;
  }
  snprintf(buf, len, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}
