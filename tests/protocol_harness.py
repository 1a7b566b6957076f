"""Protocol transcripts replayed in-process, and a fast, deterministic stand-in search engine.

A transcript is text, one line each::

    # a comment
    > protover 2                   sent to the engine
    < feature done=0               the next output line must match (``*`` matches anything)
    < feature ping=1 * done=1
    ~                              wait until every line sent so far has been handled
    = 0.2                          sleep 0.2 s

Output lines that match the session's *noise* (thinking output, ``info depth`` lines) are
skipped unless the current ``<`` pattern asks for them. At the end every non-noise line must
have been matched: an unexpected line fails the transcript.

``FakeEngine`` has the search API (``jitfish.engine.Engine``) without numba: it plays
the first legal move in name order (the expected reply as ponder move), honours depth, nodes,
movetime and clocks roughly, runs until ``stop()`` when infinite, and records every call, so
transcripts are exact and fast. Real-engine runs are in test_protocol_process.py.
"""
from __future__ import annotations

import re
import threading
import time

from jitfish.engine import SearchInfo, SearchResult
from jitfish.protocol.host import EngineHost
from jitfish.protocol.loop import EngineLoop, Output

NOISE = re.compile(r"^(\d+ -?\d+ \d+ \d+ |info depth )")


# the real result types: the stand-in differs only in how it finds its moves
FakeInfo = SearchInfo
FakeResult = SearchResult


class FakeEngine:
    """The Engine API, deterministic and quick (see the module doc)."""

    instances: list["FakeEngine"] = []
    prefer: list[str] = []  # moves to play whenever legal (tests set it)

    def __init__(self, hash_mb: int = 16):
        self.hash_mb = hash_mb
        self.calls: list[tuple] = []
        self._stop = threading.Event()
        self.score = 12
        self.mate: int | None = None  # what the result reports (tests set it)
        FakeEngine.instances.append(self)

    def warmup(self, variant: str = "chess") -> None:
        self.calls.append(("warmup", variant))

    def new_game(self) -> None:
        self.calls.append(("new_game",))

    def set_hash(self, mb: int) -> None:
        self.hash_mb = mb
        self.calls.append(("set_hash", mb))

    def stop(self) -> None:
        self._stop.set()

    def hashfull(self) -> int:
        return 0

    def search(self, pos, limits=None, on_info=None, multipv: int = 1):
        self._stop.clear()
        self.calls.append(("search", pos.fen(), limits))
        names = sorted(pos.move_name(m) for m in pos.legal_moves())
        if limits is not None and limits.searchmoves:
            names = [n for n in names if n in limits.searchmoves] or names
        if not names:
            return FakeResult(None, None, None, None, 0, 0)
        best = next((m for m in self.prefer if m in names), names[0])
        firsts = [best] + [n for n in names if n != best][:max(1, multipv) - 1]
        lines = []
        for first in firsts:
            q = pos.copy()
            q.push(first)
            replies = sorted(q.move_name(m) for m in q.legal_moves())
            lines.append([first] + replies[:1])
        pv = lines[0]
        ponder = pv[1] if len(pv) > 1 else None
        t0 = time.perf_counter()
        depth_limit = (limits.depth if limits and limits.depth else 3)
        for d in range(1, depth_limit + 1):
            if on_info:
                for k, line in enumerate(lines, 1):
                    on_info(FakeInfo(d, d, self.score, None, 100 * d, 10000, time.perf_counter() - t0, line, 0,
                                     k if multipv > 1 else 1))
            if self._stop.is_set():
                break
        if limits is not None:
            wait = None
            if limits.infinite:
                wait = 3600.0
            elif limits.movetime:
                wait = limits.movetime
            elif limits.wtime is not None or limits.btime is not None:
                clock = limits.wtime if pos.turn == 0 else limits.btime
                wait = min(0.05, (clock or 1.0) / 40)
            if wait:
                self._stop.wait(wait)
        return FakeResult(best, ponder, None if self.mate else self.score, self.mate, depth_limit,
                          100 * depth_limit, pv, lines)


def warm_movegen() -> None:
    """Compile (or load) the movegen kernels once, before timing-sensitive transcripts."""
    from jitfish.movegen import Position

    pos = Position("chess")
    pos.push("e2e4")
    pos.outcome()
    pos.fen()
    pos.divide(1)


class Session:
    """An engine loop in a thread, fed and read by a test."""

    def __init__(self, factory=FakeEngine, timeout: float = 20.0):
        self.out = Output()
        self.host = EngineHost(factory=factory)
        self.host.start_warmup()
        self.loop = EngineLoop(self.out, self.host)
        self.thread = threading.Thread(target=self.loop.run, daemon=True)
        self.thread.start()
        self.next = 0
        self.timeout = timeout

    def send(self, line: str) -> None:
        self.loop.feed(line + "\n")

    def sync(self, timeout: float | None = None) -> None:
        """Wait until every line sent so far has been handled by the loop."""
        done = threading.Event()
        self.loop.post(done.set)
        assert done.wait(timeout or self.timeout), "the engine loop did not catch up"

    def expect(self, pattern: str, timeout: float | None = None) -> str:
        """The next output line matching ``pattern`` (noise lines before it are skipped)."""
        rx = glob(pattern)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            line = self.out.wait_line(self.next, max(0.0, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"expected {pattern!r}, got nothing; output so far:\n"
                                     + "\n".join(self.out.lines[-20:]))
            self.next += 1
            if rx.fullmatch(line):
                return line
            if NOISE.match(line):
                continue
            raise AssertionError(f"expected {pattern!r}, got {line!r}; output so far:\n"
                                 + "\n".join(self.out.lines[-20:]))

    def unread(self) -> list[str]:
        """Output lines not matched yet, noise left out."""
        rest = self.out.lines[self.next:]
        self.next = len(self.out.lines)
        return [x for x in rest if not NOISE.match(x)]

    def close(self) -> None:
        self.send("quit")
        self.thread.join(10)


def glob(pattern: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))


def replay(text: str, session: Session | None = None, settle: float = 0.05) -> Session:
    """Replay a transcript (see the module doc); returns the session, still open."""
    s = session or Session()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        line = line.lstrip()
        try:
            if line.startswith("> "):
                s.send(line[2:])
            elif line == ">":
                s.send("")
            elif line.startswith("< "):
                s.expect(line[2:])
            elif line == "<":
                s.expect("")
            elif line == "~":
                s.sync()
            elif line.startswith("= "):
                time.sleep(float(line[2:]))
            else:
                raise ValueError(f"bad transcript line: {line!r}")
        except AssertionError as exc:
            raise AssertionError(f"transcript line {n}: {line}\n{exc}") from None
    s.sync()
    time.sleep(settle)
    s.sync()
    extra = s.unread()
    assert not extra, f"unexpected output at the end of the transcript: {extra}"
    return s
