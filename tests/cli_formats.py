"""The file formats and the Python references of tests/test_cli.py: .npy files written and read
by hand with struct (so that the tests also check the format byte by byte), raw and text files
read, and every expected result computed independently of the library: scans with wrap-around
integer arithmetic, runs, comparisons, and the per-line sums along an axis."""

import struct

# dtype -> (struct code, numpy descr without byte order, integer bits or None)
TYPES = {
    "i8": ("b", "i1", 8), "i16": ("h", "i2", 16), "i32": ("i", "i4", 32), "i64": ("q", "i8", 64),
    "u8": ("B", "u1", 8), "u16": ("H", "u2", 16), "u32": ("I", "u4", 32), "u64": ("Q", "u8", 64),
    "f32": ("f", "f4", None), "f64": ("d", "f8", None),
}
INTS = [t for t in TYPES if TYPES[t][2]]


# ---- files, read and written by hand ----

def npy_bytes(values, dtype, order="<", version=(1, 0), shape=None, fortran=False, descr=None,
              dict_text=None):
    code, kind, _ = TYPES[dtype]
    if descr is None:
        descr = ("|" if struct.calcsize(code) == 1 else order) + kind
    if shape is None:
        shape = f"({len(values)},)"
    if dict_text is None:
        dict_text = f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}"
    prefix = 10 if version[0] == 1 else 12
    header = dict_text + " " * ((-(prefix + len(dict_text) + 1)) % 64) + "\n"
    size = struct.pack("<H" if version[0] == 1 else "<I", len(header))
    data = struct.pack((">" if order == ">" else "<") + code * len(values), *values)
    return b"\x93NUMPY" + bytes(version) + size + header.encode() + data


def read_npy(p):
    """(dtype, values) of a .npy file the tool wrote: version 1.0, little endian, 1-D."""
    with open(p, "rb") as f:
        b = f.read()
    assert b[:8] == b"\x93NUMPY\x01\x00", b[:8]
    hlen = struct.unpack("<H", b[8:10])[0]
    assert (10 + hlen) % 64 == 0
    d = eval(b[10:10 + hlen].decode())  # a dict literal written by the tool
    assert d["fortran_order"] is False and len(d["shape"]) == 1
    descr = d["descr"]
    dtype = next(t for t, (c, k, _) in TYPES.items() if k == descr[1:])
    code = TYPES[dtype][0]
    n = d["shape"][0]
    data = b[10 + hlen:]
    assert len(data) == n * struct.calcsize(code)
    return dtype, list(struct.unpack("<" + code * n, data))


def read_text(p, floats=False):
    with open(p) as f:
        return [float(x) if floats else int(x) for x in f.read().split()]


def read_raw(p, dtype):
    code = TYPES[dtype][0]
    with open(p, "rb") as f:
        b = f.read()
    return list(struct.unpack("<" + code * (len(b) // struct.calcsize(code)), b))


def read_npy_nd(p):
    """(dtype, shape, values) of a .npy file of any dimension that the tool wrote."""
    with open(p, "rb") as f:
        b = f.read()
    hlen = struct.unpack("<H", b[8:10])[0]
    d = eval(b[10:10 + hlen].decode())  # a dict literal written by the tool
    dtype = next(t for t, (c, k, _) in TYPES.items() if k == d["descr"][1:])
    code = TYPES[dtype][0]
    n = 1
    for e in d["shape"]:
        n *= e
    return dtype, d["shape"], list(struct.unpack("<" + code * n, b[10 + hlen:]))


def axis_reference(values, shape, axis, reverse, exclusive):
    """A plain per-line cumulative sum of a C-ordered array (the test's oracle)."""
    inner = 1
    for e in shape[axis + 1:]:
        inner *= e
    length, out = shape[axis], list(values)
    for start in range(len(values)):
        if (start // inner) % length:  # not the first element of its line
            continue
        idx = [start + i * inner for i in range(length)]
        if reverse:
            idx.reverse()
        acc = 0
        for i in idx:
            x = values[i]
            out[i] = acc if exclusive else acc + x
            acc += x
    return out


# ---- the reference ----

def wrap(v, dtype):
    bits = TYPES[dtype][2]
    if bits is None:
        return v
    v &= (1 << bits) - 1
    return v - (1 << bits) if dtype[0] == "i" and v >= 1 << (bits - 1) else v


def identity(op, dtype):
    bits = TYPES[dtype][2]
    if op in ("sum", "or", "xor"):
        return 0
    if op == "prod":
        return 1
    if op == "and":
        return wrap(-1, dtype)
    if bits is None:
        return float("inf") if op == "min" else float("-inf")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype[0] == "i" else (0, (1 << bits) - 1)
    return hi if op == "min" else lo


OPS = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b, "min": min, "max": max,
       "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}


def ref_scan(xs, op, dtype, exclusive=False, init=None):
    f = OPS[op]
    acc = identity(op, dtype) if init is None else init
    out = []
    for i, x in enumerate(xs):
        if exclusive:
            out.append(acc)
            acc = wrap(f(acc, x), dtype)
        else:
            acc = wrap(f(acc, x), dtype) if (i > 0 or init is not None) else wrap(x, dtype)
            out.append(acc)
    return out


def runs(keys):
    """[(start, end)] of the runs of equal consecutive keys."""
    out, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[i - 1]:
            out.append((start, i))
            start = i
    return out


CMPS = {"lt": lambda x, v: x < v, "le": lambda x, v: x <= v, "gt": lambda x, v: x > v,
        "ge": lambda x, v: x >= v, "eq": lambda x, v: x == v, "ne": lambda x, v: x != v}
