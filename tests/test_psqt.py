"""Learned piece-square tables: the loader (``<variant>.psqt.toml``, eval/tables.py) and the fit of
``bench/tune_psqt.py`` (its features are the kernel's taper; its optimiser recovers known tables)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from jitfish.bench import tune, tune_psqt
from jitfish.engine import Engine
from jitfish.eval import tables as E
from jitfish.movegen import Position, load_variant
from oracles import fairy_stockfish_path
from positions import random_walk


@pytest.fixture
def weights_dir(tmp_path, monkeypatch):
    """A copy of the shipped weights in tmp_path, with the table cache emptied around the test."""
    for f in E.WEIGHTS_DIR.glob("*.toml"):
        if not f.name.endswith(".psqt.toml"):
            (tmp_path / f.name).write_text(f.read_text())
    monkeypatch.setattr(E, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(E, "_CACHE", {})
    return tmp_path


def _sf_off(folder) -> None:
    """Stockfish's king danger (``sf_scale``) also reads the mobility difference, which the
    linear model of the fit does not hold: the tests of that model switch it off, and with it
    the pawn terms in Stockfish's units (``pawn_structure``, ``passed_path``).  They write
    their own mobility tables, so the weight files' (Stockfish's) are taken out."""
    for f in folder.glob("*.toml"):
        text = re.sub(r"^sf_scale = \d+$", "sf_scale = 0", f.read_text(), flags=re.M)
        text = re.sub(r"^(pawn_structure|passed_path) = true$", r"\1 = false", text, flags=re.M)
        if not f.name.endswith(".psqt.toml"):
            text = re.sub(r"^mobility_table(_eg)? = \[.*\]$\n", "", text, flags=re.M)
        f.write_text(text)


def _plain_mobility(folder) -> None:
    """Mobility counted without Stockfish's area (every target square but the side's own)."""
    for f in folder.glob("*.toml"):
        f.write_text(re.sub(r"^mobility_area = true$", "mobility_area = false", f.read_text(), flags=re.M))


def _table(F=8, R=8, **squares) -> list[int]:
    t = [0] * (F * R)
    for name, v in squares.items():
        t[(int(name[1:]) - 1) * F + ord(name[0]) - ord("a")] = v
    return t


def _write(path, pieces: dict[str, dict[str, list[int]]]) -> None:
    lines = []
    for letter, keys in pieces.items():
        lines.append(f"[pieces.{letter}]")
        lines += [f"{k} = {v!r}" for k, v in keys.items()]
    path.write_text("\n".join(lines) + "\n")


def _static(fen: str) -> int:
    return Engine(hash_mb=1).static_eval(Position("chess", fen))


def test_a_table_shifts_the_static_evaluation(weights_dir) -> None:
    mid = "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2"  # 1.Nf3 Nc6: phase 256
    end = "8/8/4k3/8/4P3/8/8/4K3 w - - 0 1"  # no piece but pawns and kings: phase 0
    before = _static(mid), _static(end)
    # White's knight on f3 earns 37, Black's on c6 (c3 as Black sees it) 5; a pawn on e4 earns 50
    # in the endgame only (its middlegame table says 1000, which phase 0 must ignore)
    _write(weights_dir / "chess.psqt.toml", {"N": {"psqt": _table(f3=37, c3=5)},
                                             "P": {"psqt": _table(e4=1000), "psqt_eg": _table(e4=50)}})
    E._CACHE.clear()
    assert _static(mid) - before[0] == 37 - 5
    assert _static(end) - before[1] == 50
    # the tables are this variant's only: courier (no table file) keeps its evaluation
    assert not E.psqt_file(load_variant("courier").spec).exists()


@pytest.mark.parametrize("table, message", [
    ([1] * 63, r"pieces\.N\.psqt: expected 64 integers .* got a list of 63 items"),
    ([1.5] * 64, r"pieces\.N\.psqt: expected 64 integers"),
    (7, r"pieces\.N\.psqt: expected 64 integers .* got int"),
])
def test_a_bad_table_is_refused_by_name(weights_dir, table, message) -> None:
    (weights_dir / "chess.psqt.toml").write_text(f"[pieces.N]\npsqt = {table!r}\n")
    with pytest.raises(ValueError, match=message):
        E.eval_tables(load_variant("chess"))


def test_a_table_file_holds_tables_only(weights_dir) -> None:
    (weights_dir / "chess.psqt.toml").write_text("[pieces.N]\nvalue = 300\n")
    with pytest.raises(ValueError, match=r"chess\.psqt\.toml: pieces\.N: unknown keys \['value'\]"):
        E.eval_tables(load_variant("chess"))
    (weights_dir / "chess.psqt.toml").write_text(f"[pieces.Z]\npsqt = {[0] * 64!r}\n")
    with pytest.raises(ValueError, match=r"pieces\.Z: no such piece"):
        E.eval_tables(load_variant("chess"))


FENS = [
    "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2",
    "r4rk1/pp3ppp/2n1b3/3q4/3P4/2N2N2/PP3PPP/R2Q1RK1 b - - 7 15",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/2r5 w - - 31 50",
    "8/8/4k3/8/4P3/8/8/4K3 b - - 0 1",
]


def test_the_features_are_the_kernels_taper(weights_dir) -> None:
    # random tables written to the file and evaluated by the kernel must give the fitted sum
    X = tune_psqt.features("chess", FENS, symmetric=False, progress=False)
    rng = np.random.default_rng(5)
    w = rng.integers(-60, 61, X.p).astype(float)
    mg, eg = tune_psqt.tables_of(X, w)
    tune_psqt.write_tables("chess", mg, eg, ["test"])
    E._CACHE.clear()
    kernel = np.array([(1 if Position("chess", f).turn == 0 else -1) * _static(f) for f in FENS])
    assert np.abs(kernel - X.predict(w)).max() <= 2.0, (kernel, X.predict(w))
    assert np.abs(X.predict(w) - X.base).max() > 20  # the tables did change the evaluation


def _synthetic(n: int, seed: int):
    rng = np.random.default_rng(seed)
    T, S = 2, 8
    rows, cols, vals = [], [], []
    for i in range(n):
        for col in rng.choice(T * S, 4, replace=False):
            ph = rng.random()
            sign = rng.choice([-1.0, 1.0])
            rows += [i, i]
            cols += [col, T * S + col]
            vals += [sign * ph, sign * (1 - ph)]
    X = tune_psqt.Features(np.array(rows), np.array(cols), np.array(vals), rng.normal(0, 150, n), n, T, S,
                           S, 1, False)
    w_true = rng.normal(0, 60, X.p)
    return X, w_true


def test_the_fit_recovers_known_tables() -> None:
    X, w_true = _synthetic(3000, 1)
    y = tune.win_prob(X.predict(w_true), 1.3)
    k = 1.3
    e0 = tune.texel_error(X.base, y, k)
    w = tune_psqt.fit_tables(X, y, k, l2=1e-6)
    assert tune.texel_error(X.predict(w), y, k) < e0 / 100
    assert np.abs(w - w_true).max() < 5, np.abs(w - w_true).max()
    # a strong L2 pull keeps the tables near 0 (and the error up): the penalty is applied
    w_reg = tune_psqt.fit_tables(X, y, k, l2=10.0)
    assert np.abs(w_reg).max() < np.abs(w_true).max() / 2
    # and K is found from the offset: the labels of a scaled evaluation give the scale back
    assert abs(tune_psqt.fit_k(X.base, tune.win_prob(X.base, 0.5)) - 0.5) < 0.05


def test_texel_check_scores_a_change_against_labels_made_with_it(tmp_path, capsys) -> None:
    """bench/texel_check.py: labels made from the evaluation with tempo 60 and king_danger 0;
    that candidate must come out with the least error, today's weights and a change the other
    way worse, and the weights must be left as they were."""
    from jitfish.bench import texel_check

    variant = load_variant("chess")
    weights, path = E.variant_weights(variant)
    truth = E.tables_from(variant, texel_check.apply_changes(weights, "tempo=60,king_danger=0"), path)
    rng = random.Random(3)
    rows, positions = [], []
    while len(rows) < 300:
        pos = random_walk(Position("chess"), rng, rng.randrange(6, 40))
        quiet = [m for m in pos.legal_moves() if tune_psqt.quiet_move(pos, pos.move_name(m))]
        if pos.outcome() or not quiet:
            continue
        positions.append(pos)
        rows.append((pos.fen(), pos.move_name(quiet[0])))
    scores = texel_check.white_evals(positions, truth)
    data = tmp_path / "labels.txt"
    data.write_text("# made by the test\n" + "".join(f"{fen};0.5;{s:g};{mv};{i}\n"
                                                     for i, ((fen, mv), s) in enumerate(zip(rows, scores))))
    before = _static("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    rc = texel_check.main(["--variant", "chess", "--load", str(data), "--result-weight", "0",
                           "--set", "tempo=60,king_danger=0", "--set", "tempo=0", "--set", "pieces.N.mobility=9"])
    out = capsys.readouterr().out
    assert rc == 0, out
    errors = {line.split(":")[0].strip(): float(line.split("error ")[1].split()[0])
              for line in out.splitlines() if "error" in line and line.startswith("  ")}
    base = float(out.split("today's weights: error ")[1].split()[0])
    assert errors["tempo=60,king_danger=0"] < 1e-5 < base, out
    assert errors["tempo=0"] > base and errors["pieces.N.mobility=9"] > errors["tempo=60,king_danger=0"], out
    assert _static("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1") == before  # nothing written or changed


def test_texel_check_refuses_bad_changes(tmp_path, capsys) -> None:
    from jitfish.bench import texel_check

    data = tmp_path / "labels.txt"
    data.write_text("# empty\n")
    assert texel_check.main(["--load", str(data), "--set", "tempo"]) == 1
    assert "KEY=INTEGER" in capsys.readouterr().err
    assert texel_check.main(["--load", str(data), "--set", "pieces.N=3"]) == 1
    assert texel_check.main(["--load", str(data), "--set", "kings_danger=3"]) == 1
    assert "kings_danger" in capsys.readouterr().err


def test_a_mobility_table_adds_its_entry_per_piece(weights_dir) -> None:
    # 1.Nf3 Nc6 (phase 256): each knight has 5 target squares as the kernel counts them
    # (Nf3: d4 e5 g5 h4 g1; Nc6: b4 d4 e5 b8 a5); the rooks have none, the bishops none
    fen = "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2"
    _sf_off(weights_dir)
    _plain_mobility(weights_dir)
    before = _static(fen)
    # a knight with 5 squares earns 40, with 2 squares 7 (b1 and g8: a3 c3, f6 h6); a rook with no
    # square loses 30 (all four): both sides alike
    _write(weights_dir / "chess.psqt.toml", {"N": {"mobility_table": [0, 0, 7, 0, 0, 40]},
                                             "R": {"mobility_table": [-30, 11]}})
    E._CACHE.clear()
    assert _static(fen) == before  # both sides alike: the balance does not move
    # Black's knight gone from c6: Black loses its 5-square entry (and its knight's material)
    fen2 = "r1bqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 2 2"
    E._CACHE.clear()
    with_tables = _static(fen2)
    (weights_dir / "chess.psqt.toml").unlink()
    E._CACHE.clear()
    assert _static(fen2) - with_tables == 40  # from Black's side: White's 40 is no longer matched


@pytest.mark.parametrize("table, message", [
    ("[]", r"pieces\.N\.mobility_table: expected a list of integers"),
    ("[1.5, 2]", r"pieces\.N\.mobility_table: expected a list of integers"),
    ("3", r"pieces\.N\.mobility_table: expected a list of integers"),
])
def test_a_bad_mobility_table_is_refused_by_name(weights_dir, table, message) -> None:
    _sf_off(weights_dir)  # chess.toml's own tables out of the way (a key may not be in both files)
    (weights_dir / "chess.psqt.toml").write_text(f"[pieces.N]\nmobility_table = {table}\n")
    with pytest.raises(ValueError, match=message):
        E.eval_tables(load_variant("chess"))


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_the_term_features_are_the_kernels(weights_dir, variant) -> None:
    # random square tables and terms (mobility, passed pawns, files, pairs) written and evaluated
    # by the kernel give the fitted sum
    _sf_off(weights_dir)
    v = load_variant(variant)
    fens = FENS + ["4k3/1p6/8/P1P5/8/8/3P4/R3K2R w - - 0 30", "r3k3/8/1b1b4/8/8/8/PP3PPP/R1B1K1B1 b - - 0 30"] \
        if variant == "chess" else [Position(variant).fen()] + [
        random_walk(Position(variant), random.Random(n), n).fen() for n in (12, 30, 60, 120)]
    X = tune_psqt.features(variant, fens, symmetric=False, progress=False, terms=tune_psqt.TERMS)
    assert all((X.seen[name] >= 0).any() for name in ("mobility", "passed", "file")), X.seen
    if variant == "chess":
        assert (X.seen["pair"] >= 0).any()
    rng = np.random.default_rng(7)
    w = rng.integers(-40, 41, X.p).astype(float)
    mg, eg = tune_psqt.tables_of(X, w)
    fitted = tune_psqt.terms_of(X, w)
    # only entries up to the largest index seen are written: the columns beyond take the last one
    for name in ("mobility", "passed"):
        for t in range(X.T):
            top = int(X.seen[name][t])
            for part in range(2):
                for n in range(max(top, 0) + 1, X.terms[name]):
                    w[X.col(name, part, t, n)] = w[X.col(name, part, t, top)] if top >= 0 else 0
    tune_psqt.write_tables(variant, mg, eg, ["test"], fitted)
    E._CACHE.clear()
    eng = Engine(hash_mb=1)
    kernel = np.array([(1 if Position(v, f).turn == 0 else -1) * eng.static_eval(Position(v, f)) for f in fens])
    assert np.abs(kernel - X.predict(w)).max() <= 2.0, (kernel, X.predict(w))
    for name in X.terms:  # each term on its own moves the evaluation
        only = np.zeros(X.p)
        o = X.offset(name)
        only[o:o + 2 * X.T * X.terms[name]] = w[o:o + 2 * X.T * X.terms[name]]
        assert np.abs(X.predict(only) - X.base).max() > 1, name
    # written twice, the file holds the sums (added to what was there)
    tune_psqt.write_tables(variant, np.zeros_like(mg), np.zeros_like(eg), ["test"], fitted)
    E._CACHE.clear()
    twice = np.array([(1 if Position(v, f).turn == 0 else -1) * eng.static_eval(Position(v, f)) for f in fens])
    only_terms = w.copy()
    only_terms[:2 * X.T * X.S] = 0
    assert np.abs(twice - X.predict(w + only_terms)).max() <= 4.0, (twice, X.predict(w + only_terms))


def test_an_unknown_term_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown terms \['king'\]"):
        tune_psqt.features("chess", FENS[:1], progress=False, terms=("mobility", "king"))


def test_a_term_the_weight_file_sets_is_not_written_beside_it(weights_dir, capsys) -> None:
    # chess.toml holds Stockfish's mobility tables: a mobility fit written to chess.psqt.toml
    # would stop the engine from loading chess, so --write refuses it before any labelling,
    # and write_tables refuses it too; the pair (not in chess.toml) may be written
    args = ["--variant", "chess", "--load", str(CHESS_LABELS), "--positions", "300", "--terms", "mobility,pair",
            "--write"]
    assert tune_psqt.main(args) == 1
    err = capsys.readouterr().err
    assert "pieces.N.mobility_table" in err and "pieces.Q.mobility_table_eg" in err and "pair" not in err, err
    assert not (weights_dir / "chess.psqt.toml").exists()
    assert tune_psqt.term_clashes("chess", terms=("pair", "file")) == []
    mg = np.zeros((6, 64), dtype=np.int64)
    with pytest.raises(ValueError, match=r"pieces\.B\.mobility_table already in the weight file"):
        tune_psqt.write_tables("chess", mg, mg, ["test"], {2: {"mobility_table": [1, 2]}})
    assert not (weights_dir / "chess.psqt.toml").exists()
    fen = "3rk1b1/8/8/8/8/8/1P6/3RKBB1 w - - 0 40"  # White has both bishops, Black one
    before = _static(fen)
    tune_psqt.write_tables("chess", mg, mg, ["test"], {2: {"pair": 7, "pair_eg": 7}})
    E._CACHE.clear()
    assert _static(fen) - before == 7


def test_pair_and_file_terms_in_a_weight_file(weights_dir) -> None:
    # White has both bishops, Black one; the white rook on the open d-file, the black one on a
    # file with only White's pawn (half-open for it)
    fen = "3rk1b1/8/8/8/8/8/1P6/3RKBB1 w - - 0 40"
    before = _static(fen)
    _write(weights_dir / "chess.psqt.toml", {"B": {"pair": 30, "pair_eg": 30},
                                             "R": {"open_file": 11, "open_file_eg": 11}})
    E._CACHE.clear()
    assert _static(fen) - before == 30  # both rooks on the open d-file: only the pair counts
    fen2 = "1r2k1b1/8/8/8/8/8/1P6/3RKBB1 w - - 0 40"  # Black's rook now on the b-file (White's pawn)
    E._CACHE.clear()
    with_terms = _static(fen2)
    (weights_dir / "chess.psqt.toml").write_text("[pieces.B]\npair = 30\n[pieces.R]\nopen_file = 11\n"
                                                 "half_open_file = 5\n")
    E._CACHE.clear()
    assert _static(fen2) - with_terms == -5  # Black's rook on a half-open file now earns 5
    (weights_dir / "chess.psqt.toml").write_text("[pieces.R]\npair = 1.5\n")
    E._CACHE.clear()
    with pytest.raises(ValueError, match=r"pieces\.R\.pair: expected an integer"):
        _static(fen)
    (weights_dir / "chess.psqt.toml").write_text("[pieces.N]\npassed_table = [1, 2]\n")
    E._CACHE.clear()
    with pytest.raises(ValueError, match=r"pieces\.N: passed_table is for pawn-like pieces"):
        _static(fen)


def test_the_mobility_fit_is_smooth_with_smoothing() -> None:
    X, w_true = _synthetic(500, 2)
    layout = {"mobility": 6}
    X = tune_psqt.Features(X.rows, X.cols, X.vals, X.base, X.n, X.T, X.S, X.files, X.ranks, False, layout,
                           {"mobility": np.array([-1, 5])})
    rng = np.random.default_rng(3)
    rows = list(X.rows)
    cols = list(X.cols)
    vals = list(X.vals)
    for i in range(X.n):  # one piece of type 1 with a random count per position
        n = int(rng.integers(0, 6))
        rows += [i, i]
        cols += [X.col("mobility", 0, 1, n), X.col("mobility", 1, 1, n)]
        vals += [0.5, 0.5]
    X = tune_psqt.Features(np.array(rows), np.array(cols), np.array(vals), X.base, X.n, X.T, X.S, X.files,
                           X.ranks, False, layout, X.seen)
    y = tune.win_prob(X.base, 1.0) * 0.9 + 0.05 * rng.random(X.n)
    rough = tune_psqt.fit_tables(X, y, 1.0, 1e-4)
    smooth = tune_psqt.fit_tables(X, y, 1.0, 1e-4, smooth=100.0)
    cols_t1 = [X.col("mobility", 0, 1, n) for n in range(6)]
    assert np.abs(np.diff(smooth[cols_t1])).sum() < np.abs(np.diff(rough[cols_t1])).sum() / 2


@pytest.mark.parametrize("variant", ["chess", "courier"])
def test_static_labels_are_fairy_stockfishs_evaluation_from_whites_side(variant) -> None:
    """--label-static: a side a rook up is scored so from White's side whoever is to move, the
    colour-mirrored position gets the opposite score, and a capture as best move drops the position."""
    if variant == "chess":
        up = "4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w - - 0 1"  # White a rook up
        mirrored = "r3k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 b - - 0 1"
        hanging = "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"  # Rxd5 wins the queen
    else:
        up = "5k6/1ppppp1pppp1/12/12/12/12/1PPPPP1PPPP1/R4K6 w - - 0 1"
        mirrored = "r4k6/1ppppp1pppp1/12/12/12/12/1PPPPP1PPPP1/5K6 b - - 0 1"
        hanging = "5k6/12/12/3r8/12/12/12/3R1K6 w - - 0 1"
    samples = [tune_psqt.Sample(f, 0.5, game=i) for i, f in enumerate([up, up.replace(" w ", " b "), mirrored, hanging])]
    out = tune_psqt.label_static(variant, samples, fairy_stockfish_path(), max_score=3000, wanted=10)
    by_fen = {s.fen: s for s in out}
    assert hanging not in by_fen  # its best move is a capture
    assert by_fen[up].score > 300 and by_fen[up.replace(" w ", " b ")].score > 300
    assert by_fen[mirrored].score < -300
    assert abs(by_fen[up].score + by_fen[mirrored].score) <= 60  # the same position but for colours and tempo
    for s in out:
        assert tune_psqt.quiet_move(Position(variant, s.fen), s.best)


def test_the_material_fit_recovers_tapered_values() -> None:
    from jitfish.bench.eval_compare import material_fit
    rng = np.random.default_rng(5)
    counts = rng.integers(-2, 3, size=(3000, 4)).astype(float)
    phase = rng.random(3000)
    mg, eg = np.array([100.0, 320, 330, 500]), np.array([130.0, 280, 300, 540])
    y = (counts * (mg * phase[:, None] + eg * (1 - phase)[:, None])).sum(axis=1) + 7 + rng.normal(0, 5, 3000)
    fmg, feg, r2 = material_fit(counts, phase, y)
    assert np.abs(fmg - mg).max() < 3 and np.abs(feg - eg).max() < 3 and r2 > 0.99


def test_eval_compare_prints_both_evaluations(capsys) -> None:
    """A small run on committed games against the installed fairy-stockfish."""
    from jitfish.bench import eval_compare
    pgn = str(tune_psqt.GAMES_DIR / "strength" / "s9_fsf_courier.pgn")
    assert eval_compare.main(["--variant", "courier", "--pgn", pgn, "--positions", "300", "--fsf",
                              fairy_stockfish_path()]) == 0
    out = capsys.readouterr().out
    corr = float(out.split("correlation ")[1].split()[0])
    assert 0.0 < corr <= 1.0
    rows = [line for line in out.splitlines() if line.strip().startswith(("fairy-stockfish, ", "jitfish, "))]
    assert len(rows) == 4
    # jitfish's own material fit must find its pawn worth something positive in the endgame
    assert float(rows[3].split()[2]) > 0


def test_the_term_fit_finds_a_missing_term() -> None:
    from jitfish.bench.eval_terms import term_fit
    rng = np.random.default_rng(7)
    terms = rng.normal(0, 1, size=(4000, 3))
    fsf = terms @ np.array([1.0, 1.0, 1.0]) + rng.normal(0, 0.05, 4000)
    jf = terms @ np.array([0.8, 0.0, 0.8]) + rng.normal(0, 0.05, 4000)  # the second term unknown
    r = term_fit(terms, fsf, jf)
    assert np.abs(r["fsf"] - 1.0).max() < 0.02
    assert abs(r["jitfish"][1]) < 0.02 and abs(r["jitfish"][0] - 0.8) < 0.02
    assert r["share"][1] > r["share"][0] and r["share"][1] > 0.5


def test_eval_terms_reads_fairy_stockfish_by_term(capsys) -> None:
    """A small run on committed games against the installed fairy-stockfish's eval table."""
    from jitfish.bench import eval_terms
    pgn = str(tune_psqt.GAMES_DIR / "strength" / "s9_fsf_chess.pgn")
    assert eval_terms.main(["--variant", "chess", "--pgn", pgn, "--positions", "200", "--fsf",
                            fairy_stockfish_path()]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert {"Material", "Mobility", "Threats", "Passed"} <= set(rows)
    # both evaluations pay for material
    assert float(rows["Material"][2]) > 0.5 and float(rows["Material"][3]) > 0.3


CHESS_LABELS = Path(__file__).resolve().parents[1] / "bench" / "positions" / "chess-psqt-s34.txt.gz"


def test_the_labels_of_chess_tables_are_kept_and_round_trip(tmp_path) -> None:
    """The labelled positions that chess.psqt.toml's last fit used are kept in the repository
    (gzip; ``--load`` reads them as they are), with the command that labelled them first; saved
    again, plain or compressed, they load back the same."""
    samples, labelled_by = tune_psqt.load_quiet(CHESS_LABELS, "chess", 1500)
    assert len(samples) == 24000 and "--label-depth 9" in labelled_by
    assert CHESS_LABELS.name in (E.WEIGHTS_DIR / "chess.psqt.toml").read_text().split("\n[", 1)[0]
    for name in ("again.txt", "again.txt.gz"):
        tune_psqt.save(tmp_path / name, samples, labelled_by)
        assert tune_psqt.load(tmp_path / name) == samples
    assert (tmp_path / "again.txt.gz").stat().st_size < (tmp_path / "again.txt").stat().st_size / 2
