"""pscan.mpi against what a Python user spreading a cumsum over processes has, on the same data
in one run (issue "Beyond one device"). Run under mpirun, every rank holding one shard:

    mpirun -np P python bench/py_mpi_peers.py [--n N] [--dtype int64] [--reps R] [--csv FILE]

Each rank's shard holds N items (default 2^24) of a known pattern; every timing starts after a
barrier and ends when the slowest rank is done (medians of R, after one warm-up):
  copy     each rank copies its shard (numpy.copyto): the ranks' memory ceiling
  local    each rank's own pscan.cumsum of its shard, all at once: what the ranks do alone
  pscan    pscan.mpi.cumsum over the shards (reduce, exchange totals, scan with the prefix),
           into the same out as local
  mpi_np   numpy.cumsum of the shard, MPI Exscan of the shard totals, the prefix added: the
           usual MPI way (one thread per rank)
  dask     on rank 0 only (the others wait): dask.array.cumsum of the whole array (all shards
           concatenated, one chunk per shard) with the threads scheduler, computed into memory
GB/s counts a scan's useful bytes (n read + n written per item) over all ranks' items. Each
rank's pscan context takes cores / P threads. Results are checked against the closed form of the
pattern's prefix sums. Without dask the dask row says so."""
import argparse
import os
import sys
import time

import numpy as np
from mpi4py import MPI

import pscan
import pscan.mpi


def timed(comm, fn, reps):
    """Median over reps of the slowest rank's time of fn() (after one warm-up)."""
    fn()
    times = []
    for _ in range(reps):
        comm.Barrier()
        t0 = time.perf_counter()
        fn()
        times.append(comm.allreduce(time.perf_counter() - t0, op=MPI.MAX))
    return float(np.median(times))


def shard(rank, n, dtype):
    """Rank's shard of the global pattern (i % 7) - 3, i counted over the whole array."""
    i = np.arange(rank * n, (rank + 1) * n, dtype=np.int64)
    return ((i % 7) - 3).astype(dtype)


def expected_last(items, dtype):
    """The prefix sum of the pattern after `items` items (exact for integers)."""
    full, rest = divmod(items, 7)
    return dtype.type(full * sum(k - 3 for k in range(7)) + sum(k - 3 for k in range(rest)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=lambda s: int(s, 0), default=1 << 24, help="items per rank")
    ap.add_argument("--dtype", default="int64")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--csv", help="append one line of results to this file (rank 0)")
    a = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    dt = np.dtype(a.dtype)
    threads = max(1, (os.cpu_count() or 1) // size)
    ctx = pscan.Context(backend="cpu", threads=threads)
    x = shard(rank, a.n, dt)
    out = np.empty_like(x)
    gb = 2.0 * a.n * dt.itemsize * size / 1e9

    def mpi_np():
        np.cumsum(x, out=out)
        prefix = comm.exscan(out[-1].item() if a.n else 0, op=MPI.SUM)
        if rank > 0 and prefix:
            out[...] += dt.type(prefix)

    rows = {
        "copy": timed(comm, lambda: np.copyto(out, x), a.reps),
        "local": timed(comm, lambda: pscan.cumsum(x, out=out, ctx=ctx), a.reps),
        "pscan": timed(comm, lambda: pscan.mpi.cumsum(x, comm, out=out, ctx=ctx), a.reps),
        "mpi_np": timed(comm, mpi_np, a.reps),
    }
    got = pscan.mpi.cumsum(x, comm, ctx=ctx)
    ok = bool(got[-1] == expected_last((rank + 1) * a.n, dt)) if a.n else True
    mpi_np()
    ok = ok and (bool(out[-1] == expected_last((rank + 1) * a.n, dt)) if a.n else True)
    ok = comm.allreduce(ok, op=MPI.LAND)

    dask_note = ""
    try:
        import dask
        import dask.array as da
        have_dask = True
    except ImportError:
        have_dask = False
        dask_note = "dask not installed"
    if have_dask:
        if rank == 0:
            whole = np.concatenate([shard(r, a.n, dt) for r in range(size)])
            arr = da.from_array(whole, chunks=a.n)
            dask.config.set(scheduler="threads", num_workers=os.cpu_count() or 1)

            def dask_run():
                return da.cumsum(arr).compute()
        else:
            def dask_run():
                return None
        rows["dask"] = timed(comm, dask_run, max(3, a.reps // 3))
        if rank == 0:
            res = dask_run()
            ok = ok and bool(res[-1] == expected_last(size * a.n, dt))
        ok = comm.bcast(ok, root=0)

    if rank == 0:
        print(f"py_mpi_peers: {size} ranks x {a.n} {dt} items, {threads} pscan threads per rank, "
              f"{os.cpu_count()} cores, medians of {a.reps}; results {'correct' if ok else 'WRONG'}")
        for k, t in rows.items():
            print(f"  {k:7s} {t * 1e3:9.3f} ms {gb / t:8.2f} GB/s  "
                  f"{100 * rows['local'] / t:6.1f}% of the ranks' local scans  "
                  f"{100 * rows['copy'] / t:6.1f}% of their copies")
        if dask_note:
            print(f"  dask    ({dask_note})")
        if a.csv:
            new = not os.path.exists(a.csv)
            with open(a.csv, "a") as f:
                if new:
                    f.write("ranks,n,dtype,threads,copy_GBps,local_GBps,pscan_mpi_GBps,"
                            "mpi_numpy_GBps,dask_GBps,correct\n")
                f.write(f"{size},{a.n},{dt},{threads}," + ",".join(
                    f"{gb / rows[k]:.3f}" if k in rows else "" for k in
                    ("copy", "local", "pscan", "mpi_np", "dask")) + f",{int(ok)}\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
