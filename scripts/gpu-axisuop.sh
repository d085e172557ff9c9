#!/usr/bin/env bash
# User operators along an axis, and reverse scans by offsets, on the device machine:
#   scripts/gpu-axisuop.sh [build] [test] [sanitize] [bench]   (default: all)
# build: a CUDA build in build-gpu-axisuop (-j16); test: test_cuda_axis_user_op (user operators
# along every axis, differential), cuda_user_op_api and cuda_user_op (the 1-D user scans the axis
# path calls for long lines), cuda_axis (built-in axis scans; segmented, reverse included) and
# jit_compile; sanitize: test_cuda_axis_user_op and test_axis --backend cuda under compute-sanitizer memcheck
# (PSCAN_TEST_QUICK=1); bench: pscan_axis_user_op_bench (user f32 sum and user affine f32 beside
# the built-in f32 sum and a cudaMemcpy of the same bytes; medians).
# Everything is printed; logs go to $OUT (the device tool's output folder) or ./gpu-out. The steps
# can run as separate commands (e.g. `build`, then `test`, then `sanitize bench`) where one command
# has a time limit; each sanitizer run stops after 300 s.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
B=build-gpu-axisuop
mkdir -p "$OUT"
steps=${*:-build test sanitize bench}
has() { [[ " $steps " == *" $1 "* ]]; }
status=0
log() { echo "== $*" | tee -a "$OUT/axisuop-summary.txt"; }
export PSCAN_CACHE_DIR="$PWD/$B/op-cache"

log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) CPUs"
if has build; then
  log "build ($B)"
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON >"$OUT/axisuop-build.log" 2>&1 &&
    cmake --build "$B" -j16 >>"$OUT/axisuop-build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -40 "$OUT/axisuop-build.log"; exit 1; }
fi
if has test; then
  log "tests: cuda_axis_user_op, cuda_user_op_api, cuda_user_op, cuda_axis, jit_compile"
  ctest --test-dir "$B" -R '^(cuda_axis_user_op|cuda_user_op_api|cuda_user_op|cuda_axis|jit_compile)$' \
    --output-on-failure >"$OUT/axisuop-test.log" 2>&1 || status=1
  grep -E "seed|calls in|FAIL|tests passed|Passed|Failed|Skipped|passed, " "$OUT/axisuop-test.log" |
    tee -a "$OUT/axisuop-summary.txt"
fi
if has sanitize; then
  for t in test_cuda_axis_user_op test_axis; do
    log "compute-sanitizer memcheck: $t (quick)"
    PSCAN_TEST_QUICK=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1 \
      "$B/tests/$t" --backend cuda >"$OUT/axisuop-sanitize-$t.log" 2>&1 || status=1
    tail -3 "$OUT/axisuop-sanitize-$t.log" | tee -a "$OUT/axisuop-summary.txt"
  done
fi
if has bench; then
  log "pscan_axis_user_op_bench"
  "$B/pscan_axis_user_op_bench" --reps 21 2>&1 | tee "$OUT/axisuop-bench.txt" |
    tee -a "$OUT/axisuop-summary.txt" || status=1
fi
log "done (status $status)"
exit $status
