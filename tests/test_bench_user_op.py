#!/usr/bin/env python3
"""Test of `pscan bench --user-op`, run as a user runs it: usage
`test_bench_user_op.py PSCAN WORKDIR usage|cpu|gpu`.

usage: the option's refusals are usage errors (exit 2) that write nothing: --user-op with
--compact / --sweep / --types / --partition, --gpu --user-op with --threads; sizes that fit no
memory are one line and exit 1; in a build without CUDA, --gpu --user-op says so (exit 1) and
writes nothing.
cpu: a small CPU run (n = 2^12 and 2^17, 1 and 2 threads, one rep): the CSV's exact header, a row
per (operator, n, threads, implementation) with positive speeds (the C loop once a size, on one
thread; the built-in SUM beside the user SUM; the compiled rows where a C compiler is found), the
cost rows, the plot, every output checked (the tool exits 1 on a wrong result), no temporary
cache directory left behind and PSCAN_CACHE_DIR's own directory used.
gpu: the same on a GPU (n = 2^12 and 2^17; CUB beside pscan), and the by-key rows: a row per
(affine operator, scan_by_key / reduce_by_key, run length, n, implementation) and the worst
points; exit 77 (skipped) when the tool has no CUDA or no GPU is usable.
Ends with "N passed, N failed" like the C tests."""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish, read_csv  # noqa: E402

PSCAN = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
MODE = sys.argv[3]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
HEADER = "op,elem_bytes,n,threads,impl,seconds_median,gbs,frac_copy,machine"
CACHE = os.path.join(WORK, "cache")
OPS = {"affine_f32": 8, "affine_f64": 16, "mat2_f64": 32, "sum_i32": 4}


def run(args, **kw):
    env = dict(os.environ, TMPDIR=WORK, PSCAN_CACHE_DIR=CACHE)
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
    for args, what in [(["--user-op", "--compact"], "with --compact"),
                       (["--gpu", "--user-op", "--sweep"], "with --sweep"),
                       (["--user-op", "--types", "i32"], "with --types"),
                       (["--user-op", "--partition", "4096"], "with --partition"),
                       (["--gpu", "--user-op", "--threads", "2"], "--gpu with --threads")]:
        r = run(["bench"] + args + ["--csv", out])
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--user-op" in r.stderr,
              f"--user-op {what}: one-line usage error, got {r.returncode}: {r.stderr!r}")
        check(not os.path.exists(out) and not os.path.exists(out + ".partial"),
              f"--user-op {what}: no CSV")
    r = run(["bench", "--user-op", "--sizes", "2^40", "--threads", "1", "--csv", out])
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and not os.path.exists(out),
          f"--user-op at 2^40 (no memory for it): one line, exit 1, no CSV: {r.stderr!r}")
    r = run(["bench", "--gpu", "--user-op", "--sizes", "2^12", "--reps", "1", "--csv", out])
    if "built without CUDA" in r.stderr:
        check(r.returncode == 1 and r.stderr.count("\n") == 1, "no CUDA: one line, exit 1")
        check(not os.path.exists(out), "no CUDA: no CSV")
    finish()

PLOTS = os.environ.get("PSCAN_TOOL_CAIRO", "ON") == "ON"  # a build without cairo refuses --plot
GPU = MODE == "gpu"
args = ["bench", "--user-op", "--quick", "--sizes", "2^12,2^17", "--reps", "1", "--csv", out]
args += ["--gpu"] if GPU else ["--threads", "1,2"]
r = run(args + (["--plot", os.path.join(WORK, "p")] if PLOTS else []))
why = gpu_absent(r) if GPU else None
if why:
    print(f"the GPU run did not happen ({why}): {r.stderr.strip()}")
    check(r.returncode == 1 and not os.path.exists(out), "no GPU: exit 1, no CSV")
    finish(skipped=True)
check(r.returncode == 0, f"exit status {r.returncode}: {r.stderr[-800:]}")
rows = read_csv(out, HEADER)
compiled = GPU or any(x["impl"] == "pscan_user_op" for x in rows)
if not compiled:
    print("no C compiler: the compiled rows are left out (the tool says why)")
    check("compiled rows are left out" in r.stderr, "no compiler: said so")
for op, size in OPS.items():
    for n in (4096, 131072):
        got = sorted((x["impl"], int(x["threads"])) for x in rows
                     if x["op"] == op and int(x["n"]) == n)
        if GPU:
            want = [("cub_functor", 0), ("cudaMemcpy", 0), ("pscan_user_op", 0),
                    ("pscan_user_op_identity", 0)]
            want += [("pscan_builtin", 0)] if op == "sum_i32" else []
        else:
            impls = ["stream_copy", "pscan_host_fn"] + (["pscan_user_op"] if compiled else [])
            impls += ["pscan_builtin"] if op == "sum_i32" else []
            want = [(i, t) for i in impls for t in (1, 2)] + [("c_loop", 1)]
        check(got == sorted(want), f"{op} at {n}: implementations {got}")
    for x in rows:
        if x["op"] == op:
            check(int(x["elem_bytes"]) == size, f"{op}: element bytes {x['elem_bytes']}")
            check(float(x["seconds_median"]) > 0, f"{op}: positive time {x}")
    costs = sorted(x["impl"] for x in rows if x["op"] == op and x["n"] == "0")
    want = ["op_create_cold", "op_create_context_hit", "op_create_disk_hit"] if compiled else []
    check(costs == want, f"{op}: cost rows {costs}")
if GPU:  # by key: every (operator, call, run length, n), four implementations each
    for op in ("affine_f32", "affine_f64"):
        for call in ("scan_by_key", "reduce_by_key"):
            for run in (1, 3, 4, 32, 100, 256, 1000):
                name = f"{op}_{call}_L{run}"
                for n in (4096, 131072):
                    got = sorted(x["impl"] for x in rows if x["op"] == name and int(x["n"]) == n)
                    want = ["cub_functor", "cudaMemcpy", "pscan_user_op", "pscan_user_op_identity"]
                    check(got == want, f"{name} at {n}: implementations {got}")
                check(all(int(x["elem_bytes"]) == OPS[op] for x in rows if x["op"] == name),
                      f"{name}: element bytes")
    check("by key, the worst points" in r.stdout, "table: the by-key worst points")
timed = [x for x in rows if x["gbs"]]
check(all(float(x["gbs"]) > 0 and float(x["frac_copy"]) > 0 for x in timed), "positive GB/s")
copy = "cudaMemcpy" if GPU else "stream_copy"
check(all(x["frac_copy"] == "1.0000" for x in timed if x["impl"] == copy),
      "the copy is 100% of itself")
calls = sorted(x["impl"] for x in rows if x["impl"].startswith("call_host_time"))
check(calls == ["call_host_time_builtin", "call_host_time_user_op"], f"call cost rows {calls}")
check(("x CUB" if GPU else "x C loop") in r.stdout and "host time of one call" in r.stdout,
      "table: the peer's ratio, call costs")
check(not glob.glob(os.path.join(WORK, "pscan-bench-cache-*")), "no cache directory left")
check(not compiled or GPU or glob.glob(os.path.join(CACHE, "*")),
      "the context's operators cached under PSCAN_CACHE_DIR")
png = os.path.join(WORK, "p-user-op.png")
if PLOTS:
    head = open(png, "rb").read(8) if os.path.exists(png) else b""
    check(head == b"\x89PNG\r\n\x1a\n", "plot p-user-op.png")
finish()
