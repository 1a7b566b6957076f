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
import subprocess
import sys
import time

POSITIONS = [
    ("chess start", "chess", "chess", None),
    ("kiwipete", "chess", "chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("courier start", "courier", "courier", None),
]


def fsf_nps(proc: subprocess.Popen, variant: str, fen: str | None, movetime: float) -> int:
    def send(line: str) -> None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    send("ucinewgame")
    send(f"setoption name UCI_Variant value {variant}")
    send("position startpos" if fen is None else f"position fen {fen}")
    send("isready")
    for line in proc.stdout:
        if line.startswith("readyok"):
            break
    send(f"go movetime {int(movetime * 1000)}")
    nps = 0
    for line in proc.stdout:
        parts = line.split()
        if "nps" in parts:
            nps = int(parts[parts.index("nps") + 1])
        if line.startswith("bestmove"):
            break
    return nps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench nps", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--movetime", type=float, default=2.0, help="seconds per search (default 2)")
    ap.add_argument("--fsf", default=shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish")
    args = ap.parse_args(argv)
    from jitfish.engine.search import Engine, Limits
    from jitfish.movegen import Position

    try:
        proc = subprocess.Popen([args.fsf], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, bufsize=1)
    except OSError as exc:
        print(f"Error: cannot start fairy-stockfish ({exc})", file=sys.stderr)
        return 2
    proc.stdin.write("uci\nsetoption name Hash value 16\nsetoption name Threads value 1\n")
    proc.stdin.flush()
    eng = Engine(hash_mb=16)
    eng.warmup("chess")
    print(f"{'position':16} {'jitfish nps':>12} {'fsf nps':>12} {'ratio':>6}")
    for label, variant, fsf_variant, fen in POSITIONS:
        ours, theirs = [], []
        for _ in range(args.runs):
            eng.new_game()
            t0 = time.perf_counter()
            res = eng.search(Position(variant, fen), Limits(movetime=args.movetime, move_overhead=0))
            ours.append(res.nodes / (time.perf_counter() - t0))
            theirs.append(fsf_nps(proc, fsf_variant, fen, args.movetime))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{label:16} {a:>12,.0f} {b:>12,.0f} {a / b if b else 0:>6.2f}")
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    print(f"median of {args.runs} searches of {args.movetime} s each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
