"""Where a match's time went, and when its lost games were decided, from ``jitfish match`` PGNs.

    python3 -m jitfish.bench.pgn_stats bench/games/strength/s30_fsf_m30_courier.pgn \
        --engine jitfish

reads every game one engine played (by its PGN name) and prints, for every ``--phase`` moves of a
side (moves 0-9, 10-19, ...; the last of ``--rows`` rows takes every later move; book moves count
but have no time), the mean thinking time a move and the median depth of that engine and of its
opponents, then, over the games it lost, the move at which the winner's own score first reached
``--decided`` pawns (median and quartiles).  The figures come from the move comments ``jitfish
match`` writes (``{+0.35/12 0.204s}``, ``{book}``); a game whose comments do not pair with its
moves one to one (an XBoard PGN, say) is counted as skipped.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from jitfish.movegen.pgn import read_pgn

__all__ = ["Side", "parse_comment", "side_stats", "main"]

# bench/game.py's ``_comment`` writes them: "[score[/depth] ]seconds" (score +0.35 or -M3), or "book"
_COMMENT = re.compile(r"^(?:(?P<score>[+-]?\d+(?:\.\d+)?|[+-]?M\d+)(?:/(?P<depth>\d+))?\s+)?"
                      r"(?:(?P<secs>\d+(?:\.\d+)?)s)?")


def parse_comment(text: str) -> tuple[float | None, int | None, float | None]:
    """(score in pawns or None for a mate or none, depth or None, seconds or None) of a move comment."""
    m = _COMMENT.match(text.strip())
    if not m:
        return None, None, None
    score = m.group("score")
    pawns = None if score is None or "M" in score else float(score)
    depth = int(m.group("depth")) if m.group("depth") else None
    secs = float(m.group("secs")) if m.group("secs") else None
    return pawns, depth, secs


@dataclass
class Side:
    """One engine's moves over a set of games, by phase (index: move number // phase)."""

    secs: dict[int, list[float]] = field(default_factory=dict)
    depths: dict[int, list[int]] = field(default_factory=dict)

    def add(self, k: int, depth: int | None, secs: float | None) -> None:
        if secs is not None:
            self.secs.setdefault(k, []).append(secs)
        if depth is not None:
            self.depths.setdefault(k, []).append(depth)


def side_stats(texts: list[str], engine: str, phase: int = 10, decided: float = 1.5, rows: int = 10) -> dict:
    """Counts, the two sides' ``Side`` figures (``rows`` phases, the last one taking every later move)
    and the moves at which the lost games were decided."""
    me, them = Side(), Side()
    w = l = d = skipped = 0
    decided_at: list[int] = []
    for text in texts:
        for g in read_pgn(text):
            white, black = g.tags.get("White"), g.tags.get("Black")
            if engine not in (white, black):
                continue
            if len(g.comments) < len(g.moves) or not g.moves:
                skipped += 1
                continue
            mine = 0 if white == engine else 1
            result = {"1-0": 0, "0-1": 1}.get(g.result)
            if result is None:
                d += g.result == "1/2-1/2"
            elif result == mine:
                w += 1
            else:
                l += 1
            first = None
            for i, c in enumerate(g.comments[:len(g.moves)]):
                pawns, depth, secs = parse_comment(c)
                k = min((i // 2) // phase, rows - 1)
                if i % 2 == mine:
                    me.add(k, depth, secs)
                else:
                    them.add(k, depth, secs)
                    if first is None and pawns is not None and pawns >= decided:
                        first = i // 2 + 1
            if result is not None and result != mine and first is not None:
                decided_at.append(first)
    return {"wins": w, "losses": l, "draws": d, "skipped": skipped, "me": me, "them": them,
            "decided_at": decided_at}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m jitfish.bench.pgn_stats", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("pgn", nargs="+", metavar="PGN", help="PGN files written by jitfish match")
    ap.add_argument("--engine", required=True, help="the engine's name in the White/Black tags")
    ap.add_argument("--phase", type=int, default=10, help="moves a side per row (default 10)")
    ap.add_argument("--rows", type=int, default=10,
                    help="rows of the table at most; the last takes every later move (default 10)")
    ap.add_argument("--decided", type=float, default=1.5,
                    help="a lost game counts as decided when the winner's own score first reaches this many "
                         "pawns (default 1.5)")
    args = ap.parse_args(argv)
    if args.phase < 1 or args.rows < 1:
        ap.error("--phase and --rows must be at least 1")
    texts = []
    for p in args.pgn:
        try:
            texts.append(Path(p).read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            print(f"Error: {p}: {exc.strerror}", file=sys.stderr)
            return 2
    s = side_stats(texts, args.engine, args.phase, args.decided, args.rows)
    n = s["wins"] + s["losses"] + s["draws"]
    if n == 0:
        print(f"Error: no game of {args.engine!r} with per-move comments ({s['skipped']} skipped)", file=sys.stderr)
        return 1
    print(f"{args.engine}: {n} games, {s['wins']}-{s['losses']}-{s['draws']} ({s['skipped']} skipped)")
    print(f"{'moves':>9} {'s/move':>8} {'opp s/move':>10} {'depth':>6} {'opp depth':>9}")
    me, them = s["me"], s["them"]

    def mean(x):
        return f"{statistics.fmean(x):.3f}" if x else "-"

    def med(x):
        return f"{statistics.median(x):g}" if x else "-"

    for k in sorted(set(me.secs) | set(them.secs)):
        span = f"{k * args.phase}-{k * args.phase + args.phase - 1}" if k < args.rows - 1 else f"{k * args.phase}+"
        print(f"{span:>9} {mean(me.secs.get(k, [])):>8} "
              f"{mean(them.secs.get(k, [])):>10} {med(me.depths.get(k, [])):>6} {med(them.depths.get(k, [])):>9}")
    at = s["decided_at"]
    if len(at) >= 2:
        q = statistics.quantiles(at, n=4)
        print(f"lost games decided (the winner's score first >= {args.decided:+g}): {len(at)} of {s['losses']}, "
              f"move {statistics.median(at):g} (median; quartiles {q[0]:g} and {q[2]:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
