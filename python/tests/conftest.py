"""Shared helpers: a printed seed, the NumPy reference scan, poisoned outputs."""
import os
import random

import numpy as np
import pytest

import pscan

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64]
OPS = ["sum", "prod", "min", "max", "and", "or", "xor"]
UFUNCS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


@pytest.fixture
def rng(request):
    """A generator from PSCAN_TEST_SEED or a fresh seed, printed (pytest shows it on failure)."""
    seed = int(os.environ.get("PSCAN_TEST_SEED", random.randrange(2**32)))
    print(f"seed {seed} ({request.node.name}); rerun with PSCAN_TEST_SEED={seed}")
    return np.random.default_rng(seed)


def identity(op, dt):
    dt = np.dtype(dt)
    if op in ("sum", "or", "xor"):
        return dt.type(0)
    if op == "prod":
        return dt.type(1)
    if op == "and":
        return dt.type(True) if dt == np.bool_ else dt.type(-1 if dt.kind == "i" else
                                                            np.iinfo(dt).max)
    big = op == "min"
    if dt == np.bool_:
        return np.bool_(big)
    if dt.kind == "f":
        return dt.type(np.inf if big else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if big else info.min)


def ref_scan(x, op="sum", axis=-1, dtype=None, exclusive=False, reverse=False, init=None):
    """The scan by NumPy's accumulate (and flips and shifts for reverse and exclusive)."""
    x = np.asarray(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    dt = np.dtype(dtype) if dtype is not None else pscan._api._default_dtype(
        x.dtype, pscan._api._OPS[op])
    uf = UFUNCS[op]
    if dt == np.bool_ and op in ("sum", "prod"):
        uf = np.logical_or if op == "sum" else np.logical_and
    a = x.astype(dt)
    if reverse:
        a = np.flip(a, axis)
    a = np.moveaxis(a, axis, -1)
    first = np.full(a.shape[:-1] + (1,), identity(op, dt) if init is None else init, dtype=dt)
    with np.errstate(over="ignore", invalid="ignore"):
        full = uf.accumulate(np.concatenate([first, a], axis=-1), axis=-1, dtype=dt)
    r = full[..., :-1] if exclusive else full[..., 1:]
    if not exclusive and init is None and a.shape[-1] > 0 and dt.kind == "f" and op == "sum":
        r = uf.accumulate(a, axis=-1, dtype=dt)  # -0.0 stays -0.0 without the identity
    r = np.moveaxis(r, -1, axis)
    if reverse:
        r = np.flip(r, axis)
    return r


def small_values(rng, shape, dt, op="sum"):
    """Values whose scans are exact in every type: small integers (0/1 for products)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if op == "prod":
        v = rng.choice([1, 1, 1, 2, -1] if dt.kind != "u" else [1, 1, 1, 2], size=shape)
    elif dt.kind == "u":
        v = rng.integers(0, 100, shape)
    else:
        v = rng.integers(-50, 50, shape)
    return v.astype(dt)


def assert_same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
