"""The compaction family and the segmented scans against plain Python / NumPy references."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import pscan
from conftest import DTYPES, UFUNCS, assert_same, ref_scan, small_values

CMPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
        "==": np.equal, "!=": np.not_equal}


def runs(x):
    """(values, counts) of maximal runs, by a Python loop."""
    vals, counts = [], []
    for v in x.tolist():
        if vals and vals[-1] == v:
            counts[-1] += 1
        else:
            vals.append(v)
            counts.append(1)
    return vals, counts


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 1, 5, 1000, 70_001])
def test_select_every_cmp(rng, dt, n):
    x = small_values(rng, n, dt)
    v = x[n // 2].item() if n else 0
    for cmp, f in CMPS.items():
        assert_same(pscan.select(x, cmp, v), x[f(x, v)])


@pytest.mark.parametrize("dt", [np.int32, np.float64, np.uint8, np.bool_])
def test_partition(rng, dt):
    x = small_values(rng, 5000, dt)
    v = x[7].item()
    out, k = pscan.partition(x, "<", v)
    m = x < v
    assert k == int(m.sum())
    assert_same(out[:k], x[m])
    assert_same(out[k:], x[~m][::-1])


def test_select_flagged_and_views(rng):
    x = small_values(rng, (30, 40), np.float32)
    flags = rng.integers(0, 2, (30, 40)).astype(np.uint8)
    assert_same(pscan.select_flagged(x, flags), x.reshape(-1)[flags.reshape(-1) != 0])
    assert_same(pscan.select_flagged(x[:, ::-2], flags[:, ::2] != 0),
                x[:, ::-2].reshape(-1)[flags[:, ::2].reshape(-1) != 0])
    wide = rng.integers(-3, 3, (30, 40))  # int64 flags: nonzero keeps
    assert_same(pscan.select_flagged(x, wide), x.reshape(-1)[wide.reshape(-1) != 0])
    assert_same(pscan.select(x[::-1], ">", 0), x[::-1][x[::-1] > 0])


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_unique_and_run_length_encode(rng, dt):
    x = np.repeat(small_values(rng, 400, dt), rng.integers(1, 5, 400))
    vals, counts = runs(x)
    assert_same(pscan.unique_consecutive(x), np.array(vals, dtype=x.dtype))
    v, c = pscan.run_length_encode(x)
    assert_same(v, np.array(vals, dtype=x.dtype))
    assert_same(c, np.array(counts, dtype=np.int64))


def test_float_nan_never_equal():
    x = np.array([np.nan, np.nan, 1.0, 1.0])
    assert pscan.unique_consecutive(x).shape == (3,)


@pytest.mark.parametrize("op", ["sum", "min", "max", "prod"])
def test_reduce_and_scan_by_key(rng, op):
    keys = np.repeat(rng.integers(0, 5, 300), rng.integers(1, 6, 300)).astype(np.int32)
    vals = small_values(rng, len(keys), np.int64, op)
    k_want, counts = runs(keys)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    r_want = [UFUNCS[op].reduce(vals[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    ko, vo = pscan.reduce_by_key(keys, vals, op)
    assert_same(ko, np.array(k_want, np.int32))
    assert_same(vo, np.array(r_want, np.int64))
    for exclusive in (False, True):
        want = np.concatenate([ref_scan(vals[a:b], op, exclusive=exclusive, dtype=np.int64)
                               for a, b in zip(bounds[:-1], bounds[1:])])
        assert_same(pscan.scan_by_key(keys, vals, op, exclusive=exclusive), want)


@pytest.mark.parametrize("dt", [np.int32, np.float64, np.uint64])
def test_segmented_scan(rng, dt):
    x = small_values(rng, 3000, dt)
    cuts = np.sort(rng.integers(0, 3000, 40))
    offsets = np.concatenate([[0], cuts, [0, 3000]])
    offsets[-2] = offsets[-3]  # an empty segment
    offsets = np.sort(offsets).astype(np.int64)
    for op in ("sum", "max"):
        for exclusive in (False, True):
            for reverse in (False, True):
                want = np.concatenate(
                    [ref_scan(x[a:b], op, exclusive=exclusive, reverse=reverse, dtype=dt)
                     for a, b in zip(offsets[:-1], offsets[1:])])
                got = pscan.segmented_scan(x, offsets, op, exclusive=exclusive, reverse=reverse)
                assert_same(got, want)
    assert_same(pscan.segmented_scan(x, offsets.tolist()), pscan.segmented_scan(x, offsets))


def test_segmented_scan_bad_offsets_write_nothing():
    x = np.arange(10.0)
    out = np.full(10, -7.0)
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.segmented_scan(x, [0, 5, 3, 10], out=out)
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.segmented_scan(x, [0, 5, 9], out=out)
    assert (out == -7.0).all()


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.int16, st.integers(0, 300), elements=st.integers(-3, 3)),
       st.sampled_from(list(CMPS)), st.integers(-3, 3))
def test_hypothesis_select_partition_unique(x, cmp, v):
    m = CMPS[cmp](x, v)
    assert_same(pscan.select(x, cmp, v), x[m])
    out, k = pscan.partition(x, cmp, v)
    assert k == int(m.sum())
    assert_same(out[:k], x[m])
    assert_same(out[k:], x[~m][::-1])
    assert_same(pscan.unique_consecutive(x), np.array(runs(x)[0], np.int16))
