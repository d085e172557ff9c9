#!/usr/bin/env python3
"""Draws the GPU benchmark's CSV (pscan_gpu_bench --csv) the way the decoupled look-back paper
does: throughput against size, one line per implementation, the device copy as the ceiling
(Figures 7-9), and a table of speedups at the largest size (Figures 10-11).

    python3 bench/plot_gpu.py gpu_bench.csv OUTDIR      (needs matplotlib)
"""
import csv
import os
import sys
from collections import defaultdict

LINES = [  # (impl, algo, label, style)
    ("memcpy", "d2d", "cudaMemcpy D2D (ceiling)", "k--"),
    ("pscan", "auto", "pscan decoupled look-back", "C0-"),
    ("pscan", "reduce-then-scan", "pscan reduce-then-scan", "C2-"),
    ("pscan", "scan-then-propagate", "pscan scan-then-propagate", "C3-"),
    ("pscan", "chained", "pscan chained", "C4:"),
    ("cub", "DeviceScan", "CUB DeviceScan", "C1-"),
    ("thrust", "inclusive_scan", "Thrust inclusive_scan", "C5-"),
]


def load(path):
    data = defaultdict(dict)  # (impl, algo, type) -> {n: gbs}
    device = ""
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["block"] not in ("auto", "-"):
                continue
            data[(row["impl"], row["algo"], row["type"])][int(row["n"])] = float(row["gbs"])
            device = row["device"]
    return data, device


def plot(data, device, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    types = sorted({k[2] for k in data}, key=lambda t: ["i32", "f32", "i64", "f64"].index(t)
                   if t in ("i32", "f32", "i64", "f64") else 9)
    fig, axes = plt.subplots(1, len(types), figsize=(5 * len(types), 4.2), squeeze=False)
    for ax, t in zip(axes[0], types):
        for impl, algo, label, style in LINES:
            pts = sorted(data.get((impl, algo, t), {}).items())
            if pts:
                ax.plot([n for n, _ in pts], [g for _, g in pts], style, label=label, marker=".")
        ax.set_xscale("log", base=2)
        ax.set_title(f"inclusive sum, {t}")
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (read + written)")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"pscan vs CUB vs Thrust, {device}")
    fig.tight_layout()
    path = os.path.join(outdir, "gpu_throughput.png")
    fig.savefig(path, dpi=110)
    print("wrote", path)


def speedups(data):
    rows = []
    for t in ("i32", "f32", "i64", "f64"):
        dl = data.get(("pscan", "auto", t), {})
        if not dl:
            continue
        n = max(dl)
        copy = data.get(("memcpy", "d2d", t), {}).get(n)
        def ratio(impl, algo):
            other = data.get((impl, algo, t), {}).get(n)
            return f"{dl[n] / other:.2f}x" if other else "—"
        rows.append(f"| {t} | 2^{n.bit_length() - 1} | {dl[n] / copy:.1%} | {ratio('cub', 'DeviceScan')} | "
                    f"{ratio('thrust', 'inclusive_scan')} | {ratio('pscan', 'chained')} | "
                    f"{ratio('pscan', 'reduce-then-scan')} | {ratio('pscan', 'scan-then-propagate')} |")
    head = ("| type | n | pscan / copy | vs CUB | vs Thrust | vs own CHAINED | vs own REDUCE_THEN_SCAN "
            "| vs own SCAN_THEN_PROPAGATE |\n|---|---|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    data, device = load(sys.argv[1])
    os.makedirs(sys.argv[2], exist_ok=True)
    print(speedups(data))
    plot(data, device, sys.argv[2])
