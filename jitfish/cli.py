"""The ``jitfish`` command: the top of the package, above every layer.

    jitfish                          the engine: XBoard/CECP or UCI on stdin (protocol/loop.py)
    jitfish perft DEPTH [--variant NAME] [--fen FEN] [--divide]
    jitfish variants                 the variants jitfish plays
    jitfish check FILE               validate a variant file (and its weights) without playing
    jitfish bench [...]              search signature and speed (bench/search_bench.py)
    jitfish bench perft|nps [...]    perft or search speed against fairy-stockfish
    jitfish bench depth [...]        time to a fixed depth against fairy-stockfish (bench/depth_bench.py)
    jitfish match ...                engine-vs-engine matches (bench/match_cli.py)
    jitfish board [PGN...]           a web board: play, watch and replay (protocol/board/)

``--variants FILE_OR_DIR`` (repeatable, anywhere on the line) adds variant files for every
command, the engine included; so does ``$JITFISH_VARIANTS`` (paths separated by ``:``).
``$JITFISH_SEARCH_PARAMS`` (``name=value,...``) sets some of the search's tuned numbers
(``engine/search.py``, ``PARAMS``): what ``python -m jitfish.bench.spsa`` gives the engines it plays.

The layers import only downwards (movegen < eval < engine < protocol < bench); this module,
above them all, imports from each.
"""
from __future__ import annotations

import argparse
import os
import select
import sys
import time

from tqdm import tqdm

from jitfish.bench.depth_bench import main as depth_main
from jitfish.bench.match_cli import add_match_parser
from jitfish.bench.perft_bench import main as perft_main
from jitfish.bench.search_bench import main as search_main
from jitfish.bench.search_nps import main as nps_main
from jitfish.bench.startup import main as startup_main
from jitfish.engine.search import parse_params, unknown_params
from jitfish.eval import eval_tables, search_settings
from jitfish.eval.tables import psqt_file, weights_file
from jitfish.movegen import FenError, Position, VariantError, add_variant_path, load_spec, load_variant, variant_names
from jitfish.movegen.spec import is_shipped, registry_problems
from jitfish.protocol.board import main as board_main
from jitfish.protocol.loop import main as engine_main
from jitfish.protocol.xboard import xboard_view

__all__ = ["main", "build_parser"]


def _perft(args: argparse.Namespace) -> int:
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
        total = 0
        bar = tqdm(total=pos.count_legal(), desc=f"perft {depth}", unit="move", file=sys.stderr,
                   disable=not sys.stderr.isatty() or depth < 5, leave=False)
        for name, n in pos.divide_iter(depth):
            total += n
            bar.update(1)
            if args.divide:
                bar.write(f"{name}: {n}", file=sys.stdout)
        bar.close()
        nodes = total
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
    for name in variant_names():
        spec = load_spec(name)
        alias = f" (also {', '.join(spec.aliases)})" if spec.aliases else ""
        notes = []
        if not is_shipped(name):
            notes.append(f"from {spec.source}")
        wfile = weights_file(spec)
        if wfile is None:
            notes.append("weights derived from the pieces")
        elif psqt_file(spec, wfile).exists():
            notes.append("learned piece-square tables")
        if wfile is not None:
            try:
                own = search_settings(load_variant(name))
            except (VariantError, ValueError) as exc:
                notes.append(f"bad weights: {exc}")
            else:
                if own:
                    notes.append("own search numbers: " + ", ".join(f"{k}={v}" for k, v in own.items()))
        note = f" [{'; '.join(notes)}]" if notes else ""
        print(f"{name}{alias}: {spec.description} {spec.files}x{spec.ranks}{note}")
    for problem in registry_problems():
        print(f"Error: {problem}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    """Validate a variant file: the spec, its tables and start position, the weights, the
    XBoard view; then a small perft as a sanity check."""
    try:
        variant = load_variant(args.file)
        spec = variant.spec
        wfile = weights_file(spec)
        eval_tables(variant)
        own = search_settings(variant)
        unknown = unknown_params(own)
        if unknown:
            raise ValueError(f"{wfile.name if wfile else spec.name}: [search]: unknown search parameters {unknown}")
        pos = Position(variant)
        view = xboard_view(args.file)
    except (VariantError, FenError, ValueError, OSError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print(f"{spec.name}: {spec.description or '(no description)'}")
    print(f"  board {spec.files}x{spec.ranks}, pieces: "
          + ", ".join(f"{p.letter} {p.name} ({p.betza})" for p in spec.pieces))
    print(f"  weights: {wfile if wfile else 'derived from the pieces (no weight file)'}")
    if wfile and psqt_file(spec, wfile).exists():
        print(f"  learned piece-square tables: {psqt_file(spec, wfile)}")
    if own:
        print("  search numbers (over the engine's defaults): " + ", ".join(f"{k}={v}" for k, v in own.items()))
    how = "XBoard's own" if view.builtin else ("not playable: " + view.reason if not view.playable else "defined by jitfish")
    print(f"  XBoard: {view.name} ({how})")
    for limit in view.limits:
        print(f"  XBoard cannot: {limit}")
    counts = [str(pos.perft(d)) for d in range(1, args.depth + 1)]
    print(f"  perft 1..{args.depth} from the start: {' '.join(counts)}")
    print("OK")
    return 0


def _board(args: argparse.Namespace) -> int:
    return board_main(port=args.port, host=args.host, browser=not args.no_browser, engines=args.engine,
                      config=args.config, pgn_files=args.pgn, hash_mb=args.hash)


def _bench(rest: list[str]) -> int:
    if rest[:1] == ["perft"]:
        return perft_main(rest[1:])
    if rest[:1] == ["nps"]:
        return nps_main(rest[1:])
    if rest[:1] == ["startup"]:
        return startup_main(rest[1:])
    if rest[:1] == ["depth"]:
        return depth_main(rest[1:])
    return search_main(rest)


def _variants_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variants", metavar="FILE_OR_DIR", action="append", default=[],
                   help="add a variant file, or every *.toml file of a folder (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="jitfish",
        description="jitfish: a chess-variant engine with numba-compiled bitboard move generation. "
                    "With no command it is the engine (XBoard/CECP v2 or UCI on stdin).",
        epilog="Variants: " + ", ".join(variant_names()) + ". Add your own with --variants FILE "
               "(format: movegen/variants/FORMAT.md).",
    )
    _variants_option(ap)
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("perft", help="count the leaf nodes of the legal move tree",
                       description="Count leaf nodes of the legal move tree to DEPTH. Prints "
                                   "'Nodes searched: N' last; time and nodes/s go to stderr.")
    p.add_argument("depth", type=int, metavar="DEPTH", help="depth in plies (>= 0)")
    p.add_argument("--variant", "-v", default="chess", help="variant name, alias or file (default: chess)")
    p.add_argument("--fen", "-f", default=None, help="start from this FEN (default: the variant's start)")
    p.add_argument("--divide", "-d", action="store_true", help="print 'MOVE: COUNT' for every root move")
    _variants_option(p)
    p.set_defaults(func=_perft)
    v = sub.add_parser("variants", help="list the variants jitfish plays")
    _variants_option(v)
    v.set_defaults(func=_variants)
    c = sub.add_parser("check", help="validate a variant file and its weights without playing",
                       description="Load a variant file as every part of jitfish would: the spec (unknown "
                                   "keys and contradictions are named), the start position, the evaluation "
                                   "weights (<name>.weights.toml beside it, else derived from the pieces) and "
                                   "what XBoard is told; then perft from the start. Exit status 2 on an error.")
    c.add_argument("file", metavar="FILE", help="the variant file (.toml)")
    c.add_argument("--depth", type=int, default=3, help="perft depth of the sanity check (default 3)")
    _variants_option(c)
    c.set_defaults(func=_check)
    b = sub.add_parser("bench", help="search node signature and speed; 'bench perft|nps|startup' against peers",
                       description="jitfish bench [--hash MB]: fixed positions of every variant searched to fixed "
                                   "depths; prints 'Nodes: N' (deterministic) and nodes/s. "
                                   "jitfish bench perft [--runs N]: perft speed against fairy-stockfish. "
                                   "jitfish bench nps [--runs N]: search speed against fairy-stockfish. "
                                   "jitfish bench depth [--depth N]: time to a depth against fairy-stockfish. "
                                   "jitfish bench startup [--runs N]: the engine's start-up time, cold and warm.")
    b.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the benchmark (try: bench perft --help)")
    w = sub.add_parser("board", help="a web board to play, watch and replay every variant",
                       description="Start a local web board (Starlette on uvicorn) and open it in the browser: "
                                   "play against jitfish or an engine named here, person against person, replay "
                                   "the PGN files named here, watch 'jitfish match --board PORT' live.")
    w.add_argument("pgn", nargs="*", metavar="PGN", help="PGN files the page may replay")
    w.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine only)")
    w.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    w.add_argument("--engine", action="append", default=[], metavar="cmd=COMMAND[,name=N,proto=P]",
                   help="an engine the page may play against (repeatable; jitfish is always there)")
    w.add_argument("--config", metavar="FILE", help="a TOML file of [[engine]] tables (name, cmd, proto)")
    w.add_argument("--hash", type=int, default=16, help="jitfish's hash table per game, MB (default 16)")
    _variants_option(w)
    w.set_defaults(func=_board)
    m = add_match_parser(sub)
    _variants_option(m)
    return ap


def _take_variants(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split ``--variants X`` / ``--variants=X`` out of argv, wherever they stand."""
    paths, rest = [], []
    it = iter(range(len(argv)))
    for i in it:
        a = argv[i]
        if a == "--variants" and i + 1 < len(argv):
            paths.append(argv[i + 1])
            next(it, None)
        elif a.startswith("--variants="):
            paths.append(a.split("=", 1)[1])
        else:
            rest.append(a)
    return paths, rest


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


def main(argv: list[str] | None = None, early=None) -> int:
    """The command line; ``early`` is the engine's standard input when ``jitfish.start`` began
    reading it before the rest loaded."""
    raw = list(sys.argv[1:] if argv is None else argv)
    try:  # a tuner's search numbers (engine/search.py, PARAMS): refuse bad ones before starting
        parse_params(os.environ.get("JITFISH_SEARCH_PARAMS", ""))
    except ValueError as exc:
        print(f"Error: JITFISH_SEARCH_PARAMS: {exc}", file=sys.stderr)
        return 2
    paths, raw = _take_variants(raw)
    for path in paths:
        try:
            add_variant_path(path)
        except VariantError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    if not raw:
        # no command: the engine (XBoard/CECP or UCI, picked by the first command on stdin)
        return engine_main(early=early)
    if raw[:1] == ["bench"] and len(raw) > 1 and raw[1] not in ("-h", "--help"):
        # the benchmarks parse their own options (argparse's REMAINDER drops leading dashes)
        return _closed_pipe_ok(lambda: _bench(raw[1:]))
    ap = build_parser()
    args = ap.parse_args(_join_negative_values(raw))
    args.variants = paths
    if not getattr(args, "command", None):
        ap.print_help()
        return 0
    if args.command == "bench":
        return _closed_pipe_ok(lambda: _bench(args.rest))
    if args.command == "perft" and args.depth < 0:
        ap.error("DEPTH must be >= 0")
    return _closed_pipe_ok(lambda: args.func(args))


def _closed_pipe_ok(run) -> int:
    """A command's exit status; when the reader of its standard output has gone (``jitfish
    variants | head``), exit 1 with no traceback, as the Python documentation's note on SIGPIPE
    does it: the rest of the output, and the flush at exit, go to /dev/null.  A broken pipe to
    anything else (an engine a match drives) is an error as before."""
    try:
        status = int(run() or 0)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _stdout_gone() -> bool:
    """Is standard output a pipe whose reader has closed it?  (``poll`` reports an error on the
    writing end then; where ``poll`` is missing, as on Windows, False.)"""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _fd, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
