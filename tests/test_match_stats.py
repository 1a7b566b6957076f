"""Statistics of ``jitfish match`` against published formulas and values.

Reference values: fastchess's unit tests (app/tests/elo_test.cpp and app/tests/sprt_test.cpp,
github.com/Disservin/fastchess; ``Stats(wins, losses, draws)`` and
``Stats(LL, LD, WL, DD, WD, WW)``), and cutechess-cli's formulas (projects/lib/src/elo.cpp,
sprt.cpp) evaluated here independently. Tolerances are fastchess's (``Approx(x).epsilon(0.01)``
is 1% relative).
"""
from __future__ import annotations

import math

import pytest

from jitfish.bench.adjudication import Adjudication, AdjudicationState
from jitfish.bench.games import GameRecord
from jitfish.bench.match import Tally
from jitfish.bench.stats import (
    Sprt, elo_from_score, elo_pentanomial, elo_wdl, fmt_elo_error, los, score_from_elo, sprt_llr,
)
from jitfish.protocol.client import (
    Limits, parse_cecp_thinking, parse_feature_line, parse_uci_info,
)


def approx(x, rel=0.01):
    return pytest.approx(x, rel=rel)


# -- Elo ---------------------------------------------------------------------------------------


def test_elo_from_score_is_the_logistic_curve():
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(-400 * math.log10(1 / 0.75 - 1))
    assert elo_from_score(0.25) == pytest.approx(-elo_from_score(0.75))
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    for elo in (-300.0, -20.0, 0.0, 35.5, 400.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


@pytest.mark.parametrize("w,l,d,nelo,nerror,elo,error,los_pct", [
    # fastchess elo_test.cpp "EloWDL 1..3" (elo/error given there for case 2 only)
    (76, 89, 123, -20.76, 40.13, None, None, 15.53),
    (136, 96, 111, 49.77, 36.77, 40.70, 30.43, 99.60),
    (34, 356, 0, -508.44, 34.48, None, None, None),
])
def test_trinomial_elo_matches_fastchess(w, l, d, nelo, nerror, elo, error, los_pct):
    e = elo_wdl(w, l, d)
    assert e.nelo == approx(nelo)
    assert e.nerror == approx(nerror)
    if elo is not None:
        assert e.elo == approx(elo)
        assert e.error == approx(error)
    if los_pct is not None:
        assert f"{100 * e.los:.2f}" == f"{los_pct:.2f}"


@pytest.mark.parametrize("counts,nelo,nerror,elo,error,los_pct", [
    # fastchess elo_test.cpp "EloPentanomial 1..3"
    ((34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65, 100.00),
    ((332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33, 5.05),
    ((7895, 8757, 5485, 200, 568, 9999), -19.01, 2.65, -21.04, 2.95, None),
])
def test_pentanomial_elo_matches_fastchess(counts, nelo, nerror, elo, error, los_pct):
    e = elo_pentanomial(*counts)
    assert e.nelo == approx(nelo)
    assert e.nerror == approx(nerror)
    assert e.elo == approx(elo)
    assert e.error == approx(error)
    if los_pct is not None:
        assert f"{100 * e.los:.2f}" == f"{los_pct:.2f}"


def _cutechess_error_margin(wins: int, losses: int, draws: int) -> float:
    """cutechess elo.cpp, transcribed: phiInv through Winitzki's erfInv approximation."""
    n = wins + losses + draws
    w, l_, d = wins / n, losses / n, draws / n
    mu = w + d / 2
    stdev = math.sqrt(w * (1 - mu) ** 2 + l_ * (0 - mu) ** 2 + d * (0.5 - mu) ** 2) / math.sqrt(n)

    def erf_inv(x):
        pi = 3.1415926535897
        a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi))
        y = math.log(1.0 - x * x)
        z = 2.0 / (pi * a) + y / 2.0
        ret = math.sqrt(math.sqrt(z * z - y / a) - z)
        return -ret if x < 0 else ret

    def phi_inv(p):
        return math.sqrt(2.0) * erf_inv(2.0 * p - 1.0)

    def diff(p):
        return -400.0 * math.log10(1.0 / p - 1.0)

    return (diff(mu + phi_inv(0.975) * stdev) - diff(mu + phi_inv(0.025) * stdev)) / 2.0


@pytest.mark.parametrize("w,l,d", [(136, 96, 111), (20, 15, 65), (7, 3, 10), (512, 488, 1000)])
def test_error_bar_agrees_with_cutechess(w, l, d):
    # cutechess approximates the normal quantile (1.9573 against 1.95996): within 0.2%
    assert elo_wdl(w, l, d).error == pytest.approx(_cutechess_error_margin(w, l, d), rel=2e-3)
    assert elo_wdl(w, l, d).elo == pytest.approx(-400 * math.log10(1 / ((w + d / 2) / (w + l + d)) - 1))


def test_los_is_cutechess_formula():
    assert los(0, 0) == 0.5
    assert los(10, 10) == 0.5
    assert los(136, 96) == pytest.approx(0.5 + 0.5 * math.erf(40 / math.sqrt(2 * 232)))
    assert los(3, 7) == pytest.approx(1 - los(7, 3))
    # fastchess computes LOS from the score's variance instead; the two agree closely
    assert los(76, 89) == pytest.approx(elo_wdl(76, 89, 123).los, abs=0.002)


def test_degenerate_scores_give_infinite_elo_and_no_error_bar():
    e = elo_wdl(5, 0, 0)
    assert e.elo == math.inf and math.isnan(e.error)
    assert elo_wdl(0, 0, 0).n == 0 and math.isnan(elo_wdl(0, 0, 0).elo)


def test_a_score_interval_reaching_one_gives_a_one_sided_bound():
    # 18-2-0: the score's 95% interval is 0.9 -+ 1.96 * sqrt(0.09 / 20) = (0.769, 1.031)
    e = elo_wdl(18, 2, 0)
    assert math.isnan(e.error) and e.upper == math.inf
    assert e.lower == pytest.approx(elo_from_score(0.9 - 1.96 * math.sqrt(0.09 / 20)), rel=1e-3)
    assert fmt_elo_error(e) == f"(95%: > +{e.lower:.1f})"
    low = elo_wdl(2, 18, 0)
    assert fmt_elo_error(low) == f"(95%: < {low.upper:.1f})" and low.upper == pytest.approx(-e.lower)
    assert fmt_elo_error(elo_wdl(136, 96, 111)) == "+/- 30.4"
    assert fmt_elo_error(elo_wdl(5, 0, 0)) == "(every game the same result: no error bar)"


# -- SPRT --------------------------------------------------------------------------------------


@pytest.mark.parametrize("counts,elo0,elo1,model,llr", [
    # fastchess sprt_test.cpp; trinomial counts are (W, L, D)
    ((36433, 36027, 68692), 0, 2, "normalized", 0.92),
    ((10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
    ((21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
    ((57433, 57030, 106593), 0, 2, "logistic", -2.59),
    ((68965, 68526, 128429), 0, 2, "bayesian", -1.26),
    ((21629, 21484, 41111), 0.5, 2.5, "bayesian", -1.13),
    # pentanomial counts are (LL, LD, WL, DD, WD, WW)
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
])
def test_sprt_llr_matches_fastchess(counts, elo0, elo1, model, llr):
    assert sprt_llr(counts, elo0, elo1, model) == approx(llr)


def test_sprt_llr_one_sided_samples():
    # fastchess also tests one-category samples (all wins / all WW pairs), whose values hang on
    # its root finder near a pole; the maximum-likelihood answer is computed here in closed form:
    # all wins under t = (mu - 1/2)/sigma puts the mass on W and L only, p_W - 1/2 =
    # t sqrt(p_W (1 - p_W)), so LLR = N ln(p1_W / p0_W)
    t1 = 10 / (800 / math.log(10))
    pw = 0.5 + 0.5 * t1 / math.sqrt(1 + t1 * t1)
    assert sprt_llr((4250, 0, 0), 0, 10, "normalized") == pytest.approx(4250 * math.log(pw / 0.5), rel=1e-3)
    assert sprt_llr((0, 0, 0, 0, 0, 5550), 0, 5, "normalized") > 2.95
    assert sprt_llr((0, 4250, 0), 0, 10, "normalized") < -2.95
    # all draws is evidence for elo0 = 0 under the logistic model
    assert sprt_llr((0, 0, 500), 0, 10, "logistic") < 0


def _cutechess_llr(w: int, l_: int, d: int, elo0: float, elo1: float, scaled: bool = True) -> float:
    """cutechess sprt.cpp ``Sprt::status``, transcribed."""
    n = w + l_ + d
    pw, pl = w / n, l_ / n
    draw_elo = 200 * math.log10((1 - pl) / pl * (1 - pw) / pw)
    x = 10 ** (-draw_elo / 400)
    scale = 4 * x / (1 + x) ** 2 if scaled else 1.0

    def probs(be):
        pw_ = 1 / (1 + 10 ** ((draw_elo - be) / 400))
        pl_ = 1 / (1 + 10 ** ((draw_elo + be) / 400))
        return pw_, pl_, 1 - pw_ - pl_

    p0, p1 = probs(elo0 / scale), probs(elo1 / scale)
    return w * math.log(p1[0] / p0[0]) + l_ * math.log(p1[1] / p0[1]) + d * math.log(p1[2] / p0[2])


@pytest.mark.parametrize("w,l,d,elo0,elo1", [
    (68965, 68526, 128429, 0, 2), (21629, 21484, 41111, 0.5, 2.5), (600, 500, 900, 0, 10), (30, 12, 8, -5, 5)])
def test_cutechess_sprt_model(w, l, d, elo0, elo1):
    assert sprt_llr((w, l, d), elo0, elo1, "cutechess") == pytest.approx(_cutechess_llr(w, l, d, elo0, elo1))
    # with elo given in BayesElo (no scaling), cutechess's exact LLR is fastchess's bayesian one
    assert sprt_llr((w, l, d), elo0, elo1, "bayesian") == pytest.approx(
        _cutechess_llr(w, l, d, elo0, elo1, scaled=False), abs=0.05)
    assert sprt_llr((5, 0, 3), 0, 10, "cutechess") == 0.0  # cutechess waits for W, L and D


def test_sprt_bounds_and_verdicts():
    s = Sprt(0, 5, 0.05, 0.05)
    assert s.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert s.upper == pytest.approx(math.log(0.95 / 0.05))
    assert s.verdict(3.0) == "H1" and s.verdict(-3.0) == "H0" and s.verdict(0.1) is None
    assert Sprt.parse("0,10") == Sprt(0, 10)
    assert Sprt.parse("-5,5,0.1,0.2", "normalized") == Sprt(-5, 5, 0.1, 0.2, "normalized")
    for bad in ("5,0", "0,5,0,0.05", "0,5,0.6,0.6", "1"):
        with pytest.raises(ValueError):
            Sprt.parse(bad)
    assert Sprt(0, 200).verdict(Sprt(0, 200).llr((20, 0, 0))) == "H1"


# -- tally, score line ---------------------------------------------------------------------


def _rec(index, result, white_engine):
    return GameRecord(index, "A", "B", white_engine, "chess", "", [], result=result,
                      reason="White mates", termination="normal")


def test_tally_counts_games_and_pairs_from_the_first_engine():
    t = Tally()
    # pair 0: A wins as White, then draws as Black -> WD
    t.add(_rec(0, "1-0", 0))
    t.add(_rec(1, "1/2-1/2", 1))
    # pair 1: A loses as White, wins as Black (0-1 with A Black) -> WL
    t.add(_rec(2, "0-1", 0))
    t.add(_rec(3, "0-1", 1))
    # pair 2: only one game so far
    t.add(_rec(4, "0-1", 0))
    assert (t.wins, t.losses, t.draws) == (2, 2, 1)
    assert t.penta == [0, 0, 1, 0, 1, 0]
    assert t.line("A", "B") == "Score of A vs B: 2 - 2 - 1  [0.500] 5"
    t2 = Tally()
    t2.add(_rec(0, "1-0", 0))
    assert t2.line("jitfish", "fairymax") == "Score of jitfish vs fairymax: 1 - 0 - 0  [1.000] 1"


# -- adjudication ------------------------------------------------------------------------------


def test_draw_adjudication_after_movenumber_with_small_scores():
    st = AdjudicationState(Adjudication.build("movenumber=2,movecount=2,score=10", None, None))
    assert st.after_move(0, 5, 0) is None
    assert st.after_move(1, -5, 1) is None
    assert st.after_move(0, 0, 1) is None
    assert st.after_move(1, 3, 2) == ("1/2-1/2", "Draw by adjudication")
    st = AdjudicationState(Adjudication.build("movenumber=0,movecount=2,score=10", None, None))
    for side, score in ((0, 5), (1, 50), (0, 5), (1, 5), (0, 5)):
        assert st.after_move(side, score, 9) is None  # the 50 broke the run
    assert st.after_move(1, 5, 9) is not None


def test_resign_adjudication_counts_the_losing_sides_own_moves():
    st = AdjudicationState(Adjudication.build(None, "movecount=2,score=500", None))
    assert st.after_move(0, -600, 1) is None
    assert st.after_move(1, 600, 1) is None
    assert st.after_move(0, -700, 2) == ("0-1", "Black wins by adjudication")
    two = AdjudicationState(Adjudication.build(None, "movecount=1,score=500,twosided=true", None))
    assert two.after_move(1, -600, 1) is None  # White has not agreed yet
    assert two.after_move(0, 600, 2) is None
    assert two.after_move(1, -600, 2) == ("1-0", "White wins by adjudication")
    assert AdjudicationState(Adjudication.build(None, None, 3)).after_move(0, None, 3)[0] == "1/2-1/2"
    with pytest.raises(ValueError):
        Adjudication.build("moves=3", None, None)


# -- time controls and protocol parsing ------------------------------------------------------


def test_time_control_forms():
    assert Limits.parse("40/60+0.5") == Limits(40, 60.0, 0.5)
    assert Limits.parse("10+0.1") == Limits(0, 10.0, 0.1)
    assert Limits.parse("1:30+1").base == 90.0
    assert Limits.parse("0:02+0.05").base == 2.0
    assert not Limits.parse("inf").has_clock
    assert Limits.parse("40/60+0.5").pgn_tag() == "40/60+0.5"
    assert Limits.parse("2+0.05").pgn_tag() == "2+0.05"
    assert Limits(movetime=2.0).pgn_tag() == "2/move"
    assert Limits(depth=3).pgn_tag() == "-"
    for bad in ("10+", "abc", "0+0", "0/10"):
        with pytest.raises(ValueError):
            Limits.parse(bad)


def test_feature_lines_thinking_and_info():
    assert parse_feature_line('feature setboard=0 xedit=1 ping=1 done=0') == [
        ("setboard", "0"), ("xedit", "1"), ("ping", "1"), ("done", "0")]
    assert parse_feature_line('feature option="Resign Threshold -spin 800 200 1200"') == [
        ("option", "Resign Threshold -spin 800 200 1200")]
    assert dict(parse_feature_line("feature myname=Fairy-Stockfish usermove=1"))["myname"] == "Fairy-Stockfish"
    t = parse_cecp_thinking(" 6      0        2      28215 c1e3 c8e6 e3g5")
    assert (t.depth, t.score, t.time, t.nodes, t.pv) == (6, 0, 0.02, 28215, "c1e3 c8e6 e3g5")
    assert parse_cecp_thinking("1 246 0 28 1 14000 0\t g5f4").score == 246
    assert parse_cecp_thinking("move e2e4") is None
    assert parse_cecp_thinking("12 99997 30 5000 a1a2").mate == 2
    i = parse_uci_info("info depth 12 seldepth 16 multipv 1 score cp 133 nodes 44811 nps 152418 "
                       "tbhits 0 time 294 pv g5f4 h2h3")
    assert (i.depth, i.seldepth, i.score, i.nodes, i.time, i.pv) == (12, 16, 133, 44811, 0.294, "g5f4 h2h3")
    assert parse_uci_info("info score mate -2 depth 3").score_cp() == -99998
    assert parse_uci_info("info string hello depth 5").depth is None
