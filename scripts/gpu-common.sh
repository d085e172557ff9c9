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
