"""Per-variant evaluation weights (data) -> the arrays the search kernel reads.

Weights live in ``eval/weights/<variant>.toml`` (``inherits = "other"`` to start from another
file).  The evaluation is tapered: every square term has a middlegame and an endgame value,
blended by the game phase (the non-pawn, non-royal material left on the board, against the
start position's).  Keys:

- ``tempo``: bonus for the side to move.
- ``[pieces.X]``:
  ``value`` (material), ``centre`` (per step nearer the board's centre, Chebyshev distance),
  ``advance`` (per rank beyond the piece's own second rank); ``value_eg``, ``centre_eg``,
  ``advance_eg`` are their endgame values (each defaults to its middlegame value);
  ``mobility`` (per square the piece can move to or capture on, own pieces excluded);
  ``king_attack`` (per square next to the enemy royal piece that this piece attacks);
  ``passed`` (pawn-like pieces only: a pawn with no enemy pawn-like piece ahead of it on its
  own or a neighbouring file earns ``passed * n * (n + 1) / 2`` in the endgame, n = ranks
  advanced beyond its second rank; half of it in the middlegame).
- ``safety_piece``, ``safety_penalty``: each piece of that type standing attacked by the enemy
  costs the penalty (Aces in Cows and Butterflies).  In variants with conversion (Cleopatra),
  where only the piece that moves converts, the test is instead whether an enemy converting
  piece can move to a square from which it attacks the piece (the King one move from
  conversion).
- ``pawn_shield``: per own pawn-like piece on the three squares in front of the royal piece
  (middlegame only).
- ``king_danger``: scale (per 256) of the summed ``king_attack`` units, which grow with the
  number of attackers as in Fruit (two attackers count half, three 3/4, ...); middlegame only.
- ``mopup``: in the endgame, when one side is ahead by at least ``mopup_margin`` material and
  the other has no pawn-like piece left, the stronger side earns ``mopup`` per step the weak
  royal piece stands from the centre and per step the two royal pieces are closer together
  (how mates and bare kings are forced).

The evaluation is also scaled down as the 50-move counter runs (``x (2F - halfmoves) / 2F``
with F the variant's limit), so a side that is ahead prefers moves that make progress.

Layout handed to the kernel (``EvalTables``):

==========  ==================  ==============================================================
array       shape, dtype        meaning
==========  ==================  ==============================================================
psq         (2T + 2, 128) int64 middlegame value of piece code on square, White's side
psq_eg      (2T + 2, 128) int64 endgame value, the same way
passed      (2T + 2, 128) int64 passed-pawn bonus (endgame; middlegame uses half), signed
value       (T,) int64          material, for move ordering and the phase
mobility    (T,) int64          weight per target square
katt        (T,) int64          king-attack units per attacked square next to the enemy king
phase_w     (T,) int64          material counted in the phase (0 for pawns and the royal)
front       (2, 128, 2) uint64  squares ahead on the same and neighbouring files (passed test)
zone        (128, 2) uint64     the squares one king step from a square
shield      (2, 128, 2) uint64  the three squares in front of a square
near        (128,) int64        steps from the board's edge ring towards the centre
params      (16,) int64         P_* slots below
==========  ==================  ==============================================================
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from jitfish.movegen.position import Variant
from jitfish.movegen.tables import CFG_ROYAL, set_bit

__all__ = ["EvalTables", "EVAL_KINDS", "eval_tables", "WEIGHTS_DIR"]

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
(P_TEMPO, P_SAFETY_TYPE, P_SAFETY_PENALTY, P_PHASE_TOTAL, P_SHIELD, P_KING_DANGER,
 P_MOPUP, P_MOPUP_MARGIN) = range(8)

PIECE_KEYS = {"value", "centre", "advance", "value_eg", "centre_eg", "advance_eg", "mobility",
              "king_attack", "passed"}
TOP_KEYS = {"tempo", "safety_piece", "safety_penalty", "pawn_shield", "king_danger", "mopup",
            "mopup_margin", "pieces"}


class EvalTables(NamedTuple):
    psq: np.ndarray
    psq_eg: np.ndarray
    passed: np.ndarray
    value: np.ndarray
    mobility: np.ndarray
    katt: np.ndarray
    phase_w: np.ndarray
    front: np.ndarray
    zone: np.ndarray
    shield: np.ndarray
    near: np.ndarray
    params: np.ndarray


EVAL_KINDS = "i2 i2 i2 i1 i1 i1 i1 u3 u2 u3 i1 i1"  # dtype and dimensions of each array above (search bundle)


def _weights(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    path = WEIGHTS_DIR / f"{name}.toml"
    if not path.exists():
        raise ValueError(f"no evaluation weights for {name!r} (expected {path})")
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    parent = data.pop("inherits", "")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    if parent:
        if parent in seen:
            raise ValueError(f"{path.name}: inherits forms a cycle")
        base = _weights(parent, seen + (name,))
        pieces = {k: dict(v) for k, v in base.get("pieces", {}).items()}
        for k, v in data.get("pieces", {}).items():
            pieces.setdefault(k, {}).update(v)
        base.update({k: v for k, v in data.items() if k != "pieces"})
        base["pieces"] = pieces
        return base
    return data


_CACHE: dict[str, EvalTables] = {}


def eval_tables(variant: Variant) -> EvalTables:
    """The evaluation arrays of a variant (built once per variant and process)."""
    if variant.spec.source not in _CACHE:
        _CACHE[variant.spec.source] = _build(variant)
    return _CACHE[variant.spec.source]


def _build(variant: Variant) -> EvalTables:
    spec = variant.spec
    tab = variant.tables
    w = _weights(spec.name)
    F, R = spec.files, spec.ranks
    T = len(spec.pieces)
    psq = np.zeros((2 * T + 2, 128), np.int64)
    psq_eg = np.zeros((2 * T + 2, 128), np.int64)
    passed = np.zeros((2 * T + 2, 128), np.int64)
    value = np.zeros(T, np.int64)
    mobility = np.zeros(T, np.int64)
    katt = np.zeros(T, np.int64)
    phase_w = np.zeros(T, np.int64)
    cx, cy = (F - 1) / 2, (R - 1) / 2
    far = max(cx, cy)
    royal = int(tab.cfg[CFG_ROYAL])
    for t, p in enumerate(spec.pieces):
        pw = w.get("pieces", {}).get(p.letter)
        if pw is None:
            raise ValueError(f"weights for {spec.name}: no entry for piece {p.letter}")
        unknown = set(pw) - PIECE_KEYS
        if unknown:
            raise ValueError(f"weights for {spec.name}: pieces.{p.letter}: unknown keys {sorted(unknown)}")
        if pw.get("passed") and not tab.pawnlike[t]:
            raise ValueError(f"weights for {spec.name}: pieces.{p.letter}: passed is for pawn-like pieces")
        value[t] = int(pw.get("value", 0))
        mobility[t] = int(pw.get("mobility", 0))
        katt[t] = int(pw.get("king_attack", 0))
        if not tab.pawnlike[t] and t != royal:
            phase_w[t] = value[t]
        for s in range(F * R):
            f, r = s % F, s // F
            near = far - max(abs(f - cx), abs(r - cy))
            for c in (0, 1):
                sign = 1 if c == 0 else -1
                rel = max(0, (r if c == 0 else R - 1 - r) - 1)
                mg = pw.get("value", 0) + pw.get("centre", 0) * near + pw.get("advance", 0) * rel
                eg = (pw.get("value_eg", pw.get("value", 0)) + pw.get("centre_eg", pw.get("centre", 0)) * near
                      + pw.get("advance_eg", pw.get("advance", 0)) * rel)
                psq[1 + 2 * t + c, s] = int(round(mg)) * sign
                psq_eg[1 + 2 * t + c, s] = int(round(eg)) * sign
                passed[1 + 2 * t + c, s] = int(pw.get("passed", 0)) * rel * (rel + 1) // 2 * sign
    front = np.zeros((2, 128, 2), np.uint64)
    zone = np.zeros((128, 2), np.uint64)
    shield = np.zeros((2, 128, 2), np.uint64)
    near_t = np.zeros(128, np.int64)
    for s in range(F * R):
        f, r = s % F, s // F
        near_t[s] = min(f, F - 1 - f, r, R - 1 - r)
        for df in (-1, 0, 1):
            if not 0 <= f + df < F:
                continue
            for dr in (-1, 0, 1):
                if 0 <= r + dr < R:
                    set_bit(zone[s], (r + dr) * F + f + df)
            for c, d in ((0, 1), (1, -1)):
                if 0 <= r + d < R:
                    set_bit(shield[c, s], (r + d) * F + f + df)
                rr = r + d
                while 0 <= rr < R:
                    set_bit(front[c, s], rr * F + f + df)
                    rr += d
    params = np.zeros(16, np.int64)
    params[P_TEMPO] = int(w.get("tempo", 0))
    sp = w.get("safety_piece", "")
    params[P_SAFETY_TYPE] = spec.letters.index(sp) if sp else -1
    params[P_SAFETY_PENALTY] = int(w.get("safety_penalty", 0))
    params[P_PHASE_TOTAL] = max(1, int((tab.start_count.sum(axis=0) * phase_w).sum()))
    params[P_SHIELD] = int(w.get("pawn_shield", 0))
    params[P_KING_DANGER] = int(w.get("king_danger", 0))
    params[P_MOPUP] = int(w.get("mopup", 0))
    params[P_MOPUP_MARGIN] = int(w.get("mopup_margin", 300))
    return EvalTables(psq, psq_eg, passed, value, mobility, katt, phase_w, front, zone, shield,
                      near_t, params)

