#!/usr/bin/env python3
"""Test of `pscan bench --plot`, run as a user runs it (subprocess): usage
`test_plot.py PSCAN WORKDIR`.

The PNG files are read here by hand (struct, and zlib from the standard library, which is
independent of the tool's own CRC-32, Adler-32 and deflate code): the signature, the chunks and
their CRCs, IHDR (8-bit RGB, no interlace), the IDAT stream inflating to height x (1 + 3 x width)
bytes, and a picture that is not blank (several colors, a share of non-background pixels).
Also: no plot without --plot, an unwritable prefix refused before the run, --help.
Ends with "N passed, N failed" like the C tests."""
import collections
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish  # noqa: E402

PSCAN = os.path.abspath(sys.argv[1])
WORK = sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
QUICK = ["bench", "--quick", "--reps", "1", "--sizes", "2^12,2^14"]




def run(args, cwd=None):
    return subprocess.run([PSCAN] + args, capture_output=True, text=True, timeout=240, cwd=cwd)


def read_png(path):
    """(width, height, rows of RGB bytes); raises ValueError naming what is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("bad signature")
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError("truncated chunk")
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"bad CRC in {kind!r}")
        chunks.append((kind, body))
        pos += 12 + length
    kinds = [k for k, _ in chunks]
    if kinds[0] != b"IHDR" or kinds[-1] != b"IEND" or b"IDAT" not in kinds:
        raise ValueError(f"chunks {kinds}")
    w, h, depth, color, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (depth, color, comp, filt, interlace) != (8, 2, 0, 0, 0):
        raise ValueError("not 8-bit RGB without interlace")
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    if len(raw) != h * (1 + 3 * w):
        raise ValueError(f"IDAT inflates to {len(raw)} bytes, not {h * (1 + 3 * w)}")
    stride = 1 + 3 * w
    if any(raw[y * stride] != 0 for y in range(h)):
        raise ValueError("a filter other than 0 (the writer uses none)")
    return w, h, [raw[y * stride + 1:(y + 1) * stride] for y in range(h)]


def check_png(path, what):
    """A valid PNG that is a picture: >= 5 colors, > 1% of pixels not the background."""
    if not os.path.exists(path):
        check(False, f"{what}: {path} missing")
        return
    try:
        w, h, rows = read_png(path)
    except (ValueError, zlib.error, struct.error) as e:
        check(False, f"{what}: {path}: {e}")
        return
    check(w >= 400 and h >= 300, f"{what}: size {w}x{h}")
    counts = collections.Counter()
    for row in rows:
        counts.update(row[i:i + 3] for i in range(0, len(row), 3))
    background, n = counts.most_common(1)[0]
    check(len(counts) >= 5, f"{what}: only {len(counts)} colors")
    check(n < 0.99 * w * h, f"{what}: {n / (w * h):.1%} of the pixels are the background")
    check(background == b"\xff\xff\xff", f"{what}: background {background.hex()}, not white")


def leftovers(directory):
    return [f for f in os.listdir(directory) if f.endswith(".partial")]


def test_scan_plots():
    prefix = os.path.join(WORK, "x")
    r = run(QUICK + ["--threads", "1", "--plot", prefix])
    check(r.returncode == 0, f"bench --plot: exit {r.returncode}: {r.stderr}")
    for kind in ("throughput", "scaling", "speedup"):
        path = f"{prefix}-{kind}-i32.png"
        check(f"wrote {path}" in r.stdout, f"'wrote {path}' not printed")
        check_png(path, kind)
    check(leftovers(WORK) == [], f"temporary files left: {leftovers(WORK)}")


def test_two_types_two_thread_counts():
    prefix = os.path.join(WORK, "y")
    r = run(QUICK + ["--threads", "1,2", "--types", "i32,f64", "--plot", prefix])
    check(r.returncode == 0, f"bench --types i32,f64 --plot: exit {r.returncode}: {r.stderr}")
    for t in ("i32", "f64"):
        for kind in ("throughput", "scaling", "speedup"):
            check_png(f"{prefix}-{kind}-{t}.png", f"{kind} {t}")


def test_compact_plot():
    prefix = os.path.join(WORK, "c")
    r = run(["bench", "--compact", "--reps", "1", "--sizes", "2^12", "--threads", "1,2",
             "--plot", prefix])
    check(r.returncode == 0, f"bench --compact --plot: exit {r.returncode}: {r.stderr}")
    check(f"wrote {prefix}-compact.png" in r.stdout, "compact: file name not printed")
    check_png(f"{prefix}-compact.png", "compact")


def test_no_plot_without_option():
    quiet = os.path.join(WORK, "quiet")
    os.makedirs(quiet)
    r = run(QUICK + ["--threads", "1"], cwd=quiet)
    check(r.returncode == 0, f"bench --quick: exit {r.returncode}")
    check(os.listdir(quiet) == [], f"bench --quick without --plot wrote {os.listdir(quiet)}")


def test_refusals():
    r = run(QUICK + ["--plot", os.path.join(WORK, "no", "such", "dir", "x")])
    check(r.returncode == 1, f"unwritable prefix: exit {r.returncode}")
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and "--plot" in lines[0], f"unwritable prefix: stderr {r.stderr!r}")
    check("Gelem/s" not in r.stdout, "unwritable prefix: the benchmark ran anyway")
    r = run(["bench", "--plot", ""])
    check(r.returncode == 2, f"empty prefix: exit {r.returncode}")
    r = run(["bench", "--plot"])
    check(r.returncode == 2, f"--plot without a value: exit {r.returncode}")


def test_help():
    r = run(["bench", "--help"])
    check(r.returncode == 0 and "--plot PREFIX" in r.stdout and "throughput" in r.stdout,
          "bench --help does not document --plot")


for name, fn in list(globals().items()):
    if name.startswith("test_") and callable(fn):
        fn()
finish()
