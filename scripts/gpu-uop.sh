#!/usr/bin/env bash
# User operators from source on the device machine:
#   scripts/gpu-uop.sh [build] [test] [sanitize] [cpubench]   (default: these)
#                      [racecheck] [compact] [compactrace] [bench]   (on request)
# build: a CUDA build (build-gpu-uop); test: test_user_op (CPU backend, with the host's C
# compiler) and test_cuda_user_op_api (the same differential checks on the CUDA backend: needs the
# NVRTC side, src/cuda's op_create / scan_op / select_op; without them it reports UNSUPPORTED
# failures) and the examples; sanitize: test_cuda_user_op_api under compute-sanitizer memcheck
# (PSCAN_TEST_QUICK=1); cpubench: `pscan bench` on the f64 points, whose table has the row
# "pscan user-op affine f32" (8-byte elements: the same bytes as the copies) beside the
# streaming copy, at 2^24 and 2^26 on all cores and on 1 thread. racecheck: test_cuda_user_op_api
# (quick) under compute-sanitizer racecheck; compact: the compaction suite with --backend cuda
# (test_compact, deterministic by-key phase included); compactrace: racecheck of its sanitizer
# slice (PSCAN_TEST_SANITIZE=1). UOP_RACE_PARTS (e.g. by_key) limits the first racecheck to
# those parts of the program (its PSCAN_TEST_PARTS). Both racechecks are cut at $RACE_SECONDS
# (default 400: a cut run is not a pass).
# bench: `pscan bench --gpu --user-op` at $UOP_SIZES (flat scans and by key, beside the copy and
# CUB). UOP_TESTS: the test step's ctest regex (default user_op|example_).
# Results go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" uop-summary.txt "build test sanitize cpubench" -- "$@"
export PSCAN_CACHE_DIR="$PWD/build-gpu-uop/op-cache"

log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) CPUs, cc: $(${PSCAN_CC:-${CC:-cc}} --version 2>&1 | head -1)"
if has build; then
  log "build"
  cmake -S . -B build-gpu-uop -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON >"$OUT/uop-build.log" 2>&1 &&
    cmake --build build-gpu-uop -j "$(nproc)" >>"$OUT/uop-build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -40 "$OUT/uop-build.log"; exit 1; }
fi
if has test; then
  log "tests: user_op (CPU), cuda_user_op_api, examples"
  ctest --test-dir build-gpu-uop -R "${UOP_TESTS:-user_op|example_}" --output-on-failure \
    >"$OUT/uop-test.log" 2>&1 || status=1
  grep -E "tests passed|Passed|Failed|Skipped|passed, " "$OUT/uop-test.log" | tee -a "$OUT/uop-summary.txt"
fi
if has sanitize; then
  log "compute-sanitizer memcheck: test_cuda_user_op_api (quick)"
  PSCAN_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 1 \
    build-gpu-uop/tests/test_cuda_user_op_api >"$OUT/uop-sanitize.log" 2>&1 || status=1
  tail -3 "$OUT/uop-sanitize.log" | tee -a "$OUT/uop-summary.txt"
fi
# race NAME LOG PROGRAM...: PROGRAM under compute-sanitizer racecheck, cut at $RACE_SECONDS (a cut
# run is reported as CUT and fails the script: it is not a pass).
race() {
  local name=$1 rlog=$OUT/$2 rc
  shift 2
  log "compute-sanitizer racecheck: $name (${RACE_SECONDS:-400} s at most)"
  timeout "${RACE_SECONDS:-400}" compute-sanitizer --tool racecheck --error-exitcode 1 "$@" \
    >"$rlog" 2>&1
  rc=$?
  [ $rc -eq 124 ] && log "CUT at ${RACE_SECONDS:-400} s (not a pass)"
  [ $rc -ne 0 ] && status=1
  tail -3 "$rlog" | tee -a "$OUT/uop-summary.txt"
}
if has racecheck; then
  PSCAN_TEST_QUICK=1 PSCAN_TEST_PARTS="${UOP_RACE_PARTS-}" \
    race "test_cuda_user_op_api (quick${UOP_RACE_PARTS:+, parts $UOP_RACE_PARTS})" \
    uop-racecheck.log build-gpu-uop/tests/test_cuda_user_op_api
fi
if has compact; then
  log "test_compact --backend cuda"
  build-gpu-uop/tests/test_compact --backend cuda >"$OUT/uop-compact.log" 2>&1 || status=1
  tail -2 "$OUT/uop-compact.log" | tee -a "$OUT/uop-summary.txt"
fi
if has compactrace; then
  PSCAN_TEST_SANITIZE=1 race "test_compact --backend cuda (PSCAN_TEST_SANITIZE=1)" \
    uop-compactrace.log build-gpu-uop/tests/test_compact --backend cuda
fi
if has bench; then
  log "pscan bench --gpu --user-op (flat and by key), ${UOP_SIZES:=2^20,2^24,2^26}"
  build-gpu-uop/pscan bench --gpu --user-op --sizes "$UOP_SIZES" --reps 7 \
    --csv "$OUT/uop-gpubench.csv" >"$OUT/uop-gpubench.txt" 2>&1 || status=1
  grep -E "^reduce_by_key.*pscan user op  " "$OUT/uop-gpubench.txt" | tee -a "$OUT/uop-summary.txt"
  sed -n '/the worst points/,/compiling/p' "$OUT/uop-gpubench.txt" | tee -a "$OUT/uop-summary.txt"
fi
if has cpubench; then
  log "pscan bench: f64 points (with the user-op affine f32 row), 2^24 and 2^26"
  build-gpu-uop/pscan bench --types f64 --sizes 2^24,2^26 --threads "1,$(nproc)" --reps 7 \
    --csv "$OUT/uop-cpubench.csv" >"$OUT/uop-cpubench.txt" 2>&1 || status=1
  grep -E "^f64|streaming copy|user-op|pscan auto" "$OUT/uop-cpubench.txt" | tee -a "$OUT/uop-summary.txt"
fi
log "done (status $status)"
exit $status
