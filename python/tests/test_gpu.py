"""The CUDA backend through CuPy, PyTorch and JAX arrays: results of the input's type and device,
the library's current stream or stream=, results ready once that stream is synchronised.
Skipped (with the reason) without a CUDA build of pscan, a CUDA device, or the array library."""
import numpy as np
import pytest

import pscan
from conftest import ref_scan, small_values


def _cuda_usable():
    if not pscan.cuda_built():
        return "pscan was built without the CUDA backend (PSCAN_PYTHON_CUDA=ON builds it)"
    try:
        pscan.Context(backend="cuda")._get(("cuda", 0))
    except pscan.Error as e:
        return f"no usable CUDA device: {e}"
    return None


_why = _cuda_usable()
pytestmark = pytest.mark.skipif(_why is not None, reason=_why or "")


class Torch:
    name = "torch"

    def __init__(self):
        self.t = pytest.importorskip("torch")
        if not self.t.cuda.is_available():
            pytest.skip("torch sees no CUDA device")

    def put(self, a):
        return self.t.as_tensor(np.ascontiguousarray(a), device="cuda")

    def get(self, x):
        return x.cpu().numpy()

    def is_mine(self, x):
        return isinstance(x, self.t.Tensor) and x.is_cuda

    def stream(self):
        return self.t.cuda.Stream()

    def using(self, s):
        return self.t.cuda.stream(s)

    def empty(self, n, dt):
        return self.t.empty(n, dtype=getattr(self.t, np.dtype(dt).name), device="cuda")


class Cupy:
    name = "cupy"

    def __init__(self):
        self.c = pytest.importorskip("cupy")

    def put(self, a):
        # The upload runs on the current (legacy default) stream; a non-blocking stream does not
        # wait for it, so a caller that then works on one orders the two itself, as here.
        x = self.c.asarray(a)
        self.c.cuda.get_current_stream().synchronize()
        return x

    def get(self, x):
        return self.c.asnumpy(x)

    def is_mine(self, x):
        return isinstance(x, self.c.ndarray)

    def stream(self):
        return self.c.cuda.Stream(non_blocking=True)

    def using(self, s):
        return s

    def empty(self, n, dt):
        return self.c.empty(n, dt)


@pytest.fixture(params=[Torch, Cupy], ids=["torch", "cupy"])
def lib(request):
    return request.param()


DTS = [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.float32, np.float64]


@pytest.mark.parametrize("dt", DTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 1000, 1 << 20, (1 << 20) + 7])
def test_cumsum_1d(lib, rng, dt, n):
    if lib.name == "torch" and dt == np.uint32:
        pytest.skip("torch has limited uint32 support")
    a = small_values(rng, n, dt)
    r = pscan.cumsum(lib.put(a))
    assert lib.is_mine(r)
    np.testing.assert_array_equal(lib.get(r), ref_scan(a, "sum"))


@pytest.mark.parametrize("op", ["sum", "min", "max", "xor"])
def test_ops_exclusive_reverse_axis(lib, rng, op):
    a = small_values(rng, (37, 1031), np.int32, op)
    x = lib.put(a)
    for axis in (0, 1):
        for exclusive in (False, True):
            for reverse in (False, True):
                r = pscan.scan(x, op, axis=axis, exclusive=exclusive, reverse=reverse)
                np.testing.assert_array_equal(
                    lib.get(r), ref_scan(a, op, axis, exclusive=exclusive, reverse=reverse))


def test_strided_views(lib, rng):
    a = small_values(rng, (64, 300), np.float32)
    x = lib.put(a)
    views = [(x.T, a.T), (x[::2], a[::2]), (x[:, 1::3], a[:, 1::3])]
    if lib.name == "cupy":
        views.append((x[::-1, ::-2], a[::-1, ::-2]))
    for v, av in views:
        for axis in (0, 1):
            np.testing.assert_array_equal(lib.get(pscan.cumsum(v, axis=axis)),
                                          ref_scan(av, "sum", axis))


def test_out_and_in_place(lib, rng):
    a = small_values(rng, 100_000, np.float64)
    x = lib.put(a)
    out = lib.empty(100_000, np.float64)
    assert pscan.cumsum(x, out=out) is out
    pscan.cumsum(x, out=x)
    np.testing.assert_array_equal(lib.get(x), np.cumsum(a))
    np.testing.assert_array_equal(lib.get(out), np.cumsum(a))


def test_non_default_stream_result_ready_after_sync(lib, rng):
    a = small_values(rng, 1 << 24, np.int32)
    x = lib.put(a)
    s = lib.stream()
    with lib.using(s):
        r = pscan.cumsum(x)
    s.synchronize()
    np.testing.assert_array_equal(lib.get(r), np.cumsum(a))
    out = lib.empty(1 << 24, np.int64)
    pscan.cumsum(x, out=out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(lib.get(out), np.cumsum(a))


def test_compaction(lib, rng):
    a = small_values(rng, 200_003, np.int32)
    x = lib.put(a)
    np.testing.assert_array_equal(lib.get(pscan.select(x, ">", 10)), a[a > 10])
    out, k = pscan.partition(x, "<=", 0)
    m = a <= 0
    assert k == int(m.sum())
    np.testing.assert_array_equal(lib.get(out)[:k], a[m])
    runs = np.repeat(a[:1000], 3)
    v, c = pscan.run_length_encode(lib.put(runs))
    np.testing.assert_array_equal(lib.get(pscan.unique_consecutive(lib.put(runs))), lib.get(v))
    assert int(lib.get(c).sum()) == 3000


def test_reduce(lib, rng):
    for dt, op in [(np.int32, "sum"), (np.float64, "max"), (np.uint8, "xor"), (np.int64, "min")]:
        a = small_values(rng, (1000, 301), dt, op)
        got = pscan.reduce(lib.put(a), op)
        want = ref_scan(a, op, axis=None)[-1]
        assert got.dtype == want.dtype and got == want, (dt, op, got, want)
    assert pscan.reduce(lib.put(np.zeros(0, np.float32)), "sum", init=2.5) == np.float32(2.5)


def test_segmented_and_by_key(lib, rng):
    a = small_values(rng, 10_000, np.float32)
    offsets = np.array([0, 0, 17, 5000, 5001, 10_000], np.int64)
    r = pscan.segmented_scan(lib.put(a), offsets)
    want = np.concatenate([np.cumsum(a[i:j], dtype=np.float32)
                           for i, j in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_array_equal(lib.get(r), want)
    keys = np.repeat(np.arange(100, dtype=np.int32), 100)
    r = pscan.scan_by_key(lib.put(keys), lib.put(a))
    np.testing.assert_array_equal(lib.get(r), np.cumsum(a.reshape(100, 100), axis=1,
                                                        dtype=np.float32).reshape(-1))


# h[i] = a[i] h[i-1] + b[i] as the composition of affine maps (x first, then y)
AFFINE_SRC = ("typedef struct { float a, b; } affine;\n"
              "affine compose(affine x, affine y) { affine r = { x.a * y.a, y.a * x.b + y.b };"
              " return r; }\n")


def test_user_op_affine_last_axis(lib, rng):
    op = pscan.Op(AFFINE_SRC, "affine", "compose", np.dtype([("a", "f4"), ("b", "f4")]),
                  identity=(1.0, 0.0))
    n = 100_000
    a = np.ones(n, np.float32)
    b = rng.integers(-2, 3, n).astype(np.float32)
    x = lib.put(np.stack([a, b], axis=-1))
    r = lib.get(pscan.scan(x, op))
    np.testing.assert_array_equal(r[:, 1], np.cumsum(b))  # a == 1: h[i] = h[i-1] + b[i]
    final = pscan.reduce(x, op)  # the recurrence's final state, on the device, read once
    assert final.shape == (2,) and final[0] == 1 and final[1] == np.sum(b)


def test_user_op_by_key(lib, rng):
    """An affine recurrence restarting at every new key, on the device (a = +-1, b small
    integers: exact in any bracketing), and its reduction: each run's key and final state."""
    op = pscan.Op(AFFINE_SRC, "affine", "compose", np.dtype([("a", "f4"), ("b", "f4")]))
    n = 200_003
    keys = np.repeat(np.arange(n, dtype=np.int64), rng.integers(1, 40, n))[:n]
    a = rng.choice(np.array([-1.0, 1.0], np.float32), n)
    b = rng.integers(-3, 4, n).astype(np.float32)
    r = lib.get(pscan.scan_by_key(lib.put(keys), lib.put(np.stack([a, b], axis=-1)), op))
    want = np.empty((n, 2), np.float32)
    for i in range(n):
        if i == 0 or keys[i] != keys[i - 1]:
            A, B = a[i], b[i]
        else:
            A, B = A * a[i], a[i] * B + b[i]
        want[i] = (A, B)
    np.testing.assert_array_equal(r, want)
    ko, vo = pscan.reduce_by_key(lib.put(keys), lib.put(np.stack([a, b], axis=-1)), op)
    heads = np.r_[True, keys[1:] != keys[:-1]]
    ends = np.r_[np.nonzero(heads)[0][1:] - 1, n - 1]
    np.testing.assert_array_equal(lib.get(ko), keys[heads])
    np.testing.assert_array_equal(lib.get(vo), want[ends])


def test_mixed_devices_refused(lib):
    x = lib.put(np.arange(10.0))
    with pytest.raises(ValueError):
        pscan.cumsum(x, out=np.empty(10))
    with pytest.raises(ValueError):
        pscan.cumsum(np.arange(10.0), out=lib.empty(10, np.float64))
    with pytest.raises(pscan.WrongMemoryError):
        pscan.cumsum(x, ctx=pscan.Context(backend="cpu"))


def test_second_device_with_its_stream():
    """An array on a device other than the current one, scanned on a stream of that device."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    dev = torch.cuda.device_count() - 1
    a = np.arange(100_003, dtype=np.int64) % 7 - 3
    x = torch.as_tensor(a, device=f"cuda:{dev}")
    s = torch.cuda.Stream(device=dev)
    # device 0 current, as in a process that has not chosen one (on two GPUs the whole suite
    # reached this test with device 1 current, left so by an earlier test's library)
    torch.cuda.set_device(0)
    with torch.cuda.stream(s):
        r = pscan.cumsum(x)
    s.synchronize()
    assert r.device == x.device
    np.testing.assert_array_equal(r.cpu().numpy(), np.cumsum(a))
    # every call gives the caller's current device back (a device guard, as torch's own ops)
    assert torch.cuda.current_device() == 0
    r = pscan.cumsum(x, reverse=True)  # the device's current stream (its default one)
    assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(dev)
    np.testing.assert_array_equal(r.cpu().numpy(), np.cumsum(a[::-1])[::-1])
    ab = torch.stack([torch.full((1000,), 0.5, device=f"cuda:{dev}"),
                      torch.ones(1000, device=f"cuda:{dev}")], -1)
    op = pscan.Op(AFFINE_SRC, "affine", "compose", np.dtype([("a", "f4"), ("b", "f4")]))
    h = pscan.scan(ab, op)  # a user operator: compiled for this device on its first call
    assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(dev)
    np.testing.assert_allclose(h[:, 1].cpu().numpy(), 2 - 0.5 ** np.arange(1000), rtol=1e-5)


def test_torch_and_cupy_share_memory():
    torch = pytest.importorskip("torch")
    cupy = pytest.importorskip("cupy")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = cupy.empty(1000, cupy.float32)
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.cumsum(x, out=out)  # an out of another library is refused


def test_jax(rng):
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    import jax.numpy as jnp
    a = small_values(rng, (100, 1000), np.float32)
    r = pscan.cumsum(jnp.asarray(a), axis=0)
    assert isinstance(r, jax.Array)
    np.testing.assert_array_equal(np.asarray(r), np.cumsum(a, axis=0))
