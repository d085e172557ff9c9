#!/usr/bin/env bash
# The axis and segmented scans on the device machine, in one call:
#   scripts/gpu-axis.sh [build] [test] [sanitize] [bench] [peers]   (default: all)
# build: CMake Release with CUDA, -j16 (the library, test_axis, the benchmark); with
#        PREBUILT=FILE (scripts/pack-gpu-bins.sh test_axis pscan_axis_bench, carried), unpacks
#        FILE into build-gpu instead.
#        $EXTRA_TARGETS: more targets to build (e.g. test_scan test_cuda_axis_user_op);
#        $CMAKE_ARGS: more configure arguments (e.g. -DPSCAN_MPI=OFF).
# test: test_axis --backend cpu (full) and --backend cuda (the same suite on the GPU).
# ctests: the ctest tests named by $CTESTS (a|b|c), PSCAN_TEST_QUICK=1, PSCAN_TEST_SEED=1.
# sanitize: compute-sanitizer memcheck, racecheck, synccheck and initcheck on test_axis --backend
#           cuda's light slice (PSCAN_TEST_SANITIZE=1); SANITIZE_TOOLS picks the tools,
#           $SANITIZE_ENV adds settings (e.g. PSCAN_CUDA_AXIS_ROWS_VEC=0).
# bench: pscan_axis_bench --gpu (the issue's shapes, f32/i32 and f64 for a few, cudaMemcpy device
#        to device of the same bytes, CUB scan-by-key for segments) and --cpu on every core.
# peers: bench/py_axis_peers.py --gpu (torch, cupy, jax) and --cpu (numpy) on the same shapes.
# lbcols: test_axis --backend cuda (quick) with PSCAN_CUDA_AXIS_LB_MIN_LINES=32 (the one-pass
#         side-by-side scan in registers from 32 columns), =1000000 (the one pass in row tiles,
#         side_rows, wherever the columns are contiguous), the same element by element
#         (PSCAN_CUDA_AXIS_ROWS_VEC=0) and with PSCAN_CUDA_AXIS_ROWS=0 as well (the 3-pass
#         side-by-side scan alone).
# strips: test_axis --backend cuda (quick) with PSCAN_CUDA_AXIS_STRIPS_LANES=8 and =256 (the
#         strips walked down the axis on every side-by-side shape whose strips fit the GPU, as
#         ctest cuda_axis_strips_8 / _256 run them).
# ab: pscan_axis_bench --gpu by default, under each environment set of $AB_ENV (sets separated
#     by ';', e.g. AB_ENV="PSCAN_CUDA_AXIS_LB_MIN_LINES=32;PSCAN_CUDA_AXIS_LB_MIN_LINES=99999999"),
#     and each program of $AB_BINS (';'-separated, e.g. AB_BINS=old/pscan_axis_bench for an earlier
#     commit's benchmark, carried as $AB_BINS_TAR: `tar cJf build-carry/old-bench.tar.xz -C DIR
#     old` over DIR/old/pscan_axis_bench), $AB_ROUNDS rounds (default 2), with the benchmark's
#     extra arguments $AB_ARGS (e.g. "--axis 0 --no-segments"); a table of % of copy, one column
#     per run.
# prof: ncu (--set full) of one side_rows launch per shape of $PROF_SHAPES (default "(1048576,64)
#       (2097152,128)"), type $PROF_TYPE (f32), under the default and each set of $PROF_ENV.
# Results (logs, CSV) go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" axis-summary.txt "build test sanitize bench peers" -- "$@"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$OUT/axis-gpu.txt" 2>&1
log "$(tail -1 "$OUT/axis-gpu.txt"), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"

if has build && [ -n "${PREBUILT:-}" ]; then
  log "build: unpacking $PREBUILT (scripts/pack-gpu-bins.sh) into build-gpu"
  mkdir -p build-gpu && tar xJf "$PREBUILT" -C build-gpu || { log "UNPACK FAILED"; exit 1; }
elif has build; then
  log "build"
  # shellcheck disable=SC2086
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON ${CMAKE_ARGS:-} >"$OUT/axis-build.log" 2>&1 &&
    cmake --build build-gpu -j 16 --target test_axis pscan_axis_bench pscan_tool ${EXTRA_TARGETS:-} \
      >>"$OUT/axis-build.log" 2>&1 || { log "BUILD FAILED"; tail -40 "$OUT/axis-build.log"; exit 1; }
fi
if has test; then
  for backend in cpu cuda; do
    test=test_axis-$backend
    log "test_axis --backend $backend"
    ./build-gpu/tests/test_axis --backend "$backend" >"$OUT/axis-$test.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { status=1; log "$test: exit $rc"; grep -m 20 FAIL "$OUT/axis-$test.log" | tee -a "$OUT/axis-summary.txt"; }
    tail -1 "$OUT/axis-$test.log" | tee -a "$OUT/axis-summary.txt"
  done
fi
if has ctests; then
  export PSCAN_TEST_QUICK=1
  gpu_tests build-gpu axis-ctests.log "${CTESTS:-cuda_axis}"
  unset PSCAN_TEST_QUICK
fi
if has lbcols; then
  for env in PSCAN_CUDA_AXIS_LB_MIN_LINES={32,1000000} "PSCAN_CUDA_AXIS_LB_MIN_LINES=1000000 PSCAN_CUDA_AXIS_ROWS_VEC=0" \
    "PSCAN_CUDA_AXIS_LB_MIN_LINES=1000000 PSCAN_CUDA_AXIS_ROWS=0"; do
    log "test_axis --backend cuda (PSCAN_TEST_QUICK=1, $env)"
    # shellcheck disable=SC2086
    env PSCAN_TEST_QUICK=1 $env ./build-gpu/tests/test_axis --backend cuda >"$OUT/axis-lbcols.log" 2>&1 ||
      { status=1; grep -m 10 FAIL "$OUT/axis-lbcols.log" | tee -a "$OUT/axis-summary.txt"; }
    tail -1 "$OUT/axis-lbcols.log" | tee -a "$OUT/axis-summary.txt"
  done
fi
if has strips; then
  for lanes in 8 256; do
    log "test_axis --backend cuda (PSCAN_TEST_QUICK=1, PSCAN_CUDA_AXIS_STRIPS_LANES=$lanes)"
    PSCAN_TEST_QUICK=1 PSCAN_CUDA_AXIS_STRIPS_LANES=$lanes ./build-gpu/tests/test_axis --backend cuda \
      >"$OUT/axis-strips-$lanes.log" 2>&1 ||
      { status=1; grep -m 10 FAIL "$OUT/axis-strips-$lanes.log" | tee -a "$OUT/axis-summary.txt"; }
    tail -1 "$OUT/axis-strips-$lanes.log" | tee -a "$OUT/axis-summary.txt"
  done
fi
if has sanitize; then
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    log "compute-sanitizer $tool test_axis --backend cuda (PSCAN_TEST_SANITIZE=1)"
    # shellcheck disable=SC2086
    env PSCAN_TEST_SANITIZE=1 ${SANITIZE_ENV:-} compute-sanitizer --tool "$tool" --error-exitcode 9 \
      ./build-gpu/tests/test_axis --backend cuda >"$OUT/axis-sanitize-$tool.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|passed, " "$OUT/axis-sanitize-$tool.log" | tail -2 | tee -a "$OUT/axis-summary.txt"
  done
fi
if has bench; then
  log "pscan_axis_bench --gpu"
  ./build-gpu/pscan_axis_bench --gpu --reps 21 --csv "$OUT/axis-bench-gpu.csv" 2>&1 |
    tee "$OUT/axis-bench-gpu.txt" | tee -a "$OUT/axis-summary.txt"
  log "pscan_axis_bench (CPU, $(nproc) threads)"
  ./build-gpu/pscan_axis_bench --reps 11 --csv "$OUT/axis-bench-cpu.csv" 2>&1 |
    tee "$OUT/axis-bench-cpu.txt" | tee -a "$OUT/axis-summary.txt"
fi
if has ab; then
  # the default, each environment set of $AB_ENV (sets separated by ';'), then each program of
  # $AB_BINS (';'-separated; $AB_BINS_TAR unpacked first), $AB_ROUNDS rounds
  IFS=';' read -ra ab_envs <<<"${AB_ENV:-}"
  IFS=';' read -ra ab_bins <<<"${AB_BINS:-}"
  [ -z "${AB_BINS_TAR:-}" ] || tar xJf "$AB_BINS_TAR" || { log "UNPACK FAILED: $AB_BINS_TAR"; exit 1; }
  variants=("./build-gpu/pscan_axis_bench|")
  for e in ${ab_envs[@]+"${ab_envs[@]}"}; do variants+=("./build-gpu/pscan_axis_bench|$e"); done
  for b in ${ab_bins[@]+"${ab_bins[@]}"}; do variants+=("$b|"); done
  csvs=()
  for round in $(seq "${AB_ROUNDS:-2}"); do
    for i in "${!variants[@]}"; do
      bin=${variants[$i]%%|*} envs=${variants[$i]#*|}
      log "pscan_axis_bench --gpu ($bin, env: ${envs:-default}, round $round)"
      # shellcheck disable=SC2086
      env $envs "$bin" --gpu --reps 11 ${AB_ARGS:-} --csv "$OUT/axis-ab-$i-$round.csv" \
        >"$OUT/axis-ab-$i-$round.txt" 2>&1 || status=1
      csvs+=("$OUT/axis-ab-$i-$round.csv")
    done
  done
  log "A/B: % of copy (columns: default, AB_ENV's sets, AB_BINS' programs in order; rounds after each other)"
  python3 - "${csvs[@]}" <<'PY' | tee -a "$OUT/axis-summary.txt"
import csv, sys
runs = [{(r["kind"][:3], r["dtype"], r["shape"], r["axis_or_k"]): r["pct_of_copy"]
         for r in csv.DictReader(open(f))} for f in sys.argv[1:]]
for key in runs[0]:
    print("%-3s %-5s %-22s %7s " % key + " ".join("%6s" % run.get(key, "-")[:6] for run in runs))
PY
fi
if has prof; then
  # ncu of one side_rows launch (after the warm-up) per shape of $PROF_SHAPES and environment
  # set of $PROF_ENV (';'-separated, the first the default); clocks left alone (device README).
  IFS=';' read -ra prof_envs <<<"${PROF_ENV:-}"
  prof_envs=("" "${prof_envs[@]}")
  for shape in ${PROF_SHAPES:-"(1048576,64)" "(2097152,128)"}; do
    for i in "${!prof_envs[@]}"; do
      name=prof-$(echo "$shape" | tr -d '()' | tr ',' x)-${PROF_TYPE:-f32}-$i
      log "ncu side_rows $shape ${PROF_TYPE:-f32} (env: ${prof_envs[$i]:-default})"
      # shellcheck disable=SC2086
      env ${prof_envs[$i]} ncu --clock-control none --set full --import-source no -k "regex:side_rows" \
        --launch-skip 1 --launch-count 1 -o "$OUT/$name" ./build-gpu/pscan_axis_bench --gpu --reps 3 \
        --shape "$shape" --axis 0 --type "${PROF_TYPE:-f32}" --no-segments >"$OUT/$name.log" 2>&1 || status=1
      ncu --import "$OUT/$name.ncu-rep" --page details >"$OUT/$name.txt" 2>&1
      # the warps' stall reasons and L2 sectors by kind, and the SASS with its samples
      ncu --import "$OUT/$name.ncu-rep" --page raw --csv 2>&1 | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
for k, v in zip(rows[0], rows[2] if len(rows) > 2 else []):
    if "pcsamp_warps_issue_stalled" in k and not k.endswith("_not_issued") or k.startswith("lts__t_sectors_srcunit") or k.startswith("dram__bytes"):
        print(k, v)' >"$OUT/$name-raw.txt"
      ncu --import "$OUT/$name.ncu-rep" --page source --csv --print-source sass >"$OUT/$name-sass.csv" 2>&1
      grep -E "DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|Stall" \
        "$OUT/$name.txt" | head -24 | tee -a "$OUT/axis-summary.txt"
    done
  done
fi
if has peers; then
  log "bench/py_axis_peers.py --gpu"
  python3 bench/py_axis_peers.py --gpu --reps 21 --csv "$OUT/axis-peers-gpu.csv" 2>&1 |
    tee "$OUT/axis-peers-gpu.txt" | tee -a "$OUT/axis-summary.txt"
  log "bench/py_axis_peers.py --cpu (numpy)"
  python3 bench/py_axis_peers.py --cpu --reps 5 --csv "$OUT/axis-peers-cpu.csv" 2>&1 |
    tee "$OUT/axis-peers-cpu.txt" | tee -a "$OUT/axis-summary.txt"
fi
log "done (status $status)"
exit $status
