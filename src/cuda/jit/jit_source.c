/* The program NVRTC compiles for a user operator: a few defines, the user's source (its errors
 * read "pscan_op_source(LINE): error: ..."), the glue that names the type and the function for the kernels,
 * and user_kernels.cuh, which includes the shared device headers embedded in the library. */
#include "jit.h"

#include "../../op/cache.h"
#include "../launch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The C headers a user's source may include, for NVRTC (which has none): the types and limits
   it needs, and nothing for the headers whose contents NVRTC has built in (memcpy, the math
   functions, bool). */
static const char std_stdint[] =
    "#ifndef PSCAN_JIT_STDINT\n#define PSCAN_JIT_STDINT\n"
    "typedef signed char int8_t; typedef short int16_t; typedef int int32_t;\n"
    "typedef long long int64_t; typedef unsigned char uint8_t; typedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t; typedef unsigned long long uint64_t;\n"
    "typedef long long intptr_t; typedef unsigned long long uintptr_t;\n"
    "typedef long long intmax_t; typedef unsigned long long uintmax_t;\n"
    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n"
    "#define INT16_MIN (-32768)\n#define INT16_MAX 32767\n#define UINT16_MAX 65535\n"
    "#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n#define UINT32_MAX 4294967295u\n"
    "#define INT64_MIN (-9223372036854775807ll - 1)\n#define INT64_MAX 9223372036854775807ll\n"
    "#define UINT64_MAX 18446744073709551615ull\n#endif\n";
static const char std_stddef[] =
    "#ifndef PSCAN_JIT_STDDEF\n#define PSCAN_JIT_STDDEF\n"
    "typedef unsigned long size_t; typedef long ptrdiff_t;\n"
    "#ifndef NULL\n#define NULL 0\n#endif\n"
    "#define offsetof(t, m) __builtin_offsetof(t, m)\n#endif\n";
static const char std_limits[] =
    "#ifndef PSCAN_JIT_LIMITS\n#define PSCAN_JIT_LIMITS\n#define CHAR_BIT 8\n"
    "#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n"
    "#define SHRT_MIN (-32768)\n#define SHRT_MAX 32767\n#define USHRT_MAX 65535\n"
    "#define INT_MIN (-2147483647 - 1)\n#define INT_MAX 2147483647\n#define UINT_MAX 4294967295u\n"
    "#define LONG_MIN (-9223372036854775807l - 1)\n#define LONG_MAX 9223372036854775807l\n"
    "#define ULONG_MAX 18446744073709551615ul\n#define LLONG_MIN (-9223372036854775807ll - 1)\n"
    "#define LLONG_MAX 9223372036854775807ll\n#define ULLONG_MAX 18446744073709551615ull\n#endif\n";
static const char std_float[] =
    "#ifndef PSCAN_JIT_FLOAT\n#define PSCAN_JIT_FLOAT\n"
    "#define FLT_MAX 3.40282347e+38f\n#define FLT_MIN 1.17549435e-38f\n"
    "#define FLT_EPSILON 1.19209290e-07f\n#define DBL_MAX 1.7976931348623157e+308\n"
    "#define DBL_MIN 2.2250738585072014e-308\n#define DBL_EPSILON 2.2204460492503131e-16\n#endif\n";
static const char std_math[] =
    "#ifndef PSCAN_JIT_MATH\n#define PSCAN_JIT_MATH\n"
    "#define INFINITY __int_as_float(0x7f800000)\n#define NAN __int_as_float(0x7fffffff)\n"
    "#define HUGE_VALF INFINITY\n#define HUGE_VAL __longlong_as_double(0x7ff0000000000000ll)\n"
    "#endif\n";

static const char *const std_names[] = {"stdint.h", "stddef.h",  "string.h", "stdbool.h",
                                        "math.h",   "limits.h",  "float.h",  "inttypes.h"};
static const char *const std_texts[] = {std_stdint, std_stddef, "", "", std_math,
                                        std_limits, std_float,  std_stdint};
enum { STD_COUNT = sizeof std_names / sizeof std_names[0], MAX_HEADERS = 64 };

static const char *all_names[MAX_HEADERS], *all_texts[MAX_HEADERS];
static int all_count;
static char digest[33];
static unsigned split_max = 32; /* user_ops.cuh's PSCAN_USER_SPLIT_MAX ($PSCAN_CUDA_USER_SPLIT_MAX) */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* The header list and the digest of every header, built once. */
static void build_tables(void) {
  int k = 0;
  for (int i = 0; i < pscan__jit_file_count && k < MAX_HEADERS; i++, k++) {
    all_names[k] = pscan__jit_files[i].name;
    all_texts[k] = pscan__jit_files[i].text;
  }
  for (int i = 0; i < STD_COUNT && k < MAX_HEADERS; i++, k++) {
    all_names[k] = std_names[i];
    all_texts[k] = std_texts[i];
  }
  all_count = k;
  const void *parts[MAX_HEADERS + 1];
  size_t sizes[MAX_HEADERS + 1];
  for (int i = 0; i < k; i++) {
    parts[i] = all_texts[i];
    sizes[i] = strlen(all_texts[i]);
  }
  /* the tile status's layout is part of every program: in the digest, so in every cache key */
  const char *env = getenv("PSCAN_CUDA_USER_SPLIT_MAX");
  split_max = env ? (unsigned)strtoul(env, NULL, 10) : 32;
  split_max = split_max < 32 ? split_max : 32;
  static char split_text[32];
  snprintf(split_text, sizeof split_text, "split_max=%u", split_max);
  parts[k] = split_text;
  sizes[k] = strlen(split_text);
  pscan__hash_hex(parts, sizes, k + 1, digest);
}

void pscan__jit_headers(const char ***names, const char ***texts, int *count) {
  pthread_once(&tables_once, build_tables);
  *names = all_names;
  *texts = all_texts;
  *count = all_count;
}

const char *pscan__jit_sources_digest(void) {
  pthread_once(&tables_once, build_tables);
  return digest;
}

/* user_tile.cuh's geometry: items per thread in a batch and batches per tile. */
unsigned pscan__jit_tile_items(size_t size) {
  unsigned low = (unsigned)(size & (~size + 1));
  unsigned unit = low > 16 ? 16 : low, per_chunks = 16 / unit;
  bool chunked = per_chunks * size <= 64;
  unsigned raw = 64 / size > 16 ? 16 : (unsigned)(64 / size);
  unsigned items = chunked ? (raw / per_chunks > 1 ? raw / per_chunks : 1) * per_chunks
                           : (raw > 1 ? raw : 1);
  unsigned batches = 128 / (items * size) > 1 ? (unsigned)(128 / (items * size)) : 1;
  return 256u * items * batches;
}

size_t pscan__jit_status_slot(const pscan_op_desc *desc) {
  size_t s = desc->elem_size;
  if (desc->kind == PSCAN_KIND_PREDICATE)
    return 16;
  pthread_once(&tables_once, build_tables);
  return s <= 4 ? 8 : s <= 8 ? 16 : s <= split_max ? 16 * ((s + 7) / 8) : 16 + (s + 15) / 16 * 16;
}

const char *pscan__jit_kernel_name(pscan__jit_kernel k) {
  return k == PSCAN__JIT_AXIS             ? "pscan_user_axis_lines_scan"
         : k == PSCAN__JIT_SELECT         ? "pscan_user_select"
         : k == PSCAN__JIT_SCAN_ORDERED   ? "pscan_user_scan_ordered"
         : k == PSCAN__JIT_SCAN_LINES     ? "pscan_user_scan_lines"
         : k == PSCAN__JIT_REDUCE         ? "pscan_user_reduce"
         : k == PSCAN__JIT_SCAN_BY_KEY    ? "pscan_user_scan_by_key"
         : k == PSCAN__JIT_REDUCE_BY_KEY  ? "pscan_user_reduce_by_key"
                                          : "pscan_user_scan";
}

pscan__jit_kernel pscan__jit_kernel_for(const pscan_op_desc *desc, int ordered) {
  if (desc->kind == PSCAN_KIND_PREDICATE)
    return PSCAN__JIT_SELECT;
  return ordered ? PSCAN__JIT_SCAN_ORDERED : PSCAN__JIT_SCAN;
}

static const char program_format[] =
    "#define PSCAN_USER_ELEM_SIZE %zu\n"
    "#define PSCAN_USER_TILE_ITEMS %u\n"
    "#define PSCAN_USER_BASE_BYTES %zu\n"
    "#define PSCAN_USER_PREDICATE %d\n"
    "#define PSCAN_USER_ORDERED %d\n"
    "#define PSCAN_USER_AXIS %d\n"
    "#define PSCAN_USER_LINES %d\n"
    "#define PSCAN_USER_REDUCE %d\n"
    "#define PSCAN_USER_BY_KEY %d\n"
    "#define PSCAN_USER_SPLIT_MAX %u\n"
    "#line 1 \"pscan_op_source\"\n"
    "%s\n"
    "#line 1 \"pscan-glue\"\n"
    "typedef %s pscan_user_t;\n"
    "static_assert(sizeof(pscan_user_t) == PSCAN_USER_ELEM_SIZE, \"pscan_elem_size_mismatch\");\n"
    "%s\n"
    "#include \"user_kernels.cuh\"\n";
/* Elements over 32 bytes combine through a call: inlined, the dozens of combinations in a kernel
   (serial loops, warp scans, look-back) made the compile of a 4x4 matrix product take seconds. */
static const char combine_glue[] =
    "static __device__ %s pscan_user_t pscan_user_combine(pscan_user_t a, "
    "pscan_user_t b) { return %s(a, b); }";
/* The operator's identity, where it has one and its element is whole 32-bit words: the
   accumulator of the block scans and the look-back is then the plain value (user_ops.cuh). */
static const char identity_glue[] =
    "\n#define PSCAN_USER_IDENTITY 1\n"
    "static __device__ __forceinline__ pscan_user_t pscan_user_identity_value(void) {\n"
    "  const unsigned w[%zu] = {%s};\n"
    "  pscan_user_t v;\n  memcpy(&v, w, sizeof v);\n  return v;\n}";
static const char keep_glue[] =
    "static __device__ __forceinline__ bool pscan_user_keep(pscan_user_t x) { return %s(x) != 0; }";

/* identity_glue for desc into out (empty where it does not apply). */
enum { IDENTITY_CHARS = PSCAN__JIT_MAX_ELEM / 4 * 14 }; /* "0x%08xu, " a word */
static void identity_text(const pscan_op_desc *desc, char *out, size_t len) {
  out[0] = 0;
  if (desc->kind != PSCAN_KIND_COMBINE || !desc->identity || desc->elem_size % 4 != 0)
    return;
  char words[IDENTITY_CHARS] = "";
  size_t at = 0;
  for (size_t i = 0; i < desc->elem_size / 4; i++) {
    uint32_t w;
    memcpy(&w, (const unsigned char *)desc->identity + 4 * i, 4);
    at += (size_t)snprintf(words + at, sizeof words - at, "%s0x%08xu", i ? ", " : "", w);
  }
  snprintf(out, len, identity_glue, desc->elem_size / 4, words);
}

char *pscan__jit_program(const pscan_op_desc *desc, pscan__jit_kernel k) {
  pthread_once(&tables_once, build_tables);
  const bool pred = k == PSCAN__JIT_SELECT;
  char identity[sizeof identity_glue + IDENTITY_CHARS + 32];
  identity_text(desc, identity, sizeof identity);
  size_t glue_len = strlen(combine_glue) + strlen(desc->name) + strlen(identity) + 32;
  char *glue = pscan__calloc(glue_len, 1);
  if (!glue)
    return NULL;
  if (pred) {
    snprintf(glue, glue_len, keep_glue, desc->name);
  } else {
    int at = snprintf(glue, glue_len, combine_glue,
                      desc->elem_size <= 32 ? "__forceinline__" : "__noinline__", desc->name);
    snprintf(glue + at, glue_len - (size_t)at, "%s", identity);
  }
  size_t len = strlen(program_format) + strlen(desc->source) + strlen(desc->type_name) +
               strlen(glue) + 128;
  char *text = pscan__calloc(len, 1);
  if (text)
    snprintf(text, len, program_format, desc->elem_size, pscan__jit_tile_items(desc->elem_size),
             sizeof(pscan__cuda_scan_params), (int)pred, k == PSCAN__JIT_SCAN_ORDERED,
             k == PSCAN__JIT_AXIS, k == PSCAN__JIT_SCAN_LINES, k == PSCAN__JIT_REDUCE,
             k == PSCAN__JIT_SCAN_BY_KEY ? 1 : k == PSCAN__JIT_REDUCE_BY_KEY ? 2 : 0, split_max,
             desc->source, desc->type_name, glue);
  pscan__free(glue);
  return text;
}
