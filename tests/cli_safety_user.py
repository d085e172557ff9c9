"""Cases 7 and 8 of tests/test_cli_safety.py (its docstring lists every case): the tool's
messages, and what a numpy user expects. Run by test_cli_safety.py, in its setting
(cli_safety_env.py)."""
import os
import pty
import shutil
import struct
import subprocess
import threading

from tool_check import check
from cli_safety_env import (CODES, GOOD, GOOD_SCAN, PSCAN, WORK, cumsum, npy_header, path,
                            read_npy, rng, run, skip, temps_in, write_npy)


# ---- 7. messages ----

def test_messages():
    r = run(["trace", "--algo", "blelloch", "--svg", "/nonexistent-pscan-dir/x.svg", "1", "2"])
    check(r.returncode == 1 and "/nonexistent-pscan-dir/x.svg" in r.stderr and
          ".tmp" not in r.stderr and r.stderr.count("\n") == 1,
          f"7 unwritable --svg: the user's path, one line: {r.stderr!r}")
    check(r.stdout == "", f"7 unwritable --svg: checked before the trace is printed: {r.stdout!r}")
    # an output that is a directory is found before the input is even read: stdin stays open
    os.makedirs(path("adir"), exist_ok=True)
    p = subprocess.Popen([PSCAN, "scan", "-", path("adir")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = p.communicate(timeout=20)
        check(p.returncode == 1 and "adir: is a directory" in err,
              f"7 directory output: exit {p.returncode}: {err!r}")
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        check(False, "7 directory output: not found before reading the input (still waiting)")
    r = run(["scan", GOOD, "/nonexistent-pscan-dir/o.npy"])
    check(r.returncode == 1 and "/nonexistent-pscan-dir/o.npy" in r.stderr,
          f"7 missing directory: {r.stderr!r}")
    # integers: out of range, not "not a number"; long but valid tokens are read
    with open(path("long.txt"), "w") as f:
        f.write("1 " + "9" * 100 + "\n")
    r = run(["scan", path("long.txt"), path("o.txt")])
    check(r.returncode == 1 and "out of the range" in r.stderr, f"7 100 digits: {r.stderr!r}")
    with open(path("zeros.txt"), "w") as f:
        f.write("0" * 100 + "5 -" + "0" * 100 + "7\n")
    r = run(["scan", path("zeros.txt"), path("z.txt")])
    check(r.returncode == 0 and open(path("z.txt")).read().split() == ["5", "-2"],
          f"7 100 zeros then 5: read as 5: {r.stderr!r}")
    r = run(["scan", "--init", "9" * 30, GOOD, path("o.npy")])
    check(r.returncode == 2 and "out of range" in r.stderr, f"7 --init 30 digits: {r.stderr!r}")
    r = run(["scan", "--threads", "9" * 30, GOOD, path("o.npy")])
    check(r.returncode == 2 and "out of range" in r.stderr, f"7 --threads 30 digits: {r.stderr!r}")
    r = run(["trace", "--algo", "blelloch", "9" * 30])
    check(r.returncode == 2 and "out of range" in r.stderr, f"7 trace value: {r.stderr!r}")
    # a 2^64 shape
    with open(path("huge.npy"), "wb") as f:
        f.write(npy_header("<i8", "(18446744073709551616,)") + b"\0" * 8)
    r = run(["scan", path("huge.npy"), path("o.npy")])
    check(r.returncode == 1 and "2^64" in r.stderr and "18446744073709551615" not in r.stderr,
          f"7 2^64 shape: {r.stderr!r}")
    # no NVIDIA driver
    built_with_cuda = "without CUDA" not in run(["scan", "--backend", "cuda", GOOD,
                                                  path("probe.npy")]).stderr
    if os.path.exists(path("probe.npy")):  # a GPU ran it: the checks below expect no o.npy
        os.unlink(path("probe.npy"))
    no_driver = not os.path.exists("/proc/driver/nvidia/version")
    if built_with_cuda and no_driver:
        r = run(["scan", "--backend", "cuda", GOOD, path("o.npy")])
        check(r.returncode == 1 and "no NVIDIA driver found" in r.stderr,
              f"7 no driver: {r.stderr!r}")
    else:
        skip("7 no NVIDIA driver", "this build has no CUDA" if not built_with_cuda
             else "this machine has an NVIDIA driver")
    # invalid option combinations: usage errors (exit 2, the --help hint), before any work
    i32 = write_npy(path("i32.npy"), [1, 2], "i32")
    f64 = write_npy(path("f64.npy"), [1.0, 2.0], "f64")
    for args, what in ((["scan", "--out-dtype", "i16", i32, path("o.npy")], "narrower --out-dtype"),
                       (["scan", "--out-dtype", "f64", i32, path("o.npy")], "--out-dtype of another kind"),
                       (["scan", "--op", "and", f64, path("o.npy")], "--op and on f64"),
                       (["reduce-by-key", "--op", "or", i32, f64, path("k.npy"), path("v.npy")],
                        "reduce-by-key --op or on f64"),
                       (["scan", "--algo", "sequential", "--backend", "cuda", i32, path("o.npy")],
                        "--algo sequential --backend cuda")):
        r = run(args)
        check(r.returncode == 2 and "--help" in r.stderr and "PSCAN_ERR" not in r.stderr,
              f"7 {what}: exit {r.returncode}: {r.stderr!r}")
        check(not os.path.exists(path("o.npy")), f"7 {what}: nothing written")
    check(not temps_in(WORK), f"7: temporary files left: {temps_in(WORK)}")


# ---- 8. what a numpy user expects ----

def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def test_numpy_user():
    n = 5000
    xs32 = [f32(rng.uniform(-1000, 1000)) for _ in range(n)]
    xs64 = [rng.uniform(-1000, 1000) * 10 ** rng.randint(-3, 3) for _ in range(n)]
    want32, acc = [], 0.0
    for i, x in enumerate(xs32):  # numpy.cumsum's order; a double sum of two floats rounds once
        acc = x if i == 0 else f32(acc + x)
        want32.append(acc)
    want64, acc = [], 0.0
    for i, x in enumerate(xs64):
        acc = x if i == 0 else acc + x
        want64.append(acc)
    a32 = write_npy(path("a32.npy"), xs32, "f32")
    a64 = write_npy(path("a64.npy"), xs64, "f64")
    for isa in ("scalar", "avx2", "avx512"):
        env = dict(os.environ, PSCAN_CPU_ISA=isa)
        for src, want, t in ((a32, want32, "f32"), (a64, want64, "f64")):
            out = path("seq.npy")
            r = run(["scan", "--algo", "sequential", "--threads", "1", src, out], env=env)
            got = read_npy(out)[1] if r.returncode == 0 else None
            bits = (lambda v: struct.pack("<%d%s" % (len(v), CODES[t]), *v))
            check(got is not None and bits(got) == bits(want),
                  f"8 --algo sequential {t} PSCAN_CPU_ISA={isa}: the plain loop's bits")
    # --dtype against a .npy file's own type: refused; the same type: accepted
    r = run(["scan", "--dtype", "i32", a64, path("o.npy")])
    check(r.returncode == 2 and "a64.npy" in r.stderr and "f64" in r.stderr,
          f"8 --dtype i32 on an f64 .npy: refused: {r.stderr!r}")
    check(not os.path.exists(path("o.npy")), "8 --dtype refused: nothing written")
    r = run(["scan", "--dtype", "f64", a64, path("o.npy")])
    check(r.returncode == 0, f"8 --dtype f64 on an f64 .npy: accepted: {r.stderr!r}")
    os.unlink(path("o.npy"))
    # the extension, whatever its case
    shutil.copyfile(GOOD, path("UP.NPY"))
    r = run(["scan", path("UP.NPY"), path("o.NPY")])
    check(r.returncode == 0 and read_npy(path("o.NPY")) == ("i64", GOOD_SCAN),
          f"8 .NPY in and out: NumPy: {r.stderr!r}")
    r = run(["scan", path("UP.NPY"), path("o.TXT")])
    check(r.returncode == 0 and open(path("o.TXT")).read().split() == ["1", "3", "6", "10"],
          "8 .TXT: text")
    # bool sums to int64, as numpy.cumsum does
    bools = [True] * 300 + [False, True]
    b = write_npy(path("b.npy"), bools, "bool")
    r = run(["scan", b, path("bs.npy")])
    check(r.returncode == 0 and read_npy(path("bs.npy")) == ("i64", cumsum(map(int, bools))),
          f"8 bool cumsum: int64, no wrap at 256: {r.stderr!r} {read_npy(path('bs.npy'))[0]}")
    k = write_npy(path("bk.npy"), [1] * 302, "i64")
    r = run(["reduce-by-key", k, b, path("rk.npy"), path("rv.npy")])
    check(r.returncode == 0 and read_npy(path("rv.npy")) == ("i64", [301]),
          f"8 bool sum by key: int64: {r.stderr!r}")
    r = run(["scan", "--op", "max", b, path("bm.npy")])
    check(r.returncode == 0 and read_npy(path("bm.npy"))[1] == [1] * 302, "8 bool max: 0/1")
    # progress on a terminal, none otherwise
    n = 1 << 23
    big = path("big.npy")
    with open(big, "wb") as f:
        f.write(npy_header("<i8", "(%d,)" % n))
        f.write(b"\1\0\0\0\0\0\0\0" * n)
    master, slave = pty.openpty()
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)
    t = threading.Thread(target=drain, daemon=True)
    t.start()
    r = subprocess.run([PSCAN, "scan", big, path("bigout.npy")], stderr=slave,
                       stdout=subprocess.DEVNULL, timeout=300)
    os.close(slave)
    t.join(10)
    os.close(master)
    shown = b"".join(chunks).decode(errors="replace")
    check(r.returncode == 0 and "writing" in shown and "%" in shown,
          f"8 progress on a terminal: {shown[-300:]!r}")
    r = run(["scan", big, path("bigout.npy")])
    check(r.returncode == 0 and r.stderr == "", f"8 no progress without a terminal: {r.stderr!r}")
    for f in ("big.npy", "bigout.npy"):
        os.unlink(path(f))
