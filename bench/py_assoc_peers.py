#!/usr/bin/env python3
"""The Python peers of pscan's user operators: torch's associative_scan and JAX's
lax.associative_scan on the affine f32 scan (x -> a*x + b, composed in order: the linear
recurrence h[i] = a[i]*h[i-1] + b[i]), n = 2^16 .. 2^24, beside a device copy of the same
bytes (8 bytes per element: a and b), medians of timed repetitions on the same GPU; and, where
the pscan package is installed with its CUDA backend, pscan.scan with the same operator as a
pscan.Op on a torch tensor of the same (a, b) pairs, checked against torch's result.

Usage: py_assoc_peers.py [--max-log2 24] [--csv FILE]. A peer that is not installed, or fails,
is reported as such (a line and a CSV row with its error), never silently left out."""
import argparse
import statistics
import sys
import time


def median_time(fn, sync, reps=20, rounds=7):
    fn()
    sync()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - t) / reps)
    return statistics.median(times)


def bench_torch(sizes, emit):
    try:
        import torch
        from torch._higher_order_ops.associative_scan import associative_scan
    except Exception as e:  # noqa: BLE001 (any import failure is reported)
        emit("torch", 0, "unavailable", float("nan"), f"{type(e).__name__}: {e}")
        return
    dev = torch.device("cuda")
    sync = torch.cuda.synchronize

    def combine(x, y):  # x earlier, y later: y(x(h)) = y.a*(x.a*h + x.b) + y.b
        return (x[0] * y[0], y[0] * x[1] + y[1])

    for n in sizes:
        a = torch.ones(n, device=dev, dtype=torch.float32)
        b = torch.rand(n, device=dev, dtype=torch.float32)
        src = torch.empty(2 * n, device=dev, dtype=torch.float32)
        dst = torch.empty_like(src)
        emit("copy_torch", n, "ok", median_time(lambda: dst.copy_(src), sync), "")
        for mode in ("pointwise", "generic"):
            try:
                if mode == "pointwise":
                    fn = torch.compile(lambda a_, b_: associative_scan(combine, (a_, b_), dim=0,
                                                                       combine_mode="pointwise"))
                else:
                    fn = lambda a_, b_: associative_scan(combine, (a_, b_), dim=0,  # noqa: E731
                                                         combine_mode="generic")
                emit(f"torch_associative_scan_{mode}", n, "ok",
                     median_time(lambda: fn(a, b), sync, reps=5, rounds=5), "")
            except Exception as e:  # noqa: BLE001
                emit(f"torch_associative_scan_{mode}", n, "failed", float("nan"),
                     f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")


AFFINE_SRC = ("typedef struct { float a, b; } affine;\n"
              "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; "
              "return r; }\n")


def bench_pscan(sizes, emit):
    """pscan.scan of the (a, b) pairs as one (n, 2) float32 torch tensor, the Op compiled once."""
    try:
        import numpy as np
        import torch
        import pscan
        from torch._higher_order_ops.associative_scan import associative_scan
        op = pscan.Op(AFFINE_SRC, "affine", "compose", dtype=np.dtype([("a", "f4"), ("b", "f4")]),
                      identity=(1.0, 0.0))
    except Exception as e:  # noqa: BLE001
        emit("pscan_scan_op", 0, "unavailable", float("nan"), f"{type(e).__name__}: {e}")
        return
    sync = torch.cuda.synchronize
    for n in sizes:
        try:
            a = torch.ones(n, device="cuda", dtype=torch.float32)
            b = torch.rand(n, device="cuda", dtype=torch.float32)
            ab = torch.stack([a, b], dim=1)
            out = torch.empty_like(ab)
            pscan.scan(ab, op=op, axis=0, out=out)
            sync()
            ra, rb = associative_scan(lambda x, y: (x[0] * y[0], y[0] * x[1] + y[1]), (a, b),
                                      dim=0, combine_mode="generic")
            ok = bool(torch.allclose(out[:, 0], ra) and torch.allclose(out[:, 1], rb, rtol=1e-4))
            emit("pscan_scan_op", n, "ok" if ok else "WRONG",
                 median_time(lambda: pscan.scan(ab, op=op, axis=0, out=out), sync), "")
        except Exception as e:  # noqa: BLE001
            emit("pscan_scan_op", n, "failed", float("nan"), f"{type(e).__name__}: {e}")


def bench_jax(sizes, emit):
    try:
        import jax
        import jax.numpy as jnp
    except Exception as e:  # noqa: BLE001
        emit("jax", 0, "unavailable", float("nan"), f"{type(e).__name__}: {e}")
        return

    def combine(x, y):
        return (x[0] * y[0], y[0] * x[1] + y[1])

    scan = jax.jit(lambda a, b: jax.lax.associative_scan(combine, (a, b)))
    copy = jax.jit(lambda x: x * 1.0 + 0.0)  # one read and one write of the same bytes
    for n in sizes:
        try:
            key = jax.random.PRNGKey(0)
            a = jnp.ones((n,), jnp.float32)
            b = jax.random.uniform(key, (n,), jnp.float32)
            ab = jnp.stack([a, b], axis=1)
            last = [None]

            def run_scan():
                last[0] = scan(a, b)

            def run_copy():
                last[0] = copy(ab)

            def sync():
                jax.block_until_ready(last[0])

            emit("copy_jax_elementwise", n, "ok", median_time(run_copy, sync), "")
            emit("jax_lax_associative_scan", n, "ok", median_time(run_scan, sync, reps=5, rounds=5), "")
        except Exception as e:  # noqa: BLE001
            emit("jax_lax_associative_scan", n, "failed", float("nan"), f"{type(e).__name__}: {e}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-log2", type=int, default=24)
    ap.add_argument("--csv")
    args = ap.parse_args()
    sizes = [1 << k for k in range(16, args.max_log2 + 1, 2)]
    out = open(args.csv, "w") if args.csv else None
    if out:
        out.write("impl,n,status,seconds,GBps,note\n")

    def emit(impl, n, status, seconds, note):
        gbs = 2 * 8 * n / seconds / 1e9 if n and seconds == seconds else float("nan")
        print(f"{impl:34s} n=2^{n.bit_length() - 1 if n else 0:<2d} {status:11s} "
              f"{seconds * 1e6:10.1f} us {gbs:8.1f} GB/s {note}", flush=True)
        if out:
            out.write(f"{impl},{n},{status},{seconds:.9f},{gbs:.2f},\"{note}\"\n")

    bench_pscan(sizes, emit)
    bench_torch(sizes, emit)
    bench_jax(sizes, emit)
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
