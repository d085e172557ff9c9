/* A build without cairo draws no chart (plot.h): `pscan bench --plot` is refused up front with
 * PLOT_NEEDS_CAIRO, and the rest of the benchmark runs as usual. */
#include "plot.h"

#include <errno.h>

bool plot_available(void) { return false; }

int plot_write(const plot_chart *c, const char *path) {
  (void)c, (void)path;
  return ENOTSUP;
}
