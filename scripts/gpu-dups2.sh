#!/usr/bin/env bash
# The GPU side of the shared-code changes in the tests and the CUDA host files, on the device
# machine:   scripts/gpu-dups2.sh [build] [test] [sanitize]   (default: all)
# build: a CUDA build in build-gpu-dups2 (-j16) of the library and the tests below;
# test: with PSCAN_TEST_SEED=1 (pass counts comparable between two trees): cuda_compact and
#   cuda_compact_nopdl (test_compact --backend cuda: one program for both backends now),
#   cuda_axis_user_op (its oracle in reference.c, its storage in axis_store.h), cuda_user_op_api,
#   cuda_user_op and cuda_axis (the flat-line and launch-parameter paths of axis_host.c and
#   jit_axis.c), compact and axis on the CPU beside them, and jit_compile;
# sanitize: test_compact --backend cuda under compute-sanitizer memcheck (PSCAN_TEST_SANITIZE=1).
# Logs go to $OUT (the device tool's output folder) or ./gpu-out; a summary in dups2-summary.txt.
. "$(dirname "$0")/gpu-common.sh" dups2-summary.txt "build test sanitize" -- "$@"
B=build-gpu-dups2
export PSCAN_CACHE_DIR="$PWD/$B/op-cache"

log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"
if has build; then
  gpu_build "$B" dups2-build.log pscan test_compact test_axis test_user_op \
    test_cuda_axis_user_op test_cuda_user_op_api test_cuda_user_op test_jit_compile
fi
if has test; then
  gpu_tests "$B" dups2-test.log \
    'compact|cuda_compact|cuda_compact_nopdl|cuda_axis_user_op|cuda_user_op_api|cuda_user_op|axis|cuda_axis|jit_compile'
fi
if has sanitize; then
  log "compute-sanitizer memcheck: test_compact --backend cuda (PSCAN_TEST_SANITIZE=1)"
  PSCAN_TEST_SANITIZE=1 timeout 540 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$B/tests/test_compact" --backend cuda >"$OUT/dups2-sanitize.log" 2>&1 || status=1
  tail -3 "$OUT/dups2-sanitize.log" | tee -a "$OUT/dups2-summary.txt"
fi
log "done (status $status)"
exit $status
