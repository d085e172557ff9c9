"""The setting of tests/test_cli_safety.py and its cases (cli_safety_user.py): the tool and the
work directory from the command line (`test_cli_safety.py PSCAN WORKDIR`; WORKDIR emptied
first), the seed, and the helpers every case uses: .npy files written and read by hand, runs of
the tool, leftover temporary files."""
import os
import random
import shutil
import struct
import subprocess
import sys

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
