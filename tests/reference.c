/* The sequential oracle (reference.h). Integers live in a uint64_t holding the value extended to
 * 64 bits (sign-extended for signed types), so that widening is free and every operation is on
 * unsigned integers: defined behaviour everywhere. Values go in and out of memory through memcpy
 * of the exact-width unsigned type, whose bits are those of the signed type (two's complement). */
#include "reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct value {
  uint64_t i; /* integer types: the extended value */
  float f;    /* F32 */
  double d;   /* F64 */
} value;

static const struct {
  const char *name;
  size_t size;
  char kind; /* 's'igned, 'u'nsigned, 'f'loat */
} types[REF_NTYPES] = {
    [PSCAN_I8] = {"i8", 1, 's'},  [PSCAN_I16] = {"i16", 2, 's'}, [PSCAN_I32] = {"i32", 4, 's'},
    [PSCAN_I64] = {"i64", 8, 's'}, [PSCAN_U8] = {"u8", 1, 'u'},   [PSCAN_U16] = {"u16", 2, 'u'},
    [PSCAN_U32] = {"u32", 4, 'u'}, [PSCAN_U64] = {"u64", 8, 'u'}, [PSCAN_F32] = {"f32", 4, 'f'},
    [PSCAN_F64] = {"f64", 8, 'f'},
};

/* An entry left out of the table above has size 0: such a type is unknown here, as one past the
   end is (and ref_first_missing_type names it). */
static bool known(pscan_dtype t) { return (int)t >= 0 && (int)t < REF_NTYPES && types[t].size; }

int ref_first_missing_type(void) {
  for (int t = 0; t < REF_NTYPES; t++)
    if (!known((pscan_dtype)t))
      return t;
  return -1;
}

size_t ref_dtype_size(pscan_dtype t) { return known(t) ? types[t].size : 0; }
bool ref_is_float(pscan_dtype t) { return known(t) && types[t].kind == 'f'; }
bool ref_is_signed(pscan_dtype t) { return known(t) && types[t].kind == 's'; }
const char *ref_dtype_name(pscan_dtype t) { return known(t) ? types[t].name : "?"; }

const char *ref_op_name(pscan_op op) {
  static const char *const names[REF_NOPS] = {"sum", "prod", "min", "max", "and", "or", "xor"};
  return (int)op >= 0 && (int)op < REF_NOPS ? names[op] : "?";
}

const char *ref_algo_name(int algo) {
  static const char *const names[REF_NALGOS] = {"auto",    "sequential",       "lookback",
                                                "chained", "reduce-then-scan", "scan-then-propagate"};
  return algo >= 0 && algo < REF_NALGOS ? names[algo] : "?";
}

bool ref_pair_valid(pscan_dtype in, pscan_dtype out) {
  if (!known(in) || !known(out))
    return false;
  return types[in].kind == types[out].kind && types[out].size >= types[in].size;
}

bool ref_op_valid(pscan_dtype t, pscan_op op) {
  if (!known(t) || (int)op < 0 || (int)op >= REF_NOPS)
    return false;
  return !(ref_is_float(t) && (op == PSCAN_AND || op == PSCAN_OR || op == PSCAN_XOR));
}

size_t ref_pair_ops(ref_pair_op *list) {
  size_t k = 0;
  for (int in = 0; in < REF_NTYPES; in++)
    for (int out = 0; out < REF_NTYPES; out++)
      for (int op = 0; op < REF_NOPS; op++)
        if (ref_pair_valid((pscan_dtype)in, (pscan_dtype)out) &&
            ref_op_valid((pscan_dtype)in, (pscan_op)op))
          list[k++] = (ref_pair_op){(pscan_dtype)in, (pscan_dtype)out, (pscan_op)op};
  return k;
}

/* ---- integers as extended uint64_t ---- */

static unsigned bits_of(pscan_dtype t) { return (unsigned)types[t].size * 8; }

/* Truncates x to the width of t, then extends it back to 64 bits the way t does. */
static uint64_t normalize(pscan_dtype t, uint64_t x) {
  unsigned bits = bits_of(t);
  if (bits == 64)
    return x;
  uint64_t mask = ((uint64_t)1 << bits) - 1;
  x &= mask;
  if (types[t].kind == 's' && (x >> (bits - 1)) & 1)
    x |= ~mask;
  return x;
}

/* a < b for the signedness of t (flipping the sign bit maps signed order onto unsigned order). */
static bool int_less(pscan_dtype t, uint64_t a, uint64_t b) {
  uint64_t flip = types[t].kind == 's' ? (uint64_t)1 << 63 : 0;
  return (a ^ flip) < (b ^ flip);
}

static uint64_t int_load(pscan_dtype t, const void *p) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (types[t].size) {
  case 1: memcpy(&u8, p, 1); return normalize(t, u8);
  case 2: memcpy(&u16, p, 2); return normalize(t, u16);
  case 4: memcpy(&u32, p, 4); return normalize(t, u32);
  default: memcpy(&u64, p, 8); return u64;
  }
}

static void int_store(pscan_dtype t, uint64_t x, void *p) {
  uint8_t u8 = (uint8_t)x;
  uint16_t u16 = (uint16_t)x;
  uint32_t u32 = (uint32_t)x;
  switch (types[t].size) {
  case 1: memcpy(p, &u8, 1); break;
  case 2: memcpy(p, &u16, 2); break;
  case 4: memcpy(p, &u32, 4); break;
  default: memcpy(p, &x, 8); break;
  }
}

/* ---- values of any type ---- */

/* Reads an element of in_type as a value of out_type (a widening conversion, exact). */
static value load_as(pscan_dtype in_type, pscan_dtype out_type, const void *p) {
  value v = {0, 0.0f, 0.0};
  if (in_type == PSCAN_F32) {
    memcpy(&v.f, p, sizeof v.f);
    v.d = (double)v.f;
  } else if (in_type == PSCAN_F64) {
    memcpy(&v.d, p, sizeof v.d);
  } else {
    /* The extended value is the same number in any wider type of the same kind. */
    v.i = normalize(out_type, int_load(in_type, p));
  }
  return v;
}

static void store(pscan_dtype t, value v, void *p) {
  if (t == PSCAN_F32)
    memcpy(p, &v.f, sizeof v.f);
  else if (t == PSCAN_F64)
    memcpy(p, &v.d, sizeof v.d);
  else
    int_store(t, v.i, p);
}

static value identity(pscan_dtype t, pscan_op op) {
  value v = {0, 0.0f, 0.0};
  if (t == PSCAN_F32 || t == PSCAN_F64) {
    double d = op == PSCAN_PROD ? 1.0 : op == PSCAN_MIN ? INFINITY : op == PSCAN_MAX ? -INFINITY : 0.0;
    v.f = (float)d;
    v.d = d;
    return v;
  }
  unsigned bits = bits_of(t);
  bool sign = types[t].kind == 's';
  uint64_t all = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  uint64_t largest = sign ? all >> 1 : all;                        /* 0111... or 1111... */
  uint64_t smallest = sign ? normalize(t, (uint64_t)1 << (bits - 1)) : 0; /* 1000... or 0 */
  switch (op) {
  case PSCAN_PROD: v.i = 1; break;
  case PSCAN_MIN: v.i = largest; break;
  case PSCAN_MAX: v.i = smallest; break;
  case PSCAN_AND: v.i = normalize(t, all); break;
  default: v.i = 0; break; /* SUM, OR, XOR */
  }
  return v;
}

void ref_identity(pscan_dtype t, pscan_op op, void *dst) { store(t, identity(t, op), dst); }

/* A store into a type the oracle does not know has no width to use: writing nothing would pass
   unseen, so the test stops. */
static void require_known(const char *fn, pscan_dtype t) {
  if (!known(t)) {
    fprintf(stderr, "%s: dtype %d is unknown to the oracle\n", fn, (int)t);
    abort();
  }
}

void ref_store_int(pscan_dtype t, int64_t v, void *dst) {
  require_known("ref_store_int", t);
  value x = {(uint64_t)v, (float)v, (double)v}; /* int_store truncates x.i to the width */
  store(t, x, dst);
}

void ref_store_bits(pscan_dtype t, uint64_t bits, void *dst) {
  require_known("ref_store_bits", t);
  memcpy(dst, &bits, types[t].size); /* little-endian: the low bytes */
}

void ref_legalize(pscan_dtype t, void *p, size_t n) {
  if (!known(t))
    return;
  const size_t size = types[t].size;
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = 0;
    memcpy(&bits, (char *)p + i * size, size);
    ref_store_bits(t, bits, (char *)p + i * size);
  }
}

/* NaN first (the earlier NaN wins), then strictly smaller; on a tie the later operand. */
#define FLOAT_MIN(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) < (b) ? (a) : (b))
#define FLOAT_MAX(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) > (b) ? (a) : (b))

/* SUM, PROD, MIN or MAX of two floats of one type, in that type's arithmetic. */
#define FLOAT_OP(op, a, b)                                                                         \
  ((op) == PSCAN_SUM ? (a) + (b) : (op) == PSCAN_PROD ? (a) * (b)                                  \
   : (op) == PSCAN_MIN ? FLOAT_MIN(a, b) : FLOAT_MAX(a, b))

static value combine(pscan_dtype t, pscan_op op, value a, value b) {
  value r = a;
  if (t == PSCAN_F32) {
    r.f = FLOAT_OP(op, a.f, b.f);
    return r;
  }
  if (t == PSCAN_F64) {
    r.d = FLOAT_OP(op, a.d, b.d);
    return r;
  }
  switch (op) {
  case PSCAN_SUM: r.i = a.i + b.i; break;
  case PSCAN_PROD: r.i = a.i * b.i; break;
  case PSCAN_MIN: r.i = int_less(t, b.i, a.i) ? b.i : a.i; break;
  case PSCAN_MAX: r.i = int_less(t, a.i, b.i) ? b.i : a.i; break;
  case PSCAN_AND: r.i = a.i & b.i; break;
  case PSCAN_OR: r.i = a.i | b.i; break;
  case PSCAN_XOR: r.i = a.i ^ b.i; break;
  }
  r.i = normalize(t, r.i);
  return r;
}

void ref_scan(const void *in, pscan_dtype in_type, void *out, pscan_dtype out_type, size_t n,
              pscan_op op, int exclusive, const void *init) {
  const char *src = in;
  char *dst = out;
  size_t in_size = ref_dtype_size(in_type), out_size = ref_dtype_size(out_type);
  value acc = identity(out_type, op);
  bool have = false; /* whether acc holds anything yet (init or an element) */
  if (init) {
    acc = load_as(out_type, out_type, init);
    have = true;
  }
  for (size_t i = 0; i < n; i++) {
    value x = load_as(in_type, out_type, src + i * in_size);
    if (exclusive)
      store(out_type, have ? acc : identity(out_type, op), dst + i * out_size);
    acc = have ? combine(out_type, op, acc, x) : x;
    have = true;
    if (!exclusive)
      store(out_type, acc, dst + i * out_size);
  }
}

bool ref_same(pscan_dtype t, const void *a, const void *b) {
  if (memcmp(a, b, ref_dtype_size(t)) == 0)
    return true;
  if (t == PSCAN_F32) {
    float x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return isnan(x) && isnan(y);
  }
  if (t == PSCAN_F64) {
    double x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return isnan(x) && isnan(y);
  }
  return false;
}

size_t ref_first_difference(pscan_dtype t, const void *a, const void *b, size_t n) {
  size_t size = ref_dtype_size(t);
  if (memcmp(a, b, n * size) == 0) /* the common case, fast */
    return n;
  for (size_t i = 0; i < n; i++)
    if (!ref_same(t, (const char *)a + i * size, (const char *)b + i * size))
      return i;
  return n;
}

void ref_format(pscan_dtype t, const void *p, char *buf, size_t len) {
  if (t == PSCAN_F32 || t == PSCAN_F64) {
    double d;
    if (t == PSCAN_F32) {
      float f;
      memcpy(&f, p, sizeof f);
      d = f;
    } else {
      memcpy(&d, p, sizeof d);
    }
    snprintf(buf, len, "%a (%.17g)", d, d);
    return;
  }
  uint64_t x = int_load(t, p);
  if (types[t].kind == 's' && (x >> 63))
    snprintf(buf, len, "-%" PRIu64, (uint64_t)0 - x);
  else
    snprintf(buf, len, "%" PRIu64, x);
}

/* ---- compaction ---- */

int ref_compare(pscan_dtype t, const void *a, const void *b) {
#define CMP3(ctype)                                    \
  do {                                                 \
    ctype x, y;                                        \
    memcpy(&x, a, sizeof x);                           \
    memcpy(&y, b, sizeof y);                           \
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;    \
  } while (0)
  switch (t) {
  case PSCAN_I8: CMP3(int8_t);
  case PSCAN_I16: CMP3(int16_t);
  case PSCAN_I32: CMP3(int32_t);
  case PSCAN_I64: CMP3(int64_t);
  case PSCAN_U8: CMP3(uint8_t);
  case PSCAN_U16: CMP3(uint16_t);
  case PSCAN_U32: CMP3(uint32_t);
  case PSCAN_U64: CMP3(uint64_t);
  case PSCAN_F32: CMP3(float);
  case PSCAN_F64: CMP3(double);
  }
#undef CMP3
  return 2;
}

bool ref_pred(pscan_dtype t, pscan_cmp cmp, const void *a, const void *b) {
  int r = ref_compare(t, a, b);
  switch (cmp) {
  case PSCAN_LT: return r == -1;
  case PSCAN_LE: return r == -1 || r == 0;
  case PSCAN_GT: return r == 1;
  case PSCAN_GE: return r == 1 || r == 0;
  case PSCAN_EQ: return r == 0;
  case PSCAN_NE: return r != 0;
  }
  return false;
}

size_t ref_compact(ref_compact_op op, pscan_dtype t, const void *in, const uint8_t *flags,
                   size_t n, pscan_cmp cmp, const void *threshold, void *want, uint64_t *want_counts) {
  size_t s = ref_dtype_size(t), sel = 0, rej = 0;
  for (size_t i = 0; i < n; i++) {
    const char *e = (const char *)in + i * s;
    bool keep;
    if (op == REF_UNIQUE || op == REF_RLE)
      keep = i == 0 || ref_compare(t, e, e - s) != 0;
    else
      keep = op == REF_SELECT_FLAGGED ? flags[i] != 0 : ref_pred(t, cmp, e, threshold);
    if (keep) {
      memcpy((char *)want + sel++ * s, e, s);
      if (op == REF_RLE)
        want_counts[sel - 1] = 0;
    } else if (op == REF_PARTITION_IF) {
      memcpy((char *)want + (n - 1 - rej++) * s, e, s);
    }
    if (op == REF_RLE)
      want_counts[sel - 1]++;
  }
  return sel;
}

/* The end of the run of equal keys that starts at i. */
static size_t run_end(const void *keys, pscan_dtype kt, size_t i, size_t n) {
  size_t ks = ref_dtype_size(kt), j = i + 1;
  while (j < n &&
         ref_compare(kt, (const char *)keys + j * ks, (const char *)keys + (j - 1) * ks) == 0)
    j++;
  return j;
}

size_t ref_reduce_by_key(const void *keys, pscan_dtype key_type, const void *vals,
                         pscan_dtype val_type, size_t n, pscan_op op, void *want_keys,
                         void *want_vals) {
  size_t ks = ref_dtype_size(key_type), vs = ref_dtype_size(val_type), runs = 0;
  char *scan = malloc(n * vs + 1);
  if (!scan)
    abort();
  for (size_t i = 0; i < n; runs++) {
    size_t j = run_end(keys, key_type, i, n);
    memcpy((char *)want_keys + runs * ks, (const char *)keys + i * ks, ks);
    ref_scan((const char *)vals + i * vs, val_type, scan, val_type, j - i, op, 0, NULL);
    memcpy((char *)want_vals + runs * vs, scan + (j - i - 1) * vs, vs);
    i = j;
  }
  free(scan);
  return runs;
}

void ref_scan_by_key(const void *keys, pscan_dtype key_type, const void *vals, void *out,
                     size_t n, pscan_dtype val_type, pscan_op op, int exclusive, const void *init) {
  size_t vs = ref_dtype_size(val_type);
  for (size_t i = 0; i < n;) {
    size_t j = run_end(keys, key_type, i, n);
    ref_scan((const char *)vals + i * vs, val_type, (char *)out + i * vs, val_type, j - i, op,
             exclusive, init);
    i = j;
  }
}

void ref_scan_combine(const void *in, void *out, size_t n, size_t size, pscan_combine_fn fn,
                      void *user, int exclusive, const void *init) {
  unsigned char acc[128], next[128];
  if (size > sizeof acc)
    abort();
  bool have = init != NULL;
  if (have)
    memcpy(acc, init, size);
  for (size_t i = 0; i < n; i++) {
    const unsigned char *x = (const unsigned char *)in + i * size;
    if (have)
      fn(next, acc, x, user);
    else
      memcpy(next, x, size);
    memcpy((unsigned char *)out + i * size, exclusive ? acc : next, size);
    memcpy(acc, next, size);
    have = true;
  }
}

void ref_axis_layout(int ndim, const int64_t *shape, const int *perm, unsigned neg,
                     int64_t *strides, int64_t *base) {
  int64_t run = 1;
  *base = 0;
  for (int k = ndim; k-- > 0;) {
    int d = perm[k];
    strides[d] = (neg >> d) & 1 ? -run : run;
    if (strides[d] < 0)
      *base += (shape[d] - 1) * run;
    run *= shape[d];
  }
}

void ref_scan_axis_combine(const pscan_axis_args *a, size_t size, pscan_combine_fn fn, void *user,
                           const char *in, char *out, const void *init) {
  size_t n = 1;
  for (int d = 0; d < a->ndim; d++)
    n *= (size_t)a->shape[d];
  int axis = a->axis < 0 ? a->ndim + a->axis : a->axis;
  int64_t len = a->shape[axis], s = (int64_t)size;
  if (n == 0)
    return;
  char *line = malloc((size_t)len * size), *res = malloc((size_t)len * size);
  if (!line || !res)
    abort();
  for (size_t l = 0; l < n / (size_t)len; l++) {
    int64_t io = 0, oo = 0; /* line l: its batch index in row-major order, the axis left out */
    size_t idx = l;
    for (int d = a->ndim; d-- > 0;) {
      if (d == axis)
        continue;
      int64_t i = (int64_t)(idx % (size_t)a->shape[d]);
      idx /= (size_t)a->shape[d];
      io += i * a->in_strides[d], oo += i * a->out_strides[d];
    }
    for (int64_t k = 0; k < len; k++) {
      int64_t i = a->reverse ? len - 1 - k : k;
      memcpy(line + k * s, in + (io + i * a->in_strides[axis]) * s, size);
    }
    ref_scan_combine(line, res, (size_t)len, size, fn, user, a->exclusive, init);
    for (int64_t k = 0; k < len; k++) {
      int64_t i = a->reverse ? len - 1 - k : k;
      memcpy(out + (oo + i * a->out_strides[axis]) * s, res + k * s, size);
    }
  }
  free(line);
  free(res);
}
