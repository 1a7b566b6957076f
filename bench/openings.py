"""Openings for matches: start positions from EPD/FEN files and random balanced lines.

Each game pair of a match plays one ``Opening`` (a start FEN and book moves) with the colours
swapped.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from jitfish.movegen import FenError, Position

__all__ = ["Opening", "load_openings", "random_opening"]


@dataclass(frozen=True)
class Opening:
    """A start position and book moves played from it (coordinates)."""

    fen: str
    moves: tuple[str, ...] = ()


def load_openings(path: str, variant: str) -> list[str]:
    """FENs from an EPD or FEN file, one position a line (EPD operations after the fourth field
    are dropped; ``#`` starts a comment line). Each is checked with jitfish's rules."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            f = line.split(";")[0].split()
            if len(f) < 2:
                raise ValueError(f"{path}:{n}: not a FEN/EPD line: {line!r}")
            fen = " ".join(f[:6]) if len(f) >= 6 and f[4].isdigit() and f[5].isdigit() else " ".join(f[:4]) + " 0 1"
            if len(f) < 4:
                fen = " ".join(f)
            try:
                pos = Position(variant, fen)
            except FenError as exc:
                raise ValueError(f"{path}:{n}: {exc}") from None
            if pos.outcome() is not None:
                raise ValueError(f"{path}:{n}: the game is already over in {fen!r}")
            out.append(pos.fen())
    if not out:
        raise ValueError(f"{path}: no positions")
    return out


def random_opening(variant: str, plies: int, rng: random.Random, fen: str | None = None,
                   tries: int = 200) -> Opening:
    """K random legal plies from the start (or ``fen``) ending in a balanced position: the game
    not over and both sides with the same number of pieces of every type. Falls back to the
    least unbalanced line found when ``tries`` attempts find none."""
    base = Position(variant, fen)
    start = base.fen()
    best: tuple[int, tuple[str, ...]] | None = None
    for _ in range(tries):
        pos = base.copy()
        line: list[str] = []
        for _ in range(plies):
            if pos.outcome() is not None:
                break
            moves = pos.legal_moves()
            m = moves[rng.randrange(len(moves))]
            line.append(pos.move_name(m))
            pos.push(m)
        if len(line) < plies or pos.outcome() is not None:
            continue
        cnt = pos.pos.cnt
        imbalance = int(abs(cnt[0] - cnt[1]).sum())
        if imbalance == 0:
            return Opening(start, tuple(line))
        if best is None or imbalance < best[0]:
            best = (imbalance, tuple(line))
    if best is None:
        return Opening(start, ())
    return Opening(start, best[1])
