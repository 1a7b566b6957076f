"""The GUI side of CECP v2 (XBoard) and UCI: run an engine process, set up games, ask for moves.

This is what ``jitfish match`` uses to drive engines; it knows protocols, not rules: moves are
passed through as text and the caller (the referee in ``engine/match.py``) judges them.

>>> eng = open_engine(EngineConfig("fairymax"), "courier")    # doctest: +SKIP
>>> eng.new_game(Limits(base=10, inc=0.1), START_FEN)          # doctest: +SKIP
>>> eng.go(GoRequest(moves=[], side=0, wtime=10, btime=10, winc=0.1, binc=0.1, budget=10.1))
Reply(move='g3f4', ...)                                         # doctest: +SKIP

CECP v2, as this client speaks it (``>`` to the engine, ``<`` from it)::

    > xboard                      > new
    > protover 2                  > variant courier          (not for chess: XBoard's "normal")
    < feature done=0              > easy / post
    < feature ping=1 setboard=1   > level 0 0:10 0.1 | st 2 | sd 6 | nps N
    > accepted ping ...           > force
    < feature done=1              > setboard FEN             (or ``edit`` when setboard=0)
                                  > ping 1   < pong 1
    per move: > force, usermove e2e4 (or plain e2e4), time 998, otim 1000, go   < move e7e5
    game end: > result 1-0 {White mates}, force

- ``feature done=0`` gives the engine up to ``start_timeout`` for ``done=1``; with no ``done``
  at all the client goes on 2 s after the last feature line (as XBoard does).
- ``san`` is rejected (moves must be coordinates); every other feature is accepted.
- Options: ``option NAME=VALUE``; ``Hash`` and ``Threads`` (UCI's names) become ``memory N`` and
  ``cores N`` when the engine has no option of that name but announced ``memory=1``/``smp=1``.
- An engine that answers a move with ``Illegal move...: MOVE`` or ``Error (...): MOVE`` has
  rejected a move the referee found legal: ``EngineRejectedMove``.
- ``setup (...) WxH+N_fairy FEN`` and ``piece X& BETZA`` lines (an engine defining its own
  variant) are parsed into ``Engine.setup`` and ``Engine.pieces``.
- Castling written ``O-O``/``O-O-O`` (Sjaak II's default) comes through unchanged; the referee
  maps it to the king's move.

UCI: ``uci`` -> ``id``/``option`` lines -> ``uciok``; ``setoption name UCI_Variant value V`` (when
the variant is not chess, the engine must offer it); user options; ``isready``/``readyok``.
Per game ``ucinewgame`` + ``isready``; per move ``position fen START moves ...`` and
``go wtime btime winc binc [movestogo] | movetime | depth | nodes``, answered by ``bestmove``.

Protocol detection (``proto="auto"``): ``xboard`` + ``protover 2`` first; a ``feature`` line means
CECP. With no ``feature`` line after ``detect_timeout`` (or sooner, on an ``unknown command``
reply), ``uci`` is sent and ``uciok`` means UCI. A late ``feature`` line still wins.

Failures are exceptions: ``EngineCrashed`` (the process ended), ``EngineTimeout`` (no answer
in time), ``EngineRejectedMove``, ``EngineError`` (anything else, e.g. a variant the engine
does not play). ``MatchAborted`` is raised from a wait when the caller's stop event is set.
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
from typing import Callable, Sequence

__all__ = [
    "EngineConfig", "Limits", "GoRequest", "SearchInfo", "Reply", "Engine", "CecpEngine",
    "UciEngine", "open_engine", "EngineError", "EngineCrashed", "EngineTimeout",
    "EngineRejectedMove", "MatchAborted", "parse_feature_line", "parse_cecp_thinking",
    "parse_uci_info", "cecp_variant_name", "format_seconds",
]

# seconds
DETECT_TIMEOUT = 3.0
START_TIMEOUT = 120.0
FEATURE_QUIET = 2.0  # no done=1: go on this long after the last feature line
QUIT_GRACE = 1.0
POLL = 0.05


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
    when it differs from jitfish's; limits: this engine's own limits (else the match's).
    """

    cmd: str
    name: str = ""
    proto: str = "auto"
    dir: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    stderr: str | None = None
    variant: str | None = None
    limits: Limits | None = None

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
    control; budget: seconds to wait for the answer before ``EngineTimeout``.
    """

    moves: Sequence[str]
    side: int
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    budget: float = 60.0


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
            if t in ("depth", "seldepth", "nodes") and i + 1 < len(tok):
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


def cecp_variant_name(variant: str) -> str:
    """jitfish's variant name -> the CECP name (``chess`` is XBoard's ``normal``)."""
    return "normal" if variant == "chess" else variant


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


class CecpEngine(Engine):
    """The GUI side of CECP v2 (XBoard protocol)."""

    protocol = "xboard"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.features: dict[str, str] = {}
        self.options: dict[str, str] = {}  # announced option name -> its description
        self._ping = 0

    # feature names this client understands; "san" is refused (moves must be coordinates)
    _REFUSED = {"san"}

    def _feature(self, line: str) -> str | None:
        """Record and answer a feature line; returns the done value when it has one."""
        done = None
        for key, value in parse_feature_line(line):
            if key == "option":
                m = re.match(r"\s*(.+?)\s+-(\w+)", value)
                if m:
                    self.options[m.group(1)] = value
                self.send(f"accepted {key}")
                continue
            self.features[key] = value
            if key == "done":
                done = value
                continue
            self.send(f"{'rejected' if key in self._REFUSED and value != '0' else 'accepted'} {key}")
            if key == "myname":
                self.own_name = value
        return done

    def handshake(self, first_lines: Sequence[tuple[float, str]] = ()) -> None:
        """Read the feature lines (``xboard``/``protover 2`` already sent)."""
        start = time.monotonic()
        deadline = start + self.start_timeout
        quiet_until = None
        pending = list(first_lines)
        while True:
            if pending:
                _, line = pending.pop(0)
            else:
                limit = deadline if quiet_until is None else min(deadline, quiet_until)
                try:
                    _, line = self.read(limit, "feature done=1")
                except EngineTimeout:
                    if quiet_until is not None and time.monotonic() < deadline:
                        break  # features without done=1: go on, as XBoard does
                    raise EngineTimeout(f"no 'feature done=1' within {self.start_timeout:.0f} s",
                                        time.monotonic() - start) from None
            if line.startswith("feature"):
                done = self._feature(line)
                if done == "1":
                    break
                if done == "0":
                    quiet_until = None
                    deadline = start + self.start_timeout
                    self._done0 = True
                elif not getattr(self, "_done0", False):
                    quiet_until = time.monotonic() + FEATURE_QUIET
        if not self.config.name and self.own_name:
            self.name = self.own_name
        # the variant must be one the engine announced (normal is always played)
        ev = cecp_variant_name(self.engine_variant)
        variants = [v.strip() for v in self.features.get("variants", "").split(",") if v.strip()]
        if ev != "normal" and ev not in variants:
            raise EngineError(f"{self.name} does not play {ev!r} (its variants: {', '.join(variants) or 'none announced'})")
        for name, value in self.config.options.items():
            if name not in self.options:
                # UCI's Hash and Threads are CECP's memory and cores commands
                if name.lower() == "hash" and self.features.get("memory") == "1":
                    self.send(f"memory {value}")
                    continue
                if name.lower() == "threads" and self.features.get("smp") == "1":
                    self.send(f"cores {value}")
                    continue
                if self.options:
                    raise EngineError(f"{self.name} has no option {name!r} (it has: {', '.join(self.options)})")
            self.send(f"option {name}={value}")

    def _sync(self, what: str) -> list[str]:
        """ping/pong (when the engine has ping): returns the lines read before the pong."""
        if self.features.get("ping") != "1":
            return self.drain()
        self._ping += 1
        n = self._ping
        self.send(f"ping {n}")
        deadline = time.monotonic() + self.start_timeout
        lines = []
        while True:
            _, line = self.read(deadline, f"pong {n} after {what}")
            if line.split()[:2] == ["pong", str(n)]:
                return lines
            lines.append(line)
            self._note_setup(line)

    def _note_setup(self, line: str) -> None:
        if line.startswith("setup "):
            m = re.match(r"setup\s+\(([^)]*)\)\s+(\S+)\s+(.*)$", line)
            if m:
                self.setup = (m.group(1), m.group(2), m.group(3).strip())
        elif line.startswith("piece "):
            parts = line.split(None, 2)
            if len(parts) == 3:
                self.pieces[parts[1].rstrip("&")] = parts[2]

    def new_game(self, limits: Limits, start_fen: str, standard_start: bool = False) -> None:
        self.limits = limits
        self.start_fen = start_fen
        self._sent = 0
        self.drain()
        self.send("new")
        ev = cecp_variant_name(self.engine_variant)
        if ev != "normal":
            self.send(f"variant {ev}")
        self.send_optional("easy")
        self.send_optional("post")
        if limits.has_clock:
            base = int(round(limits.base))
            base_text = f"{base // 60}:{base % 60:02d}" if base % 60 else str(base // 60)
            self.send(f"level {limits.moves} {base_text} {format_seconds(limits.inc)}")
        if limits.movetime is not None:
            self.send(f"st {format_seconds(limits.movetime)}")
        if limits.depth is not None:
            self.send(f"sd {limits.depth}")
        if limits.nodes is not None:
            if self.features.get("nps") == "0":
                raise EngineError(f"{self.name} cannot search a node count (feature nps=0)")
            self.send(f"nps {limits.nodes}")
            if limits.movetime is None and not limits.has_clock:
                self.send("st 1")
        self.send("force")
        if not standard_start:
            if self.features.get("setboard") == "1":
                self.send(f"setboard {start_fen}")
            else:
                self._edit(start_fen)
        lines = self._sync("new game")
        for line in lines:
            low = line.lower()
            if low.startswith("tellusererror") or "illegal position" in low or (
                    low.startswith("error") and ("setboard" in low or "variant" in low)):
                raise EngineError(f"{self.name} refused the position: {line.strip()}")

    def _edit(self, fen: str) -> None:
        """Set up a position with ``edit`` (engines without setboard), as XBoard does."""
        fields = fen.split()
        rows = fields[0].split("/")
        if len(fields) > 1 and fields[1] == "b":
            self.send("a2a3")  # the protocol's way to get Black to move before edit
        self.send("edit")
        self.send("#")
        placed: list[list[str]] = [[], []]
        nranks = len(rows)
        for i, row in enumerate(rows):
            rank = nranks - i
            f = 0
            for m in re.finditer(r"\d+|[A-Za-z]", row):
                tok = m.group(0)
                if tok.isdigit():
                    f += int(tok)
                    continue
                sq = "abcdefghijklmnop"[f] + str(rank)
                placed[0 if tok.isupper() else 1].append(tok.upper() + sq)
                f += 1
        for cmd in placed[0]:
            self.send(cmd)
        self.send("c")
        for cmd in placed[1]:
            self.send(cmd)
        self.send(".")

    def _move_cmd(self, move: str) -> str:
        return f"usermove {move}" if self.features.get("usermove") == "1" else move

    def go(self, req: GoRequest) -> Reply:
        self.drain()  # late lines (claims after a move, stray output) belong to nothing now
        self.send("force")
        sent = []
        for mv in req.moves[self._sent:]:
            self.send(self._move_cmd(mv))
            sent.append(mv)
        self._sent = len(req.moves)
        if req.wtime is not None and req.btime is not None:
            own, opp = (req.wtime, req.btime) if req.side == 0 else (req.btime, req.wtime)
            self.send(f"time {max(0, int(own * 100))}")
            self.send(f"otim {max(0, int(opp * 100))}")
        t0 = time.monotonic()
        self.send("go")
        self._thinking = True
        deadline = t0 + req.budget
        info = SearchInfo()
        while True:
            try:
                t, line = self.read(deadline, "move")
            except EngineTimeout as exc:
                raise EngineTimeout(f"no move within {exc.elapsed:.2f} s", exc.elapsed) from None
            s = line.strip()
            if not s:
                continue
            head = s.split()[0]
            if head == "move" and len(s.split()) >= 2:
                self._thinking = False
                self._sent += 1  # the engine knows its own move
                self.send("force")
                return Reply(s.split()[1], t - t0, info)
            if s.startswith("Illegal move") or head.startswith("Error"):
                bad = s.rsplit(":", 1)[-1].strip() if ":" in s else ""
                bad = bad.split()[-1] if bad else ""
                if bad and bad in sent:
                    self._thinking = False
                    raise EngineRejectedMove(f"{self.name} rejects the legal move {bad} ({s})", bad, s)
                continue
            if head in ("1-0", "0-1", "1/2-1/2"):
                self._thinking = False
                m = re.search(r"\{(.*)\}", s)
                return Reply(None, t - t0, info, (head, m.group(1).strip() if m else ""))
            if head == "resign":
                self._thinking = False
                return Reply(None, t - t0, info, ("0-1" if req.side == 0 else "1-0", "resign"))
            think = parse_cecp_thinking(s)
            if think is not None:
                info = think
                continue
            self._note_setup(s)

    def game_over(self, result: str, reason: str) -> None:
        if not self.alive():
            return
        try:
            if self._thinking:
                self.send("?")
            self.send_optional(f"result {result} {{{reason}}}")
            self.send("force")
        except EngineError:
            pass
        self._thinking = False


class UciEngine(Engine):
    """The GUI side of UCI."""

    protocol = "uci"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.options: dict[str, str] = {}  # name -> the option line

    def handshake(self, first_lines: Sequence[tuple[float, str]] = ()) -> None:
        """Read ``id``/``option`` lines up to ``uciok`` (``uci`` already sent), set options."""
        deadline = time.monotonic() + self.start_timeout
        pending = list(first_lines)
        while True:
            if pending:
                _, line = pending.pop(0)
            else:
                _, line = self.read(deadline, "uciok")
            s = line.strip()
            if s == "uciok":
                break
            if s.startswith("id name "):
                self.own_name = s[8:].strip()
            elif s.startswith("option name "):
                m = re.match(r"option name (.+?) type ", s)
                if m:
                    self.options[m.group(1)] = s
        if not self.config.name and self.own_name:
            self.name = self.own_name
        ev = self.engine_variant
        if "UCI_Variant" in self.options:
            choices = re.findall(r"\bvar (\S+)", self.options["UCI_Variant"])
            if choices and ev not in choices:
                raise EngineError(f"{self.name} does not play {ev!r} (UCI_Variant choices: {', '.join(choices)})")
            self.send(f"setoption name UCI_Variant value {ev}")
        elif self.variant != "chess" and not self.config.variant:
            raise EngineError(f"{self.name} has no UCI_Variant option: it plays only chess")
        for name, value in self.config.options.items():
            if self.options and name not in self.options:
                raise EngineError(f"{self.name} has no option {name!r} (it has: {', '.join(self.options)})")
            if " type button" in self.options.get(name, ""):
                self.send(f"setoption name {name}")
            else:
                self.send(f"setoption name {name} value {value}")
        self._isready("the options")

    def _isready(self, what: str) -> None:
        self.send("isready")
        deadline = time.monotonic() + self.start_timeout
        while True:
            _, line = self.read(deadline, f"readyok after {what}")
            if line.strip() == "readyok":
                return

    def new_game(self, limits: Limits, start_fen: str, standard_start: bool = False) -> None:
        self.limits = limits
        self.start_fen = start_fen
        self.drain()
        self.send("ucinewgame")
        self._isready("ucinewgame")

    def go(self, req: GoRequest) -> Reply:
        self.drain()
        moves = " ".join(req.moves)
        self.send(f"position fen {self.start_fen}" + (f" moves {moves}" if moves else ""))
        parts = ["go"]
        lim = self.limits
        if req.wtime is not None and req.btime is not None:
            parts += ["wtime", str(max(0, int(req.wtime * 1000))), "btime", str(max(0, int(req.btime * 1000))),
                      "winc", str(int(req.winc * 1000)), "binc", str(int(req.binc * 1000))]
            if req.movestogo:
                parts += ["movestogo", str(req.movestogo)]
        if lim.movetime is not None:
            parts += ["movetime", str(max(1, int(lim.movetime * 1000)))]
        if lim.depth is not None:
            parts += ["depth", str(lim.depth)]
        if lim.nodes is not None:
            parts += ["nodes", str(lim.nodes)]
        if len(parts) == 1:
            parts.append("infinite")  # nothing limits it: only the hang timeout ends the wait
        t0 = time.monotonic()
        self.send(" ".join(parts))
        self._thinking = True
        deadline = t0 + req.budget
        info = SearchInfo()
        while True:
            try:
                t, line = self.read(deadline, "bestmove")
            except EngineTimeout as exc:
                raise EngineTimeout(f"no bestmove within {exc.elapsed:.2f} s", exc.elapsed) from None
            s = line.strip()
            if s.startswith("bestmove"):
                self._thinking = False
                tok = s.split()
                mv = tok[1] if len(tok) >= 2 else ""
                return Reply(mv if mv not in ("", "(none)", "0000", "none") else None, t - t0, info)
            if s.startswith("info ") and " string " not in s[:12]:
                parse_uci_info(s, info)

    def game_over(self, result: str, reason: str) -> None:
        if self._thinking and self.alive():
            try:
                self.send("stop")
            except EngineError:
                pass
        self._thinking = False


# ---------------------------------------------------------------------------------------------


def open_engine(config: EngineConfig, variant: str, *, stop: threading.Event | None = None,
                log: Logger | None = None, start_timeout: float = START_TIMEOUT,
                detect_timeout: float = DETECT_TIMEOUT) -> Engine:
    """Start the engine, detect (or take) its protocol, finish the handshake, check the variant.

    Raises EngineError (EngineCrashed, EngineTimeout) when it cannot; the process is then killed.
    """
    proto = {"cecp": "xboard", "xb": "xboard", "winboard": "xboard"}.get(config.proto, config.proto)
    if proto not in ("auto", "uci", "xboard"):
        raise EngineError(f"unknown protocol {config.proto!r} (auto, uci or xboard)")
    proc = _Process(config)
    args = (proc, config, variant, stop, log, start_timeout)
    try:
        if proto == "uci":
            eng: Engine = UciEngine(*args)
            eng.send("uci")
            eng.handshake()
            return eng
        eng = CecpEngine(*args)
        eng.send("xboard")
        eng.send("protover 2")
        if proto == "xboard":
            eng.handshake()
            return eng
        # auto: CECP if a feature line comes, else try UCI
        seen: list[tuple[float, str]] = []
        t_end = time.monotonic() + detect_timeout
        while True:
            try:
                t, line = eng.read(t_end, "feature")
            except EngineTimeout:
                break
            seen.append((t, line))
            if line.startswith("feature"):
                eng.handshake(seen[-1:])
                return eng
            low = line.lower()
            if "unknown command" in low or low.startswith("error") or "unknown" in low and "xboard" in low:
                break
        uci = UciEngine(*args)
        uci.send("uci")
        deadline = time.monotonic() + start_timeout
        lines: list[tuple[float, str]] = []
        while True:
            try:
                t, line = uci.read(deadline, "uciok or feature")
            except EngineTimeout as exc:
                raise EngineTimeout(f"no answer to 'xboard'/'protover 2' (CECP) nor to 'uci' (UCI) "
                                    f"within {detect_timeout + exc.elapsed:.0f} s", exc.elapsed) from None
            if line.startswith("feature"):  # a slow CECP engine after all
                eng.handshake([(t, line)])
                return eng
            lines.append((t, line))
            if line.strip() == "uciok":
                uci.handshake(lines)
                return uci
    except BaseException:
        proc.kill()
        raise
