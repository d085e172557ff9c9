/* CPU count, CPU model and available memory (see sysinfo.h). Linux first, POSIX fallbacks. */
#define _GNU_SOURCE
#include "sysinfo.h"

#include "cpu/cpu.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The CPU backend's own count, the one its thread pool is sized by. */
int sysinfo_cpus(void) { return pscan__cpu_hardware_threads(); }

/* The value of the first line of /proc/cpuinfo starting with key, trimmed, into buf. */
static bool cpuinfo_field(const char *key, char *buf, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return false;
  char line[512];
  bool found = false;
  size_t klen = strlen(key);
  while (!found && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, key, klen) != 0 || !colon)
      continue;
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
      v++;
    size_t n = strcspn(v, "\r\n");
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
      n--;
    if (n == 0)
      continue;
    snprintf(buf, len, "%.*s", (int)n, v);
    found = true;
  }
  fclose(f);
  return found;
}

const char *sysinfo_machine(char *buf, size_t len) {
  char model[256];
  struct utsname u;
  if (!cpuinfo_field("model name", model, sizeof model) &&
      !cpuinfo_field("Model", model, sizeof model)) {
    if (uname(&u) == 0)
      snprintf(model, sizeof model, "%s", u.machine);
    else
      snprintf(model, sizeof model, "unknown CPU");
  }
  int cpus = sysinfo_cpus();
  snprintf(buf, len, "%s, %d cpu%s", model, cpus, cpus == 1 ? "" : "s");
  return buf;
}

size_t sysinfo_available_memory(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    unsigned long long kb = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
      found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    fclose(f);
    if (found)
      return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
  }
#ifdef _SC_AVPHYS_PAGES
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (unsigned long)pages <= SIZE_MAX / (unsigned long)page)
    return (size_t)pages * (size_t)page;
#endif
  return 0;
}

/* user nice system idle iowait irq softirq steal, in clock ticks, from the first line of
   /proc/stat (the sum over all CPUs). */
static bool read_proc_stat(unsigned long long v[8]) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f)
    return false;
  int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
  fclose(f);
  return got == 8;
}

void sysinfo_cpu_snapshot(sysinfo_cpu *s) {
  unsigned long long v[8];
  long tick = sysconf(_SC_CLK_TCK);
  struct rusage ru;
  struct timespec ts;
  s->ok = read_proc_stat(v) && tick > 0 && getrusage(RUSAGE_SELF, &ru) == 0;
  if (!s->ok)
    return;
  s->busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)tick;
  s->steal = (double)v[7] / (double)tick;
  s->self = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  s->wall = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool sysinfo_cpu_others(const sysinfo_cpu *a, const sysinfo_cpu *b, double *others,
                        double *steal) {
  double wall = b->wall - a->wall;
  if (!a->ok || !b->ok || wall <= 0)
    return false;
  /* /proc/stat counts whole clock ticks per CPU, so over a short window its busy time is off by up
     to a tick per CPU (16 CPUs at 100 Hz over 0.1 s: 1.6 CPUs): only what exceeds that counts. */
  const long hz = sysconf(_SC_CLK_TCK);
  const double grain = hz > 0 ? (double)sysinfo_cpus() / (double)hz / wall : 0;
  *others = ((b->busy - a->busy) - (b->self - a->self)) / wall - grain;
  if (*others < 0)
    *others = 0;
  *steal = (b->steal - a->steal) / wall;
  return true;
}

const char *sysinfo_gpu_why(const char *lib_msg) {
  if (access("/proc/driver/nvidia/version", F_OK) == 0)
    return lib_msg;
  void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (cuda) {
    dlclose(cuda);
    return lib_msg;
  }
  return "no NVIDIA driver found (no /proc/driver/nvidia, no libcuda.so.1)";
}
