"""Search speed of jitfish against fairy-stockfish, side by side in one run.

    python -m jitfish.bench.search_nps [--runs 3] [--movetime 2.0]
    jitfish bench nps [...]

Each engine searches the same positions for the same fixed time from an empty hash (16 MB),
alternating, ``--runs`` times; nodes per second are the engines' own node counts over the
wall time of the search (fairy-stockfish: its last ``info ... nps``).  Prints the medians and
their ratio.  Node counting differs in detail (both count every node entered, quiescence
included), so the ratio is a speed figure, not a strength figure.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time

from jitfish.engine import Engine
from jitfish.engine import Limits as SearchLimits
from jitfish.movegen import Position
from jitfish.protocol.client import EngineConfig, EngineError, GoRequest, Limits, UciEngine, open_engine

POSITIONS = [
    ("chess start", "chess", "chess", None),
    ("kiwipete", "chess", "chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("courier start", "courier", "courier", None),
]


def fsf_nps(fsf: UciEngine, fen: str, movetime: float) -> int:
    """fairy-stockfish's speed on one search of ``movetime`` seconds from ``fen``."""
    fsf.new_game(Limits(movetime=movetime), fen)
    reply = fsf.go(GoRequest(moves=[], side=0, budget=movetime + 10))
    return reply.info.nps or 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench nps", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--movetime", type=float, default=2.0, help="seconds per search (default 2)")
    ap.add_argument("--fsf", default=shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish")
    args = ap.parse_args(argv)
    engines: dict[str, UciEngine] = {}
    try:
        for variant in {p[2] for p in POSITIONS}:
            engines[variant] = open_engine(EngineConfig(args.fsf, proto="uci", options={"Hash": "16", "Threads": "1"}),
                                           variant)
    except EngineError as exc:
        print(f"Error: cannot start fairy-stockfish ({exc})", file=sys.stderr)
        return 2
    eng = Engine(hash_mb=16)
    eng.warmup("chess")
    print(f"{'position':16} {'jitfish nps':>12} {'fsf nps':>12} {'ratio':>6}")
    for label, variant, fsf_variant, fen in POSITIONS:
        ours, theirs = [], []
        for _ in range(args.runs):
            eng.new_game()
            t0 = time.perf_counter()
            pos = Position(variant, fen)
            res = eng.search(pos, SearchLimits(movetime=args.movetime, move_overhead=0))
            ours.append(res.nodes / (time.perf_counter() - t0))
            theirs.append(fsf_nps(engines[fsf_variant], pos.fen(), args.movetime))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{label:16} {a:>12,.0f} {b:>12,.0f} {a / b if b else 0:>6.2f}")
    for fsf in engines.values():
        fsf.quit()
    print(f"median of {args.runs} searches of {args.movetime} s each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
