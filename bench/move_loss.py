"""How much each engine's chosen moves lose in fairy-stockfish's judgement, on positions of real games.

    python -m jitfish.bench.move_loss --variant chess --pgn 'bench/games/strength/s3[57]_fsf_chess.pgn' \
        --who jitfish --positions 300 --seed 391 --movetime 0.3 --depth 14 \
        --engine cmd=jitfish,name=main --engine "cmd=env JITFISH_SEARCH_PARAMS=a=1 jitfish,name=a=1"

A screen of an evaluation or search change against the engine the issue's bar is measured
against, before any match: self-play measures a change against jitfish itself, and a change
that wins there may still not play the moves fairy-stockfish punishes less, or the reverse.

1. Positions: every position of the ``--pgn`` games where ``--who`` was to move on its own (not a
   ``{book}`` move), from move ``--min-move`` to ``--max-move``, not in check, unique, and
   ``--positions`` of them drawn with ``--seed``.
2. Each ``--engine`` chooses a move in each position with ``--movetime`` seconds (or its own ``st=``,
   ``depth=`` or ``nodes=``; a new game from the FEN each time: no history, an empty hash where
   the engine clears it on a new game).
3. fairy-stockfish (``--fsf``, one thread) searches each position to ``--depth`` for its own best
   move, and judges every chosen move (and its own) by a search of the position after it to
   ``--depth`` - 1: a move's worth is minus that score, from the mover's side, clipped to
   +/- ``--clip`` centipawns (a mate counts as the clip).  A move's loss is its worth less the
   worth of fairy-stockfish's move (it can be below 0: the judge's two searches differ).
4. Prints per engine the mean loss with its standard error, the median, the share of moves
   losing ``--big`` or more, and how often it chose fairy-stockfish's move; then each engine's
   mean loss less the first engine's on the same positions (paired: only positions where the
   two chose differently add to the difference's spread).

Judgements are cached in ``--cache`` (JSON, by FEN and move, with the depth), so the reference and
the moves two versions share are searched once across runs.  Positions are shared between
``--workers`` threads, each with its own engine processes.  Every number comes from the command
line; the judge is fairy-stockfish's search, biased towards its own evaluation, so a screen here
decides which change to play, never whether to keep it (that is the match's).
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import random
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from jitfish.bench.match_cli import engine_config
from jitfish.bench.pgn_stats import parse_comment
from jitfish.bench.tune_psqt import _fen_key
from jitfish.movegen import Position, load_spec
from jitfish.movegen.pgn import read_pgn
from jitfish.protocol.client import EngineConfig, GoRequest, Limits, open_engine

__all__ = ["game_positions", "Judge", "main"]

FSF = "/usr/games/fairy-stockfish"


def game_positions(variant: str, paths: list[Path], who: str, min_move: int, max_move: int) -> list[str]:
    """The FENs where ``who`` chose a move itself (its comment is not ``book``), moves ``min_move``
    to ``max_move``, not in check, unique (by placement, side, castling and en passant), in file order."""
    name = load_spec(variant).name
    seen: set[str] = set()
    out = []
    for path in paths:
        for g in read_pgn(path.read_text(errors="replace")):
            if g.variant != name or who not in (g.tags.get("White"), g.tags.get("Black")):
                continue
            side = 0 if g.tags.get("White") == who else 1
            try:
                pos = Position.from_pgn(g)
                for ply, san in enumerate(g.moves):
                    comment = g.comments[ply] if ply < len(g.comments) else ""
                    move_no = ply // 2 + 1
                    if pos.turn == side and min_move <= move_no <= max_move and comment.strip() != "book" \
                            and parse_comment(comment)[2] is not None and not pos.is_check():
                        fen = pos.fen()
                        key = _fen_key(fen)
                        if key not in seen:
                            seen.add(key)
                            out.append(fen)
                    pos.push_san(san)
            except Exception:  # noqa: BLE001 -- a game our reader refuses adds no positions
                continue
    return out


class Judge:
    """fairy-stockfish's verdicts, cached: ``best(fen)`` (its move at ``depth``) and ``worth(fen, move)``
    (minus its score ``depth`` - 1 plies after the move, the mover's side, clipped)."""

    def __init__(self, variant: str, depth: int, clip: int, cache: dict, lock: threading.Lock, fsf: str = FSF):
        self.variant, self.depth, self.clip, self.cache, self.lock = variant, depth, clip, cache, lock
        self.eng = open_engine(EngineConfig(fsf, proto="uci", options={"Threads": "1", "Hash": "16"}), variant)

    def _search(self, fen: str, moves: list[str], depth: int) -> tuple[str | None, int]:
        self.eng.new_game(Limits(depth=depth), fen)
        turn = 0 if fen.split()[1] == "w" else 1
        r = self.eng.go(GoRequest(moves=moves, side=turn if len(moves) % 2 == 0 else 1 - turn, budget=600.0))
        info = r.info
        if info.mate is not None:
            s = self.clip if info.mate > 0 else -self.clip
        elif info.score is None:
            s = 0  # no score: a position with no move (mate or stalemate is scored by the caller)
        else:
            s = max(-self.clip, min(self.clip, info.score))
        return r.move, s

    def best(self, fen: str) -> str:
        key = f"{self.depth}|{fen}|best"
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        move, _ = self._search(fen, [], self.depth)
        with self.lock:
            self.cache[key] = move
        return move

    def worth(self, fen: str, move: str) -> int:
        key = f"{self.depth}|{fen}|{move}"
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        pos = Position(self.variant, fen)
        pos.push(pos.parse_move(move))
        out = pos.outcome()
        if out is not None:  # the move ends the game: mate for the mover, or a draw
            w = 0 if out[0] == "1/2-1/2" else self.clip
        else:
            _, s = self._search(fen, [move], self.depth - 1)
            w = -s
        with self.lock:
            self.cache[key] = w
        return w

    def quit(self) -> None:
        self.eng.quit()


def _work(args, configs: list[EngineConfig], fens: list[str], cache: dict, lock: threading.Lock,
          bar) -> list[tuple[str, str, list[str], list[int]]]:
    """Choices and losses for ``fens``: (fen, judge's move, each engine's move, each engine's loss)."""
    judge = Judge(args.variant, args.depth, args.clip, cache, lock, args.fsf)
    engines = [open_engine(c, args.variant) for c in configs]
    rows = []
    try:
        for fen in fens:
            turn = 0 if fen.split()[1] == "w" else 1
            choices = []
            for eng, cfg in zip(engines, configs):
                lim = cfg.limits if cfg.limits and (cfg.limits.movetime or cfg.limits.depth or cfg.limits.nodes) \
                    else Limits(movetime=args.movetime)
                eng.new_game(lim, fen)
                r = eng.go(GoRequest(moves=[], side=turn, budget=(lim.movetime or 0) * 10 + 120))
                pos = Position(args.variant, fen)
                choices.append(pos.move_name(pos.parse_move(r.move)) if r.move else "")
            ref = judge.best(fen)
            base = judge.worth(fen, ref)
            losses = [base - judge.worth(fen, m) if m else 2 * args.clip for m in choices]
            rows.append((fen, ref, choices, losses))
            bar.update(1)
    finally:
        judge.quit()
        for eng in engines:
            eng.quit()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.move_loss", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--pgn", action="append", required=True, help="PGN files (globs; repeatable)")
    ap.add_argument("--who", default="jitfish", help="the player whose positions are taken (PGN name)")
    ap.add_argument("--min-move", type=int, default=6)
    ap.add_argument("--max-move", type=int, default=30)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--movetime", type=float, default=0.3, help="seconds a move for the engines under test")
    ap.add_argument("--depth", type=int, default=14, help="the judge's depth for its own move")
    ap.add_argument("--clip", type=int, default=1000, help="centipawns a judged score is clipped to")
    ap.add_argument("--big", type=int, default=100, help="a loss this large counts as a mistake")
    ap.add_argument("--engine", action="append", required=True, metavar="SETTINGS",
                    help="an engine as for jitfish match (cmd=...,name=...; st=SECONDS, depth=N or nodes=N its own "
                         "limit); the first is the base")
    ap.add_argument("--fsf", default=FSF, help="the judging fairy-stockfish")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, help="JSON file of judgements kept across runs")
    ap.add_argument("--out", type=Path, help="write every position's choices and losses here (JSON lines)")
    a = ap.parse_args(argv)

    paths = sorted({Path(p) for pat in a.pgn for p in (glob.glob(pat) or [pat])})
    fens = game_positions(a.variant, paths, a.who, a.min_move, a.max_move)
    if not fens:
        print(f"no positions of {a.who} in {len(paths)} files", file=sys.stderr)
        return 1
    random.Random(a.seed).shuffle(fens)
    fens = fens[:a.positions]
    configs = [engine_config([e]) for e in a.engine]
    names = [c.name or c.default_name() for c in configs]
    cache: dict = json.loads(a.cache.read_text()) if a.cache and a.cache.exists() else {}
    lock = threading.Lock()
    chunks = [fens[i::a.workers] for i in range(a.workers)]
    bar = tqdm(total=len(fens), desc="positions", unit="pos", file=sys.stderr)
    try:
        with ThreadPoolExecutor(a.workers) as ex:
            parts = list(ex.map(lambda ch: _work(a, configs, ch, cache, lock, bar), chunks))
    finally:
        bar.close()
        if a.cache:
            a.cache.write_text(json.dumps(cache))
    rows = [r for p in parts for r in p]
    if a.out:
        with a.out.open("w") as f:
            for fen, ref, ch, ls in rows:
                f.write(json.dumps({"fen": fen, "judge": ref, "moves": dict(zip(names, ch)),
                                    "losses": dict(zip(names, ls))}) + "\n")
    n = len(rows)
    print(f"{n} positions of {a.who} ({len(paths)} files, moves {a.min_move}-{a.max_move}, seed {a.seed}); "
          f"engines at {a.movetime} s a move; fairy-stockfish judges at depth {a.depth}")
    print(f"{'engine':24s} {'mean loss':>16s} {'median':>7s} {'>=' + str(a.big):>7s} {'= judge':>8s}")
    for k, name in enumerate(names):
        ls = [r[3][k] for r in rows]
        se = statistics.stdev(ls) / math.sqrt(n) if n > 1 else 0.0
        big = sum(1 for x in ls if x >= a.big) / n
        same = sum(1 for r in rows if r[2][k] == r[1]) / n
        print(f"{name:24s} {statistics.mean(ls):8.1f} +/- {se:5.1f} {statistics.median(ls):7.0f} "
              f"{100 * big:6.1f}% {100 * same:7.1f}%")
    for k in range(1, len(names)):
        d = [r[3][k] - r[3][0] for r in rows]
        se = statistics.stdev(d) / math.sqrt(n) if n > 1 else 0.0
        differ = sum(1 for r in rows if r[2][k] != r[2][0])
        print(f"{names[k]} less {names[0]}: {statistics.mean(d):+.1f} +/- {se:.1f} cp a move "
              f"({differ} of {n} moves differ)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
