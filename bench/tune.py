"""Texel tuning of piece values from jitfish's own self-play games.

    python -m jitfish.bench.tune --variant courier --games 200 --nodes 3000 --seed 1 [--write]

1. Self-play: ``--games`` games from random balanced openings (``--opening-plies`` random
   legal plies from the start, seeded), each move searched with ``--nodes`` nodes, played
   to the variant's verdict or adjudicated as a draw at ``--max-plies``; in this process, or on
   the Dask workers of ``--scheduler tcp://HOST:PORT`` (or ``local:N``), with the same games.
2. Positions: every position after the opening where the side to move is not in check,
   labelled with the game's result (1, 0.5, 0 from White's side).
3. Fit: the full static evaluation (``Engine.static_eval``, every term of the tapered
   evaluation) plus a shift of each piece type's material, the same in middlegame and
   endgame, minimises ``sum (result - sigmoid(K * eval / 400))**2`` (Texel's method: K fitted
   first on a log grid from 0.02 to 5, then one coordinate at a time, steps of 10 then 5
   centipawns, until no step helps; a value moves at most ``--max-change`` (a fraction) from its
   current one, so small samples cannot run away).
4. Prints the old and new values and the error, and warns where the fit is not to be trusted: K
   at the end of its grid (the results hardly depend on the evaluation, so the fit only shrinks
   or stretches it) or a value stopped by ``--max-change``. ``--write`` adds the shifts to
   ``value`` (and to ``value_eg`` where the file has one) in ``eval/weights/<variant>.toml``; the
   file keeps its other keys.

``--save FILE`` keeps the labelled positions (one ``FEN;result`` per line) and ``--load FILE``
fits on such a file instead of playing, so a fit can be repeated or compared without replaying
the games. Every number comes from the command line and the self-play is deterministic (a
node limit per move, a seeded opening), so a run is reproducible from its command.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import random
import sys
import threading
from pathlib import Path

import numpy as np
from tqdm import tqdm

from jitfish.engine import Engine, Limits
from jitfish.eval import eval_tables
from jitfish.eval import tables as evtables
from jitfish.movegen import Position, add_variant_path, load_spec, load_variant, variant_names
from jitfish.movegen.spec import is_shipped, variant_file

from .cluster import connect


def selfplay_openings(variant: str, games: int, opening_plies: int, seed: int) -> list[tuple[str, ...]]:
    """The random opening of every game, drawn in game order from one generator seeded by
    ``seed`` (the draws of the games played one after the other: the same openings)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pos = Position(variant)
        line = []
        for _ in range(opening_plies):
            moves = pos.legal_moves()
            if not moves or pos.outcome():
                break
            m = rng.choice(moves)
            line.append(pos.move_name(m))
            pos.push(m)
        out.append(tuple(line))
    return out


_ENGINES: dict[int, Engine] = {}  # one search engine per thread of this process, kept between games


def selfplay_game(variant: str, opening: tuple[str, ...], nodes: int, max_plies: int,
                  vfile: str | None = None) -> tuple[list[str], float, str]:
    """One self-play game from ``opening``: (FENs of its quiet positions, result from White's
    side, how it ended). Deterministic: a node limit per move, cleared tables per game; runs
    wherever it is sent (a Dask worker: a user's variant file ``vfile`` at the same path)."""
    if vfile and variant not in variant_names():
        add_variant_path(vfile)
    eng = _ENGINES.get(threading.get_ident())
    if eng is None:
        eng = _ENGINES[threading.get_ident()] = Engine(hash_mb=8)
    pos = Position(variant)
    eng.new_game()
    for mv in opening:
        pos.push(mv)
    seen = []
    while True:
        out = pos.outcome()
        if out is not None:
            return seen, {"1-0": 1.0, "0-1": 0.0}.get(out[0], 0.5), out[0] if out[0] in ("1-0", "0-1") else "draw"
        if len(pos.history) >= max_plies:
            return seen, 0.5, f"draw at {max_plies} plies"
        if not pos.is_check():
            seen.append(pos.fen())
        res = eng.search(pos, Limits(nodes=nodes))
        pos.push(res.best)


def self_play(variant: str, games: int, nodes: int, opening_plies: int, max_plies: int, seed: int,
              scheduler: str | None = None):
    """(FEN, result from White's side) of every quiet position after the opening, the games in
    order. ``scheduler`` (``tcp://HOST:PORT`` or ``local:N``) plays them on Dask workers; the
    samples are the same as in this process."""
    openings = selfplay_openings(variant, games, opening_plies, seed)
    ends = {"1-0": 0, "0-1": 0, "draw": 0, f"draw at {max_plies} plies": 0}
    results: list = [None] * games
    bar = tqdm(total=games, desc=f"self-play {variant}", unit="game", file=sys.stderr)
    if scheduler is None:
        for g, op in enumerate(openings):
            results[g] = selfplay_game(variant, op, nodes, max_plies)
            bar.update(1)
    else:
        client, cluster = connect(scheduler)
        try:
            ex = client.get_executor(pure=False)
            vfile = None if is_shipped(variant) else str(variant_file(variant))
            futures = {ex.submit(selfplay_game, variant, op, nodes, max_plies, vfile): g
                       for g, op in enumerate(openings)}
            for f in cf.as_completed(futures):  # a game lost with its worker is played again by Dask
                results[futures[f]] = f.result()
                bar.update(1)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    bar.close()
    samples: list[tuple[str, float]] = []
    for seen, result, end in results:
        ends[end] += 1
        samples += [(fen, result) for fen in seen]
    # many adjudicated draws mean the labels say more about how weakly the games were played
    # than about the material: a side that cannot convert a piece makes the piece look cheap
    print("games: " + ", ".join(f"{k} {v}" for k, v in ends.items()), file=sys.stderr)
    return samples


KS = np.geomspace(0.02, 5.0, 97)  # the K grid of the fit


def win_prob(e: np.ndarray, k: float) -> np.ndarray:
    """Texel's expected score of evaluations e (centipawns, White's side) at scale K."""
    return 1.0 / (1.0 + np.power(10.0, -k * e / 400.0))


def texel_error(e: np.ndarray, y: np.ndarray, k: float) -> float:
    """Mean squared difference between the labels y and ``win_prob(e, k)``."""
    return float(np.mean((y - win_prob(e, k)) ** 2))
STEPS = (10, 5)  # the fit's coordinate steps in centipawns, coarse to fine


def save_samples(path: Path, samples) -> None:
    path.write_text("".join(f"{fen};{result}\n" for fen, result in samples))


def load_samples(path: Path) -> list[tuple[str, float]]:
    """``FEN;result`` lines (result 1, 0.5 or 0 from White's side); blank lines and ``#`` skipped."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fen, sep, res = line.rpartition(";")
        try:
            r = float(res)
        except ValueError:
            r = -1.0
        if not sep or r not in (0.0, 0.5, 1.0):
            raise ValueError(f"{path}:{n}: expected 'FEN;result' with result 1, 0.5 or 0: {line!r}")
        out.append((fen, r))
    return out


def warnings_of(old, new, k: float, max_change: float, letters: str) -> list[str]:
    """Why a fit should not be written as it is."""
    out = []
    if k <= KS[0] or k >= KS[-1]:
        out.append(f"K = {k:.3f} is at the end of its grid: the results barely follow the evaluation "
                   "(the fit can only scale it); do not write these values")
    for t in range(len(old)):
        if old[t] and abs(int(new[t]) - int(old[t])) >= max_change * old[t] - STEPS[-1]:
            out.append(f"{letters[t]}: {int(old[t])} -> {int(new[t])} stopped at the --max-change limit")
    return out


def fit(variant: str, samples, steps=STEPS, max_change: float = 0.3):
    """(old values, new values, K, error before, error after): shifts of the material values
    fitted with every other term of the evaluation as it is."""
    ev = eval_tables(load_variant(variant))
    T = len(ev.value)
    eng = Engine(hash_mb=1)
    diff = np.zeros((len(samples), T), np.float64)  # piece-count difference, White - Black
    base = np.zeros(len(samples), np.float64)  # the full static evaluation from White's side
    for i, (fen, _) in enumerate(samples):
        pos = Position(variant, fen)
        cnt = pos.pos.cnt
        diff[i] = cnt[0, :T] - cnt[1, :T]
        v = eng.static_eval(pos)
        base[i] = v if pos.turn == 0 else -v
    y = np.array([s[1] for s in samples], np.float64)
    old = ev.value.astype(np.float64)
    values = old.copy()

    def error(v, k):
        return texel_error(diff @ (v - old) + base, y, k)

    k = float(KS[int(np.argmin([error(values, kk) for kk in KS]))])
    best = error(values, k)
    start = best
    for step in steps:
        improved = True
        while improved:
            improved = False
            for t in range(T):
                if ev.value[t] == 0:
                    continue  # royal pieces (value 0) are never traded
                for d in (step, -step):
                    trial = values.copy()
                    trial[t] += d
                    if abs(trial[t] - ev.value[t]) > max_change * ev.value[t]:
                        continue
                    e = error(trial, k)
                    if e < best - 1e-9:
                        values, best, improved = trial, e, True
                        break
    return ev.value.copy(), values.astype(np.int64), k, start, best


def write_values(variant: str, old, new) -> Path:
    """Add each type's shift (new - old) to ``value`` and, where present, ``value_eg``."""
    spec = load_spec(variant)
    path = evtables.WEIGHTS_DIR / f"{spec.name}.toml"
    lines = path.read_text().splitlines()
    letters = spec.letters
    current = None
    out = []
    written = set()
    for line in lines:
        s = line.strip()
        key = s.split("=", 1)[0].strip() if "=" in s else ""
        if s.startswith("[pieces.") and s.endswith("]"):
            current = s[len("[pieces."):-1]
        elif current is not None and current in letters and key in ("value", "value_eg"):
            t = letters.index(current)
            shift = int(new[t]) - int(old[t])
            line = f"{key} = {int(s.split('=', 1)[1].split('#')[0]) + shift}"
            written.add(current)
        out.append(line)
    for t, ch in enumerate(letters):
        if ch not in written:
            out += ["", f"[pieces.{ch}]", f"value = {int(new[t])}"]
    path.write_text("\n".join(out) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.tune", description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--nodes", type=int, default=3000, help="search nodes per move in self-play")
    ap.add_argument("--opening-plies", type=int, default=6)
    ap.add_argument("--max-plies", type=int, default=300, help="adjudicate a draw after this many plies")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scheduler", metavar="tcp://HOST:PORT|local:N",
                    help="play the self-play games on Dask workers (needs 'jitfish[cluster]'; jitfish installed "
                         "on every worker): the same games and samples as in one process")
    ap.add_argument("--max-change", type=float, default=0.3, help="largest relative change of a value (default 0.3)")
    ap.add_argument("--write", action="store_true", help="store the fitted values in the weights file")
    ap.add_argument("--save", type=Path, metavar="FILE", help="write the labelled positions to FILE")
    ap.add_argument("--load", type=Path, metavar="FILE",
                    help="fit on the positions of FILE (from --save) instead of playing games")
    args = ap.parse_args(argv)
    if args.load is not None:
        try:
            samples = load_samples(args.load)
        except (OSError, ValueError) as e:
            print(f"Error: {e}", file=sys.stderr)
            return 1
    else:
        try:
            samples = self_play(args.variant, args.games, args.nodes, args.opening_plies, args.max_plies, args.seed,
                                args.scheduler)
        except ValueError as e:
            print(f"Error: {e}", file=sys.stderr)
            return 1
    if not samples:
        print("Error: no positions collected", file=sys.stderr)
        return 1
    if args.save is not None:
        save_samples(args.save, samples)
    old, new, k, e0, e1 = fit(args.variant, samples, max_change=args.max_change)
    letters = load_spec(args.variant).letters
    print(f"{len(samples)} positions, K = {k:.3f}, error {e0:.5f} -> {e1:.5f}")
    for t, ch in enumerate(letters):
        print(f"  {ch}: {int(old[t]):5d} -> {int(new[t]):5d}")
    for w in warnings_of(old, new, k, args.max_change, letters):
        print(f"warning: {w}")
    if args.write:
        print(f"written to {write_values(args.variant, old, new)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
