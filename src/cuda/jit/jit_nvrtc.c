/* NVRTC, loaded at run time: the library links no part of it, so it loads and runs the built-in
 * scans on machines without it; only compiling a user operator needs it. $PSCAN_NVRTC_LIB names
 * the library file, or a directory holding it; otherwise the dynamic loader's search path is
 * tried (libnvrtc.so.13, .12, libnvrtc.so), then the toolkit's library directory found at build
 * time. */
#define _GNU_SOURCE /* (RTLD_NOW and friends are POSIX; this keeps glibc's view complete) */
#include "jit.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The few NVRTC entry points used, with their C signatures (nvrtc.h; not included, so that the
   build needs no NVRTC header either). */
typedef int nvrtc_result; /* NVRTC_SUCCESS == 0 */
typedef struct nvrtc_program *nvrtc_program;
typedef struct nvrtc_api {
  void *handle;
  char path[512];
  const char *(*get_error_string)(nvrtc_result);
  nvrtc_result (*version)(int *, int *);
  nvrtc_result (*create)(nvrtc_program *, const char *, const char *, int, const char *const *,
                         const char *const *);
  nvrtc_result (*destroy)(nvrtc_program *);
  nvrtc_result (*compile)(nvrtc_program, int, const char *const *);
  nvrtc_result (*log_size)(nvrtc_program, size_t *);
  nvrtc_result (*log)(nvrtc_program, char *);
  nvrtc_result (*cubin_size)(nvrtc_program, size_t *);
  nvrtc_result (*cubin)(nvrtc_program, char *);
  nvrtc_result (*ptx_size)(nvrtc_program, size_t *);
  nvrtc_result (*ptx)(nvrtc_program, char *);
} nvrtc_api;

#ifndef PSCAN_CUDA_LIBDIR
#define PSCAN_CUDA_LIBDIR ""
#endif
static const char *const lib_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
enum { LIB_NAMES = sizeof lib_names / sizeof lib_names[0] };

static bool bind(nvrtc_api *a) {
#define SYM(field, name) (*(void **)&a->field = dlsym(a->handle, name)) != NULL
  return SYM(get_error_string, "nvrtcGetErrorString") && SYM(version, "nvrtcVersion") &&
         SYM(create, "nvrtcCreateProgram") && SYM(destroy, "nvrtcDestroyProgram") &&
         SYM(compile, "nvrtcCompileProgram") && SYM(log_size, "nvrtcGetProgramLogSize") &&
         SYM(log, "nvrtcGetProgramLog") && SYM(cubin_size, "nvrtcGetCUBINSize") &&
         SYM(cubin, "nvrtcGetCUBIN") && SYM(ptx_size, "nvrtcGetPTXSize") &&
         SYM(ptx, "nvrtcGetPTX");
#undef SYM
}

/* dlopens path into *a (bound); false, with why in `why`, otherwise. */
static bool open_at(nvrtc_api *a, const char *path, char *why, size_t why_len) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    if (!why[0])
      snprintf(why, why_len, "%s", e ? e : path);
    return false;
  }
  memset(a, 0, sizeof *a);
  a->handle = h;
  snprintf(a->path, sizeof a->path, "%s", path);
  if (!bind(a)) {
    snprintf(why, why_len, "%s lacks the NVRTC entry points", path);
    dlclose(h);
    return false;
  }
  return true;
}

static bool open_in_dir(nvrtc_api *a, const char *dir, char *why, size_t why_len) {
  for (int i = 0; i < LIB_NAMES; i++) {
    char path[512];
    if (snprintf(path, sizeof path, "%s/%s", dir, lib_names[i]) < (int)sizeof path &&
        open_at(a, path, why, why_len))
      return true;
  }
  return false;
}

/* Loaded libraries stay loaded. Each distinct $PSCAN_NVRTC_LIB gets its own table, so a change
   of the variable (tests do that) is honoured and a table in use is never rewritten. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  char spec[512];
  nvrtc_api *api;
} loaded[8];

static const nvrtc_api *load_nvrtc(pscan_ctx *ctx, pscan_status *status) {
  const char *env = getenv("PSCAN_NVRTC_LIB");
  const char *spec = env && env[0] ? env : "";
  const nvrtc_api *found = NULL;
  pthread_mutex_lock(&load_lock);
  int slot = -1;
  for (int i = 0; i < 8 && !found; i++) {
    if (loaded[i].api && strcmp(loaded[i].spec, spec) == 0)
      found = loaded[i].api;
    else if (!loaded[i].api && slot < 0)
      slot = i;
  }
  char why[256] = "";
  nvrtc_api *a = NULL;
  if (!found && slot >= 0 && (a = pscan__calloc(1, sizeof *a)) != NULL) {
    bool ok = false;
    struct stat sb;
    if (spec[0] && stat(spec, &sb) == 0 && S_ISDIR(sb.st_mode))
      ok = open_in_dir(a, spec, why, sizeof why);
    else if (spec[0])
      ok = open_at(a, spec, why, sizeof why);
    else {
      for (int i = 0; i < LIB_NAMES && !ok; i++)
        ok = open_at(a, lib_names[i], why, sizeof why);
      if (!ok && PSCAN_CUDA_LIBDIR[0])
        ok = open_in_dir(a, PSCAN_CUDA_LIBDIR, why, sizeof why);
    }
    if (ok) {
      snprintf(loaded[slot].spec, sizeof loaded[slot].spec, "%s", spec);
      loaded[slot].api = a;
      found = a;
    } else {
      pscan__free(a);
    }
  }
  pthread_mutex_unlock(&load_lock);
  if (found)
    return found;
  if (!why[0])
    snprintf(why, sizeof why, "%s", slot < 0 ? "too many NVRTC libraries asked for" : "out of memory");
  *status = pscan__fail(ctx, PSCAN_ERR_UNSUPPORTED,
                        "NVRTC not found: %s (%s); user operators on the GPU need NVRTC "
                        "(libnvrtc.so.13 or .12; PSCAN_NVRTC_LIB may name it)",
                        spec[0] ? spec : "libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so", why);
  return NULL;
}

/* The compiler's whole log (pscan__free), or NULL. */
static char *program_log(const nvrtc_api *a, nvrtc_program prog) {
  size_t n = 0;
  if (a->log_size(prog, &n) != 0 || n == 0)
    return NULL;
  char *log = pscan__calloc(n + 1, 1);
  if (log && a->log(prog, log) != 0) {
    pscan__free(log);
    return NULL;
  }
  return log;
}

/* Whether the l characters at p contain word. */
static bool line_has(const char *p, size_t l, const char *word) {
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= l; i++)
    if (strncmp(p + i, word, w) == 0)
      return true;
  return false;
}

/* The first line of log that reports an error (without its newline), else its first line. */
static void first_error_line(const char *log, char *out, size_t len) {
  const char *pick = log;
  for (const char *p = log; *p;) {
    const char *end = strchr(p, '\n');
    if (line_has(p, end ? (size_t)(end - p) : strlen(p), "error")) {
      pick = p;
      break;
    }
    if (!end)
      break;
    p = end + 1;
  }
  const char *end = strchr(pick, '\n');
  size_t l = end ? (size_t)(end - pick) : strlen(pick);
  snprintf(out, len, "%.*s", (int)(l < len ? l : len - 1), pick);
}

static nvrtc_result create_program(const nvrtc_api *a, nvrtc_program *prog, const char *text) {
  const char **names, **texts;
  int count;
  pscan__jit_headers(&names, &texts, &count);
  return a->create(prog, text, "pscan_user_op.cu", count, texts, names);
}

/* The size of the user's type, by compiling the source with only a global of that value to PTX
   (after a size mismatch, to name both sizes); 0 if that fails. */
static size_t probe_size(const nvrtc_api *a, const pscan_op_desc *desc) {
  static const char fmt[] = "#line 1 \"pscan_op_source\"\n%s\n#line 1 \"pscan-glue\"\n"
                            "typedef %s pscan_user_t;\n"
                            "extern \"C\" __device__ unsigned long long pscan_user_sizeof = "
                            "sizeof(pscan_user_t);\n";
  size_t len = sizeof fmt + strlen(desc->source) + strlen(desc->type_name);
  char *text = pscan__calloc(len, 1);
  if (!text)
    return 0;
  snprintf(text, len, fmt, desc->source, desc->type_name);
  nvrtc_program prog = NULL;
  size_t size = 0;
  const char *opts[] = {"--gpu-architecture=compute_90", "-default-device", "--std=c++17"};
  if (create_program(a, &prog, text) == 0 && a->compile(prog, 3, opts) == 0) {
    size_t n = 0;
    char *ptx = NULL;
    if (a->ptx_size(prog, &n) == 0 && (ptx = pscan__calloc(n + 1, 1)) && a->ptx(prog, ptx) == 0) {
      const char *at = strstr(ptx, "pscan_user_sizeof = ");
      if (at)
        size = (size_t)strtoull(at + strlen("pscan_user_sizeof = "), NULL, 10);
    }
    pscan__free(ptx);
  }
  if (prog)
    a->destroy(&prog);
  pscan__free(text);
  return size;
}

static pscan_status compile_failed(pscan_ctx *ctx, const nvrtc_api *a, const pscan_op_desc *desc,
                                   const char *log) {
  if (log && strstr(log, "pscan_elem_size_mismatch")) {
    size_t actual = probe_size(a, desc);
    if (actual)
      return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                         "pscan_op_create: elem_size %zu differs from sizeof(%s) = %zu",
                         desc->elem_size, desc->type_name, actual);
    return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT,
                       "pscan_op_create: elem_size %zu differs from sizeof(%s)", desc->elem_size,
                       desc->type_name);
  }
  char line[200];
  first_error_line(log ? log : "(no compiler log)", line, sizeof line);
  return pscan__fail(ctx, PSCAN_ERR_INVALID_ARGUMENT, "pscan_op_create: %s: %s", desc->name, line);
}

pscan_status pscan__jit_compile(pscan_ctx *ctx, const pscan_op_desc *desc, pscan__jit_kernel k,
                                int arch, void **cubin, size_t *size, char **log_out) {
  *cubin = NULL;
  *size = 0;
  if (log_out)
    *log_out = NULL;
  pscan_status s = PSCAN_OK;
  const nvrtc_api *a = load_nvrtc(ctx, &s);
  if (!a)
    return s;
  char *text = pscan__jit_program(desc, k);
  if (!text)
    return pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
  char arch_opt[64];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d", arch);
  /* No contraction into FMA: a compiled operator rounds as the same C function does (as on the
     CPU backend). */
  const char *opts[] = {arch_opt, "-default-device", "--std=c++17", "--fmad=false"};
  nvrtc_program prog = NULL;
  nvrtc_result r = create_program(a, &prog, text);
  pscan__free(text);
  if (r != 0)
    return pscan__fail(ctx, PSCAN_ERR_INTERNAL, "nvrtcCreateProgram: %s", a->get_error_string(r));
  r = a->compile(prog, 4, opts);
  char *log = program_log(a, prog);
  if (r != 0) {
    s = compile_failed(ctx, a, desc, log);
  } else {
    size_t n = 0;
    char *bin = NULL;
    if ((r = a->cubin_size(prog, &n)) != 0 || n == 0)
      s = pscan__fail(ctx, PSCAN_ERR_INTERNAL, "nvrtcGetCUBINSize: %s", a->get_error_string(r));
    else if (!(bin = pscan__calloc(n, 1)))
      s = pscan__fail(ctx, PSCAN_ERR_OUT_OF_MEMORY, "pscan_op_create: out of memory");
    else if ((r = a->cubin(prog, bin)) != 0)
      s = pscan__fail(ctx, PSCAN_ERR_INTERNAL, "nvrtcGetCUBIN: %s", a->get_error_string(r));
    if (s == PSCAN_OK) {
      *cubin = bin;
      *size = n;
    } else {
      pscan__free(bin);
    }
  }
  a->destroy(&prog);
  if (log_out)
    *log_out = log;
  else
    pscan__free(log);
  return s;
}
