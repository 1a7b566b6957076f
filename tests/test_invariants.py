"""Random-play invariants for every shipped variant.

Seeded random games (``GAMES`` per variant; every fifth game runs up to ``MAX_PLIES`` plies, the
others up to ``SHORT_PLIES``; half of the games prefer captures and promotions so that endings,
promotions and game ends are reached). At every ply of every game:

- the incremental Zobrist key equals the key recomputed from scratch (``kernels.full_key``);
- the FEN round-trips: ``Position(v, fen).fen() == fen``;
- the legal moves equal those of a fresh ``Position(v, fen)`` (compared as encoded moves, which
  name the same moves in the same variant), have no duplicates, and their number equals
  ``count_legal()``; a position decided by a variant rule has no moves;
- against an outside oracle (on the first ``ORACLE_GAMES`` games of a variant): python-chess for
  chess (moves, FEN, check), ``tests/reference/slow_rules.py`` for cleopatra and the cows
  variants (moves and the FEN after each move), pyffish + ``tests/perft/fsf-variants.ini`` for
  the courier family (moves after the game's move list, and the board at the end).

Then every move is taken back: each ply's FEN and key come back, and at the start the position
arrays equal the initial ones exactly (keys and undo rows beyond the current ply excepted).

Separately, ``test_key_depends_only_on_the_fen`` requires the key of ``Position(v, fen)`` to
equal the key of the position the game reached (repetition detection compares keys).

``JITFISH_RANDOM_GAMES`` sets the number of games per variant (e.g. 3000 for a long soak).
"""
from __future__ import annotations

import os
import random

import numpy as np
import pytest

from jitfish.movegen import Position, load_variant, variant_names
from jitfish.movegen import kernels as K
from oracles import (
    FSF_NAMES, SLOW_RULES_VARIANTS, fsf_available, fsf_fen, fsf_legal, movelist_diff, slow_rules,
)

GAMES = int(os.environ.get("JITFISH_RANDOM_GAMES", "250"))
MAX_PLIES = 64  # every fifth game; the others stop at SHORT_PLIES
SHORT_PLIES = 16
KEY_GAMES = 12  # games per variant for test_key_depends_only_on_the_fen
CHUNKS = 2  # tests per variant (smaller failure reports, visible progress)
# games per variant compared with the outside oracle (pyffish costs ~2 ms per call)
ORACLE_GAMES = {"chess": GAMES, "cleopatra": GAMES, "cowsandbutterflies": GAMES // 2,
                "cowsandbutterflies-reversed": GAMES // 2,
                "courier": 16, "modcourier": 16, "modcourier2": 12, "modcourier3": 12}

VARIANTS = variant_names()


def _snapshot(p: Position) -> dict[str, np.ndarray]:
    """The position arrays that must come back exactly after popping to ply 0."""
    ply = int(p.pos.st[K.ST_PLY])
    out = {}
    for name, arr in zip(p.pos._fields, p.pos):
        if name == "keys":
            out[name] = arr[: ply + 1].copy()
        elif name.startswith("undo"):
            out[name] = arr[:ply].copy()
        elif name in ("scratch", "dirty"):  # dirty: what the last moves changed, not undone
            continue
        else:
            out[name] = arr.copy()
    return out


def _pick(rng: random.Random, p: Position, moves: list[int], greedy: bool) -> int:
    if greedy and rng.random() < 0.7:
        forcing = [m for m in moves if K.move_promo(m) or p.pos.board[K.move_to(m)] != 0]
        if forcing:
            return rng.choice(forcing)
    return rng.choice(moves)


class _ChessOracle:
    name = "python-chess"

    def __init__(self, fen: str):
        import chess

        self.board = chess.Board(fen)

    def check(self, p: Position, fen: str, names: list[str]) -> list[str]:
        errs = []
        theirs = sorted(m.uci() for m in self.board.legal_moves)
        if theirs != names:
            errs.append(f"moves differ from python-chess: {movelist_diff(names, theirs, self.name)}")
        if self.board.fen() != fen:
            errs.append(f"FEN differs from python-chess's {self.board.fen()!r}")
        if self.board.is_check() != p.is_check():
            errs.append(f"is_check() {p.is_check()}, python-chess {self.board.is_check()}")
        return errs

    def push(self, name: str) -> None:
        self.board.push_uci(name)

    def finish(self, p: Position) -> list[str]:
        return []


class _SlowOracle:
    name = "slow_rules"

    def __init__(self, variant: str, fen: str):
        self.sr = slow_rules()
        self.variant = variant
        self.fen = fen

    def check(self, p: Position, fen: str, names: list[str]) -> list[str]:
        errs = []
        if self.fen != fen:
            errs.append(f"FEN differs from slow_rules' {self.fen!r}")
        theirs = self.sr.legal_moves(self.variant, fen)
        if theirs != names:
            errs.append(f"moves differ from slow_rules: {movelist_diff(names, theirs, self.name)}")
        return errs

    def push(self, name: str) -> None:
        self.fen = self.sr.play(self.variant, self.fen, name)

    def finish(self, p: Position) -> list[str]:
        return []


class _FsfOracle:
    name = "pyffish"

    def __init__(self, variant: str, fen: str):
        self.variant = variant
        self.start = fen
        self.moves: list[str] = []

    def check(self, p: Position, fen: str, names: list[str]) -> list[str]:
        theirs = fsf_legal(self.variant, self.start, self.moves)
        if theirs != names:
            return [f"moves differ from pyffish ({FSF_NAMES[self.variant]}): "
                    f"{movelist_diff(names, theirs, self.name)}"]
        return []

    def push(self, name: str) -> None:
        self.moves.append(name)

    def finish(self, p: Position) -> list[str]:
        theirs = fsf_fen(self.variant, self.start, self.moves).split()[:2]
        ours = p.fen().split()[:2]
        if theirs != ours:
            return [f"board after the game differs from pyffish: ours {' '.join(ours)!r}, "
                    f"pyffish {' '.join(theirs)!r}"]
        return []


def _oracle(variant: str, fen: str):
    if variant == "chess":
        return _ChessOracle(fen)
    if variant in SLOW_RULES_VARIANTS and slow_rules() is not None:
        return _SlowOracle(variant, fen)
    if variant in FSF_NAMES and fsf_available(variant):
        return _FsfOracle(variant, fen)
    return None


def _check_node(p: Position, moves: list[int], same_key: bool = False) -> tuple[str, list[str]]:
    """Invariants of one position; returns (its FEN, the problems found).

    ``same_key``: also require the key of ``Position(v, fen)`` to equal ours (a position's key
    should depend only on what its FEN says, or repetitions are missed); checked by its own test.
    """
    errs = []
    full = int(K.full_key(p.b))
    if p.key != full:
        errs.append(f"incremental key {p.key:#x} != full_key {full:#x}")
    fen = p.fen()
    q = Position(p.variant, fen)
    if q.start_fen != fen:  # start_fen is q.fen() just after it was set up
        errs.append(f"FEN does not round-trip: read back as {q.start_fen!r}")
    if same_key and q.key != p.key:
        errs.append(f"key {p.key:#x} != key {q.key:#x} of the same position set from its FEN")
    q_moves = q.legal_moves()
    if sorted(q_moves) != sorted(moves):  # same variant tables, same encoding: compare as ints
        names = sorted(p.move_name(m) for m in moves)
        q_names = sorted(q.move_name(m) for m in q_moves)
        errs.append(f"moves differ from Position(v, fen)'s: {movelist_diff(names, q_names, 'fresh')}")
    if len(set(moves)) != len(moves):
        errs.append("duplicate moves")
    n = p.count_legal()
    if n != len(moves):
        errs.append(f"count_legal() {n} != {len(moves)} legal moves")
    if p.is_over() and moves:
        errs.append("is_over() but there are legal moves")
    return fen, errs


def _play_game(variant: str, game: int, same_key: bool = False, oracles: bool = True) -> None:
    rng = random.Random(f"{variant}/{game}")
    greedy = game % 2 == 1
    p = Position(load_variant(variant))
    start = _snapshot(p)
    start_fen = p.fen()
    oracle = _oracle(variant, start_fen) if oracles and game < ORACLE_GAMES.get(variant, 0) else None
    trail: list[tuple[str, int]] = []  # (fen, key) at each ply
    played: list[str] = []

    def fail(what: list[str], fen: str) -> None:
        pytest.fail(f"{variant} game {game} ply {len(played)}: " + "; ".join(what)
                    + f"\n  FEN {fen}\n  from {start_fen}\n  moves {' '.join(played)}", pytrace=False)

    plies = MAX_PLIES if game % 5 == 0 else SHORT_PLIES
    copy_ply = rng.randrange(plies)
    for ply in range(plies + 1):
        moves = p.legal_moves()
        fen, errs = _check_node(p, moves, same_key)
        if oracle is not None:
            errs += oracle.check(p, fen, sorted(p.move_name(m) for m in moves))
        if errs:
            fail(errs, fen)
        trail.append((fen, p.key))
        if not moves or ply == plies:
            break
        m = _pick(rng, p, moves, greedy)
        if ply == copy_ply:  # a copy is independent of its original
            c = p.copy()
            c.push(m)
            if p.fen() != fen or c.fen() == fen:
                fail(["copy() shares state with its original"], fen)
        name = p.move_name(m)
        p.push(m)
        played.append(name)
        if oracle is not None:
            oracle.push(name)
    if oracle is not None:
        errs = oracle.finish(p)
        if errs:
            fail(errs, p.fen())
    # take everything back
    while played:
        p.pop()
        played.pop()
        fen, key = trail[len(played)]
        if p.fen() != fen or p.key != key:
            fail([f"after pop: FEN {p.fen()!r} key {p.key:#x}, expected key {key:#x}"], fen)
    end = _snapshot(p)
    for name, arr in start.items():
        if not np.array_equal(arr, end[name]):
            diff = np.argwhere(arr != end[name])[:5].tolist()
            fail([f"after popping every move, pos.{name} differs from the start at {diff}"], start_fen)
    if p.fen() != start_fen or p.history:
        fail(["after popping every move the position is not the start"], start_fen)


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games(variant, chunk):
    for game in range(chunk, GAMES, CHUNKS):
        _play_game(variant, game)


@pytest.mark.parametrize("variant", VARIANTS)
def test_key_depends_only_on_the_fen(variant):
    """Two positions with the same FEN (placement, side, rights, en passant) have the same key.

    Repetition detection compares keys; RULES.md counts a repetition as the same position with
    the same side to move and rights, so first-move flags the FEN does not show (an unmoved rook
    whose king has moved, say) must not change the key.
    """
    for game in range(KEY_GAMES):
        _play_game(variant, game, same_key=True, oracles=False)


def test_every_variant_plays():
    assert len(VARIANTS) >= 8, VARIANTS
    assert GAMES * len(VARIANTS) >= 1000 or "JITFISH_RANDOM_GAMES" in os.environ
