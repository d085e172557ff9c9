"""Host arrays of PyTorch and JAX run on the CPU backend and come back as their own type.
Each test skips when its library is not installed."""
import numpy as np
import pytest

import pscan
from conftest import ref_scan, small_values


def test_torch_cpu_tensors(rng):
    torch = pytest.importorskip("torch")
    a = small_values(rng, (50, 301), np.int32)
    x = torch.from_numpy(a)
    r = pscan.cumsum(x)
    assert isinstance(r, torch.Tensor) and r.dtype == torch.int64
    np.testing.assert_array_equal(r.numpy(), np.cumsum(a, axis=-1))
    np.testing.assert_array_equal(pscan.cumsum(x.T, axis=0).numpy(), np.cumsum(a.T, axis=0))
    out = torch.empty(50, 301, dtype=torch.int32)
    assert pscan.cummax(x, axis=0, out=out) is out
    np.testing.assert_array_equal(out.numpy(), ref_scan(a, "max", 0))
    s = pscan.select(x, ">", 0)
    assert isinstance(s, torch.Tensor)
    np.testing.assert_array_equal(s.numpy(), a.reshape(-1)[a.reshape(-1) > 0])
    g = torch.ones(10, requires_grad=True)
    np.testing.assert_array_equal(pscan.cumsum(g).numpy(), np.arange(1, 11, dtype=np.float32))


def test_jax_cpu_arrays(rng):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    a = small_values(rng, 1000, np.float32)
    with jax.default_device(jax.devices("cpu")[0]):
        x = jnp.asarray(a)
        r = pscan.cumsum(x)
    assert isinstance(r, jax.Array)
    np.testing.assert_array_equal(np.asarray(r), np.cumsum(a))
