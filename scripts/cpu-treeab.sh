#!/usr/bin/env bash
# A/B of CPU-backend source trees on the device machine's 16-core host, in one call:
#   TREES='ab-base .' [ARGS='...'] [ROUNDS=2] [ROWS=regex] [TARGET=t CMD='prog args']
#   scripts/cpu-treeab.sh [build] [ab]
# build: the CPU-only tool (-DPSCAN_CUDA=OFF, Release, -j16) of each tree in $TREES (folders
# relative to the repository root, e.g. a `git archive` of the base commit carried beside the
# working tree, and . for the working tree) into build-cpuab-N. ab: `pscan bench $ARGS` (default:
# f64 at 2^24 and 2^26 on 1 thread and all cores, 7 repetitions: its table has the "pscan user-op
# affine f32" row) once per tree, the trees alternating within each of $ROUNDS rounds. Each run's
# table and CSV go to $OUT as cpuab-rROUND-tN.{txt,csv} (packed into cpuab-runs.tgz); the rows
# matching $ROWS (default: the copies and the user-op row) to cpuab-summary.txt. TARGET and CMD
# pick another benchmark: e.g. TARGET=pscan_axis_bench CMD=pscan_axis_bench (default: pscan_tool,
# "pscan bench"); CMD is run from each tree's build folder with $ARGS and --csv. ENVS='X=0;X=1 Y=2'
# also alternates environment settings (';'-separated, after the run without any) for every tree:
# files cpuab-rROUND-tN-sK.
. "$(dirname "$0")/gpu-common.sh" cpuab-summary.txt "build ab" -- "$@"
read -ra trees <<<"${TREES:-.}"
ARGS=${ARGS:---types f64 --sizes 2^24,2^26 --threads 1,$(nproc) --reps 7}
ROUNDS=${ROUNDS:-2}
ROWS=${ROWS:-^f64|streaming copy|pscan auto  |user-op}
TARGET=${TARGET:-pscan_tool}
CMD=${CMD:-pscan bench}
export PSCAN_CACHE_DIR=${PSCAN_CACHE_DIR:-$PWD/build-cpuab-op-cache}
log "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), commit ${PSCAN_COMMIT:-?}, trees: ${trees[*]}"
if has build; then
  for k in "${!trees[@]}"; do
    t0=$SECONDS
    { cmake -S "${trees[$k]}" -B "build-cpuab-$k" -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=OFF \
        -DPSCAN_MPI=OFF && cmake --build "build-cpuab-$k" -j16 --target "$TARGET"; } \
      >"$OUT/cpuab-build-$k.log" 2>&1 || { log "BUILD FAILED: ${trees[$k]}"; tail -30 "$OUT/cpuab-build-$k.log"; exit 1; }
    log "built ${trees[$k]} in $((SECONDS - t0)) s"
  done
fi
if has ab; then
  IFS=';' read -ra settings <<<";${ENVS:-}" # the first, empty, setting: none
  for round in $(seq 1 "$ROUNDS"); do
    for k in "${!trees[@]}"; do
      for e in "${!settings[@]}"; do
        f="$OUT/cpuab-r$round-t$k"
        [ -n "${ENVS:-}" ] && f="$f-s$e"
        # shellcheck disable=SC2086
        env ${settings[$e]} "./build-cpuab-$k/"$CMD $ARGS --csv "$f.csv" >"$f.txt" 2>&1 || status=1
        log "round $round: ${trees[$k]} ${settings[$e]:-(no setting)}"
        grep -E "$ROWS" "$f.txt" | tee -a "$OUT/cpuab-summary.txt"
      done
    done
  done
  (cd "$OUT" && tar czf cpuab-runs.tgz cpuab-r[0-9]*-t* && rm -f cpuab-r[0-9]*-t*)
fi
log "done (status $status)"
exit $status
