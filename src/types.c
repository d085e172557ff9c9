/* Names, sizes, kinds and identities of the types and operators, all generated from lists.h. */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Every list entry must name an enumerator and the counts must agree with pscan.h. */
#define COUNT_ONE(...) +1
_Static_assert(0 PSCAN_TYPES(COUNT_ONE) == PSCAN_DTYPE_COUNT, "PSCAN_TYPES and pscan_dtype differ");
_Static_assert(0 PSCAN_OPS(COUNT_ONE) == PSCAN_OP_COUNT, "PSCAN_OPS and pscan_op differ");
_Static_assert(0 PSCAN_ALGOS(COUNT_ONE) == PSCAN_ALGO_COUNT, "PSCAN_ALGOS and pscan_algo differ");
_Static_assert(0 PSCAN_BLOCK_ALGOS(COUNT_ONE) == PSCAN_BLOCK_ALGO_COUNT, "block algos differ");
_Static_assert(0 PSCAN_CMPS(COUNT_ONE) == PSCAN_CMP_COUNT, "PSCAN_CMPS and pscan_cmp differ");
_Static_assert(0 PSCAN_STATUSES(COUNT_ONE) == PSCAN_ERR_INTERNAL + 1, "statuses differ");
#undef COUNT_ONE

typedef struct {
  const char *name;
  size_t size;
  pscan__kind kind;
} dtype_info;

static const dtype_info dtypes[PSCAN_DTYPE_COUNT] = {
#define X(E, name, ctype, kind) [PSCAN_##E] = {#name, sizeof(ctype), PSCAN__##kind},
    PSCAN_TYPES(X)
#undef X
};

bool pscan__dtype_valid(int t) { return t >= 0 && t < PSCAN_DTYPE_COUNT; }

size_t pscan_dtype_size(pscan_dtype t) { return pscan__dtype_valid((int)t) ? dtypes[t].size : 0; }

pscan__kind pscan__dtype_kind(pscan_dtype t) { return dtypes[t].kind; }

const char *pscan__dtype_name(int t) { return pscan__dtype_valid(t) ? dtypes[t].name : "?"; }

static const struct {
  const char *name;
  bool integer_only;
} ops[PSCAN_OP_COUNT] = {
#define X(E, name, int_only) [PSCAN_##E] = {#name, int_only},
    PSCAN_OPS(X)
#undef X
};

bool pscan__op_valid(int op) { return op >= 0 && op < PSCAN_OP_COUNT; }
bool pscan__op_integer_only(pscan_op op) { return ops[op].integer_only; }

const char *pscan__op_name(int op) {
  if (op == PSCAN__OP_CUSTOM)
    return "custom";
  return pscan__op_valid(op) ? ops[op].name : "?";
}

const char *pscan__algo_name(int algo) {
  static const char *const names[PSCAN_ALGO_COUNT] = {
#define X(E, name) [PSCAN_ALGO_##E] = #name,
      PSCAN_ALGOS(X)
#undef X
  };
  return algo >= 0 && algo < PSCAN_ALGO_COUNT ? names[algo] : "?";
}

bool pscan__scan_pair_valid(pscan_dtype in, pscan_dtype out) {
#define X(IN, OUT) if (in == PSCAN_##IN && out == PSCAN_##OUT) return true;
  PSCAN_SCAN_PAIRS(X)
#undef X
  return false;
}

const char *pscan_status_name(pscan_status s) {
  switch (s) {
#define X(E) case PSCAN_##E: return "PSCAN_" #E;
    PSCAN_STATUSES(X)
#undef X
  }
  return "PSCAN_ERR_UNKNOWN";
}

/* The CUDA kernels hold the same rule for the preprocessor (kernel_types.h:
   PSCAN__ORDER_SENSITIVE_SUM/PROD): only those stamps carry deterministic mode's kernel. */
bool pscan__order_sensitive(const pscan__scan_call *c) {
  if (c->op == PSCAN__OP_CUSTOM)
    return true;
  return pscan__dtype_kind(c->out_type) == PSCAN__FLOAT && (c->op == PSCAN_SUM || c->op == PSCAN_PROD);
}

/* The identity is stored through the element's own C type, so no representation is assumed. */
#define STORE(ctype, value) do { ctype v_ = (value); memcpy(dst, &v_, sizeof v_); } while (0)
#define INT_IDENTITY(ctype, minv, maxv)         \
  switch (op) {                                 \
  case PSCAN_PROD: STORE(ctype, 1); break;      \
  case PSCAN_MIN: STORE(ctype, maxv); break;    \
  case PSCAN_MAX: STORE(ctype, minv); break;    \
  case PSCAN_AND: STORE(ctype, (ctype)~(ctype)0); break; \
  default: STORE(ctype, 0); break;              \
  }
#define FLOAT_IDENTITY(ctype)                   \
  switch (op) {                                 \
  case PSCAN_PROD: STORE(ctype, 1); break;      \
  case PSCAN_MIN: STORE(ctype, INFINITY); break;\
  case PSCAN_MAX: STORE(ctype, -INFINITY); break; \
  default: STORE(ctype, 0); break;              \
  }

void pscan__identity(pscan_dtype t, pscan_op op, void *dst) {
  switch (t) {
  case PSCAN_I8: INT_IDENTITY(int8_t, INT8_MIN, INT8_MAX) break;
  case PSCAN_I16: INT_IDENTITY(int16_t, INT16_MIN, INT16_MAX) break;
  case PSCAN_I32: INT_IDENTITY(int32_t, INT32_MIN, INT32_MAX) break;
  case PSCAN_I64: INT_IDENTITY(int64_t, INT64_MIN, INT64_MAX) break;
  case PSCAN_U8: INT_IDENTITY(uint8_t, 0, UINT8_MAX) break;
  case PSCAN_U16: INT_IDENTITY(uint16_t, 0, UINT16_MAX) break;
  case PSCAN_U32: INT_IDENTITY(uint32_t, 0, UINT32_MAX) break;
  case PSCAN_U64: INT_IDENTITY(uint64_t, 0, UINT64_MAX) break;
  case PSCAN_F32: FLOAT_IDENTITY(float) break;
  case PSCAN_F64: FLOAT_IDENTITY(double) break;
  }
}

const char *pscan_version_string(void) {
#define STR2(x) #x
#define STR(x) STR2(x)
  return pscan__cuda_built() ? STR(PSCAN_VERSION_MAJOR) "." STR(PSCAN_VERSION_MINOR) "." STR(
                                   PSCAN_VERSION_PATCH) " (cpu, cuda)"
                             : STR(PSCAN_VERSION_MAJOR) "." STR(PSCAN_VERSION_MINOR) "." STR(
                                   PSCAN_VERSION_PATCH) " (cpu)";
#undef STR
#undef STR2
}
