#!/usr/bin/env bash
# On the GPU machine (the image has torch, cupy, jax, nanobind, scikit-build-core, pytest and
# hypothesis; no network): builds the Python package with the CUDA backend, runs its pytest suite
# including the GPU tests, and the quick benchmark. Results under $OUT (default gpu-out/).
#   scripts/gpu-python.sh [all|build|test|bench]      (stages, for calls under a time limit)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
stage=${1:-all}
rc=0
venv=build/pyenv-gpu
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

if [ ! -x "$venv/bin/python" ]; then
  # the image's packages (torch, cupy, jax, build tools) stay visible in the venv
  python3 -m venv --system-site-packages "$venv" || rm -rf "$venv"
fi
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import scikit_build_core, nanobind, pytest" 2>/dev/null; then
  py="$(pwd)/$venv/bin/python"
else  # no venv module, or the image's packages live where a venv does not see them (seen on the
      # H100 image): install into the image's Python
  py=$(command -v python3)
  export PIP_BREAK_SYSTEM_PACKAGES=1
fi

if [ "$stage" = all ] || [ "$stage" = build ]; then
  t0=$(date +%s)
  PSCAN_PYTHON_CUDA=ON "$py" -m pip install --no-build-isolation --no-deps --no-index \
    -Cbuild-dir="$(pwd)/build/py-gpu" ./python >"$OUT/python-build.log" 2>&1 ||
    { tail -40 "$OUT/python-build.log"; exit 1; }
  echo "build (PSCAN_PYTHON_CUDA=ON, $CMAKE_BUILD_PARALLEL_LEVEL jobs): $(( $(date +%s) - t0 )) s" |
    tee "$OUT/python-build-time.txt"
  "$py" -m pscan info | tee "$OUT/python-info.txt"
fi

if [ "$stage" = all ] || [ "$stage" = test ]; then
  set +e
  ( cd python/tests && "$py" -m pytest -q -rs -p no:cacheprovider \
      --junitxml="$OUT/python-junit.xml" . ) 2>&1 | tee "$OUT/python-pytest.txt"
  rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" -eq 0 ] || echo "pytest failed (exit $rc)"
fi

if [ "$stage" = all ] || [ "$stage" = bench ]; then
  "$py" -m pscan.bench --quick --out "$OUT" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/python-bench.txt"
fi
exit "$rc"
