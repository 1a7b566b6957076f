"""Search: mates in every royal variant, Ace capture, King conversion, draws, legality,
and the bench signature's determinism."""
from __future__ import annotations

import functools
import random
import re

import numpy as np
import pytest

from jitfish.engine import Engine, Limits
from jitfish.engine.search import PARAMS
from jitfish.eval import tables as E
from jitfish.movegen import Position, variant_names
from positions import random_walk


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(hash_mb=8)


MATES = [
        # back-rank mate in one
        ("chess", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1, "d1d8"),
        # scholar's mate
        ("chess", "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, "h5f7"),
        # mate in two: 1. Nf6+ gxf6 2. Bxf7# (checked by python-chess below)
        ("chess", "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2, "d5f6"),
        # courier: rook to the 8th rank, the king on b6 covers a7 and b7 (Black keeps a pawn:
        # with a bare king it would already have lost by courier's bare-king rule)
        ("courier", "k11/7p4/1K10/12/12/12/12/11R w - - 0 1", 1, "l1l8"),
        ("modcourier", "k11/12/1K10/12/12/12/12/11R w - - 0 1", 1, "l1l8"),
        ("modcourier2", "k11/12/1K10/12/12/12/12/11R w - - 0 1", 1, "l1l8"),
        ("modcourier3", "k11/12/1K10/12/12/12/12/11R w - - 0 1", 1, "l1l8"),
        # two rooks: 1. Ra7 and 2. Rb8# or 1. Rb7 and 2. Ra8# (mate in two, checked with
        # python-chess by brute force)
        ("chess", "6k1/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2, None),
]


def check_mate(engine: Engine, variant: str, fen: str, mate: int, best: str | None) -> None:
    """The search to depth 2 * mate + 2 finds the mate (and its first move, when it is unique),
    and its PV plays it out."""
    engine.new_game()
    res = engine.search(Position(variant, fen), Limits(depth=2 * mate + 2))
    assert res.mate == mate, res
    if best:
        assert res.best == best
    pos = Position(variant, fen)
    for mv in res.pv[: 2 * mate - 1]:
        pos.push(mv)
    assert pos.outcome() is not None and pos.outcome()[1].endswith("mates")


@pytest.mark.parametrize("variant, fen, mate, best", MATES)
def test_finds_mate(engine: Engine, variant: str, fen: str, mate: int, best: str | None) -> None:
    check_mate(engine, variant, fen, mate, best)


def test_chess_mate_in_two_is_real(engine: Engine) -> None:
    import chess

    fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1"
    res = engine.search(Position("chess", fen), Limits(depth=6))
    board = chess.Board(fen)
    for mv in res.pv[:3]:
        board.push_uci(mv)
    assert board.is_checkmate()


def test_captures_the_last_ace(engine: Engine) -> None:
    # Black has one Ace left, on h7; White's Monarch takes it: game over, White wins
    fen = "8/7a/8/8/8/8/8/AM5A w - - 0 1"
    engine.new_game()
    res = engine.search(Position("cowsandbutterflies", fen), Limits(depth=3))
    assert res.best == "b1h7" and res.mate == 1, res
    pos = Position("cowsandbutterflies", fen)
    pos.push(res.best)
    assert pos.outcome() == ("1-0", "Black's Aces captured")


def test_defends_an_attacked_ace(engine: Engine) -> None:
    # White's last Ace (a1) is attacked by the black Monarch along the first rank: move it
    # out of the line or block; any move that leaves it attacked loses at once
    fen = "a6a/8/8/8/8/8/8/A6m w - - 0 1"
    res = engine.search(Position("cowsandbutterflies", fen), Limits(depth=4))
    pos = Position("cowsandbutterflies", fen)
    pos.push(res.best)
    replies = pos.legal_moves()
    for r in replies:
        pos.push(r)
        assert pos.outcome() is None or pos.outcome()[0] != "0-1"
        pos.pop()


def test_converts_the_king(engine: Engine) -> None:
    # the Cleopatra on a1 goes to a4 and sees e8 along the diagonal: the black King converts
    fen = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"
    engine.new_game()
    res = engine.search(Position("cleopatra", fen), Limits(depth=3))
    assert res.mate == 1, res
    pos = Position("cleopatra", fen)
    pos.push(res.best)
    assert pos.outcome() == ("1-0", "Black's Kings converted")


def test_fifty_move_rule_is_a_draw(engine: Engine) -> None:
    # a rook up, but the next quiet move reaches 100 plies: every line is a draw
    fen = "7k/8/8/8/8/8/8/R6K w - - 99 80"
    res = engine.search(Position("chess", fen), Limits(depth=4))
    assert res.score_cp == 0, res


def test_repetition_is_seen_by_the_search() -> None:
    from jitfish.engine.search import is_draw

    pos = Position("chess", "k7/p7/P7/8/8/8/8/K7 w - - 0 1")
    assert not is_draw(pos.pos, pos.tab)
    for mv in ["a1b1", "a8b8", "b1a1"]:
        pos.push(mv)
        assert not is_draw(pos.pos, pos.tab)
    pos.push("b8a8")  # the start position again, same side to move
    assert is_draw(pos.pos, pos.tab)
    assert pos.repetitions() == 1


def test_avoids_a_repetition_when_winning(engine: Engine) -> None:
    # White is a queen up and the position has occurred before; a repeating line scores 0,
    # so the search must still find a winning score elsewhere
    pos = Position("chess", "k7/8/8/8/8/8/2Q5/1K6 w - - 0 1")
    for mv in ["c2d2", "a8b8", "d2c2", "b8a8"]:
        pos.push(mv)
    res = engine.search(pos, Limits(depth=5))
    assert res.score_cp is None or res.score_cp > 300


@pytest.mark.parametrize("variant", variant_names())
def test_search_returns_legal_moves(engine: Engine, variant: str) -> None:
    rng = random.Random(7)
    for game in range(12):
        pos = random_walk(Position(variant), rng, rng.randrange(0, 60))
        if pos.outcome():
            continue
        legal = {pos.move_name(m) for m in pos.legal_moves()}
        res = engine.search(pos, Limits(nodes=3000))
        assert res.best in legal, (variant, pos.fen(), res)
        q = pos.copy()
        for mv in res.pv:
            q.push(mv)  # the whole PV is legal


def test_one_legal_move_returns_at_once(engine: Engine) -> None:
    pos = Position("chess", "7k/8/8/8/8/8/R7/1R5K b - - 0 1")  # Kh8-g8? check squares
    legal = [pos.move_name(m) for m in pos.legal_moves()]
    res = engine.search(pos, Limits(movetime=1.0))
    if len(legal) == 1:
        assert res.best == legal[0] and res.nodes == 0
    else:
        assert res.best in legal


def test_a_fixed_time_a_move_is_spent() -> None:
    """``go movetime`` (XBoard's ``st``) thinks for the time it is given, as Stockfish does: no
    iteration is left unstarted because the last one took long (only a mate found, a single
    legal move or ``stop`` end it sooner).  Wall time can only come out longer on a loaded
    machine, so the lower bound holds there too."""
    import time

    eng = Engine(hash_mb=4)
    pos = Position("chess", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
    t0 = time.perf_counter()
    res = eng.search(pos, Limits(movetime=0.6))
    assert time.perf_counter() - t0 >= 0.5 and res.best is not None, res


def test_an_iteration_stopped_part_way_gives_its_best_move() -> None:
    """Stopped inside an iteration, the search plays that iteration's PV move where one was
    searched to its end and raised alpha (its score from the root), else the last complete
    iteration's move; a PV move outside ``searchmoves`` is never played."""
    from jitfish.engine.api import SearchResult
    from jitfish.engine.search import C_ROOT_SCORE

    eng = Engine(hash_mb=4)
    pos = Position("chess")
    done = SearchResult("e2e4", "e7e5", 20, None, 7, 1000, ["e2e4", "e7e5"], [["e2e4", "e7e5"]])
    moves = {pos.move_name(m): m for m in pos.legal_moves()}
    pool = list(moves.values())
    eng.pvlen[0] = 0
    assert eng._stopped_iteration(pos, pool, done) is done  # nothing searched to its end
    eng.pv[0, 0], eng.pv[0, 1], eng.pvlen[0] = moves["d2d4"], 0, 1
    eng.ctrl[C_ROOT_SCORE] = 35
    got = eng._stopped_iteration(pos, pool, done)
    assert (got.best, got.score_cp, got.depth, got.pv) == ("d2d4", 35, 7, ["d2d4"])
    assert eng._stopped_iteration(pos, [moves["e2e4"]], done) is done  # d2d4 is not a searchmove


def test_the_root_score_is_the_pv_moves() -> None:
    """``C_ROOT_SCORE`` holds the score of the root move that last raised alpha: after a
    complete search, the result's score."""
    from jitfish.engine.search import C_ROOT_SCORE

    eng = Engine(hash_mb=4)
    for fen in ("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"):
        res = eng.search(Position("chess", fen), Limits(depth=7))
        assert res.score_cp == int(eng.ctrl[C_ROOT_SCORE]), (fen, res)


def test_bench_signature_is_deterministic() -> None:
    from jitfish.bench.search_bench import run

    a, _ = run(hash_mb=4, depth_delta=-2, verbose=False)
    b, _ = run(hash_mb=4, depth_delta=-2, verbose=False)
    assert a == b and a > 0


# -- time management (the policy, checked without a clock; real games are in bench/RESULTS.md)


def test_time_budget_bounds():
    from jitfish.engine import time_budget

    for clock in (0.0, 0.01, 0.05, 0.2, 1.0, 10.0, 300.0):
        for inc in (0.0, 0.01, 0.1, 2.0):
            soft, hard = time_budget(0, Limits(wtime=clock, btime=99.0, winc=inc, binc=0.0))
            usable = max(0.0, clock - 0.05)
            assert 0 < soft <= hard
            assert hard <= max(0.002, usable * 0.4), (clock, inc, hard)
            assert soft <= max(0.001, usable * 0.25)
    # black's clock is black's
    assert time_budget(1, Limits(wtime=0.1, btime=100.0))[0] > 1.0
    assert time_budget(0, Limits(infinite=True, wtime=1.0)) == (None, None)
    assert time_budget(0, Limits(movetime=1.0, move_overhead=0.1)) == (0.9, 0.9)
    assert time_budget(0, Limits(wtime=10.0, movestogo=1))[1] == pytest.approx((10 - 0.05) * 0.8)


def test_time_budget_shares_the_clock_over_tm_mtg_moves():
    """The search's ``tm_mtg`` is the moves to go of a sudden-death clock; a given movestogo wins."""
    from jitfish.engine import time_budget

    lim = Limits(wtime=10.0, btime=10.0, winc=0.1, binc=0.1)
    assert time_budget(0, lim)[0] == pytest.approx(9.95 / 40 + 0.08)
    assert time_budget(0, lim, 30)[0] == pytest.approx(9.95 / 30 + 0.08)
    assert time_budget(0, lim, 30)[0] > time_budget(0, lim, 40)[0] > time_budget(0, lim, 50)[0]
    # above 50 too (it was capped at 50 once, and a match of 65 against 50 played two equal engines)
    assert time_budget(0, lim, 65)[0] == pytest.approx(9.95 / 65 + 0.08)
    assert time_budget(0, lim, 65)[0] < time_budget(0, lim, 50)[0]
    # a GUI's moves to go is still capped at 50
    assert time_budget(0, Limits(wtime=10.0, movestogo=80)) == time_budget(0, Limits(wtime=10.0, movestogo=50))
    assert time_budget(0, Limits(wtime=10.0, movestogo=20), 30) == time_budget(0, Limits(wtime=10.0, movestogo=20))


def test_engine_budgets_with_its_tm_mtg(monkeypatch):
    from jitfish.engine import api

    seen = []
    real = api.time_budget

    def spy(turn, lim, mtg=40):
        seen.append(mtg)
        return real(turn, lim, mtg)

    monkeypatch.setattr(api, "time_budget", spy)
    eng = Engine(hash_mb=1)
    eng.set_params({"tm_mtg": 25})
    eng.search(Position("chess"), Limits(wtime=0.5, btime=0.5, depth=2))
    assert seen == [25]


@pytest.mark.parametrize("latency", [0.003, 0.008])
def test_time_budget_survives_bullet_games(latency):
    """1 s + 0.01 s: 300 moves where every move overruns its hard limit by ``latency`` (pipe,
    GUI, Python) never flag; the clock stays above the 50 ms reserve minus one overrun."""
    from jitfish.engine import time_budget

    clock = 1.0
    for _ in range(300):
        _, hard = time_budget(0, Limits(wtime=clock, btime=clock, winc=0.01, binc=0.01))
        clock -= hard + latency
        assert clock > 0
        clock += 0.01
    assert clock > 0.05 - latency




def test_iteration_clock_scales_with_the_score_and_the_best_move():
    """tm_dynamic: the fixed share of the soft limit for a steady score and a move that changed
    lately; up to three times more when the score falls; less once the move is stable; more
    after the best move changes; tm_dynamic = 0 keeps the fixed share whatever happens."""
    from jitfish.engine.api import _IterationClock
    from jitfish.engine.search import MATE

    def limit(dynamic: bool, moves: list[str], scores: list[int], prev: int | None = 0) -> float:
        c = _IterationClock(1.0, 60, dynamic, prev, 0.95)
        for depth, (m, v) in enumerate(zip(moves, scores), 1):
            c.done(depth, m, v, 0.0)
        return c.last_limit

    steady = limit(True, ["a"] * 4, [0] * 4)
    assert steady == pytest.approx(0.6)
    assert limit(False, ["a", "b", "c", "d"], [0, -50, -100, -300]) == pytest.approx(0.6)
    assert limit(True, ["a"] * 4, [0, -10, -20, -30]) > steady * 1.2
    assert limit(True, ["a"] * 4, [0, -100, -200, -300]) == pytest.approx(steady * 3)
    assert limit(True, ["a"] * 4, [0, 50, 100, 150]) == pytest.approx(steady)  # a rising score: the floor
    assert limit(True, ["a"] * 12, [0] * 12) < steady * 0.7  # unchanged for more than 7 iterations
    assert limit(True, ["a", "b", "a", "b"], [0] * 4) > steady * 1.5
    assert limit(True, ["a"] * 4, [0] * 4, prev=None) == pytest.approx(steady)  # a new game
    assert limit(True, ["a"] * 4, [MATE - 5] * 4, prev=-MATE + 9) == pytest.approx(steady)
# a quiet mating check for the side to move at the horizon: after 1. Ra3, 1... Re1#
BACK_RANK = "4r1k1/5ppp/8/8/8/8/R4PPP/6K1 w - - 0 1"


def test_quiescence_checks_see_a_quiet_mate_at_the_horizon() -> None:
    """qs_checks: the first quiescence ply searches quiet checks, so a depth-1 search of 1. Ra3
    sees 1... Re1# (a rook move to an unguarded square: no capture for quiescence without it)."""
    eng = Engine(hash_mb=1)
    pos = Position("chess", BACK_RANK)
    eng.set_params({"qs_checks": 0})
    without = eng.search(pos, Limits(depth=1, searchmoves=["a2a3"]))
    assert without.mate is None, without
    eng.new_game()
    eng.set_params({"qs_checks": 1})
    with_checks = eng.search(pos, Limits(depth=1, searchmoves=["a2a3"]))
    assert with_checks.mate is not None and with_checks.mate < 0, with_checks
    # and the whole position at depth 1 then avoids the mate
    eng.new_game()
    res = eng.search(pos, Limits(depth=1))
    assert res.mate is None and res.score_cp is not None and res.score_cp > -200, res


# the run-time search parameters that are off by default, all on (ProbCut, quiescence checks,
# Stockfish's null-move reduction, its pruning in PV nodes, in check and in quiescence, its history
# updates at TT cutoffs and for the previous move): the mates
# and rules results above must not change
CANDIDATE_PARAMS = {"probcut_depth": 5, "qs_checks": 1, "null_reduction": 2, "null_depth_div": 4,
                    "null_eval_div": 100, "prune_pv": 1, "prune_check": 1, "qs_see_fut": 1, "qs_evasions": 1,
                    "lmp_all": 1, "qs_recap": 5, "qs_tt_stand": 1, "hist_tt": 1, "hist_prior": 1,
                    "hist_pv": 1, "hist_big": 1, "cont6": 1, "lmr_escape": 2, "lmr_opp": 14,
                    "cont_order": 200, "lmr_ttcap": 1, "asp_sf": 1, "lmr_cap": 1, "lmr_check": 1,
                    "lmr_ttpv": 2, "null_margin": 137, "lmr_stat": 1,
                    "ext_lastcap": 1000, "killer_clear": 1, "corr_hist": 32, "razor": 211,
                    "ext_castle": 1, "ext_passed": 1, "staged": 2, "tt_bucket": 4}

# middlegames with captures and checks about (and a pawn ending): every switch below changes these trees
SWITCH_FENS = [
    ("chess", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("courier", "r1ebmk1wbe1r/1p1n4ppp1/2p1ppfp3n/p2p2p4p/P4PP4P/3PP1FP3R/1PPN2K1PPP1/R1EBM2WBEN1 w - - 1 9"),
    # and a pawn ending where pawns become passed and push (ext_passed)
    ("chess", "6k1/pp3pp1/2p4p/3P4/2P5/1P4P1/P4P1P/6K1 w - - 0 30"),
]


@functools.cache
def _tree_nodes(switch: str | None) -> int:
    """Nodes of depth-8 searches of SWITCH_FENS with ``switch`` ("name" for name=1, or
    "name=value") on (None: the defaults; cached, so the baseline is searched once for all the
    switches)."""
    eng = Engine(hash_mb=4)
    if switch:
        name, _, value = switch.partition("=")
        eng.set_params({name: int(value or 1)})
    total = 0
    for variant, fen in SWITCH_FENS:
        eng.new_game()
        total += eng.search(Position(variant, fen), Limits(depth=8)).nodes
    return total


@pytest.mark.parametrize("switch", ["prune_pv", "prune_pv=2", "prune_check", "qs_see_fut", "qs_evasions", "lmp_all",
                                    "qs_recap=5", "qs_tt_stand", "hist_tt", "hist_prior",
                                    "hist_pv", "hist_big", "cont6", "lmr_escape=2", "lmr_opp=14",
                                    "cont_order=50", "lmr_ttcap", "asp_sf", "lmr_cap", "lmr_check",
                                    "lmr_ttpv=2", "null_margin=137",
                                    "lmr_stat", "ext_lastcap=9000", "killer_clear", "corr_hist=32", "razor=211",
                                    "ext_castle", "ext_passed", "staged", "staged=2", "tt_bucket=4"])
def test_pruning_switches_change_the_tree(switch: str) -> None:
    """Each pruning switch is read by the search: turned on, the same searches visit a different
    number of nodes (how many fewer is measured in bench/RESULTS.md, on many positions; on four
    it can go either way).  A switch that the weight files of every variant of the four
    positions already set to that value (``[search]``: ``asp_sf``, ``lmr_stat`` in chess and
    courier) is turned back to PARAMS' default instead, so the test stays right as switches
    enter the tables."""
    name, _, value = switch.partition("=")
    on = int(value or 1)
    eng = Engine(hash_mb=1)
    if all(eng.params(v)[name] == on for v in {v for v, _f in SWITCH_FENS}):
        switch = f"{name}={PARAMS[name]}"
    assert _tree_nodes(switch) != _tree_nodes(None), switch


def test_a_variant_plays_with_the_search_table_of_its_weight_file(tmp_path, monkeypatch) -> None:
    """A ``[search]`` table in a variant's weight file sets that variant's search numbers: the
    tree is the one ``set_params`` gives with the same numbers, other variants keep the defaults,
    ``set_params`` wins over the file, and an unknown name is refused with the variant named."""
    for name in ("chess.toml", "chess.psqt.toml"):
        # the shipped file's own [search] table (up to the next table) makes way for the test's
        text = re.sub(r"(?ms)^\[search\]\n.*?(?=^\[|\Z)", "", (E.WEIGHTS_DIR / name).read_text())
        (tmp_path / name).write_text(text)
    with open(tmp_path / "chess.toml", "a") as fh:
        fh.write("\n[search]\nprune_pv = 1\nlmp_depth = 5\n")
    monkeypatch.setattr(E, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(E, "_CACHE", {})
    monkeypatch.setattr(E, "_SEARCH", {})
    variant, fen = SWITCH_FENS[0]

    def nodes(params: dict[str, int] | None) -> int:
        eng = Engine(hash_mb=4)
        if params is not None:
            eng.set_params(params)
        return eng.search(Position(variant, fen), Limits(depth=8)).nodes

    eng = Engine(hash_mb=4)
    assert eng.params("chess")["prune_pv"] == 1 and eng.params("chess")["lmp_depth"] == 5
    assert eng.params()["prune_pv"] == 0 and eng.params("courier")["prune_pv"] == 0
    own = nodes(None)
    assert own == nodes({"prune_pv": 1, "lmp_depth": 5})
    assert own != nodes({"prune_pv": 0, "lmp_depth": 6})  # set_params wins over the file
    with open(tmp_path / "chess.toml", "a") as fh:
        fh.write("prune_everything = 1\n")
    monkeypatch.setattr(E, "_SEARCH", {})
    with pytest.raises(ValueError, match="chess.*prune_everything"):
        Engine(hash_mb=4).search(Position(variant, fen), Limits(depth=2))


def test_correction_history_learns_by_side_and_pawns_and_a_new_game_clears_it() -> None:
    """``corr_hist``: off, the table stays empty; on, a search fills entries of both sides
    (within Stockfish's +/- CORR_MAX), and ``new_game`` empties it again."""
    variant, fen = SWITCH_FENS[0]
    eng = Engine(hash_mb=4)
    eng.search(Position(variant, fen), Limits(depth=7))
    assert not eng.corr.any()
    eng.set_params({"corr_hist": 32})
    eng.search(Position(variant, fen), Limits(depth=7))
    assert eng.corr[0].any() and eng.corr[1].any()
    assert np.abs(eng.corr).max() <= 1024
    eng.new_game()
    assert not eng.corr.any()


@pytest.mark.parametrize("variant, fen, mate, best", MATES)
def test_candidate_params_keep_the_mates(variant: str, fen: str, mate: int, best: str | None) -> None:
    eng = Engine(hash_mb=8)
    eng.set_params(CANDIDATE_PARAMS)
    check_mate(eng, variant, fen, mate, best)


def test_candidate_params_play_legal_moves_in_every_variant() -> None:
    eng = Engine(hash_mb=8)
    eng.set_params(CANDIDATE_PARAMS)
    rng = random.Random(19)
    for variant in variant_names():
        for _walk in range(3):
            pos = random_walk(Position(variant), rng, 24)
            legal = {pos.move_name(m) for m in pos.legal_moves()}
            if not legal:
                continue
            res = eng.search(pos, Limits(depth=6))
            assert res.best in legal, (variant, pos.fen(), res)


@pytest.mark.parametrize("truth", [-3000, -250, 3, 180, 29000])
def test_stockfish_aspiration_windows(monkeypatch, truth: int) -> None:
    """``asp_sf = 1``: the root's windows follow Stockfish 11's rule.  A fake root search whose
    score is ``truth`` whatever the window (fail-soft) records each call: the windows close in on
    it, a fail high searches one ply less than the one before (back to the full depth after a
    fail low), and the window grows by a quarter + 5 each time."""
    from jitfish.engine import api
    from jitfish.engine.search import INF
    calls = []

    def fake_root(_d, _ss, depth, alpha, beta):
        calls.append((depth, int(alpha), int(beta)))
        return truth

    monkeypatch.setattr(api, "search_root", fake_root)
    eng = Engine(hash_mb=1)
    eng.set_params({"asp_sf": 1, "aspiration": 12})
    ss = eng._tables()
    assert eng._root(None, ss, 3, 0) == truth and calls == [(3, -INF, INF)]  # no window below depth 4
    calls.clear()
    assert eng._root(None, ss, 9, 0) == truth
    window, failed_high = 12, 0
    alpha, beta = -12, 12
    for k, (depth, a, b) in enumerate(calls):
        assert (depth, a, b) == (max(1, 9 - failed_high), alpha, beta), (k, calls)
        if truth <= a:
            beta, alpha, failed_high = (a + b) // 2, max(truth - window, -INF), 0
        elif truth >= b:
            beta, failed_high = min(truth + window, INF), failed_high + 1
        else:
            assert k == len(calls) - 1
        window += window // 4 + 5
    assert calls[-1][1] < truth < calls[-1][2]
