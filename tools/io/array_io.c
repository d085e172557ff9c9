/* Loading and saving typed 1-D arrays (see array_io.h): input files are mapped read-only (pipes
 * and stdin are read into a growing buffer), outputs go through safe_out.c (a temporary file
 * beside the output renamed over it by aio_commit, so a failed command leaves no partial file). A
 * mapped input that is truncated while it is read raises SIGBUS, which aio_catch_sigbus turns
 * into one line and exit status 1. */
#define _POSIX_C_SOURCE 200809L
#include "array_io.h"
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* ---- the mapped inputs, as the SIGBUS handler sees them ---- */

enum { MAPS = 8, MAP_NAME = 256, SIGBUS_MSG = 512 };
typedef struct mapped {
  uintptr_t start, len;
  char msg[SIGBUS_MSG]; /* the whole line the handler prints */
  size_t msg_len;
} mapped;
static mapped maps[MAPS];
static volatile sig_atomic_t map_used[MAPS];
static char sigbus_cmd[64] = "";

static void on_sigbus(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  uintptr_t addr = (uintptr_t)info->si_addr;
  for (int k = 0; k < MAPS; k++)
    if (map_used[k] && addr - maps[k].start < maps[k].len) {
      sout_remove_temps();
      if (write(STDERR_FILENO, maps[k].msg, maps[k].msg_len) < 0) {
        /* nothing more to say */
      }
      _exit(1);
    }
  signal(sig, SIG_DFL); /* not a mapped input: the default action, as before */
  raise(sig);
}

void aio_catch_sigbus(const char *cmd) {
  snprintf(sigbus_cmd, sizeof sigbus_cmd, "%s", cmd);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, NULL);
}

static void map_register(const void *m, size_t len, const char *path) {
  for (int k = 0; k < MAPS; k++)
    if (!map_used[k]) {
      mapped *p = &maps[k];
      p->start = (uintptr_t)m;
      p->len = len;
      int n = snprintf(p->msg, sizeof p->msg, "pscan%s%s: %.*s: file changed while being read\n",
                       sigbus_cmd[0] ? " " : "", sigbus_cmd, MAP_NAME, path);
      p->msg_len = n < 0 ? 0 : (size_t)n < sizeof p->msg ? (size_t)n : sizeof p->msg - 1;
      map_used[k] = 1;
      return;
    }
}

static void map_unregister(const void *m) {
  for (int k = 0; k < MAPS; k++)
    if (map_used[k] && maps[k].start == (uintptr_t)m)
      map_used[k] = 0;
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
  int fd; /* the mapped file, or -1 */
  long long size, mtime_s, mtime_ns;
} source;

/* Unmaps map (len bytes; NULL: none), closes fd (-1: none), frees owned. */
static void release_data(void *map, size_t len, int fd, void *owned) {
  if (map) {
    map_unregister(map);
    munmap(map, len);
  }
  if (fd >= 0)
    close(fd);
  free(owned);
}

static void source_free(source *s) {
  release_data(s->map, s->len, s->fd, s->owned);
  *s = (source){.fd = -1};
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
  *s = (source){buf, len, NULL, buf, -1, 0, 0, 0};
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
      *s = (source){m, (size_t)st.st_size, m, NULL, fd, (long long)st.st_size,
                    (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec};
      map_register(m, (size_t)st.st_size, path);
      return true; /* fd stays open: aio_unchanged looks at it */
    }
  }
  close(fd);
  return ok;
}

/* The array takes over the source's storage (and its mapping and file). */
static void take_source(aio_array *a, source *s) {
  a->owned = s->owned;
  a->map = s->map;
  a->map_len = s->map ? s->len : 0;
  a->fd = s->fd;
  a->size = s->size;
  a->mtime_s = s->mtime_s;
  a->mtime_ns = s->mtime_ns;
  *s = (source){.fd = -1};
}

/* The data of a .npy file: in place when it is aligned and in this machine's byte order. */
static bool load_npy(const char *path, int type, source *s, aio_array *a, aio_err *err) {
  npy_header h;
  (void)type; /* the file says */
  if (!npy_parse(path, s->buf, s->len, &h, err))
    return false;
  size_t size = pscan_dtype_size(h.type), bytes = h.n * size;
  const uint8_t *data = s->buf + h.data_offset;
  *a = (aio_array){.type = h.type, .n = h.n, .data = data, .ndim = h.ndim, .is_bool = h.is_bool,
                   .fd = -1};
  memcpy(a->shape, h.shape, sizeof h.shape);
  if (h.swap || h.is_bool || (uintptr_t)data % size != 0) {
    a->owned = malloc(bytes ? bytes : 1);
    if (!a->owned) {
      aio_errorf(err, "%s: out of memory for %zu bytes", path, bytes);
      return false;
    }
    memcpy(a->owned, data, bytes);
    if (h.swap)
      aio_swap_bytes(a->owned, h.n, size);
    if (h.is_bool) /* True is any non-zero byte, as numpy reads it */
      for (size_t i = 0; i < h.n; i++)
        ((uint8_t *)a->owned)[i] = ((uint8_t *)a->owned)[i] != 0;
    a->data = a->owned; /* the source is freed by the caller */
    return true;
  }
  take_source(a, s);
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
  *a = (aio_array){.type = (pscan_dtype)type, .n = s->len / size, .data = s->buf, .fd = -1};
  take_source(a, s);
  return true;
}

static bool load_text(const char *path, int type, source *s, aio_array *a, aio_err *err) {
  pscan_dtype t = type == AIO_NO_TYPE ? PSCAN_I64 : (pscan_dtype)type;
  const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
  void *data;
  size_t n;
  if (!text_parse(name, (const char *)s->buf, s->len, t, &data, &n, err))
    return false;
  *a = (aio_array){.type = t, .n = n, .data = data, .owned = data, .fd = -1};
  return true;
}

bool aio_load(const char *path, int type, aio_array *a, aio_err *err) {
  static bool (*const loaders[])(const char *, int, source *, aio_array *, aio_err *) = {
      [AIO_NPY] = load_npy, [AIO_TEXT] = load_text, [AIO_RAW] = load_raw};
  source s = {.fd = -1};
  *a = (aio_array){.fd = -1};
  if (!open_source(path, &s, err))
    return false;
  bool ok = loaders[aio_format_of(path)](path, type, &s, a, err);
  source_free(&s);
  if (!ok)
    aio_free(a);
  return ok;
}

void aio_free(aio_array *a) {
  release_data(a->map, a->map_len, a->fd, a->owned);
  *a = (aio_array){.fd = -1};
}

bool aio_unchanged(const aio_array *a, const char *path, aio_err *err) {
  struct stat st;
  if (!a->map || a->fd < 0)
    return true;
  if (fstat(a->fd, &st) == 0 && (long long)st.st_size == a->size &&
      (long long)st.st_mtim.tv_sec == a->mtime_s && (long long)st.st_mtim.tv_nsec == a->mtime_ns)
    return true;
  aio_errorf(err, "%s: file changed while being read", path);
  return false;
}

/* ---- writing ---- */

static aio_progress_fn progress_fn;
static void *progress_arg;

void aio_set_progress(aio_progress_fn fn, void *arg) {
  progress_fn = fn;
  progress_arg = arg;
}

enum { CHUNK_BYTES = 16 << 20 };

/* The elements, in chunks, so that the progress callback sees the writing advance; a .npy file
   gets the shape shape[0..ndim) (ndim <= 1: 1-D of n). */
static bool write_data(FILE *f, const char *path, pscan_dtype t, const void *data, size_t n,
                       int ndim, const size_t *shape) {
  aio_format format = aio_format_of(path);
  size_t size = pscan_dtype_size(t);
  if (format == AIO_NPY) {
    char header[NPY_HEADER_MAX];
    size_t len = ndim > 1 ? npy_format_header_shape(t, ndim, shape, header)
                          : npy_format_header(t, n, header);
    if (fwrite(header, 1, len, f) != len)
      return false;
  }
  /* text takes about 20 bytes an element */
  size_t chunk = format == AIO_TEXT ? CHUNK_BYTES / 20 : CHUNK_BYTES / size;
  for (size_t i = 0; i < n; i += chunk) {
    size_t m = n - i < chunk ? n - i : chunk;
    const uint8_t *p = (const uint8_t *)data + i * size;
    if (format == AIO_TEXT ? !text_write(f, t, p, m) : fwrite(p, size, m, f) != m)
      return false;
    if (progress_fn)
      progress_fn(progress_arg, path, (double)(i + m) / (double)n);
  }
  return true;
}

bool aio_write(aio_output *o, const char *path, pscan_dtype t, const void *data, size_t n,
               aio_err *err) {
  return aio_write_shape(o, path, t, data, n, 1, &n, err);
}

bool aio_write_shape(aio_output *o, const char *path, pscan_dtype t, const void *data, size_t n,
                     int ndim, const size_t *shape, aio_err *err) {
  o->open = sout_open(&o->s, path);
  if (!o->open) {
    aio_errorf(err, "%s", o->s.err);
    sout_discard(&o->s);
    return false;
  }
  errno = 0;
  bool ok = write_data(o->s.f, path, t, data, n, ndim, shape);
  int e = errno;
  if (!ok)
    aio_errorf(err, "%s: write error: %s", strcmp(path, "-") == 0 ? "stdout" : path,
               strerror(e ? e : EIO));
  else if (!sout_close(&o->s))
    ok = false, aio_errorf(err, "%s", o->s.err);
  if (!ok)
    aio_discard(o);
  return ok;
}

bool aio_commit(aio_output *o, aio_err *err) {
  if (!o->open)
    return true;
  if (!sout_commit(&o->s)) {
    aio_errorf(err, "%s", o->s.err);
    aio_discard(o);
    return false;
  }
  return true;
}

void aio_discard(aio_output *o) {
  if (o->open)
    sout_discard(&o->s);
  o->open = false;
}
