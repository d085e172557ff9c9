"""pscan.dask: prefix scans of Dask arrays, with pscan's kernel on every chunk.

    import dask.array as da, pscan.dask
    y = pscan.dask.cumsum(x, axis=0)        # lazy, like x.cumsum(axis=0)

Three blockwise steps, all lazy: each chunk's total along the axis (the array library's own
reduction, one read); an exclusive scan of those totals along the axis (a small array: one
chunk per chunk of x along the axis, scanned by pscan in one piece); each chunk scanned by pscan
and combined with its prefix. For 1-D arrays the prefix is the scan's init (one pass over the
chunk); for more dimensions each line of a chunk has its own prefix, so the chunk's scan is
followed by an elementwise combine with the broadcast prefixes. The first chunk along the axis
takes no prefix, so its results are exactly pscan's.
"""
import numpy as np

import pscan

__all__ = ["scan", "cumsum", "cumprod", "cummin", "cummax"]

_UFUNCS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
           "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _totals(block, op, axis, dtype):
    return _UFUNCS[op].reduce(block, axis=axis, dtype=dtype, keepdims=True)


def _prefixes(totals, op, axis, dtype):
    return pscan.scan(np.ascontiguousarray(totals), op, axis=axis, dtype=dtype, exclusive=True)


def _chunk(block, prefix, op, axis, dtype, exclusive, block_info=None):
    first = block_info is None or block_info[0]["chunk-location"][axis] == 0
    if block.size == 0:
        return np.empty(block.shape, dtype=dtype)
    if first:
        return pscan.scan(block, op, axis=axis, dtype=dtype, exclusive=exclusive)
    if block.ndim == 1:
        return pscan.scan(block, op, axis=0, dtype=dtype, exclusive=exclusive,
                          init=prefix.reshape(-1)[0])
    out = pscan.scan(block, op, axis=axis, dtype=dtype, exclusive=exclusive)
    return _UFUNCS[op](prefix, out, out=out)


def scan(x, op="sum", axis=-1, dtype=None, exclusive=False):
    """The scan of the Dask array x along axis (None: flattened, as numpy.cumsum) with a built-in
    op ("sum", "prod", "min", "max", "and", "or", "xor"); dtype: the accumulation and result
    type (default as pscan.scan). Returns a Dask array with x's chunks."""
    import dask.array as da

    if op not in _UFUNCS:
        raise ValueError(f"pscan.dask.scan: unknown op {op!r}")
    x = da.asarray(x)
    if axis is None:
        x, axis = x.ravel(), 0
    if x.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(axis, x.ndim)
    axis %= x.ndim
    res_dt = np.dtype(dtype) if dtype is not None else \
        pscan.scan(np.zeros(1, dtype=x.dtype), op).dtype
    one = tuple((1,) * len(c) if d == axis else c for d, c in enumerate(x.chunks))
    totals = x.map_blocks(_totals, op, axis, res_dt, dtype=res_dt, chunks=one)
    prefixes = totals.rechunk({axis: -1}).map_blocks(_prefixes, op, axis, res_dt, dtype=res_dt)
    prefixes = prefixes.rechunk(one)
    return da.map_blocks(_chunk, x, prefixes, op, axis, res_dt, bool(exclusive), dtype=res_dt,
                         chunks=x.chunks)


def cumsum(x, axis=-1, dtype=None, exclusive=False):
    """pscan.dask.scan(x, "sum", axis, dtype, exclusive)."""
    return scan(x, "sum", axis, dtype, exclusive)


def cumprod(x, axis=-1, dtype=None, exclusive=False):
    """pscan.dask.scan(x, "prod", axis, dtype, exclusive)."""
    return scan(x, "prod", axis, dtype, exclusive)


def cummin(x, axis=-1, dtype=None, exclusive=False):
    """pscan.dask.scan(x, "min", axis, dtype, exclusive)."""
    return scan(x, "min", axis, dtype, exclusive)


def cummax(x, axis=-1, dtype=None, exclusive=False):
    """pscan.dask.scan(x, "max", axis, dtype, exclusive)."""
    return scan(x, "max", axis, dtype, exclusive)
