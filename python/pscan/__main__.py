"""python -m pscan: information about this build, scans of .npy files, and the benchmark."""

from __future__ import annotations

import argparse
import sys

import numpy as np

import pscan


def _info(_args):
    print(f"pscan {pscan.__version__} (library {pscan.library_version()})")
    print(f"CUDA backend built: {'yes' if pscan.cuda_built() else 'no'}")
    if pscan.cuda_built():
        try:
            pscan.Context(backend="cuda")._get(("cuda", 0))
            print("CUDA device usable: yes")
        except pscan.Error as e:
            print(f"CUDA device usable: no ({e})")
    return 0


def _scan(args):
    x = np.load(args.input, mmap_mode="r")
    axis = None if args.axis == "none" else int(args.axis)
    r = pscan.scan(x, args.op, axis=axis, exclusive=args.exclusive, reverse=args.reverse)
    np.save(args.output, r)
    print(f"{args.input} {x.shape} {x.dtype} -> {args.output} {r.shape} {r.dtype}")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m pscan",
                                description="pscan: parallel prefix scans for Python arrays")
    sub = p.add_subparsers(dest="cmd")
    sub.add_parser("info", help="version, backends built, CUDA device usable")
    s = sub.add_parser("scan", help="scan a .npy file into another .npy file")
    s.add_argument("input")
    s.add_argument("output")
    s.add_argument("--op", default="sum", choices=["sum", "prod", "min", "max", "and", "or", "xor"])
    s.add_argument("--axis", default="-1", help="an int, or 'none' to scan the flattened array")
    s.add_argument("--exclusive", action="store_true")
    s.add_argument("--reverse", action="store_true")
    sub.add_parser("bench", help="python -m pscan.bench (pass its options after --)",
                   add_help=False)
    args, rest = p.parse_known_args(argv)
    if args.cmd == "bench":
        from . import bench
        return bench.main([a for a in rest if a != "--"])
    if rest:
        p.error(f"unrecognised arguments: {' '.join(rest)}")
    if args.cmd == "scan":
        return _scan(args)
    if args.cmd == "info":
        return _info(args)
    p.print_help()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except pscan.Error as e:
        print(f"pscan: {e}", file=sys.stderr)
        sys.exit(1)
