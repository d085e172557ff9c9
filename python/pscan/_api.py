"""The pscan functions: argument handling with NumPy's semantics, result allocation in the
input's array library, and one call into the C++ core (pscan._core) per operation. Here the
contexts, the scans and the user operators; the compaction family is in _compact.py."""

from __future__ import annotations

import functools
import math
import threading

import numpy as np

from . import _arrays as A
from . import _core
from . import _errors as E

_core._set_errors(list(E.BY_STATUS))

# ---- element types and operators ------------------------------------------------------------

_CODES = {np.dtype(t): i for i, t in enumerate(
    ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8"])}
_CODES[np.dtype(bool)] = _CODES[np.dtype("u1")]  # bools scan as bytes holding 0 or 1

_OPS = {"sum": 0, "add": 0, "prod": 1, "mul": 1, "min": 2, "max": 3, "and": 4, "or": 5, "xor": 6}
_BITWISE = {4, 5, 6}
_CMPS = {"<": 0, "<=": 1, ">": 2, ">=": 3, "==": 4, "!=": 5}
_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
_ALGOS = {"auto": 0, "sequential": 1, "decoupled_lookback": 2, "chained": 3,
          "reduce_then_scan": 4, "scan_then_propagate": 5}
_KINDS = {"combine": 0, "predicate": 1}


def _code(dt: np.dtype, what: str = "x") -> int:
    try:
        return _CODES[dt]
    except KeyError:
        raise E.DTypeError(detail=f"{what}: dtype {dt} has no pscan kernel (bool, int8..64, "
                           "uint8..64, float32, float64)") from None


def _op_code(op) -> int:
    if isinstance(op, str) and op in _OPS:
        return _OPS[op]
    raise E.InvalidArgumentError(detail=f"op {op!r}: one of {', '.join(_OPS)} or a pscan.Op")


@functools.lru_cache(maxsize=None)
def _default_dtype(dt: np.dtype, op: int) -> np.dtype:
    """numpy's accumulate type: sum and prod widen bool and small integers to the platform
    integer (as numpy.cumsum does); the other operators keep the type."""
    if op in (0, 1) and (dt.kind in "biu"):
        ufunc = np.add if op == 0 else np.multiply
        return ufunc.accumulate(np.zeros(1, dt)).dtype
    return dt


def _pair(in_dt: np.dtype, out_dt: np.dtype, op: int):
    """The (in, out) codes the library takes for a scan from in_dt into out_dt, or None when
    the input has to be converted first."""
    ic, oc = _code(in_dt), _code(out_dt, "dtype")
    if in_dt == out_dt:
        return ic, oc
    ik, ok = in_dt.kind, out_dt.kind
    wider = out_dt.itemsize > in_dt.itemsize
    if wider and (ik == ok or (ik in "bu" and ok in "ui" and op not in (2, 3))):
        # an unsigned (or bool) input into a wider signed integer accumulates as the unsigned
        # type of that width: the same bits, since the inputs are non-negative (not for min and
        # max, whose identities differ between the two)
        unsigned = {1: "u1", 2: "u2", 4: "u4", 8: "u8"}[out_dt.itemsize]
        return ic, _CODES[np.dtype(unsigned)] if (ik in "bu" and ok == "i") else oc
    if ik == "b" and ok == "u" and out_dt.itemsize == 1:
        return ic, oc
    return None


def _value_bytes(v, dt: np.dtype, what: str) -> bytes:
    try:
        return np.asarray(v, dtype=dt).reshape(()).tobytes() if dt.fields is None \
            else np.array(v if isinstance(v, (tuple, np.void)) else tuple(v), dtype=dt).tobytes()
    except (TypeError, ValueError, OverflowError) as e:
        raise E.InvalidArgumentError(detail=f"{what}: {e}") from None


# ---- contexts -------------------------------------------------------------------------------

class Context:
    """Settings for pscan calls and the library contexts that serve them.

    A Context makes one library context per (backend, device) it is used with, on first use,
    and keeps it (with its scratch memory and compiled operators) until the Context is closed
    or collected. A Context serves one thread at a time; the functions' default (ctx=None) is a
    per-thread Context, so threads never share one.

    backend: "auto" (NumPy and other host arrays on the CPU backend, CUDA arrays on the CUDA
    backend), "cpu" or "cuda" (arrays of the other kind are then refused with WrongMemoryError).
    threads: CPU worker threads, 0 = all cores. deterministic: bitwise reproducible float
    results. algo: "auto", "sequential", "decoupled_lookback", "chained", "reduce_then_scan",
    "scan_then_propagate".
    """

    def __init__(self, backend: str = "auto", threads: int = 0, deterministic: bool = False,
                 algo: str = "auto"):
        if backend not in _BACKENDS:
            raise E.InvalidArgumentError(detail=f"backend {backend!r}: auto, cpu or cuda")
        if algo not in _ALGOS:
            raise E.InvalidArgumentError(detail=f"algo {algo!r}: one of {', '.join(_ALGOS)}")
        if not isinstance(threads, int) or threads < 0:
            raise E.InvalidArgumentError(detail="threads: a non-negative int")
        self.backend, self.threads = backend, threads
        self.deterministic, self.algo = bool(deterministic), algo
        self._ctxs: dict = {}

    def __repr__(self):
        return (f"pscan.Context(backend={self.backend!r}, threads={self.threads}, "
                f"deterministic={self.deterministic}, algo={self.algo!r})")

    def _get(self, dev: tuple[str, int]):
        c = self._ctxs.get(dev)
        if c is None:
            kind, ident = dev
            if self.backend != "auto" and self.backend != kind:
                raise E.WrongMemoryError(detail=f"a {kind} array given to a Context of the "
                                         f"{self.backend} backend")
            c = _core.Ctx(_BACKENDS[kind], ident, self.threads, self.deterministic,
                          _ALGOS[self.algo])
            self._ctxs[dev] = c
        return c

    def synchronize(self):
        """Waits for all work queued by this Context (CUDA calls return before they finish)."""
        for c in self._ctxs.values():
            c.synchronize()

    def close(self):
        """Frees the library contexts now (they are made again on next use)."""
        for c in self._ctxs.values():
            c.close()
        self._ctxs.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_local = threading.local()


def _context(ctx) -> Context:
    if ctx is not None:
        if not isinstance(ctx, Context):
            raise E.InvalidArgumentError(detail="ctx: a pscan.Context")
        return ctx
    c = getattr(_local, "ctx", None)
    if c is None:
        c = _local.ctx = Context()
    return c


class _Call:
    """One input array and everything a call needs to know about it."""

    __slots__ = ("x", "fam", "dev", "dt", "shape")

    def __init__(self, x, what="x"):
        self.x, self.fam = A.as_array(x)
        self.dev = A.device(self.x, self.fam)
        self.dt = A.dtype(self.x, self.fam)
        self.shape = A.shape(self.x)

    def same_device(self, other, what):
        if other.dev != self.dev:
            raise E.WrongMemoryError(detail=f"{what} is on {other.dev[0]}:{other.dev[1]}, "
                                     f"x on {self.dev[0]}:{self.dev[1]}")

    def core_ctx(self, ctx, stream):
        c = _context(ctx)._get(self.dev)
        if self.dev[0] == A.CUDA:
            A.ready(self.x, self.fam)
            c.set_stream(A.stream_of(self.fam, self.dev, stream))
        elif stream is not None:
            raise E.InvalidArgumentError(detail="stream= is for CUDA arrays")
        return c

    def done(self, c):
        if self.dev[0] == A.CUDA and A.sync_after(self.fam):
            c.synchronize()


def _out(call: _Call, out, shp, dt, what="out"):
    """A result array: out checked (library, device, shape, dtype, writable), or a new one."""
    if out is None:
        return A.empty(call.x, call.fam, call.dev, shp, dt)
    o = _Call(out)
    if o.fam != call.fam and not (call.fam == "numpy" and isinstance(out, np.ndarray)):
        raise E.InvalidArgumentError(detail=f"{what}: a {type(out).__name__} for a "
                                     f"{type(call.x).__name__} input")
    call.same_device(o, what)
    if o.shape != tuple(shp):
        raise E.InvalidArgumentError(detail=f"{what}: shape {o.shape}, expected {tuple(shp)}")
    if o.dt != dt:
        raise E.DTypeError(detail=f"{what}: dtype {o.dt}, expected {dt}")
    if not A.writable(out, o.fam):
        raise E.InvalidArgumentError(detail=f"{what}: not writable")
    return out


def _axis(axis, ndim):
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise E.InvalidArgumentError(detail=f"axis {axis!r}: an int or None")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim)
    return int(axis) % ndim


# ---- scans ----------------------------------------------------------------------------------

def _scan_types(call, op, dtype, out_dt):
    """(op code, result dtype, (in, out) type codes) of a scan or reduction of call.x with the
    built-in op, as NumPy types them; call.x is converted where pscan has no kernel from its type
    to the result's."""
    opc = _op_code(op)
    in_dt = call.dt
    _code(in_dt)
    if dtype is not None:
        res_dt = np.dtype(dtype)
    elif out_dt is not None:
        res_dt = out_dt
    else:
        res_dt = _default_dtype(in_dt, opc)
    _code(res_dt, "dtype")
    if res_dt == np.bool_ and opc in (0, 1):
        opc = 5 if opc == 0 else 4  # a bool sum is "or", a bool product "and" (as numpy)
    if opc in _BITWISE and res_dt.kind == "f":
        raise E.DTypeError(detail=f"op {op!r} is for integers and bool, not {res_dt}")
    codes = _pair(in_dt, res_dt, opc)
    if codes is None:
        if not np.can_cast(in_dt, res_dt, "same_kind"):
            raise E.DTypeError(detail=f"cannot scan {in_dt} as {res_dt} (casting rule "
                               "'same_kind', as numpy)")
        call.x = A.astype(call.x, call.fam, res_dt)
        codes = _pair(res_dt, res_dt, opc)
    return opc, res_dt, codes


def reduce(x, op="sum", dtype=None, init=None, *, ctx=None, stream=None):
    """The reduction of all of x (flattened, C order) with a built-in operator or a pscan.Op:
    init ⊕ x[0] ⊕ ... ⊕ x[-1], what the last element of pscan.scan(x, op, axis=None,
    dtype=dtype, init=init) would be, with x read once and nothing stored. op and dtype as in
    scan (a sum of int32 is int64, as numpy.sum; dtype is not taken with an Op). An empty x
    gives init, or the operator's identity (an Op without one refuses). Float sums and
    products may combine in another order than the scan's (the last bits may differ).
    Returns a NumPy scalar of the result dtype — with an Op, one element of op.dtype, or for an
    array that holds elements along its last axis, a NumPy array of that axis's length; for a
    CUDA array the call waits for the total. The final state of a linear recurrence is
    reduce(pairs, affine_op).
    """
    if isinstance(op, Op):
        if dtype is not None:
            raise E.InvalidArgumentError(detail="reduce: dtype is not taken with a pscan.Op")
        return _reduce_user(x, op, init, ctx, stream)
    call = _Call(x)
    call.x = A.ravel(call.x, call.fam)
    call.shape = (math.prod(call.shape),)
    opc, res_dt, codes = _scan_types(call, op, dtype, None)
    init_b = None if init is None else _value_bytes(init, res_dt, "init")
    c = call.core_ctx(ctx, stream)
    total = _core.reduce(c, A.for_core(call.x, call.fam), codes[0], codes[1], opc, init_b)
    return np.frombuffer(total, dtype=res_dt)[0]


def _user_call(x, op, fn):
    """The call of a combine Op on x: (call, element size, whether x's last axis holds the
    element)."""
    if op.kind != "combine":
        raise E.InvalidArgumentError(detail=f"{fn}: the Op is a predicate, not a combine operator")
    call = _Call(x)
    esize = op.dtype.itemsize
    if call.dt.fields is None and call.dt.kind not in "biuf":
        raise E.DTypeError(detail=f"x: dtype {call.dt}")
    return call, esize, call.dt.itemsize != esize


def _reduce_user(x, op, init, ctx, stream):
    call, esize, elem_last = _user_call(x, op, "reduce")
    if elem_last and (len(call.shape) == 0 or call.shape[-1] * call.dt.itemsize != esize):
        raise E.InvalidArgumentError(detail=f"x: its last axis does not hold one {op.dtype} "
                                     "element")
    call.x = A.contiguous_1d(call.x, call.fam)
    if elem_last:
        call.x = call.x.reshape(-1, call.shape[-1])
    init_b = None if init is None else _value_bytes(init, op.dtype, "init")
    c = call.core_ctx(ctx, stream)
    total = _core.reduce_op(c, A.for_core(call.x, call.fam), op._handle(c), esize, init_b)
    if elem_last:
        return np.frombuffer(total, dtype=call.dt).copy()
    return np.frombuffer(total, dtype=op.dtype)[0]


def scan(x, op="sum", axis=-1, dtype=None, out=None, exclusive=False, reverse=False, init=None,
         *, ctx=None, stream=None):
    """Inclusive (or exclusive) scan of x along axis with a built-in operator or a pscan.Op.

    op: "sum", "prod", "min", "max", "and", "or", "xor" (integers and bool), or a pscan.Op of
    kind "combine". axis: the dimension scanned (every line independently); None scans x
    flattened (C order), as numpy.cumsum does. dtype: accumulation and result type; by default
    as NumPy: sum and prod widen bool and integers narrower than the platform integer to int64
    (uint64 for unsigned), min/max/and/or/xor keep the type. out: an array of x's library and
    device, of the result's shape and dtype; it may be x itself (in place). exclusive: out[i]
    combines the items before i (out[0] is init, or the operator's identity). reverse: scans
    from the end of the axis. init: a value folded in before the first item.
    ctx: a pscan.Context (default: this thread's). stream: for CUDA arrays, the cudaStream_t
    (int, torch or cupy stream) to enqueue on; default the array library's current stream.
    Returns out, or a new array of x's library on x's device.
    """
    if isinstance(op, Op):
        return _scan_user(x, op, axis, out, exclusive, reverse, init, ctx, stream)
    call = _Call(x)
    if axis is None:
        call.x = A.ravel(call.x, call.fam)
        call.shape = (math.prod(call.shape),)
        axis = 0
    elif len(call.shape) == 0:
        raise np.exceptions.AxisError(int(axis) if isinstance(axis, int) else 0, 0)
    else:
        axis = _axis(axis, len(call.shape))
    opc, res_dt, codes = _scan_types(call, op, dtype,
                                     A.dtype(out, A.family(out)) if out is not None else None)
    result = _out(call, out, call.shape, res_dt)
    if init is None and exclusive and res_dt == np.bool_ and opc in (2, 4):
        init = True  # the byte type's identity (0xff) is not a bool: True is
    init_b = None if init is None else _value_bytes(init, res_dt, "init")
    if math.prod(call.shape) == 0:
        return A.finish(result)
    c = call.core_ctx(ctx, stream)
    _core.scan(c, A.for_core(call.x, call.fam), A.for_core(A.inner(result), call.fam),
               codes[0], codes[1], axis, opc, 0, 0, bool(exclusive), bool(reverse), init_b)
    call.done(c)
    return A.finish(result)


def _scan_user(x, op, axis, out, exclusive, reverse, init, ctx, stream):
    call, esize, elem_last = _user_call(x, op, "scan")
    dims = len(call.shape) - (1 if elem_last else 0)
    if dims < 0:
        raise E.InvalidArgumentError(detail="x: no axis holds the operator's elements")
    if axis is None:
        if dims != 1:
            call.x = A.contiguous_1d(call.x, call.fam)
            if elem_last:
                call.x = call.x.reshape(-1, call.shape[-1])
            call.shape = A.shape(call.x)
        axis = 0
    else:
        if dims == 0:
            raise np.exceptions.AxisError(int(axis), 0)
        axis = _axis(axis, dims)
    result = _out(call, out, call.shape, call.dt)
    init_b = None if init is None else _value_bytes(init, op.dtype, "init")
    if math.prod(call.shape) == 0:
        return A.finish(result)
    c = call.core_ctx(ctx, stream)
    handle = op._handle(c)
    _core.scan(c, A.for_core(call.x, call.fam), A.for_core(A.inner(result), call.fam), 0, 0,
               axis, 0, handle, esize, bool(exclusive), bool(reverse), init_b)
    call.done(c)
    return A.finish(result)


def _running(op, doc):
    """cumsum, cumprod, cummin, cummax: scan(x, op, ...) under their own name."""
    def running(x, axis=-1, dtype=None, out=None, exclusive=False, reverse=False, *, init=None,
                ctx=None, stream=None):
        return scan(x, op, axis, dtype, out, exclusive, reverse, init, ctx=ctx, stream=stream)
    running.__name__ = running.__qualname__ = "cum" + op
    running.__doc__ = f"{doc} along axis: scan(x, {op!r}, ...). See pscan.scan."
    return running


cumsum = _running("sum", "Cumulative sum")
cumprod = _running("prod", "Cumulative product")
cummin = _running("min", "Running minimum (NaN propagates)")
cummax = _running("max", "Running maximum (NaN propagates)")


def segmented_scan(x, offsets, op="sum", exclusive=False, reverse=False, init=None, *, out=None,
                   ctx=None, stream=None):
    """Scans each segment [offsets[s], offsets[s+1]) of x (one-dimensional) independently.

    offsets: num_segments + 1 non-decreasing int64 entries from 0 to len(x) (a list or NumPy
    array is moved to x's library and device). The result has x's dtype.
    """
    call = _Call(x)
    call.x = A.contiguous_1d(call.x, call.fam)
    call.shape = A.shape(call.x)
    tc = _code(call.dt)
    opc = _op_code(op)
    if opc in _BITWISE and call.dt.kind == "f":
        raise E.DTypeError(detail=f"op {op!r} is for integers and bool")
    offs = A.like(offsets, call.x, call.fam, call.dev)
    oc = _Call(offs)
    call.same_device(oc, "offsets")
    if oc.dt != np.int64:
        offs = A.astype(offs, oc.fam, np.dtype(np.int64))
    offs = A.contiguous_1d(offs, oc.fam)
    # the library takes n from offsets[-1]: one shorter than x would leave out's tail unwritten
    # (on a GPU this reads one value back)
    last = int(offs[-1]) if A.shape(offs)[0] else -1
    if last != call.shape[0]:
        raise E.InvalidArgumentError(detail=f"offsets: the last entry is {last}, len(x) is "
                                     f"{call.shape[0]} (num_segments + 1 entries from 0 to n)")
    result = _out(call, out, call.shape, call.dt)
    init_b = None if init is None else _value_bytes(init, call.dt, "init")
    c = call.core_ctx(ctx, stream)
    _core.segmented_scan(c, A.for_core(call.x, call.fam), A.for_core(A.inner(result), call.fam),
                         A.for_core(offs, oc.fam), tc, opc, bool(exclusive), bool(reverse), init_b)
    call.done(c)
    return A.finish(result)


def scan_by_key(keys, x, op="sum", exclusive=False, init=None, *, out=None, ctx=None,
                stream=None):
    """A scan of x (one-dimensional) that restarts at every run of equal consecutive keys.
    The result has x's dtype.

    op: a built-in operator's name, or a pscan.Op of kind "combine" on x's elements (a
    structured dtype, or the rows of an (n, K) x; keys then holds n keys): elements of at most
    64 bytes (wider ones raise pscan.UnsupportedError), on CPU and device arrays alike."""
    if isinstance(op, Op):  # x's elements are the Op's: no type code, no op code
        call, kc, esize = _by_key_user(keys, x, op, "scan_by_key")
        tc = opc = 0
        init_b = None if init is None else _value_bytes(init, op.dtype, "init")
    else:
        call, kc = _flat_pair(keys, x)
        tc, opc, esize = _code(call.dt), _op_code(op), 0
        if opc in _BITWISE and call.dt.kind == "f":
            raise E.DTypeError(detail=f"op {op!r} is for integers and bool")
        init_b = None if init is None else _value_bytes(init, call.dt, "init")
    result = _out(call, out, call.shape, call.dt)
    kcode = _code(kc.dt, "keys")
    if call.shape[0] == 0:
        return A.finish(result)
    c = call.core_ctx(ctx, stream)
    _core.scan_by_key(c, A.for_core(kc.x, kc.fam), kcode, A.for_core(call.x, call.fam),
                      A.for_core(A.inner(result), call.fam), tc, opc, bool(exclusive), init_b,
                      op._handle(c) if esize else 0, esize)
    call.done(c)
    return A.finish(result)


def _flat_pair(keys, x):
    call = _Call(x)
    call.x = A.contiguous_1d(call.x, call.fam)
    call.shape = A.shape(call.x)
    kc = _Call(keys)
    call.same_device(kc, "keys")
    kc.x = A.contiguous_1d(kc.x, kc.fam)
    kc.shape = A.shape(kc.x)
    if kc.shape != call.shape:
        raise E.InvalidArgumentError(detail=f"keys has {kc.shape[0]} items, x {call.shape[0]}")
    _code(call.dt)
    return call, kc


def _by_key_user(keys, x, op, fn):
    """The call of a combine Op on the values x of a by-key operation: (call over n elements,
    one-dimensional or (n, K), the keys' call, the element size)."""
    call, esize, elem_last = _user_call(x, op, fn)
    if elem_last and (len(call.shape) != 2 or call.shape[-1] * call.dt.itemsize != esize):
        raise E.InvalidArgumentError(detail=f"x: an (n, K) array whose rows are {op.dtype} "
                                     "elements, or a one-dimensional array of them")
    if not elem_last and len(call.shape) != 1:
        raise E.InvalidArgumentError(detail="x: one-dimensional")
    call.x = A.contiguous_1d(call.x, call.fam)
    if elem_last:
        call.x = call.x.reshape(-1, call.shape[-1])
    call.shape = A.shape(call.x)
    kc = _Call(keys)
    call.same_device(kc, "keys")
    kc.x = A.contiguous_1d(kc.x, kc.fam)
    kc.shape = A.shape(kc.x)
    if kc.shape[0] != call.shape[0]:
        raise E.InvalidArgumentError(detail=f"keys has {kc.shape[0]} items, x {call.shape[0]} "
                                     "elements")
    return call, kc, esize


# ---- user operators -------------------------------------------------------------------------

_C_SCALARS = {"float": "f4", "double": "f8", "int8_t": "i1", "int16_t": "i2", "int32_t": "i4",
              "int64_t": "i8", "uint8_t": "u1", "uint16_t": "u2", "uint32_t": "u4",
              "uint64_t": "u8", "int": "i4", "unsigned": "u4", "long long": "i8"}


class Op:
    """A user operator or predicate given as C source (valid C11 and CUDA C alike), compiled by
    the library for each context it is used with (once; cached in memory and on disk).

    source: defines type_name (unless it is a C scalar type) and the function name.
    kind "combine": ``T name(T a, T b)``, associative (need not be commutative), for scan.
    kind "predicate": ``int name(T x)``, for select and partition.
    dtype: the element type as NumPy sees it: a structured dtype laid out as the C struct, e.g.
    ``np.dtype([("a", "f4"), ("b", "f4")])``, or a scalar dtype; may be omitted for C scalar
    type names. Arrays without structured dtypes (torch, cupy) give each element as their last
    axis: shape (..., 2) float32 for that struct.
    identity: the operator's identity element (a tuple or scalar in dtype), needed by exclusive
    scans without init; on the GPU an operator given with its identity also runs faster (4-30%:
    the kernels then combine it instead of carrying an "empty" flag), so it must be an identity
    for the data bit for bit (an affine map's (1, 0) is not where a is inf).
    """

    def __init__(self, source: str, type_name: str, name: str, dtype=None, kind: str = "combine",
                 identity=None):
        if kind not in _KINDS:
            raise E.InvalidArgumentError(detail=f"kind {kind!r}: combine or predicate")
        if dtype is None:
            if type_name not in _C_SCALARS:
                raise E.InvalidArgumentError(detail=f"dtype: needed for type {type_name!r}")
            dtype = _C_SCALARS[type_name]
        self.source, self.type_name, self.name = str(source), str(type_name), str(name)
        self.dtype = np.dtype(dtype)
        self.kind = kind
        self.identity = identity
        self._identity_b = None if identity is None else _value_bytes(identity, self.dtype,
                                                                       "identity")

    def __repr__(self):
        return f"pscan.Op({self.type_name!r}, {self.name!r}, dtype={self.dtype}, kind={self.kind!r})"

    def _handle(self, core_ctx) -> int:
        return _core.user_op(core_ctx, _KINDS[self.kind], self.source, self.type_name, self.name,
                             self.dtype.itemsize, self._identity_b)
