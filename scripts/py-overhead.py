"""Where a small pscan call's time goes in Python, on a CUDA torch tensor (run on the GPU machine
after the package is installed, e.g. by scripts/gpu-python.sh build):
    python3 scripts/py-overhead.py [n]        (default n = 1024)
Prints the per-call time (batches of back-to-back calls, then one synchronize, medians) of
pscan.cumsum(x, out=out), torch.cumsum(x, out=out), out.copy_(x), of the C++ core call alone
with its arguments prepared once and of the ways to allocate a result; the four user-facing calls
in turn, twice; then the cProfile of the pscan calls (top functions by own
time)."""
import cProfile
import pstats
import statistics
import sys
import time

import torch

import pscan
from pscan import _arrays as A
from pscan import _core


def per_call(fn, calls=200, reps=31):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    x = (torch.arange(n, device="cuda") % 7).to(torch.float32)
    out = torch.empty_like(x)
    ctx = pscan._api._context(None)._get((A.CUDA, x.get_device()))
    ctx.set_stream(A.stream_of("torch", (A.CUDA, x.get_device()), None))
    xin, xout = A.for_core(x, "torch"), A.for_core(out, "torch")
    codes = pscan._api._pair(pscan._api.np.dtype("float32"), pscan._api.np.dtype("float32"), 0)
    cases = {
        "pscan.cumsum(x, out=out)": lambda: pscan.cumsum(x, out=out),
        "pscan.cumsum(x)": lambda: pscan.cumsum(x),
        "torch.cumsum(x, 0, out=out)": lambda: torch.cumsum(x, 0, out=out),
        "out.copy_(x)": lambda: out.copy_(x),
        "_core.scan (arguments ready)": lambda: _core.scan(ctx, xin, xout, codes[0], codes[1], 0,
                                                           0, 0, 0, False, False, None),
        "A.for_core(x) twice": lambda: (A.for_core(x, "torch"), A.for_core(out, "torch")),
        "A.stream_of": lambda: A.stream_of("torch", (A.CUDA, 0), None),
        "torch.cumsum(x, 0)": lambda: torch.cumsum(x, 0),
        "A.empty (the result pscan makes)": lambda: A.empty(x, "torch", (A.CUDA, 0), (n,),
                                                           pscan._api.np.dtype("float32")),
        "torch.empty(n, dtype, device)": lambda: torch.empty((n,), dtype=torch.float32,
                                                             device=x.device),
        "torch.empty_like(x)": lambda: torch.empty_like(x),
        "x.new_empty(n, dtype=float64)": lambda: x.new_empty((n,), dtype=torch.float64),
        "A.empty, float64 (a widened result)": lambda: A.empty(
            x, "torch", (A.CUDA, 0), (n,), pscan._api.np.dtype("float64")),
    }
    print(f"n = {n}, {torch.cuda.get_device_name()}, per call (medians of 31 batches of 200):")
    for name, fn in cases.items():
        print(f"  {name:32s} {per_call(fn) * 1e6:8.2f} us")
    # the four calls a user compares, in turn, twice (same process, warm)
    for rnd in range(2):
        for name in ("pscan.cumsum(x)", "torch.cumsum(x, 0)", "pscan.cumsum(x, out=out)",
                     "torch.cumsum(x, 0, out=out)"):
            print(f"round {rnd} {name:32s} {per_call(cases[name]) * 1e6:8.2f} us")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20000):
        pscan.cumsum(x, out=out)
    torch.cuda.synchronize()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
