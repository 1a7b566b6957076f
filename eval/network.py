"""The evaluation network (NNUE-style): file format, feature indices, the numpy reference and
the numba kernels of the accumulator.

A network belongs to one variant and lives beside its weights, ``eval/weights/<variant>.nnue.npz``
(``python -m jitfish.bench.train_nnue`` writes it); a variant without one keeps the hand-written
evaluation.

Architecture (``H`` hidden units, ``T`` piece types, ``S = files * ranks`` squares)::

    inputs     2 * T * S per perspective: (own or enemy piece, type, square as the
               perspective's side sees it: Black's squares mirrored top to bottom)
    accumulator  a[p] = b1 + sum of w1[feature] over the pieces, one per perspective p
               (White's and Black's), kept up to date move by move (below)
    output     cp = OUT * (w2[:H] . clip(a[us], 0, QA) + w2[H:] . clip(a[them], 0, QA) + b2)
               / (QA * QB)        -- from the side to move ``us``

All numbers in the file are integers (``w1``, ``b1`` scaled by ``QA``, ``w2`` by ``QB``, ``b2`` by
``QA * QB``), so the accumulator updated move by move equals the one recomputed from the board
exactly, whatever the path.  ``mode`` is ``pure`` (the network is the evaluation) or ``residual``
(it is added to the hand-written evaluation it was trained on top of).

The accumulator.  ``make_move`` records what it changed on the board (``Pos.dirty``, one row per
ply in a ring of 256).  The evaluation cache holds an accumulator per ring slot with the Zobrist
key of the position it belongs to.  To evaluate at ply p the kernel looks back from p for the
nearest ply whose slot still holds that ply's key (at most ``WALK`` plies, none across a row
that overflowed) and replays the recorded changes forward from there, stamping each slot on
the way; when none is found it recomputes the accumulator from the board.  Nothing is done in
unmake: the slots of the plies left behind keep their keys and are found again.

File (``numpy.savez``): ``w1`` (2TS, H) int16, ``b1`` (H,) int16, ``w2`` (2H,) int16, ``b2`` (1,)
int64 and ``meta``, a JSON text: variant, files, ranks, piece letters, mode, hidden, and how the
network was trained (command, data, loss).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jitfish.movegen import kernels as K
from jitfish.movegen._jit import helper, lsb

__all__ = ["QA", "QB", "OUT", "WALK", "MODES", "Network", "read_network", "write_network", "feature_table",
           "position_features", "reference_eval", "nn_accumulator", "nn_output", "nn_refresh"]

QA = 255  # activation scale: the clipped ReLU runs from 0 to QA
QB = 64  # output weight scale
OUT = 400  # centipawns per unit of the network's output
WALK = 16  # plies the accumulator looks back for a slot to update from
MODES = {"pure": 1, "residual": 2}


@dataclass
class Network:
    """A variant's network as integers (see the module's docstring)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: int
    meta: dict[str, Any]

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])

    @property
    def mode(self) -> str:
        return str(self.meta.get("mode", "pure"))


def write_network(path: Path, net: Network) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, w1=net.w1.astype(np.int16), b1=net.b1.astype(np.int16), w2=net.w2.astype(np.int16),
                 b2=np.array([int(net.b2)], np.int64), meta=np.array(json.dumps(net.meta, sort_keys=True)))


def read_network(path: Path, letters: str, files: int, ranks: int) -> Network:
    """A network file, checked against the variant's pieces and board (ValueError naming the
    file and what does not fit)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            w1, b1, w2, b2, meta = (z[k] for k in ("w1", "b1", "w2", "b2", "meta"))
            meta = json.loads(str(meta))
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{path.name}: not a network file ({exc})") from None
    T, S = len(letters), files * ranks
    if meta.get("letters") != letters or meta.get("files") != files or meta.get("ranks") != ranks:
        raise ValueError(f"{path.name}: made for pieces {meta.get('letters')!r} on {meta.get('files')}x"
                         f"{meta.get('ranks')}, the variant has {letters!r} on {files}x{ranks}")
    H = b1.shape[0] if b1.ndim == 1 else -1
    if H < 1 or w1.shape != (2 * T * S, H) or w2.shape != (2 * H,) or b2.shape != (1,):
        raise ValueError(f"{path.name}: array shapes w1 {w1.shape}, b1 {b1.shape}, w2 {w2.shape} do not fit "
                         f"{2 * T * S} inputs")
    if meta.get("mode", "pure") not in MODES:
        raise ValueError(f"{path.name}: mode {meta.get('mode')!r} is not one of {sorted(MODES)}")
    return Network(w1.astype(np.int64), b1.astype(np.int64), w2.astype(np.int64), int(b2[0]), meta)


def feature_table(T: int, files: int, ranks: int) -> np.ndarray:
    """idx[p, code, sq]: the input of piece ``code`` (1 + 2 * type + colour) on ``sq`` for
    perspective p (0 White, 1 Black); -1 for code 0 and squares off the board."""
    S = files * ranks
    idx = np.full((2, 2 * T + 2, 128), -1, np.int64)
    for p in (0, 1):
        for t in range(T):
            for c in (0, 1):
                rel = 0 if c == p else 1
                for sq in range(S):
                    f, r = sq % files, sq // files
                    own = sq if p == 0 else (ranks - 1 - r) * files + f
                    idx[p, 1 + 2 * t + c, sq] = (rel * T + t) * S + own
    return idx


def position_features(board: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The active inputs of a board (``Pos.board``) for White's and Black's perspective."""
    sq = np.flatnonzero(board)
    codes = board[sq]
    return idx[0, codes, sq], idx[1, codes, sq]


def reference_eval(net: Network, board: np.ndarray, side: int, idx: np.ndarray) -> int:
    """The network's output in centipawns from the side to move, in numpy (what the kernel must
    give, for the tests)."""
    fw, fb = position_features(board, idx)
    acc = [net.b1 + net.w1[fw].sum(axis=0), net.b1 + net.w1[fb].sum(axis=0)]
    H = net.hidden
    a = np.clip(acc[side], 0, QA)
    b = np.clip(acc[1 - side], 0, QA)
    out = int(net.w2[:H] @ a + net.w2[H:] @ b + net.b2)
    q = QA * QB
    return out * OUT // q if out >= 0 else -((-out * OUT) // q)


# ---------------------------------------------------------------------------------------------
# kernels (called from ``evaluate``; ``pos`` a Pos, ``ev`` EvalTables, ``cache`` EvalCache)

@helper
def nn_refresh(pos, ev, acc):
    """acc[p] = b1 + the inputs of every piece on the board."""
    H = ev.nn_b1.shape[0]
    for p in range(2):
        for j in range(H):
            acc[p, j] = ev.nn_b1[j]
    bb = pos.bb
    for w in range(2):
        b = bb[0, w] | bb[1, w]
        while b:
            sq = lsb(b) + 64 * w
            b &= b - K.ONE
            code = pos.board[sq]
            for p in range(2):
                f = ev.nn_idx[p, code, sq]
                for j in range(H):
                    acc[p, j] += ev.nn_w1[f, j]


@helper
def nn_replay(ev, row, src, dst):
    """dst = src with the board changes of one dirty row applied."""
    H = ev.nn_b1.shape[0]
    for p in range(2):
        for j in range(H):
            dst[p, j] = src[p, j]
    for k in range(row[0]):
        e = row[1 + k]
        a = e if e >= 0 else -e
        code = a >> 8
        sq = a & 255
        for p in range(2):
            f = ev.nn_idx[p, code, sq]
            if e >= 0:
                for j in range(H):
                    dst[p, j] += ev.nn_w1[f, j]
            else:
                for j in range(H):
                    dst[p, j] -= ev.nn_w1[f, j]


@helper
def nn_accumulator(pos, ev, cache):
    """The ring slot whose accumulator is the current position's (brought up to date)."""
    ply = pos.st[K.ST_PLY]
    mask = K.DIRTY_RING - 1
    slot = ply & mask
    key = pos.keys[ply]
    if cache.acc_key[slot] == key:
        return slot
    found = -1
    q = ply - 1
    lim = max(0, ply - WALK)
    while q >= lim:
        r = q & mask
        if pos.dirty[r, 0] < 0:
            break
        if cache.acc_key[r] == pos.keys[q]:
            found = q
            break
        q -= 1
    if found < 0:
        nn_refresh(pos, ev, cache.acc[slot])
    else:
        for q in range(found, ply):
            nn_replay(ev, pos.dirty[q & mask], cache.acc[q & mask], cache.acc[(q + 1) & mask])
            cache.acc_key[(q + 1) & mask] = pos.keys[q + 1]
    cache.acc_key[slot] = key
    return slot


@helper
def nn_output(ev, acc, us, b2):
    """The network's output in centipawns from side ``us`` (see the module's docstring)."""
    H = ev.nn_b1.shape[0]
    out = b2
    for j in range(H):
        a = acc[us, j]
        if a > 0:
            out += ev.nn_w2[j] * (a if a < QA else QA)
        b = acc[1 - us, j]
        if b > 0:
            out += ev.nn_w2[H + j] * (b if b < QA else QA)
    q = QA * QB
    return out * OUT // q if out >= 0 else -((-out * OUT) // q)
