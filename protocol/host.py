"""The engine behind both protocols: warm-up in the background, one search thread, stop.

``EngineHost`` owns the search ``Engine``. ``start_warmup()`` compiles (or loads from the numba
cache) every kernel in a daemon thread, so the protocol loop keeps reading; ``ready`` is set
when that is done (or has failed: ``error`` then says why and searches report it).

A job (search or perft) runs in its own thread; its result is handed to a callback, which the
protocol loop turns into an event on its queue, so protocol state is only ever touched by the
loop's thread. ``stop()`` asks the running job to return; the kernel polls a stop flag (it
releases the GIL), and the stop is re-sent until the job has ended, so a stop that arrives
before the search has reset its flags is not lost.

>>> host = EngineHost(); host.start_warmup(); host.ready.wait(120)
True
"""
from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numba

from jitfish.engine import Engine
from jitfish.movegen import Position

__all__ = ["EngineHost", "Job", "EngineFactory"]

log = logging.getLogger("jitfish.protocol")

EngineFactory = Callable[[int], Any]


def _wait(event: threading.Event, cancel: threading.Event | None, timeout: float | None) -> bool:
    """Block until ``event`` is set: True; False if ``cancel`` was set first or ``timeout``
    seconds passed."""
    t_end = None if timeout is None else time.monotonic() + timeout
    while not event.wait(0.02):
        if cancel is not None and cancel.is_set():
            return False
        if t_end is not None and time.monotonic() > t_end:
            return False
    return True


def _default_factory(hash_mb: int) -> Any:
    return Engine(hash_mb=hash_mb)


# A cold start compiles the search in a second process while this one compiles the move
# generator the protocols use; the search kernels then load from the numba cache the child
# wrote. On this 2-core machine that took the cold start from ~30 s to ~24 s.
_CHILD_CODE = ("import sys; from jitfish.engine import Engine; "
               "Engine(hash_mb=1).warmup(sys.argv[1])")


def _search_cache_is_cold() -> bool:
    folder = Path(numba.config.CACHE_DIR)
    return not any(folder.rglob("search.negamax-*.nbi"))


def _start_search_compiler(variant: str) -> subprocess.Popen | None:
    try:
        if not _search_cache_is_cold():
            return None
        return subprocess.Popen([sys.executable, "-c", _CHILD_CODE, variant], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except Exception:
        log.exception("could not start the search compiler process; compiling here")
        return None


class Job:
    """One search or perft run in the worker thread."""

    def __init__(self, kind: str, fn: Callable[["Job"], Any], done: Callable[["Job"], None]):
        self.kind = kind
        self.fn = fn
        self.done = done
        self.result: Any = None
        self.error: BaseException | None = None
        self.stop_requested = threading.Event()
        self.aborted = False  # set by the protocol: the result will be dropped
        self.finished = threading.Event()
        self.said_all = False  # the job has written its last output line (the session may wait for its end)
        self.thread = threading.Thread(target=self._run, name=f"jitfish-{kind}", daemon=True)
        self.started_at = 0.0

    def _run(self) -> None:
        try:
            self.result = self.fn(self)
        except BaseException as exc:  # reported to the protocol, logged with its traceback
            log.exception("%s job failed", self.kind)
            self.error = exc
        finally:
            self.finished.set()
            self.done(self)


class EngineHost:
    """Owns the Engine; runs the warm-up and one job at a time."""

    def __init__(self, factory: EngineFactory | None = None, hash_mb: int = 16):
        self._factory = factory or _default_factory
        self.hash_mb = hash_mb
        self.engine: Any = None
        self.ready = threading.Event()
        self.error: str | None = None
        self.warmup_seconds: float | None = None
        self.job: Job | None = None
        self._warm_thread: threading.Thread | None = None
        self._pending: list[Callable[[], None]] = []  # settings waiting for the job to end

    # -- warm-up ---------------------------------------------------------------------------

    def start_warmup(self, variant: str = "chess") -> None:
        if self._warm_thread is not None:
            return
        self._warm_thread = threading.Thread(target=self._warm, args=(variant,),
                                             name="jitfish-warmup", daemon=True)
        self._warm_thread.start()

    def _warm(self, variant: str) -> None:
        t0 = time.perf_counter()
        child = _start_search_compiler(variant) if self._factory is _default_factory else None
        try:
            # the movegen calls the protocols make (parse, push, FEN, verdict)
            pos = Position(variant)
            moves = pos.legal_moves()
            if moves:
                pos.push(pos.move_name(moves[0]))
                pos.outcome()
                pos.fen()
                pos.pop()
            if child is not None:
                try:  # then the search loads from the cache the child wrote (or, if it failed, compiles)
                    rc = child.wait(timeout=600)
                    log.info("search compiler process exited with %s after %.2f s", rc, time.perf_counter() - t0)
                except subprocess.TimeoutExpired:
                    child.kill()
            eng = self._factory(self.hash_mb)
            eng.warmup(variant)
            self.engine = eng
        except BaseException as exc:
            log.exception("warm-up failed")
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.warmup_seconds = time.perf_counter() - t0
            log.info("warm-up done in %.2f s%s", self.warmup_seconds,
                     f" (error: {self.error})" if self.error else "")
            self.ready.set()
        # The perft kernels are not needed to play: they compile (or load) after the engine
        # has said it is ready (2-3 s of a cold start); a `perft` command meanwhile waits on
        # numba's compile lock.
        try:
            pos = Position(variant)
            pos.perft(2)
            pos.divide(1)
            log.info("perft kernels ready %.2f s after start", time.perf_counter() - t0)
        except Exception:
            log.exception("perft warm-up failed")

    def wait_ready(self, cancel: threading.Event | None = None, timeout: float | None = None) -> bool:
        """Block until the warm-up is done; False if ``cancel`` was set first (or timeout)."""
        return _wait(self.ready, cancel, timeout)

    # -- jobs ------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.job is not None and not self.job.finished.is_set()

    def run(self, kind: str, fn: Callable[[Job], Any], done: Callable[[Job], None]) -> Job:
        """Start ``fn(job)`` in the worker thread; a job still running is stopped first."""
        self.stop()
        self.join()
        self._apply_pending()
        job = Job(kind, fn, done)
        job.started_at = time.perf_counter()
        self.job = job
        job.thread.start()
        return job

    def stop(self) -> None:
        """Ask the running job to return now; keeps asking until it has."""
        job = self.job
        if job is None or job.finished.is_set():
            return
        job.stop_requested.set()
        if self.engine is not None:
            self.engine.stop()

            def insist() -> None:
                while not job.finished.wait(0.005):
                    self.engine.stop()

            threading.Thread(target=insist, name="jitfish-stop", daemon=True).start()

    def join(self, timeout: float | None = None, cancel: threading.Event | None = None) -> bool:
        """Block until the running job has ended; False if ``cancel`` was set first (or timeout)."""
        job = self.job
        if job is None:
            return True
        if cancel is None:
            return job.finished.wait(timeout)
        return _wait(job.finished, cancel, timeout)

    def abort(self) -> None:
        """Stop and wait for the running job (its result is the caller's to ignore)."""
        self.stop()
        self.join()

    # -- engine settings -------------------------------------------------------------------

    def _apply_pending(self) -> None:
        while self._pending and not self.busy:
            self._pending.pop(0)()

    def _when_idle(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` now, or before the next job if one is running (tables are in use)."""
        if self.busy:
            self._pending.append(fn)
        else:
            fn()

    def set_hash(self, mb: int) -> None:
        """Resize the transposition table (cleared)."""
        self.hash_mb = mb
        if self.engine is not None:
            self._when_idle(lambda: self.engine.set_hash(mb))

    def new_game(self) -> None:
        """Clear hash and history."""
        if self.engine is not None:
            self._when_idle(self.engine.new_game)
