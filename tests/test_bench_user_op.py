#!/usr/bin/env python3
"""Test of `pscan bench --gpu --user-op`, run as a user runs it: usage
`test_bench_user_op.py PSCAN WORKDIR usage|gpu`.

usage: the option's refusals are usage errors (exit 2) that write nothing: --user-op without
--gpu, with --compact / --sweep, with --types / --threads; in a build without CUDA, --gpu
--user-op says so (exit 1) and writes nothing.
gpu: a small run (n = 2^12 and 2^17, one rep) on a GPU: the CSV's exact header, a row per
(operator, n, implementation) with positive speeds, the built-in SUM beside the user SUM, the cost
rows, the plot, every output checked (the tool exits 1 on a wrong result), no temporary cache
directory left behind. Exit 77 (skipped) when the tool has no CUDA or no GPU is usable.
Ends with "N passed, N failed" like the C tests."""
import csv
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish  # noqa: E402

PSCAN = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
MODE = sys.argv[3]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
HEADER = "op,elem_bytes,n,impl,seconds_median,gbs,frac_copy,machine"
OPS = {"affine_f32": 8, "affine_f64": 16, "mat2_f64": 32, "sum_i32": 4}


def run(args, **kw):
    env = dict(os.environ, TMPDIR=WORK)
    return subprocess.run([PSCAN] + args, capture_output=True, text=True, timeout=600, env=env,
                          **kw)


def gpu_absent(r):
    """Why the GPU run could not happen (the tool said so), or None."""
    for why in ("built without CUDA", "no usable GPU"):
        if why in r.stderr:
            return why
    return None


out = os.path.join(WORK, "uop.csv")
if MODE == "usage":
    for args, what in [(["--user-op"], "without --gpu"),
                       (["--gpu", "--user-op", "--compact"], "with --compact"),
                       (["--gpu", "--user-op", "--sweep"], "with --sweep"),
                       (["--gpu", "--user-op", "--types", "i32"], "with --types"),
                       (["--gpu", "--user-op", "--threads", "2"], "with --threads")]:
        r = run(["bench"] + args + ["--csv", out])
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--user-op" in r.stderr,
              f"--user-op {what}: one-line usage error, got {r.returncode}: {r.stderr!r}")
        check(not os.path.exists(out) and not os.path.exists(out + ".partial"),
              f"--user-op {what}: no CSV")
    r = run(["bench", "--gpu", "--user-op", "--sizes", "2^12", "--reps", "1", "--csv", out])
    if "built without CUDA" in r.stderr:
        check(r.returncode == 1 and r.stderr.count("\n") == 1, "no CUDA: one line, exit 1")
        check(not os.path.exists(out), "no CUDA: no CSV")
    finish()

PLOTS = os.environ.get("PSCAN_TOOL_CAIRO", "ON") == "ON"  # a build without cairo refuses --plot
r = run(["bench", "--gpu", "--user-op", "--quick", "--sizes", "2^12,2^17", "--reps", "1",
         "--csv", out] + (["--plot", os.path.join(WORK, "p")] if PLOTS else []))
why = gpu_absent(r)
if why:
    print(f"the GPU run did not happen ({why}): {r.stderr.strip()}")
    check(r.returncode == 1 and not os.path.exists(out), "no GPU: exit 1, no CSV")
    finish(skipped=True)
check(r.returncode == 0, f"exit status {r.returncode}: {r.stderr[-800:]}")
rows = []
if os.path.exists(out):
    with open(out) as f:
        check(f.readline().strip() == HEADER, "CSV header")
    with open(out) as f:
        rows = list(csv.DictReader(f))
for op, size in OPS.items():
    for n in (4096, 131072):
        impls = sorted(x["impl"] for x in rows if x["op"] == op and int(x["n"]) == n)
        want = ["cub_functor", "cudaMemcpy", "pscan_user_op"] + (["pscan_builtin"] if op == "sum_i32" else [])
        check(impls == sorted(want), f"{op} at {n}: implementations {impls}")
    for x in rows:
        if x["op"] == op:
            check(int(x["elem_bytes"]) == size, f"{op}: element bytes {x['elem_bytes']}")
            check(float(x["seconds_median"]) > 0, f"{op}: positive time {x}")
    costs = sorted(x["impl"] for x in rows if x["op"] == op and x["n"] == "0")
    check(costs == ["op_create_cold", "op_create_context_hit", "op_create_disk_hit"],
          f"{op}: cost rows {costs}")
timed = [x for x in rows if x["gbs"]]
check(all(float(x["gbs"]) > 0 and float(x["frac_copy"]) > 0 for x in timed), "positive GB/s")
check(all(x["frac_copy"] == "1.0000" for x in timed if x["impl"] == "cudaMemcpy"),
      "the copy is 100% of itself")
calls = sorted(x["impl"] for x in rows if x["impl"].startswith("call_host_time"))
check(calls == ["call_host_time_builtin", "call_host_time_user_op"], f"call cost rows {calls}")
check("x CUB" in r.stdout and "host time of one call" in r.stdout, "table: x CUB, call costs")
check(not glob.glob(os.path.join(WORK, "pscan-bench-cache-*")), "no cache directory left")
png = os.path.join(WORK, "p-user-op.png")
if PLOTS:
    head = open(png, "rb").read(8) if os.path.exists(png) else b""
    check(head == b"\x89PNG\r\n\x1a\n", "plot p-user-op.png")
finish()
