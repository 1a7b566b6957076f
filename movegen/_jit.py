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

__all__ = ["kernel", "helper", "both", "popcount", "lsb", "msb", "JIT_DISABLED"]

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


# modules whose kernels are cached; their source together keys the cache folder
_KERNEL_SOURCES = ("movegen", "engine", "eval")


def _source_digest() -> str:
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha1(numba.__version__.encode())
    for folder in _KERNEL_SOURCES:
        for f in sorted((root / folder).glob("*.py")):
            data = f.read_bytes()
            # only modules that compile code: they all take their decorators from here
            # (a module of @helper or @both functions alone counts too)
            if f.name == "_jit.py" or b"_jit import" in data:
                h.update(f.name.encode())
                h.update(data)
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
