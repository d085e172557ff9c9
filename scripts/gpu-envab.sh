#!/usr/bin/env bash
# A/B of environment settings of one build, in one call on the device machine:
#   ENVS='X=1;X=2 Y=3' [ARGS='...'] [ROUNDS=2] scripts/gpu-envab.sh [build] [ab]
# build: pscan_gpu_bench alone, Release, in build-gpu. ab: pscan_gpu_bench $ARGS (default: the
# scans of i32, f32, i64, f64 at 2^20-2^28, quick) once per setting of $ENVS (';'-separated; the
# baseline, no setting, runs first), the settings alternating within each of $ROUNDS rounds. Each
# run's CSV goes to $OUT (packed into envab-runs.tgz); pscan's AUTO rows and the copy's, per
# setting, to envab-summary.txt.
. "$(dirname "$0")/gpu-common.sh" envab-summary.txt "build ab" -- "$@"
ARGS=${ARGS:---quick --min-log 20 --max-log 28 --types i32,f32,i64,f64}
ROUNDS=${ROUNDS:-2}
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nproc) CPUs, commit ${PSCAN_COMMIT:-?}"
if has build; then
  t0=$SECONDS
  gpu_build build-gpu build.log pscan_gpu_bench
  log "built in $((SECONDS - t0)) s"
fi
if has ab; then
  IFS=';' read -ra settings <<<";${ENVS:-}"
  for round in $(seq 1 "$ROUNDS"); do
    for k in "${!settings[@]}"; do
      label=${settings[$k]:-baseline}
      f="$OUT/envab-r$round-s$k"
      # shellcheck disable=SC2086
      env ${settings[$k]} ./build-gpu/pscan_gpu_bench $ARGS --csv "$f.csv" >"$f.txt" 2>&1 || status=1
      log "round $round: $label"
      grep -E "^(memcpy|pscan +auto +auto) " "$f.txt" | tee -a "$OUT/envab-summary.txt"
    done
  done
fi
log "status $status"
# the device tool returns at most 8 files: the runs travel as one archive
(cd "$OUT" && tar czf envab-runs.tgz $(ls envab-r* build.log 2>/dev/null) && rm -f envab-r*.csv envab-r*.txt build.log)
exit $status
