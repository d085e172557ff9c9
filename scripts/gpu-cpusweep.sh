#!/usr/bin/env bash
# The CPU sweep on the device machine's 16-core host, in one call (no GPU used):
#   scripts/gpu-cpusweep.sh [build] [check] [sweep] [partab] [threads]  (default: build check sweep)
# build:  CPU-only build (-DPSCAN_CUDA=OFF, -j16) of the tool in build-cpusweep.
# check:  the scan against the copy by both benchmarks at the same points (i32, f64 and i8, n =
#         $CHECK_N, 2^20 and 2^28 unless set; $THREADS threads, 16 unless set): `pscan bench --cpu` (its
#         pscan auto and streaming copy) and the sweep's scan point (`--sweep --ops scan`). They
#         share one timing method (tools/bench/rounds.c): their % of copy should agree within
#         the machine's noise (a few points). At 2^20 the old sweep read 1-6 GB/s for several
#         dtypes (OpenMP's spinning threads); there (copies up to 32 MiB) the sweep's copy is the
#         faster of the streaming copy and one thread's memcpy: compare pscan's GB/s. i8 has no SIMD kernel: if both say ~25-35% of the
#         copy there, that is the kernel's speed, not the timing.
# sweep:  the whole CPU sweep -> $OUT/compact_sweep_cpu16.csv (progress on stderr, kept in
#         $OUT/sweep.err: a line per block with the elapsed seconds).
# partab: A/B of the CPU compaction partitions, PSCAN_CPU_COMPACT_PARTITION = positions (the
#         default), items, scan (src/cpu/backend.c), alternating, $PARTAB_ROUNDS rounds (2): the
#         run ops, select_if and partition_if, i32 and i64, n = $PARTAB_N (2^25: >= 64 MiB, where
#         the "scan" rule takes its larger partitions) -> $OUT/partab-SETTING-ROUND.csv. Run it in
#         a call of its own (`build partab`).
# threads: the whole sweep at n = $THREADS_N (2^20) on each of $THREADS_LIST threads ("4 8 16"),
#         alternating, $THREADS_ROUNDS rounds (2) -> $OUT/threads-T-ROUND.csv: whether a small
#         input runs faster on fewer threads than AUTO gives it (pscan's own GB/s per op, median
#         over the points; the copy is on as many threads, so compare the pscan column).
# Summary on stdout (and $OUT/cpusweep-summary.txt): the check's scan and copy figures first,
# then the worst point per op as % of the copy; for partab, the median % of copy per op and
# setting. $SWEEP_ARGS: extra arguments for the sweep step (e.g. --sizes 2^24).
# Results go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" cpusweep-summary.txt "build check sweep" -- "$@"
B=build-cpusweep
T=${THREADS:-16}
CN=${CHECK_N:-2^20,2^28}
PN=${PARTAB_N:-2^25}
log "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}, $T threads"

# What else could take the cores or the memory: the busiest processes, the OpenMP variables,
# transparent huge pages, swap.
{ ps -eo pcpu,comm --sort=-pcpu | head -6; env | grep -E '^(OMP|GOMP|KMP)_' || echo "no OMP_* / GOMP_*"
  cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; free -g; } >"$OUT/host.txt" 2>&1

if has build; then
  t0=$SECONDS
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=OFF >"$OUT/build.log" 2>&1 &&
    cmake --build $B -j16 --target pscan_tool >>"$OUT/build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
  grep -m1 "C++ peers" "$OUT/build.log" | sed 's/^-- //' | tee -a "$OUT/cpusweep-summary.txt"
  log "built in $((SECONDS - t0)) s"
fi
[ -x "$B/pscan" ] || { log "no $B/pscan: run the build step first"; exit 1; }

# The median % of copy per op of a sweep CSV (python3 where there is one, else awk's mean).
per_op() {
  python3 - "$1" <<'EOF' 2>/dev/null || awk -F, 'NR > 1 && $8 > 0 { s[$1] += $6 / $8; c[$1]++ }
      END { for (o in s) printf "  %-18s %6.1f%% (mean)\n", o, 100 * s[o] / c[o] }' "$1"
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    if float(r["copy_GBps"]) > 0:
        by.setdefault(r["op"], []).append(100 * float(r["pscan_GBps"]) / float(r["copy_GBps"]))
for op, v in by.items():
    print(f"  {op:18s} {statistics.median(v):6.1f}% median, {min(v):6.1f}% worst ({len(v)} points)")
EOF
}

if has check; then
  log "check: pscan bench --cpu and the sweep's scan point, i32, f64 and i8, n = $CN, $T threads"
  t0=$SECONDS
  if "./$B/pscan" bench --cpu --sizes "$CN" --types i32,f64,i8 --threads "$T" --reps 7 \
      --csv "$OUT/check-bench.csv" >"$OUT/check-bench.txt" 2>&1; then
    awk -F, '$1 == "stream-copy" && $4 == T { c[$3 " " $5] = $8 }
             $1 == "pscan" && $2 == "auto" && $4 == T { p[$3 " " $5] = $8; f[$3 " " $5] = $9 }
             END { for (k in p) { split(k, a, " ")
                   printf "  bench --cpu  %-4s n=%-10s pscan %6.1f GB/s  streaming copy %6.1f GB/s  %5.1f%% of copy\n",
                   a[1], a[2], p[k], c[k], 100 * f[k] } }' T="$T" "$OUT/check-bench.csv" | sort |
      tee -a "$OUT/cpusweep-summary.txt"
  else
    status=1; log "bench --cpu FAILED"; tail -5 "$OUT/check-bench.txt"
  fi
  if "./$B/pscan" bench --cpu --sweep --ops scan --types i32,f64,i8 --sizes "$CN" --threads "$T" \
      --csv "$OUT/check-sweep.csv" >"$OUT/check-sweep.txt" 2>&1; then
    awk -F, 'NR > 1 { printf "  sweep        %-4s n=%-10s pscan %6.1f GB/s  copy           %6.1f GB/s  %5.1f%% of copy\n",
                 $2, $3, $6, $8, 100 * $6 / $8 }' "$OUT/check-sweep.csv" | sort | tee -a "$OUT/cpusweep-summary.txt"
  else
    status=1; log "sweep check FAILED"; tail -5 "$OUT/check-sweep.txt"
  fi
  grep -h "^during the" "$OUT/check-bench.txt" "$OUT/check-sweep.txt" | sed 's/^/  /' |
    tee -a "$OUT/cpusweep-summary.txt"
  log "check: $((SECONDS - t0)) s"
fi

if has sweep; then
  log "pscan bench --cpu --sweep --threads $T ${SWEEP_ARGS:-}"
  t0=$SECONDS
  # shellcheck disable=SC2086 # SWEEP_ARGS is a list of arguments
  "./$B/pscan" bench --cpu --sweep --threads "$T" ${SWEEP_ARGS:-} \
    --csv "$OUT/compact_sweep_cpu16.csv" >"$OUT/sweep.txt" 2>"$OUT/sweep.err" ||
    { status=1; log "SWEEP FAILED"; tail -5 "$OUT/sweep.err"; }
  log "sweep: $((SECONDS - t0)) s"
  # the worst point per op as % of copy, and the run's disturbance
  sed -n '/^summary/,/^wrote/p' "$OUT/sweep.txt" | grep -E "worst|other processes" |
    sed -E 's/worst x peer: +[0-9.]+x \([^)]*\) +//' | tee -a "$OUT/cpusweep-summary.txt"
  disturbed=$(grep -c "other processes:" "$OUT/sweep.txt" || true)
  log "points measured while other processes kept > 0.25 cpus busy: $disturbed"
fi

if has partab; then
  rounds=${PARTAB_ROUNDS:-2}
  settings=${PARTAB:-positions items scan}
  ops=unique,run_length_encode,reduce_by_key,scan_by_key,select_if,partition_if
  log "partab: PSCAN_CPU_COMPACT_PARTITION = $settings, $rounds rounds, $ops, i32/i64, n = $PN"
  t0=$SECONDS
  for r in $(seq 1 "$rounds"); do
    for s in $settings; do
      PSCAN_CPU_COMPACT_PARTITION=$s "./$B/pscan" bench --cpu --sweep --threads "$T" --ops $ops \
        --types i32,i64 --sizes "$PN" --csv "$OUT/partab-$s-$r.csv" >"$OUT/partab-$s-$r.txt" \
        2>&1 || { status=1; log "partab $s round $r FAILED"; tail -5 "$OUT/partab-$s-$r.txt"; }
      log "partab $s round $r: $((SECONDS - t0)) s"
      [ -f "$OUT/partab-$s-$r.csv" ] && per_op "$OUT/partab-$s-$r.csv" | sort | tee -a "$OUT/cpusweep-summary.txt"
    done
  done
fi
if has threads; then
  rounds=${THREADS_ROUNDS:-2}
  list=${THREADS_LIST:-4 8 16}
  tn=${THREADS_N:-2^20}
  log "threads: --threads $list, $rounds rounds, n = $tn, pscan GB/s (median over the points / worst)"
  t0=$SECONDS
  for r in $(seq 1 "$rounds"); do
    for t in $list; do
      "./$B/pscan" bench --cpu --sweep --threads "$t" --sizes "$tn" \
        --csv "$OUT/threads-$t-$r.csv" >"$OUT/threads-$t-$r.txt" 2>&1 ||
        { status=1; log "threads $t round $r FAILED"; tail -5 "$OUT/threads-$t-$r.txt"; }
      log "threads $t round $r: $((SECONDS - t0)) s"
      python3 - "$OUT/threads-$t-$r.csv" <<'EOF' | sort | sed "s/^/  t=$t r=$r /" | tee -a "$OUT/cpusweep-summary.txt"
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    by.setdefault(r["op"] + " " + r["key_type"], []).append(float(r["pscan_GBps"]))
for k, v in by.items():
    print(f"{k:24s} median {statistics.median(v):7.1f}  worst {min(v):7.1f} GB/s ({len(v)} points)")
EOF
    done
  done
fi
log "done, status $status (files under $OUT)"
exit "$status"
