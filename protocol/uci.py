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
from typing import TYPE_CHECKING, Any

from jitfish.engine import Limits
from jitfish.movegen import FenError, MoveError, Position, VariantError, variant_names

from .cecp import engine_version
from .session import Mode, Session

if TYPE_CHECKING:
    from .loop import EngineLoop

__all__ = ["UciSession", "parse_go"]

log = logging.getLogger("jitfish.protocol")

STOP_WAIT = 10.0  # s: how long `stop` waits for the search to return before the loop goes on
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


class UciSession(Session):
    """One UCI conversation."""

    EARLY = frozenset({"uci", "debug", "register", "stop"})

    def __init__(self, loop: "EngineLoop"):
        super().__init__(loop)
        self._last_position: tuple[Any, list[str], Any] | None = None  # (start, moves, position)
        self.ponder_option = False
        self.multipv = 1
        self.debug = False
        self.ponder_limits: Limits | None = None  # the real limits of a `go ponder`, used on ponderhit

    # -- plumbing --------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.write(f"info string {text}")

    report = say

    def dispatch(self, line: str) -> bool:
        tokens = line.split()
        fn = self.COMMANDS.get(tokens[0])
        if fn is None:
            self.say(f"unknown command: {line}")
            return True
        fn(self, tokens[1:], line)
        return True

    # -- start-up, options -----------------------------------------------------------------

    def cmd_uci(self, args: list[str], line: str) -> None:
        self.write(f"id name jitfish {engine_version()}")
        self.write("id author the jitfish authors")
        self.write("option name Hash type spin default 16 min 1 max 4096")
        self.write("option name Clear Hash type button")
        self.write("option name Threads type spin default 1 min 1 max 1")
        self.write("option name Ponder type check default false")
        self.write("option name MultiPV type spin default 1 min 1 max 32")
        self.write("option name Move Overhead type spin default 50 min 0 max 5000")
        self.write("option name VariantPath type string default <empty>")
        self.write(self._variant_option())
        self.write("uciok")

    @staticmethod
    def _variant_option() -> str:
        return "option name UCI_Variant type combo default chess " + " ".join(f"var {v}" for v in variant_names())

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
        busy = self.mode != Mode.IDLE

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
        elif key == "variantpath":
            if not value or value == "<empty>":
                return
            try:
                names = self.add_variants(value)
            except VariantError as exc:
                self.say(f"VariantPath: {exc}")
                return
            self.say(f"variants added: {', '.join(names)}")
            self.write(self._variant_option())
        elif key == "uci_variant":
            if busy:
                self.say("UCI_Variant cannot change during a search; send stop first")
                return
            try:
                canonical = self.canonical(value or "")
            except VariantError as exc:
                self.say(str(exc))
                return
            self.set_variant(canonical)
        else:
            self.say(f"unknown option: {name}")

    def cmd_ucinewgame(self, args: list[str], line: str) -> None:
        if self.mode != Mode.IDLE:
            self.say("ucinewgame during a search: ignored (send stop first)")
            return
        self.host.new_game()
        self.set_variant(self.variant)

    # -- position --------------------------------------------------------------------------

    def cmd_position(self, args: list[str], line: str) -> None:
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
        if self.mode != Mode.IDLE:
            self.say("go during a search: ignored (send stop first)")
            return
        opts, problems = parse_go(args)
        for p in problems:
            self.say(f"go: {p}")
        if "perft" in opts:
            if not self.start_perft(opts["perft"]):
                self.say("perft depth is 1..12")
            return
        if self.host.engine is None:
            self.say(f"search unavailable: {self.host.error}")
            self.write("bestmove (none)")
            return
        limits = self._limits(opts)
        if opts.get("ponder"):
            self.ponder_limits = limits
            self._start(Mode.PONDER, Limits(infinite=True, move_overhead=self.move_overhead,
                                            searchmoves=limits.searchmoves))
        else:
            self._start(Mode.THINK, limits)

    def _limits(self, opts: dict[str, Any]) -> Limits:
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

    def _start(self, mode: Mode, limits: Limits) -> None:
        self.search(mode, self.pos.copy(), limits, self._info, self.multipv)

    def _info(self, info) -> None:
        score = f"mate {info.mate}" if info.mate is not None else f"cp {info.score_cp or 0}"
        mpv = f" multipv {info.multipv}" if self.multipv > 1 else ""
        self.write(f"info depth {info.depth} seldepth {info.seldepth}{mpv} score {score} "
                   f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} "
                   f"time {int(info.time * 1000)} pv {' '.join(info.pv)}")

    def on_job_done(self, mode: Mode, job) -> None:
        if mode == Mode.PERFT:
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

    def cmd_stop(self, args: list[str], line: str) -> None:
        if self.mode in (Mode.THINK, Mode.PONDER, Mode.PERFT):
            self.host.stop()
            # As in Stockfish, the commands after `stop` find the search over: wait for it to
            # return (it polls the flag, so this takes milliseconds; its bestmove comes first),
            # so a `setoption name UCI_Variant` or `ucinewgame` sent right behind it is not
            # refused as "during a search" on a loaded machine.  A perft stops between root
            # moves (one root move of a shallow perft is milliseconds; of a deep one it can be
            # minutes).  `quit` still cuts in (the reader thread sets it), and after STOP_WAIT
            # seconds the loop goes on regardless.
            if self.host.join(STOP_WAIT, cancel=self.loop.quit):
                self._settle()

    def cmd_ponderhit(self, args: list[str], line: str) -> None:
        if self.mode != Mode.PONDER:
            self.say("ponderhit without go ponder: ignored")
            return
        limits = self.ponder_limits
        self.abort()
        self._start(Mode.THINK, limits)

    def cmd_fen(self, args: list[str], line: str) -> None:  # not UCI: the current position
        self.say(f"fen {self.fen_text()}")

    COMMANDS = {
        "uci": cmd_uci, "debug": cmd_debug, "register": cmd_register, "isready": cmd_isready,
        "setoption": cmd_setoption, "ucinewgame": cmd_ucinewgame, "position": cmd_position,
        "go": cmd_go, "stop": cmd_stop, "ponderhit": cmd_ponderhit, "fen": cmd_fen,
    }
