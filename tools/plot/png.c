/* A minimal PNG writer (PNG spec, ISO/IEC 15948): signature, IHDR, one IDAT, IEND. IDAT holds a
 * zlib stream (RFC 1950) of stored deflate blocks (RFC 1951, BTYPE 00: at most 65535 bytes
 * each, no compression), so neither zlib nor a Huffman coder is needed. Each scanline is
 * preceded by filter type 0 (none). */
#define _POSIX_C_SOURCE 200809L
#include "png.h"
#include "io/safe_out.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STORED_MAX = 65535 };

uint32_t png_crc32(uint32_t crc, const uint8_t *p, size_t n) {
  static uint32_t table[256];
  if (!table[1]) /* reflected polynomial 0xEDB88320; table[1] is never 0 once built */
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
  crc = ~crc;
  for (size_t i = 0; i < n; i++)
    crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t png_adler32(uint32_t adler, const uint8_t *p, size_t n) {
  uint32_t a = adler & 0xFFFF, b = adler >> 16;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* Length, type, data, CRC of type + data. */
static bool write_chunk(FILE *f, const char *type, const uint8_t *data, size_t n) {
  uint8_t head[8], tail[4];
  put_be32(head, (uint32_t)n);
  memcpy(head + 4, type, 4);
  put_be32(tail, png_crc32(png_crc32(0, head + 4, 4), data, n));
  return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
         fwrite(tail, 1, 4, f) == 4;
}

/* The zlib stream of raw[0..n): header, stored blocks, Adler-32. *len gets its length; NULL if
   out of memory. */
static uint8_t *zlib_stored(const uint8_t *raw, size_t n, size_t *len) {
  size_t blocks = n / STORED_MAX + 1; /* + 1: an empty final block when n is a multiple */
  uint8_t *z = malloc(2 + n + 5 * blocks + 4), *p = z;
  if (!z)
    return NULL;
  *p++ = 0x78, *p++ = 0x01; /* deflate, 32 KiB window, no dictionary; 0x7801 % 31 == 0 */
  for (size_t done = 0;;) {
    size_t k = n - done < STORED_MAX ? n - done : STORED_MAX;
    bool last = done + k == n;
    *p++ = last ? 1 : 0; /* BFINAL, BTYPE = 00 */
    *p++ = (uint8_t)k, *p++ = (uint8_t)(k >> 8);
    *p++ = (uint8_t)~k, *p++ = (uint8_t)(~k >> 8);
    memcpy(p, raw + done, k);
    p += k, done += k;
    if (last)
      break;
  }
  put_be32(p, png_adler32(1, raw, n));
  *len = (size_t)(p + 4 - z);
  return z;
}

/* The scanlines, each behind its filter byte 0; NULL if out of memory. */
static uint8_t *scanlines(const uint8_t *rgb, int width, int height, size_t *n) {
  size_t row = 3 * (size_t)width;
  *n = (size_t)height * (row + 1);
  uint8_t *raw = malloc(*n);
  for (int y = 0; raw && y < height; y++) {
    raw[y * (row + 1)] = 0;
    memcpy(raw + y * (row + 1) + 1, rgb + y * row, row);
  }
  return raw;
}

static bool write_file(FILE *f, const uint8_t *rgb, int width, int height) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  uint8_t ihdr[13];
  put_be32(ihdr, (uint32_t)width);
  put_be32(ihdr + 4, (uint32_t)height);
  ihdr[8] = 8;                         /* bits per channel */
  ihdr[9] = 2;                         /* color type: RGB */
  ihdr[10] = ihdr[11] = ihdr[12] = 0;  /* deflate, adaptive filtering, no interlace */
  size_t nraw, nz;
  uint8_t *raw = scanlines(rgb, width, height, &nraw);
  uint8_t *z = raw ? zlib_stored(raw, nraw, &nz) : NULL;
  bool ok = z && fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
            write_chunk(f, "IDAT", z, nz) && write_chunk(f, "IEND", NULL, 0);
  if (!z)
    errno = ENOMEM;
  free(raw);
  free(z);
  return ok;
}

typedef struct png_job {
  const uint8_t *rgb;
  int width, height;
} png_job;

static bool png_body(FILE *f, void *arg) {
  const png_job *j = arg;
  return write_file(f, j->rgb, j->width, j->height);
}

int png_write(const char *path, const uint8_t *rgb, int width, int height) {
  png_job job = {rgb, width, height};
  sout o;
  errno = 0;
  if (sout_write_file(&o, path, png_body, &job))
    return 0;
  return errno ? errno : EIO;
}
