#!/usr/bin/env bash
# The sweep of `pscan bench --sweep` on the device machine, in one call:
#   scripts/gpu-sweep.sh [build] [test] [gpu] [cpu]      (default: all four)
# build: CUDA build in build-sweep (cmake -j16): the tool and the compaction tests; with cpu as
#        the only other step, a CPU-only build in build-sweep-cpu (under a minute: the 600 s of a
#        device call go to the sweep).
# test:  the compaction suite on both backends first (PSCAN_TEST_QUICK=1: runs of exactly 1, 2,
#        3, tile -+ 1 items at n = tile -+ 1, 2 tile -+ 1 on one type of each item size; the rest
#        of the suite thinned): a fast kernel that fails one case is not fast.
# gpu:   pscan bench --gpu --sweep: the compaction family and the scans against CUB and
#        cudaMemcpy -> $OUT/compact_sweep_h100.csv, plots $OUT/sweep-gpu-*.png
# cpu:   pscan bench --cpu --sweep --threads 16 -> $OUT/compact_sweep_cpu16.csv, $OUT/sweep-cpu-*.png
# Then a summary: the worst point per op as x CUB (x peer on the CPU) and % of copy.
# $SWEEP_ARGS: extra arguments for both sweeps (e.g. --quick, --ops unique,reduce_by_key,
# --sizes 2^24). Results go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" sweep-summary.txt "build test gpu cpu" -- "$@"
B=build-sweep
# `build cpu` alone needs no CUDA: the CPU-only tool builds in a fraction of the time.
cpu_only=false
if has cpu && ! has gpu && ! has test; then cpu_only=true; B=build-sweep-cpu; fi

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv >"$OUT/gpu.txt" 2>&1 ||
  echo "no GPU (nvidia-smi failed)" >"$OUT/gpu.txt"
log "$(tail -1 "$OUT/gpu.txt"), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"

if has build; then
  log "build ($B, -j16)"
  t0=$SECONDS
  if $cpu_only; then
    cfg=(-DPSCAN_CUDA=OFF) targets=(pscan_tool test_compact)
  else
    cfg=(-DPSCAN_CUDA=ON) targets=(pscan_tool test_compact)
  fi
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release "${cfg[@]}" >"$OUT/sweep-build.log" 2>&1 &&
    cmake --build $B -j16 --target "${targets[@]}" \
      >>"$OUT/sweep-build.log" 2>&1 || { log "BUILD FAILED"; tail -40 "$OUT/sweep-build.log"; exit 1; }
  log "built in $((SECONDS - t0)) s"
fi
if has test; then
  for test in test_compact test_cuda_compact; do
    log "$test (PSCAN_TEST_QUICK=1)"
    t0=$SECONDS
    backend=cpu; [ "$test" = test_cuda_compact ] && backend=cuda
    PSCAN_TEST_QUICK=1 "./$B/tests/test_compact" --backend $backend >"$OUT/sweep-$test.log" 2>&1 || { status=1; log "$test FAILED"; }
    grep -E "exact run lengths|passed" "$OUT/sweep-$test.log" | tee -a "$OUT/sweep-summary.txt"
    log "$test: $((SECONDS - t0)) s"
  done
fi
# The plots need a tool built with cairo (libcairo2-dev); without it the sweeps run without them.
plot() { if pkg-config --exists cairo 2>/dev/null; then echo "--plot $1"; fi; }
[ -n "$(plot x)" ] || log "no cairo here: the sweeps run without --plot"
# shellcheck disable=SC2086 # SWEEP_ARGS and $(plot) are lists of arguments
if has gpu; then
  log "pscan bench --gpu --sweep ${SWEEP_ARGS:-}"
  t0=$SECONDS
  "./$B/pscan" bench --gpu --sweep ${SWEEP_ARGS:-} --csv "$OUT/compact_sweep_h100.csv" \
    $(plot "$OUT/sweep-gpu") >"$OUT/sweep-gpu.txt" 2>"$OUT/sweep-gpu.err" || { status=1; log "GPU SWEEP FAILED"; tail -5 "$OUT/sweep-gpu.err"; }
  log "GPU sweep: $((SECONDS - t0)) s"
  sed -n '/^summary/,/^wrote/p' "$OUT/sweep-gpu.txt" | tee -a "$OUT/sweep-summary.txt"
fi
if has cpu; then
  log "pscan bench --cpu --sweep --threads 16 ${SWEEP_ARGS:-}"
  t0=$SECONDS
  "./$B/pscan" bench --cpu --sweep --threads 16 ${SWEEP_ARGS:-} --csv "$OUT/compact_sweep_cpu16.csv" \
    $(plot "$OUT/sweep-cpu") >"$OUT/sweep-cpu.txt" 2>"$OUT/sweep-cpu.err" || { status=1; log "CPU SWEEP FAILED"; tail -5 "$OUT/sweep-cpu.err"; }
  log "CPU sweep: $((SECONDS - t0)) s"
  sed -n '/^summary/,/^wrote/p' "$OUT/sweep-cpu.txt" | tee -a "$OUT/sweep-summary.txt"
fi
log "done, status $status (files under $OUT)"
exit $status
