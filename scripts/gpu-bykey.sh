#!/usr/bin/env bash
# A/B of the by-key kernels (reduce_by_key, scan_by_key) on the device machine, in one call:
#   scripts/gpu-bykey.sh [build] [test] [ab] [segab] [prof] [sweep]   (default: build test ab)
# Side A is build-gpu run with the environment $A_ENV; side B is build-ab (the same tree built
# with the CUDA flags $AB_FLAGS) if AB_FLAGS is set, else build-gpu run with $B_ENV. With
# AB_TREE=DIR (a source tree, e.g. `git archive REV` unpacked into ab-base/ and carried), side B
# is DIR's build (build-ab) instead, run with $B_ENV. Default:
# A_ENV=PSCAN_CUDA_BY_KEY_HALF_BELOW=0, B_ENV=PSCAN_CUDA_BY_KEY_HALF_BELOW=1000000, or $A_ENV
# with AB_FLAGS or AB_TREE (set either to empty for none) (the by-key
# scan of 8-byte values on full tiles / on half tiles at every size; host/compact.c).
# build: build-gpu (with the CUDA flags $BUILD_FLAGS; and build-ab with $AB_FLAGS, side by side,
#        -j8 each): the tool, the compaction and axis tests.
# test:  the compaction suite on the GPU (PSCAN_TEST_QUICK=1), from both builds with AB_FLAGS
#        or AB_TREE (AB_TEST=0: from build-gpu only), and the axis suite (segmented scans run
#        the by-key scan); the compaction suite again with the by-key scan on full tiles only.
# ab:    `pscan bench --gpu --sweep --ops $AB_OPS $AB_SWEEP` (sizes: $AB_SWEEP, default
#        --sizes 2^20..2^24 step 2^1) by both sides, alternating, $ROUNDS rounds (3), then per op
#        and size: the median over rounds of B's GB/s over A's (min / median / max over the run
#        lengths or selectivities) and each side's worst x CUB.
# segab: the segmented scans (pscan_axis_bench --gpu --segments-only: f32 and i32) by both sides,
#        alternating, $ROUNDS rounds: each run's lines to segab-*.txt, the per-shape median over
#        rounds of B's time over A's to the summary.
# prof:  ncu (--set full) of one by-key scan launch per key type of $PROF_TYPES (default i32 i64;
#        values f32 / f64), n = $PROF_N (default 2^24), run length 1, from build-gpu with $A_ENV:
#        the details page, the stall reasons and the instruction mix to $OUT. PROF_PEER=1: CUB's
#        scan-by-key kernel of the same point too (prof-cub-*).
# profrbk: ncu (--set full) of reduce_by_key's look-back-warp kernel (rbk_kernel) through
#        `pscan reduce-by-key --backend cuda`, i32 keys in runs of exactly L items for each L of
#        $PROF_RUNS (default 1 4 500), f32 values, n = $PROF_N_RBK (default 2^26 = 67108864):
#        details, stall reasons and the SASS lines' samples (prof-rbk-L-sass.csv) to $OUT.
# sanitize: compute-sanitizer on the by-key scan's tests (test_compact, PSCAN_TEST_QUICK=1, parts
#        $SAN_PARTS, default scan_by_key_tiles): memcheck, then racecheck, each cut at
#        $SAN_SECONDS (default 150) s; under each environment of $SAN_ENVS (default: on half
#        tiles, then on full ones: PSCAN_CUDA_KEYS_HALF_FROM=0 PSCAN_CUDA_KEYS_HALF_BELOW=0).
# perturb: a PSCAN_CUDA_PERTURB build (tiles sleep before they publish, so look-backs meet every
#        timing) of the compaction, axis and user-operator tests and the examples, then ctest
#        (PSCAN_TEST_QUICK=1) of $PERTURB_TESTS (default: the compaction suites whose scan_by_key
#        runs on the flat tiles' three paths, the axis suite, the user operators' API suite,
#        jit_compile and the examples; four at a time), each cut at $PERTURB_SECONDS (default
#        200) s. With build, PERTURB_BUILD=1 builds it beside build-gpu (-j8 each) and
#        $PERTURB_TARGETS (default: the programs of the default tests) only.
# sweep: the whole GPU sweep as the tree is -> $OUT/compact_sweep_h100.csv (scripts/gpu-sweep.sh gpu).
# Results go to $OUT (the device tool's output folder) or ./gpu-out.
. "$(dirname "$0")/gpu-common.sh" bykey-summary.txt "build test ab" -- "$@"
AB_FLAGS=${AB_FLAGS:-}
AB_TREE=${AB_TREE:-}
A_ENV=${A_ENV-PSCAN_CUDA_BY_KEY_HALF_BELOW=0}
if [ -n "$AB_FLAGS$AB_TREE" ]; then B_ENV=${B_ENV-$A_ENV}; else B_ENV=${B_ENV-PSCAN_CUDA_BY_KEY_HALF_BELOW=1000000}; fi
AB_OPS=${AB_OPS:-reduce_by_key,scan_by_key}
AB_SWEEP=${AB_SWEEP:---sizes 2^20,2^21,2^22,2^23,2^24}
b_dir=build-gpu
[ -n "$AB_FLAGS$AB_TREE" ] && b_dir=build-ab
ROUNDS=${ROUNDS:-3}
perturb_targets=${PERTURB_TARGETS:-test_compact test_axis test_cuda_user_op_api test_jit_compile \
  example_linear_recurrence example_matrix_product example_complex_product example_argmax \
  example_select_predicate}
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), commit ${PSCAN_COMMIT:-?}; A: env $A_ENV; B: ${AB_FLAGS:+build with $AB_FLAGS, }${AB_TREE:+tree $AB_TREE, }env $B_ENV"

if has build; then
  t0=$SECONDS
  build_one() { # dir, jobs, extra CUDA flags, source tree, targets...
    cmake -S "$4" -B "$1" -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON "-DCMAKE_CUDA_FLAGS=$3" &&
      cmake --build "$1" -j"$2" --target "${@:5}"
  }
  if [ "${PERTURB_BUILD:-0}" = 1 ]; then
    # shellcheck disable=SC2086 # a list of targets
    { cmake -S . -B build-perturb -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON \
        -DPSCAN_CUDA_PERTURB=ON -DPSCAN_BUILD_TOOLS=OFF &&
        cmake --build build-perturb -j8 --target $perturb_targets; } \
      >"$OUT/perturb-build.log" 2>&1 &
    pb=$!
  fi
  if [ -n "$AB_FLAGS$AB_TREE" ]; then
    build_one build-ab 8 "$AB_FLAGS" "${AB_TREE:-.}" pscan_tool test_compact pscan_axis_bench >"$OUT/build-b.log" 2>&1 &
    b=$!
  fi
  jobs=16
  [ -n "$AB_FLAGS$AB_TREE" ] || [ "${PERTURB_BUILD:-0}" = 1 ] && jobs=8
  build_one build-gpu $jobs "${BUILD_FLAGS:-}" . pscan_tool test_compact test_axis pscan_axis_bench \
    >"$OUT/build-a.log" 2>&1 || { log "A BUILD FAILED"; tail -30 "$OUT/build-a.log"; exit 1; }
  [ -z "$AB_FLAGS$AB_TREE" ] || wait "$b" || { log "B BUILD FAILED"; tail -30 "$OUT/build-b.log"; exit 1; }
  [ "${PERTURB_BUILD:-0}" = 0 ] || wait "$pb" ||
    { log "PERTURB BUILD FAILED"; tail -30 "$OUT/perturb-build.log"; exit 1; }
  log "built in $((SECONDS - t0)) s"
fi
if has test; then
  for dir in build-gpu $([ -n "$AB_FLAGS$AB_TREE" ] && [ "${AB_TEST:-1}" = 1 ] && echo build-ab); do
    for t in test_compact $([ $dir = build-gpu ] && echo test_axis); do
      t0=$SECONDS
      PSCAN_TEST_QUICK=1 "./$dir/tests/$t" --backend cuda >"$OUT/$t-$dir.log" 2>&1 ||
        { status=1; log "$dir $t FAILED"; grep -m5 -iE "fail|mismatch" "$OUT/$t-$dir.log"; }
      log "$dir $t: $(tail -1 "$OUT/$t-$dir.log") ($((SECONDS - t0)) s)"
    done
  done
  # The by-key kernels of 8-byte values on full tiles at every size (by default they take half
  # tiles below 12 full tiles per multiprocessor: BY_KEY_HALF_BELOW in src/cuda/host/compact.c;
  # reduce_by_key takes them with 8-byte keys), and the by-key scan on the flat scan's half
  # tiles at the tests' sizes (by default from 3 large tiles per multiprocessor on,
  # KEYS_HALF_FROM in src/cuda/host/scan.c).
  # shellcheck disable=SC2086
  env PSCAN_CUDA_BY_KEY_HALF_BELOW=0 PSCAN_CUDA_KEYS_HALF_FROM=0 PSCAN_TEST_QUICK=1 \
    ./build-gpu/tests/test_compact --backend cuda \
    >"$OUT/test_compact-full-tiles.log" 2>&1 || { status=1; log "test_compact (other tiles) FAILED"; }
  log "test_compact, PSCAN_CUDA_BY_KEY_HALF_BELOW=0 PSCAN_CUDA_KEYS_HALF_FROM=0: $(tail -1 "$OUT/test_compact-full-tiles.log")"
fi
if has ab; then
  for round in $(seq "$ROUNDS"); do
    for side in gpu ab; do
      # shellcheck disable=SC2206 # the environments are lists of VAR=value words
      run=(env $A_ENV ./build-gpu/pscan)
      if [ $side = ab ]; then
        # shellcheck disable=SC2206
        run=(env $B_ENV "./$b_dir/pscan")
      fi
      # shellcheck disable=SC2086 # AB_SWEEP is a list of arguments
      "${run[@]}" bench --gpu --sweep --ops "$AB_OPS" $AB_SWEEP --csv "$OUT/ab-$side-$round.csv" \
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
            k = (row["op"], row["key_type"], int(row["n"]), int(row["run_length"]),
                 int(row["selectivity_pct"]))
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
if has segab; then
  for round in $(seq "$ROUNDS"); do
    for side in gpu ab; do
      dir=build-gpu env=$A_ENV
      [ $side = ab ] && dir=$b_dir env=$B_ENV
      # shellcheck disable=SC2086
      env $env "./$dir/pscan_axis_bench" --gpu --segments-only --reps 21 \
        >"$OUT/segab-$side-$round.txt" 2>&1 || { status=1; log "segab $side round $round FAILED"; }
    done
  done
  python3 - "$OUT" "$ROUNDS" <<'EOF' | tee -a "$OUT/bykey-summary.txt"
import re, statistics, sys, collections
out, rounds = sys.argv[1], int(sys.argv[2])
ms = collections.defaultdict(list)
for side in ("gpu", "ab"):
    for r in range(1, rounds + 1):
        for line in open(f"{out}/segab-{side}-{r}.txt"):
            m = re.match(r"gpu\s+(\S+)\s+(\S+)\s+(.*?)\s+(-?\d+)\s+(\d+)\s+pscan\s+([\d.]+) ms\s+copy\s+([\d.]+) ms", line)
            if m:
                ms[(side, m.group(2), m.group(3).strip(), m.group(4))].append((float(m.group(6)), float(m.group(7))))
print("segments: type, shape, k | B/A time (median over rounds) | A % of copy | B % of copy")
for key in sorted(k for k in ms if k[0] == "gpu"):
    b = ("ab",) + key[1:]
    if b not in ms:
        continue
    a_t = statistics.median(x[0] for x in ms[key]); b_t = statistics.median(x[0] for x in ms[b])
    a_c = statistics.median(x[1] for x in ms[key]); b_c = statistics.median(x[1] for x in ms[b])
    print(f"{key[1]:4} {key[2]:28} {key[3]:>6} | {b_t / a_t:6.3f} | {100 * a_c / a_t:5.1f}% | {100 * b_c / b_t:5.1f}%")
EOF
fi
# ncu_report NAME [sass]: from $OUT/NAME.ncu-rep, the details page (NAME.txt), the stall reasons,
# DRAM bytes and instruction counts (NAME-raw.txt), with sass the SASS lines' samples
# (NAME-sass.csv); the headline rows to the summary; the report itself removed.
ncu_report() {
  local name=$1
  ncu --import "$OUT/$name.ncu-rep" --page details >"$OUT/$name.txt" 2>&1
  ncu --import "$OUT/$name.ncu-rep" --page raw --csv 2>&1 | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
for k, v in zip(rows[0], rows[2] if len(rows) > 2 else []):
    if "pcsamp_warps_issue_stalled" in k and not k.endswith("_not_issued") or k.startswith("dram__bytes") or "inst_executed_pipe" in k or k.startswith("smsp__inst_executed.") or k.startswith("sm__inst_executed.") or "local" in k and "sectors" in k:
        print(k, v)' >"$OUT/$name-raw.txt"
  [ "${2:-}" != sass ] ||
    ncu --import "$OUT/$name.ncu-rep" --page source --print-source sass --csv >"$OUT/$name-sass.csv" 2>&1
  grep -E "Function Name|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|Block Limit|Local Memory" \
    "$OUT/$name.txt" | head -24 | tee -a "$OUT/bykey-summary.txt"
  rm -f "$OUT/$name.ncu-rep"
}
prof_kernels="pscan:by_key_kernel"
[ "${PROF_PEER:-0}" = 1 ] && prof_kernels="$prof_kernels cub:DeviceScanByKeyKernel"
if has prof; then
  for t in ${PROF_TYPES:-i32 i64}; do
   for pk in $prof_kernels; do
    name=prof-${pk%%:*}-scan_by_key-$t
    log "ncu scan_by_key $t n=${PROF_N:-2^24} ${pk#*:} (env: $A_ENV)"
    # the sweep's first point is run length 1: its warm-up launch is skipped, the first timed one kept
    # shellcheck disable=SC2086
    env $A_ENV ncu --clock-control none --set full --import-source no -k "regex:${pk#*:}" \
      --launch-skip 1 --launch-count 1 -o "$OUT/$name" ./build-gpu/pscan bench --gpu --sweep \
      --ops scan_by_key --types "$t" --sizes "${PROF_N:-2^24}" --reps 1 >"$OUT/$name.log" 2>&1 || status=1
    ncu_report "$name"
   done
  done
fi
if has profrbk; then
  n=${PROF_N_RBK:-67108864}
  for L in ${PROF_RUNS:-1 4 500}; do
    name=prof-rbk-$L
    python3 -c "import numpy as np, sys; n, L = int(sys.argv[1]), int(sys.argv[2])
np.save('/tmp/rbk-keys.npy', (np.arange(n, dtype=np.int64) // L).astype(np.int32))
np.save('/tmp/rbk-vals.npy', np.random.default_rng(1).random(n, dtype=np.float32))" "$n" "$L"
    log "ncu rbk_kernel, i32 keys in runs of $L, f32 values, n=$n (env: $A_ENV)"
    # shellcheck disable=SC2086
    env $A_ENV ncu --clock-control none --set full --import-source no -k "regex:rbk_kernel" \
      --launch-count 1 -o "$OUT/$name" ./build-gpu/pscan reduce-by-key --backend cuda \
      /tmp/rbk-keys.npy /tmp/rbk-vals.npy /tmp/rbk-ko.npy /tmp/rbk-vo.npy >"$OUT/$name.log" 2>&1 || status=1
    ncu_report "$name" sass
  done
fi
if has sanitize; then
  for env in ${SAN_ENVS:-PSCAN_CUDA_KEYS_HALF_FROM=0 PSCAN_CUDA_KEYS_HALF_BELOW=0}; do
    for tool in memcheck racecheck; do
      t0=$SECONDS
      env "$env" PSCAN_TEST_QUICK=1 PSCAN_TEST_PARTS="${SAN_PARTS:-scan_by_key_tiles}" \
        timeout "${SAN_SECONDS:-150}" compute-sanitizer --tool $tool --error-exitcode 9 \
        ./build-gpu/tests/test_compact --backend cuda >"$OUT/sanitize-$tool-${env%=*}.log" 2>&1
      rc=$?
      [ $rc = 0 ] || [ $rc = 124 ] || { status=1; log "compute-sanitizer $tool FAILED (rc $rc)"; }
      log "compute-sanitizer $tool, $env (rc $rc, $((SECONDS - t0)) s): $(grep -E "passed|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize-$tool-${env%=*}.log" | tr '\n' ' ')"
    done
  done
fi
if has perturb; then
  t0=$SECONDS
  log "perturbed scheduling (PSCAN_CUDA_PERTURB build)"
  if [ "${PERTURB_BUILD:-0}" = 0 ]; then
    # shellcheck disable=SC2086 # a list of targets
    { cmake -S . -B build-perturb -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON \
        -DPSCAN_CUDA_PERTURB=ON -DPSCAN_BUILD_TOOLS=OFF &&
        cmake --build build-perturb -j16 --target $perturb_targets; } \
      >"$OUT/perturb-build.log" 2>&1 ||
      { log "PERTURB BUILD FAILED"; tail -30 "$OUT/perturb-build.log"; exit 1; }
    log "built in $((SECONDS - t0)) s"
  fi
  PSCAN_TEST_QUICK=1 PSCAN_TEST_SEED=1 ctest --test-dir build-perturb -j4 --timeout "${PERTURB_SECONDS:-200}" \
    -R "^(${PERTURB_TESTS:-cuda_compact|cuda_compact_full_tiles|cuda_compact_keys_scalar|cuda_axis|cuda_user_op_api|jit_compile|example_.*})\$" \
    >"$OUT/perturb-ctest.log" 2>&1 || status=1
  grep -E "Test +#|tests passed|tests failed" "$OUT/perturb-ctest.log" | tee -a "$OUT/bykey-summary.txt"
fi
if has sweep; then
  ln -sfn build-gpu build-sweep
  scripts/gpu-sweep.sh gpu | tail -14
fi
log "done, status $status"
exit $status
