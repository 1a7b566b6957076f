"""The evaluation network (eval/network.py): the file's checks, and the kernel's evaluation with
its accumulator updated move by move (``Pos.dirty``) against the numpy reference recomputed from
the board, in every seed variant (castling, en passant, promotion, Cleopatra's conversions), along
random games and after searches; the trainer (bench/train_nnue.py) learns a known function."""
from __future__ import annotations

import random

import numpy as np
import pytest

from jitfish.bench import train_nnue
from jitfish.engine import Engine, Limits
from jitfish.eval import network as N
from jitfish.eval import tables as E
from jitfish.eval.evaluate import fifty_scaled
from jitfish.movegen import Position, load_variant
from jitfish.movegen import kernels as K
from jitfish.movegen.tables import CFG_FIFTY
from oracles import fairy_stockfish_path

SEEDS = ["chess", "courier", "modcourier", "cowsandbutterflies", "cleopatra"]


@pytest.fixture
def weights_dir(tmp_path, monkeypatch):
    """A copy of the shipped weight files (no networks) in tmp_path, the table cache emptied."""
    for f in E.WEIGHTS_DIR.glob("*.toml"):
        (tmp_path / f.name).write_text(f.read_text())
    monkeypatch.setattr(E, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(E, "_CACHE", {})
    return tmp_path


def random_network(variant: str, hidden: int, seed: int, mode: str = "pure") -> N.Network:
    v = load_variant(variant)
    T, S = len(v.spec.pieces), v.files * v.ranks
    rng = np.random.default_rng(seed)
    w1 = rng.integers(-40, 41, (2 * T * S, hidden))
    b1 = rng.integers(0, 200, hidden)
    w2 = rng.integers(-60, 61, 2 * hidden)
    meta = {"variant": v.spec.name, "letters": v.spec.letters, "files": v.files, "ranks": v.ranks,
            "mode": mode, "hidden": hidden}
    return N.Network(w1, b1, w2, int(rng.integers(-5000, 5000)), meta)


def _want(net, pos: Position, hand: int = 0) -> int:
    v = pos.variant
    idx = N.feature_table(len(v.spec.pieces), v.files, v.ranks)
    s = N.reference_eval(net, pos.pos.board, pos.turn, idx) + hand
    return fifty_scaled(s, int(pos.pos.st[K.ST_HALF]), int(v.tables.cfg[CFG_FIFTY]))


def _pick(rng, pos, moves):
    forcing = [m for m in moves if K.move_promo(m) or pos.pos.board[K.move_to(m)] != 0
               or K.move_kind(m) != K.KIND_NORMAL]
    return rng.choice(forcing) if forcing and rng.random() < 0.5 else rng.choice(moves)


@pytest.mark.parametrize("variant", SEEDS)
def test_incremental_equals_reference(weights_dir, variant):
    net = random_network(variant, 16, seed=len(variant))
    N.write_network(weights_dir / f"{variant}.nnue.npz", net)
    v = load_variant(variant)
    assert E.eval_tables(v).params[E.P_NN_MODE] == N.MODES["pure"]
    eng = Engine(hash_mb=1)
    rng = random.Random(7)
    checked = replayed = 0
    for _game in range(6):
        pos = Position(variant)
        for _ply in range(120):
            moves = pos.legal_moves()
            if not moves or pos.outcome():
                break
            assert eng.static_eval(pos) == _want(net, pos), pos.fen()
            checked += 1
            m = _pick(rng, pos, moves)
            pos.push(m)
            replayed += int(pos.pos.dirty[(int(pos.pos.st[K.ST_PLY]) - 1) & (K.DIRTY_RING - 1), 0] > 0)
            if rng.random() < 0.1 and pos.history:
                pos.pop()
    assert checked > 200 and replayed > 200


@pytest.mark.parametrize("variant", ["chess", "cleopatra"])
def test_search_leaves_accumulators_right(weights_dir, variant):
    """After searches (make/unmake, null moves, the cache's slots reused), the evaluation of
    the positions of a game still equals the reference; a fresh engine agrees."""
    net = random_network(variant, 8, seed=3)
    N.write_network(weights_dir / f"{variant}.nnue.npz", net)
    eng = Engine(hash_mb=1)
    rng = random.Random(11)
    pos = Position(variant)
    for _ in range(30):
        moves = pos.legal_moves()
        if not moves or pos.outcome():
            break
        eng.search(pos, Limits(nodes=400))
        assert eng.static_eval(pos) == _want(net, pos) == Engine(hash_mb=1).static_eval(pos)
        pos.push(_pick(rng, pos, moves))


def test_residual_adds_the_hand_evaluation(weights_dir):
    variant = "chess"
    v = load_variant(variant)
    pos = Position(variant, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3")
    hand = Engine(hash_mb=1).static_eval(pos)
    net = random_network(variant, 8, seed=5, mode="residual")
    N.write_network(weights_dir / f"{variant}.nnue.npz", net)
    E._CACHE.clear()
    idx = N.feature_table(len(v.spec.pieces), v.files, v.ranks)
    assert Engine(hash_mb=1).static_eval(pos) == hand + N.reference_eval(net, pos.pos.board, pos.turn, idx)


def test_bad_network_files(weights_dir):
    good = random_network("chess", 8, seed=1)
    path = weights_dir / "chess.nnue.npz"
    N.write_network(path, N.Network(good.w1[:-1], good.b1, good.w2, good.b2, good.meta))
    with pytest.raises(ValueError, match="chess.nnue.npz: array shapes"):
        E.eval_tables(load_variant("chess"))
    E._CACHE.clear()
    N.write_network(path, N.Network(good.w1, good.b1, good.w2, good.b2, dict(good.meta, letters="PNBRQ")))
    with pytest.raises(ValueError, match="made for pieces"):
        E.eval_tables(load_variant("chess"))
    E._CACHE.clear()
    path.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="not a network file"):
        E.eval_tables(load_variant("chess"))


def test_trainer_fits_material(tmp_path):
    """Labels from a known rule (100 per pawn, 300 per knight ahead): the trained network's
    held-out loss falls well below the untrained one's, and its rounded copy agrees with it."""
    rng = random.Random(2)
    lines = []
    values = {"p": 100, "n": 300}
    for g in range(300):
        pos = Position("chess")
        for _ in range(rng.randint(10, 50)):
            moves = pos.legal_moves()
            if not moves or pos.outcome():
                break
            pos.push(_pick(rng, pos, moves))
        if pos.is_check() or pos.outcome():
            continue
        board = pos.fen().split()[0]
        score = sum(values.get(ch.lower(), 0) * (1 if ch.isupper() else -1) for ch in board)
        quiet = [m for m in pos.legal_moves() if pos.pos.board[K.move_to(m)] == 0 and not K.move_promo(m)
                 and K.move_kind(m) == K.KIND_NORMAL]
        if quiet:
            lines.append(f"{pos.fen()};0.5;{score};{pos.move_name(quiet[0])};{g}\n")
    data = tmp_path / "d.txt"
    data.write_text("# test\n" + "".join(lines))
    ds = train_nnue.dataset("chess", [data], residual=False)
    idx = np.arange(len(ds))
    tr, te = ds.subset(idx[: len(ds) * 4 // 5]), ds.subset(idx[len(ds) * 4 // 5:])
    model = train_nnue.Model(ds.pad, 8, np.random.default_rng(1))
    t = train_nnue.targets(te, 0.0)
    before = train_nnue.loss_of(model, te, t)
    hist = train_nnue.train(model, tr, te, 0.0, 60, 32, 5e-3, np.random.default_rng(1), log=lambda s: None)
    assert hist[-1][1] < 0.5 * before
    net = train_nnue.quantize(model, {})
    assert abs(train_nnue._qloss(net, te, t) - hist[-1][1]) < 0.01


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_nnue_data_writes_labelled_games(tmp_path, variant):
    """Two short Fairy-Stockfish self-play games: every line reads back as a sample of a legal
    position not in check, scores within the limit, results from the games; the same seed gives
    the same file, and --resume continues after the last game."""
    from jitfish.bench import nnue_data
    from jitfish.bench.tune_psqt import load
    out = tmp_path / "d.txt"
    args = ["--variant", variant, "--games", "2", "--nodes", "300", "--max-plies", "40", "--seed", "5",
            "--fsf", fairy_stockfish_path(), "--out", str(out)]
    assert nnue_data.main(args) == 0
    first = out.read_text()
    samples = load(out)
    assert samples and {s.game for s in samples} <= {0, 1}
    for s in samples:
        pos = Position(variant, s.fen)
        assert not pos.is_check() and abs(s.score) <= 2500 and s.result in (0.0, 0.5, 1.0)
        pos.parse_move(s.best)  # legal in its position
    assert nnue_data.main(args) == 0 and out.read_text() == first  # reproducible from its command
    assert nnue_data.main(args[:3] + ["3"] + args[4:] + ["--resume"]) == 0
    more = load(out)
    assert more[:len(samples)] == samples and {s.game for s in more[len(samples):]} == {2}


def test_tune_psqt_load_applies_the_label_filters(tmp_path, capsys):
    """A --load file with captures as best moves and scores beyond --max-score: only the quiet,
    bounded positions are fitted."""
    from jitfish.bench import tune_psqt
    rng = random.Random(3)
    lines, quiet = [], 0
    for g in range(160):
        pos = Position("chess")
        for _ in range(rng.randint(6, 30)):
            moves = pos.legal_moves()
            if not moves or pos.outcome():
                break
            pos.push(rng.choice(moves))
        if pos.is_check() or pos.outcome():
            continue
        moves = pos.legal_moves()
        caps = [m for m in moves if pos.pos.board[K.move_to(m)] != 0]
        calm = [m for m in moves if pos.pos.board[K.move_to(m)] == 0 and not K.move_promo(m)
                and K.move_kind(m) == K.KIND_NORMAL]
        if g % 8 == 0 and caps:
            lines.append(f"{pos.fen()};0.5;10;{pos.move_name(caps[0])};{g}")
        elif g % 8 == 1 and calm:
            lines.append(f"{pos.fen()};1;2400;{pos.move_name(calm[0])};{g}")
        elif calm:
            lines.append(f"{pos.fen()};0.5;{rng.randint(-200, 200)};{pos.move_name(calm[0])};{g}")
            quiet += 1
    path = tmp_path / "load.txt"
    path.write_text("# test\n" + "\n".join(lines) + "\n")
    assert quiet >= 100
    assert tune_psqt.main(["--variant", "chess", "--load", str(path), "--l2", "0.1", "--iters", "3"]) == 0
    err = capsys.readouterr().err
    assert f"{quiet} of {len(lines)} loaded positions kept" in err


def test_engine_forgets_accumulators_of_other_tables(weights_dir):
    """The same Engine after the variant's network changed (a new file, the tables rebuilt):
    no accumulator or cached evaluation of the old network is used."""
    eng = Engine(hash_mb=1)
    pos = Position("chess")
    for san in ("e4", "e5", "Nf3"):
        pos.push_san(san)
    first = random_network("chess", 8, seed=21)
    N.write_network(weights_dir / "chess.nnue.npz", first)
    assert eng.static_eval(pos) == _want(first, pos)
    second = random_network("chess", 8, seed=22)
    N.write_network(weights_dir / "chess.nnue.npz", second)
    E._CACHE.clear()
    assert _want(first, pos) != _want(second, pos)
    assert eng.static_eval(pos) == _want(second, pos)
    pos.push_san("Nc6")
    assert eng.static_eval(pos) == _want(second, pos)


def test_distill_data_labels_games_and_walks_with_both_evaluations(tmp_path):
    """Two committed courier games through ``bench/distill_data.py``: every line a distinct legal
    position not in check, labelled with Fairy-Stockfish's ``eval`` (asked again here) and
    jitfish's hand-written evaluation from White's side; random walks add positions that are in
    no game; the trainer's fast path reads the same features as ``Position`` gives, and the
    hand-written evaluation as a residual network's offset, from the side to move."""
    from jitfish.bench import distill_data
    from jitfish.bench.tune_psqt import GAMES_DIR, StaticLabeller, _fen_key, load
    from jitfish.movegen import read_pgn
    from jitfish.movegen.pgn import write_pgn
    src = GAMES_DIR / "strength" / "s17_fsf_courier.pgn"
    games = [g for g in read_pgn(src.read_text()) if g.variant == "courier"][:2]
    pgn = tmp_path / "two.pgn"
    pgn.write_text("\n".join(write_pgn(list(g.tags.items()), g.moves, g.result) for g in games))
    out = tmp_path / "d.txt"
    assert distill_data.main(["--variant", "courier", "--pgn", str(pgn), "--children", "1", "--depth", "2",
                              "--workers", "1", "--fsf", fairy_stockfish_path(), "--out", str(out)]) == 0
    samples = load(out)
    hand = [int(line.split(";")[5]) for line in out.read_text().splitlines()[1:]]
    assert len(samples) == len(hand) > 100
    assert len({_fen_key(s.fen) for s in samples}) == len(samples)
    in_games = set()
    for g in games:
        pos = Position.from_pgn(g)
        for san in g.moves:
            in_games.add(_fen_key(pos.fen()))
            pos.push_san(san)
    assert sum(_fen_key(s.fen) not in in_games for s in samples) > 20  # the walks
    v = load_variant("courier")
    ev = E.without_network(E.eval_tables(v))
    from jitfish.eval import eval_of
    lab = StaticLabeller("courier", fairy_stockfish_path())
    try:
        for s, h in list(zip(samples, hand))[::max(1, len(samples) // 40)]:
            pos = Position(v, s.fen)
            assert not pos.is_check() and s.best == "-" and s.result in (0.0, 0.5, 1.0)
            assert lab.score(s.fen) == s.score
            e = eval_of(pos.pos, pos.tab, ev)
            assert h == (e if pos.turn == 0 else -e)
    finally:
        lab.close()
    ds = train_nnue.dataset("courier", [out], residual=True, all_positions=True)
    assert len(ds) == len(samples)
    idx = N.feature_table(len(v.spec.pieces), v.files, v.ranks)
    for i in range(0, len(ds), max(1, len(ds) // 30)):
        pos = Position(v, ds.fens[i])
        own, other = N.position_features(pos.pos.board, idx)
        if pos.turn == 1:
            own, other = other, own
        assert sorted(x for x in ds.fs[i] if x != ds.pad) == sorted(own)
        assert sorted(x for x in ds.fn[i] if x != ds.pad) == sorted(other)
        j = next(k for k, s in enumerate(samples) if s.fen == ds.fens[i])
        assert ds.base[i] == (hand[j] if pos.turn == 0 else -hand[j])
        assert ds.score[i] == (samples[j].score if pos.turn == 0 else -samples[j].score)
