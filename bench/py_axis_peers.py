#!/usr/bin/env python3
"""The Python peers of pscan's axis and segmented scans, on the shapes of bench/axis_bench.c.

    python3 bench/py_axis_peers.py [--cpu] [--gpu] [--reps R] [--quick] [--csv FILE]

--cpu: numpy.cumsum(x, axis) against numpy.copyto of the same bytes (numpy's own copy).
--gpu: torch.cumsum, cupy.cumsum and jax.numpy.cumsum (jit, wall clock around
       block_until_ready) on the GPU, each against a device copy of the same bytes made by the
       same library in the same run (torch: out.copy_(x); cupy: cupy.copyto; jax: a jitted x + 0,
       which reads and writes the same bytes).
Medians of --reps timed runs after a warm-up. A library that is not installed is skipped with a
line saying so. CSV columns: library, dtype, shape, axis, ms, copy_ms, pct_of_copy.
"""
import argparse
import statistics
import sys
import time

SHAPES = [((16384, 16384), 0), ((16384, 16384), 1), ((1048576, 64), 0), ((1048576, 64), 1),
          ((64, 4194304), 1), ((64, 4194304), 0), ((1000000, 256), 0), ((122996, 1024), 1),
          ((268435456,), 0)]


def median_ms(fn, reps, sync=lambda: None):
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def cases(quick, big_ok):
    for dtype in ("float32", "int32", "float64"):
        for k, (shape, axis) in enumerate(SHAPES):
            if dtype == "float64" and k % 3:
                continue  # f64 for a few, as axis_bench.c
            if len(shape) == 1 and not big_ok:
                continue
            yield dtype, shape, axis


def report(rows, lib, dtype, shape, axis, ms, copy_ms):
    pct = 100 * copy_ms / ms if ms > 0 else 0
    print(f"{lib:8} {dtype:8} {str(shape):18} axis {axis}  {ms:9.3f} ms  copy {copy_ms:9.3f} ms"
          f"  {pct:6.1f}% of copy", flush=True)
    rows.append((lib, dtype, "x".join(map(str, shape)), axis, ms, copy_ms, pct))


def run_numpy(rows, args):
    try:
        import numpy as np
    except ImportError:
        print("numpy: not installed, skipped")
        return
    for dtype, shape, axis in cases(args.quick, not args.quick):
        x = np.ones(shape, dtype=dtype)
        out = np.empty_like(x)
        ms = median_ms(lambda: np.cumsum(x, axis=axis, out=out), args.reps)
        copy_ms = median_ms(lambda: np.copyto(out, x), args.reps)
        report(rows, "numpy", dtype, shape, axis, ms, copy_ms)


def run_torch(rows, args):
    try:
        import torch
    except ImportError:
        print("torch: not installed, skipped")
        return
    if not torch.cuda.is_available():
        print("torch: no CUDA device, skipped")
        return
    sync = torch.cuda.synchronize
    for dtype, shape, axis in cases(args.quick, True):
        x = torch.ones(shape, dtype=getattr(torch, dtype), device="cuda")
        out = torch.empty_like(x)
        ms = median_ms(lambda: torch.cumsum(x, dim=axis, out=out), args.reps, sync)
        copy_ms = median_ms(lambda: out.copy_(x), args.reps, sync)
        report(rows, "torch", dtype, shape, axis, ms, copy_ms)
        del x, out
        torch.cuda.empty_cache()


def run_cupy(rows, args):
    try:
        import cupy
    except ImportError:
        print("cupy: not installed, skipped")
        return
    sync = cupy.cuda.Device().synchronize
    for dtype, shape, axis in cases(args.quick, True):
        x = cupy.ones(shape, dtype=dtype)
        out = cupy.empty_like(x)
        ms = median_ms(lambda: cupy.cumsum(x, axis=axis, out=out), args.reps, sync)
        copy_ms = median_ms(lambda: cupy.copyto(out, x), args.reps, sync)
        report(rows, "cupy", dtype, shape, axis, ms, copy_ms)
        del x, out
        cupy.get_default_memory_pool().free_all_blocks()


def run_jax(rows, args):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax: not installed, skipped")
        return
    for dtype, shape, axis in cases(args.quick, True):
        if dtype == "float64" and not jax.config.read("jax_enable_x64"):
            jax.config.update("jax_enable_x64", True)
        x = jnp.ones(shape, dtype=dtype)
        scan = jax.jit(lambda a, ax=axis: jnp.cumsum(a, axis=ax))
        copy = jax.jit(lambda a: a + 0)
        ms = median_ms(lambda: scan(x).block_until_ready(), args.reps)
        copy_ms = median_ms(lambda: copy(x).block_until_ready(), args.reps)
        report(rows, "jax", dtype, shape, axis, ms, copy_ms)
        del x


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="CPU: without the 2^28 1-D case")
    ap.add_argument("--csv")
    args = ap.parse_args()
    if not args.cpu and not args.gpu:
        args.cpu = True
    rows = []
    if args.cpu:
        run_numpy(rows, args)
    if args.gpu:
        for run in (run_torch, run_cupy, run_jax):
            try:
                run(rows, args)
            except Exception as e:  # one library's failure must not hide the others' figures
                print(f"{run.__name__[4:]}: failed: {e}", file=sys.stderr)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("library,dtype,shape,axis,ms,copy_ms,pct_of_copy\n")
            for r in rows:
                f.write(",".join(str(v) for v in r[:4]) + f",{r[4]:.4f},{r[5]:.4f},{r[6]:.2f}\n")


if __name__ == "__main__":
    main()
