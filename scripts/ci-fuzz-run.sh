#!/usr/bin/env bash
# ci-fuzz-run.sh TARGET CORPUS WHAT: runs the libFuzzer target TARGET (tests/fuzz/TARGET.c) under
# ASan + UBSan for ${PSCAN_FUZZ_SECONDS:-60} seconds (scripts/ci-fuzz-parsers.sh,
# scripts/ci-fuzz-compact.sh): new inputs go to a fresh directory, the kept corpus
# tests/fuzz/corpus/CORPUS is only read. Prints the executions; exits non-zero, naming the failing
# input (kept in build-fuzz/), on a crash, a disagreement or a sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1 corpus=tests/fuzz/corpus/$2 what=$3
seconds=${PSCAN_FUZZ_SECONDS:-60}
log=build-fuzz/${target//_/-}.log

echo "== libFuzzer: ${what} (ASan + UBSan, clang, ${seconds} s)"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DPSCAN_CUDA=OFF -DPSCAN_FUZZ=ON -DPSCAN_SANITIZE=address,undefined >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "$target"
fresh=$(mktemp -d)   # new inputs land here; the kept corpus is only read
trap 'rm -rf "$fresh"' EXIT
rc=0
"./build-fuzz/tests/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix=build-fuzz/ "$fresh" "$corpus" >"$log" 2>&1 || rc=$?
grep -E "stat::number_of_executed_units|stat::new_units_added" "$log" || true
if [ "$rc" -ne 0 ]; then
  echo "$target FAILED (exit $rc); the failing input is in build-fuzz/:"
  grep -E "$target:|ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -20
  exit 1
fi
echo "$target: no crash, no disagreement, no sanitizer report"
