"""Game records, PGN output and the replay check of ``jitfish match``.

A ``GameRecord`` is what one game of a match leaves: players, start, moves with their comments,
the result with its reason and PGN ``Termination``.  ``replay_pgn`` re-checks a PGN (jitfish's or
XBoard's) with jitfish's rules (``jitfish match --replay``).
"""
from __future__ import annotations

import datetime as _dt
import re
import sys
from dataclasses import dataclass, field
from enum import StrEnum

from jitfish.movegen import FenError, MoveError, Position, VariantError
from jitfish.movegen.pgn import PgnGame, read_pgn, write_pgn
from jitfish.movegen.spec import RightsField
from jitfish.protocol.xboard import xboard_view

__all__ = ["Termination", "MoveRecord", "GameRecord", "ReplayReport", "replay_game", "replay_pgn"]


class Termination(StrEnum):
    """PGN ``Termination`` values (the PGN standard's and cutechess's)."""

    NORMAL = "normal"
    ADJUDICATION = "adjudication"
    TIME_FORFEIT = "time forfeit"
    RULES_INFRACTION = "rules infraction"
    ABANDONED = "abandoned"
    UNTERMINATED = "unterminated"


@dataclass
class MoveRecord:
    """One move of a game: coordinate text, SAN, and the comment (score/depth/time or book)."""

    uci: str
    san: str
    comment: str = ""


@dataclass
class GameRecord:
    """A finished game. result: ``1-0``/``0-1``/``1/2-1/2``/``*``; reason: the words
    (``White mates``); termination: a PGN Termination value; index: 0-based game number;
    white_engine: 0 when the first engine played White."""

    index: int
    white: str
    black: str
    white_engine: int
    variant: str
    start_fen: str
    moves: list[MoveRecord]
    result: str = "*"
    reason: str = ""
    termination: Termination = Termination.UNTERMINATED
    time_control: str = "-"
    event: str = "jitfish match"
    started: _dt.datetime = field(default_factory=_dt.datetime.now)
    duration: float = 0.0

    def score_first(self) -> float | None:
        """The first engine's score in this game (1, 0.5, 0), None when unfinished."""
        s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(self.result)
        if s is None:
            return None
        return s if self.white_engine == 0 else 1.0 - s

    def to_pgn(self) -> str:
        """The game as PGN: tags (Variant, FEN, SetUp, TimeControl, Termination, ...), SAN moves
        with ``{score/depth time}`` comments, the reason in the last comment, then the result."""
        d = int(self.duration)
        tags = [
            ("Event", self.event), ("Site", "?"), ("Date", self.started.strftime("%Y.%m.%d")),
            ("Round", str(self.index + 1)), ("White", self.white), ("Black", self.black),
            ("Result", self.result), ("Variant", self.variant), ("FEN", self.start_fen),
            ("SetUp", "1"), ("TimeControl", self.time_control), ("Termination", self.termination),
            ("PlyCount", str(len(self.moves))),
            ("GameDuration", f"{d // 3600:02d}:{d // 60 % 60:02d}:{d % 60:02d}"),
        ]
        comments = [mv.comment for mv in self.moves]
        if self.reason:
            if comments:
                comments[-1] = f"{comments[-1]}, {self.reason}" if comments[-1] else self.reason
            else:
                comments = [self.reason]
        return write_pgn(tags, [mv.san for mv in self.moves], self.result, self.start_fen, comments)


@dataclass
class ReplayReport:
    """What ``replay_pgn`` found in one game: ok, the verdict, and any problems."""

    index: int
    ok: bool
    message: str
    notes: list[str] = field(default_factory=list)


def _left_to_a_claim(verdict: tuple[str, str]) -> bool:
    """Verdicts other programs may not apply by themselves (XBoard leaves repetition and the
    50-move rule to claims, and material draws and courier's bare king to options)."""
    return verdict[1] in ("Threefold repetition", "50-move rule", "Insufficient material") \
        or "bare king" in verdict[1]


def replay_game(game: PgnGame, index: int = 0, variant: str | None = None) -> ReplayReport:
    """Re-check one PGN game with jitfish's rules: every move legal, no move after the game was
    decided by checkmate/stalemate/extinction, and a final position with a rules verdict must
    carry that result. Games still going on by the rules (resignation, time, adjudication) pass
    when their Termination or last comment says so; draws by repetition, the 50-move rule or
    insufficient material, and courier's bare king, that the players did not stop at are noted,
    not failed (other programs leave them to a claim or an option)."""
    try:
        pos = Position.from_pgn(game, variant)
    except (FenError, VariantError) as exc:
        return ReplayReport(index, False, f"cannot set up: {exc}")
    start = pos.fen()
    if pos.spec.rights_field != RightsField.FILES or start.split()[2] != "-":
        return _replay(game, index, pos)
    # XBoard never writes first-move rights kept per piece (its FENs say "-"): it decides them
    # by its own rule, a piece on a start square of its type has not moved. A PGN XBoard wrote
    # (it has the VariantMen tag) is read by that rule; another with "-" as it says, and by
    # XBoard's rule only if it fails so.
    xboard_start = xboard_view(pos.spec.name).read_fen(start)
    note = "first-move rights taken by XBoard's rule (the FEN says '-')"
    if "VariantMen" in game.tags:
        report = _replay(game, index, xboard_start)
        report.notes.insert(0, note)
        return report
    report = _replay(game, index, pos)
    if not report.ok:
        again = _replay(game, index, xboard_start)
        if again.ok:
            again.notes.insert(0, note)
            return again
    return report


def _replay(game: PgnGame, index: int, pos: Position) -> ReplayReport:
    notes: list[str] = []
    first_rule_draw = None
    for i, tok in enumerate(game.moves):
        verdict = pos.outcome()
        if verdict is not None:
            if _left_to_a_claim(verdict):
                if first_rule_draw is None:
                    first_rule_draw = (i, verdict)
            else:
                return ReplayReport(index, False, f"move {i + 1} ({tok}) after the game ended: {verdict[1]}")
        try:
            pos.push_san(tok)
        except MoveError as exc:
            return ReplayReport(index, False, f"ply {i + 1}: {exc}")
    verdict = pos.outcome()
    term = game.tags.get("Termination", "normal").lower()
    if first_rule_draw is not None:
        notes.append(f"{first_rule_draw[1][1]} (a draw by the rules) at ply {first_rule_draw[0]} was not stopped at")
    if verdict is not None:
        if game.result != verdict[0] and _left_to_a_claim(verdict):
            notes.append(f"jitfish's rules end the final position ({verdict[0]}, {verdict[1]}); "
                         f"the PGN says {game.result}")
        elif game.result != verdict[0]:
            return ReplayReport(index, False, f"result {game.result} but jitfish's rules say {verdict[0]} ({verdict[1]})", notes)
        return ReplayReport(index, True, f"{game.result} {verdict[1]}", notes)
    if game.result == "*":
        return ReplayReport(index, True, "* unfinished", notes)
    last = game.comments[-1] if game.comments else ""
    if term == "normal" and first_rule_draw is None and not re.search(
            r"resign|adjudicat|time|forfeit|disconnect|stall|illegal|crash|claim|agree|abandon|rules|loses|wins",
            last, re.I):
        return ReplayReport(index, False, f"result {game.result} with Termination normal, but the position is not over by the rules", notes)
    return ReplayReport(index, True, f"{game.result} not a rules verdict ({term}{': ' + last if last else ''})", notes)


def replay_pgn(path: str, variant: str | None = None, out=None) -> int:
    """``jitfish match --replay``: re-check every game of a PGN file; 0 when all pass, else 1."""
    out = out or sys.stdout
    with open(path, encoding="utf-8", errors="replace") as fh:
        games = read_pgn(fh.read())
    bad = 0
    for i, g in enumerate(games):
        rep = replay_game(g, i, variant)
        label = f"game {i + 1} ({g.tags.get('White', '?')} vs {g.tags.get('Black', '?')}, {len(g.moves)} plies)"
        print(f"{label}: {'ok' if rep.ok else 'FAIL'}: {rep.message}", file=out)
        for note in rep.notes:
            print(f"  note: {note}", file=out)
        bad += not rep.ok
    print(f"Replayed {len(games)} games: {len(games) - bad} ok, {bad} failed", file=out)
    return 1 if bad or not games else 0

