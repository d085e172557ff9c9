#!/usr/bin/env bash
# A/B of reduce_by_key's look-back kernel of 8-byte values on full against half tiles, on the
# device machine (docs/PERFORMANCE.md, "Half tiles for 8-byte values"), from build-gpu:
#   scripts/gpu-rbk-tiles.sh        ($ROUNDS rounds, default 2; $SIZES for the sweep)
# Side F: PSCAN_CUDA_BY_KEY_HALF_BELOW=0 (full tiles everywhere); side H: =12 (the by-key scan's
# default, and reduce_by_key on half tiles whatever the key size). Measured, alternating:
# i32 keys with f64 values (pscan_gpu_bench --runs, 2^28, at run lengths 1 .. 500) and i64 keys
# with f64 values (pscan bench --gpu --sweep --ops reduce_by_key --types i64). Prints, per key
# type, n and run length, the median over rounds of H's GB/s over F's; raw rows to
# $OUT/rbk-tiles.csv (side, round, then the benchmark's columns).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
raw=$OUT/rbk-tiles.csv
echo "side,round,bench,name_or_op,key_type,n,run_length,pscan_GBps,peer_GBps,copy_GBps" >"$raw"
for round in $(seq "${ROUNDS:-2}"); do
  for side in F H; do
    env=PSCAN_CUDA_BY_KEY_HALF_BELOW=$([ $side = F ] && echo 0 || echo 12)
    env "$env" ./build-gpu/pscan_gpu_bench --runs 1,4,32,500 --only reduce_by_key_f64 \
      --csv /tmp/rbk-runs.csv >/tmp/rbk-runs.txt 2>&1 || echo "runs $side $round: exit $?"
    # impl,algo,block,type,n,seconds_median,gbs,frac_copy,device -> one row per pscan/cub pair
    python3 - "$side" "$round" /tmp/rbk-runs.csv >>"$raw" <<'EOF'
import csv, sys
side, rnd, path = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
cub = {r["algo"]: r for r in rows if r["impl"] == "cub"}
for r in rows:
    if r["impl"] == "pscan" and r["algo"] in cub:
        gbs, frac = float(r["gbs"]), float(r["frac_copy"])
        length = r["algo"].rsplit("_run", 1)[1]
        print(f"{side},{rnd},runs,{r['algo']},i32+f64,{r['n']},{length},{gbs},{cub[r['algo']]['gbs']},{gbs / frac}")
EOF
    env "$env" ./build-gpu/pscan bench --gpu --sweep --ops reduce_by_key --types i64 \
      --sizes "${SIZES:-2^20,2^28}" --csv /tmp/rbk-sweep.csv >/tmp/rbk-sweep.txt 2>&1 ||
      echo "sweep $side $round: exit $?"
    # op,key_type,n,run_length,selectivity_pct,pscan_GBps,cub_GBps,copy_GBps
    awk -F, -v p="$side,$round,sweep" 'NR > 1 { print p "," $1 "," $2 "," $3 "," $4 "," $6 "," $7 "," $8 }' \
      /tmp/rbk-sweep.csv >>"$raw"
  done
done
python3 - "$raw" <<'EOF'
import csv, collections, statistics, sys
pts = collections.defaultdict(lambda: collections.defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    pts[(r["key_type"], int(r["n"]), int(r["run_length"]))][r["side"]].append(
        (float(r["pscan_GBps"]), float(r["peer_GBps"]), float(r["copy_GBps"])))
print("keys     n     run    H/F   | F: xCUB %copy | H: xCUB %copy")
for k in sorted(pts):
    v = pts[k]
    if "F" not in v or "H" not in v:
        continue
    m = {s: [statistics.median(x[i] for x in v[s]) for i in range(3)] for s in "FH"}
    print(f"{k[0]:7} 2^{k[1].bit_length() - 1:<3} {k[2]:6} {m['H'][0] / m['F'][0]:6.3f} | "
          f"{m['F'][0] / m['F'][1]:5.2f}x {100 * m['F'][0] / m['F'][2]:5.1f}% | "
          f"{m['H'][0] / m['H'][1]:5.2f}x {100 * m['H'][0] / m['H'][2]:5.1f}%")
EOF
