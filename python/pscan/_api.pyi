# Type stubs for the contexts, scans and user operators (see the docstrings in _api.py).
from typing import Any, Literal, Optional, Protocol, Sequence, TypeVar, Union

import numpy as np
import numpy.typing as npt

Array = TypeVar("Array")  # numpy.ndarray, torch.Tensor, cupy.ndarray, jax.Array, ...
OpName = Literal["sum", "add", "prod", "mul", "min", "max", "and", "or", "xor"]
Cmp = Literal["<", "<=", ">", ">=", "==", "!="]
Stream = Union[int, Any]  # a cudaStream_t as int, a torch.cuda.Stream or a cupy Stream
DTypeLike = npt.DTypeLike

class Context:
    backend: str
    threads: int
    deterministic: bool
    algo: str
    def __init__(self, backend: Literal["auto", "cpu", "cuda"] = "auto", threads: int = 0,
                 deterministic: bool = False,
                 algo: Literal["auto", "sequential", "decoupled_lookback", "chained",
                               "reduce_then_scan", "scan_then_propagate"] = "auto") -> None: ...
    def synchronize(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Context": ...
    def __exit__(self, *exc: object) -> None: ...

class Op:
    source: str
    type_name: str
    name: str
    dtype: np.dtype
    kind: Literal["combine", "predicate"]
    identity: Any
    def __init__(self, source: str, type_name: str, name: str, dtype: Optional[DTypeLike] = None,
                 kind: Literal["combine", "predicate"] = "combine",
                 identity: Any = None) -> None: ...

def scan(x: Array, op: Union[OpName, Op] = "sum", axis: Optional[int] = -1,
         dtype: Optional[DTypeLike] = None, out: Optional[Array] = None, exclusive: bool = False,
         reverse: bool = False, init: Any = None, *, ctx: Optional[Context] = None,
         stream: Optional[Stream] = None) -> Array: ...
def reduce(x: Array, op: Union[OpName, Op] = "sum", dtype: Optional[DTypeLike] = None,
           init: Any = None, *, ctx: Optional[Context] = None,
           stream: Optional[Stream] = None) -> Union[np.generic, np.ndarray]: ...
class _Running(Protocol):  # cumsum, cumprod, cummin, cummax: scan with the op fixed
    def __call__(self, x: Array, axis: Optional[int] = -1, dtype: Optional[DTypeLike] = None,
                 out: Optional[Array] = None, exclusive: bool = False, reverse: bool = False, *,
                 init: Any = None, ctx: Optional[Context] = None,
                 stream: Optional[Stream] = None) -> Array: ...
cumsum: _Running
cumprod: _Running
cummin: _Running
cummax: _Running
def segmented_scan(x: Array, offsets: Union[Array, Sequence[int]], op: OpName = "sum",
                   exclusive: bool = False, reverse: bool = False, init: Any = None, *,
                   out: Optional[Array] = None, ctx: Optional[Context] = None,
                   stream: Optional[Stream] = None) -> Array: ...
def scan_by_key(keys: Array, x: Array, op: Union[OpName, Op] = "sum", exclusive: bool = False,
                init: Any = None, *, out: Optional[Array] = None, ctx: Optional[Context] = None,
                stream: Optional[Stream] = None) -> Array: ...
