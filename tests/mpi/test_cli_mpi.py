#!/usr/bin/env python3
"""pscan-mpi scan on sharded .npy sets, as a user runs it: mpirun -np P pscan-mpi scan IN OUT.

Usage: test_cli_mpi.py MPIRUN PSCAN_MPI WORKDIR [MPI FLAGS...]. Writes part-XXXX.npy sets (parts of
random sizes, empty ones included, fewer and more parts than ranks), runs the tool with 1, 2 and
3 ranks, and compares every output part with the scan computed here in Python. Also: a set of
mixed types fails on every rank with a message and writes nothing; a missing set fails.
Prints its seed (PSCAN_TEST_SEED reproduces a run)."""
import os
import random
import shutil
import struct
import subprocess
import sys
import time

MPIRUN, TOOL, WORK = sys.argv[1:4]
FLAGS = sys.argv[4:]
CODES = {"i32": ("<i4", "i", 32, True), "i64": ("<i8", "q", 64, True),
         "u8": ("|u1", "B", 8, False), "f64": ("<f8", "d", 0, True)}
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def write_npy(path, t, values):
    descr, fmt = CODES[t][0], CODES[t][1]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode("latin1")
    descr = header.split("'descr':")[1].split("'")[1]
    t = [k for k, v in CODES.items() if v[0] == descr][0]
    fmt = CODES[t][1]
    n = (len(data) - 10 - hlen) // struct.calcsize(fmt)
    return t, list(struct.unpack("<%d%s" % (n, fmt), data[10 + hlen:]))


def wrap(v, bits, signed):
    if bits == 0:
        return v
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def reference(values, op, exclusive, out_t):
    bits, signed = CODES[out_t][2], CODES[out_t][3]
    f = {"sum": lambda a, b: a + b, "max": max, "min": min, "xor": lambda a, b: a ^ b}[op]
    out, acc = [], None
    for v in values:
        if exclusive:
            ident = {"sum": 0, "xor": 0, "max": -(1 << 63) if bits == 64 else -(1 << 31) if bits == 32 else 0,
                     "min": (1 << bits) - 1 if not signed else (1 << (bits - 1)) - 1}[op]
            out.append(wrap(ident if acc is None else acc, bits, signed))
        acc = v if acc is None else wrap(f(acc, v), bits, signed)
        if not exclusive:
            out.append(acc)
    return out


def run(np, args):
    cmd = [MPIRUN, "-np", str(np)] + FLAGS + [TOOL] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def case(rng, np, nparts, in_t, out_t, op, exclusive):
    src, dst = os.path.join(WORK, "in"), os.path.join(WORK, "out")
    for d in (src, dst):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    lo, hi = (0, 9) if in_t == "u8" else (-50, 50)
    parts = [[rng.randint(lo, hi) for _ in range(rng.choice([0, 1, 3, 40, 200]))]
             for _ in range(nparts)]
    for k, p in enumerate(parts):
        write_npy(os.path.join(src, "part-%04d.npy" % k), in_t, p)
    args = ["scan", "--op", op, src, dst]
    if exclusive:
        args.insert(1, "--exclusive")
    if out_t != in_t:
        args[1:1] = ["--dtype", out_t]
    r = run(np, args)
    what = "np %d, %d parts, %s->%s %s excl %d" % (np, nparts, in_t, out_t, op, exclusive)
    check(r.returncode == 0, what + ": exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    if r.returncode != 0:
        return
    whole = reference([v for p in parts for v in p], op, exclusive, out_t)
    at = 0
    for k, p in enumerate(parts):
        t, got = read_npy(os.path.join(dst, "part-%04d.npy" % k))
        check(t == out_t and got == whole[at:at + len(p)], what + ": part %d" % k)
        at += len(p)
    check(not os.path.exists(os.path.join(dst, "part-%04d.npy" % nparts)), what + ": extra part")


def main():
    seed = int(os.environ.get("PSCAN_TEST_SEED", time.time_ns() % (1 << 32)))
    print("test_cli_mpi: seed %d (rerun with PSCAN_TEST_SEED=%d)" % (seed, seed))
    rng = random.Random(seed)
    os.makedirs(WORK, exist_ok=True)
    for np in (1, 2, 3):
        for nparts in (1, 3, 7):
            case(rng, np, nparts, "i64", "i64", "sum", False)
            case(rng, np, nparts, "i32", "i64", "sum", True)
            case(rng, np, nparts, rng.choice(["i32", "i64"]), "i64" , "max", rng.random() < 0.5)
            case(rng, np, nparts, "u8", "u8", "xor", False)
            case(rng, np, nparts, "f64", "f64", "sum", False)
    # a mixed set: every rank fails, nothing written
    src, dst = os.path.join(WORK, "mixed"), os.path.join(WORK, "mixed-out")
    for d in (src, dst):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    write_npy(os.path.join(src, "part-0000.npy"), "i32", [1, 2])
    write_npy(os.path.join(src, "part-0001.npy"), "i64", [3])
    write_npy(os.path.join(src, "part-0002.npy"), "i32", [4])
    r = run(3, ["scan", src, dst])
    check(r.returncode == 1 and "disagree" in r.stderr and os.listdir(dst) == [],
          "mixed types: exit %d, %r, %r" % (r.returncode, r.stderr, os.listdir(dst)))
    r = run(2, ["scan", os.path.join(WORK, "nothing-here"), dst])
    check(r.returncode == 1 and "part-0000" in r.stderr, "missing set: %d %r" % (r.returncode, r.stderr))
    r = run(1, ["scan", "--op", "nope", src, dst])
    check(r.returncode == 2, "bad --op: exit %d" % r.returncode)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
