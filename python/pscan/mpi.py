"""pscan.mpi: scans and compaction over arrays sharded across the ranks of an mpi4py communicator.

Each rank passes its own shard (a 1-D array: NumPy, or a device array the pscan package takes);
every call is collective over comm and gives each rank the part of the result that one call on
the concatenation (in rank order) would have put at its shard's positions. The local work is the
pscan package's own (pscan.scan with init, pscan.select, ...); only per-rank totals, counts and
boundary items cross the communicator, through one allgather of small picklable records per
call, which also carries each rank's arguments and any local error: ranks that disagree, or a
rank that fails, make the call raise on every rank (no rank hangs).

    from mpi4py import MPI
    import pscan.mpi
    out = pscan.mpi.cumsum(local, MPI.COMM_WORLD)
    kept, offset, total = pscan.mpi.select(local, MPI.COMM_WORLD, ">", 0)

Traffic per element: a rank reduces its shard (pscan.reduce where the array lives, one read;
only the total comes to the host), then scans it with the prefix of the ranks before it as init
(a read and a write); the last rank's total is needed by no one, so it only scans. The C library
pscan_mpi (pscan_mpi.h) does the same in C, with MPI_Exscan of the totals.
"""
import numpy as np

import pscan

__all__ = ["scan", "cumsum", "cumprod", "cummin", "cummax", "select", "run_length_encode",
           "reduce_by_key", "MPIError"]

_OPS = ("sum", "prod", "min", "max", "and", "or", "xor")


class MPIError(RuntimeError):
    """A pscan.mpi call failed on some rank (raised on every rank)."""


def _host(a):
    """A NumPy copy of a (small) array of any library."""
    if isinstance(a, np.ndarray):
        return a
    if hasattr(a, "get"):          # CuPy
        return a.get()
    if hasattr(a, "cpu"):          # PyTorch
        return a.cpu().numpy()
    return np.asarray(a)


def _agree(comm, what, args, local_error):
    """One allgather: every rank's (args, error, payload); raises on every rank when a rank
    failed or the ranks disagree. Returns the list of payloads."""
    records = comm.allgather((args, local_error[0], local_error[1]))
    rank = comm.Get_rank()
    for q, (_, err, _) in enumerate(records):
        if err is not None:
            if q == rank and isinstance(local_error[2], BaseException):
                raise local_error[2]
            raise MPIError(f"{what}: rank {q} of {len(records)} failed: {err}")
    first = records[0][0]
    for q, (a, _, _) in enumerate(records):
        if a != first:
            raise ValueError(f"{what}: the ranks disagree on their arguments "
                             f"(rank 0: {first}, rank {q}: {a})")
    return [r[2] for r in records]


def _run(comm, what, args, fn):
    """Runs fn() locally, then agrees; fn returns the payload to gather."""
    try:
        payload = fn()
        err = (None, payload, None)
    except Exception as e:  # reported on every rank by _agree
        err = (f"{type(e).__name__}: {e}", None, e)
    return _agree(comm, what, args, err)


def _combine(op, dtype, parts):
    """parts[0] op parts[1] op ... in order, by pscan itself (its semantics: wrapping, NaN;
    a pscan.Op's own function)."""
    arr = np.asarray(parts, dtype=dtype)
    if isinstance(op, pscan.Op):
        return pscan.reduce(arr, op)
    return pscan.scan(arr, op, dtype=dtype)[-1]


def _op_args(op):
    """What the ranks must agree on about op: its name, or a pscan.Op's source and layout."""
    if isinstance(op, pscan.Op):
        return ("Op", op.source, op.type_name, op.name, str(op.dtype), op.kind)
    return op


def _result_dtype(x, op, dtype):
    if isinstance(op, pscan.Op):
        if dtype is not None:
            raise ValueError("pscan.mpi.scan: dtype is not taken with a pscan.Op")
        return op.dtype
    if dtype is not None:
        return np.dtype(dtype)
    return pscan.scan(np.zeros(1, dtype=_host(x[:0]).dtype), op).dtype


def scan(x, comm, op="sum", dtype=None, exclusive=False, init=None, *, out=None, ctx=None,
         stream=None):
    """Distributed inclusive (or exclusive) scan of the 1-D shard x with a built-in op or a
    pscan.Op of kind "combine" (non-commutative is fine: ranks are ordered).

    dtype: the accumulation and result type (default as pscan.scan; not with an Op); init:
    folded in before the first item of the whole array (give it on every rank alike). With an
    Op, x is a 1-D array of its dtype, or (arrays without structured dtypes) shape (n, k) with
    one element per row. out: as in pscan.scan (x itself: in place). Returns this rank's part
    (out when given)."""
    rank, size = comm.Get_rank(), comm.Get_size()
    user = isinstance(op, pscan.Op)
    if not user and op not in _OPS:
        raise ValueError(f"pscan.mpi.scan: unknown op {op!r}")

    def local():
        res_dt = _result_dtype(x, op, dtype)
        rows = user and _host(x[:0]).dtype.itemsize != res_dt.itemsize  # elements as rows
        n = int(x.shape[0]) if x.ndim == 1 + rows else None
        if n is None:
            raise ValueError("pscan.mpi.scan: x must be 1-D (one shard)")
        # (the result type travels for built-in ops only: an Op's is op.dtype on every rank)
        kind = None if user else str(res_dt)
        if rank == size - 1 or n == 0:
            return (kind, None)  # nobody's prefix
        if user:
            return (kind, np.asarray(pscan.reduce(x, op, ctx=ctx, stream=stream)).tobytes())
        total = pscan.reduce(x, op, dtype=res_dt, ctx=ctx, stream=stream)
        return (kind, np.asarray(total, dtype=res_dt).tobytes())

    args = ("scan", _op_args(op), None if dtype is None else str(np.dtype(dtype)),
            bool(exclusive), None if init is None else repr(init))
    payloads = _run(comm, "pscan.mpi.scan", args, local)
    res_dt = op.dtype if user else np.dtype(payloads[rank][0])
    parts = [] if init is None else [init]
    parts += [np.frombuffer(p[1], dtype=res_dt)[0] for p in payloads[:rank] if p[1] is not None]
    prefix = None if not parts else _combine(op, res_dt, parts)
    kw = {"out": out} if user else {"dtype": res_dt, "out": out}
    if int(x.shape[0]) == 0:
        return pscan.scan(x, op, exclusive=exclusive, ctx=ctx, stream=stream, **kw)
    if user and prefix is not None:
        prefix = tuple(np.asarray(prefix, dtype=res_dt).reshape(()).item()) \
            if res_dt.fields else np.asarray(prefix, dtype=res_dt).item()
    return pscan.scan(x, op, exclusive=exclusive, init=prefix, ctx=ctx, stream=stream, **kw)


def cumsum(x, comm, dtype=None, exclusive=False, init=None, **kw):
    """scan(x, comm, "sum", ...)."""
    return scan(x, comm, "sum", dtype, exclusive, init, **kw)


def cumprod(x, comm, dtype=None, exclusive=False, init=None, **kw):
    """scan(x, comm, "prod", ...)."""
    return scan(x, comm, "prod", dtype, exclusive, init, **kw)


def cummin(x, comm, dtype=None, exclusive=False, init=None, **kw):
    """scan(x, comm, "min", ...)."""
    return scan(x, comm, "min", dtype, exclusive, init, **kw)


def cummax(x, comm, dtype=None, exclusive=False, init=None, **kw):
    """scan(x, comm, "max", ...)."""
    return scan(x, comm, "max", dtype, exclusive, init, **kw)


def select(x, comm, pred_or_cmp, value=None, *, ctx=None, stream=None):
    """(kept, global_offset, global_count): this rank's selected items (pscan.select on its
    shard), where they start in the global result, and the global count."""
    rank = comm.Get_rank()
    res = {}

    def local():
        res["kept"] = pscan.select(x, pred_or_cmp, value, ctx=ctx, stream=stream)
        return int(res["kept"].shape[0])

    counts = _run(comm, "pscan.mpi.select", ("select", str(pred_or_cmp), repr(value)), local)
    return res["kept"], sum(counts[:rank]), sum(counts)


def _runs(comm, what, args, local_call, op=None):
    """The merge of runs across shard boundaries (run_length_encode, reduce_by_key): a run
    belongs to the rank where it starts; the owner extends its last run by the first runs of
    the ranks after it that continue it (through empty ranks and one-run ranks)."""
    rank = comm.Get_rank()
    res = {}

    def local():
        keys, second = local_call()
        res["keys"], res["second"] = keys, second
        k = int(keys.shape[0])
        if k == 0:
            return (0, None, None, None)
        hk, hs = _host(keys[:1]), _host(second[:1])
        return (k, hk[0].item(), _host(keys[k - 1:])[0].item(), hs[0])

    infos = _run(comm, what, args, local)
    cont, prev = [], None
    for k, first, last, _ in infos:
        cont.append(k > 0 and prev is not None and first == prev)
        if k > 0:
            prev = last
    owned = [k - (1 if c else 0) for (k, _, _, _), c in zip(infos, cont)]
    keys, second = res["keys"], res["second"]
    k = infos[rank][0]
    if k > 0 and not (cont[rank] and k == 1):
        parts = []
        for q in range(rank + 1, len(infos)):
            if infos[q][0] == 0:
                continue
            if not cont[q]:
                break
            parts.append(infos[q][3])
            if infos[q][0] > 1:
                break
        if parts:
            last = _host(second[k - 1:])[0]
            if op is None:      # counts
                merged = last + sum(int(p) for p in parts)
            else:
                merged = _combine(op, np.asarray(last).dtype, [last] + parts)
            second[k - 1] = merged
    if cont[rank]:
        keys, second = keys[1:], second[1:]
    return keys, second, sum(owned[:rank]), sum(owned)


def run_length_encode(x, comm, *, ctx=None, stream=None):
    """(values, counts, global_offset, global_count), with runs crossing shard boundaries
    merged: a run belongs to the rank where it starts."""
    return _runs(comm, "pscan.mpi.run_length_encode", ("rle", str(_host(x[:0]).dtype)),
                 lambda: pscan.run_length_encode(x, ctx=ctx, stream=stream))


def reduce_by_key(keys, vals, comm, op="sum", *, ctx=None, stream=None):
    """(keys, reductions, global_offset, global_count): pscan.reduce_by_key over the sharded
    (keys, vals), runs of equal keys merged across shard boundaries."""
    return _runs(comm, "pscan.mpi.reduce_by_key",
                 ("rbk", str(_host(keys[:0]).dtype), str(_host(vals[:0]).dtype), op),
                 lambda: pscan.reduce_by_key(keys, vals, op, ctx=ctx, stream=stream), op=op)
