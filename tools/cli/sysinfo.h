/* What the tool needs to know about the machine it runs on. */
#ifndef PSCAN_TOOL_SYSINFO_H
#define PSCAN_TOOL_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

/* CPUs this process may run on (its affinity mask), else the online CPUs; at least 1. */
int sysinfo_cpus(void);

/* "Intel(R) Xeon(R) Processor, 2 cpus": the CPU model (from /proc/cpuinfo where there is one)
   and sysinfo_cpus(). Written into buf; returns buf. */
const char *sysinfo_machine(char *buf, size_t len);

/* Bytes of memory available to a new allocation without swapping (MemAvailable), or 0 if
   unknown. */
size_t sysinfo_available_memory(void);

/* CPU time counters, to tell how much of the machine other processes took while we measured
   (Linux /proc/stat; ok is false elsewhere). */
typedef struct sysinfo_cpu {
  bool ok;
  double busy;  /* CPU-seconds busy, all processes, all CPUs */
  double steal; /* CPU-seconds taken by the hypervisor */
  double self;  /* CPU-seconds used by this process */
  double wall;  /* monotonic seconds */
} sysinfo_cpu;

void sysinfo_cpu_snapshot(sysinfo_cpu *s);
/* Between snapshots a and b: the average number of CPUs kept busy by other processes (beyond what
   the clock ticks of /proc/stat can tell apart over that window), and by the hypervisor (steal).
   False if unknown. */
bool sysinfo_cpu_others(const sysinfo_cpu *a, const sysinfo_cpu *b, double *others,
                        double *steal);

/* Why no CUDA context could be made, for a message: "no NVIDIA driver found" when this machine
   has no NVIDIA kernel driver (/proc/driver/nvidia) and no driver library (libcuda.so.1) — the
   CUDA runtime then reports an "insufficient driver version", which misleads — else lib_msg. */
const char *sysinfo_gpu_why(const char *lib_msg);

#endif /* PSCAN_TOOL_SYSINFO_H */
