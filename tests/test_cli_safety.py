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
Python's standard library only. Ends with "N passed, N failed" like the C tests. Cases 1 to 6 are
here, 7 and 8 in cli_safety_user.py; their common setting (the command line, the seed, .npy
files by hand, runs of the tool) in cli_safety_env.py."""
import os
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
from cli_safety_env import (GOOD, GOOD_SCAN, PSCAN, ROOT, WORK, npy_bytes,  # noqa: E402
                            npy_header, path, read_npy, rng, run, skip, temps_in, write_npy)
from cli_safety_user import test_messages, test_numpy_user  # noqa: E402

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


CASES = {"1": test_not_regular, "2": test_signals, "3": test_truncated_input,
         "4": test_no_predictable_names, "5": test_same_file, "6": test_modes,
         "7": test_messages, "8": test_numpy_user}
# PSCAN_SAFETY_CASES=3,5 runs only those cases
for case in os.environ.get("PSCAN_SAFETY_CASES", ",".join(CASES)).split(","):
    CASES[case]()
finish()
