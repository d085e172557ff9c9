#!/usr/bin/env bash
# Segments by offsets on the device machine, one call: pscan_axis_bench --gpu --segments-only
# under each of the variants below (name|environment|extra arguments), one CSV each, then one
# table of pscan ms and % of the copy per case and variant (results under $OUT or ./gpu-out).
#   scripts/gpu-segbits.sh                 with PREBUILT=FILE: binaries carried
#                                          (scripts/pack-gpu-bins.sh pscan_axis_bench)
#   VARIANTS="a|ENV=1|--k 1;b|ENV=0|" scripts/gpu-segbits.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT" build-gpu
[ -z "${PREBUILT:-}" ] || tar xJf "$PREBUILT" -C build-gpu || { echo "UNPACK FAILED"; exit 1; }
B=./build-gpu/pscan_axis_bench
IFS=';' read -ra variants <<<"${VARIANTS:-bits1|PSCAN_CUDA_SEGMENT_BITS=1|;bits0|PSCAN_CUDA_SEGMENT_BITS=0|}"
csvs=()
for round in $(seq "${ROUNDS:-1}"); do
  for v in "${variants[@]}"; do
    IFS='|' read -r name envs args <<<"$v"
    echo "== $name ($envs $args) round $round"
    # shellcheck disable=SC2086
    env $envs $B --gpu --reps "${REPS:-11}" --segments-only $args --csv "$OUT/seg-$name-$round.csv" \
      >/dev/null 2>"$OUT/seg-$name-$round.err" || echo "  exit $?"
    csvs+=("$OUT/seg-$name-$round.csv")
  done
done
python3 - "${csvs[@]}" <<'PY' | tee "$OUT/seg-summary.txt"
import csv, os, sys
runs = []
for f in sys.argv[1:]:
    rows = {(r["dtype"], r["shape"].split(",")[0], r["axis_or_k"]): r for r in csv.DictReader(open(f))} if os.path.exists(f) else {}
    runs.append((os.path.basename(f)[4:-4], rows))
keys = []
for _, rows in runs:
    keys += [k for k in rows if k not in keys]
print("%-26s" % "case (ms / % of copy)" + "".join("%18s" % n for n, _ in runs))
for k in keys:
    cells = []
    for _, rows in runs:
        r = rows.get(k)
        cells.append("%18s" % ("%.4f %5.1f" % (float(r["pscan_ms"]), float(r["pct_of_copy"])) if r else "-"))
    print("%-26s" % " ".join(k) + "".join(cells))
PY
