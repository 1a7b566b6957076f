"""``python -m jitfish.bench.move_loss``: engines' chosen moves judged by fairy-stockfish."""
from __future__ import annotations

import json
import shutil

import pytest

from jitfish.bench.move_loss import game_positions, main
from jitfish.movegen import Position

GAME = """[White "jitfish"]
[Black "other"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.20/10 0.300s} Nc6 {-0.10/12 0.500s} 3. Bb5 {+0.10/9 0.100s}
a6 {+0.30/13 0.700s} 4. Bxc6 {+0.00/8 0.200s} dxc6 {+0.50/14 0.100s} 5. d3 0-1
"""
OTHER = """[White "other"]
[Black "jitfish"]
[Result "1-0"]

1. d4 {+0.10/11 0.400s} d5 {+0.00/7 0.200s} 2. c4 {+0.1/9 0.1s} e6 {book} 1-0
"""


def test_positions_are_the_players_own_moves(tmp_path):
    f = tmp_path / "g.pgn"
    f.write_text(GAME + "\n" + OTHER + "\n" + GAME)
    fens = game_positions("chess", [f], "jitfish", 1, 30)
    want = []
    pos = Position("chess")
    for san in ["e4", "e5"]:
        pos.push_san(san)
    want.append(pos.fen())  # 2. Nf3: the first move not from the book (1. e4 was)
    for san in ["Nf3", "Nc6"]:
        pos.push_san(san)
    want.append(pos.fen())  # 3. Bb5
    for san in ["Bb5", "a6"]:
        pos.push_san(san)
    want.append(pos.fen())  # 4. Bxc6 (5. d3 has no comment: not counted)
    pos = Position("chess")
    pos.push_san("d4")
    want.append(pos.fen())  # 1...d5 as Black (2...e6 was a book move)
    assert fens == want  # the repeated game adds nothing
    assert game_positions("chess", [f], "jitfish", 3, 3) == want[1:2]  # move 3 alone
    assert game_positions("chess", [f], "nobody", 1, 30) == []


@pytest.mark.skipif(not shutil.which("fairy-stockfish") and not shutil.which("/usr/games/fairy-stockfish"),
                    reason="needs fairy-stockfish (.ci/run installs it)")
def test_the_judge_loses_nothing_against_itself(tmp_path, capsys):
    """fairy-stockfish as an engine under test, at the judge's own depth, chooses the judge's move in
    every position: no loss, all its moves the judge's."""
    fsf = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
    f = tmp_path / "g.pgn"
    f.write_text(GAME + "\n" + OTHER)
    out = tmp_path / "rows.jsonl"
    cache = tmp_path / "cache.json"
    args = ["--variant", "chess", "--pgn", str(f), "--positions", "4", "--depth", "6", "--min-move", "1",
            "--fsf", fsf, "--workers", "1", "--out", str(out), "--cache", str(cache),
            "--engine", f"cmd={fsf},proto=uci,name=self,depth=6"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "4 positions of jitfish" in text
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4
    for r in rows:
        assert r["moves"]["self"] == r["judge"]
        assert r["losses"]["self"] == 0
    assert "100.0%" in text
    assert json.loads(cache.read_text())  # the judgements were kept

