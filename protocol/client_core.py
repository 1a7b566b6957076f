"""The client side of both protocols, shared part: engine settings, limits, errors, the
engine process and the ``Engine`` base class.  ``client_cecp.py`` and ``client_uci.py`` speak
the protocols; ``client.py`` starts engines (``open_engine``).
"""
from __future__ import annotations

import collections
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable, Sequence

__all__ = [
    "EngineConfig", "Limits", "GoRequest", "SearchInfo", "Reply", "Engine", "EngineError",
    "EngineCrashed", "EngineTimeout", "EngineRejectedMove", "MatchAborted", "parse_feature_line",
    "parse_cecp_thinking", "parse_uci_info", "format_seconds", "Protocol",
]

# seconds
DETECT_TIMEOUT = 3.0
START_TIMEOUT = 120.0
FEATURE_QUIET = 2.0  # no done=1: go on this long after the last feature line
QUIT_GRACE = 1.0
POLL = 0.05


class Protocol(StrEnum):
    """How to talk to an engine (``proto=`` of an engine setting)."""

    AUTO = "auto"  # CECP if it answers ``xboard``/``protover 2`` with features, else UCI
    UCI = "uci"
    XBOARD = "xboard"

    @classmethod
    def parse(cls, text: str) -> "Protocol":
        text = {"cecp": "xboard", "xb": "xboard", "winboard": "xboard"}.get(text.strip().lower(), text.strip().lower())
        try:
            return cls(text)
        except ValueError:
            raise EngineError(f"unknown protocol {text!r} (auto, uci or xboard)") from None


class EngineError(Exception):
    """An engine misbehaved or cannot do what was asked; the message says which and how."""


class EngineCrashed(EngineError):
    """The engine process ended (or closed its output) when an answer was due."""


class EngineTimeout(EngineError):
    """No answer before the deadline; ``elapsed`` is how long it was waited for."""

    def __init__(self, message: str, elapsed: float):
        super().__init__(message)
        self.elapsed = elapsed


class EngineRejectedMove(EngineError):
    """The engine answered one of our moves with ``Illegal move`` or ``Error``."""

    def __init__(self, message: str, move: str, line: str):
        super().__init__(message)
        self.move = move
        self.line = line


class MatchAborted(Exception):
    """The caller's stop event was set while waiting for the engine."""


def format_seconds(x: float) -> str:
    """``2.0 -> '2'``, ``0.05 -> '0.05'``: seconds as short as exact."""
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return text or "0"


# ---------------------------------------------------------------------------------------------
# configuration


@dataclass(frozen=True)
class Limits:
    """How long an engine may think: a clock and/or a per-move limit.

    moves: moves per period (0: the base time is for the whole game); base: seconds per period;
    inc: seconds added after each move; movetime: seconds per move; depth, nodes: search limits.
    With ``base == inc == 0`` there is no clock.

    >>> Limits.parse("40/60+0.5")
    Limits(moves=40, base=60.0, inc=0.5, movetime=None, depth=None, nodes=None)
    >>> Limits.parse("1:30+1").base, Limits.parse("inf").has_clock
    (90.0, False)
    """

    moves: int = 0
    base: float = 0.0
    inc: float = 0.0
    movetime: float | None = None
    depth: int | None = None
    nodes: int | None = None

    @property
    def has_clock(self) -> bool:
        return self.base > 0 or self.inc > 0

    @staticmethod
    def parse(text: str) -> "Limits":
        """A time control written ``[MOVES/]BASE[+INC]`` (BASE in seconds or ``M:SS``) or ``inf``."""
        t = text.strip()
        if t in ("inf", "infinite", "-"):
            return Limits()
        m = re.fullmatch(r"(?:(\d+)/)?(\d+(?:\.\d*)?|\d+:\d{1,2}(?:\.\d*)?)(?:\+(\d+(?:\.\d*)?))?", t)
        if not m:
            raise ValueError(f"bad time control {text!r}: expected [MOVES/]SECONDS[+INC] like 40/60+0.5, "
                             f"10+0.1 or 1:30+1, or inf")
        moves = int(m.group(1) or 0)
        base_text = m.group(2)
        if ":" in base_text:
            mins, secs = base_text.split(":")
            base = int(mins) * 60 + float(secs)
        else:
            base = float(base_text)
        inc = float(m.group(3) or 0)
        if base <= 0 and inc <= 0:
            raise ValueError(f"bad time control {text!r}: no time at all")
        if m.group(1) is not None and moves <= 0:
            raise ValueError(f"bad time control {text!r}: moves per period must be > 0")
        return Limits(moves, base, inc)

    def with_(self, **kw) -> "Limits":
        d = dict(moves=self.moves, base=self.base, inc=self.inc, movetime=self.movetime,
                 depth=self.depth, nodes=self.nodes)
        d.update(kw)
        return Limits(**d)

    def clock_text(self) -> str:
        """``40/60+0.5`` (cutechess's form), ``inf`` without a clock."""
        if not self.has_clock:
            return "inf"
        text = f"{self.moves}/" if self.moves else ""
        text += format_seconds(self.base)
        if self.inc:
            text += f"+{format_seconds(self.inc)}"
        return text

    def describe(self) -> str:
        parts = []
        if self.has_clock:
            parts.append(f"tc {self.clock_text()}")
        if self.movetime is not None:
            parts.append(f"{format_seconds(self.movetime)}s/move")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"{self.nodes} nodes")
        return ", ".join(parts) or "no limit"

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` value: ``40/60+0.5``, ``10+0.1``, ``2/move`` or ``-``."""
        if self.has_clock:
            return self.clock_text()
        if self.movetime is not None:
            return f"{format_seconds(self.movetime)}/move"
        return "-"


@dataclass
class EngineConfig:
    """One engine as the user gave it (``--engine cmd=...,name=...,proto=...,option.X=Y``).

    cmd: the command line (split like a shell would, run without one); name: shown in tables and
    PGNs (default: the engine's own name, else the command's base name); proto: ``auto``,
    ``uci`` or ``xboard``; dir: working directory; options: engine options by name;
    stderr: a file to append the engine's stderr to; variant: the name sent to the engine
    when it differs from jitfish's; limits: this engine's own limits (else the match's);
    variant_path: a variant file (or folder) handed to an engine that has a ``VariantPath``
    option (jitfish, Fairy-Stockfish) before the variant is checked.
    """

    cmd: str
    name: str = ""
    proto: str = Protocol.AUTO
    dir: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    stderr: str | None = None
    variant: str | None = None
    limits: Limits | None = None
    variant_path: str | None = None

    def argv(self) -> list[str]:
        argv = shlex.split(self.cmd)
        if not argv:
            raise EngineError("empty engine command")
        return argv

    def default_name(self) -> str:
        try:
            return os.path.basename(self.argv()[0])
        except (ValueError, EngineError):
            return self.cmd


@dataclass
class GoRequest:
    """What the engine needs for one move.

    moves: every move since the game's start FEN (the engine is sent only those it has not
    seen); side: the side the engine moves for (0 White, 1 Black); wtime/btime: seconds left on
    the clocks (None without one); winc/binc: increments; movestogo: moves to the next time
    control; budget: seconds to wait for the answer before ``EngineTimeout``; on_info: called
    with a copy of the thinking output after every line of it that names a depth (UCI ``info``,
    CECP thinking), e.g. to follow a search iteration by iteration.
    """

    moves: Sequence[str]
    side: int
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    budget: float = 60.0
    on_info: Callable[[SearchInfo], None] | None = None


@dataclass
class SearchInfo:
    """The last thinking output before a move. score: centipawns from the mover's side;
    mate: moves to mate (negative: being mated); time: seconds; pv: the line as text."""

    depth: int | None = None
    seldepth: int | None = None
    score: int | None = None
    mate: int | None = None
    nodes: int | None = None
    time: float | None = None
    pv: str = ""
    nps: int | None = None

    def score_cp(self) -> int | None:
        """Score in centipawns, mates as +-100000 minus the distance."""
        if self.mate is not None:
            return (100000 - abs(self.mate)) * (1 if self.mate > 0 else -1)
        return self.score


@dataclass
class Reply:
    """An engine's answer to ``go``: a move, or a claim/resignation instead of one.

    move: the move text as sent; elapsed: seconds from ``go`` to the answer; info: its last
    thinking output; claim: ``(result, comment)`` when a CECP engine claimed a result
    (``resign`` is reported as the claim of its own loss).
    """

    move: str | None
    elapsed: float
    info: SearchInfo = field(default_factory=SearchInfo)
    claim: tuple[str, str] | None = None


# ---------------------------------------------------------------------------------------------
# parsing helpers

_FEATURE = re.compile(r'(\w+)=("[^"]*"|\S+)')
_UNKNOWN = re.compile(r"Error\s*\((?:unknown|unkown) command\):\s*(\S+)", re.I)  # sic: Fairy-Stockfish


def parse_feature_line(line: str) -> list[tuple[str, str]]:
    """``feature a=1 b="x y"`` -> ``[("a", "1"), ("b", "x y")]``.

    >>> parse_feature_line('feature ping=1 myname="Fairy-Max 5.0b" done=0')
    [('ping', '1'), ('myname', 'Fairy-Max 5.0b'), ('done', '0')]
    """
    body = line.split(None, 1)[1] if " " in line.strip() else ""
    return [(k, v[1:-1] if v.startswith('"') and v.endswith('"') and len(v) >= 2 else v)
            for k, v in _FEATURE.findall(body)]


_THINK = re.compile(r"^\s*(\d+)[.&]?\s+(-?\d+)\s+(\d+)\s+(\d+)(?:\s+(.*))?$")


def parse_cecp_thinking(line: str) -> SearchInfo | None:
    """CECP thinking output ``PLY SCORE TIME(cs) NODES PV`` -> SearchInfo, else None.

    Scores beyond +-90000 are read as mates (XBoard's convention: 100000 + N).

    >>> parse_cecp_thinking("8 176 1 3748 e7e6 h2h3").score
    176
    """
    m = _THINK.match(line)
    if not m:
        return None
    depth, score, cs, nodes, pv = m.groups()
    info = SearchInfo(depth=int(depth), nodes=int(nodes), time=int(cs) / 100.0, pv=(pv or "").strip())
    s = int(score)
    if abs(s) >= 90000:
        dist = 100000 - abs(s)
        info.mate = max(1, (dist + 1) // 2) * (1 if s > 0 else -1)
    else:
        info.score = s
    return info


def parse_uci_info(line: str, into: SearchInfo | None = None) -> SearchInfo:
    """``info depth 8 score cp 176 nodes 3748 time 26 pv ...`` -> SearchInfo (fields not given
    keep ``into``'s values).

    >>> i = parse_uci_info("info depth 9 seldepth 11 score mate -3 nodes 5555 time 39 pv g5f4")
    >>> i.depth, i.mate, i.nodes, i.time, i.pv
    (9, -3, 5555, 0.039, 'g5f4')
    """
    info = into if into is not None else SearchInfo()
    tok = line.split()
    i = 1
    while i < len(tok):
        t = tok[i]
        try:
            if t in ("depth", "seldepth", "nodes", "nps") and i + 1 < len(tok):
                setattr(info, t, int(tok[i + 1]))
                i += 2
            elif t == "time" and i + 1 < len(tok):
                info.time = int(tok[i + 1]) / 1000.0
                i += 2
            elif t == "score" and i + 2 < len(tok):
                if tok[i + 1] == "cp":
                    info.score, info.mate = int(tok[i + 2]), None
                elif tok[i + 1] == "mate":
                    info.mate, info.score = int(tok[i + 2]), None
                i += 3
            elif t == "pv":
                info.pv = " ".join(tok[i + 1:])
                break
            elif t == "string":
                break
            else:
                i += 1
        except ValueError:
            i += 1
    return info


# ---------------------------------------------------------------------------------------------
# the process


Logger = Callable[[str, str, str], None]  # (engine name, "<" or ">", line)


class _Process:
    """An engine process with a reader thread per output stream.

    stdout lines go to a queue as ``(monotonic time, line)``, ``(time, None)`` at end of file;
    stderr is kept as its last lines (and appended to a file when asked).
    """

    def __init__(self, config: EngineConfig):
        self.config = config
        argv = config.argv()
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=config.dir or None, text=True, encoding="utf-8", errors="replace", bufsize=1,
                start_new_session=True)
        except OSError as exc:
            raise EngineCrashed(f"cannot start {config.cmd!r}: {exc.strerror or exc}") from None
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._stderr_file = open(config.stderr, "a", encoding="utf-8") if config.stderr else None
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        try:
            for line in self.proc.stdout:
                self.lines.put((time.monotonic(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        self.lines.put((time.monotonic(), None))

    def _read_stderr(self) -> None:
        try:
            for line in self.proc.stderr:
                self.stderr_tail.append(line.rstrip("\r\n"))
                if self._stderr_file:
                    self._stderr_file.write(line)
                    self._stderr_file.flush()
        except (OSError, ValueError):
            pass

    def write(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineCrashed(self.death_note()) from None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def death_note(self) -> str:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        what = "closed its output" if code is None else (
            f"was killed by signal {-code}" if code < 0 else f"exited with code {code}")
        tail = [ln for ln in self.stderr_tail if ln.strip()]
        return f"the engine process {what}" + (f" (stderr: {tail[-1].strip()[:200]})" if tail else "")

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    self.proc.kill()
                except OSError:
                    pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.close()

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        if self._stderr_file:
            self._stderr_file.close()
            self._stderr_file = None


# ---------------------------------------------------------------------------------------------
# engines


class Engine:
    """An engine process speaking one protocol. Use ``open_engine`` to make one.

    name: for tables and PGNs; protocol: ``"xboard"`` or ``"uci"``; variant: jitfish's variant
    name; engine_variant: the name the engine is sent; setup/pieces: what a CECP engine said
    about the variant (``setup`` line fields, ``piece`` lines by letter).
    """

    protocol = "?"

    def __init__(self, proc: _Process, config: EngineConfig, variant: str,
                 stop: threading.Event | None, log: Logger | None, start_timeout: float):
        self.proc = proc
        self.config = config
        self.variant = variant
        self.engine_variant = config.variant or variant
        self.stop = stop or threading.Event()
        self.log = log
        self.start_timeout = start_timeout
        self.name = config.name or config.default_name()
        self.own_name = ""
        self.setup: tuple[str, str, str] | None = None
        self.pieces: dict[str, str] = {}
        self.limits = Limits()
        self.start_fen = ""
        self._sent = 0
        self._thinking = False
        self.unknown_commands: set[str] = set()

    # -- I/O --------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        if self.log:
            self.log(self.name, ">", line)
        self.proc.write(line)

    def send_optional(self, line: str) -> None:
        """Send a command the engine may do without, unless it called it unknown before
        (Debian's Fairy-Max 5.0b was seen to crash at random after such an answer)."""
        if line.split()[0] not in self.unknown_commands:
            self.send(line)

    def _note_unknown(self, line: str) -> None:
        m = _UNKNOWN.match(line)
        if m:
            self.unknown_commands.add(m.group(1))

    def read(self, deadline: float | None, what: str) -> tuple[float, str]:
        """The next line before ``deadline`` (monotonic), or EngineTimeout/EngineCrashed."""
        start = time.monotonic()
        while True:
            if self.stop.is_set():
                raise MatchAborted()
            now = time.monotonic()
            wait = POLL if deadline is None else min(POLL, deadline - now)
            if wait <= 0:
                raise EngineTimeout(f"no {what} within {now - start:.1f} s", now - start)
            try:
                t, line = self.proc.lines.get(timeout=wait)
            except queue.Empty:
                continue
            if line is None:
                self.proc.lines.put((t, None))  # keep reporting the end
                raise EngineCrashed(self.proc.death_note())
            if self.log:
                self.log(self.name, "<", line)
            if line.startswith("Error"):
                self._note_unknown(line)
            return t, line

    def drain(self) -> list[str]:
        """Lines already waiting (answers to earlier commands), read without waiting."""
        out = []
        while True:
            try:
                t, line = self.proc.lines.get_nowait()
            except queue.Empty:
                return out
            if line is None:
                self.proc.lines.put((t, None))
                return out
            if self.log:
                self.log(self.name, "<", line)
            if line.startswith("Error"):
                self._note_unknown(line)
            out.append(line)

    def alive(self) -> bool:
        return self.proc.alive()

    # -- lifecycle --------------------------------------------------------------------------

    def handshake(self, first_lines: Sequence[tuple[float, str]] = ()) -> None:
        raise NotImplementedError

    def new_game(self, limits: Limits, start_fen: str, standard_start: bool = False) -> None:
        """Prepare a game from ``start_fen`` under ``limits``; waits until the engine is ready."""
        raise NotImplementedError

    def go(self, req: GoRequest) -> Reply:
        """Send the moves the engine has not seen, start it, and wait for its move."""
        raise NotImplementedError

    def game_over(self, result: str, reason: str) -> None:
        """Tell the engine the game has ended (best effort)."""

    def quit(self) -> None:
        """Ask the engine to quit; kill it if it does not within a second."""
        if self.alive():
            try:
                self.send("quit")
            except EngineError:
                pass
            try:
                self.proc.proc.wait(timeout=QUIT_GRACE)
            except subprocess.TimeoutExpired:
                pass
        self.proc.kill()

    def kill(self) -> None:
        self.proc.kill()


