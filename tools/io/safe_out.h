/* The one way the pscan tool writes a file (file commands, trace --svg, bench --csv, plots).
 *
 * - "-" is stdout.
 * - A path that names a device, a FIFO or another non-regular file (after following symbolic
 *   links) is opened and written directly: nothing is created or replaced there.
 * - Anything else (a regular file, or a name that does not exist yet) is written to a fresh
 *   temporary file ".NAME.XXXXXX" made with mkstemp (O_EXCL, mode 0600) in the directory of the
 *   file finally written, and renamed over it only by sout_commit. A symbolic link is followed
 *   to its target, and the target is what gets replaced; the link itself stays. The new file
 *   takes the old file's permission bits, and its owner and group where the caller may set them
 *   (a new file: 0666 less the umask). Another hard link of the old file keeps the old contents.
 * - SIGINT, SIGTERM and SIGHUP remove every temporary file that exists at that moment and end the
 *   process with 128 + the signal's number (sout_catch_signals).
 *
 * Messages name the path as the caller gave it, never the temporary name. */
#ifndef PSCAN_TOOL_SAFE_OUT_H
#define PSCAN_TOOL_SAFE_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum { SOUT_ERR_LEN = 512 };

typedef struct sout {
  const char *path;     /* as given: messages name it */
  char *target;         /* the file written: path with its symbolic links followed */
  char *tmp;            /* the temporary file while it exists, else NULL */
  FILE *f;              /* where the caller writes, between sout_open and sout_close */
  bool direct;          /* stdout, a device, a FIFO: written in place, nothing to rename */
  bool existed;         /* target was a regular file: its mode and owner carry over */
  mode_t mode;
  uid_t uid;
  gid_t gid;
  int slot;             /* the signal handler's record of tmp, or -1 */
  char err[SOUT_ERR_LEN];
} sout;

/* Checks, before any work is done, that path can be written: not a directory, its directory
   exists and (for a new file) is writable. false with a message in err[0..cap). */
bool sout_check(const char *path, char *err, size_t cap);

/* Whether two output paths name the same file: the same device and inode where the file exists,
   else the same resolved path (symbolic links and the directory followed). "-" is only itself. */
bool sout_same_file(const char *a, const char *b);

/* Opens path for writing as described above; o->f is ready. false with o->err set. */
bool sout_open(sout *o, const char *path);
/* Flushes and closes o->f and gives the temporary file its final mode and owner. false with
   o->err set ("NAME: write error: No space left on device"); the temporary file remains for
   sout_discard. */
bool sout_close(sout *o);
/* Renames the temporary file over the target (nothing for a direct output). false with o->err. */
bool sout_commit(sout *o);
/* Closes if still open and removes the temporary file, if any; frees what o holds. Safe to call
   twice and after sout_commit. */
void sout_discard(sout *o);

/* sout_open, write(data, arg) to o->f, sout_close, sout_commit: the whole of a one-file output.
   write returns false on failure (errno set). false with o->err set; nothing is left behind. */
bool sout_write_file(sout *o, const char *path, bool (*write)(FILE *f, void *arg), void *arg);

/* Installs the SIGINT, SIGTERM and SIGHUP handlers (once; a signal the process was started
   ignoring stays ignored). sout_open calls it too. */
void sout_catch_signals(void);
/* For other async-signal handlers: removes every temporary file (async-signal-safe). */
void sout_remove_temps(void);

#endif /* PSCAN_TOOL_SAFE_OUT_H */
