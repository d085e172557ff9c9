#!/usr/bin/env bash
# Everything the CUDA backend needs checked, in one call on the device machine:
#   scripts/gpu-check.sh [build] [test] [sanitize] [perturb] [bench] [cpubench] [big]
#   (default: all but big)
# For iterating on kernels: [fastbuild] (the GPU tests and benchmark only), [quicktest]
# (PSCAN_TEST_QUICK=1 scan and compaction suites), [compacttest] (the full compaction suite alone), [scanbench] (i32/f32/i64/f64 at 2^16, 2^20, 2^24, 2^28,
# no tile strategies), [compactbench] (the compaction family against CUB), [latency] (where a
# small call's time goes: pscan_gpu_bench --latency), [ab] (A/B: pscan_gpu_bench from a second
# build with the extra CUDA flags in $AB_FLAGS, or build-gpu's run with the environment $AB_ENV,
# alternating with build-gpu's; $AB_ARGS: its args, several sets separated by ';'), [profile] (Nsight Compute on one launch each of
# the i32 scan at 2^26, unique, reduce_by_key and select_if 50% at 2^25: where the warps stall;
# $PROFILE picks some by name), [runs] (unique, run-length encoding, reduce_by_key at the run
# lengths $RUNS, default 1,2,4,8,32,500). [sanitize] runs the tools $SANITIZE_TOOLS (default
# memcheck racecheck synccheck) on $SANITIZE_TESTS (default: both suites: scan_cuda, the scan
# suite tests/test_scan.c run with --backend cuda, and test_cuda_compact, the compaction suite
# tests/test_compact.c run with --backend cuda; cuda_axis, test_axis --backend cuda, on request;
# each in its PSCAN_TEST_SANITIZE=1 slice).
# Results go to $OUT (the device tool's output folder) or ./gpu-out.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-build test sanitize perturb bench cpubench}
has() { [[ " $steps " == *" $1 "* ]]; }
status=0
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
# suite FOLDER NAME: sets cmd to the command of a GPU suite in that build folder. The scan suite
# is one program for every backend (scan_cuda: test_scan --backend cuda; test_cuda_scan, its
# former name, is accepted too); the others are named by their program.
suite() {
  case $2 in
    scan_cuda | test_cuda_scan) cmd=("./$1/tests/test_scan" --backend cuda) ;;
    cuda_compact | test_cuda_compact) cmd=("./$1/tests/test_compact" --backend cuda) ;;
    cuda_axis) cmd=("./$1/tests/test_axis" --backend cuda) ;;
    *) cmd=("./$1/tests/$2") ;;
  esac
}

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv >"$OUT/gpu.txt" 2>&1
# The device tool copies the working tree, but its .git can be older than the tree: pass
# PSCAN_COMMIT=<local HEAD> to label the run with the commit it really ran.
log "$(tail -1 "$OUT/gpu.txt"), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?') (device .git: may be stale)}"

if has build; then
  log "build"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON >"$OUT/build.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" >>"$OUT/build.log" 2>&1 || { log "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
fi
if has fastbuild; then
  log "build (GPU tests and benchmark)"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON >"$OUT/build.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" --target pscan_gpu_bench test_scan test_compact \
      >>"$OUT/build.log" 2>&1 || { log "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
fi
if has quicktest; then
  for test in scan_cuda test_cuda_compact; do
    log "$test (PSCAN_TEST_QUICK=1)"
    suite build-gpu "$test"
    PSCAN_TEST_QUICK=1 "${cmd[@]}" >"$OUT/quick-$test.log" 2>&1 || status=1
    tail -2 "$OUT/quick-$test.log" | tee -a "$OUT/summary.txt"
  done
  # Without programmatic dependent launch (GPUs before sm_90, or PSCAN_CUDA_PDL=0): plain
  # launches, and small scan grids launch cooperatively.
  for test in scan_cuda test_cuda_compact; do
    log "$test (PSCAN_TEST_QUICK=1, PSCAN_CUDA_PDL=0: no PDL, cooperative small grids)"
    suite build-gpu "$test"
    PSCAN_TEST_QUICK=1 PSCAN_CUDA_PDL=0 "${cmd[@]}" >"$OUT/quick-$test-nopdl.log" 2>&1 || status=1
    tail -1 "$OUT/quick-$test-nopdl.log" | tee -a "$OUT/summary.txt"
  done
fi
if has compacttest; then
  log "test_cuda_compact (full matrix, 2^24 stress)"
  ./build-gpu/tests/test_compact --backend cuda >"$OUT/full-test_cuda_compact.log" 2>&1 || status=1
  tail -2 "$OUT/full-test_cuda_compact.log" | tee -a "$OUT/summary.txt"
fi
if has scanbench; then
  log "GPU scan benchmark"
  ./build-gpu/pscan_gpu_bench --quick --min-log 16 --max-log 28 --csv "$OUT/gpu_bench.csv" >"$OUT/gpu_bench.txt" 2>&1 || status=1
  grep -E " 2\^(16|26|28|30) " "$OUT/gpu_bench.txt" | grep -E "memcpy|cub|auto |deterministic" | tee -a "$OUT/summary.txt"
fi
if has latency; then
  log "small-call latency"
  ./build-gpu/pscan_gpu_bench --latency >"$OUT/latency.txt" 2>&1 || status=1
  tee -a "$OUT/summary.txt" <"$OUT/latency.txt"
fi
if has ab; then
  # Side "ab": a second build with $AB_FLAGS, or of the source tree $AB_TREE (e.g. a worktree of
  # the commit before a change, carried to the device), or, when neither is set, build-gpu's binary
  # run with the environment $AB_ENV (e.g. AB_ENV=PSCAN_CUDA_PDL=0).
  log "A/B: ${AB_FLAGS:+build-ab with $AB_FLAGS}${AB_TREE:+build-ab of $AB_TREE}${AB_ENV:+env $AB_ENV}; pscan_gpu_bench ${AB_ARGS:-}"
  ab_bin=./build-gpu/pscan_gpu_bench
  if [[ -n ${AB_FLAGS:-}${AB_TREE:-} ]]; then
    ab_bin=./build-ab/pscan_gpu_bench
    { cmake -S "${AB_TREE:-.}" -B build-ab -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON "-DCMAKE_CUDA_FLAGS=${AB_FLAGS:-}" &&
        cmake --build build-ab -j "$(nproc)" --target pscan_gpu_bench; } >"$OUT/ab-build.log" 2>&1 ||
      { status=1; log "A/B BUILD FAILED"; tail -20 "$OUT/ab-build.log"; }
  fi
  # AB_ARGS may hold several argument sets separated by ';' (e.g. a scan and a --compact run).
  IFS=';' read -ra ab_sets <<<"${AB_ARGS:-}"
  [[ ${#ab_sets[@]} -gt 0 ]] || ab_sets=("")
  for round in 1 2; do
    for k in "${!ab_sets[@]}"; do
      for side in gpu ab; do
        run=(./build-gpu/pscan_gpu_bench)
        # shellcheck disable=SC2206
        [[ $side == ab ]] && run=(env ${AB_ENV:-} "$ab_bin")
        f="$OUT/ab-$side-$round-$k"
        # shellcheck disable=SC2086
        "${run[@]}" ${ab_sets[$k]} --csv "$f.csv" >"$f.txt" 2>&1 || status=1
        echo "-- $side round $round: ${ab_sets[$k]}" >>"$OUT/summary.txt"
        grep -E "memcpy|cub |auto |deterministic|pscan " "$f.txt" | grep -vE "chained|reduce-then|scan-then|sequential" >>"$OUT/summary.txt"
      done
    done
  done
fi
if has profile; then
  # One launch of each kernel after a few warm-up calls; clocks left alone (device README).
  prof() { # name, kernel regex, benchmark args... ($PROFILE: a regex of the names to run)
    local name=$1 kernel=$2
    shift 2
    [[ $name =~ ${PROFILE:-.} ]] || return 0
    log "ncu: $name"
    ncu --clock-control none --set full --import-source no -k "regex:$kernel" --launch-skip 3 \
      --launch-count 1 -o "$OUT/prof-$name" ./build-gpu/pscan_gpu_bench "$@" >"$OUT/prof-$name.log" 2>&1 || status=1
    ncu --import "$OUT/prof-$name.ncu-rep" --page details >"$OUT/prof-$name.txt" 2>&1
    ncu --import "$OUT/prof-$name.ncu-rep" --page source --csv --print-source sass >"$OUT/prof-$name-sass.csv" 2>&1
    grep -E "DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Issue Slots Busy|Stall|Warp Cycles Per Issued" \
      "$OUT/prof-$name.txt" | head -20 >>"$OUT/summary.txt"
  }
  prof scan_i32_2p26 '^scan_kernel_I32_I32_SUM$' --quick --min-log 26 --max-log 26 --types i32
  prof unique_2p25 '^keys_kernel_keys_I32_x$' --compact --quick
  prof reduce_by_key_2p25 '^by_key_kernel_bykey_F32_SUM$' --compact --quick
  prof select_if_2p25 '^keys_kernel_select_keys_I32_x$' --compact
  # unique / run-length encoding when every item starts a run, and at long runs
  prof rle_run1 '^heads_kernel_keys_I32_x$' --runs 1 --only run_length_encode
  prof rle_run500 '^heads_kernel_keys_I32_x$' --runs 500 --only run_length_encode
  prof cub_rle_run1 'ReduceByKeyKernel' --runs 1 --only run_length_encode
  prof rbk_run1 '^rbk_kernel' --runs 1 --only reduce_by_key
  prof cub_rbk_run1 'ReduceByKeyKernel' --runs 1 --only reduce_by_key
fi
if has runs; then
  log "keys-only ops by run length (2^28, i32 keys)"
  ./build-gpu/pscan_gpu_bench --runs "${RUNS:-1,2,4,8,32,500}" --csv "$OUT/gpu_runs.csv" >"$OUT/gpu_runs.txt" 2>&1 || status=1
  grep -E "pscan|cub" "$OUT/gpu_runs.txt" | tee -a "$OUT/summary.txt"
fi
if has compactbench; then
  log "GPU compaction benchmark"
  ./build-gpu/pscan_gpu_bench --compact --csv "$OUT/gpu_compact.csv" >"$OUT/gpu_compact.txt" 2>&1 || status=1
  grep -E "2\^28" "$OUT/gpu_compact.txt" | head -16 | tee -a "$OUT/summary.txt"
fi
if has test; then
  log "ctest (all labels)"
  ctest --test-dir build-gpu --output-on-failure -j 4 >"$OUT/ctest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|SKIP|\*\*\*" "$OUT/ctest.log" | tee -a "$OUT/summary.txt"
  grep -E "passed, .* failed|scan cases" "$OUT/ctest.log" | tail -3 >>"$OUT/summary.txt"
fi
if has big; then
  log "n > 2^32"
  suite build-gpu scan_cuda
  PSCAN_TEST_BIG=1 "${cmd[@]}" 2>&1 | tail -3 | tee -a "$OUT/summary.txt" || status=1
  PSCAN_TEST_BIG=1 ./build-gpu/tests/test_compact --backend cuda 2>&1 | tail -3 | tee -a "$OUT/summary.txt" || status=1
fi
if has sanitize; then
  for test in ${SANITIZE_TESTS:-scan_cuda test_cuda_compact}; do
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
      log "compute-sanitizer $tool $test (reduced matrix)"
      suite build-gpu "$test"
      PSCAN_TEST_SANITIZE=1 compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "${cmd[@]}" >"$OUT/sanitize-$test-$tool.log" 2>&1
      rc=$?
      tail -2 "$OUT/sanitize-$test-$tool.log" | tee -a "$OUT/summary.txt"
      [ $rc -eq 0 ] || { status=1; log "$tool exit $rc"; }
    done
  done
fi
if has perturb; then
  # Tiles sleep pseudo-random times before they publish (PSCAN_CUDA_PERTURB): the look-back must
  # stay correct and finish however out of order the tiles complete.
  log "perturbed scheduling (PSCAN_CUDA_PERTURB build)"
  { cmake -S . -B build-perturb -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON -DPSCAN_CUDA_PERTURB=ON \
      -DPSCAN_BUILD_TOOLS=OFF && cmake --build build-perturb -j "$(nproc)" \
      --target test_scan test_compact; } >"$OUT/perturb-build.log" 2>&1 || { status=1; log "PERTURB BUILD FAILED"; }
  for test in scan_cuda test_cuda_compact; do
    suite build-perturb "$test"
    PSCAN_TEST_QUICK=1 timeout 600 "${cmd[@]}" >"$OUT/perturb-$test.log" 2>&1 || status=1
    tail -1 "$OUT/perturb-$test.log" | tee -a "$OUT/summary.txt"
  done
fi
if has bench; then
  log "GPU benchmark"
  ./build-gpu/pscan_gpu_bench --blocks --csv "$OUT/gpu_bench.csv" >"$OUT/gpu_bench.txt" 2>&1 || status=1
  grep -E " 2\^(16|26|28|30) " "$OUT/gpu_bench.txt" | grep -E "memcpy|cub|auto |deterministic" | tee -a "$OUT/summary.txt"
  ./build-gpu/pscan_gpu_bench --compact --csv "$OUT/gpu_compact.csv" >"$OUT/gpu_compact.txt" 2>&1 || status=1
  grep -E "2\^28" "$OUT/gpu_compact.txt" | head -16 | tee -a "$OUT/summary.txt"
fi
if has cpubench; then
  log "CPU benchmark ($(nproc) cores)"
  ./build-gpu/pscan bench --sizes 2^14,2^20,2^24,2^28 --threads 1,2,4,8,16 --types i32,f64 \
    --csv "$OUT/cpu_bench.csv" >"$OUT/cpu_bench.txt" 2>&1 || status=1
  tail -30 "$OUT/cpu_bench.txt" >>"$OUT/summary.txt"
  ./build-gpu/pscan bench --compact --threads 1,16 --csv "$OUT/cpu_compact.csv" \
    >"$OUT/cpu_compact.txt" 2>&1 || status=1
  grep -E "^n =|/ std|/ plain" "$OUT/cpu_compact.txt" >>"$OUT/summary.txt"
fi
log "done, status $status"
exit $status
