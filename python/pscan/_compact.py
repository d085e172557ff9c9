"""The compaction family: select, partition, select_flagged, unique_consecutive,
run_length_encode and reduce_by_key, on the argument handling of _api.py (one call into the C++
core, pscan._core, per operation)."""

from __future__ import annotations

import numpy as np

from . import _arrays as A
from . import _core
from . import _errors as E
from ._api import (_BITWISE, _CMPS, Op, _by_key_user, _Call, _code, _flat_pair, _op_code,
                   _value_bytes)

# ---- compaction -----------------------------------------------------------------------------

def _flat(x):
    call = _Call(x)
    call.x = A.contiguous_1d(call.x, call.fam)
    call.shape = A.shape(call.x)
    return call


def _select(x, pred_or_cmp, value, partition, ctx, stream):
    if isinstance(pred_or_cmp, Op):
        op = pred_or_cmp
        if op.kind != "predicate":
            raise E.InvalidArgumentError(detail="the Op is a combine operator, not a predicate")
        call = _Call(x)
        if call.dt.itemsize != op.dtype.itemsize:  # the last axis holds one element
            call.x = A.contiguous_1d(call.x, call.fam).reshape(-1, call.shape[-1])
        elif len(call.shape) != 1:
            call.x = A.contiguous_1d(call.x, call.fam)
        call.shape = A.shape(call.x)
        result = A.empty(call.x, call.fam, call.dev, call.shape, call.dt)
        if call.shape[0] == 0:
            return result, 0
        c = call.core_ctx(ctx, stream)
        k = _core.select(c, A.for_core(call.x, call.fam), A.for_core(A.inner(result), call.fam),
                         0, op._handle(c), op.dtype.itemsize, 0, None, partition)
        call.done(c)
        return result, k
    if pred_or_cmp not in _CMPS:
        raise E.InvalidArgumentError(detail=f"{pred_or_cmp!r}: a comparison ("
                                     f"{', '.join(_CMPS)}) or a pscan.Op predicate")
    if value is None:
        raise E.InvalidArgumentError(detail="value: required with a comparison")
    call = _flat(x)
    tc = _code(call.dt)
    value_b = _value_bytes(value, call.dt, "value")
    result = A.empty(call.x, call.fam, call.dev, call.shape, call.dt)
    if call.shape[0] == 0:
        return result, 0
    c = call.core_ctx(ctx, stream)
    k = _core.select(c, A.for_core(call.x, call.fam), A.for_core(A.inner(result), call.fam), tc,
                     0, 0, _CMPS[pred_or_cmp], value_b, partition)
    call.done(c)
    return result, k


def select(x, pred_or_cmp, value=None, *, ctx=None, stream=None):
    """The items of x (flattened) that satisfy (item cmp value) or a pscan.Op predicate, in order.

    pred_or_cmp: "<", "<=", ">", ">=", "==", "!=" (with value), or an Op of kind "predicate".
    Returns a one-dimensional array of x's library: a view of the first k items of a buffer of
    len(x) items (CUDA calls wait for the count).
    """
    result, k = _select(x, pred_or_cmp, value, False, ctx, stream)
    return _prefix(result, k)


def partition(x, pred_or_cmp, value=None, *, ctx=None, stream=None):
    """Partitions x (flattened) by a comparison or predicate: returns (out, k) where out[:k] are
    the selected items in order and out[k:] the rejected ones in reverse order."""
    result, k = _select(x, pred_or_cmp, value, True, ctx, stream)
    return A.finish(result), k


def select_flagged(x, flags, *, ctx=None, stream=None):
    """The items of x (flattened) whose flag is non-zero, in order (flags: same length, any
    integer or bool dtype, on x's device)."""
    call = _flat(x)
    tc = _code(call.dt)
    fc = _Call(A.like(flags, call.x, call.fam, call.dev))
    call.same_device(fc, "flags")
    f = A.contiguous_1d(fc.x, fc.fam)
    if fc.dt.itemsize != 1 or fc.dt.kind not in "biu":
        f = f != 0
    if A.shape(f) != call.shape:
        raise E.InvalidArgumentError(detail="flags: a different length from x")
    result = A.empty(call.x, call.fam, call.dev, call.shape, call.dt)
    if call.shape[0] == 0:
        return A.finish(result)
    c = call.core_ctx(ctx, stream)
    k = _core.select_flagged(c, A.for_core(call.x, call.fam), A.for_core(f, fc.fam),
                             A.for_core(A.inner(result), call.fam), tc)
    call.done(c)
    return _prefix(result, k)


def _prefix(result, k):
    if isinstance(result, A._JaxResult):
        return result.finish()[:k]
    return result[:k]


def unique_consecutive(x, *, ctx=None, stream=None):
    """The first item of each run of equal consecutive items of x (flattened)."""
    call = _flat(x)
    tc = _code(call.dt)
    result = A.empty(call.x, call.fam, call.dev, call.shape, call.dt)
    if call.shape[0] == 0:
        return A.finish(result)
    c = call.core_ctx(ctx, stream)
    k = _core.unique(c, A.for_core(call.x, call.fam), A.for_core(A.inner(result), call.fam), tc)
    call.done(c)
    return _prefix(result, k)


def run_length_encode(x, *, ctx=None, stream=None):
    """(values, counts): one entry per maximal run of equal consecutive items of x (flattened);
    counts are int64."""
    call = _flat(x)
    tc = _code(call.dt)
    vals = A.empty(call.x, call.fam, call.dev, call.shape, call.dt)
    counts = A.empty(call.x, call.fam, call.dev, call.shape, np.dtype(np.int64))
    if call.shape[0] == 0:
        return A.finish(vals), A.finish(counts)
    c = call.core_ctx(ctx, stream)
    k = _core.run_length_encode(c, A.for_core(call.x, call.fam),
                                A.for_core(A.inner(vals), call.fam),
                                A.for_core(A.inner(counts), call.fam), tc)
    call.done(c)
    return _prefix(vals, k), _prefix(counts, k)


def reduce_by_key(keys, vals, op="sum", *, ctx=None, stream=None):
    """(unique_keys, reductions): one entry per run of equal consecutive keys, its values
    reduced with op (in the values' dtype). op: a built-in operator's name, or a pscan.Op of
    kind "combine" on vals' elements (a structured dtype, or the rows of an (n, K) vals):
    elements of at most 64 bytes (wider ones raise pscan.UnsupportedError), on CPU and device
    arrays alike."""
    if isinstance(op, Op):  # the values are the Op's elements: no type code, no op code
        call, kc, esize = _by_key_user(keys, vals, op, "reduce_by_key")
        vtc = opc = 0
    else:
        call, kc = _flat_pair(keys, vals)
        vtc, opc, esize = _code(call.dt), _op_code(op), 0
        if opc in _BITWISE and call.dt.kind == "f":
            raise E.DTypeError(detail=f"op {op!r} is for integers and bool")
    ko = A.empty(call.x, call.fam, call.dev, kc.shape, kc.dt)
    vo = A.empty(call.x, call.fam, call.dev, call.shape, call.dt)
    if call.shape[0] == 0:
        return A.finish(ko), A.finish(vo)
    c = call.core_ctx(ctx, stream)
    k = _core.reduce_by_key(c, A.for_core(kc.x, kc.fam), _code(kc.dt, "keys"),
                            A.for_core(call.x, call.fam), vtc, A.for_core(A.inner(ko), call.fam),
                            A.for_core(A.inner(vo), call.fam), opc,
                            op._handle(c) if esize else 0, esize)
    call.done(c)
    return _prefix(ko, k), _prefix(vo, k)
