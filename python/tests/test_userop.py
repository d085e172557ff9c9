"""User operators from source (pscan.Op) against Python loops: a non-commutative operator
(affine maps: linear recurrences) on structured and last-axis layouts, predicates."""
import numpy as np
import pytest

import pscan

AFFINE_SRC = """
typedef struct { double a, b; } affine;
affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b }; return r; }
"""
AFFINE = np.dtype([("a", "f8"), ("b", "f8")])
POSITIVE_SRC = "typedef struct { double a, b; } affine;\nint positive_b(affine x) { return x.b > 0; }\n"


def affine_op():
    return pscan.Op(AFFINE_SRC, "affine", "compose", AFFINE, identity=(1.0, 0.0))


def compose_loop(a, b, exclusive=False):
    """out[i] = fold of (a, b) maps up to i: (A, B) with h = A*h0 + B."""
    A, B = 1.0, 0.0
    out = np.empty((len(a), 2))
    for i in range(len(a)):
        if exclusive:
            out[i] = (A, B)
        A, B = A * a[i], a[i] * B + b[i]
        if not exclusive:
            out[i] = (A, B)
    return out


def test_linear_recurrence_structured(rng):
    n = 5000
    a = rng.uniform(0.9, 1.0, n)
    b = rng.integers(-3, 4, n).astype(float)
    x = np.empty(n, AFFINE)
    x["a"], x["b"] = a, b
    r = pscan.scan(x, affine_op())
    assert r.dtype == AFFINE and r.shape == (n,)
    want = compose_loop(a, b)
    np.testing.assert_allclose(r["a"], want[:, 0], rtol=1e-9)
    np.testing.assert_allclose(r["b"], want[:, 1], rtol=1e-9, atol=1e-9)
    e = pscan.scan(x, affine_op(), exclusive=True)
    want = compose_loop(a, b, exclusive=True)
    np.testing.assert_allclose(e["b"], want[:, 1], rtol=1e-9, atol=1e-9)


def test_last_axis_elements_and_axis(rng):
    x = np.stack([rng.uniform(0.5, 1.0, (7, 300)), rng.integers(-2, 3, (7, 300)).astype(float)],
                 axis=-1)  # shape (7, 300, 2): 7 lines of 300 affine maps
    r = pscan.scan(x, affine_op(), axis=-1)
    assert r.shape == x.shape
    for i in range(7):
        np.testing.assert_allclose(r[i], compose_loop(x[i, :, 0], x[i, :, 1]), rtol=1e-9, atol=1e-9)
    r0 = pscan.scan(x, affine_op(), axis=0)
    for j in (0, 150, 299):
        np.testing.assert_allclose(r0[:, j], compose_loop(x[:, j, 0], x[:, j, 1]), rtol=1e-9,
                                   atol=1e-9)


def test_float_scalar_op(rng):
    op = pscan.Op("float maxabs(float a, float b) { float x = a < 0 ? -a : a;"
                  " float y = b < 0 ? -b : b; return x > y ? x : y; }", "float", "maxabs")
    x = rng.integers(-50, 50, 1000).astype(np.float32)
    want = x.copy()  # an inclusive scan starts from x[0] itself, then folds with the operator
    for i in range(1, len(x)):
        want[i] = max(abs(want[i - 1]), abs(x[i]))
    np.testing.assert_array_equal(pscan.scan(x, op), want)


def test_predicate_select_partition(rng):
    x = np.empty(2000, AFFINE)
    x["a"] = np.arange(2000)
    x["b"] = rng.integers(-5, 5, 2000)
    pred = pscan.Op(POSITIVE_SRC, "affine", "positive_b", AFFINE, kind="predicate")
    got = pscan.select(x, pred)
    assert np.array_equal(got, x[x["b"] > 0])
    out, k = pscan.partition(x, pred)
    assert np.array_equal(out[:k], x[x["b"] > 0])
    assert np.array_equal(out[k:], x[x["b"] <= 0][::-1])


def test_compile_error_is_invalid_argument():
    bad = pscan.Op("float f(float a, float b) { return a + ; }", "float", "f")
    with pytest.raises(pscan.InvalidArgumentError) as e:
        pscan.scan(np.ones(4, np.float32), bad)
    assert e.value.detail


def test_element_size_mismatch():
    with pytest.raises(ValueError):
        pscan.scan(np.ones((4, 3), np.float64), affine_op())


def test_reduce_with_an_op(rng):
    """pscan.reduce with an Op: the scan's last element (the recurrence's final state), from init,
    on both layouts; an empty input gives init or the identity, and refuses without either."""
    n = 20000
    a = rng.choice([-1.0, 1.0], n)
    b = rng.integers(-8, 9, n).astype(float)  # exact in any bracketing
    x = np.empty(n, AFFINE)
    x["a"], x["b"] = a, b
    want = compose_loop(a, b)[-1]
    got = pscan.reduce(x, affine_op())
    assert got.dtype == AFFINE and (got["a"], got["b"]) == tuple(want)
    init = (2.0, -3.0)
    got = pscan.reduce(x, affine_op(), init=init)
    A, B = want
    assert (got["a"], got["b"]) == (init[0] * A, A * init[1] + B)
    pairs = np.stack([a, b], axis=-1)  # shape (n, 2): the element along the last axis
    last = pscan.reduce(pairs, affine_op())
    assert last.shape == (2,) and tuple(last) == tuple(want)
    empty = pscan.reduce(np.empty(0, AFFINE), affine_op())
    assert (empty["a"], empty["b"]) == (1.0, 0.0)
    no_identity = pscan.Op(AFFINE_SRC, "affine", "compose", AFFINE)
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.reduce(np.empty(0, AFFINE), no_identity)
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.reduce(x, affine_op(), dtype=np.float64)
    pred = pscan.Op(POSITIVE_SRC, "affine", "positive_b", AFFINE, kind="predicate")
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.reduce(x, pred)


AFFINE_U32_SRC = """
typedef struct { unsigned a, b; } affine32;
affine32 compose32(affine32 x, affine32 y) {
  affine32 r = { x.a * y.a, y.a * x.b + y.b };
  return r;
}
"""
AFFINE_U32 = np.dtype([("a", "u4"), ("b", "u4")])


def runs_loop(keys, m, exclusive=False, init=None):
    """Each run of equal keys scanned alone, affine maps mod 2^32 (exact, not commutative)."""
    out = np.empty((len(keys), 2), np.uint64)
    acc = None
    for i in range(len(keys)):
        if i == 0 or keys[i] != keys[i - 1]:
            acc = init
        x = (int(m[i, 0]), int(m[i, 1]))
        if exclusive:
            out[i] = acc
        acc = x if acc is None else ((acc[0] * x[0]) & 0xFFFFFFFF,
                                     (x[0] * acc[1] + x[1]) & 0xFFFFFFFF)
        if not exclusive:
            out[i] = acc
    return out.astype(np.uint32)


@pytest.mark.parametrize("n", [0, 1, 2, 5000])
def test_by_key_with_an_op(rng, n):
    keys = np.repeat(np.arange(n), rng.integers(1, 9, n))[:n].astype(np.int32)
    m = rng.integers(0, 2**32, (n, 2), dtype=np.uint64).astype(np.uint32)
    op = pscan.Op(AFFINE_U32_SRC, "affine32", "compose32", AFFINE_U32, identity=(1, 0))
    r = pscan.scan_by_key(keys, m, op)
    assert r.shape == (n, 2) and r.dtype == np.uint32
    np.testing.assert_array_equal(r, runs_loop(keys, m))
    e = pscan.scan_by_key(keys, m, op, exclusive=True)
    np.testing.assert_array_equal(e, runs_loop(keys, m, exclusive=True, init=(1, 0)))
    i = pscan.scan_by_key(keys, m, op, init=(3, 5))
    np.testing.assert_array_equal(i, runs_loop(keys, m, init=(3, 5)))
    s = np.empty(n, AFFINE_U32)  # the same maps as a structured array
    s["a"], s["b"] = m[:, 0], m[:, 1]
    rs = pscan.scan_by_key(keys, s, op)
    assert rs.dtype == AFFINE_U32 and rs.shape == (n,)
    np.testing.assert_array_equal(np.stack([rs["a"], rs["b"]], axis=-1), r)
    ko, vo = pscan.reduce_by_key(keys, m, op)
    heads = np.r_[True, keys[1:] != keys[:-1]] if n else np.zeros(0, bool)
    ends = np.r_[np.nonzero(heads)[0][1:] - 1, n - 1] if n else np.zeros(0, int)
    np.testing.assert_array_equal(ko, keys[heads])
    assert vo.shape == (len(ko), 2)
    np.testing.assert_array_equal(vo, r[ends])


def test_by_key_op_wide_elements(rng):
    """16-byte affine maps of float64 (integer-valued: exact) by key, and 72-byte ones refused."""
    n = 3000
    keys = np.repeat(np.arange(n), rng.integers(1, 12, n))[:n]
    x = np.empty(n, AFFINE)
    x["a"], x["b"] = rng.choice([-1.0, 1.0], n), rng.integers(-50, 51, n).astype(float)
    r = pscan.scan_by_key(keys, x, affine_op())
    want = np.empty((n, 2))
    for i in range(n):
        start = i == 0 or keys[i] != keys[i - 1]
        A, B = (x["a"][i], x["b"][i]) if start else (A * x["a"][i], x["a"][i] * B + x["b"][i])
        want[i] = (A, B)
    np.testing.assert_array_equal(np.stack([r["a"], r["b"]], axis=-1), want)
    big = pscan.Op("typedef struct { double v[9]; } nine;\n"
                   "nine right(nine a, nine b) { (void)a; return b; }\n", "nine", "right",
                   np.dtype([("v", "f8", 9)]))
    with pytest.raises(pscan.UnsupportedError, match="at most 64"):
        pscan.scan_by_key(np.zeros(10, np.int32), np.ones((10, 9)), big)


def test_by_key_op_refusals(rng):
    keys = np.zeros(10, np.int32)
    with pytest.raises(ValueError, match="keys has 9 items"):
        pscan.reduce_by_key(keys[:9], np.ones((10, 2), np.uint32),
                            pscan.Op(AFFINE_U32_SRC, "affine32", "compose32", AFFINE_U32))
