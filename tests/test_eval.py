"""Evaluation: colour symmetry in every variant, the weight files' validation, and terms that
must point the right way (passed pawns, king safety, mop-up, the 50-move scaling); the pawn cache."""
from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from jitfish.engine import Engine
from jitfish.eval import cache_for, eval_of, eval_tables, pack_eval, static_eval
from jitfish.eval import tables as E
from jitfish.eval.tables import _weights, tables_from, variant_weights
from jitfish.movegen import Position, load_variant, variant_names
from positions import random_walk


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(hash_mb=1)


def flipped(fen: str) -> str:
    """The same position with the colours swapped (board mirrored top to bottom, case swapped,
    the other side to move); rights and en passant dropped (the evaluation ignores them)."""
    board, side, *_rest = fen.split()
    half = fen.split()[4]
    rows = [r.swapcase() for r in reversed(board.split("/"))]
    return f"{'/'.join(rows)} {'b' if side == 'w' else 'w'} - - {half} 1"


def plain(fen: str) -> str:
    board, side, _r, _ep, half, _full = fen.split()
    return f"{board} {side} - - {half} 1"


def random_positions(variant: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = random_walk(Position(variant), rng, rng.randrange(4, 60))
        if pos.legal_moves() and not pos.outcome():
            out.append(plain(pos.fen()))
    return out


@pytest.mark.parametrize("variant", variant_names())
def test_evaluation_is_colour_symmetric(engine: Engine, variant: str) -> None:
    """Each term is added for one colour and subtracted for the other: a sign slip in any of
    them shows up as a position and its mirror image scoring differently."""
    for fen in random_positions(variant, 25, seed=7):
        a = engine.static_eval(Position(variant, fen))
        b = engine.static_eval(Position(variant, flipped(fen)))
        assert a == b, (fen, a, b)


def test_start_position_is_near_balance(engine: Engine) -> None:
    for variant in variant_names():
        assert abs(engine.static_eval(Position(variant))) <= 60, variant


def test_passed_pawn_is_worth_more_than_a_blocked_one(engine: Engine) -> None:
    passed = engine.static_eval(Position("chess", "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"))
    blocked = engine.static_eval(Position("chess", "4k3/3p4/8/3P4/8/8/8/4K3 w - - 0 1"))
    # the black pawn costs White about a pawn; a passed white pawn is worth more on top
    values = eval_tables(load_variant("chess")).value
    assert passed - blocked > values[0], (passed, blocked)


def test_king_attack_counts(engine: Engine) -> None:
    """The same material, the black queen and rook next to White's king or far from it: with
    king safety (chess: Stockfish's shape, ``sf_scale``) switched off the gap between the two
    shrinks."""
    from jitfish.eval.tables import P_SF_SCALE

    near = Position("chess", "2b3k1/ppp2ppp/2n5/8/8/6q1/PPP2PPr/RNBQ1RK1 w - - 0 1")
    far = Position("chess", "r1b3k1/ppp2ppp/q1n5/8/8/8/PPP2PP1/RNBQ1RK1 w - - 0 1")
    params = eval_tables(near.variant).params
    scale = int(params[P_SF_SCALE])
    assert scale > 0
    try:
        engine.new_game()
        gap = engine.static_eval(far) - engine.static_eval(near)
        params[P_SF_SCALE] = 0
        engine.new_game()  # the evaluation cache
        gap_off = engine.static_eval(far) - engine.static_eval(near)
    finally:
        params[P_SF_SCALE] = scale
        engine.new_game()
    assert gap - gap_off >= 20, (gap, gap_off)


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_king_danger_grows_with_the_square_of_the_attack(engine: Engine, variant: str) -> None:
    """king_danger_sq adds the square of the scaled attack units: twice the weight, twice the
    term (to rounding), nothing with one attacker, and more against the attacked side."""
    from jitfish.eval.tables import P_KING_DANGER, P_KING_DANGER_SQ

    # (a position with two enemy pieces at White's king, and one with none there)
    fens = {"chess": ("2b3k1/ppp2ppp/2n5/8/8/6q1/PPP2PPr/RNBQ1RK1 w - - 0 1",
                      "2b3k1/ppp2ppp/2n5/8/8/8/PPP2PP1/RNBQ1RK1 w - - 0 1"),
            "courier": ("rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/4m1F5/1PPPPPrPPPP1/RNEBMK1WBENR w - - 0 1",
                        "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1")}
    attacked, quiet = (Position(variant, f) for f in fens[variant])
    params = eval_tables(attacked.variant).params
    saved = int(params[P_KING_DANGER]), int(params[P_KING_DANGER_SQ])

    def term(kq: int, pos: Position) -> int:
        params[P_KING_DANGER] = 0
        params[P_KING_DANGER_SQ] = kq
        engine.new_game()  # the evaluation cache
        v = engine.static_eval(pos)
        params[P_KING_DANGER_SQ] = 0
        engine.new_game()
        return v - engine.static_eval(pos)

    try:
        d256, d512 = term(256, attacked), term(512, attacked)
        assert d512 < d256 < 0, (d256, d512)  # White's king is attacked: White's score falls
        assert abs(d512 - 2 * d256) <= 2, (d256, d512)
        assert term(512, quiet) == 0
    finally:
        params[P_KING_DANGER], params[P_KING_DANGER_SQ] = saved
        engine.new_game()


def test_mop_up_drives_the_bare_king_to_the_edge(engine: Engine) -> None:
    centre = engine.static_eval(Position("chess", "8/8/8/3k4/8/8/8/R3K3 w - - 0 1"))
    edge = engine.static_eval(Position("chess", "3k4/8/8/8/8/8/8/R3K3 w - - 0 1"))
    assert edge > centre


def test_fifty_move_counter_shrinks_the_score(engine: Engine) -> None:
    fresh = engine.static_eval(Position("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 0 60"))
    late = engine.static_eval(Position("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 90 60"))
    assert 0 < late < fresh


def test_weight_files_reject_unknown_keys(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(E, "WEIGHTS_DIR", tmp_path)
    (tmp_path / "x.toml").write_text("tempo = 1\nkings_danger = 3\n")
    with pytest.raises(ValueError, match="kings_danger"):
        _weights("x")


def test_passed_is_only_for_pawns(monkeypatch, tmp_path) -> None:
    text = (E.WEIGHTS_DIR / "chess.toml").read_text() + "\n[pieces.R]\npassed = 3\n"
    (tmp_path / "chess.toml").write_text(text.replace("[pieces.R]\nvalue", "[pieces.RR]\nvalue", 1))
    monkeypatch.setattr(E, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(E, "_CACHE", {})
    with pytest.raises(ValueError):
        eval_tables(load_variant("chess"))


def test_cleopatra_threat_is_a_cleopatra_move_away(engine: Engine) -> None:
    """In Cleopatra only the Cleopatra that moves converts: a knight next to the King is no
    danger; a Cleopatra that can move to a square from which it attacks the King is."""
    from jitfish.eval.tables import P_SAFETY_PENALTY

    pen = int(eval_tables(load_variant("cleopatra")).params[P_SAFETY_PENALTY])
    knight_far = engine.static_eval(Position("cleopatra", "4k3/8/8/8/8/8/8/4K1n1 w - - 0 1"))
    knight_near = engine.static_eval(Position("cleopatra", "4k3/8/8/8/8/8/6n1/4K3 w - - 0 1"))
    assert abs(knight_far - knight_near) < pen // 2
    # the black Cleopatra on a8 is one move from a4 or e8... blocked here by its own pawns
    shut = engine.static_eval(Position("cleopatra", "q3k3/ppp5/8/8/8/8/8/4K3 w - - 0 1"))
    free = engine.static_eval(Position("cleopatra", "4k3/ppp5/8/8/8/8/8/q3K3 w - - 0 1"))
    assert shut - free > pen // 2, (shut, free)


def test_an_inheriting_weight_file_adds_to_its_parents_search_table(tmp_path) -> None:
    (tmp_path / "a.toml").write_text("tempo = 1\n[search]\nprune_pv = 1\nlmp_depth = 5\n")
    (tmp_path / "b.toml").write_text('inherits = "a"\n[search]\nlmp_depth = 4\nqs_recap = 5\n')
    assert E._read_weights(tmp_path / "b.toml")["search"] == {"prune_pv": 1, "lmp_depth": 4, "qs_recap": 5}
    assert E._read_weights(tmp_path / "a.toml")["search"] == {"prune_pv": 1, "lmp_depth": 5}


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_the_pawn_cache_gives_what_the_pawn_structure_computes(variant: str) -> None:
    """``pawn_structure`` is cached by the pawn-like pieces' placement (``pawn_key``): positions
    that share it (a move apart) evaluated through one cache equal each evaluated with a cache
    of its own."""
    spec = load_variant(variant)
    w, _path = variant_weights(spec)
    ev = tables_from(spec, {**copy.deepcopy(w), "sf_scale": 256, "pawn_structure": True})
    rng = random.Random(26)
    shared = cache_for(None, ev)
    hits = 0
    for fen in random_positions(variant, 60, 27):
        pos = Position(variant, fen)
        family = [pos]
        for mv in pos.legal_moves():
            child = pos.copy()
            child.push(mv)
            if not child.is_check() and child.legal_moves():
                family.append(child)  # the same pawns with a piece moved, or one pawn moved
        for p in rng.sample(family, min(8, len(family))):
            filled = int(np.count_nonzero(shared.pkey))
            got = int(static_eval(pack_eval(p.pos, p.tab, ev, shared)))
            hits += int(np.count_nonzero(shared.pkey)) == filled
            assert got == eval_of(p.pos, p.tab, ev), p.fen()
    assert hits > 100  # most of them were answered by the cache


def _with(variant: str, **keys):
    spec = load_variant(variant)
    w, _path = variant_weights(spec)
    return tables_from(spec, {**copy.deepcopy(w), **keys})


def _eval(ev, variant: str, fen: str) -> int:
    pos = Position(variant, fen)
    return eval_of(pos.pos, pos.tab, ev)


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_passed_path_is_colour_symmetric(variant: str) -> None:
    ev = _with(variant, passed_path=True)
    for fen in random_positions(variant, 40, seed=8):
        assert _eval(ev, variant, fen) == _eval(ev, variant, flipped(fen)), fen


def test_passed_path_wants_a_free_path_and_the_kings_in_the_right_places() -> None:
    """Stockfish 11's passed-pawn terms (``passed_path``): the pawn on e6 gains with the black
    king far from e7 and more than with it beside e7 (where the far white king makes it a loss),
    more with a free path than with e7 attacked by a rook, and nothing when it is not passed."""
    on, off = _with("chess", passed_path=True), _with("chess", passed_path=False)

    def gain(fen: str) -> int:
        return _eval(on, "chess", fen) - _eval(off, "chess", fen)

    near = gain("5k2/8/4P3/8/8/8/8/4K3 w - - 0 1")
    far = gain("k7/8/4P3/8/8/8/8/4K3 w - - 0 1")
    assert far > 0 and far > near, (far, near)
    free = gain("k7/8/4P3/8/8/8/7R/4K3 w - - 0 1")
    watched = gain("k7/r7/4P3/8/8/8/8/4K3 w - - 0 1")
    assert free > watched, (free, watched)
    assert gain("k7/4p3/4P3/8/8/8/8/4K3 w - - 0 1") == 0  # blocked, not passed
