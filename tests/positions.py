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


def random_chess_positions(seed: int, n: int):
    """``n`` (Position, chess.Board) pairs of random chess walks (6 to 69 plies) with both kings
    on the board and a move to play, the fifty-move counter reset (no 50-move scaling)."""
    import chess

    rng = random.Random(seed)
    found = 0
    while found < n:
        pos = random_walk(Position("chess"), rng, rng.randrange(6, 70))
        if pos.outcome() or not pos.legal_moves():
            continue
        parts = pos.fen().split()
        parts[4] = "0"
        pos = Position("chess", " ".join(parts))
        board = chess.Board(pos.fen())
        if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
            continue
        found += 1
        yield pos, board


def kernel_phase(ev, pos: Position) -> int:
    """The evaluation kernel's game phase (256: the start's non-pawn material) of ``pos``."""
    from jitfish.eval.tables import P_PHASE_TOTAL

    cnt = pos.pos.cnt
    T = ev.phase_w.shape[0]
    npm = int(((cnt[0, :T] + cnt[1, :T]) * ev.phase_w).sum())
    total = int(ev.params[P_PHASE_TOTAL])
    return min(npm, total) * 256 // total
