"""UCI for every jitfish variant (``UCI_Variant`` picks it, as in Fairy-Stockfish).

Moves are coordinates on boards up to 12 files (``k1j3``); FENs may count empty squares with two
digits. Bad input is answered with ``info string ...`` and changes nothing: a ``position``
command with a bad FEN or move leaves the previous position in place, a bad ``go`` parameter is
reported and skipped (the GUI still gets its ``bestmove``).

- ``go ponder``: an infinite search on the predicted position; ``ponderhit`` stops it and starts
  the timed search on the same position (the hash keeps the ponder search's work); ``stop``
  ends it with a ``bestmove`` as usual.
- ``MultiPV`` above 1: the protocol searches each depth once per line, excluding the moves of
  the lines already found (``searchmoves``), and reports ``info multipv K`` for each.
- ``go perft N`` prints ``MOVE: COUNT`` lines and ``Nodes searched: N``.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from .cecp import run_perft

if TYPE_CHECKING:
    from .loop import EngineLoop

__all__ = ["UciSession", "parse_go"]

log = logging.getLogger("jitfish.protocol")

_GO_INT = {"wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate", "perft"}
_GO_FLAG = {"infinite", "ponder"}
_GO_KEYWORDS = _GO_INT | _GO_FLAG | {"searchmoves"}


def parse_go(tokens: list[str]) -> tuple[dict[str, Any], list[str]]:
    """``go`` arguments -> ({name: value}, [problems]). Times stay in milliseconds.

    >>> parse_go("wtime 1000 btime x infinite searchmoves e2e4 d2d4".split())
    ({'wtime': 1000, 'infinite': True, 'searchmoves': ['e2e4', 'd2d4']}, ["btime needs a number >= 0, not 'x'"])
    """
    out: dict[str, Any] = {}
    problems: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _GO_FLAG:
            out[tok] = True
            i += 1
        elif tok in _GO_INT:
            val = tokens[i + 1] if i + 1 < len(tokens) else None
            try:
                n = int(val) if val is not None else None
            except ValueError:
                n = None
            if n is not None and tok in ("wtime", "btime", "winc", "binc", "movetime"):
                n = min(n, 10**10)  # ms; longer clocks overflow timers
            elif n is not None:
                n = min(n, 2**62 if tok == "nodes" else 1000)
            if n is None or n < 0 or (tok in ("depth", "perft", "movestogo", "mate") and n < 1
                                        and not (tok == "movestogo" and n == 0)):
                problems.append(f"{tok} needs a number >= {0 if tok in ('wtime', 'btime', 'winc', 'binc', 'nodes', 'movetime', 'movestogo') else 1}, not {val!r}")
                i += 2 if val is not None and val not in _GO_KEYWORDS else 1
                continue
            out[tok] = n
            i += 2
        elif tok == "searchmoves":
            moves = []
            i += 1
            while i < len(tokens) and tokens[i] not in _GO_KEYWORDS:
                moves.append(tokens[i])
                i += 1
            out["searchmoves"] = moves
        else:
            problems.append(f"unknown go parameter {tok!r}")
            i += 1
    return out, problems


class UciSession:
    """One UCI conversation."""

    def __init__(self, loop: "EngineLoop"):
        self.loop = loop
        self.host = loop.host
        self.write = loop.out
        self.variant = "chess"
        self.pos: Any = None
        self._last_position: tuple[Any, list[str], Any] | None = None  # (start, moves, position)
        self.ponder_option = False
        self.multipv = 1
        self.move_overhead = 0.05
        self.debug = False
        self.mode = "idle"  # idle | search | ponder | perft
        self.job = None
        self.ponder_limits = None  # the real limits of a `go ponder`, used on ponderhit

    # -- plumbing --------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.write(f"info string {text}")

    def internal_error(self, exc: BaseException, line: str) -> None:
        self.say(f"internal error ({type(exc).__name__}: {exc}) on: {line.strip()}")

    def close(self) -> None:
        self._abort()

    def _ready(self) -> bool:
        if not self.host.wait_ready(self.loop.quit):
            return False
        if self.pos is None:
            from jitfish.movegen import Position

            self.pos = Position(self.variant)
        return True

    def handle(self, line: str) -> bool:
        tokens = line.split()
        cmd, args = tokens[0], tokens[1:]
        if cmd == "quit":
            self._abort()
            return False
        if cmd not in ("uci", "debug", "register", "stop") and not self._ready():
            return False
        fn = getattr(self, "cmd_" + cmd, None)
        if fn is None:
            self.say(f"unknown command: {line}")
            return True
        fn(args, line)
        return True

    # -- start-up, options -----------------------------------------------------------------

    def cmd_uci(self, args: list[str], line: str) -> None:
        from jitfish import __version__
        from jitfish.movegen import variant_names

        self.write(f"id name jitfish {__version__}")
        self.write("id author the jitfish authors")
        self.write("option name Hash type spin default 16 min 1 max 4096")
        self.write("option name Clear Hash type button")
        self.write("option name Threads type spin default 1 min 1 max 1")
        self.write("option name Ponder type check default false")
        self.write("option name MultiPV type spin default 1 min 1 max 32")
        self.write("option name Move Overhead type spin default 50 min 0 max 5000")
        self.write("option name UCI_Variant type combo default chess "
                   + " ".join(f"var {v}" for v in variant_names()))
        self.write("uciok")

    def cmd_debug(self, args: list[str], line: str) -> None:
        if args not in (["on"], ["off"]):
            self.say(f"debug takes on or off: {line}")
            return
        self.debug = args == ["on"]

    def cmd_register(self, args: list[str], line: str) -> None:
        pass

    def cmd_isready(self, args: list[str], line: str) -> None:
        if self.host.error:
            self.say(f"search unavailable: {self.host.error}")
        self.write("readyok")

    def cmd_setoption(self, args: list[str], line: str) -> None:
        if not args or args[0] != "name":
            self.say(f"setoption needs 'name': {line}")
            return
        rest = args[1:]
        if "value" in rest:
            k = rest.index("value")
            name, value = " ".join(rest[:k]), " ".join(rest[k + 1:])
        else:
            name, value = " ".join(rest), None
        key = name.lower()
        busy = self.mode != "idle"

        def number(lo: int, hi: int) -> int | None:
            try:
                n = int(value) if value is not None else None
            except ValueError:
                n = None
            if n is None or not lo <= n <= hi:
                self.say(f"option {name} needs a number from {lo} to {hi}, not {value!r}")
                return None
            return n

        if key == "hash":
            n = number(1, 4096)
            if n is not None:
                self.host.set_hash(n)
        elif key == "clear hash":
            self.host.new_game()
        elif key == "threads":
            number(1, 1)
        elif key == "ponder":
            if value not in ("true", "false"):
                self.say(f"option Ponder is true or false, not {value!r}")
            else:
                self.ponder_option = value == "true"
        elif key == "multipv":
            n = number(1, 32)
            if n is not None:
                self.multipv = n
        elif key == "move overhead":
            n = number(0, 5000)
            if n is not None:
                self.move_overhead = n / 1000
        elif key == "uci_variant":
            from jitfish.movegen import Position, VariantError
            from jitfish.movegen.spec import resolve_name

            if busy:
                self.say("UCI_Variant cannot change during a search; send stop first")
                return
            try:
                canonical = resolve_name(value or "")
            except VariantError as exc:
                self.say(str(exc))
                return
            self.variant = canonical
            self.pos = Position(canonical)
        else:
            self.say(f"unknown option: {name}")

    def cmd_ucinewgame(self, args: list[str], line: str) -> None:
        if self.mode != "idle":
            self.say("ucinewgame during a search: ignored (send stop first)")
            return
        from jitfish.movegen import Position

        self.host.new_game()
        self.pos = Position(self.variant)

    # -- position --------------------------------------------------------------------------

    def cmd_position(self, args: list[str], line: str) -> None:
        from jitfish.movegen import FenError, MoveError, Position

        if not args or args[0] not in ("startpos", "fen"):
            self.say(f"position needs startpos or fen: {line}")
            return
        if "moves" in args:
            k = args.index("moves")
            head, moves = args[:k], args[k + 1:]
        else:
            head, moves = args, []
        if head[0] == "startpos" and len(head) > 1:
            self.say(f"unexpected {' '.join(head[1:])!r} after startpos: {line}")
            return
        # A GUI resends the whole game before every move: when the line extends the last one,
        # only the new moves are played (replaying 300 plies cost 20 ms of every bullet move).
        key = (self.variant, tuple(head))
        done = 0
        last = self._last_position
        if last is not None and last[0] == key and moves[:len(last[1])] == last[1]:
            pos, done = last[2].copy(), len(last[1])
        else:
            try:
                pos = Position(self.variant) if head[0] == "startpos" else Position(self.variant, " ".join(head[1:]))
            except FenError as exc:
                self.say(f"bad FEN ({exc}); position unchanged")
                return
        for i in range(done, len(moves)):
            try:
                pos.push(moves[i])
            except MoveError as exc:
                self.say(f"move {i + 1} ({moves[i]}): {exc}; position unchanged")
                return
        self.pos = pos
        self._last_position = (key, moves, pos.copy())

    # -- go, stop, ponderhit ---------------------------------------------------------------

    def cmd_go(self, args: list[str], line: str) -> None:
        if self.mode != "idle":
            self.say("go during a search: ignored (send stop first)")
            return
        opts, problems = parse_go(args)
        for p in problems:
            self.say(f"go: {p}")
        if "perft" in opts:
            self._perft(opts["perft"])
            return
        if self.host.engine is None:
            self.say(f"search unavailable: {self.host.error}")
            self.write("bestmove (none)")
            return
        limits = self._limits(opts)
        if opts.get("ponder"):
            from jitfish.engine.search import Limits

            self.ponder_limits = limits
            self._start("ponder", Limits(infinite=True, move_overhead=self.move_overhead,
                                         searchmoves=limits.searchmoves))
        else:
            self._start("search", limits)

    def _limits(self, opts: dict[str, Any]):
        from jitfish.engine.search import Limits

        sec = lambda k: opts[k] / 1000 if k in opts else None  # noqa: E731
        lim = Limits(wtime=sec("wtime"), btime=sec("btime"), winc=sec("winc"), binc=sec("binc"),
                     movetime=sec("movetime"), movestogo=opts.get("movestogo") or None,
                     depth=opts.get("depth"), nodes=opts.get("nodes"),
                     infinite=bool(opts.get("infinite")), move_overhead=self.move_overhead)
        if "mate" in opts and lim.depth is None:
            lim.depth = 2 * opts["mate"] + 1
        if "searchmoves" in opts:
            legal = {self.pos.move_name(m) for m in self.pos.legal_moves()}
            chosen = []
            for mv in opts["searchmoves"]:
                try:
                    name = self.pos.move_name(self.pos.parse_move(mv))
                except ValueError as exc:
                    self.say(f"searchmoves: {exc}; skipped")
                    continue
                if name in legal:
                    chosen.append(name)
            lim.searchmoves = chosen or None
        return lim

    def _start(self, mode: str, limits) -> None:
        pos = self.pos.copy()
        engine = self.host.engine
        n_pv = self.multipv

        def fn(job):
            if n_pv > 1:
                return self._multipv(job, engine, pos, limits, n_pv)
            return engine.search(pos, limits, self._info_printer(job))

        self.mode = mode
        self.job = self.host.run(mode, fn, self._done_cb())

    def _info_printer(self, job, multipv: int | None = None):
        def on_info(info) -> None:
            if job.aborted:
                return
            self.write(self._info_line(info, multipv))

        return on_info

    @staticmethod
    def _info_line(info, multipv: int | None = None) -> str:
        score = f"mate {info.mate}" if info.mate is not None else f"cp {info.score_cp or 0}"
        mpv = f" multipv {multipv}" if multipv else ""
        return (f"info depth {info.depth} seldepth {info.seldepth}{mpv} score {score} "
                f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} "
                f"time {int(info.time * 1000)} pv {' '.join(info.pv)}")

    def _multipv(self, job, engine, pos, limits, n_pv: int):
        """MultiPV by repeated searches: each depth once per line, earlier lines' moves excluded."""
        from dataclasses import replace

        from jitfish.engine.search import SearchInfo, time_budget

        t0 = time.perf_counter()
        legal = [pos.move_name(m) for m in pos.legal_moves()]
        pool = list(limits.searchmoves or legal)
        n_pv = min(n_pv, len(pool))
        deadline, hard = time_budget(pos.turn, limits)
        timer = None
        if hard is not None:
            def hard_stop() -> None:
                job.stop_requested.set()
                engine.stop()

            timer = threading.Timer(hard, hard_stop)
            timer.daemon = True
            timer.start()
        max_depth = limits.depth or (64 if (limits.infinite or deadline or limits.nodes) else 8)
        best = None
        for depth in range(1, max_depth + 1):
            found = []
            for k in range(n_pv):
                rest = [m for m in pool if m not in {r.best for r in found}]
                if not rest or job.stop_requested.is_set():
                    break
                r = engine.search(pos, replace(limits, depth=depth, searchmoves=rest, infinite=False,
                                               movetime=None, wtime=None, btime=None), None)
                if job.stop_requested.is_set() and depth > 1:
                    break
                found.append(r)
            if len(found) < n_pv and depth > 1:
                break
            found.sort(key=_rank, reverse=True)
            el = time.perf_counter() - t0
            nodes = sum(r.nodes for r in found)
            for k, r in enumerate(found, 1):
                if not job.aborted:
                    info = SearchInfo(depth, depth, r.score_cp, r.mate, nodes, int(nodes / el) if el > 0 else 0,
                                      el, r.pv or [r.best], engine.hashfull())
                    self.write(self._info_line(info, k))
            best = found[0] if found else best
            if job.stop_requested.is_set() or (deadline and time.perf_counter() - t0 > deadline * 0.6):
                break
        if timer is not None:
            timer.cancel()
        if limits.infinite:
            job.stop_requested.wait()
        return best

    def _done_cb(self):
        def done(job) -> None:
            self.loop.post(lambda: self._job_done(job))

        return done

    def _job_done(self, job) -> None:
        if job is not self.job:
            return
        self.job = None
        mode, self.mode = self.mode, "idle"
        if mode == "perft":
            return
        res = job.result
        if job.error is not None:
            self.say(f"search failed: {type(job.error).__name__}: {job.error}")
        if res is None or res.best is None:
            out = self.pos.outcome()
            if out is not None and res is not None:
                self.say(f"game over: {out[0]} {{{out[1]}}}")
            moves = self.pos.legal_moves() if res is None else []
            if moves:  # the search failed: any legal move beats none
                self.write(f"bestmove {self.pos.move_name(moves[0])}")
            else:
                self.write("bestmove (none)")
            return
        ponder = f" ponder {res.ponder}" if res.ponder else ""
        self.write(f"bestmove {res.best}{ponder}")

    def _abort(self) -> None:
        """Stop and drop the running job (no bestmove)."""
        if self.job is not None:
            self.job.aborted = True
            self.job = None
            self.host.abort()
        self.mode = "idle"

    def cmd_stop(self, args: list[str], line: str) -> None:
        if self.mode in ("search", "ponder", "perft"):
            self.host.stop()

    def cmd_ponderhit(self, args: list[str], line: str) -> None:
        if self.mode != "ponder":
            self.say("ponderhit without go ponder: ignored")
            return
        limits = self.ponder_limits
        self._abort()
        self._start("search", limits)

    def cmd_fen(self, args: list[str], line: str) -> None:  # not UCI: the current position
        self.say(f"fen {self.pos.fen()}")

    # -- perft -----------------------------------------------------------------------------

    def _perft(self, depth: int) -> None:
        if depth > 12:
            self.say("perft depth is 1..12")
            return
        pos = self.pos.copy()
        write = self.write

        def fn(job):
            return run_perft(pos, depth, write, job.stop_requested)

        self.mode = "perft"
        self.job = self.host.run("perft", fn, self._done_cb())


def _rank(r) -> int:
    """Order search results best first: mates sooner, then centipawns, then being mated later."""
    if r.mate is not None:
        return 1_000_000 - r.mate if r.mate > 0 else -1_000_000 - r.mate
    return r.score_cp or 0
