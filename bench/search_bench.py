"""``jitfish bench``: the search's node signature and speed.

A fixed set of positions from every variant, each searched to a fixed depth from an empty
hash.  Prints per-position nodes, then ``Nodes: N`` (the signature: the same on every run of
the same code) and the nodes per second.  A commit that changes search or evaluation names
the new signature.
"""
from __future__ import annotations

import argparse
import sys
import time

from jitfish.engine import Engine, Limits
from jitfish.movegen import Position

# (variant, fen or None for the start position, depth)
POSITIONS: list[tuple[str, str | None, int]] = [
    ("chess", None, 7),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
    ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 8),
    ("courier", None, 6),
    ("courier", "rnebmk1wbenr/1ppp1p1pppp1/4p1f5/p5p4p/P5P4P/4P1F5/1PPP1P1PPPP1/RNEBMK1WBENR w - - 0 3", 6),
    ("modcourier", None, 6),
    ("modcourier2", None, 5),
    ("modcourier3", None, 5),
    ("cowsandbutterflies", None, 5),
    ("cowsandbutterflies-reversed", None, 5),
    ("cleopatra", None, 6),
    ("cleopatra", "r1b1kbnr/pppp1ppp/2n5/4p1q1/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 4", 5),
]


def run(hash_mb: int = 16, depth_delta: int = 0, verbose: bool = True) -> tuple[int, float]:
    eng = Engine(hash_mb=hash_mb)
    eng.warmup("chess")
    total, elapsed = 0, 0.0
    for variant, fen, depth in POSITIONS:
        pos = Position(variant, fen)
        eng.new_game()
        t0 = time.perf_counter()
        res = eng.search(pos, Limits(depth=max(1, depth + depth_delta)))
        dt = time.perf_counter() - t0
        total += res.nodes
        elapsed += dt
        if verbose:
            print(f"{variant:28} depth {depth + depth_delta:2}  {res.nodes:>9} nodes  "
                  f"{res.nodes / dt if dt else 0:>10,.0f} nps  best {res.best}", file=sys.stderr)
    return total, elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench", description=__doc__.split("\n\n")[0]
                                 + " Use 'jitfish bench perft' for the perft comparison with fairy-stockfish.")
    ap.add_argument("--hash", type=int, default=16, help="hash size in MB (default 16; the signature depends on it)")
    ap.add_argument("--depth-delta", type=int, default=0, help="add this to every position's depth")
    ap.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = ap.parse_args(argv)
    total, elapsed = run(args.hash, args.depth_delta, not args.quiet)
    print(f"Time: {elapsed * 1000:.0f} ms")
    print(f"NPS: {total / elapsed if elapsed else 0:.0f}")
    print(f"Nodes: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
