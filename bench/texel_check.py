"""A weight change screened before a match: the Texel error of the evaluation on labelled
positions, for the weights as they are and with each candidate change.

    python -m jitfish.bench.texel_check --variant chess --load chess-n4000.txt --positions 20000 \\
        --set tempo=20 --set king_danger=1536,hanging=45 --set pieces.N.mobility=6

The positions are a ``tune_psqt --save`` or ``nnue_data`` file, filtered as ``tune_psqt --load``
filters them (a quiet best move, ``|score| <= --max-score``), the first ``--positions`` of them.
The label is ``(1 - w) * sigmoid(score) + w * result`` (``--result-weight`` w), as in tune_psqt;
K is fitted once on today's weights (tune.py's grid) and kept for every candidate, so the
errors compare.  Each ``--set`` is one candidate: comma-separated ``KEY=VALUE`` changes of the
variant's weights, a top-level key (``tempo``, ``king_danger``, ...) or ``pieces.X.key``
(``eval/tables.py`` lists the keys).  Nothing is written.

A lower error is no proof of strength (a match is: the search finds the positions where an
evaluation is wrong), but a change that raises the error is seldom worth a match: the
pawn-structure terms tried in the ninth session (bench/RESULTS.md) raised it in chess and
courier, and lost both matches.
"""
from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from jitfish.eval import cache_for, eval_tables, pack_eval, static_eval
from jitfish.eval.tables import PIECE_KEYS, TOP_KEYS, EvalTables, tables_from, variant_weights
from jitfish.movegen import Position, load_spec, load_variant

from .tune import texel_error, win_prob
from .tune_psqt import fit_k, load_quiet

__all__ = ["apply_changes", "white_evals", "main"]


def apply_changes(weights: dict[str, Any], changes: str) -> dict[str, Any]:
    """A copy of ``weights`` with ``KEY=VALUE[,KEY=VALUE...]`` applied (ValueError naming a
    malformed item or an unknown key; a piece letter is checked when the tables are built)."""
    out = copy.deepcopy(weights)
    for item in changes.split(","):
        key, sep, value = item.strip().partition("=")
        try:
            number = int(value)
        except ValueError:
            number = None
        if not sep or number is None:
            raise ValueError(f"--set {changes!r}: expected KEY=INTEGER items, got {item!r}")
        parts = key.split(".")
        if len(parts) == 1 and key in TOP_KEYS and key != "pieces":
            out[key] = number
        elif len(parts) == 3 and parts[0] == "pieces" and parts[2] in PIECE_KEYS:
            out.setdefault("pieces", {}).setdefault(parts[1], {})[parts[2]] = number
        else:
            raise ValueError(f"--set {changes!r}: {key!r} is not a weight key (a top-level key such as tempo, "
                             f"or pieces.X.key; eval/tables.py lists them)")
    return out


def white_evals(positions: list[Position], ev: EvalTables) -> np.ndarray:
    """The static evaluation of each position with the tables ``ev``, from White's side."""
    cache = cache_for(None, ev)  # a cache of its own: entries of other tables must not be reused
    out = np.empty(len(positions))
    for i, pos in enumerate(positions):
        v = int(static_eval(pack_eval(pos.pos, pos.tab, ev, cache)))
        out[i] = v if pos.turn == 0 else -v
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.texel_check", description=__doc__.split("\n\n")[0],
                                 epilog="See the module's docstring (python -m pydoc jitfish.bench.texel_check).",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--load", type=Path, required=True, metavar="FILE", help="labelled positions (tune_psqt --save)")
    ap.add_argument("--positions", type=int, default=20000, help="the first N kept positions")
    ap.add_argument("--max-score", type=int, default=1500, help="drop positions scored beyond this (cp)")
    ap.add_argument("--result-weight", type=float, default=0.5, help="weight of the game's result in the label")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=V[,KEY=V...]",
                    help="one candidate change of the weights (repeatable)")
    args = ap.parse_args(argv)
    try:
        variant = load_variant(load_spec(args.variant).name)
        weights, path = variant_weights(variant)
        candidates = [(c, tables_from(variant, apply_changes(weights, c), path)) for c in args.set]
        samples, _by = load_quiet(args.load, variant.spec.name, args.max_score, args.positions)
    except (OSError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    if len(samples) < 100:
        print(f"Error: only {len(samples)} labelled positions", file=sys.stderr)
        return 1
    positions = [Position(variant.spec.name, s.fen) for s in tqdm(samples, desc="positions", file=sys.stderr)]
    rw = args.result_weight
    y = (1 - rw) * win_prob(np.array([s.score for s in samples]), 1.0) + rw * np.array([s.result for s in samples])
    base = white_evals(positions, eval_tables(variant))
    k = fit_k(base, y)
    e0 = texel_error(base, y, k)
    print(f"{len(samples)} positions, K = {k:.3f}; today's weights: error {e0:.6f}")
    for changes, ev in candidates:
        e = texel_error(white_evals(positions, ev), y, k)
        print(f"  {changes}: error {e:.6f} ({e - e0:+.6f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
