#!/usr/bin/env python3
"""Test of `pscan bench --plot`, run as a user runs it (subprocess): usage
`test_plot.py PSCAN WORKDIR PNG_PROBE` (PNG_PROBE: the png_probe helper, or "none" in a build
without cairo).

PNG files: the signature, then decoded by cairo's own loader through png_probe (size, distinct
colors, the background and its share), so a file no real decoder reads fails. SVG files (PREFIX
ending in .svg): parsed with xml.etree; the root is a 1200x720 <svg>, <title> is the chart's
title, <desc> names every series expected, there are stroked paths in the series' colors and
glyphs drawn for the text. Also: no plot without --plot, an unwritable prefix refused before the
run, --help.

In a build without cairo: --plot is refused with one line and exit status 2 before any work, a
run without it still writes its CSV and says that plots need cairo; then the test exits 77
(ctest: skipped), because no plot was checked. Ends with "N passed, N failed" like the C tests."""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tool_check import check, finish  # noqa: E402

PSCAN = os.path.abspath(sys.argv[1])
WORK = sys.argv[2]
PROBE = sys.argv[3] if len(sys.argv) > 3 else "none"
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
QUICK = ["bench", "--quick", "--reps", "1", "--sizes", "2^12,2^14"]
SVG = "{http://www.w3.org/2000/svg}"


def run(args, cwd=None):
    return subprocess.run([PSCAN] + args, capture_output=True, text=True, timeout=240, cwd=cwd)


def check_png(path, what):
    """A PNG that cairo decodes to a 1200x720 picture: >= 5 colors, a white background, and
    more than 1% of the pixels not the background."""
    if not os.path.exists(path):
        check(False, f"{what}: {path} missing")
        return
    with open(path, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{what}: {path}: not a PNG signature")
    r = subprocess.run([PROBE, path], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        check(False, f"{what}: {path}: not decoded: {r.stderr.strip()}")
        return
    w, h, colors, share, background = r.stdout.split()
    check((int(w), int(h)) == (1200, 720), f"{what}: size {w}x{h}")
    check(int(colors) >= 5, f"{what}: only {colors} colors")
    check(background == "ffffff", f"{what}: background {background}, not white")
    check(float(share) < 0.99, f"{what}: {float(share):.1%} of the pixels are the background")


def check_svg(path, what, title_has, series, dashed=True):
    """An SVG whose <title> contains title_has and whose <desc> names every label of series;
    dashed: it draws a ceiling."""
    if not os.path.exists(path):
        check(False, f"{what}: {path} missing")
        return
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        check(False, f"{what}: {path}: {e}")
        return
    check(root.tag == SVG + "svg", f"{what}: root {root.tag}")
    check(root.get("viewBox") == "0 0 1200 720", f"{what}: viewBox {root.get('viewBox')}")
    title, desc = root.find(SVG + "title"), root.find(SVG + "desc")
    check(title is not None and title_has in (title.text or ""),
          f"{what}: title {title.text if title is not None else None!r}")
    labels = [] if desc is None else [
        line[len("series: "):] for line in (desc.text or "").splitlines()
        if line.startswith("series: ")]
    for label in series:
        check(label in labels, f"{what}: series {label!r} not in {labels}")
    strokes = [p.get("style", "") for p in root.iter(SVG + "path") if "stroke-width:2" in
               p.get("style", "") or "stroke-width:4" in p.get("style", "")]
    check(len(strokes) >= len(series), f"{what}: {len(strokes)} series strokes")
    # the first solid series is drawn in tab10 blue, the first ceiling in black, dashed
    check(any("rgb(12.156863%,46.666667%,70.588235%)" in s for s in strokes),
          f"{what}: no stroke in the first series' color")
    check(any("stroke-dasharray" in s for s in strokes) == dashed,
          f"{what}: a dashed ceiling drawn: {not dashed}")
    glyphs = list(root.iter(SVG + "use"))
    check(len(glyphs) >= len((title.text or "").replace(" ", "")) if title is not None else False,
          f"{what}: {len(glyphs)} glyphs drawn, fewer than the title's letters")


def leftovers(directory):
    return [f for f in os.listdir(directory) if f.startswith(".") or f.endswith(".partial")]


def test_scan_plots():
    prefix = os.path.join(WORK, "x")
    r = run(QUICK + ["--threads", "1", "--plot", prefix])
    check(r.returncode == 0, f"bench --plot: exit {r.returncode}: {r.stderr}")
    for kind in ("throughput", "scaling", "speedup"):
        path = f"{prefix}-{kind}-i32.png"
        check(f"wrote {path}" in r.stdout, f"'wrote {path}' not printed")
        check_png(path, kind)
    check(leftovers(WORK) == [], f"temporary files left: {leftovers(WORK)}")
    check("without cairo" not in r.stdout, "a build with cairo says it has none")


def test_svg_plots():
    prefix = os.path.join(WORK, "s")
    r = run(QUICK + ["--threads", "1", "--plot", prefix + ".svg"])
    check(r.returncode == 0, f"bench --plot PREFIX.svg: exit {r.returncode}: {r.stderr}")
    # the peers built in vary; the plain loop is always one
    expect = {"throughput": ["pscan auto", "pscan sequential", "memcpy (ceiling)", "plain loop"],
              "scaling": ["pscan auto", "memcpy (ceiling)", "streaming copy (ceiling)"],
              "speedup": ["over plain loop"]}
    for kind, series in expect.items():
        path = f"{prefix}-{kind}-i32.svg"
        check(f"wrote {path}" in r.stdout, f"'wrote {path}' not printed")
        check_svg(path, f"svg {kind}", "i32", series, dashed=kind != "speedup")
    check(not os.path.exists(f"{prefix}.svg-throughput-i32.svg"), "the .svg ending kept")


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
    r = run(["bench", "--compact", "--reps", "1", "--sizes", "2^12", "--threads", "1",
             "--plot", prefix + ".svg"])
    check(r.returncode == 0, f"bench --compact --plot PREFIX.svg: exit {r.returncode}")
    check_svg(f"{prefix}-compact.svg", "compact svg", "compaction",
              ["pscan select_if", "pscan partition_if", "memcpy"])


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
    check(r.returncode == 0 and "--plot PREFIX" in r.stdout and "throughput" in r.stdout
          and "cairo" in r.stdout and ".svg" in r.stdout, "bench --help does not document --plot")


def without_cairo():
    """The build has no cairo: --plot refused up front, the CSV still written, one line saying
    what plots need. Returns after the checks; the caller reports the test skipped."""
    out = os.path.join(WORK, "nocairo")
    os.makedirs(out)
    for args in (QUICK + ["--plot", os.path.join(out, "p")],
                 ["bench", "--compact", "--plot", os.path.join(out, "c")],
                 ["bench", "--sweep", "--plot", os.path.join(out, "s")]):
        r = run(args)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2, f"{args}: exit {r.returncode}, not 2")
        check(len(lines) == 1 and "cairo" in lines[0] and "libcairo2-dev" in lines[0],
              f"{args}: stderr {r.stderr!r}")
        check("Gelem/s" not in r.stdout, f"{args}: the benchmark ran anyway")
    check(os.listdir(out) == [], f"a refused --plot wrote {os.listdir(out)}")
    csv = os.path.join(out, "r.csv")
    r = run(QUICK + ["--threads", "1", "--csv", csv])
    check(r.returncode == 0, f"bench --csv without cairo: exit {r.returncode}: {r.stderr}")
    check(os.path.exists(csv) and open(csv).readline().startswith("impl,"),
          "bench --csv without cairo: no CSV")
    notes = [line for line in r.stdout.splitlines() if line.startswith("plots: ")]
    check(len(notes) == 1 and "without cairo" in notes[0] and "libcairo2-dev" in notes[0],
          f"the note on plots: {notes}")


if PROBE == "none":
    without_cairo()
    print("plots not tested: this build has no cairo (install libcairo2-dev)")
    finish(skipped=True)

for name, fn in list(globals().items()):
    if name.startswith("test_") and callable(fn):
        fn()
finish()
