#!/usr/bin/env bash
# Which commit moved a GPU figure: builds pscan_gpu_bench of several source trees side by side on
# the device machine, then runs them in turn, round after round, into one CSV.
#   scripts/gpu-bisect.sh TREE... (a tree: a folder holding a source tree, e.g. `git archive REV`
#   unpacked into ab-REV/ and carried; `.` is the working tree)
# $BISECT_ARGS: pscan_gpu_bench's arguments (default --compact); $ROUNDS: rounds (default 2);
# $JOBS: compile jobs per tree (default: the CPUs over the trees, at least 2); $HEAD_TARGETS:
# more targets to build in the working tree's build (e.g. pscan_tool, for a sweep after).
# Writes $OUT/bisect.csv (the tree's name, the round, then pscan_gpu_bench's CSV columns) row by
# row, so a run cut short still returns what it measured, and $OUT/bisect-build-<tree>.log of a
# failed build.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
trees=("$@")
[[ ${#trees[@]} -gt 0 ]] || { echo "usage: $0 TREE..." >&2; exit 2; }
jobs=${JOBS:-$(($(nproc) / ${#trees[@]}))}
[[ $jobs -ge 2 ]] || jobs=2
name() { [[ $1 == . ]] && echo head || basename "$1"; }

for t in "${trees[@]}"; do
  b=build-bisect-$(name "$t")
  more=()
  [[ $t == . ]] && read -ra more <<<"${HEAD_TARGETS:-}"
  { cmake -S "$t" -B "$b" -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON &&
      cmake --build "$b" -j "$jobs" --target pscan_gpu_bench "${more[@]}"; } >"/tmp/$b.log" 2>&1 &
done
wait
echo "builds done in $SECONDS s"

header=
for round in $(seq "${ROUNDS:-2}"); do
  for t in "${trees[@]}"; do
    b=build-bisect-$(name "$t")
    if [[ ! -x $b/pscan_gpu_bench ]]; then
      [[ $round -eq 1 ]] && { echo "$(name "$t"): BUILD FAILED"; cp "/tmp/$b.log" "$OUT/bisect-build-$(name "$t").log"; }
      continue
    fi
    # shellcheck disable=SC2086
    "$b/pscan_gpu_bench" ${BISECT_ARGS:---compact} --csv /tmp/bisect-run.csv >/tmp/bisect-run.txt 2>&1 ||
      echo "$(name "$t") round $round: exit $?"
    [[ -n $header ]] || { header=1; echo "tree,round,$(head -1 /tmp/bisect-run.csv)" >"$OUT/bisect.csv"; }
    tail -n +2 /tmp/bisect-run.csv | sed "s/^/$(name "$t"),$round,/" >>"$OUT/bisect.csv"
  done
  echo "round $round done at $SECONDS s"
done
