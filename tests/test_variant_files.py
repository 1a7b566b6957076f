"""Conformance of every variant file present: a new file is tested by being there.

Files: the shipped ones (``movegen/variants/*.toml``) and the test variants
(``tests/variants/*.toml``, written from FORMAT.md alone, Fairy-Stockfish built-ins so that
pyffish is their perft oracle).  For each:

- ``jitfish check FILE`` accepts it;
- the start position's perft equals its perft file (``tests/perft/<name>.epd``), which must exist;
- FENs round-trip along a seeded random game, with the same legal moves after re-reading;
- SAN round-trips for every legal move along that game;
- a search returns a legal move;
- what XBoard is told is complete: a ``setup`` line naming every piece once and a ``piece`` line
  per piece (or nothing for XBoard's own variants).

How a user's file plays everywhere (perft, UCI and CECP ``VariantPath``, ``jitfish match
--variants``) is in test_variant_path.py.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from jitfish.cli import main as cli_main
from jitfish.engine import Engine, Limits
from jitfish.movegen import Position, load_spec, load_variant
from jitfish.protocol.xboard import xboard_view
from oracles import PERFT_DIR, TEST_VARIANTS, parse_epd

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "movegen" / "variants").glob("*.toml")) + sorted(TEST_VARIANTS.glob("*.toml"))
IDS = [f"{p.parent.name}/{p.stem}" for p in FILES]
MAX_NODES = 300_000


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(hash_mb=4)


def _start_counts(path: Path) -> dict[int, int]:
    spec = load_spec(path)
    epd = PERFT_DIR / f"{spec.name}.epd"
    assert epd.exists(), f"{path.name}: no perft file {epd.relative_to(ROOT)} (a new variant brings one)"
    ef = parse_epd(epd)
    assert not ef.errors, ef.errors
    start = Position(str(path)).fen().split()[:2]
    for line in ef.lines:
        if line.fen.split()[:2] == start:
            return line.counts
    pytest.fail(f"{epd.name} has no line for the start position {' '.join(start)}")


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_check_accepts_the_file(path: Path, capsys) -> None:
    assert cli_main(["check", str(path), "--depth", "2"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_start_perft_matches_the_perft_file(path: Path) -> None:
    pos = Position(str(path))
    for depth, nodes in sorted(_start_counts(path).items()):
        if nodes > MAX_NODES:
            break
        assert pos.perft(depth) == nodes, f"{path.stem} start perft({depth})"


def _random_game(path: Path, plies: int = 60, seed: int = 7):
    rng = random.Random(f"{path.stem}:{seed}")
    pos = Position(str(path))
    yield pos
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves or pos.outcome() is not None:
            return
        pos.push(rng.choice(moves))
        yield pos


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_fen_and_san_round_trip_along_a_game(path: Path) -> None:
    for pos in _random_game(path):
        fen = pos.fen()
        again = Position(str(path), fen)
        assert again.fen() == fen
        assert sorted(again.legal_moves()) == sorted(pos.legal_moves()), fen
        legal = pos.legal_moves()
        for m in legal:
            assert pos.parse_san(pos.san(m, legal)) == m, (fen, pos.move_name(m))


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_a_search_returns_a_legal_move(path: Path, engine: Engine) -> None:
    pos = Position(str(path))
    res = engine.search(pos, Limits(depth=3))
    assert res.best in {pos.move_name(m) for m in pos.legal_moves()}


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_xboard_announcement_is_complete(path: Path) -> None:
    spec = load_variant(str(path)).spec
    view = xboard_view(str(path))
    if view.builtin:
        assert view.setup_lines == ()
        return
    setup, *pieces = view.setup_lines
    m = re.fullmatch(r"setup \((\S+)\) (\d+)x(\d+)\+0_(\w+) (.+)", setup)
    assert m, setup
    table, files, ranks, _parent, fen = m.groups()
    assert (int(files), int(ranks)) == (spec.files, spec.ranks)
    half = table[:len(table) // 2]
    letters = re.sub(r"\^.|=|\.", "", half)  # a promoted slot is ^X=Y: Y is the piece
    assert sorted(letters) == sorted(spec.letters), (half, spec.letters)
    assert table[len(table) // 2:] == half.lower()
    assert fen.split()[0] == spec.start_fen.split()[0]
    named = [line.split()[1].rstrip("&") for line in pieces]
    promoted = dict(spec.xboard.promoted)
    assert sorted(named) == sorted(f"+{promoted[p.letter]}" if p.letter in promoted else p.letter
                                   for p in spec.pieces)
