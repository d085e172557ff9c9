"""What pscan needs to know about each array library: the element type and device of an array,
how to hand it to the C++ core, how to allocate a result of the same library on the same device,
and which CUDA stream that library is working on. Libraries are imported only when an array of
theirs is seen, so none of them is a dependency."""

from __future__ import annotations

import sys

import numpy as np

from . import _errors

CPU, CUDA = "cpu", "cuda"

# kDLCPU 1, kDLCUDA 2, kDLCUDAHost 3 (pinned host memory), kDLCUDAManaged 13
_DL_CPU = (1, 3)
_DL_CUDA = (2, 13)


# The array libraries' own types, by type: a dictionary lookup instead of the tests below on
# every call (a small call's overhead is measured in microseconds: docs/PERFORMANCE.md).
_FAMILY_OF_TYPE: dict = {np.ndarray: "numpy"}


def family(x) -> str:
    """'numpy', 'torch', 'cupy', 'jax', 'cai' (anything with __cuda_array_interface__), 'dlpack'."""
    f = _FAMILY_OF_TYPE.get(type(x))
    if f is not None:
        return f
    if isinstance(x, np.ndarray):
        return "numpy"
    mod = type(x).__module__.partition(".")[0]
    if mod in ("torch", "cupy"):
        _FAMILY_OF_TYPE[type(x)] = mod
        return mod
    if mod in ("jax", "jaxlib"):
        _FAMILY_OF_TYPE[type(x)] = "jax"
        return "jax"
    if hasattr(x, "__cuda_array_interface__"):
        return "cai"
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return "dlpack"
    return "numpy"


def as_array(x):
    """x itself when it is an array of a supported library, else numpy.asarray(x)."""
    f = family(x)
    if f == "numpy" and not isinstance(x, np.ndarray):
        return np.asarray(x), f
    return x, f


def device(x, fam: str) -> tuple[str, int]:
    if fam == "numpy":
        return CPU, 0
    if fam == "torch":
        if x.is_cuda:  # cheaper than building a torch.device: the per-call overhead matters
            return CUDA, x.get_device()
        d = x.device
        if d.type == "cuda":
            return CUDA, d.index if d.index is not None else 0
        if d.type == "cpu":
            return CPU, 0
        raise _errors.WrongMemoryError(detail=f"torch device {d} is neither cpu nor cuda")
    if fam == "cupy":
        return CUDA, x.device.id
    if fam == "cai":
        return CUDA, _cai_device(x)
    kind, ident = x.__dlpack_device__()
    kind = int(kind)
    if kind in _DL_CPU:
        return CPU, 0
    if kind in _DL_CUDA:
        return CUDA, int(ident)
    raise _errors.WrongMemoryError(detail=f"DLPack device type {kind} is neither CPU nor CUDA")


def _cai_device(x) -> int:
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            return cupy.cuda.runtime.pointerGetAttributes(
                x.__cuda_array_interface__["data"][0]).device
        except Exception:  # noqa: BLE001 - not every pointer can be asked
            pass
    return 0


_TORCH_DTYPES: dict = {}  # torch.dtype -> np.dtype, filled on first sight


def dtype(x, fam: str) -> np.dtype:
    if fam == "torch":
        t = x.dtype
        dt = _TORCH_DTYPES.get(t)
        if dt is None:
            try:
                dt = _TORCH_DTYPES[t] = np.dtype(str(t).rpartition(".")[2])
            except TypeError:
                raise _errors.DTypeError(detail=f"torch dtype {t} has no pscan kernel") from None
        return dt
    if fam == "cai":
        return np.dtype(x.__cuda_array_interface__["typestr"])
    return np.dtype(x.dtype)


def shape(x) -> tuple:
    if isinstance(x, np.ndarray):  # a tuple of ints already
        return x.shape
    return tuple(map(int, x.shape))


def for_core(x, fam: str):
    """What the C++ core imports: the array (DLPack / buffer protocol) or a raw descriptor
    (address, shape, byte strides or None, itemsize) where those cannot describe it."""
    if fam == "numpy":
        if x.dtype.fields is not None or x.dtype.kind == "V":
            ai = x.__array_interface__
            return (ai["data"][0], x.shape, x.strides, x.dtype.itemsize)
        return x
    if fam == "torch":  # its own accessors are much faster than its Python-level __dlpack__
        es = x.element_size()
        return (x.data_ptr(), tuple(x.shape), tuple([s * es for s in x.stride()]), es)
    if fam == "cupy":
        return (x.data.ptr, x.shape, x.strides, x.itemsize)
    if fam == "cai":
        ai = x.__cuda_array_interface__
        return (ai["data"][0], tuple(ai["shape"]), None if ai.get("strides") is None
                else tuple(ai["strides"]), np.dtype(ai["typestr"]).itemsize)
    return x


def writable(x, fam: str) -> bool:
    if fam == "numpy":
        return bool(x.flags.writeable)
    if fam == "jax":
        return False
    if fam == "cai":
        return not x.__cuda_array_interface__["data"][1]
    return True


# ---- allocation -----------------------------------------------------------------------------

# NumPy dtype -> torch dtype, filled as dtypes are seen (a result's allocation is part of every
# call without out=: docs/PERFORMANCE.md, "Python call overhead and streams").
_TORCH_DTYPE_OF: dict = {}


def _torch_dtype(torch, dt: np.dtype):
    tdt = _TORCH_DTYPE_OF.get(dt)
    if tdt is None:
        if dt.fields is not None:
            raise _errors.DTypeError(detail="torch has no structured dtypes")
        tdt = _TORCH_DTYPE_OF[dt] = getattr(torch, "bool" if dt == np.bool_ else dt.name)
    return tdt


def _torch_empty(like, shp: tuple, dt: np.dtype):
    """A C-contiguous tensor on like's device, made from like (torch.empty_like or new_empty):
    ~2 us where torch.empty(..., device=like.device) takes ~5-7 (building the device object and
    parsing the arguments)."""
    import torch
    tdt = _torch_dtype(torch, dt)
    if tdt == like.dtype and like.shape == shp and like.is_contiguous():
        return torch.empty_like(like)  # (a contiguous like: so is the result)
    return like.new_empty(shp, dtype=tdt)


def empty(like, fam: str, dev: tuple[str, int], shp: tuple, dt: np.dtype):
    """An uninitialised C-contiguous array of like's library, on like's device."""
    if fam == "numpy":
        return np.empty(shp, dt)
    if fam == "torch":
        return _torch_empty(like, tuple(shp), dt)
    if fam == "cupy":
        import cupy
        if cupy.cuda.runtime.getDevice() == dev[1]:
            return cupy.empty(shp, dt)
        with cupy.cuda.Device(dev[1]):
            return cupy.empty(shp, dt)
    if fam == "jax":
        return _JaxResult(shp, dt, dev)
    return _cuda_empty(shp, dt, dev)


def _cuda_empty(shp, dt, dev):
    try:
        import cupy
        with cupy.cuda.Device(dev[1]):
            return cupy.empty(shp, dt)
    except ImportError:
        pass
    try:
        import torch
        return torch.empty(shp, dtype=_torch_dtype(torch, dt), device=f"cuda:{dev[1]}")
    except ImportError:
        raise _errors.UnsupportedError(
            detail="a result for this array type needs CuPy or PyTorch to allocate it") from None


class _JaxResult:
    """JAX arrays are immutable: pscan writes into a buffer of another library (NumPy on the CPU,
    CuPy or PyTorch on a GPU) and hands it to JAX through DLPack (zero-copy on the GPU)."""

    def __init__(self, shp, dt, dev):
        self.dev = dev
        self.buf = np.empty(shp, dt) if dev[0] == CPU else _cuda_empty(shp, dt, dev)
        self.fam = family(self.buf)

    def finish(self):
        import jax
        import jax.numpy as jnp
        if self.dev[0] == CPU:
            return jnp.asarray(self.buf)
        return jax.dlpack.from_dlpack(self.buf)


def finish(out):
    return out.finish() if isinstance(out, _JaxResult) else out


def inner(out):
    """The array the core writes: out itself, or the buffer behind a JAX result."""
    return out.buf if isinstance(out, _JaxResult) else out


# ---- reshaping and conversion ---------------------------------------------------------------

def ravel(x, fam: str):
    """x as one dimension (a view where the library can, else a copy)."""
    if fam in ("numpy", "cupy", "jax", "torch"):
        return x.reshape(-1)
    raise _errors.UnsupportedError(detail=f"cannot reshape a {type(x).__name__}; pass a CuPy or "
                                   "PyTorch array, or axis=-1")


def contiguous_1d(x, fam: str):
    """x flattened into a contiguous one-dimensional array (a copy only where needed)."""
    if fam == "numpy":
        return np.ascontiguousarray(x).reshape(-1)
    if fam == "torch":
        return x.reshape(-1).contiguous()
    if fam == "cupy":
        import cupy
        return cupy.ascontiguousarray(x).reshape(-1)
    if fam == "jax":
        return x.reshape(-1)
    if len(shape(x)) == 1:
        return x
    raise _errors.UnsupportedError(detail=f"cannot flatten a {type(x).__name__}")


def astype(x, fam: str, dt: np.dtype):
    if fam == "torch":
        import torch
        return x.to(_torch_dtype(torch, dt))
    if fam in ("numpy", "cupy", "jax"):
        return x.astype(dt)
    raise _errors.UnsupportedError(detail=f"cannot convert a {type(x).__name__} to {dt}")


def like(obj, x, fam: str, dev):
    """obj (a list, NumPy array or an array of x's library) as an array of x's library on its device."""
    f = family(obj)
    if f == fam and (f != "numpy" or isinstance(obj, np.ndarray)):
        return obj
    a = np.asarray(obj)
    if fam == "numpy":
        return a
    if fam == "torch":
        import torch
        return torch.as_tensor(a, device=x.device)
    if fam == "cupy":
        import cupy
        with cupy.cuda.Device(dev[1]):
            return cupy.asarray(a)
    if fam == "jax":
        import jax.numpy as jnp
        return jnp.asarray(a)
    return obj


# ---- streams --------------------------------------------------------------------------------

def stream_of(fam: str, dev: tuple[str, int], stream) -> int:
    """The cudaStream_t (as an int) the call is enqueued on: stream= when given, else the array
    library's current stream on that device (0, the legacy default stream, for others)."""
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attr in ("cuda_stream", "ptr"):
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        raise _errors.InvalidArgumentError(detail="stream: an int (cudaStream_t), a torch or a "
                                           "cupy stream")
    if fam == "torch":
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:  # the handle without a Stream object: a few microseconds less
            return raw(dev[1])
        return torch.cuda.current_stream(dev[1]).cuda_stream
    if fam == "cupy":
        import cupy
        with cupy.cuda.Device(dev[1]):
            return cupy.cuda.get_current_stream().ptr
    return 0


def sync_after(fam: str) -> bool:
    """JAX does not expose its stream: its arrays are made ready before and the result waited for."""
    return fam == "jax"


def ready(x, fam: str):
    if fam == "jax":
        x.block_until_ready()
