"""The ``jitfish`` command.

    jitfish                          the engine: XBoard/CECP or UCI on stdin (protocol/loop.py)
    jitfish perft DEPTH [--variant NAME] [--fen FEN] [--divide]
    jitfish variants
    jitfish bench [...]              search signature and speed (bench/search_bench.py)
    jitfish bench perft [...]        perft against fairy-stockfish (bench/perft_bench.py)
    jitfish match ...                engine-vs-engine matches (see engine/match.py)
"""
from __future__ import annotations

import argparse
import sys
import time

__all__ = ["main"]


def _perft(args: argparse.Namespace) -> int:
    from jitfish.movegen import FenError, Position, VariantError

    t0 = time.perf_counter()
    try:
        pos = Position(args.variant, args.fen)
    except (FenError, VariantError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    ready = time.perf_counter()
    depth = args.depth
    if args.divide or depth >= 5:
        # per root move: a progress bar on long runs, the divide lines when asked
        from tqdm import tqdm

        moves = pos.legal_moves()
        total = 0
        bar = tqdm(moves, desc=f"perft {depth}", unit="move", file=sys.stderr,
                   disable=not sys.stderr.isatty() or depth < 5, leave=False)
        for m in bar:
            pos.push(m)
            n = pos.perft(depth - 1)
            pos.pop()
            total += n
            if args.divide:
                bar.write(f"{pos.move_name(m)}: {n}", file=sys.stdout)
        nodes = total if depth >= 1 else 1
    else:
        nodes = pos.perft(depth)
    elapsed = time.perf_counter() - ready
    nps = nodes / elapsed if elapsed > 0 else 0.0
    print(f"Time: {elapsed * 1000:.0f} ms (start-up {(ready - t0) * 1000:.0f} ms), "
          f"{nps:,.0f} nodes/s", file=sys.stderr)
    if args.divide:
        print()
    print(f"Nodes searched: {nodes}")
    return 0


def _variants(args: argparse.Namespace) -> int:
    from jitfish.movegen import load_spec, variant_names

    for name in variant_names():
        spec = load_spec(name)
        alias = f" (also {', '.join(spec.aliases)})" if spec.aliases else ""
        print(f"{name}{alias}: {spec.description} {spec.files}x{spec.ranks}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.rest[:1] == ["perft"]:
        from jitfish.bench.perft_bench import main as perft_main

        return perft_main(args.rest[1:])
    if args.rest[:1] == ["nps"]:
        from jitfish.bench.search_nps import main as nps_main

        return nps_main(args.rest[1:])
    from jitfish.bench.search_bench import main as search_main

    return search_main(args.rest)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="jitfish",
        description="jitfish: a chess-variant engine with numba-compiled bitboard move generation.",
        epilog="Variants: chess (normal), courier, modcourier (courier-modified), modcourier2, "
               "modcourier3, cowsandbutterflies, cowsandbutterflies-reversed, cleopatra.",
    )
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("perft", help="count the leaf nodes of the legal move tree",
                       description="Count leaf nodes of the legal move tree to DEPTH. Prints "
                                   "'Nodes searched: N' last; time and nodes/s go to stderr.")
    p.add_argument("depth", type=int, metavar="DEPTH", help="depth in plies (>= 0)")
    p.add_argument("--variant", "-v", default="chess", help="variant name or alias (default: chess)")
    p.add_argument("--fen", "-f", default=None, help="start from this FEN (default: the variant's start)")
    p.add_argument("--divide", "-d", action="store_true", help="print 'MOVE: COUNT' for every root move")
    p.set_defaults(func=_perft)
    v = sub.add_parser("variants", help="list the variants jitfish plays")
    v.set_defaults(func=_variants)
    b = sub.add_parser("bench", help="search node signature and speed; 'bench perft': perft against fairy-stockfish",
                       description="jitfish bench [--hash MB]: fixed positions of every variant searched to fixed "
                                   "depths; prints 'Nodes: N' (deterministic) and nodes/s. "
                                   "jitfish bench perft [--runs N]: perft speed against fairy-stockfish.")
    b.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the benchmark (try: bench --help, bench perft --help)")
    b.set_defaults(func=_bench)
    from jitfish.engine.match import add_match_parser  # jitfish match (engine/match.py)

    add_match_parser(sub)
    return ap


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--sprt -10,0`` as ``--sprt=-10,0``: argparse takes a value starting with a dash for an
    option unless it is a plain negative number."""
    out: list[str] = []
    for a in argv:
        if out and out[-1] in ("--sprt", "--draw", "--resign") and a[:1] == "-" and a[1:2].isdigit():
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    if not (sys.argv[1:] if argv is None else argv):
        # no arguments: the engine (XBoard/CECP or UCI, picked by the first command on stdin)
        from jitfish.protocol.loop import main as engine_main

        return engine_main()
    ap = build_parser()
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["bench"] and len(raw) > 1 and raw[1] not in ("-h", "--help") or raw[:2] == ["bench", "perft"]:
        # the benchmarks parse their own options (argparse's REMAINDER drops leading dashes)
        return int(_bench(argparse.Namespace(rest=raw[1:])) or 0)
    args = ap.parse_args(_join_negative_values(raw))
    if not getattr(args, "command", None):
        ap.print_help()
        return 0
    if args.command == "perft" and args.depth < 0:
        ap.error("DEPTH must be >= 0")
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
