/* Loading and saving typed 1-D arrays (see array_io.h): input files are mapped read-only (pipes
 * and stdin are read into a growing buffer), outputs are written to a temporary file beside the
 * output and renamed over it by aio_commit, so a failed command leaves no partial file. */
#define _POSIX_C_SOURCE 200809L
#include "array_io.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

aio_format aio_format_of(const char *path) {
  if (strcmp(path, "-") == 0 || ends_with(path, ".txt"))
    return AIO_TEXT;
  return ends_with(path, ".npy") ? AIO_NPY : AIO_RAW;
}

/* ---- reading ---- */

/* The bytes of an input: mapped (map_len > 0) or malloc'd. */
typedef struct source {
  const uint8_t *buf;
  size_t len;
  void *map, *owned;
} source;

static void source_free(source *s) {
  if (s->map)
    munmap(s->map, s->len);
  free(s->owned);
  *s = (source){0};
}

static bool read_all(int fd, const char *name, source *s, aio_err *err) {
  size_t cap = 0, len = 0;
  uint8_t *buf = NULL;
  for (;;) {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 65536;
      uint8_t *p = ncap > cap ? realloc(buf, ncap) : NULL;
      if (!p) {
        free(buf);
        aio_errorf(err, "%s: out of memory after %zu bytes", name, len);
        return false;
      }
      buf = p, cap = ncap;
    }
    ssize_t got = read(fd, buf + len, cap - len);
    if (got == 0)
      break;
    if (got < 0 && errno != EINTR) {
      free(buf);
      aio_errorf(err, "%s: read error: %s", name, strerror(errno));
      return false;
    }
    len += got > 0 ? (size_t)got : 0;
  }
  *s = (source){buf, len, NULL, buf};
  return true;
}

static bool open_source(const char *path, source *s, aio_err *err) {
  if (strcmp(path, "-") == 0)
    return read_all(STDIN_FILENO, "stdin", s, err);
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    aio_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return false;
  }
  bool ok = true;
  if (S_ISDIR(st.st_mode)) {
    aio_errorf(err, "%s: is a directory", path);
    ok = false;
  } else if (!S_ISREG(st.st_mode) || st.st_size == 0) { /* a pipe, a device, or empty */
    ok = read_all(fd, path, s, err);
  } else if ((uintmax_t)st.st_size > SIZE_MAX) {
    aio_errorf(err, "%s: too large for this machine's address space", path);
    ok = false;
  } else {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      aio_errorf(err, "%s: cannot map: %s", path, strerror(errno));
      ok = false;
    } else {
      *s = (source){m, (size_t)st.st_size, m, NULL};
    }
  }
  close(fd);
  return ok;
}

/* The data of a .npy file: in place when it is aligned and in this machine's byte order. */
static bool load_npy(const char *path, int type, source *s, aio_array *a, aio_err *err) {
  npy_header h;
  (void)type; /* the file says */
  if (!npy_parse(path, s->buf, s->len, &h, err))
    return false;
  size_t size = pscan_dtype_size(h.type), bytes = h.n * size;
  const uint8_t *data = s->buf + h.data_offset;
  *a = (aio_array){h.type, h.n, data, NULL, NULL, 0, h.ndim, {0}};
  memcpy(a->shape, h.shape, sizeof h.shape);
  if (h.swap || (uintptr_t)data % size != 0) {
    a->owned = malloc(bytes ? bytes : 1);
    if (!a->owned) {
      aio_errorf(err, "%s: out of memory for %zu bytes", path, bytes);
      return false;
    }
    memcpy(a->owned, data, bytes);
    if (h.swap)
      aio_swap_bytes(a->owned, h.n, size);
    a->data = a->owned; /* the source is freed by the caller */
    return true;
  }
  a->owned = s->owned; /* the array keeps the source's storage */
  a->map = s->map;
  a->map_len = s->map ? s->len : 0;
  *s = (source){0};
  return true;
}

static bool load_raw(const char *path, int type, source *s, aio_array *a, aio_err *err) {
  if (type == AIO_NO_TYPE) {
    aio_errorf(err, "%s: raw binary input needs --dtype (or name the file *.npy or *.txt)", path);
    return false;
  }
  size_t size = pscan_dtype_size((pscan_dtype)type);
  if (s->len % size != 0) {
    aio_errorf(err, "%s: %zu bytes is not a whole number of %s elements (%zu bytes each)", path,
               s->len, cli_dtype_name((pscan_dtype)type), size);
    return false;
  }
  *a = (aio_array){(pscan_dtype)type, s->len / size, s->buf, s->owned, s->map,
                   s->map ? s->len : 0, 0, {0}};
  *s = (source){0};
  return true;
}

static bool load_text(const char *path, int type, source *s, aio_array *a, aio_err *err) {
  pscan_dtype t = type == AIO_NO_TYPE ? PSCAN_I64 : (pscan_dtype)type;
  const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
  void *data;
  size_t n;
  if (!text_parse(name, (const char *)s->buf, s->len, t, &data, &n, err))
    return false;
  *a = (aio_array){t, n, data, data, NULL, 0, 0, {0}};
  return true;
}

bool aio_load(const char *path, int type, aio_array *a, aio_err *err) {
  static bool (*const loaders[])(const char *, int, source *, aio_array *, aio_err *) = {
      [AIO_NPY] = load_npy, [AIO_TEXT] = load_text, [AIO_RAW] = load_raw};
  source s;
  *a = (aio_array){0};
  if (!open_source(path, &s, err))
    return false;
  bool ok = loaders[aio_format_of(path)](path, type, &s, a, err);
  source_free(&s);
  if (!ok)
    aio_free(a);
  return ok;
}

void aio_free(aio_array *a) {
  if (a->map)
    munmap(a->map, a->map_len);
  free(a->owned);
  *a = (aio_array){0};
}

/* ---- writing ---- */

static bool write_data(FILE *f, const char *path, pscan_dtype t, const void *data, size_t n,
                       int ndim, const size_t *shape) {
  aio_format format = aio_format_of(path);
  if (format == AIO_TEXT)
    return text_write(f, t, data, n);
  if (format == AIO_NPY) {
    char header[NPY_HEADER_MAX];
    size_t len = ndim > 1 ? npy_format_header_shape(t, ndim, shape, header)
                          : npy_format_header(t, n, header);
    if (fwrite(header, 1, len, f) != len)
      return false;
  }
  return n == 0 || fwrite(data, pscan_dtype_size(t), n, f) == n;
}

/* A new temporary file ".NAME.XXXXXX" in path's directory, with the permissions a new file gets. */
static int make_temp(const char *path, char **tmp, aio_err *err) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  *tmp = malloc(strlen(path) + 9);
  if (!*tmp) {
    aio_errorf(err, "%s: out of memory", path);
    return -1;
  }
  sprintf(*tmp, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
  int fd = mkstemp(*tmp);
  if (fd < 0) {
    aio_errorf(err, "%s: cannot create a file there: %s", path, strerror(errno));
    free(*tmp);
    *tmp = NULL;
    return -1;
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  return fd;
}

bool aio_write(aio_output *o, const char *path, pscan_dtype t, const void *data, size_t n,
               aio_err *err) {
  return aio_write_shape(o, path, t, data, n, 1, &n, err);
}

bool aio_write_shape(aio_output *o, const char *path, pscan_dtype t, const void *data, size_t n,
                     int ndim, const size_t *shape, aio_err *err) {
  *o = (aio_output){path, NULL};
  if (strcmp(path, "-") == 0) {
    if (!text_write(stdout, t, data, n) || fflush(stdout) != 0) {
      aio_errorf(err, "stdout: write error: %s", strerror(errno));
      return false;
    }
    return true;
  }
  int fd = make_temp(path, &o->tmp, err);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (fd >= 0 && !f)
    close(fd);
  bool ok = f && write_data(f, path, t, data, n, ndim, shape);
  errno = ok ? 0 : errno;
  if (f && fclose(f) != 0)
    ok = false;
  if (!ok && o->tmp)
    aio_errorf(err, "%s: write error: %s", path, errno ? strerror(errno) : "unknown");
  if (!ok)
    aio_discard(o);
  return ok;
}

bool aio_commit(aio_output *o, aio_err *err) {
  if (!o->tmp)
    return true;
  if (rename(o->tmp, o->path) != 0) {
    aio_errorf(err, "%s: cannot replace: %s", o->path, strerror(errno));
    aio_discard(o);
    return false;
  }
  free(o->tmp);
  o->tmp = NULL;
  return true;
}

void aio_discard(aio_output *o) {
  if (o->tmp) {
    unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
  }
}
