"""python -m pscan.bench: pscan against the scans people call from Python, in one run.

CPU: pscan.cumsum vs numpy.cumsum and a copy of the same bytes (numpy.copyto), on NumPy arrays.
GPU (when PyTorch, CuPy or JAX sees a CUDA device): pscan.cumsum on torch tensors and CuPy arrays
vs torch.cumsum, cupy.cumsum, jax.numpy.cumsum (jitted) and a device copy (Tensor.copy_).
Sizes 2^min..2^max in one dimension, then the batched shapes (2-D, each axis). Each figure is
the median of --reps repetitions; a repetition times K calls back to back (K larger for small
sizes) and waits for the device once, so small sizes measure the per-call wall time. Writes
pscan_bench.csv and, with matplotlib, pscan_bench.png into --out (default $OUT or .).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np

import pscan

BATCHED = [((16384, 16384), 0), ((16384, 16384), 1), ((1048576, 64), 0), ((1048576, 64), 1),
           ((64, 4194304), 1), ((64, 4194304), 0), ((1000000, 256), 0), ((122996, 1024), 1)]


def _timeit(fn, sync, n, reps):
    k = max(1, min(100, (1 << 22) // max(n, 1)))
    fn()
    sync()  # warm-up: contexts, allocations, compilation
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / k)
    return statistics.median(times)


def _free_host_bytes():
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 8 << 30


def _cpu_impls(x, out, axis):
    return {
        "copy": lambda: np.copyto(out, x),
        "numpy.cumsum": lambda: np.cumsum(x, axis=axis, out=out),
        "pscan": lambda: pscan.cumsum(x, axis=axis, out=out),
    }


def _gpu_setups(dt):
    """(family, make(shape) -> (x, out), impls(x, out, axis) -> dict, sync) per GPU library."""
    setups = []
    try:
        import torch
        if torch.cuda.is_available():
            tdt = getattr(torch, np.dtype(dt).name)

            def make_t(shape):
                x = (torch.arange(int(np.prod(shape)), device="cuda") % 7).to(tdt).reshape(shape)
                return x, torch.empty_like(x)

            def impl_t(x, out, axis):
                return {"copy": lambda: out.copy_(x),
                        "torch.cumsum": lambda: torch.cumsum(x, dim=axis, out=out),
                        "pscan(torch)": lambda: pscan.cumsum(x, axis=axis, out=out)}
            setups.append(("torch", make_t, impl_t, torch.cuda.synchronize,
                           lambda: torch.cuda.mem_get_info()[0]))
    except ImportError:
        pass
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            def make_c(shape):
                x = (cupy.arange(int(np.prod(shape))) % 7).astype(dt).reshape(shape)
                return x, cupy.empty_like(x)

            def impl_c(x, out, axis):
                return {"cupy.cumsum": lambda: cupy.cumsum(x, axis=axis, out=out),
                        "pscan(cupy)": lambda: pscan.cumsum(x, axis=axis, out=out)}
            setups.append(("cupy", make_c, impl_c, cupy.cuda.runtime.deviceSynchronize,
                           lambda: cupy.cuda.runtime.memGetInfo()[0]))
    except Exception:  # noqa: BLE001 - no driver, no device
        pass
    try:
        import jax
        import jax.numpy as jnp
        if any(d.platform == "gpu" for d in jax.devices()):
            def make_j(shape):
                x = (jnp.arange(int(np.prod(shape))) % 7).astype(dt).reshape(shape)
                return x, None

            def impl_j(x, out, axis):
                f = jax.jit(lambda a: jnp.cumsum(a, axis=axis))
                box = [x]
                return {"jax.cumsum": lambda: box.__setitem__(0, f(x).block_until_ready())}
            setups.append(("jax", make_j, impl_j, lambda: None, lambda: 1 << 62))
    except Exception:  # noqa: BLE001
        pass
    return setups


def _cases(args):
    cases = [((1 << k,), 0) for k in range(args.min_log2, args.max_log2 + 1)]
    if not args.no_batched:
        cases += [(s, a) for s, a in BATCHED]
    return cases


def run(args):
    rows = []
    dtypes = [np.dtype(d) for d in args.dtypes.split(",")]

    def record(kind, shape, axis, dt, impl, sec):
        n = int(np.prod(shape))
        gbs = 2 * n * dt.itemsize / sec / 1e9
        rows.append({"device": kind, "shape": "x".join(map(str, shape)), "axis": axis,
                     "dtype": dt.name, "n": n, "impl": impl, "median_s": f"{sec:.6e}",
                     "GBps": f"{gbs:.2f}"})
        print(f"{kind:4} {dt.name:8} {'x'.join(map(str, shape)):>14} axis {axis}  {impl:14} "
              f"{sec * 1e6:12.1f} us {gbs:8.1f} GB/s", flush=True)

    for dt in dtypes:
        for shape, axis in _cases(args):
            n = int(np.prod(shape))
            if n > args.max_elems:
                continue
            if args.device in ("all", "cpu") and 3 * n * dt.itemsize < 0.7 * _free_host_bytes():
                x = (np.arange(n) % 7).astype(dt).reshape(shape)
                out = np.empty_like(x)
                for impl, fn in _cpu_impls(x, out, axis).items():
                    record("cpu", shape, axis, dt, impl, _timeit(fn, lambda: None, n, args.reps))
                del x, out
            if args.device in ("all", "gpu"):
                for fam, make, impls, sync, free in _gpu_setups(dt):
                    if 3 * n * dt.itemsize > 0.8 * free():
                        continue
                    x, out = make(shape)
                    for impl, fn in impls(x, out, axis).items():
                        try:
                            record("gpu", shape, axis, dt, impl, _timeit(fn, sync, n, args.reps))
                        except Exception as e:  # noqa: BLE001 - a peer that cannot do a case
                            print(f"gpu {impl} {shape} axis {axis}: {type(e).__name__}: {e}")
                    del x, out
    return rows


def _with_fractions(rows):
    copy = {(r["device"], r["shape"], r["axis"], r["dtype"]): float(r["median_s"])
            for r in rows if r["impl"] == "copy"}
    for r in rows:
        c = copy.get((r["device"], r["shape"], r["axis"], r["dtype"]))
        r["frac_of_copy"] = f"{c / float(r['median_s']):.3f}" if c else ""
    return rows


def _plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: CSV only, no plot")
        return False
    panels = sorted({(r["device"], r["dtype"]) for r in rows if "x" not in r["shape"]})
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (dev, dt) in zip(axes[0], panels):
        sel = [r for r in rows if r["device"] == dev and r["dtype"] == dt and "x" not in r["shape"]]
        for impl in sorted({r["impl"] for r in sel}):
            pts = sorted((r["n"], float(r["GBps"])) for r in sel if r["impl"] == impl)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=impl)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements (1-D)")
        ax.set_ylabel("GB/s (read + written)")
        ax.set_title(f"{dev} {dt}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def _summary(rows):
    def med(dev, shape, dt, impl):
        for r in rows:
            if (r["device"], r["shape"], r["dtype"], r["impl"]) == (dev, shape, dt, impl):
                return float(r["median_s"])
        return None
    lines = []
    for dt in ("float64", "int64"):
        a, b = med("cpu", str(1 << 26), dt, "pscan"), med("cpu", str(1 << 26), dt, "numpy.cumsum")
        if a and b:
            lines.append(f"cpu {dt} 2^26: pscan {b / a:.2f}x numpy.cumsum")
    for dt in ("float32",):
        a, b = med("gpu", str(1 << 28), dt, "pscan(torch)"), med("gpu", str(1 << 28), dt, "torch.cumsum")
        if a and b:
            lines.append(f"gpu {dt} 2^28: pscan {b / a:.2f}x torch.cumsum")
        a, b = med("gpu", "1024", dt, "pscan(torch)"), med("gpu", "1024", dt, "torch.cumsum")
        if a and b:
            lines.append(f"gpu {dt} 1024: per call pscan {a * 1e6:.1f} us, torch.cumsum {b * 1e6:.1f} us")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m pscan.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="sizes 2^10..2^24, 3 repetitions, batched shapes up to 2^24 elements")
    p.add_argument("--min-log2", type=int, default=10)
    p.add_argument("--max-log2", type=int, default=28)
    p.add_argument("--max-elems", type=int, default=1 << 28,
                   help="skip cases with more elements (memory and time cap)")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--dtypes", default="float32,float64,int32,int64")
    p.add_argument("--device", choices=["all", "cpu", "gpu"], default="all")
    p.add_argument("--no-batched", action="store_true", help="1-D sizes only")
    p.add_argument("--out", default=os.environ.get("OUT") or ".", help="output folder")
    args = p.parse_args(argv)
    if args.quick:
        args.max_log2, args.reps = min(args.max_log2, 24), 3
        args.max_elems = min(args.max_elems, 1 << 24)
    os.makedirs(args.out, exist_ok=True)
    print(f"pscan {pscan.library_version()}, numpy {np.__version__}, python {sys.version.split()[0]}")
    rows = _with_fractions(run(args))
    csv_path = os.path.join(args.out, "pscan_bench.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["device"])
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {csv_path}")
    if rows and _plot(rows, os.path.join(args.out, "pscan_bench.png")):
        print(f"wrote {os.path.join(args.out, 'pscan_bench.png')}")
    for line in _summary(rows):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
