"""Two matches on the same openings, compared pair by pair, from ``jitfish match`` PGNs.

    python3 -m jitfish.bench.paired bench/games/strength/s44_fsf_courier.pgn \
        bench/games/strength/s46_fsf_courier.pgn --engine jitfish

``jitfish match`` plays each opening twice, colours swapped (rounds 1-2, 3-4, ...), and draws the
openings in order from ``--seed``: two matches with the same seed, variant and ``--random-plies``
hold the same opening in every pair, whatever engines played them.  This reads one engine's
results (by its PGN name) in two such files A and B and prints, over the pairs both finished with
the same opening, each file's score and B's score less A's per game, with its 95% interval
(1.96 standard errors of the mean pair difference, halved to a game).  Pairing takes out the
openings' share of the variance, so a difference between two versions of an engine against the
same opponent shows with fewer games than two separate scores would need.

A pair counts when both of its games have a result in both files; pairs whose openings differ
(the ``FEN`` tag and the moves marked ``{book}``) are left out and counted.  Each file's whole
score is printed beside it, with its unfinished games (no result) counted.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from jitfish.movegen.pgn import PgnGame, read_pgn

__all__ = ["Paired", "pair_scores", "compare", "main"]


def _score(game: PgnGame, engine: str) -> float | None:
    """The score (1, 0.5, 0) of ``engine``, which played the game, or None if the game has no result."""
    s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(game.tags.get("Result", game.result))
    return s if s is None or game.tags.get("White") == engine else 1.0 - s


def _opening(game: PgnGame) -> tuple:
    """The start position and the book moves (``jitfish match`` marks each ``{book}``)."""
    book = 0
    if len(game.comments) == len(game.moves):
        while book < len(game.moves) and game.comments[book].strip() == "book":
            book += 1
    return game.tags.get("FEN", ""), tuple(game.moves[:book])


def pair_scores(text: str, engine: str) -> tuple[dict[int, tuple[float, tuple]], dict[str, int]]:
    """{pair index: (the engine's points in the pair, 0-2; the pair's opening)} over the pairs whose
    two games both have a result, and the file's whole tally {"wins", "losses", "draws", "unfinished"}."""
    games: dict[int, list[tuple[int, float, tuple]]] = {}
    tally = {"wins": 0, "losses": 0, "draws": 0, "unfinished": 0}
    for g in read_pgn(text):
        try:
            rnd = int(g.tags.get("Round", ""))
        except ValueError:
            continue
        if engine not in (g.tags.get("White"), g.tags.get("Black")):
            continue
        s = _score(g, engine)
        if s is None:
            tally["unfinished"] += 1
            continue
        tally[{1.0: "wins", 0.0: "losses", 0.5: "draws"}[s]] += 1
        games.setdefault((rnd - 1) // 2, []).append((rnd, s, _opening(g)))
    pairs = {}
    for k, gs in games.items():
        if len(gs) == 2:
            gs.sort()
            pairs[k] = (gs[0][1] + gs[1][1], gs[0][2])
    return pairs, tally


@dataclass
class Paired:
    """B against A over the pairs both hold with the same opening."""

    pairs: int
    a_score: float        # A's score a game over those pairs
    b_score: float
    diff: float           # B's score less A's, a game
    half_width: float     # 95% interval of ``diff`` (1.96 standard errors); nan under two pairs
    other_openings: int   # pairs both finished whose openings differ (left out)


def compare(a_pairs: dict, b_pairs: dict) -> Paired:
    """Paired comparison of two ``pair_scores`` results."""
    shared = sorted(set(a_pairs) & set(b_pairs))
    keys = [k for k in shared if a_pairs[k][1] == b_pairs[k][1]]
    n = len(keys)
    if n == 0:
        return Paired(0, math.nan, math.nan, math.nan, math.nan, len(shared))
    d = [b_pairs[k][0] - a_pairs[k][0] for k in keys]
    half = 1.96 * statistics.stdev(d) / math.sqrt(n) / 2 if n >= 2 else math.nan
    return Paired(n, sum(a_pairs[k][0] for k in keys) / (2 * n), sum(b_pairs[k][0] for k in keys) / (2 * n),
                  statistics.fmean(d) / 2, half, len(shared) - n)


def _tally_line(name: str, t: dict) -> str:
    n = t["wins"] + t["losses"] + t["draws"]
    score = f"{(t['wins'] + 0.5 * t['draws']) / n:.1%}" if n else "-"
    extra = f", {t['unfinished']} unfinished" if t["unfinished"] else ""
    return f"{name}: {n} games, {t['wins']}-{t['losses']}-{t['draws']}, {score}{extra}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m jitfish.bench.paired", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("a", metavar="A.pgn", help="the first match's PGN (the reference)")
    ap.add_argument("b", metavar="B.pgn", help="the second match's PGN, on the same seed's openings")
    ap.add_argument("--engine", required=True, help="the engine's name in the White/Black tags of both files")
    args = ap.parse_args(argv)
    result = []
    for p in (args.a, args.b):
        try:
            result.append(pair_scores(Path(p).read_text(encoding="utf-8", errors="replace"), args.engine))
        except OSError as exc:
            print(f"Error: {p}: {exc.strerror}", file=sys.stderr)
            return 2
    (a_pairs, a_tally), (b_pairs, b_tally) = result
    print(_tally_line(f"A {args.a}", a_tally))
    print(_tally_line(f"B {args.b}", b_tally))
    r = compare(a_pairs, b_pairs)
    if r.other_openings:
        print(f"left out: {r.other_openings} pairs with different openings in A and B")
    if r.pairs == 0:
        print(f"Error: no finished pair of {args.engine!r} with the same opening in both files", file=sys.stderr)
        return 1
    hw = "" if math.isnan(r.half_width) else f" +/- {r.half_width:.1%}"
    print(f"{r.pairs} pairs: A {r.a_score:.1%}, B {r.b_score:.1%}; B - A {r.diff:+.1%}{hw} a game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
