/* The PNG reader of tests/test_plot.py: decodes FILE with cairo's PNG loader (libpng underneath)
 * and prints one line, "WIDTH HEIGHT COLORS BACKGROUND_SHARE BACKGROUND_RRGGBB": the image's
 * size, how many distinct colors its pixels have, and the most common color (the background)
 * with its share of the pixels. Exit status 1 with a message when cairo cannot decode FILE. */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: png_probe FILE.png\n");
    return 2;
  }
  cairo_surface_t *s = cairo_image_surface_create_from_png(argv[1]);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    fprintf(stderr, "png_probe: %s: %s\n", argv[1],
            cairo_status_to_string(cairo_surface_status(s)));
    cairo_surface_destroy(s);
    return 1;
  }
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  int stride = cairo_image_surface_get_stride(s);
  const unsigned char *data = cairo_image_surface_get_data(s);
  size_t n = (size_t)w * (size_t)h;
  uint32_t *px = malloc(n ? n * sizeof *px : 1);
  if (!px) {
    fprintf(stderr, "png_probe: out of memory\n");
    return 1;
  }
  for (int y = 0; y < h; y++) /* cairo's pixels are native-endian 32-bit words, alpha on top */
    for (int x = 0; x < w; x++)
      px[(size_t)y * (size_t)w + (size_t)x] =
          ((const uint32_t *)(data + (size_t)y * (size_t)stride))[x] & 0xFFFFFFu;
  qsort(px, n, sizeof *px, cmp_u32);
  size_t colors = 0, best = 0, best_run = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && px[j] == px[i])
      j++;
    colors++;
    if (j - i > best_run)
      best_run = j - i, best = i;
    i = j;
  }
  printf("%d %d %zu %.6f %06x\n", w, h, colors, n ? (double)best_run / (double)n : 0.0,
         n ? (unsigned)px[best] : 0u);
  free(px);
  cairo_surface_destroy(s);
  return 0;
}
