/* The tool's one output path (see safe_out.h): direct writes to devices and FIFOs, otherwise a
 * mkstemp file beside the target renamed over it, symbolic links followed, mode and owner carried
 * over, and temporary files removed by the signal handlers. */
#define _XOPEN_SOURCE 700
#include "safe_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the temporary files the signal handlers remove ---- */

enum { SLOTS = 16, SLOT_PATH = 4096, MAX_LINKS = 40 };
static char slot_path[SLOTS][SLOT_PATH];
static volatile sig_atomic_t slot_used[SLOTS];

void sout_remove_temps(void) {
  for (int k = 0; k < SLOTS; k++)
    if (slot_used[k])
      unlink(slot_path[k]);
}

static void on_signal(int sig) {
  sout_remove_temps();
  _exit(128 + sig);
}

void sout_catch_signals(void) {
  static bool done;
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
  if (done)
    return;
  done = true;
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
    struct sigaction old, sa;
    if (sigaction(sigs[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
      continue; /* started ignoring it (nohup, a background job): keep ignoring it */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[k], &sa, NULL);
  }
}

static void block_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGPIPE);
  sigprocmask(SIG_BLOCK, &set, old);
}

/* ---- messages and names ---- */

static bool fail(sout *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->err, sizeof o->err, fmt, ap);
  va_end(ap);
  return false;
}

static bool failbuf(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return false;
}

/* The length of p's directory part, its final '/' included (0: the current directory). */
static size_t dir_len(const char *p) {
  const char *slash = strrchr(p, '/');
  return slash ? (size_t)(slash - p) + 1 : 0;
}

/* p's directory as a path of its own ("." or "/" where that is what it is); malloc'd. */
static char *dir_of(const char *p) {
  size_t n = dir_len(p);
  if (n == 0)
    return strdup(".");
  char *d = strndup(p, n == 1 ? 1 : n - 1);
  return d;
}

/* path with the symbolic links of its last component followed (a dangling link gives the name it
   points to); malloc'd, or NULL with errno set (ELOOP, ENOMEM). */
static char *follow_links(const char *path) {
  char *cur = strdup(path);
  for (int hop = 0; cur && hop <= MAX_LINKS; hop++) {
    struct stat st;
    char link[PATH_MAX];
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
      return cur;
    ssize_t len = readlink(cur, link, sizeof link - 1);
    if (len < 0)
      return cur;
    link[len] = '\0';
    size_t keep = link[0] == '/' ? 0 : dir_len(cur);
    char *next = malloc(keep + (size_t)len + 1);
    if (next) {
      memcpy(next, cur, keep);
      memcpy(next + keep, link, (size_t)len + 1);
    }
    free(cur);
    cur = next;
  }
  errno = cur ? ELOOP : ENOMEM;
  free(cur);
  return NULL;
}

/* ---- checks before the work ---- */

bool sout_check(const char *path, char *err, size_t cap) {
  if (strcmp(path, "-") == 0)
    return true;
  struct stat st;
  if (stat(path, &st) == 0) { /* the kernel follows the links, /proc/self/fd/N ones too */
    if (S_ISDIR(st.st_mode))
      return failbuf(err, cap, "%s: is a directory", path);
    if (S_ISSOCK(st.st_mode))
      return failbuf(err, cap, "%s: is a socket, not a file", path);
    if (access(path, W_OK) != 0) /* as '>' would refuse it */
      return failbuf(err, cap, "%s: cannot write: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
      return true; /* a device or a FIFO: written directly */
  } else if (errno != ENOENT) {
    return failbuf(err, cap, "%s: %s", path, strerror(errno));
  }
  /* a regular file or a new one: the temporary file goes in the target's directory */
  char *target = follow_links(path);
  if (!target)
    return failbuf(err, cap, "%s: %s", path, strerror(errno));
  char *dir = dir_of(target);
  struct stat ds;
  bool ok = true;
  if (!dir)
    ok = failbuf(err, cap, "%s: out of memory", path);
  else if (stat(dir, &ds) != 0)
    ok = failbuf(err, cap, "%s: directory %s: %s", path, dir, strerror(errno));
  else if (!S_ISDIR(ds.st_mode))
    ok = failbuf(err, cap, "%s: %s is not a directory", path, dir);
  else if (access(dir, W_OK | X_OK) != 0)
    ok = failbuf(err, cap, "%s: cannot create a file in %s: %s", path, dir, strerror(errno));
  free(dir);
  free(target);
  return ok;
}

/* The name a path resolves to: its directory through realpath, then its own (followed) name. */
static char *canonical(const char *path) {
  char *target = follow_links(path);
  if (!target)
    return NULL;
  char *dir = dir_of(target), *real = dir ? realpath(dir, NULL) : NULL;
  const char *base = target + dir_len(target);
  char *out = real ? malloc(strlen(real) + strlen(base) + 2) : NULL;
  if (out)
    sprintf(out, "%s/%s", real, base);
  free(dir);
  free(real);
  free(out ? target : NULL);
  return out ? out : target; /* no directory: compare the names as written */
}

bool sout_same_file(const char *a, const char *b) {
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
    return strcmp(a, b) == 0;
  struct stat sa, sb;
  bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
  if (ea != eb)
    return false;
  char *ca = canonical(a), *cb = canonical(b);
  bool same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
  free(ca);
  free(cb);
  return same;
}

/* ---- one output ---- */

static int take_slot(const char *tmp) {
  if (strlen(tmp) >= SLOT_PATH)
    return -1;
  for (int k = 0; k < SLOTS; k++)
    if (!slot_used[k]) {
      strcpy(slot_path[k], tmp);
      slot_used[k] = 1;
      return k;
    }
  return -1;
}

static void release_slot(sout *o) {
  if (o->slot >= 0)
    slot_used[o->slot] = 0;
  o->slot = -1;
}

/* Writes go straight to `file` (a device, a FIFO); messages name the user's `path`. */
static bool open_direct(sout *o, const char *file, const char *path) {
  int fd = open(file, O_WRONLY | O_NOCTTY);
  if (fd < 0)
    return fail(o, "%s: cannot open: %s", path, strerror(errno));
  o->f = fdopen(fd, "wb");
  if (!o->f) {
    close(fd);
    return fail(o, "%s: %s", path, strerror(errno));
  }
  o->direct = true;
  return true;
}

/* The temporary file ".NAME.XXXXXX" beside the target, registered with the signal handlers before
   it exists: mkstemp fills in the name inside the handlers' own slot. Blocking the signals covers
   this thread only; the library's worker threads (made later, by the first scan) take them too,
   and a handler there must already see the name (seen under load: a temporary left behind when
   the signal came right after mkstemp and before the name was registered). */
static bool open_temp(sout *o) {
  size_t dir = dir_len(o->target);
  o->tmp = malloc(strlen(o->target) + 9);
  if (!o->tmp)
    return fail(o, "%s: out of memory", o->path);
  sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dir, o->target, o->target + dir);
  sigset_t old;
  block_signals(&old);
  int fd = -1, e = ENAMETOOLONG;
  if ((o->slot = take_slot(o->tmp)) >= 0) {
    fd = mkstemp(slot_path[o->slot]);
    e = errno;
    strcpy(o->tmp, slot_path[o->slot]);
    if (fd < 0)
      release_slot(o);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    free(o->tmp);
    o->tmp = NULL;
    return fail(o, "%s: cannot create a file there: %s", o->path, strerror(e));
  }
  o->f = fdopen(fd, "wb");
  if (!o->f) {
    close(fd);
    return fail(o, "%s: %s", o->path, strerror(errno));
  }
  return true;
}

bool sout_open(sout *o, const char *path) {
  *o = (sout){.path = path, .slot = -1};
  if (strcmp(path, "-") == 0) {
    o->f = stdout;
    o->direct = true;
    return true;
  }
  sout_catch_signals();
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    /* a device, a FIFO (the kernel follows the links, /dev/stdout's too): written where it is */
    return open_direct(o, path, path);
  }
  o->target = follow_links(path);
  if (!o->target)
    return fail(o, "%s: %s", path, strerror(errno));
  if (stat(o->target, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return fail(o, "%s: is a directory", path);
    if (!S_ISREG(st.st_mode)) /* became one since: written where it is */
      return open_direct(o, o->target, path);
    if (access(o->target, W_OK) != 0) /* a read-only file is not replaced behind its back */
      return fail(o, "%s: cannot write: %s", path, strerror(errno));
    o->existed = true;
    o->mode = st.st_mode & 07777;
    o->uid = st.st_uid;
    o->gid = st.st_gid;
  }
  return open_temp(o);
}

/* The old file's owner (where this process may give it) and mode, or a new file's mode. */
static void final_mode(const sout *o, int fd) {
  mode_t mode = o->mode;
  if (o->existed) {
    if ((o->uid != geteuid() || o->gid != getegid()) && fchown(fd, o->uid, o->gid) != 0 &&
        fchown(fd, (uid_t)-1, o->gid) != 0) {
      /* not permitted: the file stays ours, with the old permission bits */
    }
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  fchmod(fd, mode);
}

bool sout_close(sout *o) {
  if (!o->f)
    return true;
  FILE *f = o->f;
  o->f = NULL;
  bool ok = fflush(f) == 0 && !ferror(f);
  int e = errno;
  if (f == stdout) {
    if (!ok)
      return fail(o, "stdout: write error: %s", strerror(e));
    return true;
  }
  if (ok && o->tmp)
    final_mode(o, fileno(f));
  if (fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok)
    return fail(o, "%s: write error: %s", o->path, strerror(e ? e : EIO));
  return true;
}

bool sout_commit(sout *o) {
  if (!o->tmp)
    return true;
  if (rename(o->tmp, o->target) != 0) {
    int e = errno;
    sout_discard(o);
    return fail(o, "%s: cannot replace: %s", o->path, strerror(e));
  }
  release_slot(o);
  free(o->tmp);
  o->tmp = NULL;
  return true;
}

void sout_discard(sout *o) {
  if (o->f && o->f != stdout)
    fclose(o->f);
  o->f = NULL;
  if (o->tmp) {
    unlink(o->tmp);
    release_slot(o);
    free(o->tmp);
    o->tmp = NULL;
  }
  free(o->target);
  o->target = NULL;
}

bool sout_write_file(sout *o, const char *path, bool (*write)(FILE *f, void *arg), void *arg) {
  if (!sout_open(o, path))
    return false;
  errno = 0;
  bool wrote = write(o->f, arg);
  int e = errno;
  bool ok = wrote ? sout_close(o) && sout_commit(o)
                  : fail(o, "%s: write error: %s", path, strerror(e ? e : EIO));
  e = wrote ? errno : e;
  sout_discard(o);
  errno = ok ? 0 : e; /* for callers that report an errno value */
  return ok;
}
