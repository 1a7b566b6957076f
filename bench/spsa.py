"""SPSA tuning of the search's numbers (``engine/search.py``, ``PARAMS``) by self-play.

    python -m jitfish.bench.spsa --variant courier --param rfp_margin:40:200 --param fut_lmr_base:40:300 \\
        --iterations 400 --pairs 2 --tc 2+0.02 --seed 1 --out spsa-courier.csv

Simultaneous perturbation stochastic approximation, as Fishtest runs it for Stockfish. At
iteration k every tuned number moves by ``+c_k`` or ``-c_k`` at random (the same flips for all);
the engine with the numbers plus the flips plays the engine with the numbers minus them,
``--pairs`` game pairs from a balanced random opening (colours swapped within a pair); then every
number moves by ``a_k / c_k * (wins - losses) * flip``. The step sizes shrink as
``c_k = c / (k + 1)^0.101`` and ``a_k = a / (A + k + 1)^0.602`` with ``A`` a tenth of the
iterations, ``c`` chosen so that the last perturbation is the parameter's ``C`` and ``a`` so
that its last step is ``--r-end`` times ``C^2`` per game point (Fishtest's defaults).

``--param NAME[:MIN:MAX[:C]]``: a number of ``PARAMS`` (start: its value there), kept within MIN
and MAX (default: half and twice the start), perturbed by C at the end (default: a twentieth of
the range, at least 1). The engines are ``--engine`` (default: the ``jitfish`` beside this Python)
with ``JITFISH_SEARCH_PARAMS`` in their environment, so no kernel is compiled again; the games
go through ``jitfish match`` (its rules referee, adjudication and ``--scheduler``: the pairs of an
iteration can play on Dask workers). Every iteration is a line of ``--out`` (CSV: k, the plus
engine's wins minus losses, each number's c_k, then each number after the step), the run is
reproducible from its seed (openings and flips), and the last line printed is the tuned numbers. A run is long: a useful one is
thousands of games (bench/RESULTS.md).
"""
from __future__ import annotations

import argparse
import csv
import io
import random
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tqdm import tqdm

from jitfish.engine.search import PARAMS

from .match import Match
from .match_cli import add_match_parser, build_config

__all__ = ["Param", "parse_param", "Spsa", "play_pairs", "main"]

GAMMA = 0.101
ALPHA = 0.602


@dataclass
class Param:
    name: str
    value: float
    lo: int
    hi: int
    c_end: float

    def clip(self, v: float) -> int:
        return int(min(self.hi, max(self.lo, round(v))))


def parse_param(text: str) -> Param:
    """``NAME[:MIN:MAX[:C]]`` -> Param (ValueError naming what is wrong)."""
    parts = text.split(":")
    name = parts[0]
    if name not in PARAMS:
        raise ValueError(f"--param {text!r}: {name!r} is not one of the search's numbers ({', '.join(PARAMS)})")
    start = PARAMS[name]
    try:
        if len(parts) == 1:
            lo, hi = (start // 2, start * 2) if start > 0 else (start * 2, start // 2)
        elif len(parts) in (3, 4):
            lo, hi = int(parts[1]), int(parts[2])
        else:
            raise ValueError
        c_end = float(parts[3]) if len(parts) == 4 else max(1.0, (hi - lo) / 20)
    except ValueError:
        raise ValueError(f"--param {text!r}: expected NAME[:MIN:MAX[:C]] with integers MIN, MAX") from None
    if not lo <= start <= hi or c_end <= 0:
        raise ValueError(f"--param {text!r}: need MIN <= {start} (its value) <= MAX and C > 0")
    return Param(name, float(start), lo, hi, c_end)


class Spsa:
    """The SPSA state: ``step(k, play)`` runs iteration k with ``play(plus, minus)``, which
    returns the plus engine's wins minus losses."""

    def __init__(self, params: list[Param], iterations: int, r_end: float = 0.002, seed: int = 1):
        self.params = params
        self.big_a = 0.1 * iterations
        self.rng = random.Random(seed)
        self.c = [p.c_end * iterations ** GAMMA for p in params]
        self.a = [r_end * p.c_end ** 2 * (self.big_a + iterations) ** ALPHA for p in params]

    def step(self, k: int, play: Callable[[dict[str, int], dict[str, int]], float]
             ) -> tuple[list[float], list[float], float]:
        flips = [self.rng.choice((-1, 1)) for _ in self.params]
        ck = [c / (k + 1) ** GAMMA for c in self.c]
        ak = [a / (self.big_a + k + 1) ** ALPHA for a in self.a]
        plus = {p.name: p.clip(p.value + c * f) for p, c, f in zip(self.params, ck, flips)}
        minus = {p.name: p.clip(p.value - c * f) for p, c, f in zip(self.params, ck, flips)}
        result = play(plus, minus)
        for p, a, c, f in zip(self.params, ak, ck, flips):
            p.value = min(p.hi, max(p.lo, p.value + a / c * result * f))
        return ck, ak, result

    def values(self) -> dict[str, int]:
        return {p.name: int(round(p.value)) for p in self.params}


def play_pairs(engine: str, variant: str, pairs: int, limits: list[str], seed: int, extra: list[str]
               ) -> Callable[[dict[str, int], dict[str, int]], float]:
    """A ``play`` for Spsa.step: ``jitfish match`` between ``engine`` with the plus numbers and
    with the minus numbers (``limits``: match options such as ``--tc 2+0.02``)."""
    next_seed = seed

    def cmd(values: dict[str, int]) -> str:
        return "env JITFISH_SEARCH_PARAMS=" + ";".join(f"{k}={v}" for k, v in values.items()) + " " + engine

    def play(plus: dict[str, int], minus: dict[str, int]) -> float:
        nonlocal next_seed
        ap = argparse.ArgumentParser()
        add_match_parser(ap.add_subparsers())
        args = ap.parse_args(["match", "--variant", variant, "--rounds", str(pairs), "--seed", str(next_seed),
                              "--engine", f"cmd={cmd(plus)}", "name=plus", "--engine", f"cmd={cmd(minus)}",
                              "name=minus", "--no-progress", "--quiet", *limits, *extra])
        next_seed += 1
        match = Match(build_config(args), out=io.StringIO(), err=io.StringIO())
        match.run()
        if match.fatal:
            raise RuntimeError(f"the match failed: {match.fatal}")
        return float(match.tally.wins - match.tally.losses)

    return play


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.spsa", description=__doc__.split("\n\n")[0],
                                 epilog="The module's docstring explains the method.")
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--param", action="append", required=True, metavar="NAME[:MIN:MAX[:C]]",
                    help="a number of engine/search.py's PARAMS to tune (repeat)")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=1, help="game pairs per iteration (default 1)")
    ap.add_argument("--tc", default="2+0.02", help="time control of the games (default 2+0.02)")
    ap.add_argument("--nodes", type=int, help="nodes per move instead of a clock")
    ap.add_argument("--random-plies", type=int, default=6)
    ap.add_argument("--r-end", type=float, default=0.002, help="the last step per game point, in C^2 (default 0.002)")
    ap.add_argument("--engine", help="jitfish command (default: the jitfish beside this Python, else on the PATH)")
    ap.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    ap.add_argument("--scheduler", help="play on Dask workers (see jitfish match --scheduler)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="CSV of every iteration")
    args = ap.parse_args(argv)
    try:
        params = [parse_param(t) for t in args.param]
    except ValueError as exc:
        ap.error(str(exc))
    if args.iterations < 1 or args.pairs < 1:
        ap.error("--iterations and --pairs must be at least 1")
    beside = Path(sys.executable).parent / "jitfish"  # this environment's engine first
    engine = args.engine or (str(beside) if beside.exists() else shutil.which("jitfish"))
    if not engine:
        ap.error("no jitfish command on the PATH: give --engine")
    limits = ["--nodes", str(args.nodes)] if args.nodes else ["--tc", args.tc]
    extra = ["--random-plies", str(args.random_plies), "--concurrency", str(args.concurrency),
             "--draw", "movenumber=40,movecount=8,score=10", "--resign", "movecount=4,score=700"]
    if args.scheduler:
        extra += ["--scheduler", args.scheduler]
    spsa = Spsa(params, args.iterations, args.r_end, args.seed)
    play = play_pairs(engine, args.variant, args.pairs, limits, args.seed * 100003, extra)
    out = open(args.out, "w", newline="") if args.out else None
    writer = csv.writer(out) if out else None
    if writer:
        writer.writerow(["k", "result"] + [f"c_{p.name}" for p in params] + [p.name for p in params])
    total = 0.0
    try:
        for k in tqdm(range(args.iterations), desc="spsa", unit="it", file=sys.stderr):
            ck, _ak, result = spsa.step(k, play)
            total += result
            if writer:
                writer.writerow([k, result] + [f"{c:.2f}" for c in ck] + [f"{p.value:.2f}" for p in params])
                out.flush()
    finally:
        if out:
            out.close()
    print(f"{args.iterations * args.pairs * 2} games; the plus engines scored {total:+.0f} (wins - losses)")
    print("tuned: " + ", ".join(f'"{k}": {v}' for k, v in spsa.values().items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
