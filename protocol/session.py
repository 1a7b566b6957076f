"""What a CECP and a UCI conversation share: the position, the variant list, engine jobs.

A session is driven by ``EngineLoop``, one input line or one finished job at a time, so its
state is only ever touched by the loop's thread.  Each protocol is a subclass with an explicit
command table (``COMMANDS``: command word -> handler) and the few hooks below; this base class
owns:

- readiness: commands that need the engine wait for the kernels (``ready``), except those in
  the subclass's ``EARLY`` set;
- jobs: a search, ponder search, analysis or perft runs in the host's worker thread
  (``start_job``); its result comes back to the loop's thread (``on_job_done``); ``abort`` stops
  one and drops its result; thinking output is muted for a job that was aborted;
- variants: ``add_variants`` loads extra variant files (the ``VariantPath`` option of both
  protocols), after which they play like the shipped ones;
- perft: ``start_perft`` prints the divide lines and ``Nodes searched: N`` from the worker.
"""
from __future__ import annotations

import logging
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Callable

from jitfish.engine import Limits, SearchInfo
from jitfish.movegen import Position, add_variant_path, resolve_name

if TYPE_CHECKING:
    from .host import Job
    from .loop import EngineLoop

__all__ = ["Mode", "Session"]

log = logging.getLogger("jitfish.protocol")

MAX_PERFT = 12


class Mode(StrEnum):
    """What the engine is doing for the session."""

    IDLE = "idle"
    THINK = "think"  # searching for its own move (UCI: any go)
    PONDER = "ponder"
    ANALYZE = "analyze"
    PERFT = "perft"


class Session:
    """One protocol conversation (see the module doc); subclasses set ``COMMANDS`` and ``EARLY``
    and implement ``report``, ``on_job_done`` and ``dispatch``."""

    COMMANDS: dict[str, Callable[..., None]] = {}
    EARLY: frozenset[str] = frozenset()

    def __init__(self, loop: "EngineLoop"):
        self.loop = loop
        self.host = loop.host
        self.write = loop.out
        self.variant = "chess"
        self.pos: Any = None  # a Position, made once the kernels are ready
        self.mode = Mode.IDLE
        self.job: "Job | None" = None
        self.move_overhead = 0.05

    # -- hooks -----------------------------------------------------------------------------

    def report(self, text: str) -> None:
        """Tell the GUI something that is not an answer (UCI ``info string``, CECP ``#``)."""
        raise NotImplementedError

    def on_job_done(self, mode: Mode, job: "Job") -> None:
        """A job of this session ended (not an aborted one)."""

    def dispatch(self, line: str) -> bool:
        """Handle one line; False ends the session."""
        raise NotImplementedError

    def new_position(self, canonical: str) -> Any:
        """The start position of a variant as this protocol's GUI has it."""
        return Position(canonical)

    def internal_error(self, exc: BaseException, line: str) -> None:
        self.report(f"internal error ({type(exc).__name__}: {exc}) on: {line.strip()}")

    # -- readiness, variants ---------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Handle one command line; False when the session ends (``quit``)."""
        word = line.split(None, 1)[0]
        if word == "quit":
            self.abort()
            return False
        if word not in self.EARLY and not self.ready():
            return False
        self._settle()
        return self.dispatch(line)

    def ready(self) -> bool:
        """Wait for the kernels; False if ``quit`` came first."""
        if not self.host.wait_ready(self.loop.quit):
            return False
        if self.pos is None:
            self.set_variant(self.variant)
        return True

    def set_variant(self, canonical: str) -> None:
        self.variant = canonical
        self.set_position(self.new_position(canonical))

    def set_position(self, pos: Any) -> None:
        self.pos = pos

    def add_variants(self, path: str) -> list[str]:
        """Load extra variant files (a file or a folder, the ``VariantPath`` option); returns
        their names.  VariantError (naming the file and key) when one cannot be used."""
        names = add_variant_path(path.strip())
        log.info("variants added from %s: %s", path, names)
        return names

    @staticmethod
    def canonical(name: str) -> str:
        """A variant name or alias -> our canonical name (VariantError if unknown)."""
        return resolve_name(name)

    def close(self) -> None:
        self.abort()

    # -- jobs ------------------------------------------------------------------------------

    def start_job(self, mode: Mode, fn: Callable[["Job"], Any]) -> None:
        """Run ``fn(job)`` in the worker thread; its end comes back as ``on_job_done``."""

        def done(job: "Job") -> None:
            self.loop.post(lambda: self._job_done(job))

        self.mode = mode
        self.job = self.host.run(str(mode), fn, done)

    def _settle(self) -> None:
        """A job that has ended is done now, even if its own report is still on its way: a
        command that follows a job's last output line (``go`` after ``Nodes searched``) must
        find the session idle."""
        job = self.job
        if job is not None and (job.finished.is_set() or (job.said_all and job.finished.wait(1.0))):
            self._job_done(job)

    def _job_done(self, job: "Job") -> None:
        if job is not self.job:
            return  # an aborted job: its result is stale
        self.job = None
        mode, self.mode = self.mode, Mode.IDLE
        self.on_job_done(mode, job)

    def abort(self) -> None:
        """Stop the running job, if any; its result is dropped."""
        if self.job is not None:
            self.job.aborted = True
            self.job = None
            self.host.abort()
        self.mode = Mode.IDLE

    def search(self, mode: Mode, pos: Any, limits: Limits, emit: Callable[[SearchInfo], None],
               multipv: int = 1) -> None:
        """Start a search of ``pos`` (a copy) as a job; ``emit`` hears its thinking output
        unless the job has been aborted."""
        engine = self.host.engine

        def fn(job: "Job"):
            def on_info(info: SearchInfo) -> None:
                if not job.aborted:
                    emit(info)

            if multipv > 1:
                return engine.search(pos, limits, on_info, multipv=multipv)
            return engine.search(pos, limits, on_info)

        self.start_job(mode, fn)

    def start_perft(self, depth: int) -> bool:
        """Perft of the current position as a job: ``MOVE: COUNT`` lines, then ``Nodes
        searched: N`` (``perft stopped`` when stopped). False (reported) for a bad depth."""
        if not 1 <= depth <= MAX_PERFT:
            return False
        pos = self.pos.copy()
        write = self.write

        def fn(job: "Job"):
            total = 0
            for name, count in pos.divide_iter(depth):
                if job.stop_requested.is_set():
                    write("perft stopped")
                    return None
                write(f"{name}: {count}")
                total += count
            job.said_all = True  # the next line is the last: a command after it finds us idle
            write(f"Nodes searched: {total}")
            return total

        self.start_job(Mode.PERFT, fn)
        return True

    def fen_text(self) -> str:
        return self.pos.fen()
