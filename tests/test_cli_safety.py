#!/usr/bin/env python3
"""What the pscan tool does to the file system, case by case (issue 28): usage
`test_cli_safety.py PSCAN WORKDIR`. Every file lives in WORKDIR (emptied first); /dev is never
touched: device nodes are made with mknod inside WORKDIR, where the test runs as root (otherwise
those checks are skipped, and the run says so).

 1. outputs that are not regular files: device nodes (a null and a full device), a FIFO, symbolic
    links (to a file, dangling, relative), for the file commands, trace --svg and bench --csv;
 2. SIGINT, SIGTERM and SIGHUP while an output is being written: the temporary file is removed,
    the exit status is 128 + the signal;
 3. an input truncated by a second process while it is read: one line, exit 1, nothing written;
 4. no predictable temporary names: X.tmp, X.partial, PREFIX-....png.partial planted as links to
    a victim file are neither followed nor replaced;
 5. one path given for two outputs (also through a symlink, a hard link, another spelling):
    exit 2; an output that is an input is written in place, and survives a failed run;
 6. a replaced output keeps its mode (0600), its owner (as root), and hard links behave as
    docs/CLI.md says (the other name keeps the old contents);
 7. messages: the user's path (not a temporary name), outputs checked before the work, integers
    out of range, a 2^64 shape, no NVIDIA driver, invalid option combinations exit 2;
 8. numpy users: --algo sequential gives the plain loop's float bits on every PSCAN_CPU_ISA,
    --dtype that contradicts a .npy file is refused, .NPY is NumPy, a bool array sums to int64,
    progress on a terminal.
Python's standard library only. Ends with "N passed, N failed" like the C tests."""
import os
import pty
import random
import shutil
import signal
import stat
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish  # noqa: E402

PSCAN = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
SEED = int(os.environ.get("PSCAN_TEST_SEED", random.randrange(1 << 32)))
print(f"seed {SEED} (PSCAN_TEST_SEED={SEED} reproduces this run)")
rng = random.Random(SEED)
ROOT = os.geteuid() == 0
os.umask(0o022)

CODES = {"i8": "b", "i16": "h", "i32": "i", "i64": "q", "u8": "B", "u64": "Q", "f32": "f",
         "f64": "d", "bool": "?"}
DESCR = {"i8": "|i1", "i16": "<i2", "i32": "<i4", "i64": "<i8", "u8": "|u1", "u64": "<u8",
         "f32": "<f4", "f64": "<f8", "bool": "|b1"}


def path(*names):
    return os.path.join(WORK, *names)


def npy_header(descr, shape_text):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    total = (10 + len(d) + 1 + 63) // 64 * 64
    d = d + " " * (total - 10 - len(d) - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode()


def npy_bytes(values, dtype):
    return npy_header(DESCR[dtype], "(%d,)" % len(values)) + \
        struct.pack("<%d%s" % (len(values), CODES[dtype]), *values)


def write_npy(p, values, dtype):
    with open(p, "wb") as f:
        f.write(npy_bytes(values, dtype))
    return p


def read_npy(p):
    with open(p, "rb") as f:
        b = f.read()
    if b[:6] != b"\x93NUMPY":
        return None, None
    hlen = struct.unpack("<H", b[8:10])[0]
    header = b[10:10 + hlen].decode()
    descr = header.split("'descr': '")[1].split("'")[0]
    dtype = [t for t, d in DESCR.items() if d == descr][0]
    data = b[10 + hlen:]
    n = len(data) // struct.calcsize(CODES[dtype])
    return dtype, list(struct.unpack("<%d%s" % (n, CODES[dtype]), data))


def cumsum(xs):
    out, acc = [], 0
    for x in xs:
        acc += x
        out.append(acc)
    return out


def run(args, timeout=300, **kw):
    return subprocess.run([PSCAN] + args, capture_output=True, text=True, timeout=timeout, **kw)


def temps_in(d):
    """Hidden temporary files the tool could have left in d."""
    return [f for f in os.listdir(d) if f.startswith(".") or f.endswith((".tmp", ".partial"))]


def skip(what, why):
    print(f"SKIP: {what}: {why}")


GOOD = write_npy(path("good.npy"), [1, 2, 3, 4], "i64")
GOOD_SCAN = [1, 3, 6, 10]


# ---- 1. outputs that are not regular files ----

def check_device(name, major, minor, args_for, what):
    """Makes a character device in WORK, runs the command at it; returns the result."""
    dev = path(name)
    if os.path.lexists(dev):
        os.unlink(dev)
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
    r = run(args_for(dev))
    st = os.lstat(dev)
    check(stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(major, minor),
          f"1 {what}: the device node {name} is still that device")
    return r


def test_not_regular():
    if ROOT:
        cases = {
            "scan": lambda d: ["scan", GOOD, d],
            "trace --svg": lambda d: ["trace", "--algo", "blelloch", "--svg", d, "1", "2", "3"],
            "bench --csv": lambda d: ["bench", "--sizes", "1000", "--threads", "1", "--types",
                                      "i32", "--reps", "1", "--csv", d],
        }
        for what, args_for in cases.items():
            r = check_device("null", 1, 3, args_for, what + " to a null device")
            check(r.returncode == 0, f"1 {what} to a null device: exit {r.returncode} {r.stderr!r}")
            r = check_device("full", 1, 7, args_for, what + " to a full device")
            check(r.returncode == 1 and "No space left on device" in r.stderr,
                  f"1 {what} to a full device: exit {r.returncode}, ENOSPC reported: {r.stderr!r}")
            check(r.stderr.count("No space left") == 1,
                  f"1 {what} to a full device: said once: {r.stderr!r}")
        check(not temps_in(WORK), f"1 devices: temporary files left: {temps_in(WORK)}")
    else:
        skip("1 device nodes", "mknod needs root; not root here")

    # a FIFO: the reader gets the .npy bytes, and the FIFO stays a FIFO
    fifo = path("pipe.npy")
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    r = run(["scan", GOOD, fifo], timeout=60)
    t.join(30)
    check(r.returncode == 0, f"1 FIFO: exit {r.returncode} {r.stderr!r}")
    check(got.get("bytes") == npy_bytes(GOOD_SCAN, "i64"), "1 FIFO: the reader got the result")
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "1 FIFO: still a FIFO")
    os.unlink(fifo)

    # a symbolic link to a file: the target is replaced, the link stays a link
    target = write_npy(path("target.npy"), [9], "i64")
    link = path("link.npy")
    os.symlink("target.npy", link)
    r = run(["scan", GOOD, link])
    check(r.returncode == 0 and os.path.islink(link), f"1 symlink: exit {r.returncode}, link kept")
    check(read_npy(target) == ("i64", GOOD_SCAN), "1 symlink: the target holds the result")
    # dangling: the file it names is created
    os.symlink("made.npy", path("dangling.npy"))
    r = run(["scan", GOOD, path("dangling.npy")])
    check(r.returncode == 0 and os.path.islink(path("dangling.npy")) and
          read_npy(path("made.npy")) == ("i64", GOOD_SCAN), "1 dangling symlink: target created")
    # relative to the link's directory, and a chain of two links
    os.makedirs(path("sub"))
    os.symlink("../link.npy", path("sub", "chain.npy"))
    write_npy(target, [0], "i64")
    r = run(["scan", GOOD, path("sub", "chain.npy")])
    check(r.returncode == 0 and read_npy(target) == ("i64", GOOD_SCAN) and
          os.path.islink(path("sub", "chain.npy")) and os.path.islink(link),
          "1 chain of relative links: the final target written, both links kept")
    # a link to the tool's own stdout (a pipe here), as /dev/stdout is: the pipe gets the text
    os.symlink("/proc/self/fd/1", path("to-stdout.txt"))
    r = run(["scan", GOOD, path("to-stdout.txt")])
    check(r.returncode == 0 and r.stdout.split() == ["1", "3", "6", "10"] and
          os.path.islink(path("to-stdout.txt")) and
          not [f for f in os.listdir(WORK) if f.startswith("pipe:")],
          f"1 a link to /proc/self/fd/1: written to the pipe: {r.stdout!r} {r.stderr!r}")
    # trace --svg through a symbolic link
    with open(path("t.svg"), "w") as f:
        f.write("old")
    os.symlink("t.svg", path("l.svg"))
    r = run(["trace", "--algo", "blelloch", "--svg", path("l.svg"), "1", "2", "3"])
    with open(path("t.svg")) as f:
        svg = f.read()
    check(r.returncode == 0 and os.path.islink(path("l.svg")) and svg.startswith("<?xml"),
          f"1 trace --svg through a symlink: the target written: {r.stderr!r}")
    check(not temps_in(WORK) and not temps_in(path("sub")),
          f"1: temporary files left: {temps_in(WORK)}")


# ---- 2. signals while an output is written ----

def test_signals():
    d = path("sig")
    os.makedirs(d)
    n = 1 << 22
    big = path("sig-in.npy")
    with open(big, "wb") as f:
        f.write(npy_header("<i8", "(%d,)" % n))
        f.write(struct.pack("<q", 123456789) * n)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        out = os.path.join(d, "out.txt")  # text output: seconds of writing
        p = subprocess.Popen([PSCAN, "scan", big, out], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        seen, deadline = False, time.time() + 120
        while time.time() < deadline and p.poll() is None:
            if any(f.startswith(".out.txt.") for f in os.listdir(d)):
                seen = True
                p.send_signal(sig)
                break
            time.sleep(0.001)
        p.communicate(timeout=120)
        check(seen, f"2 {sig.name}: the temporary file was seen while the output was written")
        if seen:
            check(p.returncode == 128 + sig.value,
                  f"2 {sig.name}: exit {p.returncode}, want {128 + sig.value}")
            check(os.listdir(d) == [], f"2 {sig.name}: left {os.listdir(d)}")
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
    os.unlink(big)


# ---- 3. an input truncated while it is read ----

# the second process: coreutils' truncate where there is one (it starts in a millisecond)
TRUNCATE = ["truncate", "-s", "100"] if shutil.which("truncate") else \
    [sys.executable, "-c", "import os,sys; os.truncate(sys.argv[1], 100)"]


def truncation_race(d, name, make, args_for, attempts):
    """Runs the tool on d/name while a second process truncates it, until the truncation has hit
    the tool while it read the file 3 times, or attempts runs: the tool must never be killed,
    and a refusal is one line with nothing written. Returns (hits, attempts made)."""
    inp, out = os.path.join(d, name), os.path.join(d, "out.npy")
    make(inp)
    t0 = time.time()
    r = run(args_for(inp, out))
    span = time.time() - t0
    check(r.returncode == 0, f"3 {name}: the untouched run: {r.stderr!r}")
    hits, killed, outcomes = 0, [], {}
    for attempt in range(attempts):
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        make(inp)
        p = subprocess.Popen([PSCAN] + args_for(inp, out), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(rng.uniform(0.0, span))
        subprocess.run(TRUNCATE + [inp], check=True)
        _, err = p.communicate(timeout=120)
        key = "changed" if "file changed while being read" in err else str(p.returncode)
        outcomes[key] = outcomes.get(key, 0) + 1
        if p.returncode < 0:
            killed.append(p.returncode)
        elif p.returncode != 0:
            check(p.returncode == 1 and err.count("\n") == 1,
                  f"3 {name} attempt {attempt}: exit {p.returncode}, one line: {err!r}")
            check(not os.path.exists(out) and temps_in(d) == [],
                  f"3 {name} attempt {attempt}: nothing written: {os.listdir(d)}")
            if f"{name}: file changed while being read" in err:
                hits += 1
        if hits >= 3:
            break
    check(not killed, f"3 {name}: killed by signals {killed} (SIGBUS is {-signal.SIGBUS.value})")
    print(f"3 {name}: outcomes {outcomes} in {attempt + 1} attempts (a run {span:.2f} s)")
    return hits, attempt + 1


def test_truncated_input():
    d = path("trunc")
    os.makedirs(d)
    n = 1 << 21
    text = b"".join(b"%d\n" % (i * 7919 % 1000003) for i in range(n))
    n = 1 << 23
    npy = npy_header("<i8", "(%d,)" % n) + bytes(range(256)) * (n * 8 // 256)

    def put(data):
        def make(p):
            with open(p, "wb") as f:
                f.write(data)
        return make
    # text input: parsed from the mapping for a second or so, a wide window
    hits, tries = truncation_race(d, "good.txt", put(text),
                                  lambda i, o: ["scan", i, o], 30)
    check(hits > 0, f"3 good.txt: the truncation never hit a read in {tries} attempts")
    # .npy input: the scan reads the mapping; a narrower window, tried as often as it takes
    hits, tries = truncation_race(d, "good.npy", put(npy),
                                  lambda i, o: ["scan", "--algo", "sequential", i, o], 60)
    check(hits > 0, f"3 good.npy: the truncation never hit a read in {tries} attempts")


# ---- 4. no predictable temporary names ----

def test_no_predictable_names():
    victim = path("victim.txt")
    with open(victim, "w") as f:
        f.write("precious")
    os.symlink(victim, path("x.svg.tmp"))
    os.symlink(victim, path("r.csv.partial"))
    os.symlink(victim, path("p-throughput-i32.png.partial"))
    r = run(["trace", "--algo", "blelloch", "--svg", path("x.svg"), "1", "2", "3"])
    check(r.returncode == 0, f"4 trace: {r.stderr!r}")
    plots = os.environ.get("PSCAN_TOOL_CAIRO", "ON") == "ON"  # a build without cairo: no --plot
    r = run(["bench", "--sizes", "1000", "--threads", "1", "--types", "i32", "--reps", "1",
             "--csv", path("r.csv")] + (["--plot", path("p")] if plots else []))
    check(r.returncode == 0, f"4 bench: {r.stderr!r}")
    with open(victim, "rb") as f:
        check(f.read() == b"precious", "4: the victim file behind the planted names is intact")
    for name in ("x.svg.tmp", "r.csv.partial", "p-throughput-i32.png.partial"):
        check(os.path.islink(path(name)), f"4: the planted link {name} is untouched")
        os.unlink(path(name))
    check(os.path.getsize(path("x.svg")) > 0 and os.path.getsize(path("r.csv")) > 0 and
          (not plots or os.path.getsize(path("p-throughput-i32.png")) > 0),
          "4: the outputs were written")
    check(not temps_in(WORK), f"4: temporary files left: {temps_in(WORK)}")


# ---- 5. one file for two outputs; in place ----

def test_same_file():
    d = path("same")
    os.makedirs(d)
    x = write_npy(os.path.join(d, "x.npy"), [1, 1, 2], "i64")
    k = write_npy(os.path.join(d, "k.npy"), [1, 1, 2], "i64")
    v = write_npy(os.path.join(d, "v.npy"), [5, 6, 7], "i64")
    a = os.path.join(d, "a.npy")
    cases = [
        (["rle", x, a, a], "rle VALUES_OUT = COUNTS_OUT"),
        (["reduce-by-key", k, v, a, a], "reduce-by-key KEYS_OUT = VALS_OUT"),
        (["partition", "--cmp", "lt", "--value", "2", "--count-out", a, x, a],
         "partition OUT = --count-out"),
        (["rle", x, a, os.path.join(d, "sub", "..", "a.npy")], "another spelling"),
    ]
    os.makedirs(os.path.join(d, "sub"))
    for args, what in cases:
        r = run(args)
        check(r.returncode == 2 and "same file" in r.stderr and "--help" in r.stderr,
              f"5 {what}: exit {r.returncode}, a usage message: {r.stderr!r}")
        check(not os.path.exists(a), f"5 {what}: nothing written")
    write_npy(a, [0], "i64")
    os.symlink("a.npy", os.path.join(d, "la.npy"))
    os.link(a, os.path.join(d, "ha.npy"))
    for other, what in (("la.npy", "a symlink"), ("ha.npy", "a hard link")):
        r = run(["rle", x, a, os.path.join(d, other)])
        check(r.returncode == 2 and "same file" in r.stderr,
              f"5 {what} to the other output: exit {r.returncode}: {r.stderr!r}")
        check(read_npy(a) == ("i64", [0]), f"5 {what}: the existing file untouched")
    # in place: the output replaces the input
    r = run(["scan", x, x])
    check(r.returncode == 0 and read_npy(x) == ("i64", [1, 2, 4]), f"5 in place: {r.stderr!r}")
    r = run(["rle", x, x, os.path.join(d, "c.npy")])
    check(r.returncode == 0 and read_npy(x) == ("i64", [1, 2, 4]) and
          read_npy(os.path.join(d, "c.npy")) == ("u64", [1, 1, 1]), "5 rle in place")
    # a failed in-place run leaves the input as it was
    f = write_npy(os.path.join(d, "f.npy"), [1.5, 2.5], "f64")
    before = open(f, "rb").read()
    r = run(["scan", "--op", "xor", f, f])
    check(r.returncode != 0 and open(f, "rb").read() == before, "5 failed in place: input intact")
    r = run(["scan", "--init", "1" * 40, x, x])
    check(r.returncode != 0 and read_npy(x) == ("i64", [1, 2, 4]),
          "5 failed in place (bad --init): input intact")
    check(not temps_in(d), f"5: temporary files left: {temps_in(d)}")


# ---- 6. modes, owners, hard links ----

def test_modes():
    d = path("modes")
    os.makedirs(d)
    out = write_npy(os.path.join(d, "secret.npy"), [0], "i64")
    os.chmod(out, 0o600)
    r = run(["scan", GOOD, out])
    check(r.returncode == 0 and read_npy(out) == ("i64", GOOD_SCAN), f"6 0600: {r.stderr!r}")
    check(stat.S_IMODE(os.stat(out).st_mode) == 0o600,
          f"6: a 0600 output stays 0600 (is {oct(stat.S_IMODE(os.stat(out).st_mode))})")
    os.chmod(out, 0o640)
    run(["scan", GOOD, out])
    check(stat.S_IMODE(os.stat(out).st_mode) == 0o640, "6: a 0640 output stays 0640")
    new = os.path.join(d, "new.npy")
    run(["scan", GOOD, new])
    check(stat.S_IMODE(os.stat(new).st_mode) == 0o644, "6: a new file: 0666 less the umask")
    if ROOT:
        os.chown(out, 4242, 4343)
        r = run(["scan", GOOD, out])
        st = os.stat(out)
        check(r.returncode == 0 and (st.st_uid, st.st_gid) == (4242, 4343),
              f"6: the owner is kept where permitted (root): {st.st_uid}:{st.st_gid}")
        check(stat.S_IMODE(st.st_mode) == 0o640, "6: and the mode with it")
    else:
        skip("6 owner", "giving a file to another owner needs root; not root here")
    # hard links: the output is replaced by a new file; the other name keeps the old contents
    linked = write_npy(os.path.join(d, "linked.npy"), [7], "i64")
    other = os.path.join(d, "other-name.npy")
    os.link(linked, other)
    os.chmod(linked, 0o600)
    r = run(["scan", GOOD, linked])
    check(r.returncode == 0 and read_npy(linked) == ("i64", GOOD_SCAN) and
          read_npy(other) == ("i64", [7]),
          "6 hard link: the output replaced, the other name keeps the old contents (docs/CLI.md)")
    check(stat.S_IMODE(os.stat(linked).st_mode) == 0o600, "6 hard link: the mode kept")
    check(not temps_in(d), f"6: temporary files left: {temps_in(d)}")


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


CASES = {"1": test_not_regular, "2": test_signals, "3": test_truncated_input,
         "4": test_no_predictable_names, "5": test_same_file, "6": test_modes,
         "7": test_messages, "8": test_numpy_user}
# PSCAN_SAFETY_CASES=3,5 runs only those cases
for case in os.environ.get("PSCAN_SAFETY_CASES", ",".join(CASES)).split(","):
    CASES[case]()
finish()
