#!/usr/bin/env bash
# The GPU side of the shared-code changes of wt/dups3, on the device machine:
#   scripts/gpu-dups3.sh [build] [test] [bench]   (default: all)
# build: a CUDA build in build-gpu-dups3 (-j16) of the tool and the tests below;
# test:  with PSCAN_TEST_SEED=1 (pass counts comparable between two trees): cuda_compact
#        (test_compact's phases now from one table), cuda_axis_user_op and cuda_user_op_api (the
#        axis refusals from tests/axis_op_refusals.h), cuda_user_op and cuda_axis (the
#        user-operator axis program with PA_SHUFFLE, the stamps with scan_ops_end.cuh), scan_cuda
#        in quick mode (the scan stamps), and jit_compile;
# bench: pscan bench --gpu --quick (gpu_timer.c's batches) and pscan bench --gpu --sweep on a
#        small grid (gpu_timer.c, sweep_refill in bench_sweep.c): both must run to the end and
#        check their outputs; the figures are not the point (no before/after claim).
# Logs go to $OUT (the device tool's output folder) or ./gpu-out; a summary in dups3-summary.txt.
. "$(dirname "$0")/gpu-common.sh" dups3-summary.txt "build test bench" -- "$@"
B=build-gpu-dups3
export PSCAN_CACHE_DIR="$PWD/$B/op-cache"

log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"
if has build; then
  gpu_build "$B" dups3-build.log pscan_tool test_compact test_scan test_axis test_user_op \
    test_cuda_axis_user_op test_cuda_user_op_api test_cuda_user_op test_jit_compile
fi
if has test; then
  gpu_tests "$B" dups3-test.log 'cuda_compact|cuda_axis_user_op|cuda_user_op_api|cuda_user_op|cuda_axis|jit_compile'
  log "scan_cuda (PSCAN_TEST_QUICK=1)"
  PSCAN_TEST_SEED=1 PSCAN_TEST_QUICK=1 "./$B/tests/test_scan" --backend cuda \
    >"$OUT/dups3-scan.log" 2>&1 || status=1
  tail -1 "$OUT/dups3-scan.log" | tee -a "$OUT/dups3-summary.txt"
fi
if has bench; then
  log "pscan bench --gpu --quick"
  "./$B/pscan" bench --gpu --quick --types i32 >"$OUT/dups3-bench-gpu.txt" 2>&1 ||
    { status=1; log "BENCH --gpu FAILED"; }
  tail -5 "$OUT/dups3-bench-gpu.txt" | tee -a "$OUT/dups3-summary.txt"
  log "pscan bench --gpu --sweep (small grid)"
  "./$B/pscan" bench --gpu --sweep --sizes 2^20,2^24 --types i32 --reps 3 \
    --csv "$OUT/dups3-sweep-gpu.csv" >"$OUT/dups3-sweep-gpu.txt" 2>&1 ||
    { status=1; log "BENCH --gpu --sweep FAILED"; }
  tail -5 "$OUT/dups3-sweep-gpu.txt" | tee -a "$OUT/dups3-summary.txt"
fi
log "done (status $status)"
exit $status
