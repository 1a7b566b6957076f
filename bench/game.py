"""One game of a match: the players (engine processes, restarted after a fault), the match
settings, and the referee loop that checks every move with jitfish's rules.

Faults lose the game for the faulty side, with the reason in the PGN: an illegal move, a
rejected legal move, a false claim, a timeout, a crash or a hang.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Sequence

from jitfish.movegen import MoveError, Position
from jitfish.movegen.position import COLOUR_NAMES as COLOUR
from jitfish.protocol.client import (
    Engine,
    EngineConfig,
    EngineCrashed,
    EngineError,
    EngineRejectedMove,
    EngineTimeout,
    GoRequest,
    Limits,
    MatchAborted,
    SearchInfo,
    open_engine,
)
from jitfish.protocol.xboard import xboard_view

from .adjudication import Adjudication, AdjudicationState
from .games import GameRecord, MoveRecord, Termination
from .openings import Opening
from .stats import Sprt

__all__ = ["MatchConfig", "Player", "FatalMatchError", "play_game"]


@dataclass
class MatchConfig:
    """Everything a match needs; ``run_match`` builds it from the command line."""

    engines: list[EngineConfig]
    variant: str = "chess"
    games: int = 2
    limits: Limits = field(default_factory=lambda: Limits(base=10, inc=0.1))
    openings: list[Opening] = field(default_factory=list)
    concurrency: int = 1
    pgn: str | None = None
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: Sprt | None = None
    timemargin: float = 0.1  # seconds past the clock (or movetime) before a time forfeit
    hang_timeout: float = 60.0  # seconds without a move when no clock bounds it
    start_timeout: float = 120.0
    event: str = "jitfish match"
    debug: str | None = None
    plot: str | None = None
    progress: bool | None = None  # None: when stderr is a terminal
    quiet: bool = False
    command: str = ""
    seed: int | None = None  # the openings' seed (kept in the state file for --resume)
    scheduler: str | None = None  # None: local threads; tcp://HOST:PORT or local:N: Dask (bench/cluster.py)
    resume: bool = False  # continue the match of the PGN's state file
    board: object | None = None  # a jitfish.protocol.board.BoardPublisher: games shown live on jitfish board


class Player:
    """One engine of one worker: starts it when needed, restarts it after a fault."""

    def __init__(self, cfg: EngineConfig, name: str, variant: str, stop: threading.Event, log, start_timeout: float):
        self.cfg = cfg
        self.name = name
        self.variant = variant
        self.stop = stop
        self.log = log
        self.start_timeout = start_timeout
        self.engine: Engine | None = None
        self.started_once = False
        self.failed_starts = 0

    def ensure(self) -> Engine:
        if self.engine is not None and not self.engine.alive():
            self.discard()
        if self.engine is None:
            try:
                self.engine = open_engine(self.cfg, self.variant, stop=self.stop, log=self.log,
                                          start_timeout=self.start_timeout)
            except EngineError:
                self.failed_starts += 1
                raise
            self.engine.name = self.name
            self.started_once = True
            self.failed_starts = 0
        return self.engine

    def discard(self) -> None:
        if self.engine is not None:
            self.engine.kill()
            self.engine = None

    def close(self) -> None:
        if self.engine is not None:
            self.engine.quit()
            self.engine = None


class FatalMatchError(Exception):
    """The match cannot go on (an engine cannot be started at all)."""


def _comment(info: SearchInfo, elapsed: float) -> str:
    parts = []
    if info.mate is not None:
        parts.append(f"{'+' if info.mate > 0 else '-'}M{abs(info.mate)}")
    elif info.score is not None:
        parts.append(f"{info.score / 100:+.2f}")
    if parts and info.depth is not None:
        parts[-1] += f"/{info.depth}"
    parts.append(f"{elapsed:.3f}s")
    return " ".join(parts)


def play_game(index: int, opening: Opening, players: Sequence[Player], white_engine: int,
              cfg: MatchConfig, stop: threading.Event) -> GameRecord:
    """Play one game; ``players[white_engine]`` has White. Faults lose the game and discard the
    faulty engine (it is restarted for the next game). Raises MatchAborted when ``stop`` is set."""
    white, black = players[white_engine], players[1 - white_engine]
    xb_view = xboard_view(cfg.variant)
    by_side = (white, black)
    pos = Position(cfg.variant, opening.fen)
    start_fen = pos.fen()
    standard = cfg.variant == "chess" and start_fen == pos.spec.start_fen
    limits = [p.cfg.limits or cfg.limits for p in by_side]
    rec = GameRecord(index, white.name, black.name, white_engine, cfg.variant, start_fen, [],
                     time_control=limits[0].pgn_tag() if limits[0] == limits[1]
                     else f"{limits[0].pgn_tag()}:{limits[1].pgn_tag()}", event=cfg.event)
    t_start = time.monotonic()
    uci_moves: list[str] = []
    for text in opening.moves:
        m = pos.parse_move(text)
        rec.moves.append(MoveRecord(pos.move_name(m), pos.san(m), "book"))
        uci_moves.append(pos.move_name(m))
        pos.push(m)

    def finish(result: str, reason: str, termination: str, faulty: Player | None = None) -> GameRecord:
        rec.result, rec.reason, rec.termination = result, reason, termination
        rec.duration = time.monotonic() - t_start
        if cfg.board is not None:
            cfg.board.update(rec)
        if faulty is not None:
            faulty.discard()
        for p in by_side:
            if p.engine is not None:
                p.engine.game_over(result, reason)
                reuse = getattr(p.engine, "features", {}).get("reuse")
                if reuse == "0":
                    p.close()
        return rec

    def lose(side: int, reason: str, termination: str, faulty: bool) -> GameRecord:
        return finish("0-1" if side == 0 else "1-0", reason, termination, by_side[side] if faulty else None)

    for side in (0, 1):
        p = by_side[side]
        try:
            p.ensure().new_game(limits[side], start_fen, standard_start=standard)
        except EngineError as exc:
            if not p.started_once or p.failed_starts >= 3:
                p.discard()
                raise FatalMatchError(f"{p.name} cannot be started: {exc}") from None
            return lose(side, f"{COLOUR[side]}'s engine failed to start: {exc}", Termination.ABANDONED, True)

    clock = [l.base if l.has_clock else None for l in limits]
    in_period = [0, 0]
    adj = AdjudicationState(cfg.adjudication)
    while True:
        if stop.is_set():
            raise MatchAborted()
        verdict = pos.outcome()
        if verdict is not None:
            return finish(verdict[0], verdict[1], Termination.NORMAL)
        side = pos.turn
        p = by_side[side]
        lim = limits[side]
        eng = p.engine
        if clock[side] is not None:
            budget = clock[side] + cfg.timemargin
        elif lim.movetime is not None:
            budget = lim.movetime + cfg.timemargin
        else:
            budget = cfg.hang_timeout
        if clock[side] is not None and lim.movetime is not None:
            budget = min(budget, lim.movetime + cfg.timemargin)
        movestogo = lim.moves - in_period[side] if lim.moves else None
        req = GoRequest(list(uci_moves), side, clock[0], clock[1], limits[0].inc, limits[1].inc,
                        movestogo, budget)
        try:
            reply = eng.go(req)
        except EngineTimeout:
            if clock[side] is not None or lim.movetime is not None:
                return lose(side, f"{COLOUR[side]} loses on time", Termination.TIME_FORFEIT, True)
            return lose(side, f"{COLOUR[side]}'s engine stopped answering (no move in {cfg.hang_timeout:g} s)",
                        Termination.ABANDONED, True)
        except EngineCrashed as exc:
            return lose(side, f"{COLOUR[side]}'s engine crashed: {exc}", Termination.ABANDONED, True)
        except EngineRejectedMove as exc:
            return lose(side, f"{COLOUR[side]}'s engine rejected the legal move {exc.move}: {exc.line.strip()}",
                        Termination.RULES_INFRACTION, True)
        except EngineError as exc:
            return lose(side, f"{COLOUR[side]}'s engine failed: {exc}", Termination.ABANDONED, True)
        elapsed = reply.elapsed
        if reply.move is None:
            if reply.claim is not None:
                res, text = reply.claim
                own_loss = "0-1" if side == 0 else "1-0"
                if res == own_loss:
                    return lose(side, f"{COLOUR[side]} resigns", Termination.NORMAL, False)
                return lose(side, f"{COLOUR[side]} makes an invalid result claim: {res} {{{text}}}",
                            Termination.RULES_INFRACTION, True)
            return lose(side, f"{COLOUR[side]}'s engine gave no move", Termination.RULES_INFRACTION, True)
        try:
            # a CECP engine writes a promotion to a promoted form as XBoard does (c6d7+)
            text = xb_view.read_move(pos, reply.move) if eng.protocol == "xboard" else reply.move
            m = pos.parse_coordinates(text)
        except MoveError:
            return lose(side, f"{COLOUR[side]} makes an illegal move: {reply.move}", Termination.RULES_INFRACTION, True)
        name = pos.move_name(m)
        san = pos.san(m)
        rec.moves.append(MoveRecord(name, san, _comment(reply.info, elapsed)))
        uci_moves.append(name)
        pos.push(m)
        if cfg.board is not None:
            cfg.board.update(rec)
        if clock[side] is not None:
            left = clock[side] - elapsed
            if left < -cfg.timemargin:  # late but the answer slipped in before the wait ended
                return lose(side, f"{COLOUR[side]} loses on time", Termination.TIME_FORFEIT, False)
            left = max(left, 0.0) + lim.inc
            in_period[side] += 1
            if lim.moves and in_period[side] >= lim.moves:
                left += lim.base
                in_period[side] = 0
            clock[side] = left
        elif lim.movetime is not None and elapsed > lim.movetime + cfg.timemargin:
            return lose(side, f"{COLOUR[side]} loses on time", Termination.TIME_FORFEIT, False)
        if pos.outcome() is None:
            fullmoves_done = (len(rec.moves) + (1 if start_fen.split()[1] == "b" else 0)) // 2
            decided = adj.after_move(side, reply.info.score_cp(), fullmoves_done)
            if decided is not None:
                return finish(decided[0], decided[1], Termination.ADJUDICATION)
