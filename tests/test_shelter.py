"""Stockfish 11's pawn shelter and storm (``king_shelter``, ``sf_king_shelter`` in eval/sf_terms.py).

The kernel's term is checked against a plain-Python reading of Stockfish 11's pawns.cpp
(``evaluate_shelter`` and ``do_king_safety``, the values as Fairy-Stockfish 11.1 has them) with
python-chess boards: on random chess positions, and on positions built to put pawns in front of
castled and uncastled kings, the evaluation with ``king_shelter`` on minus off (``sf_scale =
256``: Stockfish's units as they are) must equal the reference tapered by the kernel's phase.
"""
from __future__ import annotations

import copy
import random

import chess
import pytest

from jitfish.eval.evaluate import eval_of
from jitfish.eval.tables import tables_from, variant_weights
from jitfish.movegen import Position, load_variant
from positions import kernel_phase, random_chess_positions

# pawns.cpp of Fairy-Stockfish 11.1 (Stockfish 11's values), written out again here
SHELTER = [[-6, 81, 93, 58, 39, 18, 25], [-43, 61, 35, -49, -29, -11, -63],
           [-10, 75, 23, -2, 32, 3, -45], [-39, -13, -29, -52, -48, -67, -166]]
STORM = [[85, -289, -166, 97, 50, 45, 50], [46, -25, 122, 45, 37, -10, 20],
         [-6, 51, 168, 34, -2, -22, -14], [-15, -11, 101, 4, 11, -15, -29]]


def _relative_rank(us: chess.Color, sq: int) -> int:
    r = chess.square_rank(sq)
    return r if us == chess.WHITE else 7 - r


def _shelter_at(board: chess.Board, us: chess.Color, ksq: int) -> tuple[int, int]:
    """evaluate_shelter<Us>(pos, ksq): pawns not behind the king's rank, three files."""
    kr = _relative_rank(us, ksq)
    pawns = {c: [s for s in board.pieces(chess.PAWN, c) if _relative_rank(us, s) >= kr] for c in (us, not us)}
    mg = eg = 5
    centre = min(max(chess.square_file(ksq), 1), 6)
    for f in range(centre - 1, centre + 2):
        ours = min((_relative_rank(us, s) for s in pawns[us] if chess.square_file(s) == f), default=0)
        theirs = min((_relative_rank(us, s) for s in pawns[not us] if chess.square_file(s) == f), default=0)
        d = min(f, 7 - f)
        mg += SHELTER[d][ours]
        if ours and ours == theirs - 1:
            if theirs == 2:
                mg -= 82
                eg -= 82
        else:
            mg -= STORM[d][theirs]
    return mg, eg


def _king_shelter(board: chess.Board, us: chess.Color) -> tuple[int, int]:
    """do_king_safety<Us>: the better shelter (by its middlegame value) of the king's square and
    the castling targets still open to it, less 16 per step to the nearest own pawn (endgame)."""
    ksq = board.king(us)
    best = _shelter_at(board, us, ksq)
    rank = 0 if us == chess.WHITE else 7
    for right, file in ((board.has_kingside_castling_rights(us), 6), (board.has_queenside_castling_rights(us), 2)):
        if right:
            other = _shelter_at(board, us, chess.square(file, rank))
            if other[0] > best[0]:
                best = other
    dist = min((chess.square_distance(ksq, p) for p in board.pieces(chess.PAWN, us)), default=0)
    return best[0], best[1] - 16 * dist


def _tables(on: bool):
    spec = load_variant("chess")
    w, _path = variant_weights(spec)
    return tables_from(spec, {**copy.deepcopy(w), "sf_scale": 256, "king_shelter": on})


def _white_eval(pos: Position, ev) -> int:
    v = eval_of(pos.pos, pos.tab, ev)
    return v if pos.turn == 0 else -v


def _check(positions) -> int:
    on, off = _tables(True), _tables(False)
    nonzero = 0
    for pos, board in positions:
        wm, we = _king_shelter(board, chess.WHITE)
        bm, be = _king_shelter(board, chess.BLACK)
        phase = kernel_phase(on, pos)
        want = ((wm - bm) * phase + (we - be) * (256 - phase)) / 256
        got = _white_eval(pos, on) - _white_eval(pos, off)
        assert abs(got - want) <= 2, (pos.fen(), got, want)
        nonzero += abs(want) > 20
    return nonzero


@pytest.mark.parametrize("seed", [1, 2])
def test_shelter_matches_a_python_reading_of_stockfish(seed: int) -> None:
    assert _check(random_chess_positions(seed, 80)) > 40


def _pawn_walls(seed: int, n: int):
    """Kings on their castling squares or at home (castling rights kept when at home), pawns of
    both colours scattered in front of them: the storm, blocked storm and castling cases."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board = chess.Board(None)
        home = rng.random() < 0.4
        wk = chess.E1 if home else rng.choice([chess.G1, chess.C1, chess.B1, chess.H2, chess.F1])
        bk = chess.E8 if home else rng.choice([chess.G8, chess.C8, chess.B8, chess.H7, chess.F8])
        board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
        if home:
            for sq, colour in ((chess.A1, chess.WHITE), (chess.H1, chess.WHITE), (chess.A8, chess.BLACK),
                               (chess.H8, chess.BLACK)):
                board.set_piece_at(sq, chess.Piece(chess.ROOK, colour))
        for _ in range(rng.randrange(4, 14)):
            sq = chess.square(rng.randrange(8), rng.randrange(1, 7))
            if board.piece_at(sq) is None:
                board.set_piece_at(sq, chess.Piece(chess.PAWN, rng.random() < 0.5))
        board.set_piece_at(chess.D4 if board.piece_at(chess.D4) is None else chess.D5,
                           chess.Piece(chess.QUEEN, rng.random() < 0.5))  # some phase
        board.castling_rights = board.clean_castling_rights() if home else chess.BB_EMPTY
        if home:
            board.set_castling_fen("KQkq")
            board.castling_rights = board.clean_castling_rights()
        board.turn = rng.random() < 0.5
        if not board.is_valid():
            continue
        pos = Position("chess", board.fen())
        if pos.outcome() or not pos.legal_moves():
            continue
        out.append((pos, board))
    return out


def test_shelter_matches_in_front_of_castled_and_uncastled_kings() -> None:
    positions = _pawn_walls(3, 120)
    assert sum(1 for _p, b in positions if b.castling_rights) > 20
    assert _check(positions) > 60


def test_king_shelter_needs_sf_scale() -> None:
    spec = load_variant("chess")
    w, _path = variant_weights(spec)
    with pytest.raises(ValueError, match="king_shelter: needs sf_scale"):
        tables_from(spec, {**copy.deepcopy(w), "sf_scale": 0, "pawn_structure": False, "passed_path": False,
                           "king_shelter": True})


def test_the_shelter_cache_gives_what_the_shelter_computes() -> None:
    """``king_shelter`` is cached by the pawn key, both royal squares and the castling rights:
    positions a move apart (king moves and castling among them) evaluated through one cache
    equal each evaluated with a cache of its own."""
    from jitfish.eval.evaluate import cache_for, pack_eval, static_eval

    ev = _tables(True)
    rng = random.Random(38)
    shared = cache_for(None, ev)
    hits = misses = 0
    seen_castle = 0
    starts = [p for p, _b in random_chess_positions(5, 30)] + [p for p, _b in _pawn_walls(6, 30)]
    for pos in starts:
        family = [pos]
        for mv in pos.legal_moves():
            child = pos.copy()
            child.push(mv)
            if child.legal_moves():
                family.append(child)
                seen_castle += "O-O" in pos.san(mv)
        for p in rng.sample(family, min(10, len(family))):
            filled = int((shared.skey != 0).sum())
            got = int(static_eval(pack_eval(p.pos, p.tab, ev, shared)))
            if int((shared.skey != 0).sum()) == filled:
                hits += 1
            else:
                misses += 1
            assert got == eval_of(p.pos, p.tab, ev), p.fen()
    assert hits > 100 and misses > 100  # both paths taken
    assert seen_castle > 0
