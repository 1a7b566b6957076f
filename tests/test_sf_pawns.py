"""Stockfish's pawn structure (``sf_pawns`` in eval/evaluate.py, ``pawn_structure = true``).

The oracle is the installed fairy-stockfish 11.1 itself: its ``eval`` command prints the pawn
structure as the "Pawns" row (White's minus Black's, middlegame and endgame, in its endgame
pawns of 213 units, to 0.01).  On random positions of chess and courier, jitfish's evaluation
with the term on minus the evaluation with it off (``sf_scale = 256``: Stockfish's units as they
are) must equal that row tapered by jitfish's phase, within the printed rounding.
"""
from __future__ import annotations

import copy
import random

import pytest

from jitfish.bench.eval_terms import fsf_terms
from jitfish.eval.evaluate import cache_for, pack_eval, static_eval
from jitfish.eval.tables import tables_from, variant_weights
from jitfish.movegen import Position, load_variant
from oracles import fairy_stockfish_path
from positions import kernel_phase, random_walk

FSF_PAWN_EG = 213  # fairy-stockfish's PawnValueEg: its eval table's unit


def _white_eval(pos: Position, ev) -> int:
    v = int(static_eval(pack_eval(pos.pos, pos.tab, ev, cache_for(None, ev))))
    return v if pos.turn == 0 else -v


def _positions(variant: str, seed: int, n: int) -> list[Position]:
    """Random walks (10 to 89 plies) with a move to play, not in check (fairy-stockfish has no
    static evaluation there), the fifty-move counter reset."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = random_walk(Position(variant), rng, rng.randrange(10, 90))
        if pos.outcome() or not pos.legal_moves() or pos.is_check():
            continue
        parts = pos.fen().split()
        parts[-2] = "0"
        out.append(Position(variant, " ".join(parts)))
    return out


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_pawn_structure_is_fairy_stockfishs(variant: str) -> None:
    spec = load_variant(variant)
    w, _path = variant_weights(spec)
    assert w.get("pawn_structure") is True, f"{variant}'s weights are expected to use the pawn structure"
    w = copy.deepcopy(w)
    on = tables_from(spec, {**w, "sf_scale": 256})
    off = tables_from(spec, {**w, "sf_scale": 256, "pawn_structure": False})
    positions = _positions(variant, 14, 240)
    names, kept, terms, _totals = fsf_terms(variant, [p.fen() for p in positions], fairy_stockfish_path(), 1e9,
                                            len(positions))
    assert len(kept) == len(positions) and "Pawns" in names
    row = names.index("Pawns")
    material = terms[:, names.index("Material"), :].mean(axis=1)
    nonzero = 0
    compared = 0
    for pos, (mg, eg), m in zip(positions, terms[:, row, :], material):
        if abs(m) > 4.5:
            continue  # fairy-stockfish's lazy evaluation (1400 units) leaves its terms out
        compared += 1
        phase = kernel_phase(on, pos)
        want = (mg * phase + eg * (256 - phase)) * FSF_PAWN_EG / 256
        got = _white_eval(pos, on) - _white_eval(pos, off)
        assert abs(got - want) <= 3, (pos.fen(), got, want, mg, eg)
        nonzero += abs(want) > 15
    assert compared > 80 and nonzero > 40  # the positions exercise the term


@pytest.mark.parametrize("change, words", [({"pawn_structure": 1}, "pawn_structure"),
                                           ({"pawn_structure": True, "sf_scale": 0}, "sf_scale")])
def test_bad_pawn_structure_is_refused_with_its_name(change: dict, words: str) -> None:
    spec = load_variant("chess")
    w, _path = variant_weights(spec)
    with pytest.raises(ValueError, match=words):
        tables_from(spec, {**copy.deepcopy(w), **change})
