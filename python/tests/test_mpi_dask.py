"""pscan.dask and pscan.mpi against NumPy on the whole array.

pscan.dask: random shapes and chunkings (chunks of one item included), every built-in op,
exclusive, widening, axis None. pscan.mpi: this file is also the worker that mpirun starts
(python test_mpi_dask.py --mpi-worker SEED) with 1 to 4 ranks: each rank draws the global array
from the seed, takes its shard (empty shards included) and checks its part of pscan.mpi's result
against NumPy (a pscan.Op: pscan.scan) on the concatenation; mismatched arguments and a failing rank raise on every rank.
Skipped, with the reason, where dask, mpi4py or mpirun is missing."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import pscan

OPS = ["sum", "prod", "min", "max", "and", "or", "xor"]
NP_OPS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
IDENTITY = {"sum": 0, "prod": 1, "or": 0, "xor": 0}


def reference(x, op, axis, dtype, exclusive):
    """numpy's accumulate along axis (exclusive: shifted, the op's identity first)."""
    acc = NP_OPS[op].accumulate(x.astype(dtype), axis=axis)
    if not exclusive:
        return acc
    out = np.empty_like(acc)
    if op in IDENTITY:
        ident = IDENTITY[op]
    elif op == "and":
        ident = ~np.zeros((), dtype)
    elif op == "min":
        ident = np.iinfo(dtype).max if np.dtype(dtype).kind in "iu" else np.inf
    else:
        ident = np.iinfo(dtype).min if np.dtype(dtype).kind in "iu" else -np.inf
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(0, 1)
    out[tuple(idx)] = ident
    src, dst = list(idx), list(idx)
    src[axis], dst[axis] = slice(0, -1), slice(1, None)
    out[tuple(dst)] = acc[tuple(src)]
    return out


# ---- pscan.dask ----

def test_dask_scans():
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    import pscan.dask as pd
    rng = np.random.default_rng(int(os.environ.get("PSCAN_TEST_SEED", "7")))
    for trial in range(60):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 9)) for _ in range(ndim))
        chunks = tuple(int(rng.integers(1, s + 1)) for s in shape)
        op = OPS[trial % len(OPS)]
        dt = np.dtype(rng.choice(["int32", "int64", "uint8", "float64"])) if op in ("sum", "min", "max", "prod") \
            else np.dtype(rng.choice(["int32", "uint16"]))
        if op == "prod":
            x = rng.integers(-1, 3, size=shape)
        else:
            x = rng.integers(-20, 20, size=shape)
        x = x.astype(dt)
        axis = int(rng.integers(-ndim, ndim))
        exclusive = bool(rng.integers(0, 2))
        got = pd.scan(da.from_array(x, chunks=chunks), op, axis=axis, exclusive=exclusive).compute()
        want = reference(x, op, axis, got.dtype, exclusive)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want, err_msg=f"{op} {dt} {shape} {chunks} axis {axis} excl {exclusive}")


def test_dask_cumsum_widening_and_flat():
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    import pscan.dask as pd
    x = (np.arange(1000, dtype=np.int32) % 13 - 6).reshape(10, 100)
    d = da.from_array(x, chunks=(3, 7))
    np.testing.assert_array_equal(pd.cumsum(d, axis=1, dtype=np.int64).compute(),
                                  np.cumsum(x, axis=1, dtype=np.int64))
    np.testing.assert_array_equal(pd.cumsum(d, axis=None).compute(), np.cumsum(x))
    np.testing.assert_array_equal(pd.cummax(d, axis=0).compute(), np.maximum.accumulate(x, 0))
    with pytest.raises(ValueError):
        pd.scan(d, "median")


# ---- pscan.mpi ----

def _shards(rng, n, size):
    kind = int(rng.integers(0, 4))
    if kind == 0:
        cuts = np.sort(rng.integers(0, n + 1, size=size - 1))
    elif kind == 1:   # all on one rank
        cuts = np.full(size - 1, n if rng.integers(0, 2) else 0)
    elif kind == 2:   # even
        cuts = np.array([n * (q + 1) // size for q in range(size - 1)])
    else:             # every other rank empty
        cuts = np.repeat(np.array([n * (q + 1) // size for q in range(0, size - 1, 2)]), 2)[:size - 1]
    return np.concatenate([[0], np.sort(cuts), [n]]).astype(int)


def _worker(seed):
    from mpi4py import MPI
    import pscan.mpi as pm
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    rng = np.random.default_rng(seed)
    failures = 0

    def check(ok, what):
        nonlocal failures
        if not ok:
            failures += 1
            print(f"rank {rank}: FAIL {what}", flush=True)

    for trial in range(40):
        n = int(rng.choice([0, 1, 5, 100, 1000]))
        cuts = _shards(rng, n, size)
        op = OPS[trial % len(OPS)]
        dt = np.dtype("float64") if op in ("sum", "max") and trial % 3 == 0 else np.dtype("int64")
        g = rng.integers(-1 if op == "prod" else -50, 3 if op == "prod" else 50, size=n).astype(dt)
        excl = bool(trial % 2)
        init = None if trial % 4 < 2 else dt.type(3)
        mine = g[cuts[rank]:cuts[rank + 1]]
        got = pm.scan(mine.copy(), comm, op, exclusive=excl, init=init)
        whole = pscan.scan(g, op, exclusive=excl, init=init) if n else np.empty(0, dt)
        check(np.array_equal(got, whole[cuts[rank]:cuts[rank + 1]]),
              f"scan {op} {dt} excl {excl} init {init} cuts {cuts}")
        # select
        kept, off, tot = pm.select(mine.copy(), comm, ">", 0)
        allk = g[g > 0]
        check(tot == len(allk) and np.array_equal(kept, allk[off:off + len(kept)]), "select")
        # runs: values with long runs, one run over everything now and then
        keys = np.repeat(rng.integers(0, 3, size=n // 3 + 1), 3)[:n] if trial % 5 else np.full(n, 7)
        mk = keys[cuts[rank]:cuts[rank + 1]]
        v, c, off, tot = pm.run_length_encode(mk.copy(), comm)
        rv, rc = pscan.run_length_encode(keys) if n else (keys, keys)
        check(tot == len(rv) and np.array_equal(v, rv[off:off + len(v)]) and
              np.array_equal(c, rc[off:off + len(c)]), f"rle cuts {cuts}")
        vals = rng.integers(-9, 9, size=n).astype(np.int64)
        k2, r2, off, tot = pm.reduce_by_key(mk.copy(), vals[cuts[rank]:cuts[rank + 1]].copy(), comm,
                                            "max" if trial % 2 else "sum")
        rk, rr = pscan.reduce_by_key(keys, vals, "max" if trial % 2 else "sum") if n else (keys, vals)
        check(tot == len(rk) and np.array_equal(k2, rk[off:off + len(k2)]) and
              np.array_equal(r2, rr[off:off + len(r2)]), f"reduce_by_key cuts {cuts}")
    # a user operator (affine maps: the order of ranks matters), structured and as rows
    affine_dt = np.dtype([("a", "f8"), ("b", "f8")])
    affine = pscan.Op("typedef struct { double a, b; } affine;\n"
                      "affine compose(affine x, affine y) { affine r = { x.a * y.a, "
                      "y.a * x.b + y.b }; return r; }\n", "affine", "compose", affine_dt,
                      identity=(1.0, 0.0))
    for trial in range(8):
        n = int(rng.choice([0, 1, 7, 300, 5000]))
        cuts = _shards(rng, n, size)
        g = np.empty(n, affine_dt)
        g["a"] = rng.choice([-1.0, 1.0], n)
        g["b"] = rng.integers(-9, 10, n).astype(float)  # exact in any bracketing
        excl, init = bool(trial % 2), None if trial % 4 < 2 else (2.0, -1.0)
        mine = g[cuts[rank]:cuts[rank + 1]]
        rows = trial % 3 == 0
        shard = np.stack([mine["a"], mine["b"]], axis=-1) if rows else mine.copy()
        got = pm.scan(shard, comm, affine, exclusive=excl, init=init)
        whole = pscan.scan(g, affine, exclusive=excl, init=init) if n else g
        part = whole[cuts[rank]:cuts[rank + 1]]
        if rows:
            part = np.stack([part["a"], part["b"]], axis=-1)
        check(np.array_equal(got, part), f"scan Op rows {rows} excl {excl} init {init} cuts {cuts}")
    # refusals raise on every rank
    if size > 1:
        try:
            pm.scan(np.arange(3), comm, "max" if rank == size - 1 else "sum")
            check(False, "mismatched op did not raise")
        except ValueError as e:
            check("disagree" in str(e), f"mismatched op: {e}")
    try:
        pm.scan(np.zeros((2, 2)) if rank == 0 else np.arange(3), comm)
        check(False, "a failing rank did not raise")
    except (ValueError, pm.MPIError) as e:
        check("1-D" in str(e) or "rank 0" in str(e), f"failing rank: {e}")
    total = comm.allreduce(failures)
    if rank == 0:
        print(f"pscan.mpi worker: {size} ranks, {total} failures", flush=True)
    return 1 if total else 0


def test_mpi_single_process():
    pytest.importorskip("mpi4py", reason="mpi4py is not installed")
    assert _worker(11) == 0


@pytest.mark.parametrize("np_", [2, 3, 4])
def test_mpi_ranks(np_):
    pytest.importorskip("mpi4py", reason="mpi4py is not installed")
    mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
    if not mpirun:
        pytest.skip("no mpirun")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    r = subprocess.run([mpirun, "-np", str(np_), sys.executable, __file__, "--mpi-worker", "5"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert f"{np_} ranks, 0 failures" in r.stdout


if __name__ == "__main__" and "--mpi-worker" in sys.argv:
    sys.exit(_worker(int(sys.argv[sys.argv.index("--mpi-worker") + 1])))
