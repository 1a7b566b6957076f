"""Session set-up shared by every test module.

A fresh numba cache. numba keys its on-disk cache by the defining file only, so a cached kernel
can keep running an old copy of a helper edited in another file (see /work/shared/NUMBA.md,
"Stale cache"). Unless ``JITFISH_KEEP_CACHE`` is set, the whole session (and every subprocess
it starts, which inherits the environment) compiles into a temporary ``NUMBA_CACHE_DIR`` that
is removed at the end. This file is imported by pytest before any test module, hence before
``jitfish`` or ``numba`` is imported.

Set ``JITFISH_KEEP_CACHE=1`` to reuse the normal cache for fast local reruns.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

_PREFIX = "jitfish-numba-cache-"
_FRESH_CACHE: str | None = None


def _remove_orphans() -> None:
    """Remove cache folders of earlier sessions that died before their clean-up (the pid in the
    name is no longer running)."""
    for d in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*-*"):
        try:
            pid = int(d.name[len(_PREFIX):].split("-")[0])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except (ValueError, PermissionError, OSError):
            continue


if not os.environ.get("JITFISH_KEEP_CACHE"):
    _remove_orphans()
    _FRESH_CACHE = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")
    os.environ["NUMBA_CACHE_DIR"] = _FRESH_CACHE
    if "numba" in sys.modules:  # some plugin imported numba first: its config is already read
        import numba

        numba.config.CACHE_DIR = _FRESH_CACHE


def pytest_report_header(config):
    if _FRESH_CACHE:
        return f"jitfish: fresh numba cache in {_FRESH_CACHE} (set JITFISH_KEEP_CACHE=1 to keep the usual one)"
    return f"jitfish: numba cache kept (NUMBA_CACHE_DIR={os.environ.get('NUMBA_CACHE_DIR', 'default')})"


def pytest_unconfigure(config):
    if _FRESH_CACHE:
        shutil.rmtree(_FRESH_CACHE, ignore_errors=True)
