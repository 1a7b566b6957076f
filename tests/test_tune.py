"""The Texel tuning tool (bench/tune.py): the fit moves a value the way the games say, and
writing keeps the weight file's other keys and shifts the endgame value with the middlegame one."""
from __future__ import annotations

import tomllib

import pytest

from jitfish.bench import tune


def test_fit_raises_a_piece_that_wins_games() -> None:
    # White a knight up wins every game, Black a knight up loses every game: with the knight at
    # its current value the fitted sigmoid is too timid, so the fit must raise it
    up = "4k3/pppp4/8/8/8/8/PPPP4/1N2K3 w - - 0 1"
    down = "1n2k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1"
    even = "4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1"
    samples = [(up, 1.0)] * 30 + [(down, 0.0)] * 30 + [(even, 0.5)] * 30 + [(even, 1.0), (even, 0.0)] * 5
    old, new, k, e0, e1 = tune.fit("chess", samples)
    assert e1 <= e0
    n = 1  # chess letters: P N B R Q K
    assert new[n] > old[n], (old, new, k)


def test_write_values_shifts_value_and_value_eg(tmp_path, monkeypatch) -> None:
    import jitfish.eval.tables as E

    src = (E.WEIGHTS_DIR / "chess.toml").read_text()
    (tmp_path / "chess.toml").write_text(src)
    monkeypatch.setattr(E, "WEIGHTS_DIR", tmp_path)
    before = tomllib.loads(src)
    old = [before["pieces"][c].get("value", 0) for c in "PNBRQK"]
    new = list(old)
    new[0] += 10  # the pawn
    new[4] -= 20  # the queen
    tune.write_values("chess", old, new)
    after = tomllib.loads((tmp_path / "chess.toml").read_text())
    assert after["pieces"]["P"]["value"] == before["pieces"]["P"]["value"] + 10
    assert after["pieces"]["P"]["value_eg"] == before["pieces"]["P"]["value_eg"] + 10
    assert after["pieces"]["Q"]["value"] == before["pieces"]["Q"]["value"] - 20
    assert after["pieces"]["N"] == before["pieces"]["N"]
    assert {k: v for k, v in after.items() if k != "pieces"} == {k: v for k, v in before.items() if k != "pieces"}


def test_samples_round_trip_and_bad_lines(tmp_path) -> None:
    samples = [("4k3/8/8/8/8/8/8/4K2R w K - 0 1", 1.0), ("4k3/8/8/8/8/8/8/4K3 b - - 3 40", 0.5)]
    f = tmp_path / "s.txt"
    tune.save_samples(f, samples)
    assert tune.load_samples(f) == samples
    f.write_text("4k3/8/8/8/8/8/8/4K3 w - - 0 1;2\n")
    with pytest.raises(ValueError, match="s.txt:1"):
        tune.load_samples(f)


def test_warnings_flag_k_at_the_grid_end_and_capped_values() -> None:
    old, new = [100, 300, 0], [100, 390, 0]
    w = tune.warnings_of(old, new, float(tune.KS[0]), 0.3, "PNK")
    assert any("K = " in x for x in w) and any(x.startswith("N:") for x in w)
    assert tune.warnings_of(old, [110, 320, 0], 1.0, 0.3, "PNK") == []
