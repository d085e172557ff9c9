"""scan_by_key and reduce_by_key with a user operator on the GPU, beside a device copy of the same
bytes: affine f32 maps (8 bytes) by int32 keys, runs of 1, 32 and 1000 items, n = 2^20, 2^24,
2^26. The scan's copy moves n * 20 bytes (keys and values read, values written) as one torch copy
of n * 10 bytes; the reduction's moves n * 12 + runs * 12 bytes (its outputs' bytes), timed as a
copy of half that. The flat user-operator scan of the same values (no keys, 16 bytes an item) is
timed beside. Medians of 7 batches of 20 calls, CUDA events. Run on the device machine with the
package installed:
    python3 scripts/py-by-key-op.py [CSV]"""
import sys

import numpy as np
import torch

import pscan

SRC = ("typedef struct { float a, b; } affine;\n"
       "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b };"
       " return r; }\n")


def timed(fn, reps=7, inner=20):
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(inner):
            fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) / inner)
    return float(np.median(out))  # ms


def main():
    op = pscan.Op(SRC, "affine", "compose", np.dtype([("a", "f4"), ("b", "f4")]),
                  identity=(1.0, 0.0))
    rows = ["op,n,run_length,pscan_ms,flat_ms,copy_ms,pct_of_copy,pscan_GBps"]
    for logn in (20, 24, 26):
        n = 1 << logn
        ab = torch.rand(n, 2, device="cuda")
        src = torch.empty(n * 10, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        copy_ms = timed(lambda: dst.copy_(src))
        flat_ms = timed(lambda: pscan.scan(ab, op))
        for run in (1, 32, 1000):
            keys = (torch.arange(n, device="cuda", dtype=torch.int32) // run)
            ms = timed(lambda: pscan.scan_by_key(keys, ab, op))
            rows.append(f"scan_by_key,{n},{run},{ms:.4f},{flat_ms:.4f},{copy_ms:.4f},"
                        f"{100 * copy_ms / ms:.1f},{20 * n / ms / 1e6:.1f}")
            print(rows[-1], flush=True)
            runs = (n + run - 1) // run
            half = (n * 12 + runs * 12) // 2
            rsrc = torch.empty(half, dtype=torch.uint8, device="cuda")
            rdst = torch.empty_like(rsrc)
            rcopy_ms = timed(lambda: rdst.copy_(rsrc))
            ms = timed(lambda: pscan.reduce_by_key(keys, ab, op))
            rows.append(f"reduce_by_key,{n},{run},{ms:.4f},{flat_ms:.4f},{rcopy_ms:.4f},"
                        f"{100 * rcopy_ms / ms:.1f},{2 * half / ms / 1e6:.1f}")
            print(rows[-1], flush=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
