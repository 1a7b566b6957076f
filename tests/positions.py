"""Positions for tests: random legal walks from a variant's start."""
from __future__ import annotations

import random

from jitfish.movegen import Position


def random_walk(pos: Position, rng: random.Random, plies: int) -> Position:
    """Push up to ``plies`` random legal moves onto ``pos``, stopping at a decided position."""
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves or pos.outcome():
            break
        pos.push(rng.choice(moves))
    return pos
