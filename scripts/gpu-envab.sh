#!/usr/bin/env bash
# A/B of environment settings of one build (and optionally of another source tree), in one call
# on the device machine:
#   ENVS='X=1;X=2 Y=3' [ARGS='...|...'] [ROUNDS=2] [TREE_B=DIR] \
#     scripts/gpu-envab.sh [build] [test] [ab] [prof]
# build: pscan_gpu_bench (and test_scan with the test step), Release, in build-gpu; with TREE_B
#        (a source tree, e.g. `git archive REV` unpacked into ab-base/ and carried) also its
#        pscan_gpu_bench in build-tree, the two builds side by side (-j8 each).
# test:  ctest of $TESTS (default: scan_cuda and its lb variants, each with its own
#        environment).
# ab:    pscan_gpu_bench with each argument set of $ARGS ('|'-separated; default: the scans of
#        i32, f32, i64, f64 at 2^20-2^28, quick) once per setting of $ENVS (';'-separated; the
#        baseline, no setting, runs first; TREE_B's build runs last, as "tree"), the settings
#        alternating within each of $ROUNDS rounds. Each run's CSV goes to $OUT (packed into
#        envab-runs.tgz); pscan's AUTO rows and the copy's, per setting, to envab-summary.txt.
# prof:  ncu (--set full) of one launch of kernel $PROF_KERNEL (default the f64 sum scan) in
#        pscan_gpu_bench $PROF_ARGS (default f64 at 2^20) per setting: duration and stall
#        reasons to the summary, the details pages packed with the runs.
. "$(dirname "$0")/gpu-common.sh" envab-summary.txt "build ab" -- "$@"
ARGS=${ARGS:---quick --min-log 20 --max-log 28 --types i32,f32,i64,f64}
ROUNDS=${ROUNDS:-2}
TREE_B=${TREE_B:-}
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
log "$gpu, $(nproc) CPUs, commit ${PSCAN_COMMIT:-?}${TREE_B:+, tree B: $TREE_B}"
IFS=';' read -ra settings <<<";${ENVS:-}"
bench_of() { # setting index -> the command that runs the benchmark for it
  if [[ ${settings[$1]} == tree ]]; then
    echo ./build-tree/pscan_gpu_bench
  else
    echo "env ${settings[$1]} ./build-gpu/pscan_gpu_bench"
  fi
}
[ -n "$TREE_B" ] && settings+=(tree)
targets=(pscan_gpu_bench)
has test && targets+=(test_scan)
if has build; then
  t0=$SECONDS
  if [ -n "$TREE_B" ]; then
    (GPU_BUILD_SRC=$TREE_B GPU_BUILD_JOBS=8 gpu_build build-tree build-tree.log pscan_gpu_bench) &
    tree_pid=$!
    GPU_BUILD_JOBS=8 gpu_build build-gpu build.log "${targets[@]}"
    wait "$tree_pid" # (its status is the warnings grep's)
    [ -x build-tree/pscan_gpu_bench ] || { log "BUILD FAILED (build-tree)"; exit 1; }
  else
    gpu_build build-gpu build.log "${targets[@]}"
  fi
  log "built in $((SECONDS - t0)) s"
fi
if has test; then
  gpu_tests build-gpu ctest.log \
    "${TESTS:-scan_cuda|scan_cuda_lb_eager_off|scan_cuda_lb_eager_all|scan_cuda_lb_block_off}"
fi
if has ab; then
  IFS='|' read -ra arg_sets <<<"$ARGS"
  for round in $(seq 1 "$ROUNDS"); do
    for a in "${!arg_sets[@]}"; do
      for k in "${!settings[@]}"; do
        label=${settings[$k]:-baseline}
        f="$OUT/envab-r$round-a$a-s$k"
        # shellcheck disable=SC2086
        $(bench_of "$k") ${arg_sets[$a]} --csv "$f.csv" >"$f.txt" 2>&1 || status=1
        log "round $round: $label: ${arg_sets[$a]}"
        grep -E "^(memcpy|pscan +auto +auto) " "$f.txt" | tee -a "$OUT/envab-summary.txt"
      done
    done
  done
fi
if has prof; then
  for k in "${!settings[@]}"; do
    label=${settings[$k]:-baseline}
    f="$OUT/envab-prof-s$k"
    kernel=${PROF_KERNEL:-scan_kernel_F64_F64_SUM\$}
    log "ncu $kernel ($label)"
    # shellcheck disable=SC2046,SC2086
    ncu --clock-control none --set full --import-source no -k "regex:$kernel" --launch-skip 5 \
      --launch-count 1 -o "$f" $(bench_of "$k") \
      ${PROF_ARGS:---quick --min-log 20 --max-log 20 --types f64} >"$f.log" 2>&1 || status=1
    ncu --import "$f.ncu-rep" --page details >"$f.txt" 2>&1
    metrics="Duration|DRAM Throughput|L2 Cache Throughput|Achieved Occupancy|Registers Per Thread"
    grep -E "^ +($metrics|Issue Slots Busy|Warp Cycles Per Issued)" "$f.txt" |
      tee -a "$OUT/envab-summary.txt"
    rm -f "$f.ncu-rep"
  done
fi
log "status $status"
# the device tool returns at most 8 files: the runs travel as one archive
# shellcheck disable=SC2046
(cd "$OUT" && tar czf envab-runs.tgz $(ls envab-r* envab-prof* build*.log ctest.log 2>/dev/null) &&
  rm -f envab-r*.csv envab-r*.txt envab-prof* build*.log ctest.log)
exit $status
