"""Time to a fixed depth, jitfish beside fairy-stockfish, on positions from real games.

    jitfish bench depth [--variant chess --variant courier] [--depth 9] [--positions 40] [--runs 3]
    jitfish bench depth --pgn games.pgn --variant courier    # positions from other games
    jitfish bench depth --write-positions FILE --pgn A.pgn --pgn B.pgn    # make a positions file
    jitfish bench depth --depth 10 --per-depth    # both trees' nodes at the end of every iteration

At the same time per move, an engine's depth is set by two things: how fast it searches and how
big its tree is.  Nodes per second alone (``bench nps``) hide the second.  The engines count
nodes differently (jitfish counts every entry into its search, re-searches and null-move children
included; Stockfish counts the moves it makes), though on these positions the two counts of jitfish's
tree differ by 3-5% (bench/RESULTS.md, twentieth session), so ``--per-depth`` compares the trees
iteration by iteration; the fair figure for the whole is still the time each engine needs to
finish the same depth on the same positions.  Each position is searched from a new game (empty
hash of ``--hash`` MB, cleared histories) by jitfish in this process and by fairy-stockfish over
UCI, alternating; a run's figure is the total wall time over the positions (jitfish: its own
search, from the call to the result; fairy-stockfish: from ``go`` to ``bestmove``, pipe included),
and the table gives the median of ``--runs`` runs, with jitfish's nodes and CPU time.  Variants
fairy-stockfish does not play with jitfish's rules are searched by jitfish alone.

The positions shipped with jitfish (``positions/depth.txt``) are those of
``--write-positions``: every game's position at plies 16, 30 and 50 (when the game got there and
the side to move has a move), shuffled with ``random.Random(1)``, the first 40 per variant, from
the fourteenth session's games against fairy-stockfish (chess, courier), and self-play games of
modcourier, Cows and Butterflies and Cleopatra (the PGNs under ``bench/games/``; see the file's
header).
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

from jitfish.engine import Engine
from jitfish.engine import Limits as SearchLimits
from jitfish.movegen import Position
from jitfish.movegen.pgn import read_pgn
from jitfish.protocol.client import EngineConfig, EngineError, GoRequest, Limits, SearchInfo, UciEngine, open_engine

POSITIONS_FILE = Path(__file__).with_name("positions") / "depth.txt"
PLIES = (16, 30, 50)
# variants fairy-stockfish 11.1 plays with jitfish's rules under the same name
FSF_VARIANTS = ("chess", "courier")


def positions_from_pgn(paths: list[str], per_variant: int, seed: int = 1,
                       plies: tuple[int, ...] = PLIES) -> list[tuple[str, str]]:
    """(variant, FEN) of every game's position at ``plies`` (with a move to play), shuffled by
    ``random.Random(seed)``, the first ``per_variant`` of each variant, in shuffled order."""
    found: list[tuple[str, str]] = []
    for path in paths:
        for g in read_pgn(Path(path).read_text()):
            fen = g.tags.get("FEN")
            p = Position(g.variant, fen) if fen else Position(g.variant)
            for i, mv in enumerate(g.moves):
                if i in plies and p.legal_moves():
                    found.append((g.variant, p.fen()))
                if i >= max(plies):
                    break
                p.push_san(mv)
    random.Random(seed).shuffle(found)
    taken: dict[str, int] = {}
    out = []
    for v, fen in found:
        if taken.get(v, 0) < per_variant:
            taken[v] = taken.get(v, 0) + 1
            out.append((v, fen))
    return out


def read_positions(path: Path) -> list[tuple[str, str]]:
    """``variant|FEN`` lines; ``#`` starts a comment."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        variant, sep, fen = line.partition("|")
        if not sep:
            raise ValueError(f"{path}:{n}: expected variant|FEN, got {line!r}")
        out.append((variant.strip(), fen.strip()))
    return out


def fsf_time(fsf: UciEngine, fen: str, depth: int,
             per_depth: dict[int, int] | None = None) -> tuple[float, int]:
    """fairy-stockfish's (seconds from go to bestmove, nodes) for one search to ``depth``, after
    ``ucinewgame`` (an empty hash).  ``per_depth`` gets, for every depth it reported, its node
    count at the last line of that depth (the end of the iteration)."""
    fsf.new_game(Limits(depth=depth), fen)
    side = 1 if fen.split()[1] == "b" else 0
    hook = None
    if per_depth is not None:
        def hook(info: SearchInfo) -> None:
            if info.depth is not None and info.nodes is not None:
                per_depth[info.depth] = info.nodes
    reply = fsf.go(GoRequest(moves=[], side=side, budget=600, on_info=hook))
    return reply.elapsed, reply.info.nodes or 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench depth", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", action="append", default=None,
                    help="a variant to measure (repeat; default: every variant of the positions)")
    ap.add_argument("--depth", type=int, default=9, help="search depth (default 9)")
    ap.add_argument("--positions", type=int, default=40, help="positions per variant at most (default 40)")
    ap.add_argument("--runs", type=int, default=3, help="runs over the positions; medians are printed (default 3)")
    ap.add_argument("--hash", type=int, default=16, help="hash MB for both engines (default 16)")
    ap.add_argument("--pgn", action="append", default=[], metavar="FILE",
                    help="take the positions from these games instead of the shipped file")
    ap.add_argument("--seed", type=int, default=1, help="shuffle seed for --pgn positions (default 1)")
    ap.add_argument("--write-positions", metavar="FILE", help="write the --pgn positions to FILE and stop")
    ap.add_argument("--fsf", default=shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish",
                    help="fairy-stockfish command (default: from PATH)")
    ap.add_argument("--no-fsf", action="store_true", help="jitfish alone")
    ap.add_argument("--per-depth", action="store_true",
                    help="also print each engine's nodes at the end of every iteration (summed over the "
                         "positions, last run): where in the tree the two engines' sizes part")
    args = ap.parse_args(argv)
    if args.depth < 1 or args.runs < 1 or args.positions < 1:
        ap.error("--depth, --runs and --positions must be at least 1")
    try:
        if args.pgn:
            pos_list = positions_from_pgn(args.pgn, args.positions, args.seed)
        else:
            pos_list = read_positions(POSITIONS_FILE)
    except (OSError, ValueError) as exc:  # FenError, MoveError and VariantError are ValueErrors
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    if args.write_positions:
        if not args.pgn:
            ap.error("--write-positions needs --pgn")
        head = (f"# variant|FEN: plies {', '.join(map(str, PLIES))} of every game, shuffled with random.Random({args.seed}),"
                f" the first {args.positions} per variant, from:\n" + "".join(f"#   {p}\n" for p in args.pgn))
        Path(args.write_positions).write_text(head + "".join(f"{v}|{f}\n" for v, f in pos_list))
        print(f"{len(pos_list)} positions written to {args.write_positions}")
        return 0
    variants = list(dict.fromkeys(v for v, _f in pos_list))
    if args.variant:
        unknown = [v for v in args.variant if v not in variants]
        if unknown:
            print(f"Error: no positions of {', '.join(unknown)} (the positions have: {', '.join(variants)})",
                  file=sys.stderr)
            return 2
        variants = list(dict.fromkeys(args.variant))
    per = {v: [f for w, f in pos_list if w == v][:args.positions] for v in variants}

    eng = Engine(hash_mb=args.hash)
    print(f"{'variant':28} {'pos':>4} {'jitfish s':>10} {'cpu s':>7} {'nodes':>11} {'fsf s':>8} {'fsf nodes':>11} {'time ratio':>10}")
    for v in variants:
        fsf = None
        if not args.no_fsf and v in FSF_VARIANTS:
            try:
                fsf = open_engine(EngineConfig(args.fsf, proto="uci", options={"Hash": str(args.hash), "Threads": "1"}), v)
            except EngineError as exc:
                print(f"(fairy-stockfish not run: {exc})", file=sys.stderr)
        eng.warmup(v)
        ours, cpu, theirs = [], [], []
        nodes = fnodes = 0
        j_iter: dict[int, int] = {}
        f_iter: dict[int, int] = {}
        for _run in range(args.runs):
            wall = proc = 0.0
            nodes = fnodes = 0
            ftime = 0.0
            j_iter, f_iter = {}, {}
            for fen in per[v]:
                pos = Position(v, fen)
                eng.new_game()
                j_pos: dict[int, int] = {}
                f_pos: dict[int, int] = {}
                t0, c0 = time.perf_counter(), time.process_time()
                res = eng.search(pos, SearchLimits(depth=args.depth),
                                 on_info=(lambda i, acc=j_pos: acc.__setitem__(i.depth, i.nodes)) if args.per_depth else None)
                wall += time.perf_counter() - t0
                proc += time.process_time() - c0
                nodes += res.nodes
                if fsf is not None:
                    s, n = fsf_time(fsf, fen, args.depth, f_pos if args.per_depth else None)
                    ftime += s
                    fnodes += n
                for acc, got in ((j_iter, j_pos), (f_iter, f_pos)):
                    for dd, nn in got.items():
                        acc[dd] = acc.get(dd, 0) + nn
            ours.append(wall)
            cpu.append(proc)
            theirs.append(ftime)
        a = statistics.median(ours)
        line = f"{v:28} {len(per[v]):>4} {a:>10.2f} {statistics.median(cpu):>7.2f} {nodes:>11,}"
        if fsf is not None:
            b = statistics.median(theirs)
            line += f" {b:>8.2f} {fnodes:>11,} {a / b if b else 0:>10.2f}"
            fsf.quit()
        print(line, flush=True)
        if args.per_depth:
            for dd in range(1, args.depth + 1):
                jn, fn = j_iter.get(dd, 0), f_iter.get(dd, 0)
                row = f"  {v} depth {dd:>2}: jitfish nodes {jn:>11,}"
                if fsf is not None:
                    row += f"  fsf nodes {fn:>11,}  ratio {jn / fn if fn else 0:5.2f}"
                print(row, flush=True)
    print(f"depth {args.depth}, median of {args.runs} runs (seconds for all the positions of a variant; "
          f"nodes: each engine's own count; jitfish's is within 5% of Stockfish's way, see bench/RESULTS.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
