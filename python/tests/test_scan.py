"""Scans against NumPy: every dtype and operator, axes, shapes, strides, dtype rules, out=."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import pscan
from conftest import DTYPES, OPS, assert_same, ref_scan, small_values


def ops_for(dt):
    return OPS if np.dtype(dt).kind in "biu" else ["sum", "prod", "min", "max"]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 1, 2, 31, 33, 1000, 4097, 100_003])
def test_cumsum_1d_all_types(rng, dt, n):
    x = small_values(rng, n, dt)
    assert_same(pscan.cumsum(x), ref_scan(x, "sum"))
    assert_same(pscan.cumsum(x), np.cumsum(x))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_operator_inclusive_exclusive_init(rng, dt):
    for op in ops_for(dt):
        x = small_values(rng, 777, dt, op)
        for exclusive in (False, True):
            assert_same(pscan.scan(x, op, exclusive=exclusive), ref_scan(x, op, exclusive=exclusive))
        init = np.asarray(x[:1]).item() if len(x) else 0
        assert_same(pscan.scan(x, op, init=init), ref_scan(x, op, init=init))
        assert_same(pscan.scan(x, op, exclusive=True, init=init),
                    ref_scan(x, op, exclusive=True, init=init))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 2, 777, 100_003])
def test_reduce_is_the_scans_last_element(rng, dt, n):
    for op in ops_for(dt):
        x = small_values(rng, n, dt, op)
        got = pscan.reduce(x, op)
        want = ref_scan(x, op)[-1]
        assert got.dtype == want.dtype and (got == want or (got != got and want != want)), \
            (op, got, want)
        init = np.asarray(x[:1]).item()
        assert pscan.reduce(x, op, init=init) == ref_scan(x, op, init=init)[-1]


def test_reduce_shapes_dtypes_and_empty(rng):
    x = small_values(rng, (37, 41), np.int16)
    view = x[::-2, 1::3]  # strided, negative stride: reduced flattened in C order
    assert pscan.reduce(view) == np.sum(view) and pscan.reduce(view).dtype == np.int64
    assert pscan.reduce(view, dtype=np.int16) == np.sum(view, dtype=np.int16)
    assert pscan.reduce(np.int32(7)) == 7
    assert pscan.reduce(np.zeros(0, np.float32)) == np.float32(0)
    assert pscan.reduce(np.zeros(0, np.int32), "prod") == 1
    assert pscan.reduce(np.zeros(0, np.int64), "min") == np.iinfo(np.int64).max
    assert pscan.reduce(np.zeros((0, 3), np.float64), "max", init=-2.0) == -2.0
    assert pscan.reduce(np.array([True, False, True])) == 2
    assert np.isnan(pscan.reduce(np.array([1.0, np.nan, 3.0]), "min"))
    with pytest.raises(pscan.DTypeError):
        pscan.reduce(np.ones(4, np.float32), "xor")
    with pytest.raises(pscan.DTypeError):
        pscan.reduce(np.ones(4, np.float64), dtype=np.int32)


def test_numpy_functions_and_widening():
    for dt in DTYPES:
        x = np.arange(1, 12).astype(dt)
        assert_same(pscan.cumsum(x), np.cumsum(x))
        assert_same(pscan.cumprod(x[:5]), np.cumprod(x[:5]))
        if np.dtype(dt) != np.bool_:
            assert_same(pscan.cummin(x[::-1].copy()), np.minimum.accumulate(x[::-1]))
            assert_same(pscan.cummax(x), np.maximum.accumulate(x))
    assert pscan.cumsum(np.zeros(3, np.int8)).dtype == np.int64
    assert pscan.cumsum(np.zeros(3, np.uint16)).dtype == np.uint64
    assert pscan.cumsum(np.zeros(3, bool)).dtype == np.int64
    assert pscan.cumsum(np.zeros(3, np.float32)).dtype == np.float32
    assert pscan.cummax(np.zeros(3, np.int8)).dtype == np.int8


def test_explicit_dtype():
    x = np.arange(300, dtype=np.int16)
    assert_same(pscan.cumsum(x, dtype=np.int32), np.cumsum(x, dtype=np.int32))
    assert_same(pscan.cumsum(x, dtype=np.int16), np.cumsum(x, dtype=np.int16))  # wraps
    f = np.linspace(0, 1, 100, dtype=np.float32)
    np.testing.assert_allclose(pscan.cumsum(f, dtype=np.float64), np.cumsum(f, dtype=np.float64))
    assert_same(pscan.cumsum(np.arange(50, dtype=np.int32), dtype=np.float64),
                np.cumsum(np.arange(50, dtype=np.int32), dtype=np.float64))
    with pytest.raises(TypeError):
        pscan.cumsum(np.ones(4), dtype=np.int64)  # float -> int is not 'same_kind'


def test_wrapping_integers():
    x = np.full(1000, 100, np.int8)
    assert_same(pscan.cumsum(x, dtype=np.int8), np.cumsum(x, dtype=np.int8))
    y = np.full(100, 3, np.uint32)
    assert_same(pscan.cumprod(y, dtype=np.uint32), np.cumprod(y, dtype=np.uint32))


def test_float_random_values(rng):
    x = rng.standard_normal(1 << 16)
    np.testing.assert_allclose(pscan.cumsum(x), np.cumsum(x), rtol=1e-9, atol=1e-9 * len(x))
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(pscan.cumsum(x32, dtype=np.float64), np.cumsum(x32, dtype=np.float64),
                               rtol=1e-12, atol=1e-9)


def test_nan_propagates():
    x = np.array([3.0, np.nan, 1.0, 5.0])
    assert_same(pscan.cummin(x), np.minimum.accumulate(x))
    assert_same(pscan.cummax(x), np.maximum.accumulate(x))


@pytest.mark.parametrize("shape", [(5, 7), (3, 1, 4), (2, 3, 4, 5), (1, 100), (64, 3), (0, 4),
                                   (4, 0), (1,), (3, 2, 1, 2, 1, 2)])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_every_axis(rng, shape, op):
    x = small_values(rng, shape, np.int32, op)
    for axis in range(-len(shape), len(shape)):
        for exclusive in (False, True):
            for reverse in (False, True):
                assert_same(pscan.scan(x, op, axis=axis, exclusive=exclusive, reverse=reverse),
                            ref_scan(x, op, axis, exclusive=exclusive, reverse=reverse))


def test_axis_none_flattens_like_numpy(rng):
    x = small_values(rng, (4, 5, 6), np.float64)
    assert_same(pscan.cumsum(x, axis=None), np.cumsum(x, axis=None))
    assert_same(pscan.cumsum(x.T, axis=None), np.cumsum(x.T, axis=None))
    assert_same(pscan.cumsum(np.float64(3.0), axis=None), np.cumsum(np.float64(3.0)))


def test_zero_dim():
    assert_same(pscan.cumsum(np.array(7, np.int32), axis=None), np.array([7], np.int64))
    with pytest.raises(np.exceptions.AxisError):
        pscan.cumsum(np.array(7))
    with pytest.raises(np.exceptions.AxisError):
        pscan.cumsum(np.ones((2, 3)), axis=2)


def test_empty():
    for shp in [(0,), (0, 3), (3, 0)]:
        x = np.ones(shp, np.float32)
        assert_same(pscan.cumsum(x), np.cumsum(x, axis=-1))
        assert_same(pscan.cumsum(x, axis=0), np.cumsum(x, axis=0))


@pytest.mark.parametrize("dt", [np.int8, np.int64, np.float32, np.float64])
def test_strided_and_negative_strides(rng, dt):
    base = small_values(rng, (40, 60), dt)
    views = [base[::2], base[:, ::3], base[::-1], base[:, ::-2], base.T, base[::-3, ::-1],
             base[5:30:4, 7:50:5].T]
    for v in views:
        for axis in (0, 1, -1):
            for reverse in (False, True):
                assert_same(pscan.cumsum(v, axis=axis, reverse=reverse),
                            ref_scan(v, "sum", axis, reverse=reverse))
    v1 = base[0, ::-1]
    assert_same(pscan.cumsum(v1), np.cumsum(v1))


def test_out_given_and_strided_out(rng):
    x = small_values(rng, (6, 50), np.int64)
    out = np.empty((6, 50), np.int64)
    r = pscan.cumsum(x, axis=1, out=out)
    assert r is out
    assert_same(out, np.cumsum(x, axis=1))
    big = np.full((12, 100), -1, np.int64)
    pscan.cumsum(x, axis=0, out=big[::2, ::2])
    assert_same(big[::2, ::2], np.cumsum(x, axis=0))
    assert (big[1::2] == -1).all() and (big[::2, 1::2] == -1).all()


def test_out_aliasing_in_place(rng):
    x = small_values(rng, 5000, np.float64)
    want = np.cumsum(x)
    r = pscan.cumsum(x, out=x)
    assert r is x
    assert_same(x, want)
    m = small_values(rng, (30, 40), np.int32)
    want = np.cumsum(m, axis=0, dtype=np.int32)
    pscan.cumsum(m, axis=0, out=m)
    assert_same(m, want)


def test_out_with_its_dtype():
    x = np.arange(10, dtype=np.int32)
    out = np.empty(10, np.int32)
    pscan.cumsum(x, out=out)
    assert_same(out, np.cumsum(x, dtype=np.int32))


def test_reverse_1d(rng):
    for dt in (np.int32, np.float64, np.uint8):
        x = small_values(rng, 10_001, dt)
        assert_same(pscan.cumsum(x, reverse=True), ref_scan(x, "sum", reverse=True))
        assert_same(pscan.cummax(x, reverse=True, exclusive=True),
                    ref_scan(x, "max", exclusive=True, reverse=True))


def test_lists_and_scalars():
    assert_same(pscan.cumsum([1, 2, 3]), np.cumsum([1, 2, 3]))
    assert_same(pscan.cumsum([[1.0, 2.0], [3.0, 4.0]], axis=0), np.cumsum([[1.0, 2.0], [3.0, 4.0]], axis=0))


def test_context_settings(rng):
    x = rng.standard_normal(200_000)
    with pscan.Context(threads=2, deterministic=True) as ctx:
        a = pscan.cumsum(x, ctx=ctx)
        b = pscan.cumsum(x, ctx=ctx)
        assert np.array_equal(a, b)
    with pscan.Context(algo="sequential") as ctx:
        assert_same(pscan.cumsum(np.arange(1000), ctx=ctx), np.cumsum(np.arange(1000)))
    with pscan.Context(backend="cpu") as ctx:
        assert_same(pscan.cumsum(np.arange(10), ctx=ctx), np.cumsum(np.arange(10)))


def test_threads_each_have_a_context(rng):
    import threading
    x = rng.integers(0, 100, 300_000)
    want = np.cumsum(x)
    errors = []

    def work():
        try:
            for _ in range(20):
                assert np.array_equal(pscan.cumsum(x), want)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def test_one_context_two_threads_refused_or_served(rng):
    """A shared Context is refused (not corrupted) while another thread is using it."""
    import threading
    ctx = pscan.Context()
    x = rng.integers(0, 100, 4_000_000)
    want = np.cumsum(x)
    results = []

    def work():
        try:
            results.append(np.array_equal(pscan.cumsum(x, ctx=ctx), want))
        except pscan.InvalidArgumentError as e:
            results.append("in use" in str(e))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == [True] * 4


@settings(max_examples=150, deadline=None)
@given(hnp.arrays(dtype=st.sampled_from([np.int8, np.int32, np.uint16, np.int64, np.float64]),
                  shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=9),
                  elements=st.integers(0, 40)),
       st.data())
def test_hypothesis_axis_views(x, data):
    if x.dtype.kind != "u":
        x = (x - 20).astype(x.dtype)
    # a random view: step and direction per axis
    idx = tuple(slice(None, None, data.draw(st.sampled_from([1, 2, -1, -2]))) for _ in x.shape)
    v = x[idx]
    axis = data.draw(st.integers(-v.ndim, v.ndim - 1))
    op = data.draw(st.sampled_from(["sum", "min", "max"] + (["xor"] if v.dtype.kind != "f" else [])))
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    assert_same(pscan.scan(v, op, axis=axis, exclusive=exclusive, reverse=reverse),
                ref_scan(v, op, axis, exclusive=exclusive, reverse=reverse))


def test_mixed_kind_widening_keeps_identities():
    x = np.array([5, 3, 9], np.uint8)
    for op in ("min", "max", "sum", "prod", "and", "or", "xor"):
        for dt in (np.int16, np.int64):
            assert_same(pscan.scan(x, op, dtype=dt, exclusive=True),
                        ref_scan(x, op, dtype=dt, exclusive=True))
    b = np.array([True, False, True])
    for op in ("sum", "min", "max", "and", "or", "xor"):
        assert_same(pscan.scan(b, op, exclusive=True), ref_scan(b, op, exclusive=True))
