"""XBoard/CECP v2 (the Chess Engine Communication Protocol) for every jitfish variant.

Built to what xboard 4.9.1 really does (``/work/shared/XBOARD.md``). The session is a state
machine driven by ``EngineLoop``: one input line or one finished search at a time.

- ``protover 2``: ``feature done=0`` at once; the full feature line and ``done=1`` once the
  kernels are ready (``pong`` and every command that needs the engine also wait for them).
- Variants XBoard does not know are defined on ``variant NAME`` with ``setup`` and one
  ``piece`` line per piece, derived from the variant file (``xboard.py``). ``courier`` is
  XBoard's own: its start array has full pawn rows, so a game starts there unless the GUI sends
  ``setboard``. A variant XBoard cannot show (Cleopatra) is not announced, and ``variant NAME``
  for it is answered with ``tellusererror``.
- Moves go out and come in as XBoard writes them: a promotion to a promoted form is ``c6d7+``.
- Bad input never changes the position: ``Illegal move (REASON): MOVE`` for a move that cannot
  be played, ``Error (REASON): COMMAND`` for anything else.
- Results are claimed with the reason after the move that ends the game (``move d1h5`` then
  ``1-0 {White mates}``), but only when XBoard can confirm them (see ``_claim``): an extinction
  win is not claimed, the losing engine resigns (as soon as every move loses at once).
- XBoard's FENs for our variants are read leniently (``XBoardView.read_fen``); the option
  ``XBoard Safe Moves`` (on by default) keeps the engine from choosing a move XBoard 4.9.1
  cannot show; the seed variants have none, a user's variant may (``jitfish check`` lists them).
- ``ping`` while the engine thinks on its own move is answered after the move (as the protocol
  asks); while pondering or analysing it is answered at once.
- Pondering (``hard``): after its move the engine searches the position after the expected
  reply; when that reply comes the ponder search stops and a timed search starts on the real
  position, which finds the ponder search's work in the hash table.
"""
from __future__ import annotations

import logging
import math
import re
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from jitfish.engine import Limits, time_budget
from jitfish.movegen import FenError, MoveError, Position, VariantError
from jitfish.movegen.kernels import move_from

from .session import Mode, Session
from .xboard import variant_from_xboard, xboard_names, xboard_view

if TYPE_CHECKING:
    from .loop import EngineLoop

__all__ = ["CecpSession", "parse_level", "engine_version"]

log = logging.getLogger("jitfish.protocol")

_MOVE = re.compile(r"^[a-p]\d{1,2}[a-p]\d{1,2}[a-z+]?$")
MATE_SCORE = 100000  # XBoard's convention: 100000 + N is mate in N moves


MAX_SECONDS = 1e7  # longer clocks are capped (and overflow timers)


def _seconds(text: str) -> float:
    """A finite, non-negative number of seconds (ValueError otherwise), capped at MAX_SECONDS."""
    x = float(text)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"{text!r} is not a time")
    return min(x, MAX_SECONDS)


def parse_level(args: list[str]) -> tuple[int, float, float]:
    """``level MPS BASE INC`` -> (moves per session, base seconds, increment seconds).

    >>> parse_level(["40", "5", "0"]), parse_level(["0", "0:30", "0.5"])
    ((40, 300.0, 0.0), (0, 30.0, 0.5))
    """
    if len(args) != 3:
        raise ValueError("level needs MPS BASE INC")
    mps = int(args[0])
    if mps < 0:
        raise ValueError("level values must be >= 0")
    if ":" in args[1]:
        m, s = args[1].split(":", 1)
        base = _seconds(str(int(m) * 60 + _seconds(s)))
    else:
        base = _seconds(str(_seconds(args[1]) * 60))
    return mps, base, _seconds(args[2])


def engine_version() -> str:
    """jitfish's version, as installed."""
    try:
        return version("jitfish")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "dev"


class CecpSession(Session):
    """One XBoard/CECP conversation (see the module doc)."""

    # commands answered without waiting for the kernels
    EARLY = frozenset({
        "xboard", "protover", "accepted", "rejected", "post", "nopost", "hard", "easy", "random",
        "computer", "name", "rating", "ics", "level", "st", "sd", "nps", "time", "otim", "quit", "?",
        ".", "draw", "bk", "hint", "cores", "white", "black",
    })

    def __init__(self, loop: "EngineLoop"):
        super().__init__(loop)
        self.protover = 1
        self.force = False
        self.engine_side: int | None = 1
        self.game_over = False
        # clocks and limits
        self.mps, self.base, self.inc = 0, 300.0, 0.0
        self.have_level = False
        self.my_time: float | None = None
        self.opp_time: float | None = None
        self.st: float | None = None
        self.sd: int | None = None
        self.nps: int | None = None
        self.xboard_safe = True  # play only moves XBoard 4.9.1 can show (option; none in the seed variants)
        # output and search modes
        self.post = False
        self.ponder = False
        self.analyzing = False
        self.ponder_move: str | None = None
        self.pending_pongs: list[str] = []
        self.last_info = None
        self.last_score: int | None = None
        self.view = xboard_view(self.variant)
        self.xb_half = [0]

    # -- plumbing --------------------------------------------------------------------------

    def error(self, reason: str, command: str) -> None:
        self.write(f"Error ({reason}): {command}".rstrip())

    def illegal(self, reason: str, move: str) -> None:
        self.write((f"Illegal move ({reason}): {move}" if reason else f"Illegal move: {move}").rstrip())

    def report(self, text: str) -> None:
        self.write(f"# {text}")

    def internal_error(self, exc: BaseException, line: str) -> None:
        self.error(f"internal error: {type(exc).__name__}", line.strip())

    def new_position(self, canonical: str, fen: str | None = None) -> Position:
        view = xboard_view(canonical)
        if fen is None:
            return Position(canonical, view.start_fen)
        return view.read_fen(fen)

    def set_variant(self, canonical: str) -> None:
        self.view = xboard_view(canonical)
        super().set_variant(canonical)

    def set_position(self, pos: Position) -> None:
        self.pos = pos
        self.game_over = False
        self.ponder_move = None
        self.xb_half = [int(pos.fen().split()[4])]

    def _push(self, move) -> None:
        """Play a move, keeping XBoard's own 50-move count (it resets on its pawn slot only)."""
        pos = self.pos
        m = pos.parse_move(move) if isinstance(move, str) else move
        pawn = pos.piece_at(move_from(m)).upper() == self.view.pawn
        before = pos.piece_count()
        pos.push(m)
        capture = pos.piece_count() < before
        self.xb_half.append(0 if pawn or capture else self.xb_half[-1] + 1)

    def _pop(self) -> None:
        self.pos.pop()
        self.xb_half.pop()

    def dispatch(self, line: str) -> bool:
        cmd, _, rest = line.partition(" ")
        rest = rest.strip()
        fn = self.COMMANDS.get(cmd)
        if fn is None:
            if _MOVE.match(cmd) and not rest:
                self.cmd_usermove(cmd)
            else:
                self.error("unknown command", line)
            return True
        fn(self, rest)
        return True

    # -- start-up and features -------------------------------------------------------------

    def cmd_xboard(self, rest: str) -> None:
        pass  # no prompt to turn off

    def cmd_protover(self, rest: str) -> None:
        try:
            self.protover = int(rest)
        except ValueError:
            self.error("bad protocol version", f"protover {rest}")
            return
        if self.protover < 2:
            return
        if not self.loop.done0_sent:
            self.write("feature done=0")
        self.loop.done0_sent = False  # a later `protover` is answered in full again
        if not self.host.wait_ready(self.loop.quit):
            return
        feats = [
            "ping=1", "setboard=1", "usermove=1", "time=1", "draw=1", "sigint=0", "sigterm=0",
            "reuse=1", "analyze=1", "colors=0", "playother=1", "nps=1", "memory=1", "smp=1",
            "debug=1", "exclude=0", "pause=0", "san=0",
            f'myname="jitfish {engine_version()}"', self._variants_feature(),
        ]
        self.write("feature " + " ".join(feats))
        self.write('feature option="Move Overhead -spin 50 0 5000"')
        self.write('feature option="Clear Hash -button"')
        self.write('feature option="XBoard Safe Moves -check 1"')
        self.write('feature option="VariantPath -file "')
        if self.host.error:
            self.report(f"jitfish: search unavailable ({self.host.error}); see the log")
        self.write("feature done=1")

    @staticmethod
    def _variants_feature() -> str:
        return f'variants="{",".join(xboard_names())}"'

    def cmd_accepted(self, rest: str) -> None:
        pass

    def cmd_rejected(self, rest: str) -> None:
        log.info("feature rejected: %s", rest)

    def _ignore(self, rest: str) -> None:
        pass

    def cmd_cores(self, rest: str) -> None:
        try:
            n = int(rest)
            if n < 1:
                raise ValueError
        except ValueError:
            self.error("bad core count", f"cores {rest}")
            return
        log.info("cores %d: the search uses one thread", n)

    def cmd_memory(self, rest: str) -> None:
        try:
            mb = int(rest)
            if mb < 1:
                raise ValueError
        except ValueError:
            self.error("bad memory size", f"memory {rest}")
            return
        self.host.set_hash(min(mb, 4096))

    def cmd_option(self, rest: str) -> None:
        name, eq, value = rest.partition("=")
        name = name.strip()
        if name == "Move Overhead" and eq:
            try:
                ms = int(value)
                if not 0 <= ms <= 5000:
                    raise ValueError
            except ValueError:
                self.error("bad option value", f"option {rest}")
                return
            self.move_overhead = ms / 1000
        elif name == "XBoard Safe Moves" and value.strip() in ("0", "1"):
            self.xboard_safe = value.strip() == "1"
        elif name == "Clear Hash":
            self._abort_unless_analyzing()
            self.host.new_game()
        elif name == "VariantPath" and eq:
            if not value.strip():
                return  # XBoard sends the empty default
            try:
                names = self._add_variants(value)
            except VariantError as exc:
                self.error(f"bad variant file: {exc}", f"option {rest}")
                return
            self.write("feature " + self._variants_feature())
            self.report(f"variants added: {', '.join(names)}")
        else:
            self.error("unknown option", f"option {rest}")

    def _add_variants(self, path: str) -> list[str]:
        names = self.add_variants(path)
        for name in names:
            xboard_view(name)  # what XBoard will be told must be derivable (VariantError names the key)
        return names

    # -- game set-up -----------------------------------------------------------------------

    def cmd_new(self, rest: str) -> None:
        self.abort()
        self.analyzing = False
        self.set_variant("chess")
        self.force = False
        self.engine_side = 1
        self.sd = None
        self.ponder_move = None
        self.host.new_game()

    def cmd_variant(self, rest: str) -> None:
        try:
            canonical = variant_from_xboard(rest)
        except VariantError:
            self.error("unknown variant", f"variant {rest}")
            return
        self.abort()
        view = xboard_view(canonical)
        if not view.playable:
            # XBoard would show the game wrongly: refuse it (XBoard then falls back to chess)
            self.write(f"tellusererror jitfish cannot play {canonical} in XBoard: {view.reason}")
            canonical = "chess"
        self.set_variant(canonical)
        for line in self.view.setup_lines:
            self.write(line)
        self._restart_analysis()

    def cmd_setboard(self, rest: str) -> None:
        try:
            if not rest.strip():
                raise FenError("empty FEN")
            pos = self.new_position(self.variant, rest)
        except FenError as exc:
            self.error(f"bad FEN: {exc}", f"setboard {rest}")
            return
        self._abort_unless_analyzing()
        self.set_position(pos)
        self._restart_analysis()

    def cmd_force(self, rest: str) -> None:
        if self.mode in (Mode.THINK, Mode.PONDER):
            self.abort()
        self.force = True
        self.engine_side = None

    def cmd_go(self, rest: str) -> None:
        if self.mode in (Mode.THINK, Mode.PERFT):
            self.error("command not legal now: already thinking", "go")
            return
        self.analyzing = False  # `go` ends an analysis
        self.abort()
        self.force = False
        self.engine_side = self.pos.turn
        self._think()

    def cmd_playother(self, rest: str) -> None:
        if self.mode in (Mode.THINK, Mode.PERFT):
            self.error("command not legal now: already thinking", "playother")
            return
        self.analyzing = False
        self.abort()
        self.force = False
        self.engine_side = 1 - self.pos.turn

    def cmd_white(self, rest: str) -> None:  # protocol 1; XBoard does not send it with colors=0
        self.abort()
        self.engine_side = 1

    def cmd_black(self, rest: str) -> None:
        self.abort()
        self.engine_side = 0

    def cmd_result(self, rest: str) -> None:
        self.abort()
        self.game_over = True
        self.ponder_move = None

    # -- moves -----------------------------------------------------------------------------

    def cmd_usermove(self, rest: str) -> None:
        text = rest.strip()
        if self.mode == Mode.THINK:
            self.illegal("not your move: the engine is thinking", text)
            return
        if self.mode == Mode.PERFT:
            self.abort()
        if not self.force and self.engine_side is not None and self.pos.turn == self.engine_side:
            self.illegal("not your move", text)
            return
        try:
            move = self.pos.parse_move(self.view.read_move(self.pos, text))
        except MoveError as exc:
            self.illegal(_reason(exc), text)
            return
        name = self.pos.move_name(move)
        expected = self.ponder_move
        self.ponder_move = None
        if self.mode == Mode.PONDER:
            self.abort()  # a ponder hit or miss: the search restarts with real limits
            log.info("ponder %s: %s", "hit" if name == expected else "miss", name)
        self._push(move)
        if self.analyzing:
            self._restart_analysis()
            return
        if not self.force and self.engine_side == self.pos.turn and not self.game_over:
            self._think()

    def cmd_undo(self, rest: str) -> None:
        self._take_back(1, "undo")

    def cmd_remove(self, rest: str) -> None:
        self._take_back(2, "remove")

    def _take_back(self, n: int, command: str) -> None:
        if len(self.pos.history) < n:
            self.error("command not legal now: no move to take back", command)
            return
        self._abort_unless_analyzing()
        for _ in range(n):
            self._pop()
        self.game_over = False
        self.ponder_move = None
        self._restart_analysis()

    # -- clocks and limits -----------------------------------------------------------------

    def cmd_level(self, rest: str) -> None:
        try:
            self.mps, self.base, self.inc = parse_level(rest.split())
        except ValueError as exc:
            self.error(f"bad time control: {exc}", f"level {rest}")
            return
        self.have_level = True
        self.st = None

    def cmd_st(self, rest: str) -> None:
        try:
            st = _seconds(rest)
            if st <= 0:
                raise ValueError
        except ValueError:
            self.error("bad time per move", f"st {rest}")
            return
        self.st = st

    def cmd_sd(self, rest: str) -> None:
        try:
            sd = min(int(rest), 1000)
            if sd < 1:
                raise ValueError
        except ValueError:
            self.error("bad depth", f"sd {rest}")
            return
        self.sd = sd

    def cmd_nps(self, rest: str) -> None:
        try:
            nps = min(int(rest), 10**12)
            if nps < 0:
                raise ValueError
        except ValueError:
            self.error("bad nodes per second", f"nps {rest}")
            return
        self.nps = nps or None

    def _centis(self, rest: str, command: str) -> float | None:
        try:
            return min(int(rest) / 100, MAX_SECONDS)
        except ValueError:
            self.error("bad time", f"{command} {rest}")
            return None

    def cmd_time(self, rest: str) -> None:
        t = self._centis(rest, "time")
        if t is not None:
            self.my_time = t

    def cmd_otim(self, rest: str) -> None:
        t = self._centis(rest, "otim")
        if t is not None:
            self.opp_time = t

    def _limits(self) -> Limits:
        lim = Limits(move_overhead=self.move_overhead)
        side = self.pos.turn
        budget = None
        if self.st is not None:
            lim.movetime = self.st
            budget = self.st
        else:
            mine = self.my_time if self.my_time is not None else (self.base if self.have_level else None)
            if mine is not None:
                theirs = self.opp_time if self.opp_time is not None else mine
                if side == 0:
                    lim.wtime, lim.btime, lim.winc, lim.binc = mine, theirs, self.inc, self.inc
                else:
                    lim.btime, lim.wtime, lim.binc, lim.winc = mine, theirs, self.inc, self.inc
                if self.mps:
                    done = (self._fullmove() - 1) % self.mps
                    lim.movestogo = self.mps - done
                budget = time_budget(side, lim)[0]
            elif self.sd is None:
                lim.movetime = 5.0  # no clock at all: do not think forever
                budget = 5.0
        if self.sd is not None:
            lim.depth = self.sd
        if self.xboard_safe:
            moves = self.pos.legal_moves()
            safe = [self.pos.move_name(m) for m in moves if self.view.showable(self.pos, m)]
            if 0 < len(safe) < len(moves):
                lim.searchmoves = safe
        if self.nps and budget is not None:
            # XBoard's node-count clock: the budget becomes a node count, the clocks go
            lim.nodes = max(1, min(int(self.nps * budget), 2**62))
            lim.movetime = lim.wtime = lim.btime = lim.winc = lim.binc = lim.movestogo = None
        return lim

    def _fullmove(self) -> int:
        try:
            return int(self.pos.fen().split()[5])
        except (IndexError, ValueError):
            return 1

    # -- thinking --------------------------------------------------------------------------

    def _claim(self) -> bool:
        """If the game is over, say so (once) and return True.

        XBoard checks result claims against its own rules and scores a claim it cannot
        confirm as a loss for the claimer ("False win claim"). So a verdict XBoard cannot see
        is never claimed by the winner: for an extinction (Cows and Butterflies' Aces, the
        Cleopatra's King) the losing engine resigns instead, and a 50-move draw is claimed only
        once XBoard's own count (which resets on its pawn-slot piece and captures) is there too.
        """
        out = self.pos.outcome()
        if out is None:
            return False
        if self.game_over:
            return True
        self.game_over = True
        result, reason = out
        if self.pos.is_over():  # an extinction: the side to move has lost
            if self.engine_side == self.pos.turn:
                self.write("resign")
            else:
                log.info("not claiming %s {%s}: XBoard cannot check it; the loser resigns", result, reason)
            return True
        if reason == "50-move rule" and self.xb_half[-1] < 100:
            self.game_over = False  # XBoard would call it a false claim: play on
            return False
        self.write(f"{result} {{{reason}}}")
        return True

    def _think(self) -> None:
        if self.host.engine is None:
            self.error(f"search unavailable: {self.host.error}", "go")
            return
        if self.game_over or self._claim():
            return
        limits = self._limits()
        self.search(Mode.THINK, self.pos.copy(), limits, self._thinking_output)
        log.info("think %s %s", self.pos.fen(), limits)

    def _ponder(self) -> None:
        if not self.ponder or self.force or self.analyzing or self.game_over or self.ponder_move is None:
            return
        if self.host.engine is None:
            return
        pos = self.pos.copy()
        try:
            pos.push(self.ponder_move)
        except MoveError:
            self.ponder_move = None
            return
        if pos.outcome() is not None:
            self.ponder_move = None
            return
        self.search(Mode.PONDER, pos, Limits(infinite=True), self._thinking_output)

    def _analyze(self) -> None:
        if self.host.engine is None:
            self.error(f"search unavailable: {self.host.error}", "analyze")
            return
        if self.pos.outcome() is not None:
            self.mode = Mode.IDLE
            return
        self.search(Mode.ANALYZE, self.pos.copy(), Limits(infinite=True), self._analysis_output)

    def _analysis_output(self, info) -> None:
        self._thinking_output(info, always=True)

    def _thinking_output(self, info, always: bool = False) -> None:
        """The search's ``on_info``: thinking output while ``post`` is on (always in analysis)."""
        self.last_info = info
        if info.mate is not None:
            score = MATE_SCORE + info.mate if info.mate > 0 else -MATE_SCORE + info.mate
        else:
            score = info.score_cp or 0
        if self.mode == Mode.THINK:
            self.last_score = score
        if self.post or always:
            self.write(f"{info.depth} {score} {int(info.time * 100)} {info.nodes} "
                       f"{info.seldepth} {info.nps}\t{' '.join(info.pv)}")

    def on_job_done(self, mode: Mode, job) -> None:
        if mode == Mode.THINK:
            self._move(job)
        self._flush_pongs()

    def _move(self, job) -> None:
        res = job.result
        best = res.best if res is not None else None
        if job.error is not None or best is None:
            if self._claim():
                return
            moves = self.pos.legal_moves()
            if not moves:
                return
            best = self.pos.move_name(moves[0])  # search failed: a legal move beats a lost game
            log.error("search failed (%s); playing %s", job.error, best)
            res = None
        if res is not None and res.mate == -1 and self.pos.spec.extinction and not self.view.builtin:
            # every move loses at once (the last Ace, the King converted), which XBoard cannot
            # see: resign now, before XBoard calls the position after the capture a stalemate
            self.game_over = True
            self.write("resign")
            return
        move = self.pos.parse_move(best)
        text = self.view.move_text(self.pos, move)
        self._push(move)
        self.write(f"move {text}")
        self._flush_pongs()
        if self._claim():
            return
        self.ponder_move = res.ponder if res is not None else None
        self._ponder()

    def _flush_pongs(self) -> None:
        while self.pending_pongs:
            self.write(f"pong {self.pending_pongs.pop(0)}")

    def abort(self) -> None:
        """Stop any search without moving; its result is dropped."""
        super().abort()
        self._flush_pongs()

    def _abort_unless_analyzing(self) -> None:
        if self.mode != Mode.ANALYZE:
            self.abort()

    def _restart_analysis(self) -> None:
        if self.analyzing:
            if self.job is not None:
                self.job.aborted = True
                self.job = None
                self.host.abort()
            self._analyze()

    # -- commands during a search ----------------------------------------------------------

    def cmd_qm(self, rest: str) -> None:  # `?`: move now
        if self.mode == Mode.THINK:
            self.host.stop()

    def cmd_ping(self, rest: str) -> None:
        if self.mode == Mode.THINK:
            self.pending_pongs.append(rest)
        else:
            self.write(f"pong {rest}")

    def cmd_draw(self, rest: str) -> None:
        score = self.last_score
        if score is not None and score <= -150 and not self.force:
            self.write("offer draw")

    def cmd_hard(self, rest: str) -> None:
        self.ponder = True

    def cmd_easy(self, rest: str) -> None:
        self.ponder = False
        if self.mode == Mode.PONDER:
            self.abort()

    def cmd_post(self, rest: str) -> None:
        self.post = True

    def cmd_nopost(self, rest: str) -> None:
        self.post = False

    def cmd_analyze(self, rest: str) -> None:
        self.abort()
        self.analyzing = True
        self.force = True
        self.engine_side = None
        self._analyze()

    def cmd_exit(self, rest: str) -> None:
        if not self.analyzing:
            self.error("command not legal now: not analysing", "exit")
            return
        self.analyzing = False
        self.abort()

    def cmd_dot(self, rest: str) -> None:  # `.`: analysis status
        if self.mode != Mode.ANALYZE:
            return
        info = self.last_info
        if info is None:
            self.write("stat01: 0 0 0 0 0")
            return
        move = info.pv[0] if info.pv else ""
        n = self.pos.count_legal()
        self.write(f"stat01: {int(info.time * 100)} {info.nodes} {info.depth} 0 {n} {move}")

    def cmd_fen(self, rest: str) -> None:  # not CECP: the current position, as a comment line
        self.report(f"fen {self.fen_text()}")

    def cmd_perft(self, rest: str) -> None:
        try:
            depth = int(rest)
            if not 1 <= depth <= 12:
                raise ValueError
        except ValueError:
            self.error("bad depth (1..12)", f"perft {rest}")
            return
        if self.mode in (Mode.THINK, Mode.PERFT):
            self.error("command not legal now: searching", f"perft {rest}")
            return
        self._abort_unless_analyzing()
        if self.mode == Mode.ANALYZE:
            self.error("command not legal now: analysing", f"perft {rest}")
            return
        self.start_perft(depth)

    COMMANDS = {
        "xboard": cmd_xboard, "protover": cmd_protover, "accepted": cmd_accepted,
        "rejected": cmd_rejected, "random": _ignore, "computer": _ignore, "name": _ignore,
        "rating": _ignore, "ics": _ignore, "bk": _ignore, "hint": _ignore, "cores": cmd_cores,
        "memory": cmd_memory, "option": cmd_option, "new": cmd_new, "variant": cmd_variant,
        "setboard": cmd_setboard, "force": cmd_force, "go": cmd_go, "playother": cmd_playother,
        "white": cmd_white, "black": cmd_black, "result": cmd_result, "usermove": cmd_usermove,
        "undo": cmd_undo, "remove": cmd_remove, "level": cmd_level, "st": cmd_st, "sd": cmd_sd,
        "nps": cmd_nps, "time": cmd_time, "otim": cmd_otim, "?": cmd_qm, "ping": cmd_ping,
        "draw": cmd_draw, "hard": cmd_hard, "easy": cmd_easy, "post": cmd_post,
        "nopost": cmd_nopost, "analyze": cmd_analyze, "exit": cmd_exit, ".": cmd_dot,
        "fen": cmd_fen, "perft": cmd_perft,
    }


def _reason(exc: Exception) -> str:
    """MoveError text -> the short reason XBoard shows (``no piece on e3``)."""
    text = str(exc)
    m = re.match(r"(illegal move|malformed move) ('[^']*'|\S+)(: (.*))?$", text)
    if m:
        return m.group(4) or ("" if m.group(1) == "illegal move" else m.group(1))
    return text
