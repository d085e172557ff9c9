#!/usr/bin/env bash
# The CPU backend's axis and segmented scans on the device machine's 16-core host (no GPU used):
#   scripts/gpu-cpuaxis.sh [build] [test] [bench] [ab]    (default: build test bench)
# build: CPU-only build (-DPSCAN_CUDA=OFF, Release, -j16) of test_axis and pscan_axis_bench in
#        build-cpuaxis.
# test:  test_axis --backend cpu (1-3 threads), and once more with every side-by-side look-back
#        taking over its predecessors (PSCAN_CPU_AXIS_TAKEOVER=1, streaming forced, quick).
# bench: pscan_axis_bench on $THREADS threads (16 unless set), $ROUNDS rounds (2 unless set):
#        every axis shape for f32, i32 and f64, then the segmented scans (f32, i32), each against
#        the streaming copy of the same bytes in the same run (medians of $REPS, 11 unless set)
#        -> $OUT/cpuaxis-ROUND.csv.
# ab:    (16384,16384) axis 0 (f32, i32, f64) with its columns cut into units of their own (the
#        default: 32 units of 512 columns on 16 threads, one pass each) against the row chunks
#        with a look-back (PSCAN_CPU_AXIS_SIDE_MIN_BYTES=16384: 4 units of 4096 columns),
#        alternating, $ROUNDS rounds -> $OUT/cpuaxis-ab-SETTING-ROUND.txt; run it as `build ab`.
#        $AB_SETTINGS lists other settings: B (PSCAN_CPU_AXIS_SIDE_MIN_BYTES=B) or BuK (and
#        PSCAN_CPU_AXIS_SIDE_UNITS=K, units a thread), e.g. "default 4096 4096u1 16384"; 0u2 is
#        the rule before one-unit-a-thread pages. $AB_SHAPES: other shapes than (16384,16384).
# Summary on stdout (and $OUT/cpuaxis-summary.txt): per case the % of the copy of each round
# beside the figure recorded before this change (bench/results/axis_cpu16.csv; "-" where it
# has none). Targets: (16384,16384) both axes and (1048576,64) axis 0 >= 80%; the other shapes
# no worse than before.
# Results go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" cpuaxis-summary.txt "build test bench" -- "$@"
B=build-cpuaxis
T=${THREADS:-16}
R=${ROUNDS:-2}
REPS=${REPS:-11}
log "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}, $T threads"
{ ps -eo pcpu,comm --sort=-pcpu | head -6; free -g; lscpu | grep -i cache; } >"$OUT/cpuaxis-host.txt" 2>&1

if has build; then
  t0=$SECONDS
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=OFF >"$OUT/cpuaxis-build.log" 2>&1 &&
    cmake --build $B -j16 --target test_axis pscan_axis_bench >>"$OUT/cpuaxis-build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -40 "$OUT/cpuaxis-build.log"; exit 1; }
  log "build: $((SECONDS - t0)) s"
fi

if has test; then
  for mode in plain takeover; do
    env=()
    [ $mode = takeover ] && env=(PSCAN_CPU_AXIS_TAKEOVER=1 PSCAN_CPU_STREAM=1 PSCAN_TEST_QUICK=1)
    log "test_axis --backend cpu ($mode)"
    env "${env[@]}" ./$B/tests/test_axis --backend cpu >"$OUT/cpuaxis-test-$mode.log" 2>&1 ||
      { status=1; grep -m 20 FAIL "$OUT/cpuaxis-test-$mode.log" | tee -a "$OUT/cpuaxis-summary.txt"; }
    tail -1 "$OUT/cpuaxis-test-$mode.log" | tee -a "$OUT/cpuaxis-summary.txt"
  done
fi

if has bench; then
  for round in $(seq 1 "$R"); do
    csv=$OUT/cpuaxis-$round.csv
    log "pscan_axis_bench --threads $T, round $round"
    for type in f32 i32 f64; do
      ./$B/pscan_axis_bench --threads "$T" --reps "$REPS" --no-segments --type $type \
        --csv "$OUT/cpuaxis-$round-$type.csv" >>"$OUT/cpuaxis-bench.txt" 2>&1 || status=1
    done
    ./$B/pscan_axis_bench --threads "$T" --reps "$REPS" --segments-only \
      --csv "$OUT/cpuaxis-$round-seg.csv" >>"$OUT/cpuaxis-bench.txt" 2>&1 || status=1
    { head -1 "$OUT/cpuaxis-$round-f32.csv"
      for part in f32 i32 f64 seg; do tail -n +2 "$OUT/cpuaxis-$round-$part.csv"; done; } >"$csv"
  done
  # One line per case: kind dtype shape axis|k, before, then each round's % of copy.
  rounds=()
  for r in $(seq 1 "$R"); do rounds+=("$OUT/cpuaxis-$r.csv"); done
  awk -F'"' -v rounds="$R" '
    function key(line,   a, b) { split(line, a, "\""); split(a[1], b, ","); split(a[3], c, ",");
                                  return b[2] " " b[3] " " a[2] " " c[2] }
    function pct(line,   c) { split(line, c, "\""); split(c[3], d, ","); return d[7] }
    FNR == 1 { file++; next }
    file == 1 { before[key($0)] = pct($0); next }
    { k = key($0); if (!(k in seen)) { seen[k] = 1; order[++n] = k }; got[k, file - 1] = pct($0) }
    END {
      printf "%-10s %-4s %-28s %8s  %7s", "kind", "type", "shape", "axis|k", "before"
      for (r = 1; r <= rounds; r++) printf "  round%d", r
      printf "   (%% of the streaming copy)\n"
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, f, " ")
        shape = f[3]; for (j = 4; j < length(f); j++) shape = shape " " f[j]
        printf "%-10s %-4s %-28s %8s  %7s", f[1], f[2], shape, f[length(f)],
               (k in before) ? before[k] : "-"
        for (r = 1; r <= rounds; r++) printf "  %6s", ((k, r) in got) ? got[k, r] : "-"
        printf "\n"
      }
    }' bench/results/axis_cpu16.csv "${rounds[@]}" |
    tee -a "$OUT/cpuaxis-summary.txt"
fi
if has ab; then
  for round in $(seq 1 "$R"); do
    for setting in ${AB_SETTINGS:-default 16384}; do
      env=()
      case $setting in
        default) ;;
        *u*) env=(PSCAN_CPU_AXIS_SIDE_MIN_BYTES=${setting%u*} PSCAN_CPU_AXIS_SIDE_UNITS=${setting#*u}) ;;
        *) env=(PSCAN_CPU_AXIS_SIDE_MIN_BYTES=$setting) ;;
      esac
      for shape in ${AB_SHAPES:-"(16384,16384)"}; do
        for type in f32 i32 f64; do
          env "${env[@]}" ./$B/pscan_axis_bench --threads "$T" --reps "$REPS" --no-segments \
            --type $type --shape "$shape" --axis 0 2>&1 | tail -1
        done
      done >"$OUT/cpuaxis-ab-$setting-$round.txt"
      log "ab: ${AB_SHAPES:-(16384,16384)} axis 0, min bytes $setting, round $round"
      tee -a "$OUT/cpuaxis-summary.txt" <"$OUT/cpuaxis-ab-$setting-$round.txt"
    done
  done
fi
exit "$status"
