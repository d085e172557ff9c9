// pscan._core: the small C++ core under the Python package. It imports arrays (DLPack, buffer
// protocol, or a raw descriptor the Python layer builds for __cuda_array_interface__ and
// structured NumPy arrays), turns shapes and strides into the C API's element strides, calls the
// library with the GIL released and raises the package's exception classes on a failed status.
// Everything about array libraries (dtype defaults, allocation, streams) lives in Python.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "pscan.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// The list of exception classes indexed by pscan_status; kept for the life of the process (a
// static nb::object would be released after the interpreter has finalised).
PyObject *g_errors = nullptr;

[[noreturn]] void raise_status(pscan_status s, const std::string &detail) {
  nb::object cls;
  if (g_errors && (size_t)s < (size_t)PyList_GET_SIZE(g_errors))
    cls = nb::borrow(PyList_GET_ITEM(g_errors, (Py_ssize_t)s));
  if (!cls.is_valid() || cls.is_none())
    throw std::runtime_error(std::string(pscan_status_name(s)) + ": " + detail);
  nb::object exc = cls(nb::str(pscan_status_name(s)), nb::str(detail.c_str()));
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw nb::python_error();
}

[[noreturn]] void refuse(const std::string &detail) { raise_status(PSCAN_ERR_INVALID_ARGUMENT, detail); }

// ---- contexts -------------------------------------------------------------------------------

struct Ctx {
  pscan_ctx *ctx = nullptr;
  void *stream = nullptr;
  std::atomic<bool> busy{false};
  std::unordered_map<std::string, pscan_user_op *> ops;

  Ctx(int backend, int device, int threads, bool deterministic, int algo) {
    pscan_status s = pscan_create(&ctx, (pscan_backend)backend);
    if (s != PSCAN_OK)
      raise_status(s, pscan_last_error(nullptr));
    struct { pscan_param p; int64_t v; } params[] = {
        {PSCAN_PARAM_THREADS, threads}, {PSCAN_PARAM_DETERMINISTIC, deterministic ? 1 : 0},
        {PSCAN_PARAM_ALGO, algo}};
    if (pscan_get_backend(ctx) == PSCAN_BACKEND_CUDA && device != 0)
      check_param(PSCAN_PARAM_DEVICE, device);
    for (auto &pv : params)
      if (pv.v != 0)
        check_param(pv.p, pv.v);
  }
  Ctx(const Ctx &) = delete;
  Ctx &operator=(const Ctx &) = delete;
  ~Ctx() { close(); }

  void close() {
    for (auto &kv : ops)
      pscan_op_destroy(kv.second);
    ops.clear();
    pscan_destroy(ctx);
    ctx = nullptr;
  }
  void check_param(pscan_param p, int64_t v) {
    pscan_status s = pscan_set_param(ctx, p, v);
    if (s != PSCAN_OK) {
      std::string msg = pscan_last_error(ctx);
      close();
      raise_status(s, msg);
    }
  }
  pscan_ctx *get() {
    if (!ctx)
      raise_status(PSCAN_ERR_INVALID_ARGUMENT, "the context is closed");
    return ctx;
  }

  // Runs one library call with the GIL released; a context serves one thread at a time.
  template <class F> void run(F f) {
    pscan_ctx *c = get();
    if (busy.exchange(true))
      raise_status(PSCAN_ERR_INVALID_ARGUMENT,
                   "this Context is in use by another thread (use one Context per thread)");
    pscan_status s;
    std::string msg;
    {
      nb::gil_scoped_release unlocked;
      s = f(c);
      if (s != PSCAN_OK)
        msg = pscan_last_error(c);
    }
    busy.store(false);
    if (s != PSCAN_OK)
      raise_status(s, msg);
  }

  void set_stream(uintptr_t st) {
    void *p = reinterpret_cast<void *>(st);
    if (p == stream)
      return;
    run([&](pscan_ctx *c) { return pscan_set_stream(c, p); });
    stream = p;
  }
};

// ---- arrays ---------------------------------------------------------------------------------

constexpr int MAXD = PSCAN_MAX_DIMS + 1;  // + the axis that holds one user element

struct View {
  nb::ndarray<nb::ro> keep;  // the imported array, alive for the call
  char *ptr = nullptr;
  int ndim = 0;
  int64_t shape[MAXD] = {};
  int64_t bstrides[MAXD] = {};  // in bytes
  size_t itemsize = 0;
};

// A raw descriptor from the Python layer: (address, shape, byte strides or None, itemsize).
void from_raw(View &v, nb::tuple t, const char *what) {
  if (nb::len(t) != 4)
    refuse(std::string(what) + ": a raw array descriptor has 4 fields");
  v.ptr = reinterpret_cast<char *>(nb::cast<uintptr_t>(t[0]));
  nb::tuple shape = nb::cast<nb::tuple>(t[1]);
  v.itemsize = nb::cast<size_t>(t[3]);
  v.ndim = (int)nb::len(shape);
  if (v.ndim > MAXD)
    refuse(std::string(what) + ": too many dimensions");
  for (int i = 0; i < v.ndim; i++)
    v.shape[i] = nb::cast<int64_t>(shape[i]);
  if (t[2].is_none()) {
    int64_t s = (int64_t)v.itemsize;
    for (int i = v.ndim - 1; i >= 0; i--) {
      v.bstrides[i] = s;
      s *= v.shape[i];
    }
  } else {
    nb::tuple st = nb::cast<nb::tuple>(t[2]);
    for (int i = 0; i < v.ndim; i++)
      v.bstrides[i] = nb::cast<int64_t>(st[i]);
  }
}

View view_of(nb::handle h, const char *what) {
  View v;
  if (nb::isinstance<nb::tuple>(h)) {
    from_raw(v, nb::borrow<nb::tuple>(h), what);
    return v;
  }
  if (!nb::try_cast(h, v.keep))
    raise_status(PSCAN_ERR_INVALID_ARGUMENT,
                 std::string(what) +
                     ": not an array pscan can read (DLPack, the buffer protocol or "
                     "__cuda_array_interface__)");
  v.ptr = (char *)v.keep.data();
  v.ndim = (int)v.keep.ndim();
  if (v.ndim > MAXD)
    refuse(std::string(what) + ": too many dimensions");
  v.itemsize = v.keep.itemsize();
  for (int i = 0; i < v.ndim; i++) {
    v.shape[i] = (int64_t)v.keep.shape(i);
    v.bstrides[i] = v.keep.stride(i) * (int64_t)v.itemsize;
  }
  return v;
}

// The array as elements of esize bytes: its items, or (when its items are smaller) its last axis
// holding one element. Gives the shape and the strides in elements.
int elements(const View &v, size_t esize, const char *what, int64_t *shape, int64_t *strides) {
  int nd = v.ndim;
  if (v.itemsize != esize) {
    if (nd < 1 || v.shape[nd - 1] * (int64_t)v.itemsize != (int64_t)esize ||
        (v.shape[nd - 1] > 1 && v.bstrides[nd - 1] != (int64_t)v.itemsize))
      refuse(std::string(what) + ": elements of " + std::to_string(esize) +
             " bytes need the items to match or a contiguous last axis holding one element");
    nd--;
  }
  for (int i = 0; i < nd; i++) {
    shape[i] = v.shape[i];
    if (v.bstrides[i] % (int64_t)esize != 0)
      refuse(std::string(what) + ": a stride is not a multiple of the element size");
    strides[i] = v.bstrides[i] / (int64_t)esize;
  }
  return nd;
}

// A one-dimensional contiguous run of elements: its length.
size_t flat(const View &v, size_t esize, const char *what) {
  int64_t shape[MAXD], strides[MAXD];
  int nd = elements(v, esize, what, shape, strides);
  if (nd != 1 || (shape[0] > 1 && strides[0] != 1))
    refuse(std::string(what) + ": expected a contiguous one-dimensional array");
  return (size_t)shape[0];
}

size_t type_size(int t) {
  size_t s = pscan_dtype_size((pscan_dtype)t);
  if (s == 0)
    refuse("unknown pscan dtype code " + std::to_string(t));
  return s;
}

const void *bytes_ptr(nb::handle b, size_t want, const char *what) {
  if (b.is_none())
    return nullptr;
  nb::bytes by = nb::borrow<nb::bytes>(b);
  if (by.size() != want)
    refuse(std::string(what) + ": " + std::to_string(by.size()) + " bytes, expected " +
           std::to_string(want));
  return by.c_str();
}

const pscan_user_op *as_op(uintptr_t h) { return reinterpret_cast<const pscan_user_op *>(h); }

// ---- scans ----------------------------------------------------------------------------------

// in and out have the same shape (checked by the caller); one line along axis is one scan.
void scan(Ctx &c, nb::handle in_h, nb::handle out_h, int in_type, int out_type, int axis, int op,
          uintptr_t user_op, size_t esize, bool exclusive, bool reverse, nb::object init_h) {
  View in = view_of(in_h, "x"), out = view_of(out_h, "out");
  size_t in_es = user_op ? esize : type_size(in_type);
  size_t out_es = user_op ? esize : type_size(out_type);
  int64_t shape[MAXD], ist[MAXD], oshape[MAXD], ost[MAXD];
  int nd = elements(in, in_es, "x", shape, ist);
  int ond = elements(out, out_es, "out", oshape, ost);
  if (nd != ond || std::memcmp(shape, oshape, sizeof(int64_t) * (size_t)nd) != 0)
    refuse("out: its shape differs from the result's");
  if (nd < 1)
    refuse("x: a scan needs at least one dimension");
  if (axis < 0)
    axis += nd;
  if (axis < 0 || axis >= nd)
    refuse("axis out of range");
  const void *init = bytes_ptr(init_h, out_es, "init");
  int64_t lines = 1;
  for (int i = 0; i < nd; i++)
    if (i != axis)
      lines *= shape[i];
  int64_t n = shape[axis];
  bool single = !reverse && (lines == 1 || n == 0) &&
                (n <= 1 || (ist[axis] == 1 && ost[axis] == 1));
  if (single) {  // one contiguous line: the plain 1-D calls
    if (lines == 0)
      n = 0;
    if (user_op)
      c.run([&](pscan_ctx *x) {
        return pscan_scan_op(x, in.ptr, out.ptr, (size_t)n, as_op(user_op), exclusive, init);
      });
    else
      c.run([&](pscan_ctx *x) {
        pscan_scan_args a = {in.ptr, (pscan_dtype)in_type, out.ptr, (pscan_dtype)out_type,
                             (size_t)n, (pscan_op)op, exclusive, init};
        return pscan_scan(x, &a);
      });
    return;
  }
  pscan_axis_args a = {};
  a.in = in.ptr, a.in_type = (pscan_dtype)in_type, a.in_strides = ist;
  a.out = out.ptr, a.out_type = (pscan_dtype)out_type, a.out_strides = ost;
  a.ndim = nd, a.shape = shape, a.axis = axis, a.op = (pscan_op)op, a.user_op = as_op(user_op);
  a.exclusive = exclusive, a.reverse = reverse, a.init = init;
  c.run([&](pscan_ctx *x) { return pscan_scan_axis(x, &a); });
}

// The total of a contiguous one-dimensional x (pscan_reduce), as out_type's bytes. A CUDA
// array's total comes back to the host: the call waits for it.
nb::bytes reduce(Ctx &c, nb::handle in_h, int in_type, int out_type, int op, nb::object init_h) {
  View in = view_of(in_h, "x");
  size_t n = flat(in, type_size(in_type), "x");
  size_t out_es = type_size(out_type);
  const void *init = bytes_ptr(init_h, out_es, "init");
  uint64_t total = 0;
  c.run([&](pscan_ctx *x) {
    pscan_scan_args a = {in.ptr,  (pscan_dtype)in_type, nullptr, (pscan_dtype)out_type,
                         n,       (pscan_op)op,         0,       init};
    return pscan_reduce(x, &a, &total);
  });
  return nb::bytes((const char *)&total, out_es);
}

// The total of a contiguous one-dimensional x with a user operator (pscan_reduce_op), as the
// element's bytes; init: the element's bytes or None (an empty x then needs the op's identity).
nb::bytes reduce_op(Ctx &c, nb::handle in_h, uintptr_t user_op, size_t esize, nb::object init_h) {
  View in = view_of(in_h, "x");
  size_t n = flat(in, esize, "x");
  const void *init = bytes_ptr(init_h, esize, "init");
  std::vector<char> total(esize);
  c.run([&](pscan_ctx *x) {
    return pscan_reduce_op(x, in.ptr, n, as_op(user_op), init, total.data());
  });
  return nb::bytes(total.data(), esize);
}

void segmented_scan(Ctx &c, nb::handle in_h, nb::handle out_h, nb::handle off_h, int type, int op,
                    bool exclusive, bool reverse, nb::object init_h) {
  View in = view_of(in_h, "x"), out = view_of(out_h, "out"), off = view_of(off_h, "offsets");
  size_t es = type_size(type);
  size_t n = flat(in, es, "x");
  if (flat(out, es, "out") != n)
    refuse("out: its length differs from x's");
  size_t m = flat(off, 8, "offsets");
  if (m < 1)
    refuse("offsets: needs num_segments + 1 >= 1 entries");
  const void *init = bytes_ptr(init_h, es, "init");
  c.run([&](pscan_ctx *x) {
    return pscan_segmented_scan(x, in.ptr, out.ptr, (pscan_dtype)type, (pscan_op)op,
                                (const int64_t *)off.ptr, m - 1, exclusive, reverse, init);
  });
}

// With user_op, x's elements are the operator's (esize bytes) and type and op are unused.
void scan_by_key(Ctx &c, nb::handle keys_h, int key_type, nb::handle in_h, nb::handle out_h,
                 int type, int op, bool exclusive, nb::object init_h, uintptr_t user_op,
                 size_t esize) {
  View keys = view_of(keys_h, "keys"), in = view_of(in_h, "x"), out = view_of(out_h, "out");
  size_t vs = user_op ? esize : type_size(type);
  size_t n = flat(in, vs, "x");
  if (flat(keys, type_size(key_type), "keys") != n || flat(out, vs, "out") != n)
    refuse("keys, x and out must have the same length");
  const void *init = bytes_ptr(init_h, vs, "init");
  c.run([&](pscan_ctx *x) {
    if (user_op)
      return pscan_scan_by_key_op(x, keys.ptr, (pscan_dtype)key_type, in.ptr, out.ptr, n,
                                  as_op(user_op), exclusive, init);
    return pscan_scan_by_key(x, keys.ptr, (pscan_dtype)key_type, in.ptr, out.ptr, n,
                             (pscan_dtype)type, (pscan_op)op, exclusive, init);
  });
}

// ---- compaction -----------------------------------------------------------------------------

size_t select_if(Ctx &c, nb::handle in_h, nb::handle out_h, int type, uintptr_t pred, size_t esize,
              int cmp, nb::object value_h, bool partition) {
  View in = view_of(in_h, "x"), out = view_of(out_h, "out");
  size_t es = pred ? esize : type_size(type);
  size_t n = flat(in, es, "x");
  if (flat(out, es, "out") != n)
    refuse("out: its length differs from x's");
  size_t k = 0;
  if (pred) {
    c.run([&](pscan_ctx *x) {
      return partition ? pscan_partition_op(x, in.ptr, out.ptr, n, as_op(pred), &k)
                       : pscan_select_op(x, in.ptr, out.ptr, n, as_op(pred), &k);
    });
    return k;
  }
  const void *value = bytes_ptr(value_h, es, "value");
  c.run([&](pscan_ctx *x) {
    return partition ? pscan_partition_if(x, in.ptr, out.ptr, n, (pscan_dtype)type,
                                          (pscan_cmp)cmp, value, &k)
                     : pscan_select_if(x, in.ptr, out.ptr, n, (pscan_dtype)type, (pscan_cmp)cmp,
                                       value, &k);
  });
  return k;
}

size_t select_flagged(Ctx &c, nb::handle in_h, nb::handle flags_h, nb::handle out_h, int type) {
  View in = view_of(in_h, "x"), flags = view_of(flags_h, "flags"), out = view_of(out_h, "out");
  size_t es = type_size(type);
  size_t n = flat(in, es, "x");
  if (flat(flags, 1, "flags") != n || flat(out, es, "out") != n)
    refuse("x, flags and out must have the same length");
  size_t k = 0;
  c.run([&](pscan_ctx *x) {
    return pscan_select_flagged(x, in.ptr, (const uint8_t *)flags.ptr, out.ptr, n,
                                (pscan_dtype)type, &k);
  });
  return k;
}

size_t unique(Ctx &c, nb::handle in_h, nb::handle out_h, int type) {
  View in = view_of(in_h, "x"), out = view_of(out_h, "out");
  size_t es = type_size(type);
  size_t n = flat(in, es, "x");
  if (flat(out, es, "out") != n)
    refuse("out: its length differs from x's");
  size_t k = 0;
  c.run([&](pscan_ctx *x) { return pscan_unique(x, in.ptr, out.ptr, n, (pscan_dtype)type, &k); });
  return k;
}

size_t run_length_encode(Ctx &c, nb::handle in_h, nb::handle uniq_h, nb::handle counts_h,
                         int type) {
  View in = view_of(in_h, "x"), uniq = view_of(uniq_h, "values"), counts = view_of(counts_h, "counts");
  size_t es = type_size(type);
  size_t n = flat(in, es, "x");
  if (flat(uniq, es, "values") != n || flat(counts, 8, "counts") != n)
    refuse("values and counts must have x's length");
  size_t k = 0;
  c.run([&](pscan_ctx *x) {
    return pscan_run_length_encode(x, in.ptr, uniq.ptr, (uint64_t *)counts.ptr, n,
                                   (pscan_dtype)type, &k);
  });
  return k;
}

// With user_op, the values are the operator's elements (esize bytes); val_type and op unused.
size_t reduce_by_key(Ctx &c, nb::handle keys_h, int key_type, nb::handle vals_h, int val_type,
                     nb::handle keys_out_h, nb::handle vals_out_h, int op, uintptr_t user_op,
                     size_t esize) {
  View keys = view_of(keys_h, "keys"), vals = view_of(vals_h, "values");
  View ko = view_of(keys_out_h, "keys_out"), vo = view_of(vals_out_h, "values_out");
  size_t ks = type_size(key_type), vs = user_op ? esize : type_size(val_type);
  size_t n = flat(keys, ks, "keys");
  if (flat(vals, vs, "values") != n || flat(ko, ks, "keys_out") != n ||
      flat(vo, vs, "values_out") != n)
    refuse("keys, values and the outputs must have the same length");
  size_t k = 0;
  c.run([&](pscan_ctx *x) {
    if (user_op)
      return pscan_reduce_by_key_op(x, keys.ptr, (pscan_dtype)key_type, vals.ptr, ko.ptr, vo.ptr,
                                    n, as_op(user_op), &k);
    return pscan_reduce_by_key(x, keys.ptr, (pscan_dtype)key_type, vals.ptr, (pscan_dtype)val_type,
                               ko.ptr, vo.ptr, n, (pscan_op)op, &k);
  });
  return k;
}

// ---- user operators -------------------------------------------------------------------------

// Compiles the operator for this context once (keyed by everything that defines it).
uintptr_t user_op(Ctx &c, int kind, const std::string &source, const std::string &type_name,
                  const std::string &name, size_t elem_size, nb::object identity_h) {
  std::string id;
  if (!identity_h.is_none()) {
    nb::bytes b = nb::borrow<nb::bytes>(identity_h);
    id.assign(b.c_str(), b.size());
  }
  std::string key = std::to_string(kind) + '\0' + source + '\0' + type_name + '\0' + name + '\0' +
                    std::to_string(elem_size) + '\0' + (identity_h.is_none() ? "-" : "+" + id);
  auto it = c.ops.find(key);
  if (it != c.ops.end())
    return reinterpret_cast<uintptr_t>(it->second);
  const void *identity = bytes_ptr(identity_h, elem_size, "identity");
  pscan_op_desc d = {};
  d.kind = (pscan_op_kind)kind, d.source = source.c_str(), d.type_name = type_name.c_str();
  d.name = name.c_str(), d.elem_size = elem_size, d.identity = identity;
  pscan_user_op *op = nullptr;
  c.run([&](pscan_ctx *x) { return pscan_op_create(x, &d, &op); });
  c.ops.emplace(key, op);
  return reinterpret_cast<uintptr_t>(op);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "pscan's C++ core: array import and library calls (use the pscan package instead)";
  m.def("_set_errors", [](nb::list l) {
    Py_XDECREF(g_errors);
    g_errors = l.inc_ref().ptr();
  });
  m.def("version", [] { return std::string(pscan_version_string()); });
  m.def("status_name", [](int s) { return std::string(pscan_status_name((pscan_status)s)); });
  m.def("dtype_size", [](int t) { return pscan_dtype_size((pscan_dtype)t); });

  nb::class_<Ctx>(m, "Ctx")
      .def(nb::init<int, int, int, bool, int>(), nb::arg("backend"), nb::arg("device"),
           nb::arg("threads"), nb::arg("deterministic"), nb::arg("algo"))
      .def_prop_ro("backend", [](Ctx &c) { return (int)pscan_get_backend(c.get()); })
      .def("get_param", [](Ctx &c, int p) {
        int64_t v = 0;
        pscan_status s = pscan_get_param(c.get(), (pscan_param)p, &v);
        if (s != PSCAN_OK)
          raise_status(s, pscan_last_error(c.ctx));
        return v;
      })
      .def("set_stream", &Ctx::set_stream)
      .def("synchronize", [](Ctx &c) { c.run([](pscan_ctx *x) { return pscan_synchronize(x); }); })
      .def("close", &Ctx::close);

  m.def("scan", &scan, "ctx"_a, "x"_a, "out"_a, "in_type"_a, "out_type"_a, "axis"_a, "op"_a,
        "user_op"_a, "esize"_a, "exclusive"_a, "reverse"_a, "init"_a.none());
  m.def("reduce", &reduce, "ctx"_a, "x"_a, "in_type"_a, "out_type"_a, "op"_a, "init"_a.none());
  m.def("reduce_op", &reduce_op, "ctx"_a, "x"_a, "user_op"_a, "esize"_a, "init"_a.none());
  m.def("segmented_scan", &segmented_scan, "ctx"_a, "x"_a, "out"_a, "offsets"_a, "type"_a, "op"_a,
        "exclusive"_a, "reverse"_a, "init"_a.none());
  m.def("scan_by_key", &scan_by_key, "ctx"_a, "keys"_a, "key_type"_a, "x"_a, "out"_a, "type"_a,
        "op"_a, "exclusive"_a, "init"_a.none(), "user_op"_a = 0, "esize"_a = 0);
  m.def("select", &select_if, "ctx"_a, "x"_a, "out"_a, "type"_a, "pred"_a, "esize"_a, "cmp"_a,
        "value"_a.none(), "partition"_a);
  m.def("select_flagged", &select_flagged);
  m.def("unique", &unique);
  m.def("run_length_encode", &run_length_encode);
  m.def("reduce_by_key", &reduce_by_key, "ctx"_a, "keys"_a, "key_type"_a, "vals"_a, "val_type"_a,
        "keys_out"_a, "vals_out"_a, "op"_a, "user_op"_a = 0, "esize"_a = 0);
  m.def("user_op", &user_op, "ctx"_a, "kind"_a, "source"_a, "type_name"_a, "name"_a,
        "elem_size"_a, "identity"_a.none());
}
