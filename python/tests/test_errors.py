"""Refusals: the right exception class and status, and nothing written."""
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pscan


def test_exception_classes():
    assert issubclass(pscan.InvalidArgumentError, ValueError)
    assert issubclass(pscan.DTypeError, TypeError)
    assert issubclass(pscan.OverlapError, ValueError)
    assert issubclass(pscan.OutOfMemoryError, MemoryError)
    assert issubclass(pscan.WrongMemoryError, ValueError)
    for cls in (pscan.InvalidArgumentError, pscan.UnsupportedError, pscan.NoDeviceError,
                pscan.DeviceError, pscan.SizeOverflowError):
        assert issubclass(cls, pscan.Error)


@pytest.mark.parametrize("dt", [np.float16, np.complex64, object, "U3"])
def test_wrong_dtype(dt):
    x = np.zeros(4, dtype=dt)
    with pytest.raises(TypeError) as e:
        pscan.cumsum(x)
    assert isinstance(e.value, pscan.DTypeError)


def test_bitwise_on_float():
    with pytest.raises(pscan.DTypeError):
        pscan.scan(np.ones(3), "xor")


def test_unknown_op_and_cmp():
    with pytest.raises(pscan.InvalidArgumentError):
        pscan.scan(np.ones(3), "median")
    with pytest.raises(ValueError):
        pscan.select(np.ones(3), "<>", 1)
    with pytest.raises(ValueError):
        pscan.select(np.ones(3), "<")


def test_overlapping_out_refused_and_unwritten():
    buf = np.arange(20, dtype=np.int64)
    before = buf.copy()
    with pytest.raises(pscan.OverlapError) as e:
        pscan.cumsum(buf[:10], out=buf[5:15])
    assert e.value.status == "PSCAN_ERR_OVERLAP"
    assert "overlap" in e.value.detail
    assert np.array_equal(buf, before)


def test_overlapping_strided_out_refused():
    m = np.arange(100, dtype=np.int64).reshape(10, 10)
    before = m.copy()
    with pytest.raises(pscan.OverlapError):
        pscan.cumsum(m[:, :5], axis=0, out=m[:, 3:8])
    assert np.array_equal(m, before)


def test_bad_out():
    x = np.arange(10, dtype=np.int64)
    with pytest.raises(ValueError):
        pscan.cumsum(x, out=np.empty(9, np.int64))
    with pytest.raises(TypeError):
        pscan.cumsum(x, out=np.empty(10, np.float32), dtype=np.int64)
    ro = np.empty(10, np.int64)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        pscan.cumsum(x, out=ro)


def test_backend_mismatch():
    ctx = pscan.Context(backend="cuda")
    with pytest.raises(pscan.WrongMemoryError):
        pscan.cumsum(np.ones(3), ctx=ctx)
    with pytest.raises(ValueError):
        pscan.Context(backend="tpu")
    with pytest.raises(ValueError):
        pscan.cumsum(np.ones(3), stream=1)


def test_mixed_devices_numpy_side():
    torch = pytest.importorskip("torch")
    x = np.ones(4)
    with pytest.raises(ValueError):
        pscan.cumsum(x, out=torch.empty(4, dtype=torch.float64))


def test_closed_context():
    ctx = pscan.Context()
    pscan.cumsum(np.ones(3), ctx=ctx)
    ctx.close()
    assert pscan.cumsum(np.ones(3), ctx=ctx).tolist() == [1, 2, 3]


def test_ctrl_c_during_long_call_does_not_corrupt(tmp_path):
    """SIGINT during a long scan: the call completes (the GIL is released, the C call is not
    interrupted), then KeyboardInterrupt is raised; the result in out= is complete."""
    script = textwrap.dedent("""
        import os, signal, threading, numpy as np, pscan
        x = np.ones(1 << 25, np.float64)
        out = np.full_like(x, -1.0)
        threading.Timer(0.005, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            for _ in range(40):
                pscan.cumsum(x, out=out)
        except KeyboardInterrupt:
            pass
        ok = out[-1] == len(x) and np.array_equal(out[:1000], np.arange(1, 1001))
        print("complete" if ok else "corrupt")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300)
    assert "complete" in r.stdout, r.stdout + r.stderr
