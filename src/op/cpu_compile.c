/* User operators compiled with the system C compiler into a shared object, cached on disk.
 *
 * The translation unit is the user's source followed by the glue (cpu_glue.h). The compiler
 * ($PSCAN_CC, else $CC, else cc) runs through posix_spawnp with its output captured through a
 * pipe, never through a shell. It writes a temporary file in the cache directory, renamed onto
 * the entry when complete, so concurrent builders and readers never see half an object. An entry
 * that fails to load (corrupt, truncated, foreign) is removed and rebuilt; with no usable cache
 * directory the object is built in a private temporary directory and removed once loaded. */
#define _GNU_SOURCE
#include "cpu_compile.h"

#include "cache.h"
#include "cpu_glue.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { MAX_CC_ARGS = 16, MAX_LOG = 1 << 20, PATH_LEN = 4352 };

/* -Werror=implicit-function-declaration: a misspelt --name is a compile error (C11 compilers may
   accept an undeclared function as returning int, and the shared object would then fail to load). */
static const char *const cc_flags[] = {"-O3",      "-march=native",
                                       "-fPIC",    "-shared",
                                       "-std=c11", "-fvisibility=hidden",
                                       "-Werror=implicit-function-declaration"};
enum { N_FLAGS = sizeof cc_flags / sizeof cc_flags[0] };

/* The compiler command split on blanks into argv (at most MAX_CC_ARGS words); returns the count. */
static int compiler_argv(char *buf, size_t len, char **argv) {
  const char *cc = getenv("PSCAN_CC");
  if (!cc || !*cc)
    cc = getenv("CC");
  if (!cc || !*cc)
    cc = "cc";
  snprintf(buf, len, "%s", cc);
  int argc = 0;
  for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && argc < MAX_CC_ARGS;
       w = strtok_r(NULL, " \t", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  return argc;
}

/* Runs argv with stdin from /dev/null and stdout + stderr captured into *out (NUL-terminated,
   free with pscan__free; at most MAX_LOG bytes kept). Returns 0 with *code (the exit status, or
   -1 for a signal), or the errno of a failed start. */
static int run_capture(char *const argv[], char **out, size_t *out_len, int *code) {
  int p[2];
  *out = NULL;
  *out_len = 0;
  if (pipe2(p, O_CLOEXEC) != 0)
    return errno;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_adddup2(&fa, p[1], 2);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(p[1]);
  if (err) {
    close(p[0]);
    return err;
  }
  size_t cap = 4096, len = 0;
  char *buf = pscan__calloc(1, cap + 1);
  for (;;) {
    char chunk[4096];
    ssize_t r = read(p[0], chunk, sizeof chunk);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    size_t take = len + (size_t)r > MAX_LOG ? MAX_LOG - len : (size_t)r;
    if (buf && len + take > cap) {
      char *bigger = pscan__calloc(1, 2 * cap + take + 1);
      if (bigger)
        memcpy(bigger, buf, len);
      pscan__free(buf);
      buf = bigger;
      cap = 2 * cap + take;
    }
    if (buf)
      memcpy(buf + len, chunk, take);
    len += take;
  }
  close(p[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    continue;
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  *out = buf;
  *out_len = buf ? len : 0;
  return 0;
}

/* ---- Target: compiler identity and CPU, cached per compiler command ---- */

static pthread_mutex_t target_lock = PTHREAD_MUTEX_INITIALIZER;
static char target_cc[1024], target[8192];

/* The "model name" and "flags" lines of the first CPU in /proc/cpuinfo (what -march=native sees). */
static void cpu_identity(char *dst, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  size_t used = 0;
  dst[0] = '\0';
  if (!f)
    return;
  int seen = 0;
  while (seen < 2 && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) && strncmp(line, "flags", 5))
      continue;
    int w = snprintf(dst + used, len - used, "%s", line);
    if (w < 0 || (size_t)w >= len - used)
      break;
    used += (size_t)w;
    seen++;
  }
  fclose(f);
}

const char *pscan__uop_target(void) {
  char cmd[1024], *argv[MAX_CC_ARGS + 2];
  int argc = compiler_argv(cmd, sizeof cmd, argv);
  char key[1024];
  snprintf(key, sizeof key, "%s", getenv("PSCAN_CC") && *getenv("PSCAN_CC") ? getenv("PSCAN_CC")
                                  : getenv("CC") && *getenv("CC")            ? getenv("CC")
                                                                             : "cc");
  pthread_mutex_lock(&target_lock);
  if (!target[0] || strcmp(target_cc, key)) {
    char *out = NULL, version[512] = "unavailable", cpu[3072];
    size_t len;
    int code;
    argv[argc] = "--version";
    argv[argc + 1] = NULL;
    if (argc > 0 && run_capture(argv, &out, &len, &code) == 0 && code == 0 && out)
      snprintf(version, sizeof version, "%.*s", (int)strcspn(out, "\n"), out);
    pscan__free(out);
    cpu_identity(cpu, sizeof cpu);
    /* The glue is part of every compiled operator: a change to it must miss old entries. */
    const void *glue[] = {pscan__uop_glue, pscan__uop_glue_combine, pscan__uop_glue_scan,
                          pscan__uop_glue_predicate};
    size_t glue_sizes[] = {sizeof pscan__uop_glue, sizeof pscan__uop_glue_combine,
                           sizeof pscan__uop_glue_scan, sizeof pscan__uop_glue_predicate};
    char glue_hash[33];
    pscan__hash_hex(glue, glue_sizes, 4, glue_hash);
    int w = snprintf(target, sizeof target, "cc=%s\nversion=%s\nglue=%s\nflags=", key, version,
                     glue_hash);
    for (int i = 0; i < N_FLAGS && w > 0 && (size_t)w < sizeof target; i++)
      w += snprintf(target + w, sizeof target - (size_t)w, "%s ", cc_flags[i]);
    if (w > 0 && (size_t)w < sizeof target)
      snprintf(target + w, sizeof target - (size_t)w, "\n%s", cpu);
    snprintf(target_cc, sizeof target_cc, "%s", key);
  }
  /* A copy per thread: another thread may recompute target for another compiler meanwhile. */
  static _Thread_local char mine[sizeof target];
  memcpy(mine, target, sizeof target);
  pthread_mutex_unlock(&target_lock);
  return mine;
}

/* ---- Loading ---- */

#define SYM(field, name)                                           \
  do {                                                             \
    *(void **)(&lib->field) = dlsym(lib->dl, name);                \
    if (!lib->field)                                               \
      goto fail;                                                   \
  } while (0)

static bool load(const char *path, pscan_op_kind kind, pscan__uop_lib *lib) {
  memset(lib, 0, sizeof *lib);
  lib->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib->dl)
    return false;
  SYM(size_of, "pscan_uop_sizeof");
  if (kind == PSCAN_KIND_PREDICATE) {
    SYM(gather, "pscan_uop_gather");
    return true;
  }
  SYM(combine, "pscan_uop_combine");
  SYM(reduce, "pscan_uop_reduce");
  SYM(reduce_memo, "pscan_uop_reduce_memo");
  unsigned long long (*layout)(void);
  *(void **)(&layout) = dlsym(lib->dl, "pscan_uop_layout");
  if (!layout || layout() != ((unsigned long long)PSCAN__UOP_LANES << 32 | PSCAN__UOP_BLOCK))
    goto fail;
  SYM(scan, "pscan_uop_scan");
  SYM(scan_excl, "pscan_uop_scan_excl");
  SYM(propagate, "pscan_uop_propagate");
  SYM(propagate_excl, "pscan_uop_propagate_excl");
  return true;
fail:
  dlclose(lib->dl);
  memset(lib, 0, sizeof *lib);
  return false;
}

void pscan__uop_unload(pscan__uop_lib *lib) {
  if (lib->dl)
    dlclose(lib->dl);
  memset(lib, 0, sizeof *lib);
}

/* ---- Building ---- */

/* The translation unit: the user's source, the element type and function, the glue. */
static char *unit_source(const pscan_op_desc *d) {
  bool combine = d->kind == PSCAN_KIND_COMBINE;
  const char *body = combine ? pscan__uop_glue_combine : pscan__uop_glue_predicate;
  const char *more = combine ? pscan__uop_glue_scan : "";
  const char *fmt = "#line 1 \"pscan_op_source\"\n%s\n#define PSCAN_UOP_T %s\n"
                    "#define PSCAN_UOP_F %s\n%s%s%s";
  int len = snprintf(NULL, 0, fmt, d->source, d->type_name, d->name, pscan__uop_glue, body, more);
  char *s = len < 0 ? NULL : pscan__calloc(1, (size_t)len + 1);
  if (s)
    snprintf(s, (size_t)len + 1, fmt, d->source, d->type_name, d->name, pscan__uop_glue, body,
             more);
  return s;
}

static bool write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return false;
  size_t len = strlen(text), done = 0;
  while (done < len) {
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    done += (size_t)w;
  }
  bool ok = close(fd) == 0 && done == len;
  if (!ok)
    unlink(path);
  return ok;
}

/* The first line of log that reports an error (or the first line), into dst. */
static void first_error(const char *log, char *dst, size_t len) {
  const char *line = log, *hit = NULL;
  for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!hit && strstr(p, "error") && strstr(p, "error") < p + strcspn(p, "\n"))
      hit = p;
  line = hit ? hit : log;
  snprintf(dst, len, "%.*s", (int)strcspn(line, "\n"), line);
}

/* Where one build writes: temporary source and object paths, in the cache directory, else in a
   private temporary directory (dir, removed afterwards). */
typedef struct build_paths {
  char src[PATH_LEN], obj[PATH_LEN], dir[PATH_LEN];
  bool in_cache;
} build_paths;

static bool place_build(const char *key, const char *text, build_paths *b) {
  b->dir[0] = '\0';
  b->in_cache = pscan__cache_temp_path(key, ".c", b->src, sizeof b->src) &&
                pscan__cache_temp_path(key, ".so", b->obj, sizeof b->obj) &&
                write_file(b->src, text);
  if (b->in_cache)
    return true;
  const char *tmp = getenv("TMPDIR");
  snprintf(b->dir, sizeof b->dir, "%s/pscan-op-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(b->dir)) {
    b->dir[0] = '\0';
    return false;
  }
  snprintf(b->src, sizeof b->src, "%s/op.c", b->dir);
  snprintf(b->obj, sizeof b->obj, "%s/op.so", b->dir);
  return write_file(b->src, text);
}

static void clean_build(const build_paths *b) {
  unlink(b->src);
  unlink(b->obj);
  if (b->dir[0])
    rmdir(b->dir);
}

/* Runs the compiler on b->src into b->obj; the status of the attempt. */
static pscan_status run_compiler(pscan_ctx *ctx, const build_paths *b) {
  char cmd[1024], *argv[MAX_CC_ARGS + N_FLAGS + 8];
  int argc = compiler_argv(cmd, sizeof cmd, argv);
  if (argc == 0)
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED, "pscan_op_create: no C compiler (PSCAN_CC is blank)");
  for (int i = 0; i < N_FLAGS; i++)
    argv[argc++] = (char *)cc_flags[i];
  char *tail[] = {"-o", (char *)b->obj, "-x", "c", (char *)b->src, NULL};
  memcpy(argv + argc, tail, sizeof tail);
  char *log = NULL;
  size_t len = 0;
  int code = 0, err = run_capture(argv, &log, &len, &code);
  if (err) {
    char why[128];
    return pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                       "pscan_op_create: no C compiler: cannot run '%s' (%s); set PSCAN_CC or give "
                       "host_fn", argv[0], strerror_r(err, why, sizeof why));
  }
  pscan__op_set_log(ctx, log, len);
  pscan_status s = PSCAN_OK;
  if (code != 0) {
    char line[200];
    first_error(log ? log : "", line, sizeof line);
    s = line[0] ? pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "pscan_op_create: %s", line)
                : pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                              "pscan_op_create: the C compiler '%s' failed (status %d)", argv[0],
                              code);
  }
  pscan__free(log);
  return s;
}

pscan_status pscan__uop_compile(pscan_ctx *ctx, const pscan_op_desc *d, const char *key,
                                pscan__uop_lib *lib) {
  char path[PATH_LEN];
  bool cached = pscan__cache_path(key, ".so", path, sizeof path);
  if (cached && access(path, F_OK) == 0) {
    if (load(path, d->kind, lib))
      return PSCAN_OK;
    unlink(path); /* corrupt or foreign: rebuild */
  }
  char *text = unit_source(d);
  if (!text)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  build_paths b;
  bool placed = place_build(key, text, &b);
  pscan__free(text);
  if (!placed) {
    clean_build(&b);
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL,
                       "pscan_op_create: no writable directory for the compiler's files");
  }
  pscan_status s = run_compiler(ctx, &b);
  if (s == PSCAN_OK) {
    /* Into the cache when the build was there; loaded from wherever it ended up. */
    const char *from = b.in_cache && cached && rename(b.obj, path) == 0 ? path : b.obj;
    if (!load(from, d->kind, lib))
      s = pscan__fail(ctx, PSCAN_ERR_INTERNAL, "pscan_op_create: cannot load the compiled operator: %s",
                      dlerror());
  }
  clean_build(&b);
  return s;
}
