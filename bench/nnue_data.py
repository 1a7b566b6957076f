"""Training positions for the evaluation network: Fairy-Stockfish self-play, each position
labelled by the search that chose its move.

    python -m jitfish.bench.nnue_data --variant chess --games 2000 --nodes 4000 --seed 1 --out chess.txt

Every game starts from the variant's start position with ``--random-plies`` uniformly random
legal moves (drawn with the seed; a game number g uses ``seed + g``), then Fairy-Stockfish
(``--fsf``, UCI, one thread) plays both sides with ``--nodes`` per move; after the opening
``--random-rate`` of its moves are replaced by a random legal move (so the data holds the kind
of unbalanced positions a search meets).  The score of each search, turned to White's side,
labels the position it was searched from; positions in check, positions where the search saw
a mate and positions after a random move's search are still searched but not kept when
``|score| > --max-score``.  A game ends by the rules, at ``--max-plies``, or when the score has
been beyond ``--adjudicate`` for 6 plies in a row (the result goes to that side).

The output has one line per position, ``FEN;result;score;bestmove;game`` (result 1, 0.5 or 0
from White's side, score in centipawns from White's side), the format of
``bench/tune_psqt.py --save`` so that both tools read each other's files; its first line is
the command.  The node limit, one thread and the seeded draws make a run reproducible from its
command (Fairy-Stockfish's node-limited search is deterministic with one thread and a fresh
hash per game).
"""
from __future__ import annotations

import argparse
import random
import shlex
import sys
from pathlib import Path

from tqdm import tqdm

from jitfish.movegen import Position, load_spec
from jitfish.protocol.client import EngineConfig, GoRequest, Limits, open_engine

from .tune_psqt import FSF, Sample

__all__ = ["play_game", "main"]


def play_game(eng, variant: str, rng: random.Random, nodes: int, random_plies: int, random_rate: float,
              max_plies: int, adjudicate: int, max_score: int, game: int) -> list[Sample]:
    """One self-play game: its labelled positions (results filled in at the end)."""
    pos = Position(variant)
    start = pos.fen()
    eng.new_game(Limits(nodes=nodes), start)
    moves: list[str] = []
    out: list[Sample] = []
    result = None
    streak_side, streak = 0, 0
    while result is None and len(moves) < max_plies:
        if pos.outcome() is not None:
            break
        legal = pos.legal_moves()
        if len(moves) < random_plies:
            m = rng.choice(legal)
            name = pos.move_name(m)
        else:
            turn = pos.turn
            r = eng.go(GoRequest(moves=list(moves), side=turn, budget=120.0))
            info = r.info
            name = r.move
            if info.mate is None and info.score is not None:
                white = info.score if turn == 0 else -info.score
                if abs(white) <= max_score and not pos.is_check():
                    out.append(Sample(pos.fen(), 0.5, float(white), name, game))
                if abs(white) >= adjudicate:
                    side = 1 if white > 0 else -1
                    streak = streak + 1 if side == streak_side else 1
                    streak_side = side
                    if streak >= 6:
                        result = 1.0 if side > 0 else 0.0
                else:
                    streak = 0
            elif info.mate is not None:
                mover_wins = info.mate > 0
                result = 1.0 if mover_wins == (turn == 0) else 0.0
            if rng.random() < random_rate:
                name = pos.move_name(rng.choice(legal))
            m = pos.parse_move(name)
        pos.push(m)
        moves.append(name)
    if result is None:
        o = pos.outcome()
        if o is None:
            result = 0.5
        else:
            result = {"1-0": 1.0, "0-1": 0.0}.get(o[0], 0.5)
    for s in out:
        s.result = result
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.nnue_data", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--games", type=int, default=1000, help="self-play games to play")
    ap.add_argument("--positions", type=int, default=0, help="stop after this many positions (0: all games)")
    ap.add_argument("--nodes", type=int, default=4000, help="Fairy-Stockfish nodes per move")
    ap.add_argument("--random-plies", type=int, default=8, help="random plies at each game's start")
    ap.add_argument("--random-rate", type=float, default=0.05, help="share of later moves replaced by random ones")
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--adjudicate", type=int, default=1500, help="centipawns that end a game after 6 plies")
    ap.add_argument("--max-score", type=int, default=2500, help="positions scored beyond this are not kept")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fsf", default=FSF, help="the labelling engine (UCI)")
    ap.add_argument("--out", required=True, type=Path, help="output file (appended to with --resume)")
    ap.add_argument("--resume", action="store_true", help="skip the games already in --out and append")
    a = ap.parse_args(argv)
    load_spec(a.variant)  # a clear error for an unknown variant before the engine starts
    done = 0
    if a.resume and a.out.exists():
        games = [int(line.rsplit(";", 1)[1]) for line in a.out.read_text().splitlines()
                 if line and not line.startswith("#")]
        done = max(games) + 1 if games else 0
        fh = open(a.out, "a")
    else:
        fh = open(a.out, "w")
        fh.write("# " + " ".join(shlex.quote(x) for x in ["python", "-m", "jitfish.bench.nnue_data"]
                                 + (argv if argv is not None else sys.argv[1:])) + "\n")
    eng = open_engine(EngineConfig(a.fsf, proto="uci", options={"Threads": "1", "Hash": "16"}), a.variant)
    total = 0
    try:
        bar = tqdm(range(done, a.games), desc=f"self-play {a.variant} ({a.nodes} nodes)", unit="game",
                   file=sys.stderr)
        for g in bar:
            rng = random.Random(a.seed * 1_000_003 + g)
            samples = play_game(eng, a.variant, rng, a.nodes, a.random_plies, a.random_rate, a.max_plies,
                                a.adjudicate, a.max_score, g)
            fh.write("".join(f"{s.fen};{s.result};{s.score:g};{s.best};{s.game}\n" for s in samples))
            fh.flush()
            total += len(samples)
            bar.set_postfix(positions=total)
            if a.positions and total >= a.positions:
                break
    finally:
        eng.quit()
        fh.close()
    print(f"{total} positions written to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
