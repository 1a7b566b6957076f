"""The search's numbers at run time (``SearchTables.prm``, ``JITFISH_SEARCH_PARAMS``) and the SPSA
tuner that uses them (bench/spsa.py)."""
from __future__ import annotations

import csv

import pytest

from jitfish.bench.spsa import Param, Spsa, main as spsa_main, parse_param
from jitfish.engine import Engine, Limits
from jitfish.engine.search import PARAMS, parse_params
from jitfish.movegen import Position

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def _nodes(eng: Engine, depth: int = 6) -> int:
    eng.new_game()
    return eng.search(Position("chess", KIWIPETE), Limits(depth=depth)).nodes


def test_the_numbers_are_read_at_run_time() -> None:
    eng = Engine(hash_mb=4)
    assert eng.params() == PARAMS
    base = _nodes(eng)
    eng.set_params({"rfp_margin": 0, "lmr_div": 150})
    assert _nodes(eng) != base  # the same compiled kernels search another tree
    eng.set_params({"rfp_margin": PARAMS["rfp_margin"], "lmr_div": PARAMS["lmr_div"]})
    assert _nodes(eng) == base
    with pytest.raises(ValueError, match="unknown search parameter"):
        eng.set_params({"rfp": 1})


def test_the_environment_sets_them_and_bad_ones_are_refused(monkeypatch, capsys) -> None:
    assert parse_params("rfp_margin=80; lmr_div=200,se_margin=3") == {"rfp_margin": 80, "lmr_div": 200, "se_margin": 3}
    for bad, words in (("rfp=80", "rfp=80"), ("rfp_margin=x", "not an integer"), ("rfp_margin", "name=integer")):
        with pytest.raises(ValueError, match=words):
            parse_params(bad)
    monkeypatch.setenv("JITFISH_SEARCH_PARAMS", "rfp_margin=77")
    assert Engine(hash_mb=1).params()["rfp_margin"] == 77
    monkeypatch.setenv("JITFISH_SEARCH_PARAMS", "rfp=1")
    from jitfish.cli import main
    assert main(["variants"]) == 2  # the engine, too, refuses to start with them
    assert "Error: JITFISH_SEARCH_PARAMS" in capsys.readouterr().err


def test_parse_param_defaults_and_errors() -> None:
    p = parse_param("rfp_margin")
    assert (p.lo, p.hi, p.value) == (PARAMS["rfp_margin"] // 2, PARAMS["rfp_margin"] * 2, PARAMS["rfp_margin"])
    assert parse_param("lmr_div:150:300:5").c_end == 5
    for bad in ("nope", "rfp_margin:1", "rfp_margin:100:200", "rfp_margin:a:b"):
        with pytest.raises(ValueError):
            parse_param(bad)


def test_spsa_climbs_towards_what_wins() -> None:
    """A made-up match that the engine nearer 70 always wins: the number, started at 90, goes
    there (and a match with no winner leaves it where it was)."""
    p = Param("rfp_margin", 90.0, 40, 180, 4.0)
    spsa = Spsa([p], iterations=300, r_end=0.02, seed=3)
    for k in range(300):
        spsa.step(k, lambda plus, minus: 2.0 * (abs(plus["rfp_margin"] - 70) < abs(minus["rfp_margin"] - 70))
                  - 2.0 * (abs(plus["rfp_margin"] - 70) > abs(minus["rfp_margin"] - 70)))
    assert abs(spsa.values()["rfp_margin"] - 70) <= 6
    q = Param("rfp_margin", 90.0, 40, 180, 4.0)
    flat = Spsa([q], iterations=20, seed=3)
    for k in range(20):
        flat.step(k, lambda plus, minus: 0.0)
    assert flat.values()["rfp_margin"] == 90


def test_spsa_plays_real_games(tmp_path, capsys) -> None:
    out = tmp_path / "spsa.csv"
    assert spsa_main(["--variant", "chess", "--param", "rfp_margin", "--iterations", "1", "--pairs", "1",
                      "--nodes", "300", "--out", str(out)]) == 0
    rows = list(csv.reader(out.open()))
    assert rows[0][:2] == ["k", "result"] and len(rows) == 2 and -2 <= float(rows[1][1]) <= 2
    assert '"rfp_margin":' in capsys.readouterr().out
