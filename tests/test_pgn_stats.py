"""``python3 -m jitfish.bench.pgn_stats``: time a move, depth and the move a lost game was decided."""
from __future__ import annotations

import pytest

from jitfish.bench.pgn_stats import main, parse_comment, side_stats

GAME1 = """[White "a"]
[Black "b"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.20/10 0.300s} Nc6 {-0.10/12 0.500s} 3. Bc4 {-0.50/9 0.100s}
Nf6 {+1.60/13 0.700s} 4. d3 {-2.00/8 0.200s} Bc5 {+2.50/14 0.100s, Black wins by adjudication} 0-1
"""
GAME2 = """[White "b"]
[Black "a"]
[Result "1/2-1/2"]

1. e4 {+0.10/11 0.400s} e5 {+0.00/7 0.200s} 1/2-1/2
"""
XBOARD = """[White "a"]
[Black "c"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# {White mates} 1-0
"""


def test_parse_comment():
    assert parse_comment("+0.35/12 0.204s") == (0.35, 12, 0.204)
    assert parse_comment("-M3/20 0.010s") == (None, 20, 0.01)
    assert parse_comment("book") == (None, None, None)
    assert parse_comment("0.204s") == (None, None, 0.204)  # no score reported
    assert parse_comment("+0.35 0.204s") == (0.35, None, 0.204)  # a score without a depth
    assert parse_comment("+1.50/9 0.100s, White wins by adjudication") == (1.5, 9, 0.1)


def test_side_stats_by_phase():
    s = side_stats([GAME1 + "\n" + GAME2, XBOARD], "a", phase=2)
    assert (s["wins"], s["losses"], s["draws"], s["skipped"]) == (0, 1, 1, 1)
    me, them = s["me"], s["them"]
    # "a": white in game 1 (moves 2-4 timed: 0.3 in phase 0, 0.1 and 0.2 in phase 1), black in game 2 (0.2)
    assert me.secs[0] == pytest.approx([0.3, 0.2])
    assert me.secs[1] == pytest.approx([0.1, 0.2])
    assert me.depths[1] == [9, 8]
    assert them.secs[0] == pytest.approx([0.5, 0.4])
    assert them.secs[1] == pytest.approx([0.7, 0.1])
    # the winner's own score first reached +1.5 with its third move (1...e5 is move 1)
    assert s["decided_at"] == [3]
    assert side_stats([GAME1], "a", decided=2.5)["decided_at"] == [4]
    assert side_stats([GAME1], "a", decided=3.0)["decided_at"] == []
    # one row takes every move
    assert side_stats([GAME1], "a", phase=1, rows=1)["me"].secs == {0: pytest.approx([0.3, 0.1, 0.2])}


def test_cli(tmp_path, capsys):
    f = tmp_path / "m.pgn"
    f.write_text(GAME1 + "\n" + GAME2 + "\n" + GAME1)
    assert main([str(f), "--engine", "a", "--phase", "2"]) == 0
    out = capsys.readouterr().out
    assert "a: 3 games, 0-2-1 (0 skipped)" in out
    assert "move 3 (median" in out
    assert main([str(f), "--engine", "nobody"]) == 1
    assert "no game of 'nobody'" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.pgn"), "--engine", "a"]) == 2
    with pytest.raises(SystemExit):
        main([str(f), "--engine", "a", "--phase", "0"])
