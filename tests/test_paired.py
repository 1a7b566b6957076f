"""``python3 -m jitfish.bench.paired``: two matches on the same openings compared pair by pair."""
from __future__ import annotations

import math

import pytest

from jitfish.bench.paired import compare, main, pair_scores


def game(rnd: int, white: str, black: str, result: str, book: str = "e4 e5") -> str:
    """A game as ``jitfish match`` writes it: two book moves, then a searched one."""
    a, b = book.split()
    return (f'[Round "{rnd}"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
            f"1. {a} {{book}} {b} {{book}} 2. Nf3 {{+0.20/10 0.300s}} {result}\n\n")


def match(results: list[str], engine: str = "j", other: str = "f", books: dict[int, str] | None = None) -> str:
    """Games 1..n, the engine White in odd rounds; results from the engine's side (W, L, D, or * unfinished)."""
    out = []
    for i, r in enumerate(results, 1):
        white_is_engine = i % 2 == 1
        res = {"W": "1-0" if white_is_engine else "0-1", "L": "0-1" if white_is_engine else "1-0",
               "D": "1/2-1/2", "*": "*"}[r]
        w, b = (engine, other) if white_is_engine else (other, engine)
        out.append(game(i, w, b, res, (books or {}).get((i - 1) // 2, "e4 e5")))
    return "".join(out)


def test_pair_scores_and_tally():
    pairs, tally = pair_scores(match(["W", "D", "L", "L", "D", "*"]), "j")
    assert {k: v[0] for k, v in pairs.items()} == {0: 1.5, 1: 0.0}  # pair 2 is unfinished
    assert tally == {"wins": 1, "losses": 2, "draws": 2, "unfinished": 1}
    assert pairs[0][1] == ("", ("e4", "e5"))
    # the other engine's view of the same file
    assert {k: v[0] for k, v in pair_scores(match(["W", "D", "L", "L"]), "f")[0].items()} == {0: 0.5, 1: 2.0}
    # an engine that did not play: nothing
    assert pair_scores(match(["W", "D"]), "x") == ({}, {"wins": 0, "losses": 0, "draws": 0, "unfinished": 0})


def test_compare_by_hand():
    a, _ = pair_scores(match(["L", "L", "D", "L", "W", "D", "D", "D"]), "j")  # pairs 0, 0.5, 1.5, 1
    b, _ = pair_scores(match(["D", "L", "D", "D", "W", "W", "D", "L"]), "j")  # pairs 0.5, 1, 2, 0.5
    r = compare(a, b)
    d = [0.5, 0.5, 0.5, -0.5]
    mean = sum(d) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 3)
    assert r.pairs == 4 and r.other_openings == 0
    assert r.a_score == pytest.approx(3 / 8) and r.b_score == pytest.approx(4 / 8)
    assert r.diff == pytest.approx(mean / 2) == pytest.approx(0.125)
    assert r.half_width == pytest.approx(1.96 * sd / 2 / 2)
    # the reverse comparison is the negative, same interval
    s = compare(b, a)
    assert s.diff == pytest.approx(-r.diff) and s.half_width == pytest.approx(r.half_width)


def test_different_openings_left_out():
    a, _ = pair_scores(match(["W", "W", "L", "L"]), "j")
    b, _ = pair_scores(match(["L", "L", "L", "L"], books={0: "d4 d5"}), "j")
    r = compare(a, b)
    assert (r.pairs, r.other_openings) == (1, 1)  # pair 0's openings differ: only pair 1 counts
    assert r.diff == 0.0 and math.isnan(r.half_width)
    # a different start position is a different opening too
    c, _ = pair_scores(match(["W", "W"]).replace('[Round "1"]', '[Round "1"]\n[FEN "8/8/8/8/8/8/8/K6k w - - 0 1"]'), "j")
    assert compare(a, c).pairs == 0


def test_cli(tmp_path, capsys):
    fa, fb = tmp_path / "a.pgn", tmp_path / "b.pgn"
    fa.write_text(match(["L", "L", "D", "L", "W", "D", "D", "D"]))
    fb.write_text(match(["D", "L", "D", "D", "W", "W", "D", "L", "*"]))
    assert main([str(fa), str(fb), "--engine", "j"]) == 0
    out = capsys.readouterr().out
    assert "8 games, 1-3-4, 37.5%" in out
    assert "8 games, 2-2-4, 50.0%, 1 unfinished" in out
    assert "4 pairs: A 37.5%, B 50.0%; B - A +12.5% +/- " in out
    # no shared pair: an error, not a number
    fb.write_text(match(["W", "W"], books={0: "d4 d5"}))
    assert main([str(fa), str(fb), "--engine", "j"]) == 1
    assert "no finished pair" in capsys.readouterr().err
    assert main([str(fa), str(tmp_path / "missing.pgn"), "--engine", "j"]) == 2
