"""``kernels.quiet_gives_check``, the search's check test for a pruned move that is not made,
against making the move and asking ``in_check``: every legal move of every position of seeded
random games, in every shipped variant and the test variants under ``tests/variants``."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from jitfish.movegen import Position, variant_names
from jitfish.movegen import kernels as K

GAMES = 12
PLIES = 60
# positions where plain moves uncover checks (a knight's, a pawn push, a Black knight's) or
# give them directly (rooks, a queen), as random games seldom reach discovered checks
CHESS_FENS = [
    "4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1",
    "7k/8/8/8/8/2P5/1B6/K7 w - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w - - 0 1",
    "8/8/8/2k5/8/8/8/1Q2K1RB w - - 0 1",
    "4r1k1/8/8/8/4n3/8/8/4K3 b - - 0 1",
]
TEST_VARIANTS = sorted(str(p) for p in (Path(__file__).parent / "variants").glob("*.toml"))


def _compare(p: Position) -> tuple[int, int]:
    """(moves answered, of which checks) in position p; asserts each answer."""
    answered = checks = 0
    for m in p.legal_moves():
        fast = int(K.probe(p.b, K.PROBE_GIVES_CHECK, np.int64(m)))
        if fast < 0:
            continue
        p.push(m)
        made = p.is_check()
        p.pop()
        assert fast == int(made), f"{p.variant}: {p.fen()} move {p.move_name(m)}: {fast}, made: {made}"
        answered += 1
        checks += fast
    return answered, checks


def _check(variant: str, seed: int) -> tuple[int, int]:
    """(moves answered, of which checks) over the random games."""
    rng = random.Random(seed)
    answered = checks = 0
    for _g in range(GAMES):
        p = Position(variant)
        for _ply in range(PLIES):
            moves = p.legal_moves()
            if not moves or p.is_over():
                break
            a, c = _compare(p)
            answered += a
            checks += c
            p.push(rng.choice(moves))
    return answered, checks


@pytest.mark.parametrize("variant", variant_names() + TEST_VARIANTS)
def test_quiet_gives_check_equals_make_and_in_check(variant):
    answered, checks = _check(variant, 17)
    assert answered > 1000
    if variant in ("chess", "courier"):
        assert checks > 0  # random games give quiet checks there: both answers are seen


@pytest.mark.parametrize("fen", CHESS_FENS)
def test_discovered_and_direct_checks_in_chess(fen):
    answered, checks = _compare(Position("chess", fen))
    assert checks >= 1
