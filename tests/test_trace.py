#!/usr/bin/env python3
"""Test of `pscan trace`, run as a user runs it (subprocess): usage `test_trace.py PSCAN WORKDIR`.

The expected step states below were worked out by hand from the definitions of each algorithm
(see `pscan trace --help`) on Kirk & Hwu's input 4 6 7 1 2 8 5 2 and the 8-element example
3 1 7 0 4 1 6 3; the depth and work numbers from the textbook formulas. Also: every refusal
(one line on stderr, exit status 2), stdin input, non-power-of-two lengths, every algorithm x
operator x inclusive/exclusive against the tool's own sequential check, and --svg (parsed with
xml.etree, written atomically). Ends with "N passed, N failed" like the C tests."""
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish  # noqa: E402

PSCAN = sys.argv[1]
WORK = sys.argv[2]
os.makedirs(WORK, exist_ok=True)

KH = "4 6 7 1 2 8 5 2"
EX = "3 1 7 0 4 1 6 3"




def run(args, stdin=None):
    return subprocess.run([PSCAN, "trace"] + args, input=stdin, capture_output=True, text=True,
                          timeout=60)


def states(out):
    """label -> list of value tokens, for every '  label | v v v' line."""
    rows = {}
    for line in out.splitlines():
        if "|" in line:
            label, _, vals = line.partition("|")
            rows[label.strip()] = vals.split()
    return rows


def trace(algo, values, *extra):
    r = run(["--algo", algo] + list(extra) + values.split())
    check(r.returncode == 0, f"{algo} {extra} {values}: exit {r.returncode}: {r.stderr.strip()}")
    check("result matches the sequential scan" in r.stdout, f"{algo} {extra} {values}: no match line")
    return r.stdout


def expect(algo, values, extra, steps, result, depth=None, work=None):
    out = trace(algo, values, *extra)
    got = states(out)
    name = f"{algo} {' '.join(extra)} on {values}"
    for label, want in steps:
        check(got.get(label) == want.split(), f"{name}: '{label}' is {got.get(label)}, want {want}")
    check(got.get("result") == result.split(), f"{name}: result {got.get('result')}")
    m = re.search(r"depth \(steps\): (\d+), work \(operations\): (\d+)", out)
    check(m is not None, f"{name}: no depth/work line")
    if m and depth is not None:
        check(int(m.group(1)) == depth, f"{name}: depth {m.group(1)}, want {depth}")
    if m and work is not None:
        check(int(m.group(2)) == work, f"{name}: work {m.group(2)}, want {work}")
    return out


KH_INC = "4 10 17 18 20 28 33 35"
KH_EXC = "0 4 10 17 18 20 28 33"
EX_INC = "3 4 11 11 15 16 22 25"
EX_EXC = "0 3 4 11 11 15 16 22"

# ---- Kogge-Stone / Hillis-Steele: depth log n, work sum (n - d) = 7 + 6 + 4 ----
for algo in ("kogge-stone", "hillis-steele"):
    expect(algo, KH, [], [("step 1: d=1", "4 10 13 8 3 10 13 7"),
                          ("step 2: d=2", "4 10 17 18 16 18 16 17"),
                          ("step 3: d=4", KH_INC)], KH_INC, 3, 17)
    expect(algo, KH, ["--exclusive"], [("shifted", "0 4 6 7 1 2 8 5"),
                                       ("step 1: d=1", "0 4 10 13 8 3 10 13"),
                                       ("step 2: d=2", "0 4 10 17 18 16 18 16"),
                                       ("step 3: d=4", KH_EXC)], KH_EXC, 3, 17)
    expect(algo, EX, [], [("step 1: d=1", "3 4 8 7 4 5 7 9"),
                          ("step 2: d=2", "3 4 11 11 12 12 11 14"),
                          ("step 3: d=4", EX_INC)], EX_INC, 3, 17)
    expect(algo, EX, ["--exclusive"], [("shifted", "0 3 1 7 0 4 1 6")], EX_EXC, 3, 17)
ks = trace("kogge-stone", KH)
hs = trace("hillis-steele", KH)
check(states(ks) == states(hs), "hillis-steele and kogge-stone print different steps")

# ---- Brent-Kung: depth 2 log n - 1 = 5, work 2n - 2 - log n = 11 ----
expect("brent-kung", EX, [], [("step 1: up-sweep d=1", "3 4 7 7 4 5 6 9"),
                              ("step 2: up-sweep d=2", "3 4 7 11 4 5 6 14"),
                              ("step 3: up-sweep d=4", "3 4 7 11 4 5 6 25"),
                              ("step 4: down-sweep d=2", "3 4 7 11 4 16 6 25"),
                              ("step 5: down-sweep d=1", EX_INC)], EX_INC, 5, 11)
expect("brent-kung", KH, [], [("step 1: up-sweep d=1", "4 10 7 8 2 10 5 7"),
                              ("step 2: up-sweep d=2", "4 10 7 18 2 10 5 17"),
                              ("step 3: up-sweep d=4", "4 10 7 18 2 10 5 35"),
                              ("step 4: down-sweep d=2", "4 10 7 18 2 28 5 35"),
                              ("step 5: down-sweep d=1", KH_INC)], KH_INC, 5, 11)
expect("brent-kung", EX, ["--exclusive"], [("shifted", "0 3 1 7 0 4 1 6"),
                                           ("step 1: up-sweep d=1", "0 3 1 8 0 4 1 7"),
                                           ("step 2: up-sweep d=2", "0 3 1 11 0 4 1 11"),
                                           ("step 3: up-sweep d=4", "0 3 1 11 0 4 1 22"),
                                           ("step 4: down-sweep d=2", "0 3 1 11 0 15 1 22"),
                                           ("step 5: down-sweep d=1", EX_EXC)], EX_EXC, 5, 11)
expect("brent-kung", KH, ["--exclusive"], [], KH_EXC, 5, 11)

# ---- Blelloch: exclusive, depth 2 log n = 6, work 2(n-1) = 14; inclusive adds one step of n ----
expect("blelloch", EX, ["--exclusive"], [("step 3: up-sweep d=4", "3 4 7 11 4 5 6 25"),
                                         ("clear last (identity)", "3 4 7 11 4 5 6 0"),
                                         ("step 4: down-sweep d=4", "3 4 7 0 4 5 6 11"),
                                         ("step 5: down-sweep d=2", "3 0 7 4 4 11 6 16"),
                                         ("step 6: down-sweep d=1", EX_EXC)], EX_EXC, 6, 14)
expect("blelloch", KH, ["--exclusive"], [("step 3: up-sweep d=4", "4 10 7 18 2 10 5 35"),
                                         ("clear last (identity)", "4 10 7 18 2 10 5 0"),
                                         ("step 4: down-sweep d=4", "4 10 7 0 2 10 5 18"),
                                         ("step 5: down-sweep d=2", "4 0 7 10 2 18 5 28"),
                                         ("step 6: down-sweep d=1", KH_EXC)], KH_EXC, 6, 14)
out = expect("blelloch", EX, [], [("step 6: down-sweep d=1", EX_EXC),
                                  ("step 7: combine with input", EX_INC)], EX_INC, 7, 22)
check("produces the exclusive scan" in out, "blelloch inclusive: does not say it goes through the exclusive scan")
expect("blelloch", KH, [], [("step 7: combine with input", KH_INC)], KH_INC, 7, 22)

# ---- Sklansky: depth log n, work (n/2) log n = 12 ----
expect("sklansky", EX, [], [("step 1: blocks of 2", "3 4 7 7 4 5 6 9"),
                            ("step 2: blocks of 4", "3 4 11 11 4 5 11 14"),
                            ("step 3: blocks of 8", EX_INC)], EX_INC, 3, 12)
expect("sklansky", KH, [], [("step 1: blocks of 2", "4 10 7 8 2 10 5 7"),
                            ("step 2: blocks of 4", "4 10 17 18 2 10 15 17"),
                            ("step 3: blocks of 8", KH_INC)], KH_INC, 3, 12)
expect("sklansky", KH, ["--exclusive"], [("shifted", "0 4 6 7 1 2 8 5"),
                                         ("step 1: blocks of 2", "0 4 6 13 1 3 8 13"),
                                         ("step 2: blocks of 4", "0 4 10 17 1 3 11 16"),
                                         ("step 3: blocks of 8", KH_EXC)], KH_EXC, 3, 12)
expect("sklansky", EX, ["--exclusive"], [], EX_EXC, 3, 12)

# ---- hybrid (width 4 on 8): up-sweep 1 level, Kogge-Stone over 4 partials, down-sweep 1 level ----
expect("hybrid", EX, [], [("step 1: up-sweep d=1", "3 4 7 7 4 5 6 9"),
                          ("step 2: Kogge-Stone d=1", "3 4 7 11 4 12 6 14"),
                          ("step 3: Kogge-Stone d=2", "3 4 7 11 4 16 6 25"),
                          ("step 4: down-sweep d=1", EX_INC)], EX_INC, 4, 12)
expect("hybrid", KH, ["--exclusive"], [], KH_EXC, 4, 12)

# ---- hierarchical (blocks of 4): phase 1 KS in blocks (10 ops), S scan (1), add back (3) ----
expect("hierarchical", KH, [], [("step 1: phase 1 d=1", "4 10 13 8 2 10 13 7"),
                                ("step 2: phase 1 d=2", "4 10 17 18 2 10 15 17"),
                                ("block sums S", "18 17"),
                                ("step 3: phase 2 S d=1", "18 35"),
                                ("array after S d=1", "4 10 17 18 2 10 15 35"),
                                ("step 4: phase 3 add S[b-1]", KH_INC)], KH_INC, 4, 14)
expect("hierarchical", EX, [], [("step 1: phase 1 d=1", "3 4 8 7 4 5 7 9"),
                                ("step 2: phase 1 d=2", "3 4 11 11 4 5 11 14"),
                                ("block sums S", "11 14"),
                                ("step 3: phase 2 S d=1", "11 25"),
                                ("step 4: phase 3 add S[b-1]", EX_INC)], EX_INC, 4, 14)
expect("hierarchical", EX, ["--exclusive"], [("shifted", "0 3 1 7 0 4 1 6"),
                                             ("step 1: phase 1 d=1", "0 3 4 8 0 4 5 7"),
                                             ("step 2: phase 1 d=2", "0 3 4 11 0 4 5 11"),
                                             ("block sums S", "11 11"),
                                             ("step 3: phase 2 S d=1", "11 22"),
                                             ("step 4: phase 3 add S[b-1]", EX_EXC)], EX_EXC, 4, 14)
expect("hierarchical", KH, ["--exclusive"], [], KH_EXC, 4, 14)
expect("hierarchical", KH, ["--partition", "2"], [("block sums S", "10 8 10 7")], KH_INC)


# ---- decoupled look-back (partitions of 2): outputs per step and the descriptor tables ----
def tables(out):
    """step -> {partition: (flag, aggregate, prefix, read)}"""
    res, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^  step (\d+):$", line)
        if m:
            cur = res.setdefault(int(m.group(1)), {})
            continue
        m = re.match(r"^    (\d+)\s+([XAP])\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if m and cur is not None:
            cur[int(m.group(1))] = (m.group(2), m.group(3), m.group(4), m.group(5).strip())
    return res


out = expect("decoupled-lookback", KH, [], [("step 0 output", "4 10 . . . . . ."),
                                            ("step 1 output", "4 10 . . . . . ."),
                                            ("step 2 output", "4 10 . . . . . ."),
                                            ("step 3 output", "4 10 17 18 . . . ."),
                                            ("step 4 output", "4 10 17 18 20 28 . ."),
                                            ("step 5 output", KH_INC)], KH_INC, 6, 16)
tb = tables(out)
check(sorted(tb) == [0, 1, 2, 3, 4, 5], f"decoupled: steps {sorted(tb)}")
want = {
    0: {0: ("P", "10", "10", "-"), 1: ("X", "-", "-", "-"), 3: ("X", "-", "-", "-")},
    1: {1: ("A", "8", "-", "-"), 2: ("X", "-", "-", "-")},
    2: {1: ("A", "8", "-", "P0=10 -> prefix 10"), 2: ("A", "10", "-", "-")},
    3: {1: ("P", "8", "18", "P0=10 -> prefix 10"), 2: ("A", "10", "-", "A1=8, P0=10 -> prefix 18"),
        3: ("A", "7", "-", "-")},
    4: {2: ("P", "10", "28", "A1=8, P0=10 -> prefix 18"),
        3: ("A", "7", "-", "A2=10, P1=18 -> prefix 28")},
    5: {0: ("P", "10", "10", "-"), 3: ("P", "7", "35", "A2=10, P1=18 -> prefix 28")},
}
for s, parts in want.items():
    for p, w in parts.items():
        check(tb.get(s, {}).get(p) == w, f"decoupled step {s} partition {p}: {tb.get(s, {}).get(p)}, want {w}")
out = expect("decoupled-lookback", EX, ["--exclusive"], [("shifted", "0 3 1 7 0 4 1 6"),
                                                         ("step 3 output", "0 3 4 11 . . . ."),
                                                         ("step 5 output", EX_EXC)], EX_EXC, 6, 16)
tb = tables(out)
check(tb.get(4, {}).get(3) == ("A", "7", "-", "A2=4, P1=11 -> prefix 15"), f"decoupled excl: {tb.get(4)}")
expect("decoupled-lookback", EX, [], [], EX_INC)
expect("decoupled-lookback", KH, ["--exclusive", "--partition", "3"], [], KH_EXC)

# ---- 16 elements: the formulas ----
V16 = [i % 7 for i in range(16)]
inc16 = [sum(V16[:i + 1]) for i in range(16)]
exc16 = [sum(V16[:i]) for i in range(16)]
for algo, extra, depth, work in [("kogge-stone", [], 4, 15 + 14 + 12 + 8), ("brent-kung", [], 7, 26),
                                 ("blelloch", ["--exclusive"], 8, 30), ("sklansky", [], 4, 32)]:
    want = exc16 if extra else inc16
    expect(algo, " ".join(map(str, V16)), extra, [], " ".join(map(str, want)), depth, work)

# ---- 16 elements: every step state against independent models of the textbook networks ----
# (the lecture slides' 16-element figures: Hillis & Steele's d = 1, 2, 4, 8 rounds, and Blelloch's
# up-sweep, clear, down-sweep), on random inputs from a printed seed.
def hillis_steele_states(v):
    x, rows, d = list(v), [], 1
    while d < len(x):
        x = [x[i] + (x[i - d] if i >= d else 0) for i in range(len(x))]
        rows.append((f"step {len(rows) + 1}: d={d}", " ".join(map(str, x))))
        d *= 2
    return rows


def blelloch_states(v):
    x, n, rows, d = list(v), len(v), [], 1
    while d < n:
        for i in range(2 * d - 1, n, 2 * d):
            x[i] += x[i - d]
        rows.append((f"step {len(rows) + 1}: up-sweep d={d}", " ".join(map(str, x))))
        d *= 2
    x[n - 1] = 0
    rows.append(("clear last (identity)", " ".join(map(str, x))))
    d = n // 2
    while d >= 1:
        for i in range(2 * d - 1, n, 2 * d):
            x[i - d], x[i] = x[i], x[i] + x[i - d]
        rows.append((f"step {len(rows)}: down-sweep d={d}", " ".join(map(str, x))))
        d //= 2
    return rows


import random

SEED16 = int(os.environ.get("PSCAN_TEST_SEED", random.randrange(1 << 30)))
print(f"16-element step states: seed {SEED16} (PSCAN_TEST_SEED={SEED16} reproduces them)")
rng16 = random.Random(SEED16)
for _ in range(5):
    v = [rng16.randrange(-9, 10) for _ in range(16)]
    vals = " ".join(map(str, v))
    inc = " ".join(str(sum(v[:i + 1])) for i in range(16))
    exc = " ".join(str(sum(v[:i])) for i in range(16))
    expect("hillis-steele", vals, [], hillis_steele_states(v), inc, 4)
    expect("blelloch", vals, ["--exclusive"], blelloch_states(v), exc, 8)

# ---- non-powers of two, operators, inclusive and exclusive: the tool's own check ----
ALGOS = ["hillis-steele", "kogge-stone", "brent-kung", "blelloch", "sklansky", "hybrid",
         "hierarchical", "decoupled-lookback"]
for algo in ALGOS:
    for op in ("sum", "max", "min", "prod"):
        for n in (1, 2, 3, 5, 6, 7, 9, 13, 31, 64):
            vals = [str((i * 37) % 11 - 4) for i in range(n)]
            for excl in ([], ["--exclusive"]):
                r = run(["--algo", algo, "--op", op] + excl + vals)
                ok = r.returncode == 0 and "result matches the sequential scan" in r.stdout
                check(ok, f"{algo} --op {op} {excl} n={n}: exit {r.returncode}")
out = trace("brent-kung", "3 1 7 0 4")
check("padded to 8 with the identity 0" in out, "brent-kung on 5 values: no padding note")
check(states(out).get("padded") == "3 1 7 0 4 0 0 0".split(), "brent-kung on 5: padded row")
check(states(out).get("result") == "3 4 11 11 15".split(), "brent-kung on 5: result")

# ---- stdin ----
r = run(["--algo", "blelloch", "--exclusive", "-"], stdin=EX + "\n")
check(r.returncode == 0 and states(r.stdout).get("result") == EX_EXC.split(), "stdin: '-' not read")

# ---- help ----
r = run(["--help"])
check(r.returncode == 0, "--help exit status")
for algo in ALGOS:
    check(f"pscan trace --algo {algo}" in r.stdout, f"--help has no example for {algo}")
r = subprocess.run([PSCAN, "--help"], capture_output=True, text=True, timeout=60)
check(re.search(r"^\s+trace\s", r.stdout, re.M) is not None, "pscan --help does not list trace")

# ---- refusals: one line on stderr, exit status 2, nothing on stdout ----
for args, what in [(["--algo", "bogus", "1", "2"], "unknown algorithm"),
                   (["--algo", "sklansky", "1", "x"], "not an integer"),
                   (["--algo", "sklansky", "1.5"], "not an integer"),
                   (["--algo", "sklansky", "99999999999999999999"], "out of range"),
                   (["--algo", "sklansky"], "no values"),
                   (["--algo", "sklansky"] + [str(i) for i in range(65)], "more than 64"),
                   (["1", "2"], "--algo is required"),
                   (["--algo"], "needs a value"),
                   (["--algo", "sklansky", "--op", "xor", "1"], "unknown operator"),
                   (["--algo", "hierarchical", "--partition", "0", "1"], "--partition"),
                   (["--algo", "hybrid", "--width", "3", "1"], "power of two"),
                   (["--algo", "sklansky", "--frobnicate", "1"], "unknown option")]:
    r = run(args)
    check(r.returncode == 2, f"{args}: exit {r.returncode}, want 2")
    check(len(r.stderr.splitlines()) == 1 and what in r.stderr, f"{args}: stderr {r.stderr!r}")
    check(r.stdout == "", f"{args}: stdout {r.stdout!r}")
r = run(["--algo", "sklansky", "-"], stdin="1 2 zz\n")
check(r.returncode == 2 and len(r.stderr.splitlines()) == 1, "stdin: bad value not refused")
r = run(["--algo", "sklansky", "-"], stdin=" ".join(["1"] * 65))
check(r.returncode == 2 and "more than 64" in r.stderr, "stdin: 65 values not refused")

# ---- --svg ----
for algo in ALGOS:
    path = os.path.join(WORK, f"{algo}.svg")
    if os.path.exists(path):
        os.remove(path)
    r = run(["--algo", algo, "--svg", path] + EX.split())
    check(r.returncode == 0, f"--svg {algo}: exit {r.returncode} {r.stderr}")
    check(not os.path.exists(path + ".tmp"), f"--svg {algo}: temporary file left")
    try:
        root = ET.parse(path).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        check(root.tag == ns + "svg", f"--svg {algo}: root {root.tag}")
        circles = root.findall(ns + "circle")
        lines = root.findall(ns + "line")
        texts = [t.text for t in root.findall(ns + "text")]
        nrows = sum(1 for label in states(r.stdout) if label != "result"
                    and not label.startswith(("block sums", "step 3: phase 2")))
        check(len(circles) == 8 * nrows, f"--svg {algo}: {len(circles)} nodes for {nrows} rows")
        check(len(lines) > 8, f"--svg {algo}: only {len(lines)} lines")
        want_result = EX_INC.split()
        check(texts[-8:] == want_result, f"--svg {algo}: last row labelled {texts[-8:]}")
    except (ET.ParseError, OSError) as e:
        check(False, f"--svg {algo}: {e}")
bad = os.path.join(WORK, "no-such-dir", "x.svg")
r = run(["--algo", "sklansky", "--svg", bad, "1", "2"])
check(r.returncode == 1 and not os.path.exists(bad), f"--svg into a missing directory: exit {r.returncode}")

finish()
