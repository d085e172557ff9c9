#!/usr/bin/env bash
# Fuzzes the pscan tool's .npy and text parsers (tests/fuzz/fuzz_parsers.c) with libFuzzer under
# ASan + UBSan for ${PSCAN_FUZZ_SECONDS:-60} seconds, the way .ci/run fuzzes the scan API: new
# inputs go to a fresh directory, the kept corpus tests/fuzz/corpus/parsers is only read. Exits
# non-zero, naming the failing input (kept in build-fuzz/), on a crash or a sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${PSCAN_FUZZ_SECONDS:-60}

echo "== libFuzzer: the tool's .npy and text parsers (ASan + UBSan, clang, ${seconds} s)"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DPSCAN_CUDA=OFF -DPSCAN_FUZZ=ON -DPSCAN_SANITIZE=address,undefined >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_parsers
fresh=$(mktemp -d)   # new inputs land here; the kept corpus is only read
trap 'rm -rf "$fresh"' EXIT
rc=0
./build-fuzz/tests/fuzz/fuzz_parsers -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix=build-fuzz/ "$fresh" tests/fuzz/corpus/parsers \
  >build-fuzz/fuzz-parsers.log 2>&1 || rc=$?
grep -E "stat::number_of_executed_units|stat::new_units_added" build-fuzz/fuzz-parsers.log || true
if [ "$rc" -ne 0 ]; then
  echo "fuzz_parsers FAILED (exit $rc); the failing input is in build-fuzz/:"
  grep -E "fuzz_parsers:|ERROR|SUMMARY|runtime error|Test unit written" \
    build-fuzz/fuzz-parsers.log | head -20
  exit 1
fi
echo "fuzz_parsers: no crash, no disagreement, no sanitizer report"
