#!/usr/bin/env bash
# pscan.mpi against MPI + numpy and Dask on the device machine's host cores, in one call:
#   scripts/gpu-pympi.sh        (carry [".whl-dask"]: the dask wheels, `pip download --no-deps
#                                dask toolz cloudpickle partd locket fsspec click pyyaml ...`
#                                for the image's Python; the image has mpi4py, no dask)
# Builds the Python package CPU-only into a venv over the image's packages, installs dask from
# the carried wheels, then runs bench/py_mpi_peers.py under mpirun --bind-to none (Open MPI binds
# each of 1 or 2 ranks to one core by default: 16 threads then share it) with 1, 2, 4 and 8 ranks
# ($PEER_N items per rank, default 2^26 int64, the issue's weak-scaling shard; $PEER_NPS: other
# rank counts). Results: $OUT
# (py_mpi_peers.csv, the printed tables in pympi-summary.txt).
. "$(dirname "$0")/gpu-common.sh" pympi-summary.txt "build bench" -- "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
venv=build/pyenv-cpu
[ -x "$venv/bin/python" ] || python3 -m venv --system-site-packages "$venv" 2>/dev/null
py=$PWD/$venv/bin/python
if ! "$py" -c "import scikit_build_core, nanobind, mpi4py" 2>/dev/null; then
  py=$(command -v python3) # the image's packages where a venv does not see them (as gpu-python.sh)
  export PIP_BREAK_SYSTEM_PACKAGES=1
fi
log "$(nproc) CPUs, commit ${PSCAN_COMMIT:-?}, $py"
if has build; then
  t0=$SECONDS
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) PSCAN_PYTHON_CUDA=OFF "$py" -m pip install \
    --no-build-isolation --no-deps --no-index -Cbuild-dir="$PWD/build/py-cpu" ./python \
    >"$OUT/py-build.log" 2>&1 || { log "BUILD FAILED"; tail -20 "$OUT/py-build.log"; exit 1; }
  "$py" -m pip install -q --no-index --no-deps .whl-dask/*.whl >"$OUT/dask-install.log" 2>&1 ||
    log "dask: not installed (see dask-install.log)"
  log "built in $((SECONDS - t0)) s"
fi
if has bench; then
  for np_ in ${PEER_NPS:-1 2 4 8}; do
    timeout 120 mpirun --bind-to none -np "$np_" "$py" bench/py_mpi_peers.py --n "${PEER_N:-67108864}" \
      --reps 9 --csv "$OUT/py_mpi_peers.csv" >"$OUT/np$np_.txt" 2>&1 || { status=1; log "np $np_ failed"; }
    tee -a "$OUT/pympi-summary.txt" <"$OUT/np$np_.txt" | tail -8
  done
fi
log "status $status"
exit $status
