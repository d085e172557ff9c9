/* The on-disk cache of compiled user operators (cache.h).
 * Writers go through a temporary file in the cache directory and rename(2) it onto the entry, so
 * that a reader sees either no entry or a whole one, even with several processes building the
 * same operator at once. Entries carry a header that makes a truncated or overwritten file a
 * miss rather than garbage handed to a loader. */
#define _GNU_SOURCE
#include "cache.h"

#include "../internal.h"
#include "../mix64.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Hash: two 64-bit multiply-rotate lanes over 8-byte words, finalised with a 64-bit
   avalanche (mix64.h); not cryptographic (a key names a build, it does not defend against an
   attacker who can already write the cache directory). ---- */

#define P1 0x9E3779B97F4A7C15ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull

typedef struct { uint64_t a, b; } hash128;

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static void hash_word(hash128 *h, uint64_t w) {
  h->a = rotl64(h->a ^ (w * P1), 31) * P2;
  h->b = rotl64(h->b + (w * P3), 27) * P1 + h->a;
}

static void hash_bytes(hash128 *h, const void *data, size_t size) {
  const unsigned char *p = data;
  hash_word(h, (uint64_t)size); /* length-delimits the part */
  for (; size >= 8; p += 8, size -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    hash_word(h, w);
  }
  if (size) {
    uint64_t w = 0;
    memcpy(&w, p, size);
    hash_word(h, w ^ ((uint64_t)size << 56));
  }
}

static hash128 hash_finish(hash128 h) {
  hash128 r = {pscan__mix64(h.a ^ rotl64(h.b, 17)), pscan__mix64(h.b + h.a * P3)};
  return r;
}

void pscan__hash_hex(const void *const *parts, const size_t *sizes, int count, char out[33]) {
  hash128 h = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull};
  for (int i = 0; i < count; i++)
    hash_bytes(&h, parts[i], sizes[i]);
  h = hash_finish(h);
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
}

static uint64_t checksum(const void *data, size_t size) {
  hash128 h = {0x452821E638D01377ull, 0xBE5466CF34E90C6Cull};
  hash_bytes(&h, data, size);
  return hash_finish(h).a;
}

/* ---- Directory ---- */

/* mkdir -p of path (modified in place and restored). */
static bool make_dirs(char *path) {
  for (char *s = path + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    int r = mkdir(path, 0700);
    *s = '/';
    if (r != 0 && errno != EEXIST)
      return false;
  }
  return mkdir(path, 0700) == 0 || errno == EEXIST;
}

bool pscan__cache_dir(char *buf, size_t len) {
  const char *dir = getenv("PSCAN_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home;
  int w;
  if (dir && *dir)
    w = snprintf(buf, len, "%s", dir);
  else if (xdg && *xdg)
    w = snprintf(buf, len, "%s/pscan", xdg);
  else if ((home = getenv("HOME")) && *home)
    w = snprintf(buf, len, "%s/.cache/pscan", home);
  else
    return false;
  if (w <= 0 || (size_t)w >= len)
    return false;
  while (w > 1 && buf[w - 1] == '/')
    buf[--w] = '\0';
  struct stat st;
  if (!make_dirs(buf) || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
    return false;
  /* Entries are loaded as code (shared objects): a directory that another user could write to
     is not used. */
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return false;
  return access(buf, R_OK | X_OK) == 0;
}

bool pscan__cache_path(const char *key, const char *suffix, char *buf, size_t len) {
  char dir[4096];
  if (!pscan__cache_dir(dir, sizeof dir))
    return false;
  int w = snprintf(buf, len, "%s/%s%s", dir, key, suffix);
  return w > 0 && (size_t)w < len;
}

bool pscan__cache_temp_path(const char *key, const char *suffix, char *buf, size_t len) {
  static _Atomic unsigned long serial;
  char dir[4096];
  if (!pscan__cache_dir(dir, sizeof dir))
    return false;
  unsigned long k = atomic_fetch_add(&serial, 1);
  int w = snprintf(buf, len, "%s/.%s%s.%ld.%lu.tmp", dir, key, suffix, (long)getpid(), k);
  return w > 0 && (size_t)w < len;
}

/* ---- Entries: header, then the bytes ---- */

#define MAGIC "pscanC1\n"

typedef struct {
  char magic[8];
  uint64_t size;
  uint64_t sum;
} entry_header;

/* Reads (or writes) all size bytes, retrying after signals; false on an error or an early end. */
static bool transfer_all(int fd, char *p, size_t size, bool writing) {
  while (size) {
    ssize_t r = writing ? write(fd, p, size) : read(fd, p, size);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    p += r;
    size -= (size_t)r;
  }
  return true;
}

static bool read_all(int fd, void *buf, size_t size) { return transfer_all(fd, buf, size, false); }

static bool write_all(int fd, const void *buf, size_t size) {
  return transfer_all(fd, (char *)(uintptr_t)buf, size, true); /* not written to */
}

bool pscan__cache_load(const char *key, const char *suffix, void **data, size_t *size) {
  char path[4352];
  if (!pscan__cache_path(key, suffix, path, sizeof path))
    return false;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  entry_header h;
  struct stat st;
  void *buf = NULL;
  bool ok = fstat(fd, &st) == 0 && read_all(fd, &h, sizeof h) &&
            memcmp(h.magic, MAGIC, 8) == 0 && st.st_size >= 0 &&
            (uint64_t)st.st_size - sizeof h == h.size && h.size <= SIZE_MAX - 1;
  if (ok)
    ok = (buf = pscan__calloc(1, (size_t)h.size + 1)) != NULL && read_all(fd, buf, (size_t)h.size) &&
         checksum(buf, (size_t)h.size) == h.sum;
  close(fd);
  if (!ok) {
    pscan__free(buf);
    return false;
  }
  *data = buf;
  *size = (size_t)h.size;
  return true;
}

void pscan__cache_store(const char *key, const char *suffix, const void *data, size_t size) {
  char tmp[4352], path[4352];
  if (!pscan__cache_temp_path(key, suffix, tmp, sizeof tmp) ||
      !pscan__cache_path(key, suffix, path, sizeof path))
    return;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  entry_header h = {{0}, (uint64_t)size, checksum(data, size)};
  memcpy(h.magic, MAGIC, 8);
  bool ok = write_all(fd, &h, sizeof h) && write_all(fd, data, size);
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path) != 0)
    unlink(tmp);
}
