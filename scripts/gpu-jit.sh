#!/usr/bin/env bash
# User operators on the GPU (src/cuda/jit), in one call on the device machine:
#   scripts/gpu-jit.sh [build] [test] [sanitize] [bench] [peers]   (default: all)
# build     cmake (Release, CUDA) and the library, tests and benchmark (-j16; $BUILD_TARGETS: only
#           those targets, e.g. "pscan_tool test_cuda_user_op"; $CMAKE_ARGS: more
#           configure arguments)
# test      test_jit_compile (NVRTC without the device), test_cuda_user_op (the kernels through
#           the backend's hooks), test_cuda_user_op_api (test_user_op.c's API tests on CUDA),
#           test_cuda_axis_user_op (quick)
# sanitize  compute-sanitizer memcheck, racecheck and synccheck on a quick test_cuda_user_op
# bench     pscan bench --gpu --user-op: affine f32/f64, 2x2 f64 matrices and a user SUM i32
#           against a device copy, CUB with the same functor and the built-in SUM, 2^16 .. 2^28;
#           cold compile, disk-cache and context hits, host time per call; and ctest
#           bench_user_op_gpu (the command's CSV, checks and plot)
# ab        pscan bench --gpu --user-op under the default and each environment set of $AB_ENV (';'-
#           separated, e.g. AB_ENV="PSCAN_CUDA_USER_SPLIT_MAX=0"), $AB_ROUNDS rounds (default 2),
#           alternating; a table of % of the copy per operator and size, one column per run
# peers     bench/py_assoc_peers.py: torch associative_scan and jax.lax.associative_scan on the
#           affine f32 scan, 2^16 .. 2^24, beside a device copy (and pscan.scan with a pscan.Op on
#           the same data where the package is installed: scripts/gpu-python.sh build first)
# Results (logs, CSVs, summary.txt) go to $OUT, else ./gpu-out-jit.
. "$(dirname "$0")/gpu-common.sh" summary.txt "build test sanitize bench peers" gpu-out-jit -- "$@"
B=build-gpu-jit

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv >"$OUT/gpu.txt" 2>&1
log "$(tail -1 "$OUT/gpu.txt"), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"

if has build; then
  log "build"
  # shellcheck disable=SC2086
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON ${CMAKE_ARGS:-} >"$OUT/build.log" 2>&1 &&
    cmake --build $B -j 16 ${BUILD_TARGETS:+--target $BUILD_TARGETS} >>"$OUT/build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
fi

# A fresh disk cache for the runs below (the tests time a cold compile).
export PSCAN_CACHE_DIR=$(mktemp -d /tmp/pscan-jit-cache-XXXXXX)

run_test() { # name, then the command
  local name=$1
  shift
  log "$name"
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  tail -3 "$OUT/$name.log" | tee -a "$OUT/summary.txt"
  [ $rc -eq 0 ] || { log "$name FAILED (exit $rc)"; status=1; }
}

if has test; then
  run_test test_jit_compile ./$B/tests/test_jit_compile
  run_test test_cuda_user_op ./$B/tests/test_cuda_user_op
  run_test test_cuda_user_op_api ./$B/tests/test_cuda_user_op_api
  PSCAN_TEST_QUICK=1 run_test cuda_axis_user_op_quick ./$B/tests/test_cuda_axis_user_op
  # The built-in suites still pass with the shared device headers' NVRTC guards.
  PSCAN_TEST_QUICK=1 run_test scan_cuda_quick ./$B/tests/test_scan --backend cuda
fi

if has sanitize; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    PSCAN_TEST_QUICK=1 run_test "sanitize_$tool" "$CS" --tool "$tool" --error-exitcode 9 \
      ./$B/tests/test_cuda_user_op
  done
  for tool in memcheck racecheck; do
    PSCAN_TEST_QUICK=1 run_test "sanitize_api_$tool" "$CS" --tool "$tool" --error-exitcode 9 \
      ./$B/tests/test_cuda_user_op_api
  done
fi

UOP_BENCH=(./$B/pscan bench --gpu --user-op --reps "${UOP_REPS:-11}")
if has bench; then
  log "pscan bench --gpu --user-op"
  plot=() # the plot needs a tool built with cairo (libcairo2-dev)
  pkg-config --exists cairo 2>/dev/null && plot=(--plot "$OUT/user_op")
  "${UOP_BENCH[@]}" --csv "$OUT/user_op_bench.csv" ${plot[@]+"${plot[@]}"} >"$OUT/user_op_bench.txt" 2>&1 || status=1
  grep -vE " 2\^(16|18|20|22|26) " "$OUT/user_op_bench.txt" | tee -a "$OUT/summary.txt"
  run_test ctest_bench_user_op ctest --test-dir $B -R bench_user_op --output-on-failure
fi

if has ab; then
  IFS=';' read -ra ab_envs <<<";${AB_ENV:-}"
  csvs=()
  for round in $(seq "${AB_ROUNDS:-2}"); do
    for i in "${!ab_envs[@]}"; do
      log "pscan bench --gpu --user-op (env: ${ab_envs[$i]:-default}, round $round)"
      # shellcheck disable=SC2086
      env ${ab_envs[$i]} "${UOP_BENCH[@]}" --csv "$OUT/ab-$i-$round.csv" >"$OUT/ab-$i-$round.txt" 2>&1 || status=1
      csvs+=("$OUT/ab-$i-$round.csv")
    done
  done
  log "A/B: pscan_user_op % of the copy (columns: default, then AB_ENV's sets; rounds after each other)"
  python3 - "${csvs[@]}" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys
runs = [{(r["op"], r["n"]): r["frac_copy"] for r in csv.DictReader(open(f))
         if r["impl"] == "pscan_user_op"} for f in sys.argv[1:]]
for key in runs[0]:
    print("%-10s %10s " % key + " ".join("%6.1f" % (100 * float(run.get(key, "nan"))) for run in runs))
PY
fi

if has peers; then
  log "py_assoc_peers (torch, jax)"
  python3 bench/py_assoc_peers.py --csv "$OUT/py_assoc_peers.csv" >"$OUT/py_assoc_peers.txt" 2>&1 || status=1
  grep -E "2\^24|unavailable|failed" "$OUT/py_assoc_peers.txt" | tee -a "$OUT/summary.txt"
fi

rm -rf "$PSCAN_CACHE_DIR"
log "done (status $status)"
exit $status
