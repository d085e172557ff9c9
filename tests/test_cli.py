#!/usr/bin/env python3
"""Test of the file commands of the pscan tool (scan, select, select-flagged, partition, unique,
rle, reduce-by-key, scan-by-key), run as a user runs them (subprocess): usage
`test_cli.py PSCAN WORKDIR`. PSCAN_TEST_SEED reproduces a run.

Python's standard library only: .npy files are written and read by hand with struct (so the
tests also check the format byte by byte), and every expected result is computed independently
of the library: scans with wrap-around integer arithmetic, selections, runs (the formats and the
references are in cli_formats.py, the cases here).
Every refusal is checked for a non-zero exit, exactly one line on stderr naming the file, and no
output file (nor temporary file) left behind. Ends with "N passed, N failed" like the C tests."""
import itertools
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish, tool_run_setup  # noqa: E402
from cli_formats import (CMPS, OPS, TYPES, axis_reference, identity, npy_bytes, read_npy,  # noqa: E402
                         read_npy_nd, read_raw, read_text, ref_scan, runs, wrap)

PSCAN, WORK, rng = tool_run_setup()


def path(name):
    return os.path.join(WORK, name)


# Options added after the command name of every run (the GPU pass sets ["--backend", "cuda"]).
EXTRA = []


def run(args, stdin=None):
    args = args[:1] + EXTRA + args[1:]
    return subprocess.run([PSCAN] + args, input=stdin, capture_output=True, text=True, timeout=120)


# ---- files, written by hand (cli_formats.py reads them) ----

def write_npy(name, values, dtype, **kw):
    with open(path(name), "wb") as f:
        f.write(npy_bytes(values, dtype, **kw))
    return path(name)


def write_text(name, values):
    with open(path(name), "w") as f:
        f.write("\n".join(str(v) for v in values) + "\n")
    return path(name)


def write_raw(name, values, dtype):
    with open(path(name), "wb") as f:
        f.write(struct.pack("<" + TYPES[dtype][0] * len(values), *values))
    return path(name)


# ---- inputs and checked runs ----

def random_values(dtype, n, small=False):
    bits = TYPES[dtype][2]
    if bits is None or small:
        return [rng.randint(-8, 8) if dtype[0] != "u" else rng.randint(0, 8) for _ in range(n)]
    if dtype[0] == "u":
        return [rng.randrange(1 << bits) for _ in range(n)]
    return [rng.randrange(-(1 << (bits - 1)), 1 << (bits - 1)) for _ in range(n)]


def ok(args, what, stdin=None):
    r = run(args, stdin)
    check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()}")
    return r


# ---- scan ----

def test_scan_every_type():
    for dtype in TYPES:
        xs = random_values(dtype, rng.randint(0, 300))
        inp = write_npy(f"in_{dtype}.npy", xs, dtype)
        ok(["scan", inp, path("out.npy")], f"scan {dtype}")
        got = read_npy(path("out.npy"))
        check(got == (dtype, ref_scan(xs, "sum", dtype)), f"scan sum {dtype}")
        # the same data big-endian gives the same result
        inp = write_npy(f"in_be_{dtype}.npy", xs, dtype, order=">")
        ok(["scan", inp, path("out_be.npy")], f"scan big-endian {dtype}")
        check(read_npy(path("out_be.npy")) == got, f"scan big-endian {dtype}")


def test_scan_ops():
    for dtype in ("i32", "u8", "i64", "f64"):
        for op in OPS:
            if op in ("and", "or", "xor") and dtype[0] == "f":
                continue
            xs = random_values(dtype, 200, small=op == "prod")
            if op == "prod" and dtype[0] == "f":  # powers of two: exact in any order
                xs = [rng.choice((-2.0, -1.0, 0.5, 1.0, 2.0)) for _ in xs]
            inp = write_npy("ops.npy", xs, dtype)
            for exclusive in (False, True):
                for init in (None, 3):
                    args = ["scan", "--op", op] + (["--exclusive"] if exclusive else [])
                    args += ["--init", str(init)] if init is not None else []
                    ok(args + [inp, path("o.npy")], f"scan {args}")
                    want = ref_scan(xs, op, dtype, exclusive, init)
                    check(read_npy(path("o.npy")) == (dtype, want), f"{dtype} {args}")


def test_reduce():
    """pscan reduce: the reference scan's last element (init, or the identity, when empty), as
    .npy and as text on stdout."""
    for dtype in ("i32", "u8", "i64", "f64"):
        for op in OPS:
            if op in ("and", "or", "xor") and dtype[0] == "f":
                continue
            xs = random_values(dtype, rng.choice((0, 1, 7, 300)), small=op == "prod")
            if op == "prod" and dtype[0] == "f":  # powers of two: exact in any order
                xs = [rng.choice((-2.0, -1.0, 0.5, 1.0, 2.0)) for _ in xs]
            inp = write_npy("red.npy", xs, dtype)
            for init in (None, 3):
                args = ["reduce", "--op", op] + (["--init", str(init)] if init is not None else [])
                ok(args + [inp, path("red_o.npy")], f"{dtype} {args}")
                want = ref_scan(xs, op, dtype, False, init)
                want = want[-1:] if want else [init if init is not None else identity(op, dtype)]
                check(read_npy(path("red_o.npy")) == (dtype, want), f"reduce {dtype} {args} n={len(xs)}")
    r = ok(["reduce", "--out-dtype", "i64", "-", "-"], "reduce stdin to stdout",
           stdin="".join(f"{i}\n" for i in range(1, 101)))
    check(r.stdout.split() == ["5050"], f"reduce of 1..100 on stdout: {r.stdout!r}")


def test_scan_widening():
    for src, dst in (("i8", "i64"), ("u8", "u64"), ("i16", "i32"), ("u32", "u64"), ("f32", "f64")):
        xs = random_values(src, 500)
        ok(["scan", "--out-dtype", dst, write_npy("w.npy", xs, src), path("wo.npy")], f"{src}->{dst}")
        check(read_npy(path("wo.npy")) == (dst, ref_scan(xs, "sum", dst)), f"widen {src}->{dst}")


def test_scan_formats():
    xs = random_values("i32", 1000)
    want = ref_scan(xs, "sum", "i32")
    # text in, raw out; raw in, text out; stdin to stdout; npy versions 2.0 and 3.0
    ok(["scan", "--dtype", "i32", write_text("t.txt", xs), path("t.raw")], "text -> raw")
    check(read_raw(path("t.raw"), "i32") == want, "text -> raw")
    ok(["scan", "--dtype", "i32", write_raw("r.raw", xs, "i32"), path("r.txt")], "raw -> text")
    check(read_text(path("r.txt")) == want, "raw -> text")
    r = ok(["scan", "--dtype", "i32", "-", "-"], "stdin -> stdout", " ".join(map(str, xs)))
    check([int(x) for x in r.stdout.split()] == want, "stdin -> stdout")
    r = ok(["scan", "-", "-"], "stdin default i64", "1 2\n3 # comment\n\n4\t5")
    check(r.stdout.split() == ["1", "3", "6", "10", "15"], "text default i64 and comments")
    for v in ((2, 0), (3, 0)):
        ok(["scan", write_npy("v.npy", xs, "i32", version=v), path("vo.npy")], f"npy version {v}")
        check(read_npy(path("vo.npy")) == ("i32", want), f"npy version {v}")
    fs = [rng.randint(-100, 100) / 4 for _ in range(100)]
    r = ok(["scan", "--dtype", "f64", "-", "-"], "f64 text", " ".join(map(str, fs)))
    check([float(x) for x in r.stdout.split()] == list(itertools.accumulate(fs)), "f64 text")
    ok(["scan", write_npy("empty.npy", [], "f32"), path("eo.npy")], "empty array")
    check(read_npy(path("eo.npy")) == ("f32", []), "empty array")
    big = [rng.randrange(-1000, 1000) for _ in range(1 << 20)]
    ok(["scan", "--threads", "2", "--algo", "decoupled-lookback", write_npy("big.npy", big, "i32"),
        path("bigo.npy")], "1M elements")
    check(read_npy(path("bigo.npy")) == ("i32", list(itertools.accumulate(big))), "1M elements")
    for algo in ("sequential", "chained", "reduce-then-scan", "scan-then-propagate"):
        ok(["scan", "--algo", algo, "--deterministic", path("big.npy"), path("bigo2.npy")], algo)
        check(read_npy(path("bigo2.npy")) == read_npy(path("bigo.npy")), f"--algo {algo}")


# ---- compaction ----

def test_select_partition():
    for dtype in ("i32", "u16", "f64"):
        xs = random_values(dtype, 300, small=True)
        inp = write_npy("s.npy", xs, dtype)
        for cmp, f in CMPS.items():
            ok(["select", "--cmp", cmp, "--value", "2", inp, path("so.npy")], f"select {cmp}")
            check(read_npy(path("so.npy")) == (dtype, [x for x in xs if f(x, 2)]), f"select {cmp}")
            r = ok(["partition", "--cmp", cmp, "--value", "2", inp, path("po.npy")], f"partition {cmp}")
            sel = [x for x in xs if f(x, 2)]
            rest = [x for x in xs if not f(x, 2)]
            check(read_npy(path("po.npy")) == (dtype, sel + rest[::-1]), f"partition {cmp} {dtype}")
            check(f"{len(sel)} of {len(xs)} selected" in r.stderr, f"partition count {r.stderr}")
    ok(["partition", "--cmp", "gt", "--value", "0", "--count-out", path("k.txt"), inp,
        path("po.npy")], "partition --count-out")
    check(read_text(path("k.txt")) == [sum(1 for x in xs if x > 0)], "partition --count-out")


def test_select_flagged():
    xs = random_values("i64", 400)
    flags = [rng.randint(0, 1) * rng.randint(1, 300) for _ in xs]
    want = [x for x, f in zip(xs, flags) if f]
    inp = write_npy("sf.npy", xs, "i64")
    ok(["select-flagged", inp, write_npy("fl.npy", flags, "i16"), path("sfo.npy")], "flags i16 npy")
    check(read_npy(path("sfo.npy")) == ("i64", want), "select-flagged i16 flags")
    bools = [1 if f else 0 for f in flags]
    ok(["select-flagged", inp, write_npy("fb.npy", bools, "u8", descr="|b1"), path("sfo.npy")],
       "flags bool npy")
    check(read_npy(path("sfo.npy")) == ("i64", want), "select-flagged bool flags")
    ok(["select-flagged", inp, write_raw("fl.raw", bools, "u8"), path("sfo.npy")], "flags raw u8")
    check(read_npy(path("sfo.npy")) == ("i64", want), "select-flagged raw u8 flags")
    ok(["select-flagged", "--flags-dtype", "i32", inp, write_text("fl.txt", flags), path("sfo.txt")],
       "flags text i32")
    check(read_text(path("sfo.txt")) == want, "select-flagged text flags")


def test_unique_rle():
    for dtype in ("u8", "i32", "f32"):
        xs = [rng.choice((1, 2, 3)) for _ in range(500)]
        inp = write_npy("u.npy", xs, dtype)
        ok(["unique", inp, path("uo.npy")], f"unique {dtype}")
        check(read_npy(path("uo.npy")) == (dtype, [xs[a] for a, _ in runs(xs)]), f"unique {dtype}")
        ok(["rle", inp, path("rv.npy"), path("rc.npy")], f"rle {dtype}")
        check(read_npy(path("rv.npy")) == (dtype, [xs[a] for a, _ in runs(xs)]), f"rle values {dtype}")
        check(read_npy(path("rc.npy")) == ("u64", [b - a for a, b in runs(xs)]), f"rle counts {dtype}")
    r = ok(["rle", "-", path("rv.txt"), "-"], "rle stdin", "5 5 5 7 5")
    check(r.stdout.split() == ["3", "1", "1"] and read_text(path("rv.txt")) == [5, 7, 5], "rle text")


def test_by_key():
    keys = [rng.choice((1, 2)) for _ in range(400)]
    for vtype in ("i32", "f64"):
        vals = random_values(vtype, 400, small=True)
        kin, vin = write_npy("k.npy", keys, "i16"), write_npy("v.npy", vals, vtype)
        for op in ("sum", "max", "min"):
            ok(["reduce-by-key", "--op", op, kin, vin, path("ko.npy"), path("vo.npy")], f"rbk {op}")
            rs = runs(keys)
            check(read_npy(path("ko.npy")) == ("i16", [keys[a] for a, _ in rs]), f"rbk keys {op}")
            want = [ref_scan(vals[a:b], op, vtype)[-1] for a, b in rs]
            check(read_npy(path("vo.npy")) == (vtype, want), f"rbk {op} {vtype}")
            for exclusive in (False, True):
                for init in (None, 5):
                    args = ["scan-by-key", "--op", op] + (["--exclusive"] if exclusive else [])
                    args += ["--init", str(init)] if init is not None else []
                    ok(args + [kin, vin, path("sko.npy")], f"{args}")
                    want = []
                    for a, b in rs:
                        want += ref_scan(vals[a:b], op, vtype, exclusive, init)
                    check(read_npy(path("sko.npy")) == (vtype, want), f"{args} {vtype}")
    r = ok(["reduce-by-key", "--key-dtype", "u8", "-", write_text("v.txt", [1, 2, 3, 4]),
            path("kt.txt"), "-"], "rbk text", "9 9 4 9")
    check(r.stdout.split() == ["3", "3", "4"], "reduce-by-key text")


# ---- refusals ----

def refused(args, name, out, what, stdin=None, code=None):
    """Non-zero exit, one line on stderr that names `name`, no `out` and no temporary file."""
    r = run(args, stdin)
    lines = r.stderr.strip().splitlines()
    check(r.returncode != 0 and (code is None or r.returncode == code),
          f"{what}: exit {r.returncode}")
    check(len(lines) == 1, f"{what}: stderr is {len(lines)} lines: {r.stderr!r}")
    check(name in r.stderr, f"{what}: stderr does not name {name}: {r.stderr!r}")
    if out:
        d, base = os.path.split(out)
        left = [f for f in os.listdir(d) if f == base or f.startswith("." + base + ".")] \
            if os.path.isdir(d) else []
        check(not left, f"{what}: left {left}")
    return r


def test_refusals():
    out = path("never.npy")
    good = npy_bytes([1, 2, 3], "i32")
    cases = {
        "bad magic": b"\x93NUMPX" + good[6:],
        "not npy at all": b"hello",
        "version 4.0": good[:6] + b"\x04\x00" + good[8:],
        "header length past the end": good[:8] + b"\xff\xff" + good[10:],
        "truncated data": good[:-1],
        "trailing bytes": good + b"\x00",
        "2-D shape": npy_bytes([1, 2, 3, 4], "i32", shape="(2, 2)"),
        "shape (n, 1)": npy_bytes([1, 2, 3], "i32", shape="(3, 1)"),
        "0-d shape": npy_bytes([1], "i32", shape="()"),
        "fortran order": npy_bytes([1, 2, 3], "i32", fortran=True),
        "unknown dtype f2": npy_bytes([1, 2, 3], "i16", descr="<f2"),
        "complex dtype": npy_bytes([1, 2, 3, 4], "f64", descr="<c16"),
        "object dtype": npy_bytes([], "u8", descr="|O"),
        "missing key": npy_bytes([1], "i32", dict_text="{'descr': '<i4', 'shape': (1,), }"),
        "duplicate key": npy_bytes([1], "i32", dict_text="{'descr': '<i4', 'descr': '<i4', "
                                                         "'fortran_order': False, 'shape': (1,)}"),
        "unknown key": npy_bytes([1], "i32", dict_text="{'descr': '<i4', 'fortran_order': False, "
                                                       "'shape': (1,), 'x': 1}"),
        "dict syntax": npy_bytes([1], "i32", dict_text="{'descr' '<i4'}"),
        "huge shape": npy_bytes([1], "i32", shape="(99999999999999999999999,)"),
    }
    for what, data in cases.items():
        with open(path("bad.npy"), "wb") as f:
            f.write(data)
        refused(["scan", path("bad.npy"), out], "bad.npy", out, what)
    refused(["scan", write_text("g.txt", [1, 2, "3x"]), out], "g.txt:3", out, "text garbage")
    refused(["scan", "--dtype", "i32", write_text("f.txt", [1.5]), out], "f.txt:1", out,
            "float in an integer text")
    refused(["scan", "--dtype", "u8", write_text("r.txt", [1, 256]), out], "r.txt:2", out,
            "out of range")
    refused(["scan", "--dtype", "u8", write_text("n.txt", [-1]), out], "n.txt:1", out, "negative u8")
    refused(["scan", "--dtype", "i64", write_text("o.txt", [1 << 63]), out], "o.txt:1", out,
            "i64 overflow")
    refused(["scan", "--dtype", "f32", write_text("fo.txt", ["1e39"]), out], "fo.txt:1", out,
            "f32 overflow")
    refused(["scan", "-", out], "stdin:2", out, "stdin garbage", stdin="1\nzz\n")
    with open(path("odd.raw"), "wb") as f:
        f.write(b"\x00" * 7)
    refused(["scan", "--dtype", "i32", path("odd.raw"), out], "odd.raw", out, "raw size")
    refused(["scan", path("odd.raw"), out], "odd.raw", out, "raw without --dtype")
    refused(["scan", path("does-not-exist.npy"), out], "does-not-exist.npy", out, "no input")
    refused(["scan", WORK, out], WORK, out, "input is a directory")
    inp = write_npy("ok.npy", [1, 2, 3], "i32")
    refused(["scan", inp, path("no/such/dir/o.npy")], "no/such/dir/o.npy", None, "no output dir")
    refused(["scan", inp, path("ok.npy/o.npy")], "ok.npy/o.npy", None, "output dir is a file")
    if os.geteuid() != 0:  # root writes anywhere
        os.makedirs(path("ro"), exist_ok=True)
        os.chmod(path("ro"), 0o500)
        refused(["scan", inp, path("ro/o.npy")], "ro/o.npy", path("ro/o.npy"), "read-only dir")
        os.chmod(path("ro"), 0o700)
    # a refused command leaves an existing output as it was
    with open(path("keep.npy"), "wb") as f:
        f.write(b"precious")
    run(["scan", path("bad.npy"), path("keep.npy")])
    with open(path("keep.npy"), "rb") as f:
        check(f.read() == b"precious", "existing output overwritten by a failed command")
    # two outputs: neither appears when the second cannot be written
    refused(["rle", inp, path("rv2.npy"), path("no/dir/c.npy")], "no/dir/c.npy", path("rv2.npy"),
            "rle second output")
    refused(["select-flagged", inp, write_npy("f3.npy", [1, 0], "u8"), out], "f3.npy", out,
            "flags length")
    refused(["select-flagged", inp, write_npy("ff.npy", [1, 0, 1], "f32"), out], "ff.npy", out,
            "float flags")
    refused(["reduce-by-key", inp, write_npy("v2.npy", [1, 2], "i32"), out, path("o2.npy")],
            "v2.npy", out, "keys and values of different lengths")
    r = refused(["scan", "--op", "xor", write_npy("x.npy", [1.0], "f64"), out], "x.npy", out,
                "xor on floats", code=2)
    check("is for integers" in r.stderr, "xor on floats: a usage error")
    refused(["scan", "--out-dtype", "i16", inp, out], "ok.npy", out, "narrowing --out-dtype")


def test_usage_errors():
    inp = write_npy("ok.npy", [1, 2, 3], "i32")
    out = path("never.npy")
    for args, what in (
        (["scan", "--op", "avg", inp, out], "unknown op"),
        (["scan", "--dtype", "i128", inp, out], "unknown dtype"),
        (["scan", inp], "missing OUT"),
        (["scan", inp, out, out], "too many arguments"),
        (["scan", "--bogus", inp, out], "unknown option"),
        (["scan", "--init", "1.5", inp, out], "bad --init"),
        (["scan", "--init", "99999999999", inp, out], "--init out of range"),
        (["select", "--cmp", "lt", inp, out], "missing --value"),
        (["select", "--cmp", "approx", "--value", "1", inp, out], "unknown --cmp"),
        (["select", "--value", "1", inp, out], "missing --cmp"),
        (["scan", "--threads", "many", inp, out], "bad --threads"),
        (["scan", "--algo", "magic", inp, out], "unknown --algo"),
        (["scan", "--backend", "tpu", inp, out], "unknown --backend"),
        (["rle", inp, "-", "-"], "stdout twice"),
        (["unique", "--op", "sum", inp, out], "option another command has"),
    ):
        refused(args, "pscan " + args[0], out, what, code=2)


def test_help():
    for cmd in ("scan", "reduce", "select", "select-flagged", "partition", "unique", "rle",
                "reduce-by-key", "scan-by-key"):
        r = ok([cmd, "--help"], f"{cmd} --help")
        check(f"usage: pscan {cmd}" in r.stdout and "examples:" in r.stdout, f"{cmd} --help text")
    r = ok(["--help"], "pscan --help")
    check("select-flagged" in r.stdout and "scan-by-key" in r.stdout, "pscan --help lists commands")


# ---- --backend cuda ----

def gpu_state():
    """'gpu' when `--backend cuda` runs here; else why not: 'no-cuda' (built without CUDA) or
    'no-gpu' (a CUDA build, no usable GPU). Probed with the tool itself, on a tiny file."""
    r = run(["scan", "--backend", "cuda", write_text("probe.txt", [1, 2, 3]), path("probe.txt.o")])
    if r.returncode == 0:
        return "gpu"
    return "no-cuda" if "built without CUDA" in r.stderr else "no-gpu"


def test_cuda_refused(state):
    """Without a usable GPU every file command refuses --backend cuda in one line, writes nothing;
    auto still runs (on the CPU)."""
    inp = write_npy("c.npy", [3, 1, 2, 2], "i32")
    flags = write_npy("cf.npy", [1, 0, 1, 1], "u8")
    out, out2 = path("cuda_never.npy"), path("cuda_never2.npy")
    why = "built without CUDA" if state == "no-cuda" else "PSCAN_ERR_NO_DEVICE"
    for args in (["scan", inp, out], ["select", "--cmp", "gt", "--value", "1", inp, out],
                 ["select-flagged", inp, flags, out],
                 ["partition", "--cmp", "gt", "--value", "1", inp, out], ["unique", inp, out],
                 ["rle", inp, out, out2], ["reduce-by-key", inp, inp, out, out2],
                 ["scan-by-key", inp, inp, out]):
        r = refused(args[:1] + ["--backend", "cuda"] + args[1:], "--backend cuda", out,
                    f"{args[0]} --backend cuda ({state})", code=1)
        check(why in r.stderr, f"{args[0]} --backend cuda: no '{why}' in {r.stderr!r}")
        check(not os.path.exists(out2), f"{args[0]} --backend cuda: left {out2}")
    ok(["scan", "--backend", "auto", inp, path("c_auto.npy")], "--backend auto without a GPU")
    check(read_npy(path("c_auto.npy")) == ("i32", [3, 4, 6, 8]), "--backend auto without a GPU")


def test_cuda_big():
    """A 2^20 + 3 element scan on the GPU with each GPU algorithm, and auto above the threshold."""
    big = [rng.randrange(-1000, 1000) for _ in range((1 << 20) + 3)]
    want = ("i32", list(itertools.accumulate(big)))
    inp = write_npy("cbig.npy", big, "i32")
    for algo in ("auto", "decoupled-lookback", "chained", "reduce-then-scan",
                 "scan-then-propagate"):
        ok(["scan", "--algo", algo, inp, path("cbigo.npy")], f"cuda 1M {algo}")
        check(read_npy(path("cbigo.npy")) == want, f"cuda 1M --algo {algo}")
    # the sequential loop is CPU-only: on the GPU pass it is a usage error, before any work
    refused(["scan", "--algo", "sequential", inp, path("cseq.npy")], "runs on the CPU only",
            path("cseq.npy"), "cuda --algo sequential", code=2)


def test_scan_axis():
    shape = (3, 4, 5)
    values = [(i * 7) % 11 - 5 for i in range(60)]
    inp = write_npy("ax.npy", values, "i32", shape="(3, 4, 5)")
    for axis in (-1, 0, 1, 2):
        for flags in ([], ["--reverse"], ["--exclusive"], ["--reverse", "--exclusive"]):
            out = path("ax_out.npy")
            r = run(["scan", "--axis", str(axis)] + flags + [inp, out])
            what = f"scan --axis {axis} {' '.join(flags)}"
            if not check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr}"):
                continue
            dtype, got_shape, got = read_npy_nd(out)
            want = axis_reference(values, shape, axis % 3, "--reverse" in flags,
                                  "--exclusive" in flags)
            check(dtype == "i32" and tuple(got_shape) == shape and got == want,
                  f"{what}: {dtype} {got_shape} {got[:8]}..., want {want[:8]}...")
    one = write_npy("ax1.npy", [1, 2, 3, 4], "i64")
    r = run(["scan", "--reverse", one, path("ax1_out.npy")])
    check(r.returncode == 0 and read_npy(path("ax1_out.npy"))[1] == [10, 9, 7, 4],
          f"1-D --reverse: {r.returncode} {r.stderr}")
    refused(["scan", inp, path("never.npy")], "ax.npy", path("never.npy"), "3-D without --axis",
            code=2)
    refused(["scan", "--axis", "3", inp, path("never.npy")], "ax.npy", path("never.npy"),
            "--axis past the dimensions", code=2)
    refused(["unique", inp, path("never.npy")], "ax.npy", path("never.npy"),
            "3-D input to a 1-D command", code=1)


GPU_TESTS = (test_scan_every_type, test_scan_ops, test_reduce, test_scan_widening, test_select_partition,
             test_select_flagged, test_unique_rle, test_by_key, test_cuda_big)

for test in (test_scan_every_type, test_scan_ops, test_reduce, test_scan_widening, test_scan_formats,
             test_select_partition, test_select_flagged, test_unique_rle, test_by_key,
             test_refusals, test_usage_errors, test_help, test_scan_axis):
    test()
STATE = gpu_state()
print(f"--backend cuda: {STATE}")
if STATE == "gpu":  # the same round trips on the GPU
    EXTRA = ["--backend", "cuda"]
    for test in GPU_TESTS:
        test()
    EXTRA = []
else:
    test_cuda_refused(STATE)
finish()
