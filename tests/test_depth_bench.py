"""``jitfish bench depth``: its positions file, the positions it takes from games, and a short run.

The timings themselves are not checked (speed is measured by benchmarks, not by tests); what is
checked is that every shipped position is a playable position of its variant, that the PGN
extraction takes the plies it says, and that the command searches every variant it is given.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from jitfish.bench import depth_bench
from jitfish.movegen import Position
from oracles import fairy_stockfish_path


def test_shipped_positions_are_playable_and_forty_per_variant():
    pos = depth_bench.read_positions(depth_bench.POSITIONS_FILE)
    per: dict[str, int] = {}
    for variant, fen in pos:
        p = Position(variant, fen)
        assert p.legal_moves(), (variant, fen)
        assert p.fen() == fen  # written by Position.fen(), so it reads back the same
        per[variant] = per.get(variant, 0) + 1
    assert per == {v: 40 for v in ("chess", "courier", "modcourier", "cowsandbutterflies",
                                   "cowsandbutterflies-reversed", "cleopatra")}


def _game(variant: str, sans: list[str] | int) -> str:
    """A game of the given SAN moves, or of that many plies of each position's first legal move."""
    p = Position(variant)
    for s in (sans if isinstance(sans, list) else [None] * sans):
        if s is None:
            p.push(p.legal_moves()[0])
        else:
            p.push_san(s)
    return p.pgn(White="a", Black="b")


def test_positions_from_pgn_take_the_given_plies(tmp_path: Path):
    # a 6-ply game in chess and a 4-ply one in courier: plies 2 and 4 of each (ply 4 of the
    # courier game is its end, where the game has no move left in the file: still a position)
    chess = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    pgn = tmp_path / "g.pgn"
    pgn.write_text(_game("chess", chess) + "\n" + _game("courier", 4))
    got = depth_bench.positions_from_pgn([str(pgn)], per_variant=10, seed=1, plies=(2, 4))
    want_chess = []
    p = Position("chess")
    for i, s in enumerate(chess):
        if i in (2, 4):
            want_chess.append(p.fen())
        p.push_san(s)
    assert sorted(f for v, f in got if v == "chess") == sorted(want_chess)
    assert len([1 for v, _f in got if v == "courier"]) == 1  # ply 4 is past the game's last move
    # per_variant caps each variant, after the seeded shuffle
    one = depth_bench.positions_from_pgn([str(pgn)], per_variant=1, seed=1, plies=(2, 4))
    assert sorted(v for v, _f in one) == ["chess", "courier"]
    assert one == depth_bench.positions_from_pgn([str(pgn)], per_variant=1, seed=1, plies=(2, 4))


def test_write_positions_then_read_them_back(tmp_path: Path, capsys):
    pgn = tmp_path / "g.pgn"
    pgn.write_text(_game("chess", ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"] * 1 + ["Ba4", "Nf6"] * 1))
    out = tmp_path / "pos.txt"
    # the default plies 16, 30, 50 are past this game: no positions, and the file says so
    assert depth_bench.main(["--pgn", str(pgn), "--write-positions", str(out)]) == 0
    assert depth_bench.read_positions(out) == []
    assert "0 positions written" in capsys.readouterr().out


def test_bad_positions_file_line_is_an_error(tmp_path: Path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# header\nchess rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n")
    with pytest.raises(ValueError, match="bad.txt:2"):
        depth_bench.read_positions(bad)


def test_short_run_searches_every_variant_asked(capsys):
    rc = depth_bench.main(["--no-fsf", "--depth", "2", "--runs", "1", "--positions", "2",
                           "--variant", "cleopatra", "--variant", "courier"])
    assert rc == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    by_variant = {r[0]: r for r in rows if r and r[0] in ("cleopatra", "courier")}
    assert set(by_variant) == {"cleopatra", "courier"}
    for r in by_variant.values():
        assert r[1] == "2" and int(r[4].replace(",", "")) > 0  # 2 positions, some nodes
        assert len(r) == 5  # no fairy-stockfish columns with --no-fsf


def test_unknown_variant_is_an_error(capsys):
    assert depth_bench.main(["--no-fsf", "--variant", "nosuchvariant"]) == 2
    assert "no positions of nosuchvariant" in capsys.readouterr().err


def test_per_depth_rows_beside_fairy_stockfish(capsys):
    """--per-depth: one row per iteration with both engines' nodes at its end; they grow with
    the depth, and the last row's jitfish count is the table's total."""
    rc = depth_bench.main(["--depth", "4", "--runs", "1", "--positions", "3", "--variant", "chess", "--per-depth",
                           "--fsf", fairy_stockfish_path()])
    assert rc == 0
    out = capsys.readouterr().out.splitlines()
    total = next(line.split() for line in out if line.startswith("chess "))
    rows = [line.split() for line in out if line.strip().startswith("chess depth")]
    assert [int(r[2].rstrip(":")) for r in rows] == [1, 2, 3, 4]
    ours = [int(r[5].replace(",", "")) for r in rows]
    theirs = [int(r[8].replace(",", "")) for r in rows]
    assert ours == sorted(ours) and theirs == sorted(theirs) and theirs[0] > 0
    assert ours[-1] == int(total[4].replace(",", ""))
