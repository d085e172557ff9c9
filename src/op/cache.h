/* The on-disk cache of compiled user operators (shared objects on the CPU, cubins/PTX on the GPU).
 * An entry is a file named key+suffix in the cache directory. Entries written by
 * pscan__cache_store carry a header (magic, length, checksum) that pscan__cache_load verifies;
 * files that another program writes (a shared object from the C compiler) live at
 * pscan__cache_path and are verified by their user (dlopen). Every failure is a miss, never an
 * error: the caller compiles again. */
#ifndef PSCAN_OP_CACHE_H
#define PSCAN_OP_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* A 128-bit hash of the given byte strings, as 32 lowercase hex digits + NUL. The parts are
   length-delimited, so ("ab", "c") and ("a", "bc") hash differently. */
void pscan__hash_hex(const void *const *parts, const size_t *sizes, int count, char out[33]);

/* The cache directory ($PSCAN_CACHE_DIR, else $XDG_CACHE_HOME/pscan, else ~/.cache/pscan), created
   if missing; false when none is usable (not a directory, or writable by another user than this
   process's: its entries may be loaded as code). */
bool pscan__cache_dir(char *buf, size_t len);

/* Reads entry key+suffix; true with *data (free with pscan__free) and *size on a hit; a missing,
   unreadable or corrupt entry (header with magic, length and checksum) is a miss. */
bool pscan__cache_load(const char *key, const char *suffix, void **data, size_t *size);

/* Writes the entry atomically (temp file in the cache dir + rename); every failure is ignored. */
void pscan__cache_store(const char *key, const char *suffix, const void *data, size_t size);

/* The path an entry (e.g. a shared object the C compiler writes) would have; false if no cache
   dir (or the path does not fit in len). */
bool pscan__cache_path(const char *key, const char *suffix, char *buf, size_t len);

/* A fresh temporary path in the cache directory for an entry being built (key+suffix with a
   unique tag), to be renamed onto pscan__cache_path when complete; false if no cache dir. */
bool pscan__cache_temp_path(const char *key, const char *suffix, char *buf, size_t len);

#endif /* PSCAN_OP_CACHE_H */
