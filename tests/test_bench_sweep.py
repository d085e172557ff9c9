#!/usr/bin/env python3
"""Test of `pscan bench --sweep` on the CPU, run as a user runs it (subprocess): usage
`test_bench_sweep.py PSCAN WORKDIR`.

A small sweep (n = 2^12, i32 and i64, reps 1) must write the CSV with the exact header, one row
per point: every compaction op at its run lengths (1 .. 1000 and one run, written as n) or
selectivities (0 .. 100), -1 / 0 where they do not apply, positive speeds; the scans at every
size asked; the summary names every op and the run's load from other processes; progress comes
on stderr; --plot writes the charts; bad --ops is a usage error
(exit 2) that writes nothing; --ops alone selects its op.
Ends with "N passed, N failed" like the C tests."""
import csv
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish, read_csv  # noqa: E402

PSCAN = os.path.abspath(sys.argv[1])
WORK = sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

HEADER = "op,key_type,n,run_length,selectivity_pct,pscan_GBps,cub_GBps,copy_GBps"
RUN_OPS = ["unique", "run_length_encode", "reduce_by_key", "scan_by_key"]
SELECT_OPS = ["select_if", "select_flagged", "partition_if"]
RUNS = [1, 2, 4, 8, 16, 32, 64, 128, 500, 1000]
SELS = [0, 1, 10, 50, 90, 99, 100]


def run(args):
    return subprocess.run([PSCAN] + args, capture_output=True, text=True, timeout=240)


out = os.path.join(WORK, "sweep.csv")
plot = os.path.join(WORK, "p")
# a build without cairo refuses --plot (test_plot.py checks how): the plots are left out here
PLOTS = os.environ.get("PSCAN_TOOL_CAIRO", "ON") == "ON"
r = run(["bench", "--sweep", "--sizes", "2^12", "--types", "i32,i64", "--reps", "1",
         "--threads", "2", "--csv", out] + (["--plot", plot] if PLOTS else []))
check(r.returncode == 0, f"sweep exit status {r.returncode}: {r.stderr[-500:]}")
rows = read_csv(out, HEADER)
check(not os.path.exists(out + ".partial"), "no .partial file left")
n = 4096
for key in ["i32", "i64"]:
    for op in RUN_OPS:
        got = sorted(int(x["run_length"]) for x in rows
                     if x["op"] == op and x["key_type"] == key)
        check(got == sorted(RUNS + [n]), f"{op} {key}: run lengths {got}")
        check(all(x["selectivity_pct"] == "-1" for x in rows if x["op"] == op),
              f"{op}: selectivity -1")
    for op in SELECT_OPS:
        got = sorted(int(x["selectivity_pct"]) for x in rows
                     if x["op"] == op and x["key_type"] == key)
        check(got == SELS, f"{op} {key}: selectivities {got}")
        check(all(x["run_length"] == "0" for x in rows if x["op"] == op), f"{op}: run length 0")
scans = [x for x in rows if x["op"] == "inclusive_scan"]
check(sorted(x["key_type"] for x in scans) == ["i32", "i64"], "the scans of the types asked")
check(all(x["run_length"] == "0" and x["selectivity_pct"] == "-1" for x in scans),
      "scans: run length 0, selectivity -1")
check(all(int(x["n"]) == n for x in rows), "n of every row")
check(len(rows) == 2 * (4 * 11 + 3 * 7) + 2, f"row count {len(rows)}")
for x in rows:
    speeds = [float(x[k]) for k in ("pscan_GBps", "cub_GBps", "copy_GBps")]
    check(all(s > 0 for s in speeds), f"positive speeds: {x}")
for op in RUN_OPS + SELECT_OPS + ["inclusive_scan"]:
    check(any(line.strip().startswith(op + " ") for line in r.stdout.split("summary")[-1].splitlines()),
          f"summary names {op}")
# the read ceiling, measured beside every CPU point: each point's % of its bound, and the worst per op
summary = r.stdout.split("summary")[-1].splitlines()
for op in RUN_OPS + SELECT_OPS + ["inclusive_scan"]:
    check(any(line.strip().startswith(op + " ") and "worst of bound:" in line for line in summary),
          f"summary: {op}'s worst point of its bound")
points = [line for line in r.stdout.split("summary")[0].splitlines() if "(" in line and "x " in line]
check(points and all("% of bound" in line for line in points), "every point: its % of bound")
# the run's load from other processes, where /proc/stat tells it (Linux)
if os.path.exists("/proc/stat"):
    check("during the sweep, other processes kept" in r.stdout, "summary: other processes' load")
# the progress on stderr: a line per block, the last one at the last point
check(f"{len(rows)} of {len(rows)} points" in r.stderr, "progress: the last block's line")
for name in ["sweep-runs-i32-4096", "sweep-select-i64-4096", "sweep-scan"] if PLOTS else []:
    # a PNG by its signature and size (test_plot.py decodes the charts)
    png = f"{plot}-{name}.png"
    head = open(png, "rb").read(8) if os.path.exists(png) else b""
    check(head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 1000, f"plot {name}")

# --from-csv: the same summary and charts again from the CSV, nothing measured. x peer comes back
# from each side's GB/s and bytes: the same as the run's for every op whose two sides move the same
# bytes (all but run_length_encode), to the CSV's rounding.
def worst_x(text):
    got = {}
    for line in text.split("summary")[-1].splitlines():
        parts = line.split()
        if len(parts) > 4 and parts[1] == "worst" and parts[2] == "x":
            got[parts[0]] = float(parts[4].rstrip("x"))
    return got


replot = os.path.join(WORK, "r")
r2 = run(["bench", "--sweep", "--from-csv", out] + (["--plot", replot] if PLOTS else []))
check(r2.returncode == 0, f"--from-csv exit status {r2.returncode}: {r2.stderr[-500:]}")
measured, again = worst_x(r.stdout), worst_x(r2.stdout)
check(sorted(again) == sorted(RUN_OPS + SELECT_OPS + ["inclusive_scan"]),
      f"--from-csv: the summary names every op: {sorted(again)}")
for op in measured:
    if op != "run_length_encode":
        check(abs(measured[op] - again.get(op, -1)) <= 0.011 * max(1.0, measured[op]),
              f"--from-csv: {op} worst x {again.get(op)} against the run's {measured[op]}")
for name in ["sweep-runs-i32-4096", "sweep-select-i64-4096", "sweep-scan"] if PLOTS else []:
    png = f"{replot}-{name}.png"
    head = open(png, "rb").read(8) if os.path.exists(png) else b""
    check(head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 1000, f"--from-csv plot {name}")
not_sweep = os.path.join(WORK, "not-a-sweep.csv")
with open(not_sweep, "w") as f:
    f.write("backend,kind\ngpu,axis\n")
r2 = run(["bench", "--sweep", "--from-csv", not_sweep])
check(r2.returncode == 1 and "header" in r2.stderr, f"--from-csv of another CSV: {r2.stderr}")
with open(not_sweep, "w") as f:
    f.write(open(out).readline() + "unique,i32,4096,x,-1,1,1,1\n")
r2 = run(["bench", "--sweep", "--from-csv", not_sweep])
check(r2.returncode == 1 and ":2: not a sweep row" in r2.stderr,
      f"--from-csv, a bad row: {r2.stderr}")
r2 = run(["bench", "--from-csv", out])
check(r2.returncode == 2, "--from-csv without --sweep: usage error")
r2 = run(["bench", "--sweep", "--from-csv", out, "--csv", os.path.join(WORK, "x.csv")])
check(r2.returncode == 2 and not os.path.exists(os.path.join(WORK, "x.csv")),
      "--from-csv with --csv: usage error, nothing written")

bad = os.path.join(WORK, "bad.csv")
r = run(["bench", "--sweep", "--ops", "nope", "--csv", bad])
check(r.returncode == 2 and "unknown op" in r.stderr, "bad --ops: usage error")
check(not os.path.exists(bad) and not os.path.exists(bad + ".partial"), "bad --ops: no file")
r = run(["bench", "--ops", "unique"])
check(r.returncode == 2, "--ops without --sweep: usage error")
r = run(["bench", "--cpu", "--gpu", "--sweep"])
check(r.returncode == 2, "--cpu with --gpu: usage error")

only = os.path.join(WORK, "only.csv")
r = run(["bench", "--sweep", "--ops", "reduce_by_key", "--sizes", "2^12", "--types", "i32",
         "--reps", "1", "--csv", only])
with open(only) as f:
    got = [row["op"] for row in csv.DictReader(f)]
check(r.returncode == 0 and got == ["reduce_by_key"] * 11, f"--ops reduce_by_key: {got}")

finish()
