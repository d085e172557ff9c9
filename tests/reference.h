/* An independent sequential oracle for pscan's built-in scans, its compaction family and scans
 * under a user's host combine function (along an axis too).
 *
 * Written from the contract (include/pscan.h), not from the library: it uses pscan.h only for the
 * enum values (and their count) and argument types. One element at a time, left to right, in the
 * output type: integer SUM and PROD in uint64_t truncated to the type's width (so signed types
 * wrap without undefined behaviour), float SUM and PROD in the output type itself (exact whenever
 * the true results are representable), float MIN and MAX propagating NaN and, between equal
 * operands (-0.0 and +0.0), keeping the later one. */
#ifndef PSCAN_TEST_REFERENCE_H
#define PSCAN_TEST_REFERENCE_H

#include "pscan.h"

#include <stdbool.h>
#include <stddef.h>

/* Sized by the library's count, so that a type the oracle's table lacks shows as a gap in it
   (ref_first_missing_type) instead of being left out of every loop over the types. */
enum { REF_NTYPES = PSCAN_DTYPE_COUNT, REF_NOPS = 7, REF_NALGOS = 6 };

/* The first dtype below PSCAN_DTYPE_COUNT that the oracle has no entry for, or -1 if none. */
int ref_first_missing_type(void);

size_t ref_dtype_size(pscan_dtype t); /* 0 when unknown */
bool ref_is_float(pscan_dtype t);
bool ref_is_signed(pscan_dtype t); /* signed integer */
const char *ref_dtype_name(pscan_dtype t);
const char *ref_op_name(pscan_op op);
const char *ref_algo_name(int algo);

/* out_type is in_type or a wider type of the same kind (signed, unsigned, float). */
bool ref_pair_valid(pscan_dtype in, pscan_dtype out);
/* Bitwise operators are for integer types only. */
bool ref_op_valid(pscan_dtype t, pscan_op op);

/* How many (in, out) pairs and (pair, op) the contract lists (include/pscan.h: the widenings;
   bitwise operators on integers only): what ref_pair_ops must find. A new type changes them. */
enum { REF_CONTRACT_PAIRS = 23, REF_CONTRACT_PAIR_OPS = 152 };

/* Every valid (in type, out type, op), in order of in, then out, then op. */
typedef struct ref_pair_op {
  pscan_dtype in, out;
  pscan_op op;
} ref_pair_op;
enum { REF_MAX_PAIR_OPS = REF_NTYPES * REF_NTYPES * REF_NOPS };
/* Fills list (REF_MAX_PAIR_OPS entries) with them; returns their count. */
size_t ref_pair_ops(ref_pair_op *list);

/* Writes the identity of op in type t to dst. */
void ref_identity(pscan_dtype t, pscan_op op, void *dst);
/* Writes v converted to type t as C converts it (integers truncated to the width, floats
   rounded) to dst: how the suites store the integers they draw, for any type. */
void ref_store_int(pscan_dtype t, int64_t v, void *dst);
/* Writes random bits as a value of type t to dst, spread over the type's values: the low bytes
   of bits for every type today (every bit pattern is a value, a float's NaNs included); a type
   that holds fewer values than its bits spell maps them here so that random bits reach every
   value (a bool: the low bit, where ref_store_int's C conversion would make nearly all of them
   1). How the suites store what they draw as bits. */
void ref_store_bits(pscan_dtype t, uint64_t bits, void *dst);
/* Makes n elements of type t at p, raw bits a test drew or read, values of the type: each element
   stored again through ref_store_bits (a no-op for today's types). Unknown types are left alone. */
void ref_legalize(pscan_dtype t, void *p, size_t n);

/* The scan of pscan.h: inclusive (exclusive = 0) or exclusive, init (in out_type) or NULL.
   in: n elements of in_type; out: n elements of out_type, not overlapping in. */
void ref_scan(const void *in, pscan_dtype in_type, void *out, pscan_dtype out_type, size_t n,
              pscan_op op, int exclusive, const void *init);

/* True when a and b (one element of type t each) are the same value: the same bits, or, for
   floats, both NaN (whatever their payloads). */
bool ref_same(pscan_dtype t, const void *a, const void *b);
/* The first index where a and b (n elements of type t) differ per ref_same, or n if none. */
size_t ref_first_difference(pscan_dtype t, const void *a, const void *b, size_t n);
/* Writes one element as text ("-12", "0x1.8p+3 (3)", "nan") into buf. */
void ref_format(pscan_dtype t, const void *p, char *buf, size_t len);

/* ---- Compaction (pscan.h, Compaction and segmented operations), one element at a time ---- */

/* -1, 0, 1 comparing a and b (one element of type t each) as C does, or 2 when unordered (a
   NaN). Keys and run items are equal when this is 0: NaN never equals anything. */
int ref_compare(pscan_dtype t, const void *a, const void *b);
/* (a cmp b) as C evaluates it: with a NaN only NE holds. */
bool ref_pred(pscan_dtype t, pscan_cmp cmp, const void *a, const void *b);

typedef enum ref_compact_op {
  REF_SELECT_IF, REF_SELECT_FLAGGED, REF_PARTITION_IF, REF_UNIQUE, REF_RLE
} ref_compact_op;

/* Writes to want the expected out[0..n) of op on in[0..n) of type t (only [0, count) for all but
   partition_if, whose rejected items fill from the back), the run lengths to want_counts
   (REF_RLE), and returns the count. flags: select_flagged; cmp and threshold: select_if and
   partition_if. */
size_t ref_compact(ref_compact_op op, pscan_dtype t, const void *in, const uint8_t *flags,
                   size_t n, pscan_cmp cmp, const void *threshold, void *want,
                   uint64_t *want_counts);
/* reduce_by_key: one (key, op-reduction of its values in order) per run of equal consecutive
   keys, to want_keys and want_vals; returns the number of runs. */
size_t ref_reduce_by_key(const void *keys, pscan_dtype key_type, const void *vals,
                         pscan_dtype val_type, size_t n, pscan_op op, void *want_keys,
                         void *want_vals);
/* scan_by_key: ref_scan (in val_type) restarted at every run of equal consecutive keys, with
   init (or NULL) applied to every run. out does not overlap vals. */
void ref_scan_by_key(const void *keys, pscan_dtype key_type, const void *vals, void *out,
                     size_t n, pscan_dtype val_type, pscan_op op, int exclusive, const void *init);

/* ---- User operators (elements of any size, combined by a host function) ---- */

/* The scan of n elements of size bytes (<= 128) under fn (user passed to every call): inclusive
   (exclusive = 0) or exclusive, from init or (NULL) from the first element. out does not overlap
   in. */
void ref_scan_combine(const void *in, void *out, size_t n, size_t size, pscan_combine_fn fn,
                      void *user, int exclusive, const void *init);

/* Strides (elements) of shape laid out in the order of dims perm (perm[ndim - 1] varies
   fastest), negated where neg has the dimension's bit; *base is the offset of element 0 from the
   start of the storage. */
void ref_axis_layout(int ndim, const int64_t *shape, const int *perm, unsigned neg,
                     int64_t *strides, int64_t *base);

/* pscan_scan_axis of a under fn, on host views: the shape, strides, axis (negative counts from
   the end), reverse and exclusive come from a (not its pointers, init or user_op); every line of
   the view at in is scanned by ref_scan_combine, from init or NULL, into the view at out. Elements
   of out outside the view keep their bytes. in and out do not overlap. */
void ref_scan_axis_combine(const pscan_axis_args *a, size_t size, pscan_combine_fn fn, void *user,
                           const char *in, char *out, const void *init);

#endif /* PSCAN_TEST_REFERENCE_H */
