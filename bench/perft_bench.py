"""Perft speed of jitfish against fairy-stockfish, side by side in one run.

    python -m jitfish.bench.perft_bench [--runs 5] [--fsf /usr/games/fairy-stockfish]
    jitfish bench perft [--runs 5]

For each position both engines run the same perft, alternating, ``--runs`` times.  jitfish
is timed in-process around its perft call (after a warm-up, so no compile time counts);
fairy-stockfish (Debian 11.1) is one long-lived UCI process, timed from ``go perft N`` to its
``Nodes searched`` line.  Both count legal leaf nodes of the same tree; fairy-stockfish makes
every leaf move, jitfish counts the last ply without making it (bulk counting, as
Stockfish's own perft does).  Prints the median nodes per second of each and their ratio.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time

from jitfish.movegen import Position
from jitfish.protocol.client import EngineConfig, EngineError, Limits, UciEngine, open_engine

POSITIONS = [
    # (label, variant, FSF UCI_Variant, fen or None for the start, depth)
    ("chess start", "chess", "chess", None, 5),
    ("kiwipete", "chess", "chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("courier start", "courier", "courier", None, 5),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench perft", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per engine and position (default 5)")
    ap.add_argument("--fsf", default=shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish",
                    help="fairy-stockfish binary (Debian package: /usr/games/fairy-stockfish)")
    ap.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args([a for a in (argv or []) if a != "perft"] if argv is not None else None)
    engines: dict[str, UciEngine] = {}
    try:
        for variant in {p[2] for p in POSITIONS}:
            engines[variant] = open_engine(EngineConfig(args.fsf, proto="uci"), variant)
    except EngineError as exc:
        print(f"Error: cannot start fairy-stockfish ({exc}); install it: apt-get install fairy-stockfish",
              file=sys.stderr)
        return 2
    print(f"{'position':16} {'depth':>5} {'nodes':>10} {'jitfish nps':>13} {'fsf nps':>13} {'ratio':>6}")
    ratios = []
    for label, variant, fsf_variant, fen, depth in POSITIONS:
        pos = Position(variant, fen)
        pos.perft(2)  # warm-up: load or compile the kernels
        ours, theirs = [], []
        nodes = 0
        for _ in range(args.runs):
            t0 = time.perf_counter()
            nodes = pos.perft(depth)
            ours.append(nodes / (time.perf_counter() - t0))
            fsf = engines[fsf_variant]
            fsf.new_game(Limits(), pos.fen())
            fnodes, dt = fsf.perft(depth)
            if fnodes != nodes:
                print(f"Error: {label}: jitfish counts {nodes}, fairy-stockfish {fnodes}", file=sys.stderr)
                return 1
            theirs.append(fnodes / dt)
        a, b = statistics.median(ours), statistics.median(theirs)
        ratios.append(a / b)
        print(f"{label:16} {depth:>5} {nodes:>10} {a:>13,.0f} {b:>13,.0f} {a / b:>6.2f}")
    for eng in engines.values():
        eng.quit()
    print(f"median of {args.runs} runs each; ratio = jitfish / fairy-stockfish nodes per second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
