"""The move generation of the search's staged move loop (``staged``), against ``generate``'s
full lists: ``GEN_TACTICAL`` and ``GEN_QUIET`` split ``GEN_ALL`` (every move in exactly one), and
``kernels.legal_move``, the test of a TT move before any generation: in every position of seeded random games of every shipped variant and the test
variants under ``tests/variants``, every legal move must be answered legal (or -1 where it is not
a plain move), and moves taken from other positions of the same games (the TT's moves are those)
legal exactly when ``generate`` lists them."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from jitfish.movegen import Position, variant_names
from jitfish.movegen import kernels as K

GAMES = 10
PLIES = 70
TEST_VARIANTS = sorted(str(p) for p in (Path(__file__).parent / "variants").glob("*.toml"))
# promotions (with and without a capture), pins, checks, en passant and castling
CHESS_FENS = [
    "r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PpP/R3K2R w KQkq e6 0 1",
    "4k3/8/8/8/8/8/4r3/4K2R w K - 0 1",
    "3qk3/8/8/8/8/8/3B4/3K4 w - - 0 1",
    "8/2P5/8/8/8/8/5k2/K7 w - - 0 1",
]


def _split(p: Position) -> None:
    """GEN_TACTICAL and GEN_QUIET together list GEN_ALL's moves, each once."""
    lists = []
    for mode in (K.GEN_ALL, K.GEN_TACTICAL, K.GEN_QUIET):
        out = np.zeros(K.MAXMOVES, np.int64)
        lists.append(sorted(out[:K.generate(p.b, out, mode)].tolist()))
    every, tactical, quiet = lists
    assert sorted(tactical + quiet) == every, f"{p.spec.name}: {p.fen()}"


def _ask(p: Position, m: int) -> int:
    return int(K.probe(p.b, K.PROBE_LEGAL, np.int64(m)))


def _check_position(p: Position, others: list[int]) -> tuple[int, int]:
    """(legal moves answered, foreign moves answered) in p; asserts each answer."""
    _split(p)
    legal = set(p.legal_moves())
    answered = foreign = 0
    for m in legal:
        a = _ask(p, m)
        plain = K.move_kind(m) == K.KIND_NORMAL
        assert a == (1 if plain else -1), f"{p.spec.name}: {p.fen()} {p.move_name(m)}: {a}"
        answered += 1
    for m in others:
        if m in legal:
            continue
        a = _ask(p, m)
        if K.move_kind(m) != K.KIND_NORMAL:
            assert a == -1
            continue
        assert a == 0, f"{p.spec.name}: {p.fen()}: move {m} ({K.move_from(m)}->{K.move_to(m)}) not legal, answered {a}"
        foreign += 1
    return answered, foreign


def _foreign(rng: random.Random, seen: list[int], nsq: int) -> list[int]:
    """Moves of other positions, and made-up ones on the board (a TT entry of another
    position, or a collision)."""
    out = rng.sample(seen, min(len(seen), 40))
    for _ in range(20):
        out.append(K.encode(rng.randrange(nsq), rng.randrange(nsq), rng.choice((0, 0, 0, 1, 2, 5)), 0))
    return out


def _games(variant: str, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    answered = foreign = 0
    seen: list[int] = []
    for _g in range(GAMES):
        p = Position(variant)
        nsq = p.spec.files * p.spec.ranks
        for _ply in range(PLIES):
            moves = p.legal_moves()
            a, f = _check_position(p, _foreign(rng, seen, nsq) if seen else [])
            answered += a
            foreign += f
            if not moves or p.is_over():
                break
            seen.extend(moves)
            if len(seen) > 3000:
                seen = seen[-3000:]
            p.push(rng.choice(moves))
    return answered, foreign


@pytest.mark.parametrize("variant", variant_names() + TEST_VARIANTS)
def test_staged_generation_agrees_with_generate(variant):
    answered, foreign = _games(variant, 23)
    assert answered > 1000 and foreign > 1000


@pytest.mark.parametrize("fen", CHESS_FENS)
def test_staged_generation_in_chess_corners(fen):
    p = Position("chess", fen)
    rng = random.Random(5)
    others = [K.encode(f, t, pr, 0) for f in range(64) for t in range(64) for pr in (0, 2, 5)
              if rng.random() < 0.2]
    answered, foreign = _check_position(p, others)
    assert answered > 0 and foreign > 100
