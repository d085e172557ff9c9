/* `pscan bench`, the driver: options, and which run they ask for. The CPU sweep (types x sizes x
 * thread counts) is planned here; what one point measures is bench_cpu.c's; --gpu is
 * bench_gpu.c's, --compact bench_compact.c's, --sweep bench_sweep.c's; the table and the CSV are
 * report.c's, the charts bench_plot.c's. None of them includes this file back. */
#define _POSIX_C_SOURCE 200809L
#include "bench_compact.h"
#include "bench_cpu.h"
#include "bench_gpu.h"
#include "bench_plot.h"
#include "bench_sweep.h"
#include "bench_user_op.h"
#include "commands.h"
#include "help.h"
#include "progress.h"
#include "report.h"
#include "cli/cli.h"
#include "cli/sysinfo.h"
#include "peers/peers_cpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_opts {
  size_t sizes[CLI_MAX_LIST];
  int nsizes;
  int threads[CLI_MAX_LIST];
  int nthreads;
  pscan_dtype types[CLI_MAX_LIST];
  int ntypes;
  long reps;
  long partition; /* EXPERIMENTAL_PARTITION_SIZE for pscan's CPU runs; 0: the library's choice */
  bool quick, compact, gpu;
  const char *csv, *plot;
  const char *from_csv; /* --sweep --from-csv FILE: the summary and charts of FILE */
  bool sweep, cpu; /* --sweep (bench_sweep.c); --cpu */
  bool user_op;    /* --user-op (bench_user_op.c) */
  unsigned ops;    /* --ops: bit per sweep_op, 0: all */
} bench_opts;

/* Whether the value of a file option is not empty; false after printing a usage error that
   says the option needs what. */
static bool named(const char *cmd, const char *opt, const char *what, const char *value) {
  if (value[0] != '\0')
    return true;
  cli_usage_error(cmd, "%s needs %s", opt, what);
  return false;
}

static int parse_opts(int argc, char **argv, bench_opts *o, bool *help) {
  const char *cmd = "bench";
  *help = false;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int m;
    if (cli_is_help(argv[i])) {
      *help = true;
      return 0;
    }
    if (strcmp(argv[i], "--quick") == 0) {
      o->quick = true;
    } else if (strcmp(argv[i], "--compact") == 0) {
      o->compact = true;
    } else if (strcmp(argv[i], "--gpu") == 0) {
      o->gpu = true;
    } else if (strcmp(argv[i], "--cpu") == 0) {
      o->cpu = true;
    } else if (strcmp(argv[i], "--sweep") == 0) {
      o->sweep = true;
    } else if (strcmp(argv[i], "--user-op") == 0) {
      o->user_op = true;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--ops", &v)) != 0) {
      if (m < 0 || !sweep_parse_ops(v, &o->ops))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--threads", &v)) != 0) {
      if (m < 0 || !cli_parse_threads(cmd, "--threads", v, o->threads, &o->nthreads))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--sizes", &v)) != 0) {
      if (m < 0 || !cli_parse_sizes(cmd, "--sizes", v, o->sizes, &o->nsizes))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--types", &v)) != 0) {
      if (m < 0 || !cli_parse_types(cmd, "--types", v, o->types, &o->ntypes))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--reps", &v)) != 0) {
      if (m < 0 || !cli_parse_int(cmd, "--reps", v, 1, 1000, &o->reps))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--partition", &v)) != 0) {
      if (m < 0 || !cli_parse_int(cmd, "--partition", v, 64, 1L << 30, &o->partition))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--csv", &o->csv)) != 0) {
      if (m < 0 || !named(cmd, "--csv", "a file name", o->csv))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--from-csv", &o->from_csv)) != 0) {
      if (m < 0 || !named(cmd, "--from-csv", "a file name", o->from_csv))
        return EXIT_USAGE;
    } else if ((m = cli_value(cmd, argc, argv, &i, "--plot", &o->plot)) != 0) {
      if (m < 0 || !named(cmd, "--plot", "a file name prefix", o->plot))
        return EXIT_USAGE;
      if (!plot_available()) { /* before any work; one line, no --help hint: help cannot help */
        cli_error(cmd, "--plot: %s", PLOT_NEEDS_CAIRO);
        return EXIT_USAGE;
      }
    } else if (argv[i][0] == '-') {
      return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      return cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
    }
  }
  return 0;
}

/* Fills what the command line left out, for --quick or the full sweep. */
static void apply_defaults(bench_opts *o) {
  int cpus = sysinfo_cpus();
  if (cpus > CLI_MAX_THREADS)
    cpus = CLI_MAX_THREADS;
  if (o->nthreads == 0) {
    o->threads[o->nthreads++] = 1;
    if (o->quick) {
      if (cpus > 1)
        o->threads[o->nthreads++] = cpus;
    } else { /* powers of two below the core count, then the core count */
      int t = 2;
      for (; t < cpus && o->nthreads < CLI_MAX_LIST - 1; t *= 2)
        o->threads[o->nthreads++] = t;
      if (cpus > 1)
        o->threads[o->nthreads++] = cpus;
    }
  }
  if (o->nsizes == 0) {
    if (o->quick) {
      o->sizes[o->nsizes++] = (size_t)1 << 24;
      o->sizes[o->nsizes++] = (size_t)1 << 26;
    } else {
      for (int e = 10; e <= 28; e += 2)
        o->sizes[o->nsizes++] = (size_t)1 << e;
    }
  }
  if (o->ntypes == 0) {
    o->types[o->ntypes++] = PSCAN_I32;
    if (!o->quick) {
      o->types[o->ntypes++] = PSCAN_I64;
      o->types[o->ntypes++] = PSCAN_F32;
      o->types[o->ntypes++] = PSCAN_F64;
    }
  }
  if (o->reps == 0)
    o->reps = o->quick ? 5 : 7;
}

/* ---- The sweep ---- */

/* Bytes of the two buffers of (type, n), or 0 if that overflows. */
static size_t buffers_bytes(pscan_dtype t, size_t n) {
  size_t es = pscan_dtype_size(t);
  return n > SIZE_MAX / 2 / es ? 0 : 2 * n * es;
}

/* Whether the two buffers of (t, n) fit in 80% of the memory available at the start. */
static bool fits(pscan_dtype t, size_t n) {
  static size_t budget;
  if (!budget) {
    size_t avail = sysinfo_available_memory();
    budget = avail ? avail / 10 * 8 : SIZE_MAX;
  }
  size_t b = buffers_bytes(t, n);
  return b != 0 && b <= budget;
}

/* Says on stderr which (type, size) pairs are skipped for lack of memory; drops the sizes that
   no type can use. *max_bytes gets the largest buffer needed. */
static bool plan_memory(bench_opts *o, size_t *max_bytes) {
  int kept = 0;
  *max_bytes = 0;
  for (int i = 0; i < o->nsizes; i++) {
    size_t n = o->sizes[i];
    bool any = false;
    for (int t = 0; t < o->ntypes; t++) {
      char count[32];
      if (fits(o->types[t], n)) {
        size_t b = buffers_bytes(o->types[t], n) / 2;
        *max_bytes = b > *max_bytes ? b : *max_bytes;
        any = true;
        continue;
      }
      fprintf(stderr, "pscan bench: skipping %s at n = %s: its two buffers (%.1f GiB) do not fit "
                      "in 80%% of the %.1f GiB of memory available\n",
              cli_dtype_name(o->types[t]), cli_format_count(n, count, sizeof count),
              (double)n * (double)pscan_dtype_size(o->types[t]) * 2 / (1 << 30),
              (double)sysinfo_available_memory() / (1 << 30));
    }
    if (any)
      o->sizes[kept++] = n;
  }
  o->nsizes = kept;
  return kept > 0;
}

/* plots: where each group's results are kept for the plots, NULL when none are drawn. */
static int run_sweep(const bench_opts *o, bench_cpu *b, bench_csv *csv, bench_plot *plots,
                     const char *machine) {
  static bench_group g;
  for (int t = 0; t < o->ntypes; t++)
    for (int s = 0; s < o->nsizes; s++) {
      if (!fits(o->types[t], o->sizes[s])) {
        progress_done(o->nthreads);
        continue;
      }
      g.count = 0;
      sysinfo_cpu before, after;
      sysinfo_cpu_snapshot(&before);
      for (int k = 0; k < o->nthreads; k++) {
        bench_point p = {o->types[t], o->sizes[s], o->threads[k], (int)o->reps, k == 0};
        progress_point(&p);
        int rc = bench_cpu_measure(b, &p, g.r + g.count);
        if (rc != 0) {
          progress_clear();
          return rc;
        }
        g.count += bench_cpu_count(&p);
        progress_done(1);
      }
      progress_clear();
      sysinfo_cpu_snapshot(&after);
      g.others_known = sysinfo_cpu_others(&before, &after, &g.others, &g.steal);
      if (!bench_report_group(&g, csv, machine, plots))
        return 1;
    }
  return 0;
}

static void print_header(const bench_opts *o, const char *machine) {
  printf("pscan bench: libpscan %s, CPU backend, inclusive sum, median of %ld runs\n",
         pscan_version_string(), o->reps);
  printf("machine: %s; streaming copy: %s\n", machine, peer_stream_copy_kind());
  /* The library's kernel choices that the environment steers (src/cpu/kernels.c). */
  const char *isa = getenv("PSCAN_CPU_ISA"), *stream = getenv("PSCAN_CPU_STREAM");
  printf("PSCAN_CPU_ISA=%s PSCAN_CPU_STREAM=%s\n", isa ? isa : "(unset: best)",
         stream ? stream : "(unset: auto)");
  if (o->partition > 0)
    printf("partition: %ld elements (--partition)\n", o->partition);
  sysinfo_cpu a, b;
  double others, steal;
  struct timespec pause = {0, 200 * 1000 * 1000};
  sysinfo_cpu_snapshot(&a);
  nanosleep(&pause, NULL);
  sysinfo_cpu_snapshot(&b);
  if (sysinfo_cpu_others(&a, &b, &others, &steal))
    printf("other processes just before the run: %.2f cpus busy%s\n", others + steal,
           others + steal > 0.1 ? " (expect lower, noisier figures)" : "");
  printf("GB/s counts bytes read + written (2 x n x element size; the reduction only reads);\n"
         "'of stream' / 'of memcpy': speed as a fraction of that copy at the same thread count.\n");
  fflush(stdout);
}

/* Drops repeated entries of list (n entries of size bytes), keeping the first of each; returns
   how many are left. */
static int dedupe_list(void *list, int n, size_t size) {
  char *p = list;
  int k = 0;
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < k && memcmp(p + (size_t)j * size, p + (size_t)i * size, size) != 0)
      j++;
    if (j == k)
      memmove(p + (size_t)k++ * size, p + (size_t)i * size, size);
  }
  return k;
}

/* Drops repeated entries of the lists, keeping the first of each. */
static void dedupe(bench_opts *o) {
  o->nthreads = dedupe_list(o->threads, o->nthreads, sizeof o->threads[0]);
  o->nsizes = dedupe_list(o->sizes, o->nsizes, sizeof o->sizes[0]);
  o->ntypes = dedupe_list(o->types, o->ntypes, sizeof o->types[0]);
}

/* ---- pscan bench --gpu (bench_gpu.c) ---- */

static int run_gpu(const bench_opts *o) {
  if (o->compact)
    return cli_usage_error("bench", "--gpu and --compact are separate runs");
  return bench_gpu_run(o->types, o->ntypes, o->sizes, o->nsizes, (int)o->reps, o->csv, o->plot);
}

/* The CSV of the GPU run that follows --quick: FILE with "-gpu" before its extension (out.csv:
   out-gpu.csv; out: out-gpu). */
static const char *gpu_csv_name(const char *path, char *buf, size_t len) {
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base)
    snprintf(buf, len, "%s-gpu", path);
  else
    snprintf(buf, len, "%.*s-gpu%s", (int)(dot - path), path, dot);
  return buf;
}

/* After the CPU run of --quick, the same quick run on the GPU when one is usable (o: the options
   before the CPU's memory plan dropped sizes); CSV and plots under names of their own
   (PREFIX-gpu, out/run.svg: out/run-gpu.svg). */
static int run_quick_gpu(const bench_opts *o) {
  char csv[4096], plot[4096];
  if (!bench_gpu_usable())
    return 0;
  putchar('\n');
  int stem = 0;
  const char *ext = o->plot ? bench_plot_ext(o->plot, &stem) : "";
  snprintf(plot, sizeof plot, "%.*s-gpu%s", stem, o->plot ? o->plot : "", ext);
  return bench_gpu_run(o->types, o->ntypes, o->sizes, o->nsizes, (int)o->reps,
                       o->csv ? gpu_csv_name(o->csv, csv, sizeof csv) : NULL,
                       o->plot ? plot : NULL);
}

/* ---- pscan bench: the CPU sweep ---- */

static int run_cpu(bench_opts o) {
  int rc;
  size_t max_bytes;
  if (!plan_memory(&o, &max_bytes)) {
    cli_error("bench", "no size fits in memory");
    return 1;
  }
  char machine[320];
  sysinfo_machine(machine, sizeof machine);
  bench_csv csv = {NULL, NULL};
  if (o.csv && !bench_csv_open(&csv, o.csv))
    return 1;
  int most_threads = 1;
  for (int i = 0; i < o.nthreads; i++)
    if (o.threads[i] > most_threads)
      most_threads = o.threads[i];
  bench_cpu *b = bench_cpu_create(max_bytes, most_threads, o.partition);
  if (!b) {
    bench_csv_close(&csv, o.csv, false);
    return 1;
  }
  progress_start(o.ntypes * o.nsizes * o.nthreads);
  print_header(&o, machine);
  sysinfo_cpu run_start, run_end;
  sysinfo_cpu_snapshot(&run_start);
  bench_plot plots = {NULL, 0, 0};
  rc = run_sweep(&o, b, &csv, o.plot ? &plots : NULL, machine);
  sysinfo_cpu_snapshot(&run_end);
  double others, steal;
  if (rc == 0 && sysinfo_cpu_others(&run_start, &run_end, &others, &steal))
    printf("\nduring the run, other processes kept %.2f of %d cpus busy on average (hypervisor "
           "steal %.2f)%s\n",
           others, sysinfo_cpus(), steal,
           others + steal > 0.1 ? ": the figures are lower and noisier than on an idle machine"
                                : "");
  bench_cpu_destroy(b);
  if (!bench_csv_close(&csv, o.csv, rc == 0) && rc == 0)
    rc = 1;
  if (rc == 0 && o.csv)
    printf("\nwrote %s\n", o.csv);
  if (rc == 0 && o.plot) {
    putchar('\n');
    rc = bench_plot_write(&plots, o.plot, machine) ? 0 : 1;
  }
  bench_plot_free(&plots);
  fprintf(stderr, "pscan bench: %s in %.1f s\n", rc == 0 ? "done" : "FAILED",
          progress_elapsed());
  return rc;
}

/* ---- pscan bench --sweep (bench_sweep.c) ---- */

static int run_sweep_mode(bench_opts *o) {
  if (o->compact)
    return cli_usage_error("bench", "--sweep and --compact are separate runs");
  dedupe(o);
  if (o->plot && !bench_plot_check(o->plot))
    return 1;
  if (o->from_csv) {
    if (o->csv || o->nsizes || o->ntypes || o->ops || o->nthreads || o->reps || o->quick)
      return cli_usage_error("bench", "--from-csv draws a sweep's CSV again: it takes only "
                                      "--plot and --gpu (its peer is CUB)");
    return bench_sweep_replot(o->from_csv, o->plot, o->gpu);
  }
  int threads = 0;
  for (int i = 0; i < o->nthreads; i++)
    threads = o->threads[i] > threads ? o->threads[i] : threads;
  sweep_opts so = {.sizes = o->nsizes ? o->sizes : NULL, .nsizes = o->nsizes,
                   .types = o->ntypes ? o->types : NULL, .ntypes = o->ntypes, .ops = o->ops,
                   .reps = (int)o->reps, .threads = threads, .quick = o->quick, .csv = o->csv,
                   .plot = o->plot};
  return bench_sweep_run(&so, o->gpu);
}

/* ---- pscan bench --gpu --user-op (bench_user_op.c) ---- */

static int run_user_op(bench_opts *o) {
  const char *cmd = "bench";
  if (o->compact || o->sweep)
    return cli_usage_error(cmd, "--user-op and %s are separate runs",
                           o->compact ? "--compact" : "--sweep");
  if (o->ntypes || o->partition || (o->gpu && o->nthreads))
    return cli_usage_error(cmd, "--user-op measures its own element types%s: %s does not apply",
                           o->gpu ? " on the GPU" : "",
                           o->ntypes ? "--types" : o->partition ? "--partition" : "--threads");
  if (o->nsizes == 0) { /* the GPU up to 2^28, the CPU (three buffers) up to 2^26 */
    int top = o->quick ? 24 : o->gpu ? 28 : 26;
    for (int e = o->quick ? 20 : 16; e <= top; e += o->quick ? 4 : 2)
      o->sizes[o->nsizes++] = (size_t)1 << e;
  }
  if (!o->gpu && o->nthreads == 0) { /* one thread and all cores */
    int cpus = sysinfo_cpus() < CLI_MAX_THREADS ? sysinfo_cpus() : CLI_MAX_THREADS;
    o->threads[o->nthreads++] = 1;
    if (cpus > 1)
      o->threads[o->nthreads++] = cpus;
  }
  if (o->reps == 0)
    o->reps = o->quick ? 5 : 7;
  dedupe(o);
  if (o->plot && !bench_plot_check(o->plot))
    return 1;
  if (!o->gpu)
    return bench_user_op_cpu_run(o->sizes, o->nsizes, o->threads, o->nthreads, (int)o->reps,
                                 o->quick, o->csv, o->plot);
  return bench_user_op_run(o->sizes, o->nsizes, (int)o->reps, o->quick, o->csv, o->plot);
}

/* The run the options ask for; its exit status. */
static int run(bench_opts *o) {
  if (o->cpu && o->gpu)
    return cli_usage_error("bench", "--cpu and --gpu are separate runs");
  if (o->user_op)
    return run_user_op(o);
  if ((o->ops || o->from_csv) && !o->sweep)
    return cli_usage_error("bench", "%s goes with --sweep", o->ops ? "--ops" : "--from-csv");
  if (o->sweep)
    return run_sweep_mode(o);
  if (o->compact && o->nsizes == 0) {
    o->sizes[o->nsizes++] = (size_t)1 << 24;
    if (!o->quick)
      o->sizes[o->nsizes++] = (size_t)1 << 28;
  }
  apply_defaults(o);
  dedupe(o);
  if (o->plot && !bench_plot_check(o->plot)) /* now, not after a long run */
    return 1;
  if (o->gpu)
    return run_gpu(o);
  if (o->compact)
    return bench_compact_run(o->sizes, o->nsizes, o->threads, o->nthreads, (int)o->reps, o->csv,
                             o->plot);
  int rc = run_cpu(*o);
  return rc == 0 && o->quick ? run_quick_gpu(o) : rc;
}

int cmd_bench(int argc, char **argv) {
  bench_opts o = {.nsizes = 0};
  bool help;
  int rc = parse_opts(argc, argv, &o, &help);
  if (rc != 0 || help) {
    if (help)
      bench_print_help();
    return rc;
  }
  rc = run(&o);
  if (rc == 0 && !plot_available()) /* where the figures could have been drawn */
    printf("\nplots: %s\n", PLOT_NEEDS_CAIRO);
  return rc;
}
