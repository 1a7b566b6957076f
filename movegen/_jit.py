"""The one module that owns the numba import.

Every kernel module takes its decorator and its bit tricks from here:

- ``kernel``: ``numba.njit(cache=True, nogil=True)``; ``nogil`` lets a search thread poll a
  stop flag while Python threads keep running, ``cache`` keeps warm starts near 2 s.
  ``helper``: the same for kernels only other kernels call (no Python wrapper to compile);
  ``both``: tiny pure functions, plain Python from Python and compiled inside kernels.
- the numba cache goes to ``$NUMBA_CACHE_DIR/<digest>`` when that variable is set, else to
  ``~/.cache/jitfish/numba/<digest>``.  ``<digest>`` hashes the source of every module that compiles code:
  numba keys its cache on the defining file only, so after an edit of a callee in another
  file (or an upgrade) a cached caller would otherwise run the old code.  A read-only install
  works too (numba's default, the package folder, fails there with "no locator available").
- ``bundle``: one int64 array standing for NamedTuples of arrays, passed to the kernels
  called at every node instead of the tuples (see the section below).
- ``popcount``, ``lsb``, ``msb`` on one 64-bit word.  Under ``NUMBA_DISABLE_JIT=1`` the
  intrinsics cannot run, so plain-Python fallbacks are used instead (tests run one small
  perft that way to keep them honest).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numba
import numba.extending
from numba import types
from numba.extending import intrinsic

__all__ = ["kernel", "helper", "both", "array_tuple", "bundle", "popcount", "lsb", "msb", "JIT_DISABLED"]

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


# the packages whose modules hold kernels or what kernels read (layout constants); their
# source together keys the cache folder
_KERNEL_SOURCES = ("movegen", "eval", "engine")


def _source_digest() -> str:
    """Every module of the kernel packages counts, not only those that compile code: a kernel
    freezes the layout constants it imports from another module (``CFG_*`` from tables.py),
    so an edit there must not meet old cached code."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha1(numba.__version__.encode())
    for folder in _KERNEL_SOURCES:
        for f in sorted((root / folder).glob("*.py")):
            h.update(f"{folder}/{f.name}".encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _choose_cache_dir() -> None:
    base = os.environ.get("NUMBA_CACHE_DIR") or str(Path.home() / ".cache" / "jitfish" / "numba")
    folder = Path(base) / _source_digest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.gettempdir()) / "jitfish-numba" / _source_digest()
        folder.mkdir(parents=True, exist_ok=True)
    numba.config.CACHE_DIR = str(folder)


_choose_cache_dir()


def kernel(fn):
    """Decorate a kernel: compiled, cached on disk, releases the GIL.

    Kernels run without numba's reference counting (``_nrt=False``): with it, every call
    that passes the tables NamedTuple paid an atomic increment and decrement per array, which
    made a generic move generator 50x slower than the same code written inline.  The price:
    a kernel cannot allocate arrays; callers pass preallocated buffers.
    """
    return numba.njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)(fn)


def both(fn):
    """A tiny pure function called from Python and from kernels alike: plain Python when
    called from Python (no dispatcher call, no wrapper to compile), compiled into kernels."""
    return numba.extending.register_jitable(fn)


def helper(fn):
    """Decorate a kernel that only other kernels call: as ``kernel`` without the wrapper that
    converts Python objects (dozens of arrays in the tables) -- less code to compile."""
    return numba.njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True, no_cpython_wrapper=True)(fn)


if JIT_DISABLED:

    def popcount(x):
        return int(x).bit_count()

    def lsb(x):
        x = int(x)
        return (x & -x).bit_length() - 1

    def msb(x):
        return int(x).bit_length() - 1

else:

    @intrinsic
    def _ctpop(typingctx, x):
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return sig, codegen

    @intrinsic
    def _cttz(typingctx, x):
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], context.get_constant(types.boolean, True))

        return sig, codegen

    @intrinsic
    def _ctlz(typingctx, x):
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            return builder.ctlz(args[0], context.get_constant(types.boolean, True))

        return sig, codegen

    @numba.njit(cache=True, inline="always")
    def popcount(x):
        return numba.int64(_ctpop(numba.uint64(x)))

    @numba.njit(cache=True, inline="always")
    def lsb(x):
        """Index of the lowest set bit; x must be non-zero."""
        return numba.int64(_cttz(numba.uint64(x)))

    @numba.njit(cache=True, inline="always")
    def msb(x):
        """Index of the highest set bit; x must be non-zero."""
        return 63 - numba.int64(_ctlz(numba.uint64(x)))


# ---------------------------------------------------------------------------------------------
# Bundles: one int64 array standing for several NamedTuples of arrays
#
# numba passes an array to a compiled function it does not inline as all its fields (data
# pointer, shape, strides, ...), and a NamedTuple of arrays as all the fields of all its arrays.
# The search's four tuples (position, variant tables, search tables, evaluation tables: 72
# arrays) came to some 600 machine words pushed per call: ~300-400 ns for each call of
# make_move, generate or the search itself, measured, against ~10 ns for a call with two
# arrays.  A bundle is an int64 array with one row per array (address, then the shape); the
# kernels the search calls at every node take it and rebuild the tuples on entry, which costs
# only the loads of the rows they use.  The views are not reference counted: whoever packs
# the bundle keeps the tuples alive while kernels run.

BUNDLE_ROW = 5  # address, then up to 4 dimensions
_DTYPES = {"i": "int64", "u": "uint64"}


def array_tuple(name: str, fields: str):
    """A NamedTuple class of arrays, each field named once with its kind.

    ``fields`` lists ``name:kind`` pairs separated by white space; a kind is the dtype letter
    (``i`` int64, ``u`` uint64) and the number of dimensions: ``"board:i1 bb:u2"`` is a 1-d
    int64 array ``board`` and a 2-d uint64 array ``bb``.  The kinds are kept on the class as
    ``KINDS`` (``{"board": ("int64", 1), ...}``), which ``bundle`` and ``pack`` check against.

    >>> Pair = array_tuple("Pair", "board:i1 bb:u2")
    >>> Pair._fields, Pair.KINDS["bb"]
    (('board', 'bb'), ('uint64', 2))
    """
    import typing

    import numpy as np

    kinds = {}
    for item in fields.split():
        field, _, kind = item.partition(":")
        if not field.isidentifier() or len(kind) != 2 or kind[0] not in _DTYPES or not kind[1].isdigit():
            raise ValueError(f"array_tuple {name}: bad field {item!r} (write name:i1, name:u2, ...)")
        kinds[field] = (_DTYPES[kind[0]], int(kind[1]))
    cls = typing.NamedTuple(name, [(f, np.ndarray) for f in kinds])
    cls.KINDS = kinds
    return cls


def _layout(classes: tuple) -> list[tuple[int, str, str, int]]:
    layout = []  # (class index, field, dtype, ndim)
    for ci, cls in enumerate(classes):
        for f in cls._fields:
            dt, nd = cls.KINDS[f]
            layout.append((ci, f, dt, nd))
    return layout


def bundle(*classes):
    """``(pack, unpack)`` for the NamedTuple ``classes`` made by ``array_tuple``.

    ``pack(*tuples)`` (Python) checks the arrays against the classes' kinds and returns the bundle.
    The bundle holds the arrays' addresses, not references: the caller keeps the tuples alive
    while a kernel reads the bundle (a tuple made inside the ``pack`` call is freed at once).
    ``unpack(d)`` (in kernels) returns the tuples again; it is one intrinsic, so it costs no
    typing per field.  A bundle of more classes whose first classes are these can be unpacked
    with it too (the rows come in the same order).
    """
    import numpy as np

    layout = _layout(classes)

    def pack(*tuples) -> np.ndarray:
        if len(tuples) != len(classes):
            raise ValueError(f"pack: {len(classes)} tuples expected, got {len(tuples)}")
        d = np.zeros((len(layout), BUNDLE_ROW), np.int64)
        arrays = [a for t in tuples for a in t]
        for i, ((ci, f, dt, nd), a) in enumerate(zip(layout, arrays)):
            if a.dtype != np.dtype(dt) or a.ndim != nd or not a.flags.c_contiguous:
                raise ValueError(f"pack: {classes[ci].__name__}.{f} is {a.dtype} {a.ndim}-d "
                                 f"(contiguous: {a.flags.c_contiguous}), the bundle expects {dt} {nd}-d")
            d[i, 0] = a.ctypes.data
            d[i, 1:1 + nd] = a.shape
        return d

    if JIT_DISABLED:
        import ctypes

        def unpack(d):
            out = [[] for _ in classes]
            for row, (ci, _f, dt, nd) in enumerate(layout):
                shape = tuple(int(x) for x in d[row, 1:1 + nd])
                n = int(np.prod(shape))
                buf = (ctypes.c_uint64 * max(n, 1)).from_address(int(d[row, 0]))
                out[ci].append(np.frombuffer(buf, dtype=dt, count=n).reshape(shape))
            return tuple(cls(*arrays) for cls, arrays in zip(classes, out))

        return pack, unpack

    from numba.core import cgutils
    from numba.np.arrayobj import make_array, populate_array

    arrtys = [types.Array(getattr(types, dt), nd, "C") for _ci, _f, dt, nd in layout]
    nttys = [types.NamedTuple([t for t, row in zip(arrtys, layout) if row[0] == ci], cls)
             for ci, cls in enumerate(classes)]
    retty = types.Tuple(nttys)

    @intrinsic
    def unpack(typingctx, d):
        sig = retty(d)

        def codegen(context, builder, signature, args):
            darr = make_array(signature.args[0])(context, builder, args[0])
            itemsize = context.get_constant(types.intp, 8)
            values = [[] for _ in classes]
            for row, ((ci, _f, dt, nd), arrty) in enumerate(zip(layout, arrtys)):
                cells = [builder.load(builder.gep(darr.data, [context.get_constant(types.intp, row * BUNDLE_ROW + k)]))
                         for k in range(1 + nd)]
                data = builder.inttoptr(cells[0], context.get_value_type(arrty.dtype).as_pointer())
                shape = cells[1:]
                strides = [itemsize]
                for k in range(nd - 1, 0, -1):
                    strides.insert(0, builder.mul(strides[0], shape[k]))
                ary = make_array(arrty)(context, builder)
                populate_array(ary, data=data, shape=cgutils.pack_array(builder, shape),
                               strides=cgutils.pack_array(builder, strides), itemsize=itemsize, meminfo=None)
                values[ci].append(ary._getvalue())
            tuples = [context.make_tuple(builder, ntty, vals) for ntty, vals in zip(nttys, values)]
            return context.make_tuple(builder, retty, tuples)

        return sig, codegen

    return pack, unpack
