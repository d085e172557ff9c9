/* A minimal PNG writer for the tool's plots: 8-bit RGB, no library. The image data goes into
 * stored (uncompressed) deflate blocks, so the file is about as large as the pixels (~3 bytes a
 * pixel): plots are small, and a bare Debian with only gcc has no zlib headers. */
#ifndef PSCAN_TOOL_PNG_H
#define PSCAN_TOOL_PNG_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (ISO 3309, as PNG and zlib use it) of p[0..n), continuing from crc (start with 0). */
uint32_t png_crc32(uint32_t crc, const uint8_t *p, size_t n);
/* Adler-32 (RFC 1950) of p[0..n), continuing from adler (start with 1). */
uint32_t png_adler32(uint32_t adler, const uint8_t *p, size_t n);

/* Writes rgb (height rows of width pixels, 3 bytes each, top row first) to path through
   safe_out.h: a temporary file renamed over path once complete (a device or FIFO is written in
   place). Returns 0, or an errno value (the temporary file removed). */
int png_write(const char *path, const uint8_t *rgb, int width, int height);

#endif /* PSCAN_TOOL_PNG_H */
