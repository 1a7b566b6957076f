"""Train a variant's evaluation network (``eval/network.py``) on labelled positions.

    python -m jitfish.bench.train_nnue --variant chess --data chess.txt --hidden 64 --epochs 40 --seed 1 [--write]

1. Data: files of ``FEN;result;score;bestmove;game`` lines (``bench/nnue_data.py``, or
   ``bench/tune_psqt.py --save``); score in centipawns and result (1, 0.5, 0) from White's side.
   Positions whose best move is a capture, a promotion or a conversion are dropped (the static
   evaluation should not have to see them), and so are repeated FENs.  ``--all-positions`` keeps
   every distinct position (labels of a static evaluation, ``bench/distill_data.py``, whose lines
   carry jitfish's hand-written evaluation as a sixth field: the offset of ``--mode residual``);
   the features then come straight from the FEN (millions of lines in minutes).  A tenth of the
   games (by the seed) is held out.
2. Target, from the side to move: ``t = (1 - λ) * sigmoid(score) + λ * result`` with
   ``sigmoid(x) = 1 / (1 + 10 ** (-x / 400))`` and λ = ``--result-weight``.
3. Model: the network of ``eval/network.py`` in floating point, prediction ``sigmoid(K * (base +
   400 * y))`` (``base`` 0 for ``--mode pure``, the hand-written static evaluation for
   ``--mode residual``; K is 1 for a pure network and, for a residual one, fitted first on the
   offset alone as ``tune_psqt`` does, so that the network learns corrections in the hand-written
   evaluation's centipawns, not a change of scale); loss ``mean((prediction - t) ** 2)``; Adam (``--lr``, cosine decay to a
   tenth), ``--batch`` positions per step, weights initialised from the seed, the batches drawn
   from it.  Each epoch prints the training and held-out loss.
4. ``--write``: the weights are rounded to the file's integers and stored in
   ``eval/weights/<variant>.nnue.npz`` (``--out`` for another path) with the command, the data
   and the losses in its ``meta``; the kernel's evaluation is then checked against the numpy
   reference on held-out positions (they must agree exactly) and the loss of the rounded network
   is printed beside the float one.

numpy and numba: the accumulator is a sum of rows of the first layer, gathered (forward) and
scattered (gradient) by two numba kernels, the rest is numpy's BLAS; every number comes from
the command line.
"""
from __future__ import annotations

import argparse
import math
import random
import shlex
import sys
import time
from pathlib import Path

import numba as nb
import numpy as np
from tqdm import tqdm

from jitfish.engine import Engine
from jitfish.eval import cache_for, eval_of, eval_tables, pack_eval, static_eval
from jitfish.eval.network import OUT, QA, QB, Network, feature_table, read_network, reference_eval, write_network
from jitfish.eval import tables as evtables
from jitfish.eval.evaluate import fifty_scaled
from jitfish.eval.tables import WEIGHTS_DIR, network_file, without_network
from jitfish.movegen import Position, load_variant
from jitfish.movegen.position import _parse_placement
from jitfish.movegen import kernels as K
from jitfish.movegen.tables import CFG_FIFTY

from .tune import win_prob
from .tune_psqt import _fen_key, fit_k, load, quiet_move

__all__ = ["Dataset", "dataset", "Model", "train", "quantize", "main"]

LN10 = math.log(10.0)


class Dataset:
    """Positions as padded feature lists: ``fs``/``fn`` (n, P) the side to move's and the other
    side's inputs (``pad`` where there is no piece), ``score``/``result`` from the side to move,
    ``base`` the hand-written evaluation from the side to move (residual mode), ``game``."""

    def __init__(self, fs, fn, score, result, base, game, pad, fens, sides):
        self.fs, self.fn, self.score, self.result, self.base, self.game = fs, fn, score, result, base, game
        self.pad, self.fens, self.sides = pad, fens, sides

    def __len__(self) -> int:
        return len(self.score)

    def subset(self, idx: np.ndarray) -> "Dataset":
        return Dataset(self.fs[idx], self.fn[idx], self.score[idx], self.result[idx], self.base[idx],
                       self.game[idx], self.pad, [self.fens[i] for i in idx], self.sides[idx])


def dataset(variant: str, paths: list[Path], residual: bool, limit: int = 0, all_positions: bool = False) -> Dataset:
    """The quiet, distinct positions of the data files as features (see ``Dataset``).  With
    ``all_positions``: every distinct position, quiet or not (labels of a static evaluation,
    ``bench/distill_data.py``, whose best move is ``-``), its features straight from the FEN's
    board field without building a ``Position`` (some 30 times faster, for millions of lines)
    and a residual network's offset from the file's sixth field."""
    v = load_variant(variant)
    T, F, R = len(v.spec.pieces), v.files, v.ranks
    idx = feature_table(T, F, R)
    pad = 2 * T * F * R
    ev = without_network(eval_tables(v))
    cache = cache_for(None, ev)
    seen: set[str] = set()
    rows_s, rows_n, score, result, base, game, fens, sides = [], [], [], [], [], [], [], []
    offset = 0
    for path in paths:
        samples = load(path)
        top = max((s.game for s in samples), default=-1) + 1
        for s in tqdm(samples, desc=f"positions {path.name}", unit="pos", file=sys.stderr, mininterval=5):
            k = _fen_key(s.fen)
            if k in seen:
                continue
            if all_positions:
                fields = s.fen.split()
                placed = _parse_placement(fields[0], v.spec)
                sq = np.fromiter(placed.keys(), np.int64, len(placed))
                codes = np.fromiter((1 + 2 * t + c for t, c in placed.values()), np.int64, len(placed))
                us = 0 if fields[1] == "w" else 1
                if residual and s.hand is None:
                    raise ValueError(f"{path}: a residual network on every position needs the hand-written "
                                     f"evaluation as a sixth field (bench/distill_data.py writes it): {s.fen}")
                b = 0.0 if not residual else (s.hand if us == 0 else -s.hand)
            else:
                pos = Position(v, s.fen)
                if not quiet_move(pos, s.best):
                    continue
                board = pos.pos.board
                sq = np.flatnonzero(board)
                codes = board[sq]
                us = pos.turn
                b = float(static_eval(pack_eval(pos.pos, pos.tab, ev, cache))) if residual else 0.0
            seen.add(k)
            rows_s.append(idx[us, codes, sq])
            rows_n.append(idx[1 - us, codes, sq])
            score.append(s.score if us == 0 else -s.score)
            result.append(s.result if us == 0 else 1.0 - s.result)
            base.append(b)
            game.append(offset + s.game)
            fens.append(s.fen)
            sides.append(us)
            if limit and len(score) >= limit:
                break
        offset += top
        if limit and len(score) >= limit:
            break
    P = max(len(r) for r in rows_s)
    fs = np.full((len(rows_s), P), pad, np.int32)
    fn = np.full((len(rows_s), P), pad, np.int32)
    for i, (a, b) in enumerate(zip(rows_s, rows_n)):
        fs[i, :len(a)] = a
        fn[i, :len(b)] = b
    return Dataset(fs, fn, np.array(score, np.float32), np.array(result, np.float32), np.array(base, np.float32),
                   np.array(game), pad, fens, np.array(sides))


@nb.njit(parallel=True, cache=True)
def _gather(w1, f, b1):  # pragma: no cover -- numba
    """a[i] = b1 + sum of w1's rows f[i, :] (the pad row is zero)."""
    n, P = f.shape
    H = w1.shape[1]
    a = np.empty((n, H), np.float32)
    for i in nb.prange(n):
        for h in range(H):
            a[i, h] = b1[h]
        for j in range(P):
            r = f[i, j]
            for h in range(H):
                a[i, h] += w1[r, h]
    return a


@nb.njit(cache=True)
def _scatter(g, f, d):  # pragma: no cover -- numba
    """g[f[i, j]] += d[i] for every i, j (the gradient of ``_gather``)."""
    n, P = f.shape
    H = g.shape[1]
    for i in range(n):
        for j in range(P):
            r = f[i, j]
            for h in range(H):
                g[r, h] += d[i, h]


class Model:
    """The float network: w1 (inputs + 1 pad row, H), b1 (H,), w2 (2H,), b2.  The inputs are
    sparse (a few dozen pieces among thousands of features): the accumulator is a sum of rows of
    w1, gathered and scattered by two numba kernels."""

    def __init__(self, n_in: int, hidden: int, rng: np.random.Generator):
        self.w1 = (rng.standard_normal((n_in + 1, hidden)) * 0.05).astype(np.float32)
        self.w1[n_in] = 0.0
        self.b1 = np.full(hidden, 0.3, np.float32)
        self.w2 = (rng.standard_normal(2 * hidden) * (1.0 / math.sqrt(hidden))).astype(np.float32)
        self.b2 = np.float32(0.0)
        self.n_in = n_in

    def params(self):
        return [self.w1, self.b1, self.w2]

    def forward(self, fs, fn):
        fs, fn = np.ascontiguousarray(fs), np.ascontiguousarray(fn)
        a_s = _gather(self.w1, fs, self.b1)
        a_n = _gather(self.w1, fn, self.b1)
        H = self.b1.shape[0]
        hs, hn = np.clip(a_s, 0, 1), np.clip(a_n, 0, 1)
        y = hs @ self.w2[:H] + hn @ self.w2[H:] + self.b2
        return y, (fs, fn, a_s, a_n, hs, hn)

    def backward(self, dy, cache):
        fs, fn, a_s, a_n, hs, hn = cache
        H = self.b1.shape[0]
        g_w2 = np.concatenate([hs.T @ dy, hn.T @ dy])
        g_b2 = dy.sum()
        d_s = (np.outer(dy, self.w2[:H]) * ((a_s > 0) & (a_s < 1))).astype(np.float32)
        d_n = (np.outer(dy, self.w2[H:]) * ((a_n > 0) & (a_n < 1))).astype(np.float32)
        g_w1 = np.zeros_like(self.w1)
        _scatter(g_w1, fs, d_s)
        _scatter(g_w1, fn, d_n)
        g_w1[self.n_in] = 0.0
        g_b1 = d_s.sum(axis=0) + d_n.sum(axis=0)
        return [g_w1, g_b1, g_w2], g_b2


def _sig(x, k: float = 1.0):
    return win_prob(x, k)


def targets(ds: Dataset, result_weight: float) -> np.ndarray:
    return (1 - result_weight) * _sig(ds.score) + result_weight * ds.result


def loss_of(model: Model, ds: Dataset, t: np.ndarray, batch: int = 16384, k: float = 1.0) -> float:
    total = 0.0
    for i in range(0, len(ds), batch):
        y, _ = model.forward(ds.fs[i:i + batch], ds.fn[i:i + batch])
        p = _sig(ds.base[i:i + batch] + OUT * y, k)
        total += float(((p - t[i:i + batch]) ** 2).sum())
    return total / max(1, len(ds))


def train(model: Model, tr: Dataset, te: Dataset, result_weight: float, epochs: int, batch: int, lr: float,
          rng: np.random.Generator, log=print, decay: float = 0.0, k: float = 1.0) -> list[tuple[float, float]]:
    """Adam on the squared error of the expected score, with decoupled weight decay ``decay``
    (AdamW: each step shrinks w1 and w2 by ``rate * decay``); [(train loss, held-out loss)] per
    epoch.  The model ends with the weights of the epoch of the least held-out loss.  ``k``
    scales the prediction before the sigmoid (Texel's K: the labels' centipawns against the
    evaluation's)."""
    t_tr, t_te = targets(tr, result_weight), targets(te, result_weight)
    params = model.params()
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    mb = vb = 0.0
    b1, b2, eps = 0.9, 0.999, 1e-8
    steps_per = max(1, len(tr) // batch)
    total = epochs * steps_per
    step = 0
    history = []
    for ep in range(epochs):
        order = rng.permutation(len(tr))
        for j in range(steps_per):
            sel = order[j * batch:(j + 1) * batch]
            y, cache = model.forward(tr.fs[sel], tr.fn[sel])
            p = _sig(tr.base[sel] + OUT * y, k)
            dy = (2.0 * (p - t_tr[sel]) * p * (1 - p) * k * OUT * LN10 / 400.0 / len(sel)).astype(np.float32)
            grads, g_b2 = model.backward(dy, cache)
            step += 1
            rate = lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / total)))
            for i, (prm, g) in enumerate(zip(params, grads)):
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                mh = m[i] / (1 - b1 ** step)
                vh = v[i] / (1 - b2 ** step)
                prm -= (rate * mh / (np.sqrt(vh) + eps)).astype(np.float32)
                if decay and i != 1:
                    prm -= (rate * decay * prm).astype(np.float32)
            mb = b1 * mb + (1 - b1) * g_b2
            vb = b2 * vb + (1 - b2) * g_b2 * g_b2
            model.b2 = np.float32(model.b2 - rate * (mb / (1 - b1 ** step)) / (math.sqrt(vb / (1 - b2 ** step)) + eps))
        history.append((loss_of(model, tr, t_tr, k=k), loss_of(model, te, t_te, k=k)))
        log(f"epoch {ep + 1}/{epochs}: train {history[-1][0]:.5f}, held out {history[-1][1]:.5f}")
        if history[-1][1] <= min(h for _t, h in history):
            best = [p.copy() for p in params] + [model.b2]
    if history:
        model.w1[...], model.b1[...], model.w2[...] = best[:3]
        model.b2 = best[3]
    return history


def quantize(model: Model, meta: dict) -> Network:
    """The file's integers (see ``eval/network.py``)."""
    w1 = np.clip(np.rint(model.w1[:model.n_in] * QA), -32767, 32767).astype(np.int64)
    b1 = np.clip(np.rint(model.b1 * QA), -32767, 32767).astype(np.int64)
    w2 = np.clip(np.rint(model.w2 * QB), -32767, 32767).astype(np.int64)
    b2 = int(round(float(model.b2) * QA * QB))
    return Network(w1, b1, w2, b2, meta)


def _qloss(net: Network, ds: Dataset, t: np.ndarray, k: float = 1.0, batch: int = 16384) -> float:
    """The loss of the rounded network (integer arithmetic as the kernel's), in batches."""
    w1 = np.vstack([net.w1, np.zeros((1, net.hidden), np.int64)]).astype(np.float32)  # exact: |sums| < 2**24
    b1 = net.b1.astype(np.float32)
    H = net.hidden
    q = QA * QB
    total = 0.0
    for i in range(0, len(ds), batch):
        fs, fn = np.ascontiguousarray(ds.fs[i:i + batch]), np.ascontiguousarray(ds.fn[i:i + batch])
        a_s = np.clip(np.rint(_gather(w1, fs, b1)).astype(np.int64), 0, QA)
        a_n = np.clip(np.rint(_gather(w1, fn, b1)).astype(np.int64), 0, QA)
        raw = a_s @ net.w2[:H] + a_n @ net.w2[H:] + net.b2
        cp = np.where(raw >= 0, raw * OUT // q, -((-raw * OUT) // q))
        total += float(((_sig(ds.base[i:i + batch] + cp, k) - t[i:i + batch]) ** 2).sum())
    return total / max(1, len(ds))


def check_kernel(variant: str, fens: list[str], limit: int = 300) -> int:
    """Kernel against the numpy reference (and accumulator updated move by move against one
    recomputed) on up to ``limit`` positions and a few moves from each; returns the positions
    checked; AssertionError on a difference."""
    v = load_variant(variant)
    evtables._CACHE.clear()  # built without the network before it was written
    ev = eval_tables(v)
    assert ev.params[evtables.P_NN_MODE] != 0, "the network was not loaded"
    idx = feature_table(len(v.spec.pieces), v.files, v.ranks)
    net = read_network(network_file(v.spec), v.spec.letters, v.files, v.ranks)
    eng = Engine(hash_mb=1)
    hand = without_network(ev)
    n = 0
    rng = random.Random(1)
    for fen in fens[:limit]:
        pos = Position(v, fen)
        for _ in range(4):
            want = reference_eval(net, pos.pos.board, pos.turn, idx)
            if net.mode == "residual":
                # the hand-written part before the 50-move scaling (which the kernel applies to the sum)
                half = int(pos.pos.st[K.ST_HALF])
                pos.pos.st[K.ST_HALF] = 0
                want += eval_of(pos.pos, pos.tab, hand)
                pos.pos.st[K.ST_HALF] = half
            got = eng.static_eval(pos)
            want = fifty_scaled(want, int(pos.pos.st[K.ST_HALF]), int(v.tables.cfg[CFG_FIFTY]))
            assert got == want, f"{fen}: kernel {got}, reference {want}"
            n += 1
            moves = pos.legal_moves()
            if not moves:
                break
            pos.push(rng.choice(moves))
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.train_nnue", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--data", nargs="+", required=True, type=Path, help="labelled position files")
    ap.add_argument("--limit", type=int, default=0, help="use at most this many positions (0: all)")
    ap.add_argument("--mode", choices=("pure", "residual"), default="pure")
    ap.add_argument("--all-positions", action="store_true",
                    help="keep every position, not only those whose best move is quiet (static labels: bench/distill_data.py)")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=8192)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--result-weight", type=float, default=0.2, help="share of the game result in the target")
    ap.add_argument("--decay", type=float, default=0.0, help="decoupled weight decay (AdamW) of w1 and w2")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", action="store_true", help="store the network for the variant")
    ap.add_argument("--out", type=Path, help="where to store it (default eval/weights/<variant>.nnue.npz)")
    a = ap.parse_args(argv)
    t0 = time.time()
    v = load_variant(a.variant)
    ds = dataset(a.variant, a.data, a.mode == "residual", a.limit, a.all_positions)
    games = np.unique(ds.game)
    rs = random.Random(a.seed)
    held = set(rs.sample(list(games), max(1, len(games) // 10)))
    te_mask = np.array([g in held for g in ds.game])
    tr, te = ds.subset(np.flatnonzero(~te_mask)), ds.subset(np.flatnonzero(te_mask))
    print(f"{len(ds)} quiet positions from {len(games)} games ({len(te)} held out from {len(held)} games); "
          f"{ds.pad} inputs, {a.hidden} hidden, mode {a.mode}", file=sys.stderr)
    rng = np.random.default_rng(a.seed)
    model = Model(ds.pad, a.hidden, rng)
    t_te = targets(te, a.result_weight)
    k = fit_k(tr.base, targets(tr, a.result_weight)) if a.mode == "residual" else 1.0
    start = loss_of(model, te, t_te, k=k)
    base_loss = float(((_sig(te.base, k) - t_te) ** 2).mean())
    print(f"K = {k:.3f}; held-out loss of the offset alone (base): {base_loss:.5f}; untrained network "
          f"{start:.5f}", file=sys.stderr)
    hist = train(model, tr, te, a.result_weight, a.epochs, a.batch, a.lr, rng,
                 log=lambda s: print(s, file=sys.stderr), decay=a.decay, k=k)
    best = min(range(len(hist)), key=lambda i: hist[i][1]) if hist else 0
    hist = hist[:best + 1] or [(start, start)]
    y, _ = model.forward(te.fs, te.fn)
    print(f"kept epoch {best + 1}; network output on held-out positions: mean |{OUT} y| = "
          f"{float(np.abs(OUT * y).mean()):.1f} cp", file=sys.stderr)
    command = " ".join(shlex.quote(x) for x in ["python", "-m", "jitfish.bench.train_nnue"]
                       + (argv if argv is not None else sys.argv[1:]))
    meta = {"variant": v.spec.name, "letters": v.spec.letters, "files": v.files, "ranks": v.ranks,
            "mode": a.mode, "hidden": a.hidden, "command": command, "positions": len(ds),
            "data": [p.name for p in a.data], "loss_train": hist[-1][0], "loss_held_out": hist[-1][1],
            "loss_held_out_base": base_loss, "k": k}
    net = quantize(model, meta)
    ql = _qloss(net, te, t_te, k)
    print(f"held out: float {hist[-1][1]:.5f}, rounded {ql:.5f}; {time.time() - t0:.0f} s", file=sys.stderr)
    if a.write:
        out = a.out or network_file(v.spec)
        if a.out is None and not str(out).startswith(str(WEIGHTS_DIR)):
            out = WEIGHTS_DIR / f"{v.spec.name}.nnue.npz"
        write_network(out, net)
        print(f"wrote {out} ({out.stat().st_size // 1024} KB)", file=sys.stderr)
        if a.out is None:
            n = check_kernel(a.variant, te.fens)
            print(f"kernel = numpy reference on {n} positions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
