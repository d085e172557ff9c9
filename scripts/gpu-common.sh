# The start every scripts/gpu-*.sh shares; sourced as
#   . "$(dirname "$0")/gpu-common.sh" SUMMARY "DEFAULT STEPS" [OUT DEFAULT] -- "$@"
# It stops on unset variables and failed pipes, goes to the repository root, and defines OUT (the
# device tool's output folder, else ./gpu-out or the given default; created), steps (the
# script's arguments, else DEFAULT STEPS), has STEP (whether STEP is to run), status=0 (what the
# script exits with), and log MESSAGE ("== MESSAGE" to stdout and to $OUT/SUMMARY).
set -uo pipefail
cd "$(dirname "$0")/.."
gpu_summary=$1
gpu_default_steps=$2
gpu_default_out=$PWD/gpu-out
if [ "${3:-}" != "--" ]; then
  gpu_default_out=$PWD/$3
  shift
fi
shift 3
OUT=${OUT:-$gpu_default_out}
mkdir -p "$OUT"
steps=${*:-$gpu_default_steps}
has() { [[ " $steps " == *" $1 "* ]]; }
status=0
log() { echo "== $*" | tee -a "$OUT/$gpu_summary"; }

# gpu_build DIR LOG [TARGET...]: a Release CUDA build in DIR (-j$GPU_BUILD_JOBS, default 16; the
# targets named, else all) of the source tree $GPU_BUILD_SRC (default: this one), its output in
# $OUT/LOG; the compiler's warnings (not ptxas's) to the summary. On failure: logs BUILD FAILED
# with the log's tail, and exits 1.
gpu_build() {
  local dir=$1 blog=$OUT/$2 targets=()
  shift 2
  [ $# -gt 0 ] && targets=(--target "$@")
  log "build ($dir${GPU_BUILD_SRC:+ from $GPU_BUILD_SRC})"
  cmake -S "${GPU_BUILD_SRC:-.}" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON \
    >"$blog" 2>&1 &&
    cmake --build "$dir" -j"${GPU_BUILD_JOBS:-16}" ${targets[@]+"${targets[@]}"} >>"$blog" 2>&1 ||
    { log "BUILD FAILED"; tail -40 "$blog"; exit 1; }
  grep -E "warning:" "$blog" | grep -v ptxas | head -20 | tee -a "$OUT/$gpu_summary"
}

# gpu_tests DIR LOG NAMES: the ctest tests of DIR named by NAMES (a|b|c), verbose, with
# PSCAN_TEST_SEED=1 (pass counts comparable between two trees), $GPU_TEST_JOBS (default 1) at a
# time, into $OUT/LOG; each program's pass count and ctest's verdict to the summary; status=1
# when one fails.
gpu_tests() {
  log "tests (PSCAN_TEST_SEED=1): ${3//|/, }"
  PSCAN_TEST_SEED=1 ctest --test-dir "$1" -R "^($3)\$" -V -j "${GPU_TEST_JOBS:-1}" \
    >"$OUT/$2" 2>&1 || status=1
  grep -E "^[0-9]+: (test_|SKIP)|passed, [0-9]+ failed|tests passed|tests failed|\*\*\*Failed|Not Run" \
    "$OUT/$2" | tee -a "$OUT/$gpu_summary"
}
