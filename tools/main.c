/* pscan — the command-line tool of libpscan.
 *
 * `pscan COMMAND [OPTIONS]`, one entry per command in the table below; each command parses its
 * own options and has its own --help. Without a command, pscan runs the main job: the self-check,
 * then the quick benchmark. The file commands (scan, select, ..., scan-by-key) are cmd_files.c. */
#include "commands.h"
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"selfcheck", "check every CPU algorithm against plain loops", cmd_selfcheck},
    {"bench", "measure scans against memcpy and a streaming copy", cmd_bench},
    {"trace", "show a textbook scan algorithm step by step on a few values", cmd_trace},
    {"scan", "prefix scan of a file (.npy, text, raw): sum prod min max and or xor", cmd_scan},
    {"reduce", "the scan's last element alone: a file's sum, product, min, max, ...", cmd_reduce},
    {"select", "keep the elements that compare true with a value", cmd_select},
    {"select-flagged", "keep the elements whose flag is non-zero", cmd_select_flagged},
    {"partition", "selected elements first, then the rest (reversed)", cmd_partition},
    {"unique", "drop consecutive duplicates", cmd_unique},
    {"rle", "run-length encode: values and run lengths", cmd_rle},
    {"reduce-by-key", "reduce the values of each run of equal keys", cmd_reduce_by_key},
    {"scan-by-key", "a scan that restarts at every new key (segmented scan)", cmd_scan_by_key},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void print_help(void) {
  printf("usage: pscan [COMMAND] [OPTIONS]\n"
         "       pscan --help | --version\n"
         "\n"
         "Parallel prefix scans (libpscan %s).\n"
         "\n"
         "Without a command, pscan runs the main job: 'pscan selfcheck' and, if it passes,\n"
         "'pscan bench --quick', which measures the GPU too when one is usable.\n"
         "\n"
         "commands:\n",
         pscan_version_string());
  for (int i = 0; i < NCOMMANDS; i++)
    printf("  %-15s %s\n", commands[i].name, commands[i].summary);
  printf("\n"
         "'pscan COMMAND --help' explains a command. Examples:\n"
         "  pscan                                   self-check, then a quick benchmark\n"
         "  pscan bench --sizes 2^20,2^26 --threads 1,2 --types i32,f64 --csv out.csv\n"
         "  pscan trace --algo blelloch --exclusive 3 1 7 0 4 1 6 3\n"
         "  pscan scan --op max data.npy running_max.npy\n"
         "  pscan select --cmp gt --value 0 in.txt positive.txt\n"
         "\n"
         "Exit status: 0 success, 1 a check or the work failed, 2 a usage error.\n");
}

static int main_job(void) {
  char sc[] = "selfcheck", bench[] = "bench", quick[] = "--quick";
  char *sc_argv[] = {sc, NULL}, *bench_argv[] = {bench, quick, NULL};
  int rc = cmd_selfcheck(1, sc_argv);
  if (rc != 0)
    return rc;
  putchar('\n');
  return cmd_bench(2, bench_argv); /* the GPU's quick run too, when one is usable */
}

int main(int argc, char **argv) {
  if (argc < 2)
    return main_job();
  const char *arg = argv[1];
  if (cli_is_help(arg)) {
    print_help();
    return 0;
  }
  if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
    printf("pscan %s\n", pscan_version_string());
    return 0;
  }
  for (int i = 0; i < NCOMMANDS; i++)
    if (strcmp(arg, commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  if (arg[0] == '-')
    return cli_usage_error(NULL, "unknown option '%s'", arg);
  return cli_usage_error(NULL, "unknown command '%s'", arg);
}
