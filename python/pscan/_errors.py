"""Exceptions: one class per pscan_status, each also a subclass of the built-in exception that
Python users expect for that kind of failure (ValueError, TypeError, MemoryError, ...)."""

from __future__ import annotations

__all__ = [
    "Error", "InvalidArgumentError", "DTypeError", "UnsupportedError", "OverlapError",
    "SizeOverflowError", "OutOfMemoryError", "NoDeviceError", "WrongMemoryError",
    "DeviceError", "InternalError",
]


class Error(Exception):
    """Base class of every pscan failure.

    Attributes:
        status: the C status name, e.g. ``"PSCAN_ERR_OVERLAP"``.
        detail: the one-line explanation (``pscan_last_error`` for refusals by the library).
    """

    status = "PSCAN_ERR_INTERNAL"

    def __init_subclass__(cls, status: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if status is not None:  # class XError(Error, ..., status="PSCAN_ERR_X")
            cls.status = status

    def __init__(self, status: str | None = None, detail: str = ""):
        if status is not None:
            self.status = status
        self.detail = detail
        super().__init__(f"{self.status}: {detail}" if detail else self.status)

    def __reduce__(self):
        return (type(self), (self.status, self.detail))


class InvalidArgumentError(Error, ValueError, status="PSCAN_ERR_INVALID_ARGUMENT"):
    """PSCAN_ERR_INVALID_ARGUMENT: a value, shape or combination the call does not accept."""


class DTypeError(InvalidArgumentError, TypeError):
    """An element type pscan has no kernel for (float16, complex, object, ...), or a dtype the
    operation does not accept (bitwise operators on floats). Also a TypeError."""


class UnsupportedError(Error, NotImplementedError, status="PSCAN_ERR_UNSUPPORTED"):
    """PSCAN_ERR_UNSUPPORTED: a valid request this build or backend cannot serve."""


class OverlapError(Error, ValueError, status="PSCAN_ERR_OVERLAP"):
    """PSCAN_ERR_OVERLAP: input and output overlap without being the same array."""


class SizeOverflowError(Error, OverflowError, status="PSCAN_ERR_OVERFLOW"):
    """PSCAN_ERR_OVERFLOW: a size does not fit in size_t."""


class OutOfMemoryError(Error, MemoryError, status="PSCAN_ERR_OUT_OF_MEMORY"):
    """PSCAN_ERR_OUT_OF_MEMORY."""


class NoDeviceError(Error, RuntimeError, status="PSCAN_ERR_NO_DEVICE"):
    """PSCAN_ERR_NO_DEVICE: the CUDA backend was asked for and no GPU is usable."""


class WrongMemoryError(Error, ValueError, status="PSCAN_ERR_WRONG_MEMORY"):
    """PSCAN_ERR_WRONG_MEMORY: arrays on different devices, or memory the backend cannot reach."""


class DeviceError(Error, RuntimeError, status="PSCAN_ERR_DEVICE"):
    """PSCAN_ERR_DEVICE: a CUDA runtime or driver error."""


class InternalError(Error, RuntimeError, status="PSCAN_ERR_INTERNAL"):
    """PSCAN_ERR_INTERNAL."""


# Indexed by the numeric pscan_status (PSCAN_OK is 0 and has no class).
BY_STATUS = [None, InvalidArgumentError, UnsupportedError, OverlapError, SizeOverflowError,
             OutOfMemoryError, NoDeviceError, WrongMemoryError, DeviceError, InternalError]
