#!/usr/bin/env bash
# A/B of a compile-time setting of the by-key kernels (reduce_by_key, scan_by_key) on the device
# machine, in one call:
#   scripts/gpu-bykey.sh [build] [test] [ab]        (default: all three)
# build: build-gpu (as the tree is) and build-ab (the same tree with $AB_FLAGS, default
#        -DPSCAN__BY_KEY_ITEMS=8: 8 items a thread, 2048-item tiles) side by side, -j8 each, the
#        tool and the compaction tests only.
# test:  the compaction suite on the GPU from both builds (PSCAN_TEST_QUICK=1).
# ab:    `pscan bench --gpu --sweep --ops $AB_OPS` from both builds, alternating, $ROUNDS rounds
#        (3), then per op and size: the median over rounds of B's GB/s over A's (min / median /
#        max over the run lengths) and each side's worst x CUB.
# Results go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" bykey-summary.txt "build test ab" -- "$@"
AB_FLAGS=${AB_FLAGS:--DPSCAN__BY_KEY_ITEMS=8}
AB_OPS=${AB_OPS:-reduce_by_key,scan_by_key}
ROUNDS=${ROUNDS:-3}
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), commit ${PSCAN_COMMIT:-?}; B: $AB_FLAGS"

if has build; then
  t0=$SECONDS
  build_one() { # dir, extra CUDA flags
    cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON "-DCMAKE_CUDA_FLAGS=$2" &&
      cmake --build "$1" -j8 --target pscan_tool test_compact
  }
  build_one build-gpu "" >"$OUT/build-a.log" 2>&1 &
  a=$!
  build_one build-ab "$AB_FLAGS" >"$OUT/build-b.log" 2>&1 &
  b=$!
  wait $a || { log "A BUILD FAILED"; tail -30 "$OUT/build-a.log"; exit 1; }
  wait $b || { log "B BUILD FAILED"; tail -30 "$OUT/build-b.log"; exit 1; }
  log "built in $((SECONDS - t0)) s"
fi
if has test; then
  for side in gpu ab; do
    t0=$SECONDS
    PSCAN_TEST_QUICK=1 "./build-$side/tests/test_compact" --backend cuda >"$OUT/test-$side.log" 2>&1 ||
      { status=1; log "$side: test_compact FAILED"; grep -m5 -iE "fail|mismatch" "$OUT/test-$side.log"; }
    log "$side: $(tail -1 "$OUT/test-$side.log") ($((SECONDS - t0)) s)"
  done
fi
if has ab; then
  for round in $(seq "$ROUNDS"); do
    for side in gpu ab; do
      "./build-$side/pscan" bench --gpu --sweep --ops "$AB_OPS" --csv "$OUT/ab-$side-$round.csv" \
        >"$OUT/ab-$side-$round.txt" 2>&1 || { status=1; log "$side round $round FAILED"; tail -3 "$OUT/ab-$side-$round.txt"; }
    done
  done
  python3 - "$OUT" "$ROUNDS" <<'EOF' | tee -a "$OUT/bykey-summary.txt"
import csv, statistics, sys, collections
out, rounds = sys.argv[1], int(sys.argv[2])
med = {}
for side in ("gpu", "ab"):
    pts = collections.defaultdict(list)
    for r in range(1, rounds + 1):
        for row in csv.DictReader(open(f"{out}/ab-{side}-{r}.csv")):
            k = (row["op"], row["key_type"], int(row["n"]), int(row["run_length"]))
            pts[k].append((float(row["pscan_GBps"]), float(row["cub_GBps"]), float(row["copy_GBps"])))
    med[side] = {k: tuple(statistics.median(x[i] for x in v) for i in range(3)) for k, v in pts.items()}
groups = collections.defaultdict(list)
for k in med["gpu"]:
    if k in med["ab"]:
        groups[k[:3]].append(k)
print("op             key  n       B/A min  med   max   | A: worst xCUB  %copy | B: worst xCUB  %copy")
for g in sorted(groups):
    ks = groups[g]
    ratio = sorted(med["ab"][k][0] / med["gpu"][k][0] for k in ks)
    def worst(side):
        return (min(med[side][k][0] / med[side][k][1] for k in ks),
                min(100 * med[side][k][0] / med[side][k][2] for k in ks))
    a, b = worst("gpu"), worst("ab")
    print(f"{g[0]:14} {g[1]:4} 2^{g[2].bit_length() - 1:<5} {ratio[0]:6.3f} {statistics.median(ratio):5.3f} "
          f"{ratio[-1]:5.3f} |   {a[0]:5.2f}x  {a[1]:5.1f}% |   {b[0]:5.2f}x  {b[1]:5.1f}%")
EOF
fi
log "done, status $status"
exit $status
