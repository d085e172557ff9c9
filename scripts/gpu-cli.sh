#!/usr/bin/env bash
# The tool's file commands on a machine with a GPU (issue 28): builds the tool with CUDA, then
# runs tests/test_cli.py (its GPU pass: --backend cuda) and tests/test_cli_safety.py (outputs,
# signals, truncated inputs, same-file outputs, modes, messages, numpy expectations) against it,
# and records what `--backend cuda` says about the driver. Run from the repository root on the
# device machine: scripts/gpu-cli.sh. Results go to $OUT (the device tool's output folder) or
# ./gpu-out; exit status non-zero if a test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
status=0
log() { echo "== $*" | tee -a "$OUT/cli-summary.txt"; }

nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/cli-gpu.txt" 2>&1
log "$(tail -1 "$OUT/cli-gpu.txt"), commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"

log "build (CUDA, tool only)"
cmake -S . -B build-gpu-cli -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON >"$OUT/cli-build.log" 2>&1 &&
  cmake --build build-gpu-cli -j "$(nproc)" --target pscan_tool >>"$OUT/cli-build.log" 2>&1 ||
  { log "BUILD FAILED"; tail -40 "$OUT/cli-build.log"; exit 1; }
tool=build-gpu-cli/pscan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for t in test_cli test_cli_safety; do
  log "$t"
  if python3 "tests/$t.py" "$tool" "$work/$t" >"$OUT/$t.log" 2>&1; then
    log "$t: $(tail -1 "$OUT/$t.log")"
  else
    status=1
    log "$t FAILED: $(tail -1 "$OUT/$t.log")"
    grep -E "^FAIL" "$OUT/$t.log" | head -20 | tee -a "$OUT/cli-summary.txt"
  fi
done

log "--backend cuda on a small file (the GPU's answer, for the record)"
python3 - "$work/x.npy" <<'EOF'
import struct, sys
d = "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }"
total = (10 + len(d) + 1 + 63) // 64 * 64
d += " " * (total - 10 - len(d) - 1) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() +
                              struct.pack("<4q", 1, 2, 3, 4))
EOF
"$tool" scan --backend cuda "$work/x.npy" - >>"$OUT/cli-summary.txt" 2>&1 || status=1
"$tool" scan --algo sequential --backend cuda "$work/x.npy" - >>"$OUT/cli-summary.txt" 2>&1
[ $? -eq 2 ] || { status=1; log "--algo sequential --backend cuda: want exit status 2"; }
exit $status
