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
import subprocess
import sys
import time

POSITIONS = [
    # (label, variant, FSF UCI_Variant, fen or None for the start, depth)
    ("chess start", "chess", "chess", None, 5),
    ("kiwipete", "chess", "chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("courier start", "courier", "courier", None, 5),
]


class UciPerft:
    """A fairy-stockfish process that answers `go perft N`."""

    def __init__(self, path: str):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._send("uci")
        self._wait("uciok")

    def _send(self, line: str) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _wait(self, prefix: str) -> str:
        assert self.proc.stdout
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line
        raise RuntimeError(f"fairy-stockfish exited before {prefix!r}")

    def perft(self, variant: str, fen: str | None, depth: int) -> tuple[int, float]:
        self._send(f"setoption name UCI_Variant value {variant}")
        self._send("position startpos" if fen is None else f"position fen {fen}")
        self._send("isready")
        self._wait("readyok")
        t0 = time.perf_counter()
        self._send(f"go perft {depth}")
        line = self._wait("Nodes searched")
        return int(line.split(":")[1]), time.perf_counter() - t0

    def close(self) -> None:
        self._send("quit")
        self.proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench perft", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per engine and position (default 5)")
    ap.add_argument("--fsf", default=shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish",
                    help="fairy-stockfish binary (Debian package: /usr/games/fairy-stockfish)")
    ap.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args([a for a in (argv or []) if a != "perft"] if argv is not None else None)
    from jitfish.movegen import Position

    try:
        fsf = UciPerft(args.fsf)
    except OSError as exc:
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
            fnodes, dt = fsf.perft(fsf_variant, fen, depth)
            if fnodes != nodes:
                print(f"Error: {label}: jitfish counts {nodes}, fairy-stockfish {fnodes}", file=sys.stderr)
                return 1
            theirs.append(fnodes / dt)
        a, b = statistics.median(ours), statistics.median(theirs)
        ratios.append(a / b)
        print(f"{label:16} {depth:>5} {nodes:>10} {a:>13,.0f} {b:>13,.0f} {a / b:>6.2f}")
    fsf.close()
    print(f"median of {args.runs} runs each; ratio = jitfish / fairy-stockfish nodes per second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
