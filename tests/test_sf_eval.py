"""Stockfish-shaped king safety and threats (``sf_king``, ``sf_threats`` in eval/sf_terms.py).

The kernel's terms are checked against a plain-Python reading of the same definitions, with
python-chess's attack sets (an independent attack generator) on random chess positions: the
evaluation with ``sf_scale = 256`` minus the evaluation with it off must equal the reference's
king safety and threats, tapered by the kernel's phase.  Mobility is taken out of the weights
for the check, so that the king danger's mobility term is the only thing left to mirror.
"""
from __future__ import annotations

import copy

import chess
import numpy as np
import pytest

from jitfish.eval.tables import variant_weights, tables_from
from jitfish.eval.evaluate import eval_of
from jitfish.movegen import Position, load_variant
from positions import kernel_phase, random_chess_positions

TYPES = "PNBRQK"


def _white_eval(pos: Position, ev) -> int:
    v = eval_of(pos.pos, pos.tab, ev)
    return v if pos.turn == 0 else -v


def _bits(bb: int) -> set[int]:
    return set(chess.SquareSet(bb))


def _reference(board: chess.Board, w: dict, king_only: bool = False) -> tuple[int, int]:
    """(mg, eg) of White's king safety and threats minus Black's (``king_only``: the king safety
    alone), in Stockfish's units, from the definitions in sf_king and sf_threats (mobility left out:
    the weights have none)."""
    pieces = w["pieces"]
    value = {p: pieces[p].get("value", 0) for p in TYPES}
    att = {c: {t: set() for t in TYPES} for c in (chess.WHITE, chess.BLACK)}
    allatt = {c: set() for c in att}
    twice = {c: set() for c in att}
    for sq, piece in board.piece_map().items():
        a = _bits(int(board.attacks(sq)))
        c = piece.color
        twice[c] |= allatt[c] & a
        allatt[c] |= a
        att[c][piece.symbol().upper()] |= a
    occ = {c: _bits(int(board.occupied_co[c])) for c in att}
    pawns = {c: _bits(int(board.pieces(chess.PAWN, c))) for c in att}

    def zone(k: int) -> set[int]:
        f, r = chess.square_file(k), chess.square_rank(k)
        return {chess.square(f + df, r + dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)
                if 0 <= f + df < 8 and 0 <= r + dr < 8}

    def king(k_colour: bool) -> tuple[int, int]:
        them = not k_colour
        ksq = board.king(k_colour)
        ring = zone(ksq)
        adj = ring - {ksq}
        n = w_sum = acount = 0
        for sq, piece in board.piece_map().items():
            if piece.color != them or piece.piece_type in (chess.PAWN, chess.KING):
                continue
            a = _bits(int(board.attacks(sq)))
            if a & ring:
                n += 1
                w_sum += pieces[piece.symbol().upper()].get("king_attack_weight", 0)
                acount += len(a & adj)
        n += len(att[them]["P"] & ring)
        weak = allatt[them] - twice[k_colour]
        weak = {s for s in weak if s not in allatt[k_colour] or s in att[k_colour]["K"]}
        safe = {s for s in range(64) if s not in occ[them] and (s not in allatt[k_colour] or (s in weak and s in twice[them]))}
        kd = 0
        unsafe: set[int] = set()
        major = False
        for t in "NBRQ":
            pt = chess.PIECE_SYMBOLS.index(t.lower())
            if not board.pieces(pt, them):
                continue
            if value[t] >= w.get("king_major_value", 1 << 40):
                major = True
            probe = board.copy(stack=False)
            probe.set_piece_at(ksq, chess.Piece(pt, them))
            checks = _bits(int(probe.attacks(ksq))) & att[them][t]
            good = checks & safe
            if good:
                kd += pieces[t]["safe_check"][1 if len(good) > 1 else 0]
            else:
                unsafe |= checks
        kf = chess.square_file(ksq)
        lo, hi = ((0, 2), (0, 3), (0, 3), (2, 5), (2, 5), (4, 7), (4, 7), (5, 7))[kf]
        flank = {s for s in range(64) if lo <= chess.square_file(s) <= hi}
        camp = {s for s in range(64) if (chess.square_rank(s) if k_colour == chess.WHITE else 7 - chess.square_rank(s)) <= 4}
        b1 = allatt[them] & flank & camp
        kfa = len(b1) + len(b1 & twice[them])
        kfd = len(allatt[k_colour] & flank & camp)
        kd += (n * w_sum + 185 * len(ring & weak) + 148 * len(unsafe) + 69 * acount + 3 * kfa * kfa // 8
               - 4 * kfd + 37)
        if not major:
            kd -= w.get("king_no_major", 0)
        mg, eg = 8 * kfa, 0
        if kd > 100:
            mg += min(kd, 3500) * kd // 4096
            eg += kd // 16
        if not (pawns[True] | pawns[False]) & flank:
            mg, eg = mg + 17, eg + 95
        return mg, eg

    def threats(us: bool) -> tuple[int, int]:
        them = not us
        strong = att[them]["P"] | (twice[them] - twice[us])
        npe = occ[them] - pawns[them]
        weak = (occ[them] - strong) & allatt[us]
        minor = set().union(*(att[us][t] for t in TYPES if pieces[t].get("threat_class") == "minor"))
        rook = set().union(*(att[us][t] for t in TYPES if pieces[t].get("threat_class") == "rook"))
        mg = eg = 0
        for s in ((npe & strong) | weak) & minor:
            m, e = pieces[board.piece_at(s).symbol().upper()].get("threat_minor", [0, 0])
            mg, eg = mg + m, eg + e
        for s in weak & rook:
            m, e = pieces[board.piece_at(s).symbol().upper()].get("threat_rook", [0, 0])
            mg, eg = mg + m, eg + e
        if weak & att[us]["K"]:
            mg, eg = mg + 24, eg + 89
        h = len({s for s in weak if s not in allatt[them] or (s in npe and s in twice[us])})
        mg, eg = mg + 69 * h, eg + 36 * h
        r = len((allatt[them] - strong) & allatt[us])
        mg, eg = mg + 7 * r, eg + 7 * r
        n = 0
        for s in pawns[us]:
            if s not in allatt[them] or s in allatt[us]:
                n += len(_bits(int(board.attacks(s))) & npe)
        return mg + 173 * n, eg + 94 * n

    kw, kb = king(chess.WHITE), king(chess.BLACK)
    tw, tb = threats(chess.WHITE), threats(chess.BLACK)
    if king_only:
        return kb[0] - kw[0], kb[1] - kw[1]
    return kb[0] - kw[0] + tw[0] - tb[0], kb[1] - kw[1] + tw[1] - tb[1]


def _weights_without_mobility() -> dict:
    w, _path = variant_weights(load_variant("chess"))
    w = copy.deepcopy(w)
    for pw in w["pieces"].values():
        for key in ("mobility", "mobility_table", "mobility_table_eg"):
            pw.pop(key, None)
    # the pawn terms (pawn_structure, passed_path) have tests of their own (test_fsf_terms.py, test_eval.py)
    w.pop("pawn_structure", None)
    w.pop("passed_path", None)
    return w


@pytest.mark.parametrize("seed", [1, 2])
def test_sf_terms_match_a_python_reading_of_their_definitions(seed: int) -> None:
    variant = load_variant("chess")
    w = _weights_without_mobility()
    assert w.get("sf_scale"), "chess's weights are expected to use the Stockfish-shaped terms"
    on = tables_from(variant, {**w, "sf_scale": 256})
    off = tables_from(variant, {**w, "sf_scale": 0})
    nonzero = 0
    for pos, board in random_chess_positions(seed, 60):
        mg, eg = _reference(board, w)
        phase = kernel_phase(on, pos)
        want = (mg * phase + eg * (256 - phase)) / 256
        got = _white_eval(pos, on) - _white_eval(pos, off)
        assert abs(got - want) <= 2, (pos.fen(), got, want, mg, eg)
        nonzero += abs(want) > 20
    assert nonzero > 30  # the positions exercise the terms


def test_king_scale_scales_the_king_safety_alone() -> None:
    """``king_scale`` weighs sf_king's danger on its own: the evaluation at king_scale 256 less the one
    at king_scale 0 (both with sf_scale 256) is the reference's king safety alone, and leaving the key
    out is king_scale = sf_scale."""
    variant = load_variant("chess")
    w = _weights_without_mobility()
    full = tables_from(variant, {**w, "sf_scale": 256, "king_scale": 256})
    none = tables_from(variant, {**w, "sf_scale": 256, "king_scale": 0})
    default = tables_from(variant, {**w, "sf_scale": 256})
    nonzero = 0
    for pos, board in random_chess_positions(3, 60):
        mg, eg = _reference(board, w, king_only=True)
        phase = kernel_phase(full, pos)
        want = (mg * phase + eg * (256 - phase)) / 256
        got = _white_eval(pos, full) - _white_eval(pos, none)
        assert abs(got - want) <= 2, (pos.fen(), got, want, mg, eg)
        assert _white_eval(pos, default) == _white_eval(pos, full)
        nonzero += abs(want) > 20
    assert nonzero > 20  # the positions exercise the king safety
    with pytest.raises(ValueError, match="king_scale"):
        tables_from(variant, {**w, "sf_scale": 0, "king_scale": 100})



@pytest.mark.parametrize("key, value, words", [("threat_class", '"queen"', "threat_class"),
                                               ("safe_check", "[1, 2, 3]", "safe_check"),
                                               ("king_attack_weight", '"many"', "king_attack_weight")])
def test_bad_sf_keys_are_refused_with_their_name(key: str, value: str, words: str) -> None:
    from jitfish.eval import tables as E
    import tomllib
    variant = load_variant("chess")
    w, _path = variant_weights(variant)
    w = copy.deepcopy(w)
    w["pieces"]["N"][key] = tomllib.loads(f"x = {value}")["x"]
    with pytest.raises(ValueError, match=words):
        E.tables_from(variant, w)
