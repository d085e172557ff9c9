#!/usr/bin/env bash
# Builds CUDA programs on this machine and packs them for the device tool's `carry`, so that a
# device call skips its own build (~150 s of its 30-minute budget):
#   scripts/pack-gpu-bins.sh TARGET...        e.g. scripts/pack-gpu-bins.sh test_axis pscan_axis_bench
# Build folder build-cuda (Release, PSCAN_CUDA=ON, sm_90: the device's H100 / H200); from clean
# ~35 min on 2 cores, minutes when a few units changed. Output: build-carry/bins.tar.xz, paths as
# in the build folder (tests/test_axis, pscan_axis_bench); carry ["build-carry"] (64 MiB at most:
# two programs with every kernel pack to ~37 MB) and give the scripts PREBUILT=build-carry/bins.tar.xz
# (scripts/gpu-axis.sh unpacks it into build-gpu instead of building). The programs link the CUDA
# runtime statically; they need glibc 2.34 or later there.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 TARGET..." >&2; exit 2; }
B=build-cuda
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build $B -j"$(nproc)" --target "$@"
paths=()
for t in "$@"; do
  p=$(cd $B && find . -path ./CMakeFiles -prune -o -type f -name "$t" -perm -u+x -print | head -1)
  [ -n "$p" ] || { echo "$0: no program $t in $B" >&2; exit 1; }
  paths+=("$p")
done
mkdir -p build-carry
tar cJf build-carry/bins.tar.xz -C $B "${paths[@]}"
ls -la build-carry/bins.tar.xz
