#!/usr/bin/env bash
# The flat scan's kernels checked in one call on the device machine:
#   [CHECK_ENVS='A=1 B=2;C=3'] scripts/gpu-scancheck.sh [build] [sanitize] [perturb] [sweep]
# build:    pscan_tool and test_scan in build-gpu (-j16); with perturb, test_scan of a
#           PSCAN_CUDA_PERTURB build in build-perturb at the same time (-j8 each).
# sanitize: compute-sanitizer memcheck, racecheck and synccheck on test_scan --backend cuda
#           (its PSCAN_TEST_SANITIZE=1 slice) once per setting of $CHECK_ENVS (';'-separated,
#           an empty one being the default environment; default: that alone), each cut at
#           $SAN_SECONDS (default 150) s.
# perturb:  the perturbed build's test_scan --backend cuda (PSCAN_TEST_QUICK=1; tiles sleep before
#           they publish) per setting of $PERTURB_ENVS (the same form; default: $CHECK_ENVS's).
# sweep:    `pscan bench --gpu --sweep --ops scan` (every dtype, 2^10 .. 2^30) -> scan_sweep.csv.
. "$(dirname "$0")/gpu-common.sh" scancheck-summary.txt "build sanitize perturb" -- "$@"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
log "$gpu, commit ${PSCAN_COMMIT:-?}"
IFS=';' read -ra settings <<<"${CHECK_ENVS:-;}"
[ ${#settings[@]} -gt 0 ] || settings=("")
if has build; then
  t0=$SECONDS
  if has perturb; then
    { cmake -S . -B build-perturb -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON \
        -DPSCAN_CUDA_PERTURB=ON -DPSCAN_BUILD_TOOLS=OFF &&
        cmake --build build-perturb -j8 --target test_scan; } \
      >"$OUT/build-perturb.log" 2>&1 &
    perturb_pid=$!
    GPU_BUILD_JOBS=8 gpu_build build-gpu build.log pscan_tool test_scan
    wait "$perturb_pid" ||
      { log "PERTURB BUILD FAILED"; tail -20 "$OUT/build-perturb.log"; exit 1; }
  else
    gpu_build build-gpu build.log pscan_tool test_scan
  fi
  log "built in $((SECONDS - t0)) s"
fi
if has sanitize; then
  for k in "${!settings[@]}"; do
    for tool in memcheck racecheck synccheck; do
      f="$OUT/sanitize-$tool-s$k.log"
      log "compute-sanitizer $tool, test_scan --backend cuda (PSCAN_TEST_SANITIZE=1;" \
        "env ${settings[$k]:-default})"
      # shellcheck disable=SC2086
      env ${settings[$k]} PSCAN_TEST_SANITIZE=1 timeout "${SAN_SECONDS:-150}" compute-sanitizer \
        --tool "$tool" --error-exitcode 9 ./build-gpu/tests/test_scan --backend cuda >"$f" 2>&1
      rc=$?
      tail -2 "$f" | tee -a "$OUT/scancheck-summary.txt"
      [ $rc -eq 0 ] || { [ $rc -eq 124 ] && log "$tool: cut at ${SAN_SECONDS:-150} s"; } ||
        { status=1; log "$tool exit $rc"; }
    done
  done
fi
if has perturb; then
  IFS=';' read -ra settings <<<"${PERTURB_ENVS:-${CHECK_ENVS:-;}}"
  [ ${#settings[@]} -gt 0 ] || settings=("")
  for k in "${!settings[@]}"; do
    log "perturbed test_scan --backend cuda (PSCAN_TEST_QUICK=1; env ${settings[$k]:-default})"
    # shellcheck disable=SC2086
    env ${settings[$k]} PSCAN_TEST_QUICK=1 timeout 300 ./build-perturb/tests/test_scan \
      --backend cuda >"$OUT/perturb-s$k.log" 2>&1 || status=1
    tail -1 "$OUT/perturb-s$k.log" | tee -a "$OUT/scancheck-summary.txt"
  done
fi
if has sweep; then
  log "pscan bench --gpu --sweep --ops scan"
  ./build-gpu/pscan bench --gpu --sweep --ops scan --csv "$OUT/scan_sweep.csv" \
    >"$OUT/scan_sweep.txt" 2>&1 || status=1
  tail -15 "$OUT/scan_sweep.txt" >>"$OUT/scancheck-summary.txt"
fi
log "status $status"
logs="sanitize-*.log perturb-*.log build*.log scan_sweep.txt"
# shellcheck disable=SC2086,SC2046
(cd "$OUT" && tar czf scancheck-logs.tgz $(ls $logs 2>/dev/null) && rm -f $logs)
exit $status
