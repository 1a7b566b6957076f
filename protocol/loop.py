"""The engine process: one loop that speaks XBoard/CECP v2 or UCI, picked by the first command.

    $ jitfish            # reads commands on stdin; `xboard` or `uci` first picks the protocol

Threads and ordering:

- a *reader* thread turns stdin lines into events on one queue (and notices ``quit`` at once,
  so a ``quit`` during the warm-up or a search is never kept waiting);
- the *warm-up* thread (``EngineHost.start_warmup``) compiles or loads the numba kernels while
  the loop goes on reading; commands that need the engine wait for it, the rest are answered
  at once (``feature done=0`` goes out as soon as ``protover 2`` arrives);
- the *loop* (the main thread) is the only one that changes protocol state: it handles lines
  in order, and a finished search comes back to it as an event too;
- the *search* thread (``EngineHost.run``) only searches and prints its ``info`` lines.

Hygiene for GUIs that merge stderr into the engine's stdout (XBoard does): ``main()`` moves
the protocol stream to a private copy of file descriptor 1 and points descriptors 1 and 2 at a
log file (``$JITFISH_LOG``, else ``~/.cache/jitfish/jitfish.log``), so Python warnings,
tracebacks and anything a library prints land in the log, never in the protocol. In XBoard mode
SIGINT and SIGTERM are ignored (the features say ``sigint=0 sigterm=0``).
"""
from __future__ import annotations

import logging
import os
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Callable, TextIO

from .cecp import CecpSession
from .host import EngineHost
from .uci import UciSession

__all__ = ["Output", "EngineLoop", "main", "log_path"]

log = logging.getLogger("jitfish.protocol")


class Output:
    """Thread-safe line writer: one protocol line per call, flushed at once.

    With no stream the lines are kept in ``lines`` (tests read them with ``wait_line``).
    """

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream
        self.lines: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, line: str) -> None:
        with self._cond:
            if self.stream is not None:
                try:
                    self.stream.write(line + "\n")
                    self.stream.flush()
                except (OSError, ValueError):  # GUI gone: nothing to tell it
                    pass
            else:
                self.lines.append(line)
                self._cond.notify_all()
        log.debug("> %s", line)

    def wait_line(self, index: int, timeout: float) -> str | None:
        """The line at ``index``, waiting up to ``timeout`` s for it (None if it never came)."""
        with self._cond:
            self._cond.wait_for(lambda: len(self.lines) > index, timeout)
            return self.lines[index] if len(self.lines) > index else None


class EngineLoop:
    """Dispatches input lines to the protocol session chosen by the first command."""

    def __init__(self, out: Callable[[str], None], host: EngineHost | None = None,
                 on_xboard: Callable[[], None] | None = None):
        self.out = out
        self.host = host or EngineHost()
        self.events: queue.Queue = queue.Queue()
        self.quit = threading.Event()
        self.session = None
        self.on_xboard = on_xboard
        self.protocol: str | None = None
        self.done0_sent = False  # `feature done=0` went out before the loop ran (jitfish.start)

    # -- from other threads ----------------------------------------------------------------

    def feed(self, line: str) -> None:
        """A line from the GUI (any thread)."""
        if line.strip() == "quit":
            self.quit.set()
            self.host.stop()
        self.events.put(("line", line))

    def feed_eof(self) -> None:
        self.quit.set()
        self.host.stop()
        self.events.put(("eof", None))

    def post(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the loop's thread (a search thread reports back this way)."""
        self.events.put(("call", fn))

    # -- the loop --------------------------------------------------------------------------

    def run(self) -> int:
        while True:
            kind, payload = self.events.get()
            if kind == "eof":
                break
            try:
                if kind == "call":
                    payload()
                elif kind == "line":
                    if not self._line(payload):
                        break
            except Exception as exc:  # never let one bad line end the engine
                log.exception("while handling %r", payload)
                if self.session is not None:
                    self.session.internal_error(exc, payload if kind == "line" else "")
        if self.session is not None:
            self.session.close()
        self.host.stop()
        self.host.join(2.0)
        return 0

    def _line(self, raw: str) -> bool:
        line = raw.strip()
        log.debug("< %s", line)
        if not line:
            return True
        if self.session is None:
            word = line.split()[0]
            if word == "uci":
                self.protocol = "uci"
                self.session = UciSession(self)
            else:  # `xboard`, or a human typing CECP commands
                self.protocol = "xboard"
                if self.on_xboard:
                    self.on_xboard()
                self.session = CecpSession(self)
        return self.session.handle(line)


# -- the process ----------------------------------------------------------------------------

def log_path() -> Path:
    env = os.environ.get("JITFISH_LOG")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "jitfish" / "jitfish.log"


def _open_log() -> tuple[TextIO, Path | None]:
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > 8 * 1024 * 1024:
            path.replace(path.with_name(path.name + ".1"))
        return open(path, "a", buffering=1, encoding="utf-8", errors="replace"), path
    except OSError:
        return open(os.devnull, "w"), None


def _protect_stdout(logf: TextIO) -> TextIO:
    """The protocol stream on a private copy of fd 1; fds 1 and 2 then go to the log."""
    sys.stdout.flush()
    proto_fd = os.dup(1)
    os.dup2(logf.fileno(), 1)
    os.dup2(logf.fileno(), 2)
    sys.stdout = logf
    sys.stderr = logf
    return os.fdopen(proto_fd, "w", buffering=1, encoding="utf-8", errors="replace", newline="\n")


def _ignore_signals() -> None:
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):  # not the main thread, or not on this platform
            pass


def main(argv: list[str] | None = None, engine_factory=None, early=None) -> int:
    """Run the engine loop on stdin/stdout until ``quit`` or end of input.

    ``engine_factory(hash_mb)`` replaces the search engine (tests use stand-ins); ``early`` is
    standard input as ``jitfish.start.EarlyInput`` has been reading it (and maybe answered
    ``protover`` with ``feature done=0`` already).
    """
    t0 = time.perf_counter()
    logf, path = _open_log()
    logging.basicConfig(stream=logf, level=logging.DEBUG if os.environ.get("JITFISH_DEBUG") else logging.INFO,
                        format="%(asctime)s %(threadName)s %(levelname)s %(message)s")
    logging.captureWarnings(True)
    proto = _protect_stdout(logf)

    def excepthook(exc_type, exc, tb):
        log.error("uncaught exception", exc_info=(exc_type, exc, tb))

    sys.excepthook = excepthook
    threading.excepthook = lambda a: log.error("uncaught exception in %s", a.thread,
                                               exc_info=(a.exc_type, a.exc_value, a.exc_traceback))
    log.info("jitfish engine start (pid %d, log %s)", os.getpid(), path)
    try:  # `kill -USR1 PID` writes every thread's stack to the log
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1, file=logf, all_threads=True)
    except (AttributeError, ValueError, OSError):
        pass

    # Threads hand the GIL over every 5 ms by default: a reply that needs the loop thread while
    # the search thread runs Python (between iterations) waited up to that long.  At 1 s + 0.01 s
    # that is half the increment; 0.5 ms costs nothing measurable in search speed (the kernels
    # run without the GIL).
    sys.setswitchinterval(0.0005)
    host = EngineHost(factory=engine_factory)
    host.start_warmup()
    loop = EngineLoop(Output(proto), host, on_xboard=_ignore_signals)

    def reader() -> None:
        stdin = sys.stdin.buffer
        try:
            for raw in stdin:
                loop.feed(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        loop.feed_eof()

    if early is not None:
        early.attach(loop.feed, loop.feed_eof)
        loop.done0_sent = early.done0_sent
    else:
        threading.Thread(target=reader, name="jitfish-reader", daemon=True).start()
    try:
        rc = loop.run()
    except KeyboardInterrupt:
        rc = 130
    log.info("jitfish engine exit %d after %.1f s", rc, time.perf_counter() - t0)
    try:
        proto.flush()
    except (OSError, ValueError):
        pass
    logging.shutdown()
    logf.flush()
    # daemon threads may sit in a numba compile or a kernel: leave without waiting for them
    os._exit(rc)
