"""Positions for distilling Fairy-Stockfish's static evaluation into a network: every position of
the variant's games, and positions a few random moves away from them, each labelled by
Fairy-Stockfish's ``eval`` command.

    python -m jitfish.bench.distill_data --variant courier --children 2 --seed 1 --out courier-static.txt

Why a static label: a search score mixes the evaluation with tactics that no static evaluation
can see, and it costs some 150 positions a second (``bench/nnue_data.py``); the static
evaluation is a function of the position alone (5.4 million courier positions in 12 minutes on
two processes, jitfish's evaluation of each included), so a network can be fitted to it on
millions of positions, unbalanced ones included (the random children: a search spends most of
its nodes in positions one or two bad moves away from a game).

A courier network fitted to these labels reproduced that evaluation closely and lost its matches
(bench/RESULTS.md, twenty-third session): the labels teach what the evaluation says, not how a
position plays out.

1. Positions: every position of every game of the variant in the PGN files (``--pgn``, default
   every file under ``bench/games/``) after ``--skip-plies``, none in check; for each of them,
   ``--children`` walks of 1 to ``--depth`` uniformly random legal moves (drawn with the seed;
   a walk that reaches a check or the end of the game stops before it).  No FEN twice (by board,
   side to move and rights), in a seeded order, at most ``--positions``.
2. Labels: Fairy-Stockfish (``--fsf``, UCI) ``eval``: its classical evaluation's "Total
   evaluation", pawns from White's side times 100 (its pawn is its endgame pawn), the game's
   result beside it.  ``--workers`` processes, one Fairy-Stockfish each.
3. Output: ``FEN;result;score;-;game;hand`` lines: the format of ``bench/tune_psqt.py --save``
   (the best move ``-``: there is none, and ``train_nnue --all-positions`` keeps such positions)
   and a sixth field, jitfish's hand-written static evaluation from White's side with today's
   weights (the offset of a residual network: ``train_nnue --mode residual --all-positions``
   reads it instead of evaluating millions of positions again);
   the first line is the command.  Reproducible from the command: the walks are seeded, and
   the labels are a function of the position.
"""
from __future__ import annotations

import argparse
import glob
import multiprocessing as mp
import random
import shlex
import shutil
import sys
from pathlib import Path

from tqdm import tqdm

from jitfish.eval import cache_for, eval_tables, pack_eval, static_eval
from jitfish.eval.tables import without_network
from jitfish.movegen import Position, load_spec, load_variant, read_pgn

from .tune_psqt import FSF, GAMES_DIR, RESULTS, Sample, StaticLabeller, _fen_key, save

__all__ = ["game_positions", "main"]


def game_positions(game, skip_plies: int, children: int, depth: int, rng: random.Random,
                   hand=None) -> list[tuple[str, int]]:
    """The positions of one game (``read_pgn``'s game) after ``skip_plies``, not in check, and for
    each ``children`` positions 1..``depth`` random legal moves away from it (a walk stops before a
    check or the end of the game), each with jitfish's hand-written static evaluation from White's
    side (``hand(pos)``; 0 without it); [] for a game whose moves cannot be read."""
    try:
        pos = Position.from_pgn(game)
        out = []
        for ply, san in enumerate(game.moves):
            if ply >= skip_plies and not pos.is_check():
                out.append((pos.fen(), hand(pos) if hand else 0))
                for _ in range(children):
                    made = 0
                    for _step in range(rng.randint(1, depth)):
                        moves = pos.legal_moves()
                        if not moves:
                            break
                        pos.push(rng.choice(moves))
                        made += 1
                        if pos.is_check() or not pos.legal_moves():
                            break
                        out.append((pos.fen(), hand(pos) if hand else 0))
                    for _undo in range(made):
                        pos.pop()
            pos.push_san(san)
    except Exception:  # noqa: BLE001 -- a game our SAN reader refuses gives no positions
        return []
    return out


_LAB: StaticLabeller | None = None
_HAND = None


def _init(variant: str, fsf: str) -> None:
    global _LAB, _HAND
    _LAB = StaticLabeller(variant, fsf)
    ev = without_network(eval_tables(load_variant(variant)))
    cache = cache_for(None, ev)

    def hand(pos: Position) -> int:  # White's side, as the labels
        e = int(static_eval(pack_eval(pos.pos, pos.tab, ev, cache)))
        return e if pos.turn == 0 else -e
    _HAND = hand


def _work(task: tuple[list[tuple[int, object]], int, int, int, int]) -> tuple[list[Sample], int]:
    """Positions of a chunk of games, labelled: (samples, games that could not be read)."""
    assert _LAB is not None
    games, seed, skip_plies, children, depth = task
    out, bad = [], 0
    for g, game in games:
        fens = game_positions(game, skip_plies, children, depth, random.Random(seed * 1000003 + g), _HAND)
        bad += not fens and len(game.moves) > skip_plies
        result = RESULTS[game.result]
        for fen, base in fens:
            s = _LAB.score(fen)
            if s is not None:
                out.append(Sample(fen, result, float(s), "-", g, base))
    return out, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.distill_data", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="courier")
    ap.add_argument("--pgn", nargs="*", help="PGN files or globs (default: every file under bench/games/)")
    ap.add_argument("--skip-plies", type=int, default=4, help="plies of each game not taken")
    ap.add_argument("--children", type=int, default=2, help="random walks from each game position")
    ap.add_argument("--depth", type=int, default=3, help="most random moves in a walk")
    ap.add_argument("--positions", type=int, default=0, help="at most this many positions (0: all)")
    ap.add_argument("--workers", type=int, default=2, help="Fairy-Stockfish processes")
    ap.add_argument("--fsf", default=FSF, help="Fairy-Stockfish binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if shutil.which(a.fsf) is None:
        ap.error(f"--fsf {a.fsf}: no such program (Debian: apt-get install fairy-stockfish)")
    paths = [Path(p) for pat in (a.pgn or [str(GAMES_DIR / "**" / "*.pgn")])
             for p in sorted(glob.glob(pat, recursive=True))]
    name = load_spec(a.variant).name
    games = [g for path in paths for g in read_pgn(path.read_text(errors="replace"))
             if g.variant == name and g.result in RESULTS]
    print(f"{len(games)} games of {a.variant} in {len(paths)} PGN files", file=sys.stderr)
    tasks = [([(g, games[g]) for g in range(i, min(i + 20, len(games)))], a.seed, a.skip_plies, a.children, a.depth)
             for i in range(0, len(games), 20)]
    command = " ".join(shlex.quote(x) for x in ["python", "-m", "jitfish.bench.distill_data"]
                       + (argv if argv is not None else sys.argv[1:]))
    seen: set[str] = set()
    kept: list[Sample] = []
    bad = 0
    with mp.get_context("spawn").Pool(a.workers, _init, (a.variant, a.fsf)) as pool:
        for got, b in tqdm(pool.imap(_work, tasks), total=len(tasks), desc="games (walks, fairy-stockfish eval)",
                           unit="chunk", file=sys.stderr, mininterval=5):
            bad += b
            for s in got:
                k = _fen_key(s.fen)
                if k not in seen:
                    seen.add(k)
                    kept.append(s)
    random.Random(a.seed).shuffle(kept)
    if a.positions:
        kept = kept[:a.positions]
    save(a.out, kept, command)
    print(f"wrote {len(kept)} labelled positions (distinct) to {a.out}; {bad} games could not be read",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
