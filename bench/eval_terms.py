"""Which of fairy-stockfish's evaluation terms does jitfish's static evaluation follow?

    python -m jitfish.bench.eval_terms --variant courier --pgn 'bench/games/strength/s9_fsf_courier.pgn'

1. Positions: those of ``eval_compare`` (``tune_psqt.collect``: every position of the games after
   ``--skip-plies`` not in check, unique, in a seeded order).
2. Fairy-stockfish's ``eval`` table for each: every term's middlegame and endgame total (White's
   side), tapered by jitfish's phase of the position; its "Total evaluation" (positions beyond
   ``--max-score`` pawns on either side are dropped).  jitfish's static evaluation, White's side.
3. Least squares of fairy-stockfish's total, and of jitfish's evaluation, on fairy-stockfish's
   terms: a term that jitfish follows gets about the coefficient fairy-stockfish's total gets
   (times the ratio of the two scales, the Material row's); one it does not know gets 0.  The last
   column is each term's covariance with the difference (fairy-stockfish minus jitfish) as a share
   of that difference's variance: where the two evaluations part.

The eleventh session's eval_compare gives one number (the correlation); this gives it by term
(bench/RESULTS.md, thirteenth session).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys

import numpy as np
from tqdm import tqdm

from jitfish.eval import eval_tables
from jitfish.movegen import Position, load_spec, load_variant

from . import tune_psqt
from .texel_check import white_evals

__all__ = ["fsf_terms", "term_fit", "main"]

_ROW = re.compile(r"\s*([A-Za-z][A-Za-z ]*?)\s*\|.*\|\s*(-?[\d.]+)\s+(-?[\d.]+)\s*$")


def fsf_terms(variant: str, fens: list[str], fsf: str, max_score: float, wanted: int
              ) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """(term names, FENs kept, terms (n, k, 2) in pawns: middlegame and endgame totals, totals (n,))."""
    proc = subprocess.Popen([fsf], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None

    def send(text: str) -> None:
        proc.stdin.write(text)
        proc.stdin.flush()

    def until_ready() -> list[str]:
        out = []
        for line in proc.stdout:
            if line.startswith("readyok"):
                return out
            out.append(line)
        raise ValueError(f"{fsf} stopped answering")

    names: list[str] = []
    kept: list[str] = []
    rows: list[list[tuple[float, float]]] = []
    totals: list[float] = []
    try:
        send(f"uci\nsetoption name UCI_Variant value {variant}\nisready\n")
        until_ready()
        bar = tqdm(total=wanted, desc="fairy-stockfish eval", unit="pos", file=sys.stderr)
        for fen in fens:
            if len(kept) >= wanted:
                break
            send(f"position fen {fen}\neval\nisready\n")
            terms: dict[str, tuple[float, float]] = {}
            total = None
            for line in until_ready():
                m = _ROW.match(line)
                if m and m.group(1) not in ("Term", "Total"):
                    terms[m.group(1)] = (float(m.group(2)), float(m.group(3)))
                elif line.startswith("Total evaluation") and "none" not in line:  # "none (in check)"
                    total = float(line.split(":", 1)[1].split()[0])
            if total is None or abs(total) > max_score or not terms:
                continue
            if not names:
                names = list(terms)
            rows.append([terms.get(k, (0.0, 0.0)) for k in names])
            kept.append(fen)
            totals.append(total)
            bar.update(1)
        bar.close()
    finally:
        try:
            send("quit\n")
        except OSError:
            pass
        proc.wait(timeout=10)
    return names, kept, np.array(rows, float).reshape(len(kept), len(names), 2), np.array(totals, float)


def term_fit(terms: np.ndarray, fsf: np.ndarray, jf: np.ndarray) -> dict[str, np.ndarray]:
    """Coefficients of fairy-stockfish's total and of jitfish's evaluation on the tapered terms
    (n, k), each term's standard deviation, and its share of the difference's variance."""
    a = np.hstack([terms, np.ones((len(terms), 1))])
    cf = np.linalg.lstsq(a, fsf, rcond=None)[0]
    cj = np.linalg.lstsq(a, jf, rcond=None)[0]
    diff = fsf - jf
    share = np.array([np.cov(terms[:, i], diff)[0, 1] / diff.var() if diff.var() > 0 else 0.0
                      for i in range(terms.shape[1])])
    r2 = lambda y, c: 1.0 - (y - a @ c).var() / y.var() if y.var() > 0 else 0.0  # noqa: E731
    return {"fsf": cf[:-1], "jitfish": cj[:-1], "sd": terms.std(axis=0), "share": share,
            "r2": np.array([r2(fsf, cf), r2(jf, cj)]), "corr": np.array([np.corrcoef(fsf, jf)[0, 1]])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.eval_terms", description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--pgn", action="append", metavar="GLOB", help="games (default: every PGN under bench/games/)")
    ap.add_argument("--positions", type=int, default=5000, help="positions compared at most")
    ap.add_argument("--per-game", type=int, default=1000, help="positions drawn per game at most")
    ap.add_argument("--skip-plies", type=int, default=8, help="plies of each game not sampled (the opening)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-score", type=float, default=6.0, help="keep positions both evaluate within this (pawns)")
    ap.add_argument("--fsf", default=tune_psqt.FSF, help="fairy-stockfish (UCI, with the classical eval command)")
    args = ap.parse_args(argv)
    try:
        variant = load_spec(args.variant).name
        args.games = 0
        pool = tune_psqt.collect(variant, args)
        names, fens, raw, fsf = fsf_terms(variant, [s.fen for s in pool], args.fsf, args.max_score,
                                          args.positions)
    except (OSError, ValueError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    if len(fens) < 20:
        print(f"Error: only {len(fens)} positions", file=sys.stderr)
        return 1
    ev = eval_tables(load_variant(variant))
    positions = [Position(variant, f) for f in fens]
    jf = white_evals(positions, ev) / 100.0
    phase = np.array([tune_psqt.kernel_phase(ev, p.pos.cnt) / 256 for p in positions])
    terms = raw[:, :, 0] * phase[:, None] + raw[:, :, 1] * (1 - phase[:, None])
    keep = np.abs(jf) <= args.max_score
    r = term_fit(terms[keep], fsf[keep], jf[keep])
    print(f"{variant}: {int(keep.sum())} positions; correlation {r['corr'][0]:.3f}; R2 of the terms: "
          f"fairy-stockfish's total {r['r2'][0]:.3f}, jitfish's evaluation {r['r2'][1]:.3f}")
    print(f"{'term':>12} {'sd':>6} {'fsf coef':>9} {'jitfish':>8} {'share':>7}")
    for i, name in enumerate(names):
        if r["sd"][i] > 0:
            print(f"{name:>12} {r['sd'][i]:6.3f} {r['fsf'][i]:9.2f} {r['jitfish'][i]:8.2f} {r['share'][i]:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
