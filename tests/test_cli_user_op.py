#!/usr/bin/env python3
"""Test of `pscan scan`, `pscan reduce`, `pscan scan-by-key` and `pscan reduce-by-key` with your
own operator (--op-source, --op-fn, --op-type, --op-identity) and of `pscan select` and
`pscan partition` with your own predicate, run as a user runs them: usage
`test_cli_user_op.py PSCAN WORKDIR`.
PSCAN_TEST_SEED reproduces a run.

The operator under test is the affine map on unsigned 32-bit integers, x -> a x + b (mod 2^32):
associative and not commutative, so a result in the wrong order shows, and exact, so every
result is compared bit for bit with a Python loop. Its elements are the last axis of a .npy
array of u32 (shape (..., 2)). A scalar operator (an int sum) runs on text and .npy files.
Every refusal exits non-zero with one line on stderr and leaves no output."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish, tool_run_setup  # noqa: E402
from cli_formats import npy_bytes, read_npy, read_npy_nd  # noqa: E402

PSCAN, WORK, rng = tool_run_setup()
os.environ["PSCAN_CACHE_DIR"] = os.path.join(WORK, "op-cache")
EXTRA = []  # ["--backend", "cuda"] on the GPU pass

M = (1 << 32) - 1
AFFINE = ("typedef struct { unsigned a, b; } affine;\n"
          "affine compose(affine x, affine y) {\n"
          "  affine r = { x.a * y.a, y.a * x.b + y.b };\n"
          "  return r;\n}\n")
ADD = "int add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }\n"


def path(name):
    return os.path.join(WORK, name)


def source(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def run(args):
    args = args[:1] + EXTRA + args[1:]
    return subprocess.run([PSCAN] + args, capture_output=True, text=True, timeout=300)


def affine_args(extra=()):
    return ["--op-source", path("affine.c"), "--op-type", "affine", "--op-fn", "compose",
            *extra]


def compose(x, y):
    return ((x[0] * y[0]) & M, (y[0] * x[1] + y[1]) & M)


def ref_line(line, exclusive=False, init=None):
    """The scan of a list of (a, b) maps, as the tool defines it."""
    out, acc = [], init
    for x in line:
        if exclusive:
            out.append(acc)
        acc = x if acc is None else compose(acc, x)
        if not exclusive:
            out.append(acc)
    return out


def maps(n):
    return [(rng.randrange(1 << 32), rng.randrange(1 << 32)) for _ in range(n)]


def write_maps(name, ms, shape):
    flat = [v for m in ms for v in m]
    with open(path(name), "wb") as f:
        f.write(npy_bytes(flat, "u32", shape=shape))
    return path(name)


def pairs(values):
    return [tuple(values[i:i + 2]) for i in range(0, len(values), 2)]


def ok(args, what):
    r = run(args)
    check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()}")
    return r.returncode == 0


def test_flat():
    """(n, 2) u32 maps: inclusive, exclusive, with and without the identity, with init."""
    for n in (0, 1, 2, 7, 1000, 4099 + rng.randrange(3000)):
        ms = maps(n)
        inp = write_maps("m.npy", ms, f"({n}, 2)")
        for flags, excl, init in (([], False, None), (["--op-identity", "1,0"], False, None),
                                  (["--exclusive", "--op-identity", "1,0"], True, (1, 0)),
                                  (["--exclusive", "--init", "3,5"], True, (3, 5)),
                                  (["--init", "7,1"], False, (7, 1))):
            what = f"affine n={n} {' '.join(flags)}"
            if not ok(["scan"] + affine_args(flags) + [inp, path("o.npy")], what):
                continue
            dtype, shape, got = read_npy_nd(path("o.npy"))
            want = ref_line(ms, excl, init)
            check(dtype == "u32" and tuple(shape) == (n, 2) and pairs(got) == want,
                  f"{what}: {dtype} {shape} {pairs(got)[:3]}..., want {want[:3]}...")


def test_axis():
    """(d0, d1, 2) maps along either axis, forwards and reversed."""
    d0, d1 = 3 + rng.randrange(4), 40 + rng.randrange(90)
    ms = maps(d0 * d1)
    inp = write_maps("m3.npy", ms, f"({d0}, {d1}, 2)")
    for axis in (0, 1, -1):
        for rev in (False, True):
            for excl in (False, True):
                flags = ["--axis", str(axis)] + (["--reverse"] if rev else []) + \
                        (["--exclusive", "--op-identity", "1,0"] if excl else [])
                what = f"affine ({d0}, {d1}) {' '.join(flags)}"
                if not ok(["scan"] + affine_args(flags) + [inp, path("o3.npy")], what):
                    continue
                _, shape, got = read_npy_nd(path("o3.npy"))
                got = pairs(got)
                want = [None] * (d0 * d1)
                lines = ([[i * d1 + j for j in range(d1)] for i in range(d0)] if axis % 2 else
                         [[i * d1 + j for i in range(d0)] for j in range(d1)])
                for idx in lines:
                    order = idx[::-1] if rev else idx
                    for k, v in zip(order, ref_line([ms[k] for k in order], excl,
                                                    (1, 0) if excl else None)):
                        want[k] = v
                check(tuple(shape) == (d0, d1, 2) and got == want, f"{what}: differs")


def test_reduce_and_scalars():
    ms = maps(500)
    inp = write_maps("r.npy", ms, "(500, 2)")
    if ok(["reduce"] + affine_args() + [inp, path("r_out.npy")], "reduce affine"):
        check(tuple(read_npy(path("r_out.npy"))[1]) == ref_line(ms)[-1], "reduce affine value")
    if ok(["reduce"] + affine_args(["--init", "2,9"]) + [inp, path("r_out.txt")], "reduce --init"):
        with open(path("r_out.txt")) as f:
            got = tuple(int(v) for v in f.read().split())
        check(got == ref_line(ms, init=(2, 9))[-1], f"reduce --init: {got}")
    xs = [rng.randrange(-1000, 1000) for _ in range(300)]
    with open(path("x.txt"), "w") as f:
        f.write("\n".join(map(str, xs)) + "\n")
    add = ["--op-source", source("add.c", ADD), "--op-fn", "add"]
    want = []
    for x in xs:
        want.append(x + (want[-1] if want else 0))
    if ok(["scan", "--dtype", "i32"] + add + [path("x.txt"), path("x_out.txt")], "int add, text"):
        with open(path("x_out.txt")) as f:
            check([int(v) for v in f.read().split()] == want, "int add, text: values")
    with open(path("x.npy"), "wb") as f:
        f.write(npy_bytes(xs, "i32"))
    if ok(["scan"] + add + ["--op-identity", "0", "--exclusive", path("x.npy"), path("xo.npy")],
          "int add, .npy, exclusive"):
        check(read_npy(path("xo.npy")) == ("i32", [0] + want[:-1]), "int add exclusive: values")
    if ok(["scan"] + add + ["--reverse", path("x.npy"), path("xr.npy")], "int add, reversed"):
        back = []
        for x in reversed(xs):
            back.append(x + (back[-1] if back else 0))
        check(read_npy(path("xr.npy")) == ("i32", back[::-1]), "int add reversed: values")


KEEP = AFFINE + "int keep(affine x) { return x.a > x.b; }\n"
POSITIVE = "int positive(int x) { return x > 0; }\n"


def test_select_partition():
    """Predicates from source: kept elements in order (select), then the rest reversed
    (partition), on (n, 2) pairs and on a scalar text file."""
    for n in (0, 1, 5, 3000 + rng.randrange(2000)):
        ms = maps(n)
        inp = write_maps("s.npy", ms, f"({n}, 2)")
        pred = ["--op-source", source("keep.c", KEEP), "--op-type", "affine", "--op-fn", "keep"]
        kept = [m for m in ms if m[0] > m[1]]
        if ok(["select"] + pred + [inp, path("s_out.npy")], f"select n={n}"):
            _, shape, got = read_npy_nd(path("s_out.npy"))
            check(tuple(shape) == (len(kept), 2) and pairs(got) == kept,
                  f"select n={n}: {shape} {pairs(got)[:3]}, want {len(kept)} {kept[:3]}")
        r = run(["partition"] + pred + [inp, path("p_out.npy")])
        if check(r.returncode == 0, f"partition n={n}: {r.stderr.strip()}"):
            _, shape, got = read_npy_nd(path("p_out.npy"))
            want = kept + [m for m in ms if not m[0] > m[1]][::-1]
            check(tuple(shape) == (n, 2) and pairs(got) == want, f"partition n={n}: order")
            check(f"{len(kept)} of {n} selected" in r.stderr, f"partition n={n}: {r.stderr!r}")
    xs = [rng.randrange(-50, 50) for _ in range(700)]
    with open(path("sx.txt"), "w") as f:
        f.write("\n".join(map(str, xs)) + "\n")
    args = ["select", "--dtype", "i32", "--op-source", source("pos.c", POSITIVE), "--op-fn",
            "positive", path("sx.txt"), path("sx_out.txt")]
    if ok(args, "select int, text"):
        with open(path("sx_out.txt")) as f:
            check([int(v) for v in f.read().split()] == [x for x in xs if x > 0],
                  "select int, text: values")


def write_keys(name, n):
    """i32 keys in runs of 1 to 20 (neighbouring runs differ); the list and the file."""
    keys, k = [], 0
    while len(keys) < n:
        k += 1 + rng.randrange(3)
        keys += [k] * (1 + rng.randrange(20))
    keys = keys[:n]
    with open(path(name), "wb") as f:
        f.write(npy_bytes(keys, "i32", shape=f"({n},)"))
    return keys, path(name)


def runs_of(keys, ms, exclusive=False, init=None):
    """Each run of equal keys scanned alone (init, or the identity (1, 0), starting every run)."""
    out, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[i - 1]:
            out += ref_line(ms[start:i], exclusive, init)
            start = i
    return out


def test_by_key():
    """scan-by-key and reduce-by-key of (n, 2) u32 maps by i32 keys (on either backend)."""
    for n in (1, 2, 33, 3000 + rng.randrange(3000), 70000 + rng.randrange(9000)):
        ms = maps(n)
        keys, kp = write_keys("k.npy", n)
        inp = write_maps("m.npy", ms, f"({n}, 2)")
        for flags, excl, init in (([], False, None),
                                  (["--exclusive", "--op-identity", "1,0"], True, (1, 0)),
                                  (["--exclusive", "--init", "3,5"], True, (3, 5)),
                                  (["--init", "7,1"], False, (7, 1))):
            what = f"scan-by-key n={n} {' '.join(flags)}"
            if ok(["scan-by-key"] + affine_args(flags) + [kp, inp, path("o.npy")], what):
                dtype, shape, got = read_npy_nd(path("o.npy"))
                want = runs_of(keys, ms, excl, init)
                check(dtype == "u32" and tuple(shape) == (n, 2) and pairs(got) == want,
                      f"{what}: {dtype} {shape} {pairs(got)[:3]}..., want {want[:3]}...")
        what = f"reduce-by-key n={n}"
        if ok(["reduce-by-key"] + affine_args() + [kp, inp, path("ko.npy"), path("vo.npy")],
              what):
            heads = [i for i in range(n) if i == 0 or keys[i] != keys[i - 1]]
            ends = heads[1:] + [n]
            scanned = runs_of(keys, ms)
            want = [scanned[e - 1] for e in ends]
            _, kshape, kgot = read_npy_nd(path("ko.npy"))
            _, vshape, vgot = read_npy_nd(path("vo.npy"))
            check(kgot == [keys[h] for h in heads] and tuple(vshape) == (len(heads), 2) and
                  pairs(vgot) == want, f"{what}: {kshape} {vshape}, {len(heads)} runs")
    if EXTRA:
        return
    keys, kp = write_keys("k.npy", 10)
    inp = write_maps("m.npy", maps(9), "(9, 2)")
    refused(["scan-by-key"] + affine_args() + [kp, inp, path("never.npy")],
            "scan-by-key, 10 keys for 9 maps", 1, "9 elements")
    wide = write_maps("w.npy", maps(90), "(10, 18)")
    wide_src = source("wide.c", "typedef struct { unsigned m[18]; } big;\n"
                      "big right(big a, big b) { (void)a; return b; }\n")
    refused(["reduce-by-key", "--op-source", wide_src, "--op-type", "big", "--op-fn", "right",
             kp, wide, path("ko.npy"), path("never.npy")], "reduce-by-key, 72-byte elements", 1,
            "at most 64")


def refused(args, what, code, needle):
    out = args[-1]
    if os.path.exists(out):
        os.remove(out)
    r = run(args)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == code, f"{what}: exit {r.returncode}, want {code}: {r.stderr.strip()}")
    check(len(lines) == 1 and needle in r.stderr, f"{what}: stderr {r.stderr!r}, want one line "
          f"with {needle!r}")
    check(not os.path.exists(out), f"{what}: left {out}")


def test_refusals():
    inp = write_maps("f.npy", maps(10), "(10, 2)")
    x = path("x.npy")
    out = path("never.npy")
    src = ["--op-source", path("affine.c")]
    refused(["scan"] + src + [inp, out], "no --op-fn", 2, "--op-fn")
    refused(["scan", "--op-fn", "compose", inp, out], "--op-fn alone", 2, "--op-source")
    refused(["scan", "--op", "max"] + affine_args() + [inp, out], "--op and --op-source", 2,
            "give one operator")
    refused(["scan"] + src + ["--op-fn", "compose", inp, out], "no --op-type", 2, "--op-type")
    refused(["scan"] + affine_args(["--op-identity", "1"]) + [inp, out], "identity of 1 value",
            2, "2 values")
    refused(["scan"] + affine_args(["--init", "1,x"]) + [inp, out], "bad init", 2, "'x'")
    refused(["scan"] + affine_args(["--out-dtype", "u64"]) + [inp, out], "--out-dtype", 2,
            "--out-dtype")
    refused(["scan"] + affine_args(["--axis", "1"]) + [inp, out], "--axis past the elements", 2,
            "--axis 1")
    refused(["scan"] + affine_args(["--exclusive"]) + [inp, out], "exclusive, no init", 1,
            "PSCAN_ERR_INVALID_ARGUMENT")
    refused(["scan", "--op-source", source("bad.c", "int add(int a, int b) { return a +; }\n"),
             "--op-fn", "add", x, out], "compile error", 1, "error")
    refused(["scan", "--op-source", path("add.c"), "--op-fn", "addd", x, out], "misspelt --op-fn",
            1, "addd")
    refused(["scan"] + affine_args() + [x, out], "element size", 1, "sizeof(affine)")
    refused(["scan", "--op-source", path("none.c"), "--op-fn", "f", x, out], "no source file", 1,
            "none.c")
    keep = ["--op-source", path("keep.c"), "--op-type", "affine", "--op-fn", "keep"]
    refused(["select", "--cmp", "gt", "--value", "1"] + keep + [inp, out],
            "--cmp and --op-source", 2, "give one predicate")
    refused(["select", "--op-identity", "1,0"] + keep + [inp, out], "select --op-identity", 2,
            "--op-identity")
    refused(["select", "--op-source", path("affine.c"), "--op-type", "affine", "--op-fn",
             "compose", inp, out], "an operator as a predicate", 1, "error")


def test_help():
    r = run(["scan", "--help"])
    check(r.returncode == 0 and "--op-source" in r.stdout and "--op-identity" in r.stdout,
          "scan --help names --op-source")
    r = run(["select", "--help"])
    check(r.returncode == 0 and "int FN(T x)" in r.stdout and "--op-identity" not in r.stdout
          and "every line on its own" not in r.stdout, "select --help: the predicate's options")


def gpu_state():
    r = run(["scan", "--backend", "cuda", "--dtype", "i32", path("x.txt"), path("probe.txt")])
    return "gpu" if r.returncode == 0 else "none"


source("affine.c", AFFINE)
TESTS = (test_flat, test_axis, test_reduce_and_scalars, test_select_partition, test_by_key)
for test in TESTS + (test_refusals, test_help):
    test()
STATE = gpu_state()
print(f"--backend cuda: {STATE}")
if STATE == "gpu":  # the same round trips, compiled by NVRTC
    EXTRA = ["--backend", "cuda"]
    for test in TESTS:
        test()
finish()
