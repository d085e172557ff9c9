"""pscan: parallel prefix scans and the scan-based compaction family on NumPy arrays (CPU
backend) and CUDA arrays of CuPy, PyTorch, JAX or anything exporting DLPack or
__cuda_array_interface__ (CUDA backend, zero-copy, on the array library's current stream).

Scans: cumsum, cumprod, cummin, cummax, scan (any built-in operator or a pscan.Op),
segmented_scan, scan_by_key; reduce (a scan's total, one read). Compaction: select,
select_flagged, partition, unique_consecutive, run_length_encode, reduce_by_key. Settings: pscan.Context.
Errors: pscan.Error and its subclasses (also ValueError, TypeError, MemoryError, ...).
"""

from . import _core
from ._api import (Context, Op, cummax, cummin, cumprod, cumsum, reduce, scan, scan_by_key,
                   segmented_scan)
from ._compact import (partition, reduce_by_key, run_length_encode, select, select_flagged,
                       unique_consecutive)
from ._errors import (DeviceError, DTypeError, Error, InternalError, InvalidArgumentError,
                      NoDeviceError, OutOfMemoryError, OverlapError, SizeOverflowError,
                      UnsupportedError, WrongMemoryError)

__version__ = "0.1.0"


def library_version() -> str:
    """The C library's version and the backends built in, e.g. "0.1.0 (cpu, cuda)"."""
    return _core.version()


def cuda_built() -> bool:
    """Whether this build of pscan has the CUDA backend (a GPU may still be missing)."""
    return "cuda" in _core.version()


__all__ = [
    "Context", "Op", "cumsum", "cumprod", "cummin", "cummax", "scan", "reduce", "segmented_scan",
    "scan_by_key", "select", "select_flagged", "partition", "unique_consecutive",
    "run_length_encode", "reduce_by_key", "library_version", "cuda_built",
    "Error", "InvalidArgumentError", "DTypeError", "UnsupportedError", "OverlapError",
    "SizeOverflowError", "OutOfMemoryError", "NoDeviceError", "WrongMemoryError", "DeviceError",
    "InternalError",
]
