#!/usr/bin/env bash
# Builds the Python package (python/) into a virtual environment and runs its pytest suite.
#   scripts/python-test.sh [VENV]      (default build/pyenv; `make test` calls it)
# The venv gets scikit-build-core, nanobind, numpy, pytest, hypothesis, dask and mpi4py from
# PyPI; the package is built CPU-only unless PSCAN_PYTHON_CUDA=ON|AUTO is set. Rebuilds are
# incremental (the CMake build lives beside the venv).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/pyenv}
mkdir -p "$(dirname "$venv")"
venv=$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || {
    echo "python-test: 'python3 -m venv' failed: install python3-venv (.ci/run does)" >&2; exit 1; }
fi
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "nanobind>=2.0" numpy pytest hypothesis
# pscan.dask and pscan.mpi's tests (tests/test_mpi_dask.py; mpi4py's wheel finds the Open MPI
# that .ci/run installs): without them those tests skip, and say why
"$py" -m pip install -q --disable-pip-version-check "dask[array]" mpi4py ||
  echo "python-test: dask or mpi4py could not be installed: their tests will skip" >&2
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation \
  -Cbuild-dir="$venv.build" ./python
echo "python-test: $("$py" -c 'import pscan; print("pscan", pscan.library_version())')"
cd python/tests
"$venv/bin/pytest" -q -p no:cacheprovider .   # more options: PYTEST_ADDOPTS
