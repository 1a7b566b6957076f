"""Per-variant evaluation weights (data) -> the arrays the search kernel reads.

Weights live in ``eval/weights/<variant>.toml`` (``inherits = "other"`` to start from another
file).  Keys:

- ``tempo``: bonus for the side to move.
- ``[pieces.X]`` with ``value`` (material), ``centre`` (per step nearer the board's centre,
  Chebyshev distance), ``advance`` (per rank beyond the piece's own second rank),
  ``mobility`` (per square the piece can move to or capture on, own pieces excluded).
- ``safety_piece``, ``safety_penalty``: each piece of that type standing attacked by the enemy
  costs the penalty (Aces in Cows and Butterflies, the King under a Cleopatra's eye).

Layout handed to the kernel (``EvalTables``): ``psq`` (2T + 2, 128) int64, the value of piece
code on square from White's side (Black's entries negative), ``value`` (T,) int64 material for
move ordering, ``mobility`` (T,) int64 weight per target square, ``params`` (8,) int64:
``[tempo, safety_type or -1, safety_penalty, ...]``.
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from jitfish.movegen.position import Variant

__all__ = ["EvalTables", "eval_tables", "WEIGHTS_DIR"]

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
P_TEMPO, P_SAFETY_TYPE, P_SAFETY_PENALTY = 0, 1, 2


class EvalTables(NamedTuple):
    psq: np.ndarray
    value: np.ndarray
    mobility: np.ndarray
    params: np.ndarray


def _weights(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    path = WEIGHTS_DIR / f"{name}.toml"
    if not path.exists():
        raise ValueError(f"no evaluation weights for {name!r} (expected {path})")
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    parent = data.pop("inherits", "")
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
    w = _weights(spec.name)
    F, R = spec.files, spec.ranks
    T = len(spec.pieces)
    psq = np.zeros((2 * T + 2, 128), np.int64)
    value = np.zeros(T, np.int64)
    mobility = np.zeros(T, np.int64)
    cx, cy = (F - 1) / 2, (R - 1) / 2
    far = max(cx, cy)
    for t, p in enumerate(spec.pieces):
        pw = w.get("pieces", {}).get(p.letter)
        if pw is None:
            raise ValueError(f"weights for {spec.name}: no entry for piece {p.letter}")
        unknown = set(pw) - {"value", "centre", "advance", "mobility"}
        if unknown:
            raise ValueError(f"weights for {spec.name}: pieces.{p.letter}: unknown keys {sorted(unknown)}")
        value[t] = int(pw.get("value", 0))
        mobility[t] = int(pw.get("mobility", 0))
        for s in range(F * R):
            f, r = s % F, s // F
            near = far - max(abs(f - cx), abs(r - cy))
            for c in (0, 1):
                rel = r if c == 0 else R - 1 - r
                v = value[t] + pw.get("centre", 0) * near + pw.get("advance", 0) * max(0, rel - 1)
                psq[1 + 2 * t + c, s] = int(round(v)) * (1 if c == 0 else -1)
    params = np.zeros(8, np.int64)
    params[P_TEMPO] = int(w.get("tempo", 0))
    sp = w.get("safety_piece", "")
    params[P_SAFETY_TYPE] = spec.letters.index(sp) if sp else -1
    params[P_SAFETY_PENALTY] = int(w.get("safety_penalty", 0))
    return EvalTables(psq, value, mobility, params)
