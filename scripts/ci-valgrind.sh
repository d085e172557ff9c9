#!/usr/bin/env bash
# Memcheck over a reduced set of the CPU tests (PSCAN_TEST_QUICK=1): any invalid access, use of
# uninitialised memory, or definite/indirect leak fails it. ("Possibly lost" blocks are not
# errors: a test may keep a context, and so its threads' stacks, until exit.)
#   scripts/ci-valgrind.sh      builds a plain RelWithDebInfo CPU build in build-valgrind, runs
#                               the tests nproc at a time; each one's log is in build-valgrind/.
# About 100 s of wall time on 2 cores, build included (the tests take ~190 s of CPU together).
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$self")/.."
build=build-valgrind
vg=(valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect)

# --one NAME [VAR=value...] PROGRAM [ARGS...]: one test under memcheck (xargs calls this).
if [ "${1:-}" = "--one" ]; then
  name=$2
  shift 2
  vars=(PSCAN_TEST_QUICK=1)
  while [[ $1 == *=* ]]; do vars+=("$1"); shift; done
  log=$build/valgrind-$name.log
  start=$SECONDS
  if env "${vars[@]}" "${vg[@]}" "$@" >"$log" 2>&1; then
    echo "ok    $name ($((SECONDS - start)) s): $(grep -E 'passed, .* failed|faults injected' "$log" | tr '\n' ' ')"
    exit 0
  fi
  echo "FAIL  $name ($((SECONDS - start)) s), $log:"
  tail -40 "$log"
  exit 1
fi

need=()
for tool in valgrind cmake make gcc; do command -v "$tool" >/dev/null || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq "${need[@]}"
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSCAN_CUDA=OFF -DPSCAN_SANITIZE= \
      -DPSCAN_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

t=$build/tests
# Longest first, so that nproc at a time finish together.
tests=(
  "faults $t/test_faults"
  "scan_cpu $t/test_scan --backend cpu"
  "scan_cpu_scalar PSCAN_CPU_ISA=scalar $t/test_scan --backend cpu"
  "float $t/test_float"
  "compact $t/test_compact"
  "custom $t/test_custom"
  "threads $t/test_threads"
  "fuzz_corpus $t/fuzz/fuzz_scan_replay tests/fuzz/corpus/scan"
  "errors $t/test_errors"
)
echo "== valgrind memcheck: ${#tests[@]} test programs, $(nproc) at a time"
start=$SECONDS
status=0
printf '%s\n' "${tests[@]}" | xargs -L1 -P "$(nproc)" bash "$self" --one || status=1
echo "valgrind: $([ $status = 0 ] && echo "all ${#tests[@]} clean" || echo FAILED) in $((SECONDS - start)) s"
exit $status
