"""Stockfish's mobility area (``mobility_area = true`` in a weight file; ``mobility_area`` in
eval/evaluate.py).

The kernel's counts are checked against a plain-Python reading of the definition with
python-chess's attack sets on random chess positions: a piece's mobility is the squares it
attacks (own pieces included) inside its side's area, which leaves out its own king, its own
pawns that are blocked or stand on their second or third rank, and the squares enemy pawns
attack.  Both the evaluation (with the mobility tables against without them) and the tuner's
rows (``feature_rows``) must agree with the reference.
"""
from __future__ import annotations

import copy

import chess
import numpy as np
import pytest

from jitfish.eval.evaluate import FEAT_MOBILITY, cache_for, eval_of, feature_rows, pack_eval
from jitfish.eval.tables import MOB_N, tables_from, variant_weights
from jitfish.movegen import Position, load_variant
from positions import kernel_phase, random_chess_positions

TYPES = "PNBRQK"


def _white_eval(pos: Position, ev) -> int:
    v = eval_of(pos.pos, pos.tab, ev)
    return v if pos.turn == 0 else -v


def _area(board: chess.Board, colour: chess.Color) -> chess.SquareSet:
    """The squares of ``colour``'s mobility area, as the weight file's documentation defines it."""
    out = chess.SquareSet(chess.BB_ALL)
    out.discard(board.king(colour))
    up = 8 if colour == chess.WHITE else -8
    for sq in board.pieces(chess.PAWN, colour):
        rank = chess.square_rank(sq) if colour == chess.WHITE else 7 - chess.square_rank(sq)
        if rank in (1, 2) or board.piece_at(sq + up) is not None:
            out.discard(sq)
    for sq in board.pieces(chess.PAWN, not colour):
        out -= board.attacks(sq)
    return out


def _counts(board: chess.Board) -> dict[tuple[int, int], list[int]]:
    """(type index, colour 0 White) -> the mobility counts of those pieces."""
    out: dict[tuple[int, int], list[int]] = {}
    for colour in (chess.WHITE, chess.BLACK):
        area = _area(board, colour)
        for pt in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            for sq in board.pieces(pt, colour):
                n = len(board.attacks(sq) & area)
                out.setdefault((TYPES.index(chess.piece_symbol(pt).upper()), 0 if colour else 1), []).append(n)
    return out


def _weights() -> dict:
    w, _path = variant_weights(load_variant("chess"))
    w = copy.deepcopy(w)
    assert w.get("mobility_area") is True, "chess's weights are expected to use the mobility area"
    # the king danger reads the mobility: leave it out, with the Stockfish-unit pawn terms that need its scale
    return {**w, "sf_scale": 0, "pawn_structure": False, "passed_path": False}


@pytest.mark.parametrize("seed", [1, 2])
def test_mobility_counts_follow_the_area_definition(seed: int) -> None:
    variant = load_variant("chess")
    w = _weights()
    on = tables_from(variant, w)
    bare = copy.deepcopy(w)
    for pw in bare["pieces"].values():
        for key in ("mobility", "mobility_table", "mobility_table_eg"):
            pw.pop(key, None)
    off = tables_from(variant, bare)
    plain = tables_from(variant, {**w, "mobility_area": False})
    rows = np.zeros((256, 4), np.int64)
    differs = 0
    for pos, board in random_chess_positions(seed, 60):
        counts = _counts(board)
        # the tuner's rows
        cache = cache_for(None, on)  # kept alive while the kernel reads the bundle
        k = feature_rows(pack_eval(pos.pos, pos.tab, on, cache), rows)
        got: dict[tuple[int, int], list[int]] = {}
        for kind, t, c, n in rows[:k]:
            if kind == FEAT_MOBILITY:
                got.setdefault((int(t), int(c)), []).append(int(n))
        assert {key: sorted(v) for key, v in got.items()} == {key: sorted(v) for key, v in counts.items()}, pos.fen()
        # the evaluation
        mg = eg = 0
        for (t, c), ns in counts.items():
            for n in ns:
                sign = 1 if c == 0 else -1
                mg += sign * int(on.mob_mg[t, min(n, MOB_N - 1)])
                eg += sign * int(on.mob_eg[t, min(n, MOB_N - 1)])
        phase = kernel_phase(on, pos)
        want = (mg * phase + eg * (256 - phase)) / 256
        assert abs(_white_eval(pos, on) - _white_eval(pos, off) - want) <= 2, (pos.fen(), want)
        differs += _white_eval(pos, plain) != _white_eval(pos, on)
    assert differs > 30  # the area changes the counts in most positions


@pytest.mark.parametrize("value", [1, "yes", [True]])
def test_a_mobility_area_that_is_not_true_or_false_is_refused(value) -> None:
    variant = load_variant("chess")
    with pytest.raises(ValueError, match="mobility_area"):
        tables_from(variant, {**_weights(), "mobility_area": value})


def _pawn_counts(board: chess.Board) -> dict[int, list[int]]:
    """colour (0 White) -> the mobility counts of its pawns, as the kernel counts a pawn-like
    piece's: the occupied squares it attacks and the empty square it steps to (no double step),
    inside its side's area."""
    out: dict[int, list[int]] = {}
    for colour in (chess.WHITE, chess.BLACK):
        area = _area(board, colour)
        up = 8 if colour == chess.WHITE else -8
        for sq in board.pieces(chess.PAWN, colour):
            targets = {s for s in board.attacks(sq) if board.piece_at(s) is not None}
            if 0 <= sq + up < 64 and board.piece_at(sq + up) is None:
                targets.add(sq + up)
            out.setdefault(0 if colour else 1, []).append(len(targets & set(area)))
    return out


@pytest.mark.parametrize("seed", [3])
def test_pawn_like_mobility_is_counted_within_the_area(seed: int) -> None:
    """No seed variant gives a pawn-like piece mobility, but a weight file may: the kernel
    counts those pieces once the area (which their own moves shape) is complete."""
    variant = load_variant("chess")
    w = _weights()
    table = [-20, -5, 4, 11, 17]
    with_pawns = copy.deepcopy(w)
    with_pawns["pieces"]["P"]["mobility_table"] = table
    with_pawns["pieces"]["P"]["mobility_table_eg"] = table
    on = tables_from(variant, with_pawns)
    off = tables_from(variant, w)
    assert on.mobility[0] != 0 and off.mobility[0] == 0
    checked = 0
    for pos, board in random_chess_positions(seed, 60):
        want = 0
        for c, ns in _pawn_counts(board).items():
            want += (1 if c == 0 else -1) * sum(int(on.mob_mg[0, min(n, MOB_N - 1)]) for n in ns)
        assert abs(_white_eval(pos, on) - _white_eval(pos, off) - want) <= 1, (pos.fen(), want)
        checked += want != 0
    assert checked > 30
