/* `pscan trace`: the textbook scan algorithms, simulated step by step on a small array.
 *
 * A teaching tool: every algorithm is written as plain sequential C that follows the figure in
 * the paper or the textbook (it does not call the library's kernels; trace_algos.c). After every
 * step the array is printed; at the end, the depth (steps that contain a combine) and the work
 * (combines performed), and a check against a plain sequential scan. `--svg FILE` draws the
 * network (trace_svg.c): one column per element, one row per step, a line from each operand to
 * the element it updates. This file holds the command: its help, its arguments, the run. */
#include "trace_impl.h"
#include "commands.h"
#include "cli/cli.h"
#include "io/safe_out.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const CMD = "trace";

/* ---- the command ---- */

typedef enum {
  A_HILLIS_STEELE,
  A_KOGGE_STONE,
  A_BRENT_KUNG,
  A_BLELLOCH,
  A_SKLANSKY,
  A_HYBRID,
  A_HIERARCHICAL,
  A_DECOUPLED,
  A_COUNT
} trace_algo;

static const char *const algo_names[A_COUNT] = {
    "hillis-steele", "kogge-stone", "brent-kung", "blelloch",
    "sklansky",      "hybrid",      "hierarchical", "decoupled-lookback"};

static void print_help(void) {
  printf(
      "usage: pscan trace --algo NAME [--exclusive] [--op sum|max|min|prod] [--svg FILE]\n"
      "                   [--partition N] [--width W] VALUES...\n"
      "\n"
      "Simulates a textbook parallel scan on a few integers (1 to %d; '-' reads them from stdin)\n"
      "and prints the array after every step, as the figures in the papers and lecture notes\n"
      "show it; then the depth (steps that combine) and the work (combines performed), and a\n"
      "check against a plain sequential scan. The simulation is plain sequential C, not the\n"
      "library's kernels.\n"
      "\n"
      "algorithms (--algo):\n"
      "  hillis-steele       Hillis & Steele 1986: step d = 1, 2, 4, ...: x[i] = x[i-d] + x[i]\n"
      "                      for every i >= d at once. Depth log n, work n log n.\n"
      "                        pscan trace --algo hillis-steele 3 1 7 0 4 1 6 3\n"
      "  kogge-stone         Kogge & Stone 1973: the same network as hillis-steele.\n"
      "                        pscan trace --algo kogge-stone 4 6 7 1 2 8 5 2\n"
      "  brent-kung          Brent & Kung 1982: up-sweep (a reduction tree), then a down-sweep\n"
      "                      x[i] = x[i-d] + x[i] at i = (k+1)*2d-1+d. Depth 2 log n - 1, work\n"
      "                      2n - 2 - log n.\n"
      "                        pscan trace --algo brent-kung 3 1 7 0 4 1 6 3\n"
      "  blelloch            Blelloch 1990: up-sweep, set the last element to the identity,\n"
      "                      down-sweep with swaps. An exclusive scan (depth 2 log n, work\n"
      "                      2(n-1)); inclusive adds a final step combining with the input.\n"
      "                        pscan trace --algo blelloch --exclusive 3 1 7 0 4 1 6 3\n"
      "  sklansky            Sklansky 1960: step s: every element in the upper half of each\n"
      "                      2^(s+1) block adds the last element of its lower half. Depth log n,\n"
      "                      work (n/2) log n.\n"
      "                        pscan trace --algo sklansky 3 1 7 0 4 1 6 3\n"
      "  hybrid              Sengupta, Lefohn & Owens 2006: up-sweep until W partials remain\n"
      "                      (--width W, a power of two, default 4), Kogge-Stone over them,\n"
      "                      then the down-sweep.\n"
      "                        pscan trace --algo hybrid --width 4 3 1 7 0 4 1 6 3\n"
      "  hierarchical        Kirk & Hwu ch. 9: scan every block of N (--partition N, default 4),\n"
      "                      scan the block sums, add each block sum to the next block.\n"
      "                        pscan trace --algo hierarchical --partition 4 4 6 7 1 2 8 5 2\n"
      "  decoupled-lookback  Merrill & Garland 2016: partitions of N (--partition N, default 2)\n"
      "                      on a fixed, staggered schedule; after every step, the table of\n"
      "                      partition descriptors (flag X/A/P, aggregate, inclusive prefix) and\n"
      "                      what each look-back read, as in the paper's Figure 6.\n"
      "                        pscan trace --algo decoupled-lookback 4 6 7 1 2 8 5 2\n"
      "\n"
      "options:\n"
      "  --algo NAME        one of the algorithms above (required)\n"
      "  --exclusive        exclusive scan (identity first); the default is inclusive. Every\n"
      "                     algorithm but blelloch does it by shifting the input right and\n"
      "                     inserting the identity first, and says so.\n"
      "  --op OP            sum (default), max, min or prod (sums and products wrap at 64 bits)\n"
      "  --svg FILE         also draw the network as SVG: one column per element, one row per\n"
      "                     step, a line from each operand to the element it updates\n"
      "  --partition N      block size of hierarchical (default 4) and decoupled-lookback\n"
      "                     (default 2), 1 to %d\n"
      "  --width W          partials left to Kogge-Stone in hybrid (default 4)\n"
      "\n"
      "Lengths that are not powers of two are padded with the identity for brent-kung, blelloch\n"
      "and hybrid (the trace says so); the other algorithms handle the bounds.\n"
      "\n"
      "Examples:\n"
      "  pscan trace --algo kogge-stone 4 6 7 1 2 8 5 2\n"
      "  echo 3 1 7 0 4 1 6 3 | pscan trace --algo blelloch --exclusive -\n"
      "  pscan trace --algo brent-kung --svg bk.svg 3 1 7 0 4 1 6 3\n"
      "\n"
      "Exit status: 0 the result matches the sequential scan, 1 it does not (or the SVG could\n"
      "not be written), 2 a usage error.\n",
      MAXV, MAXV);
}

static bool parse_value(const char *s, int64_t *out, bool *range) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0')
    return false;
  *range = errno == ERANGE;
  *out = (int64_t)v;
  return !*range;
}

/* Adds one value; false after a usage error. */
static bool add_value(const char *text, int64_t *vals, int *n) {
  int64_t v;
  bool range = false;
  if (!parse_value(text, &v, &range)) {
    if (range)
      cli_usage_error(CMD, "%s is out of range (a 64-bit integer)", text);
    else
      cli_usage_error(CMD, "'%s' is not an integer", text);
    return false;
  }
  if (*n >= MAXV) {
    cli_usage_error(CMD, "more than %d values", MAXV);
    return false;
  }
  vals[(*n)++] = v;
  return true;
}

static bool read_stdin(int64_t *vals, int *n) {
  char tok[64];
  int c = getchar();
  for (;;) {
    while (c != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','))
      c = getchar();
    if (c == EOF)
      return true;
    size_t len = 0;
    while (c != EOF && !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',')) {
      if (len + 1 < sizeof tok)
        tok[len++] = (char)c;
      else {
        cli_usage_error(CMD, "stdin: a value longer than %zu characters", sizeof tok - 1);
        return false;
      }
      c = getchar();
    }
    tok[len] = '\0';
    if (!add_value(tok, vals, n))
      return false;
  }
}

static bool is_value_arg(const char *a) {
  return a[0] != '-' || (a[1] >= '0' && a[1] <= '9');
}

int cmd_trace(int argc, char **argv) {
  int algo = -1;
  trace_op op = OP_SUM;
  bool exclusive = false, used_stdin = false;
  const char *svg = NULL;
  long partition = 0, width = 4;
  int64_t vals[MAXV];
  int n = 0;
  bool only_values = false;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int r;
    if (!only_values && cli_is_help(a)) {
      print_help();
      return 0;
    }
    if (only_values || is_value_arg(a)) {
      if (!add_value(a, vals, &n))
        return EXIT_USAGE;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_values = true;
    } else if (strcmp(a, "-") == 0) {
      if (used_stdin)
        return cli_usage_error(CMD, "'-' given twice");
      used_stdin = true;
      if (!read_stdin(vals, &n))
        return EXIT_USAGE;
    } else if (strcmp(a, "--exclusive") == 0) {
      exclusive = true;
    } else if (strcmp(a, "--inclusive") == 0) {
      exclusive = false;
    } else if ((r = cli_value(CMD, argc, argv, &i, "--algo", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      algo = -1;
      for (int k = 0; k < A_COUNT; k++)
        if (strcmp(v, algo_names[k]) == 0)
          algo = k;
      if (algo < 0)
        return cli_usage_error(CMD, "unknown algorithm '%s'", v);
    } else if ((r = cli_value(CMD, argc, argv, &i, "--op", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      if (strcmp(v, "sum") == 0)
        op = OP_SUM;
      else if (strcmp(v, "prod") == 0)
        op = OP_PROD;
      else if (strcmp(v, "max") == 0)
        op = OP_MAX;
      else if (strcmp(v, "min") == 0)
        op = OP_MIN;
      else
        return cli_usage_error(CMD, "unknown operator '%s' (sum, max, min, prod)", v);
    } else if ((r = cli_value(CMD, argc, argv, &i, "--svg", &v)) != 0) {
      if (r < 0)
        return EXIT_USAGE;
      svg = v;
    } else if ((r = cli_value(CMD, argc, argv, &i, "--partition", &v)) != 0) {
      if (r < 0 || !cli_parse_int(CMD, "--partition", v, 1, MAXV, &partition))
        return EXIT_USAGE;
    } else if ((r = cli_value(CMD, argc, argv, &i, "--width", &v)) != 0) {
      if (r < 0 || !cli_parse_int(CMD, "--width", v, 1, MAXV, &width))
        return EXIT_USAGE;
      if (width & (width - 1))
        return cli_usage_error(CMD, "--width: %ld is not a power of two", width);
    } else {
      return cli_usage_error(CMD, "unknown option '%s'", a);
    }
  }
  if (algo < 0)
    return cli_usage_error(CMD, "--algo is required");
  if (n == 0)
    return cli_usage_error(CMD, "no values given");
  if (partition == 0)
    partition = algo == A_DECOUPLED ? 2 : 4;
  char why[SOUT_ERR_LEN];
  if (svg && !sout_check(svg, why, sizeof why)) { /* before the trace is printed */
    cli_error(CMD, "%s", why);
    return 1;
  }
  sout_catch_signals();

  trace_ctx *t = calloc(1, sizeof *t);
  trace_row *rows = calloc(MAXROWS, sizeof *rows);
  if (!t || !rows) {
    free(t);
    free(rows);
    cli_error(CMD, "out of memory");
    return 1;
  }
  t->rows = rows;
  t->op = op;
  t->exclusive = exclusive;

  /* the sequential reference, and the printed width */
  int64_t ref[MAXV];
  int64_t acc = trace_identity(op);
  for (int i = 0; i < n; i++) {
    int64_t nx = trace_apply(op, acc, vals[i]);
    ref[i] = exclusive ? acc : nx;
    acc = nx;
  }
  t->width = 2;
  for (int i = 0; i < n; i++) {
    char b1[32], b2[32];
    trace_format_value(t, vals[i], b1, sizeof b1);
    trace_format_value(t, ref[i], b2, sizeof b2);
    if ((int)strlen(b1) > t->width)
      t->width = (int)strlen(b1);
    if ((int)strlen(b2) > t->width)
      t->width = (int)strlen(b2);
  }
  char idtxt[32];
  trace_format_value(t, trace_identity(op), idtxt, sizeof idtxt);
  if ((int)strlen(idtxt) > t->width)
    t->width = (int)strlen(idtxt);

  printf("pscan trace: %s, %s %s scan of %d value%s\n", algo_names[algo],
         exclusive ? "exclusive" : "inclusive", trace_op_name(op), n, n == 1 ? "" : "s");
  if (algo == A_HILLIS_STEELE)
    printf("  (Hillis & Steele's scan is the same network as Kogge & Stone's)\n");
  if (algo == A_KOGGE_STONE)
    printf("  (Kogge & Stone's network is the same as Hillis & Steele's scan)\n");

  int64_t x[MAXV];
  memcpy(x, vals, (size_t)n * sizeof *x);
  trace_record(t, "input", x, n);

  int len = n; /* array length after padding */
  if (algo == A_BLELLOCH) {
    int64_t in[MAXV];
    len = trace_pad(t, x, n);
    memcpy(in, x, (size_t)len * sizeof *x);
    if (!exclusive)
      printf("  (Blelloch's scan produces the exclusive scan; the inclusive one then combines it "
             "with the input)\n");
    trace_blelloch_exclusive(t, x, len);
    if (!exclusive) {
      for (int i = 0; i < len; i++) {
        x[i] = trace_combine(t, x[i], in[i]);
        trace_add_edge(t, i, i, EDGE_COMBINE);
      }
      trace_step(t, x, len, "combine with input");
    }
  } else {
    if (exclusive) {
      printf("  (exclusive: shift right and insert the identity %s first, then scan "
             "inclusively)\n",
             idtxt);
      for (int i = n - 1; i > 0; i--) {
        x[i] = x[i - 1];
        trace_add_edge(t, i - 1, i, EDGE_MOVE);
      }
      x[0] = trace_identity(op);
      trace_record(t, "shifted", x, n);
    }
    switch ((trace_algo)algo) {
    case A_HILLIS_STEELE:
    case A_KOGGE_STONE: trace_kogge_stone(t, x, n); break;
    case A_BRENT_KUNG: len = trace_brent_kung(t, x, n); break;
    case A_SKLANSKY: trace_sklansky(t, x, n); break;
    case A_HYBRID: len = trace_hybrid(t, x, n, (int)width); break;
    case A_HIERARCHICAL: trace_hierarchical(t, x, n, (int)partition); break;
    case A_DECOUPLED: trace_decoupled_lookback(t, x, n, (int)partition); break;
    default: break;
    }
  }
  (void)len;
  /* the result: the first n elements (padding dropped) */
  trace_print_values(t, "result", x, NULL, n);
  printf("depth (steps): %ld, work (operations): %ld\n", t->depth, t->work);
  int rc = 0;
  if (memcmp(x, ref, (size_t)n * sizeof *x) == 0) {
    printf("result matches the sequential scan\n");
  } else {
    printf("result DOES NOT match the sequential scan:\n");
    trace_print_values(t, "sequential", ref, NULL, n);
    rc = 1;
  }
  if (svg) {
    char title[160];
    snprintf(title, sizeof title, "%s, %s %s scan of %d values", algo_names[algo],
             exclusive ? "exclusive" : "inclusive", trace_op_name(op), n);
    if (!trace_write_svg(t, svg, title))
      rc = 1;
    else
      printf("network drawn in %s\n", svg);
  }
  free(rows);
  free(t);
  return rc;
}