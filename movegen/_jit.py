"""The one module that owns the numba import.

Every kernel module takes its decorator and its bit tricks from here:

- ``kernel``: ``numba.njit(cache=True, nogil=True)``; ``nogil`` lets a search thread poll a
  stop flag while Python threads keep running, ``cache`` keeps warm starts near 2 s.
- the numba cache goes to ``NUMBA_CACHE_DIR`` when set, else beside the package when that is
  writable, else to ``~/.cache/jitfish/numba`` (a read-only install would otherwise fail with
  "no locator available").
- ``popcount``, ``lsb``, ``msb`` on one 64-bit word.  Under ``NUMBA_DISABLE_JIT=1`` the
  intrinsics cannot run, so plain-Python fallbacks are used instead (tests run one small
  perft that way to keep them honest).
"""
from __future__ import annotations

import os
from pathlib import Path

import numba
from numba import types
from numba.extending import intrinsic

__all__ = ["kernel", "inline", "popcount", "lsb", "msb", "JIT_DISABLED"]

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


def _choose_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).resolve().parent
    if os.access(here, os.W_OK):
        return  # numba's default: __pycache__ beside the module
    fallback = Path.home() / ".cache" / "jitfish" / "numba"
    fallback.mkdir(parents=True, exist_ok=True)
    numba.config.CACHE_DIR = str(fallback)


_choose_cache_dir()


def kernel(fn):
    """Decorate a kernel: compiled, cached on disk, releases the GIL.

    Kernels run without numba's reference counting (``_nrt=False``): with it, every call
    that passes the tables NamedTuple paid an atomic increment and decrement per array, which
    made a generic move generator 50x slower than the same code written inline.  The price:
    a kernel cannot allocate arrays; callers pass preallocated buffers.
    """
    return numba.njit(cache=True, nogil=True, _nrt=False)(fn)


def inline(fn):
    """Decorate a small hot helper that is inlined into its callers at numba-IR level.

    A call that passes the tables NamedTuple (dozens of arrays) costs a reference-count
    update per array; inlining removes the call and with it that cost.
    """
    return numba.njit(cache=True, nogil=True, inline="always")(fn)


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
