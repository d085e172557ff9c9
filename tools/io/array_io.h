/* Typed 1-D arrays in files, for the file subcommands of the pscan tool (cmd_files.c).
 *
 * Three formats, chosen by the path: "*.npy" is NumPy (versions 1.0, 2.0, 3.0; little or big
 * endian; C order, 1-D only), "*.txt" and "-" (stdin/stdout) are text (numbers separated by
 * white space, '#' starts a comment to the end of the line), anything else is raw binary in the
 * machine's byte order (its type must be given).
 *
 * Two layers. The parsers (npy.c, text_io.c) work on a (pointer, length) buffer and depend on
 * nothing but libc, so the fuzz harness (tests/fuzz/fuzz_parsers.c) drives them directly. The file
 * layer (array_io.c) maps input files read-only (no second copy unless the data must be byte-swapped,
 * realigned or converted from text) and writes every output to a temporary file beside it, renamed
 * over the real name only when everything succeeded.
 *
 * Every failure is described in err as one line that starts with the file's name
 * ("data.npy: truncated: ..." or "in.txt:3: '12x' is not an i32"). */
#ifndef PSCAN_TOOL_ARRAY_IO_H
#define PSCAN_TOOL_ARRAY_IO_H

#include "pscan.h"
#include "safe_out.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { AIO_ERR_LEN = 512, AIO_NO_TYPE = -1 };

typedef struct aio_err {
  char msg[AIO_ERR_LEN];
} aio_err;

typedef enum aio_format { AIO_NPY, AIO_TEXT, AIO_RAW } aio_format;

/* The format a path names: ".npy" NumPy, ".txt" or "-" text, anything else raw. The extension
   is matched whatever its case (".NPY", ".Txt"). */
aio_format aio_format_of(const char *path);

/* ---- parsers over a buffer ---- */

enum { AIO_MAX_DIMS = 8 }; /* dimensions of a .npy array (scan --axis) */

typedef struct npy_header {
  pscan_dtype type;
  bool swap;          /* the data is in the other byte order than this machine's */
  size_t n;           /* elements */
  int ndim;           /* 1..AIO_MAX_DIMS */
  size_t shape[AIO_MAX_DIMS];
  size_t data_offset; /* where the data starts in the buffer */
  bool is_bool;       /* '|b1': type is PSCAN_U8, and the bytes mean False / True */
} npy_header;

/* Parses and validates the header of a .npy file held in buf[0..len): magic, version, header
   length, the dict (descr, fortran_order, shape; nothing else), the dtype, a C-ordered shape of
   1..AIO_MAX_DIMS dimensions, and that the data fills the rest of the buffer exactly. name is
   used in the message. */
bool npy_parse(const char *name, const uint8_t *buf, size_t len, npy_header *h, aio_err *err);

/* Writes the version 1.0 header of a 1-D array of n elements of type t, in this machine's byte
   order, into buf (NPY_HEADER_MAX bytes); returns its length, a multiple of 64. */
enum { NPY_HEADER_MAX = 320 };
size_t npy_format_header(pscan_dtype t, size_t n, char *buf);
/* The same for an array of shape[0..ndim) (1 <= ndim <= AIO_MAX_DIMS). */
size_t npy_format_header_shape(pscan_dtype t, int ndim, const size_t *shape, char *buf);

/* Parses one number in the syntax of type t from a NUL-terminated string: decimal integers
   (optional sign; out of the type's range is refused), or for f32/f64 anything strtod reads
   (1.5, -2e10, inf, nan). Writes one element of t to out. */
bool text_parse_value(const char *s, pscan_dtype t, void *out);
/* The same, saying why not: TEXT_VALUE_OK, TEXT_VALUE_GARBAGE (not a number of t's syntax) or
   TEXT_VALUE_RANGE (a number, out of t's range). */
enum { TEXT_VALUE_OK, TEXT_VALUE_GARBAGE, TEXT_VALUE_RANGE };
int text_parse_value_why(const char *s, pscan_dtype t, void *out);

/* Parses the text buf[0..len) into a new malloc'd array of type t (*data, *n; free() it). An
   empty text gives n = 0 and *data = NULL. Messages name the line: "name:LINE: ...". */
bool text_parse(const char *name, const char *buf, size_t len, pscan_dtype t, void **data,
                size_t *n, aio_err *err);

/* Writes n elements of t to f, one per line (floats with enough digits to read back exactly).
   Returns false on a write error. */
bool text_write(FILE *f, pscan_dtype t, const void *data, size_t n);

/* Reverses the bytes of each of n elements of size bytes, in place. */
void aio_swap_bytes(void *data, size_t n, size_t size);

void aio_errorf(aio_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- files ---- */

typedef struct aio_array {
  pscan_dtype type;
  size_t n;
  const void *data; /* n elements, aligned, in this machine's byte order */
  void *owned;      /* malloc'd storage behind data, or NULL */
  void *map;        /* mmap'd file behind data, or NULL */
  size_t map_len;
  int ndim;                     /* a .npy file's dimensions; 0 (text, raw): 1-D */
  size_t shape[AIO_MAX_DIMS];
  bool is_bool;     /* a NumPy bool array: type is PSCAN_U8, every element 0 or 1 */
  int fd;           /* the mapped file, kept open to see whether it changes; -1 if none */
  long long size, mtime_s, mtime_ns; /* the file as it was mapped */
} aio_array;

/* Loads path ("-": text from stdin). type is the type of a text or raw file (AIO_NO_TYPE: text
   defaults to i64, raw is refused); a .npy file carries its own, and type is ignored. On failure
   *a is empty and err says why. */
bool aio_load(const char *path, int type, aio_array *a, aio_err *err);
void aio_free(aio_array *a); /* empties *a; an empty one is a no-op */

/* Whether the file behind a mapped array still has the size and modification time it had when
   it was mapped (true for data that is not mapped). false with "NAME: file changed while being
   read" in err. */
bool aio_unchanged(const aio_array *a, const char *path, aio_err *err);

/* From now on, a SIGBUS on a mapped input (the file was truncated while it was read) prints
   "pscan CMD: NAME: file changed while being read", removes the temporary output files and exits
   with status 1, instead of killing the process. */
void aio_catch_sigbus(const char *cmd);

/* An output being written, through safe_out.h: a temporary file beside path, or directly for
   "-" (stdout), a device or a FIFO. */
typedef struct aio_output {
  sout s;
  bool open;
} aio_output;

/* Called while outputs are written, with the fraction of the current one written so far. */
typedef void (*aio_progress_fn)(void *arg, const char *path, double done);
void aio_set_progress(aio_progress_fn fn, void *arg);

/* Writes n elements of t in path's format (to the temporary file) and closes it. */
bool aio_write(aio_output *o, const char *path, pscan_dtype t, const void *data, size_t n,
               aio_err *err);
/* aio_write of an array of shape[0..ndim) (ndim <= 1: 1-D); only .npy keeps the shape. */
bool aio_write_shape(aio_output *o, const char *path, pscan_dtype t, const void *data, size_t n,
                     int ndim, const size_t *shape, aio_err *err);
/* Renames the temporary file over the real name. */
bool aio_commit(aio_output *o, aio_err *err);
/* Removes the temporary file, if any. */
void aio_discard(aio_output *o);

#endif /* PSCAN_TOOL_ARRAY_IO_H */
