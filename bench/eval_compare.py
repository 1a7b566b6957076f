"""Compare jitfish's static evaluation with fairy-stockfish's on the positions of real games.

    python -m jitfish.bench.eval_compare --variant courier --pgn 'bench/games/strength/s9_fsf_courier.pgn'

1. Positions: those of ``bench/tune_psqt.py`` (``--pgn`` globs, every position after
   ``--skip-plies`` not in check, at most ``--per-game`` a game, unique, in a seeded order).
2. Fairy-stockfish's side: its ``eval`` command (``tune_psqt --label-static``: the classical
   evaluation's total, White's side; positions whose depth-1 move is not quiet are dropped).
   jitfish's side: the static evaluation of today's weights, White's side (``texel_check``'s).
3. Prints the correlation of the two where both lie within ``--max-score``, and what each pays
   for material: a least-squares fit of each evaluation to the piece-count differences (White
   minus Black), a middlegame and an endgame value per piece type, tapered as the kernel tapers
   (``tune_psqt.kernel_phase``), on the positions where both lie within ``--fit-max``,
   with the share of the evaluation's variance the fit explains (R2).  The counts go with other
   advantages in real games, so the fitted values are what an evaluation pays for material in
   those positions, not piece values to copy.

It shows where two evaluations part before any match is played (bench/RESULTS.md, eleventh
session).  Every number comes from the command line.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from jitfish.eval import eval_tables
from jitfish.movegen import Position, load_spec, load_variant

from . import tune_psqt
from .texel_check import white_evals

__all__ = ["compare", "material_fit", "main"]


def material_fit(counts: np.ndarray, phase: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(middlegame values, endgame values, R2) of ``y ~ sum_t counts[:, t] * (mg_t * phase + eg_t *
    (1 - phase)) + c``; ``counts`` (n, T) White minus Black, ``phase`` (n,) from 1 (all pieces) to 0."""
    n, t = counts.shape
    a = np.hstack([counts * phase[:, None], counts * (1 - phase)[:, None], np.ones((n, 1))])
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    resid = y - a @ coef
    r2 = 1.0 - resid.var() / y.var() if y.var() > 0 else 0.0
    return coef[:t], coef[t:2 * t], float(r2)


def compare(variant: str, samples: list[tune_psqt.Sample], max_score: int, fit_max: int = 1500) -> dict:
    """The two evaluations (White's side) of the labelled samples and their comparison."""
    ev = eval_tables(load_variant(variant))
    ntypes = len(ev.value)
    positions = [Position(variant, s.fen) for s in samples]
    f = np.array([s.score for s in samples], float)
    j = white_evals(positions, ev)
    c = np.array([pos.pos.cnt[0, :ntypes] - pos.pos.cnt[1, :ntypes] for pos in positions], float)
    p = np.array([tune_psqt.kernel_phase(ev, pos.pos.cnt) / 256 for pos in positions])
    keep = (np.abs(f) <= max_score) & (np.abs(j) <= max_score)
    out = {"positions": len(samples), "kept": int(keep.sum()),
           "corr": float(np.corrcoef(f[keep], j[keep])[0, 1]) if keep.sum() > 2 else float("nan")}
    fit = (np.abs(f) <= fit_max) & (np.abs(j) <= fit_max)
    out["fitted"] = int(fit.sum())
    for name, y in (("fairy-stockfish", f), ("jitfish", j)):
        out[name] = material_fit(c[fit], p[fit], y[fit])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.eval_compare", description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--pgn", action="append", metavar="GLOB", help="games (default: every PGN under bench/games/)")
    ap.add_argument("--positions", type=int, default=20000, help="positions compared at most")
    ap.add_argument("--per-game", type=int, default=1000, help="positions drawn per game at most")
    ap.add_argument("--skip-plies", type=int, default=8, help="plies of each game not sampled (the opening)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-score", type=int, default=600, help="correlate where both evaluations lie within this (cp)")
    ap.add_argument("--fit-max", type=int, default=1500, help="fit material where both lie within this (cp)")
    ap.add_argument("--fsf", default=tune_psqt.FSF, help="fairy-stockfish (UCI)")
    args = ap.parse_args(argv)
    try:
        variant = load_spec(args.variant).name
        args.games = 0
        pool = tune_psqt.collect(variant, args)
        samples = tune_psqt.label_static(variant, pool, args.fsf, 100000, args.positions)
    except (OSError, ValueError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    if len(samples) < 20:
        print(f"Error: only {len(samples)} positions", file=sys.stderr)
        return 1
    r = compare(variant, samples, args.max_score, args.fit_max)
    letters = load_spec(variant).letters
    print(f"{r['kept']} of {r['positions']} positions within +/-{args.max_score} cp: correlation {r['corr']:.3f}")
    print(f"material fit on {r['fitted']} positions within +/-{args.fit_max} cp (White minus Black counts, tapered):")
    print("  " + " " * 22 + " ".join(f"{ch:>6}" for ch in letters) + "      R2")
    for name in ("fairy-stockfish", "jitfish"):
        mg, eg, r2 = r[name]
        print(f"  {name + ', mg':<22}" + " ".join(f"{v:6.0f}" for v in mg))
        print(f"  {name + ', eg':<22}" + " ".join(f"{v:6.0f}" for v in eg) + f"    {r2:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
