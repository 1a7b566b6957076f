"""Learned piece-square tables: fit a table per piece type (middlegame and endgame) on
positions from real games, labelled by Fairy-Stockfish (its search, or its static evaluation).

    python -m jitfish.bench.tune_psqt --variant chess --positions 12000 --seed 1 --label-depth 8 [--write]

1. Positions: from the PGN games under ``bench/games/`` (``--pgn`` for others) of the variant,
   and ``--games N`` more jitfish self-play games (``--nodes`` per move, random openings, as
   ``bench/tune.py`` plays them); up to ``--per-game`` positions per game, drawn with the seed
   after the first ``--skip-plies`` plies, none in check, no FEN twice, ``--positions`` in all.
2. Labels: Fairy-Stockfish (``--fsf``, UCI, one thread, hash cleared per position) searches each
   position to ``--label-depth`` (or ``--label-nodes``); its score, turned to White's side, is the
   label ``y = sigmoid(score)`` (``1 / (1 + 10**(-score/400))``), blended with the game's result by
   ``--result-weight``.  Positions where its best move is a capture or a promotion (not quiet:
   the static evaluation cannot see it) or where it sees a mate or more than ``--max-score``
   are dropped.  ``--label-static``: the label is Fairy-Stockfish's static evaluation instead (its
   ``eval`` command, about 3000 positions a second), with its depth-1 move for the same filter.
3. Fit (numpy): the evaluation is the full static evaluation of today's weights
   (``Engine.static_eval``) as a fixed offset, plus, for every piece, its table's middlegame and
   endgame value on its square (Black's square mirrored top to bottom) and, with ``--terms``,
   the count and rank terms of ``eval/tables.py`` (``mobility``: an entry of its type's
   ``mobility_table`` by its count of target squares, for every piece neither pawn-like nor
   royal; ``passed``: ``passed_table`` by rank for a passed pawn; ``file``: ``open_file`` and
   ``half_open_file``; ``pair``: ``pair``), tapered exactly as the
   kernel does (``(mg * phase + eg * (256 - phase)) / 256``, phase from the non-pawn material;
   scaled by the 50-move counter's factor).  K is fitted first (the grid of ``tune.py``) on the
   offset alone; then the tables minimise ``mean (y - sigmoid(K * eval / 400))**2 + l2 *
   mean((w / 100)**2)`` (Texel's loss with an L2 pull towards 0) by L-BFGS; ``--symmetric``
   (default) ties each square to its mirror across the board's middle file.  A tenth of the games
   (by seed) is held out: each ``--l2`` candidate is fitted on the rest and the one with the least
   held-out error is refitted on all positions.
4. Prints K, the errors before and after (all positions and held out), the time, and with
   ``--write`` stores the rounded tables in ``eval/weights/<variant>.psqt.toml`` (added to the
   tables already there: the offset included them) and checks the kernel's new static evaluation
   against the fitted one.

``--save FILE`` keeps the labelled positions (``FEN;result;score;bestmove;game`` lines) and
``--load FILE`` fits on them without searching again.  Every number comes from the command line;
the self-play and the labels are deterministic (node or depth limits, one thread, seeded
draws), so a run is reproducible from its command.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import math
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any
from pathlib import Path

import numpy as np
from tqdm import tqdm

from jitfish.engine import Engine
from jitfish.eval import eval_tables, new_cache, pack_eval
from jitfish.eval.evaluate import FEAT_FILE, FEAT_MOBILITY, FEAT_PASSED, feature_rows
from jitfish.eval.tables import MOB_N
from jitfish.eval import tables as evtables
from jitfish.movegen import Position, load_spec, load_variant, read_pgn
from jitfish.movegen import kernels as K
from jitfish.movegen.tables import CFG_FIFTY, CFG_ROYAL
from jitfish.protocol.client import EngineConfig, GoRequest, Limits, open_engine

from . import tune
from .tune import texel_error, win_prob

__all__ = ["Sample", "pgn_positions", "selfplay_positions", "label", "StaticLabeller", "label_static", "load", "load_quiet", "Features", "features",
           "kernel_phase", "fit_k", "fit_tables", "tables_of", "terms_of", "term_clashes", "write_tables", "TERMS", "main"]

GAMES_DIR = Path(__file__).resolve().parent / "games"
FSF = "/usr/games/fairy-stockfish"
RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass
class Sample:
    """A labelled position: FEN, game result and search score (centipawns) from White's side,
    the labelling engine's best move, the index of the game it came from, and (a sixth field of
    the file, when written) jitfish's hand-written static evaluation from White's side."""

    fen: str
    result: float
    score: float = 0.0
    best: str = ""
    game: int = 0
    hand: float | None = None  # jitfish's hand-written evaluation, White's side (bench/distill_data.py)


# ---------------------------------------------------------------------------------------------
# 1. positions

def _fen_key(fen: str) -> str:
    return " ".join(fen.split()[:4])  # without the move counters


def _pick(fens: list[str], rng: random.Random, per_game: int) -> list[str]:
    return fens if len(fens) <= per_game else [fens[i] for i in sorted(rng.sample(range(len(fens)), per_game))]


def pgn_positions(variant: str, paths: list[Path], per_game: int, skip_plies: int,
                  seed: int) -> tuple[list[tuple[str, float]], list[list[str]], int]:
    """(results, the candidate FENs of every decided or drawn game of ``variant`` in the files, games
    skipped because a move could not be read); the draw among the candidates is the caller's."""
    name = load_spec(variant).name
    rng = random.Random(seed)
    heads, per = [], []
    skipped = 0
    for path in paths:
        for g in read_pgn(path.read_text(errors="replace")):
            if g.variant != name or g.result not in RESULTS:
                continue
            try:
                pos = Position.from_pgn(g)
                fens = []
                for ply, san in enumerate(g.moves):
                    if ply >= skip_plies and not pos.is_check() and pos.outcome() is None:
                        fens.append(pos.fen())
                    pos.push_san(san)
            except Exception:  # noqa: BLE001 -- a game our SAN reader refuses is skipped, counted
                skipped += 1
                continue
            heads.append((g.tags.get("Event", ""), RESULTS[g.result]))
            per.append(_pick(fens, rng, per_game))
    return [(h[0], h[1]) for h in heads], per, skipped


def selfplay_positions(variant: str, games: int, nodes: int, opening_plies: int, max_plies: int, seed: int,
                       per_game: int, skip_plies: int) -> tuple[list[float], list[list[str]]]:
    """(results, candidate FENs) of ``games`` jitfish self-play games (``tune.selfplay_game``)."""
    rng = random.Random(seed + 1)
    results, per = [], []
    openings = tune.selfplay_openings(variant, games, opening_plies, seed)
    for op in tqdm(openings, desc=f"self-play {variant}", unit="game", file=sys.stderr):
        seen, result, _end = tune.selfplay_game(variant, op, nodes, max_plies)
        results.append(result)
        per.append(_pick(seen[max(0, skip_plies - len(op)):], rng, per_game))
    return results, per


def collect(variant: str, args) -> list[Sample]:
    """The unlabelled positions of the command line's games, in a seeded order, unique."""
    paths = [Path(p) for pat in (args.pgn or [str(GAMES_DIR / "**" / "*.pgn")])
             for p in sorted(glob.glob(pat, recursive=True))]
    heads, per, skipped = pgn_positions(variant, paths, args.per_game, args.skip_plies, args.seed)
    results = [r for _e, r in heads]
    print(f"{len(per)} games of {variant} in {len(paths)} PGN files ({skipped} unreadable, skipped)",
          file=sys.stderr)
    if args.games:
        r2, p2 = selfplay_positions(variant, args.games, args.nodes, args.opening_plies, args.max_plies,
                                    args.seed, args.per_game, args.skip_plies)
        results += r2
        per += p2
    seen = set()
    out = []
    for g, (fens, res) in enumerate(zip(per, results)):
        for fen in fens:
            k = _fen_key(fen)
            if k not in seen:
                seen.add(k)
                out.append(Sample(fen, res, game=g))
    random.Random(args.seed).shuffle(out)
    return out


# ---------------------------------------------------------------------------------------------
# 2. labels

def quiet_move(pos: Position, move: str) -> bool:
    """Is ``move`` legal in ``pos`` and neither a capture nor a promotion nor a conversion (no
    piece changes colour)?  ``pos`` is left as it was."""
    try:
        m = pos.parse_move(move)
    except Exception:  # noqa: BLE001 -- an unreadable move: not a label to trust
        return False
    board = pos.pos.board
    if K.move_promo(m) or board[K.move_to(m)] != 0 or K.move_kind(m) == K.KIND_EP:
        return False
    white = int(((board > 0) & (board % 2 == 1)).sum())  # codes 1, 3, ...: White's pieces
    pos.push(m)
    quiet = int(((board > 0) & (board % 2 == 1)).sum()) == white
    pos.pop()
    return quiet


def _quiet(variant: str, fen: str, move: str) -> bool:
    return quiet_move(Position(variant, fen), move)


def label(variant: str, samples: list[Sample], fsf: str, depth: int | None, nodes: int | None,
          max_score: int, wanted: int) -> list[Sample]:
    """Search each position with Fairy-Stockfish until ``wanted`` quiet ones are labelled."""
    eng = open_engine(EngineConfig(fsf, proto="uci", options={"Threads": "1", "Hash": "16"}), variant)
    out = []
    dropped = 0
    try:
        bar = tqdm(total=wanted, desc=f"labels (fairy-stockfish, depth {depth})" if depth else
                   f"labels (fairy-stockfish, {nodes} nodes)", unit="pos", file=sys.stderr)
        for s in samples:
            if len(out) >= wanted:
                break
            eng.new_game(Limits(depth=depth, nodes=nodes), s.fen)
            turn = 0 if s.fen.split()[1] == "w" else 1
            r = eng.go(GoRequest(moves=[], side=turn, budget=600.0))
            info = r.info
            if info.mate is not None or info.score is None or abs(info.score) > max_score or not r.move \
                    or not _quiet(variant, s.fen, r.move):
                dropped += 1
                continue
            out.append(Sample(s.fen, s.result, float(info.score if turn == 0 else -info.score), r.move, s.game))
            bar.update(1)
        bar.close()
    finally:
        eng.quit()
    print(f"labelled {len(out)} quiet positions ({dropped} dropped: capture, promotion, mate or "
          f"|score| > {max_score})", file=sys.stderr)
    return out


class StaticLabeller:
    """One Fairy-Stockfish process (UCI, one thread) answering ``eval`` for positions of one
    variant: its classical evaluation's "Total evaluation", pawns from White's side, times 100."""

    TOTAL = re.compile(r"Total evaluation:\s*(-?\d+(?:\.\d+)?)")

    def __init__(self, variant: str, fsf: str = FSF):
        self.fsf = fsf
        self.proc = subprocess.Popen([fsf], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._send(f"uci\nsetoption name Threads value 1\nsetoption name UCI_Variant value {variant}\nisready\n")
        self._read("readyok")

    def _send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def _read(self, last: str) -> tuple[int | None, str]:
        """(the "Total evaluation" in centipawns or None, the line starting with ``last``)."""
        assert self.proc.stdout is not None
        total = None
        for line in self.proc.stdout:
            if line.startswith("Total evaluation"):
                m = self.TOTAL.match(line)
                total = round(float(m.group(1)) * 100) if m else None
            elif line.startswith(last):
                return total, line
        raise RuntimeError(f"{self.fsf} stopped answering")

    def score(self, fen: str) -> int | None:
        """Centipawns from White's side, or None (in check Fairy-Stockfish gives none)."""
        self._send(f"position fen {fen}\neval\nisready\n")
        return self._read("readyok")[0]

    def score_and_move(self, fen: str) -> tuple[int | None, str]:
        """``score`` and Fairy-Stockfish's depth-1 move ("" when it has none)."""
        self._send(f"position fen {fen}\neval\ngo depth 1\n")
        total, line = self._read("bestmove")
        words = line.split()
        return total, (words[1] if len(words) > 1 else "")

    def close(self) -> None:
        try:
            self._send("quit\n")
        except OSError:
            pass
        self.proc.wait(timeout=10)


def label_static(variant: str, samples: list[Sample], fsf: str, max_score: int, wanted: int) -> list[Sample]:
    """Label each position with Fairy-Stockfish's static evaluation (``StaticLabeller``) until
    ``wanted`` quiet ones are labelled; its depth-1 move is the best move of the quiet filter.  No
    search score: the tables learn what Fairy-Stockfish's evaluation knows, not the tactics its
    search finds (which a static evaluation cannot see).  About 3000 positions a second."""
    lab = StaticLabeller(variant, fsf)
    out: list[Sample] = []
    dropped = 0
    try:
        bar = tqdm(total=wanted, desc="labels (fairy-stockfish eval)", unit="pos", file=sys.stderr)
        for s in samples:
            if len(out) >= wanted:
                break
            score, move = lab.score_and_move(s.fen)
            if score is None or abs(score) > max_score or not move or not _quiet(variant, s.fen, move):
                dropped += 1
                continue
            out.append(Sample(s.fen, s.result, float(score), move, s.game))
            bar.update(1)
        bar.close()
    finally:
        lab.close()
    print(f"labelled {len(out)} quiet positions ({dropped} dropped: capture, promotion, no evaluation or "
          f"|score| > {max_score})", file=sys.stderr)
    return out


def _read_text(path: Path) -> str:
    """A labels file's text (``.gz``: gzip-compressed)."""
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def save(path: Path, samples: list[Sample], header: str) -> None:
    """Write labelled positions, one ``FEN;result;score;bestmove;game`` line each after a ``#``
    line with the command (``.gz``: gzip-compressed, as the labels kept under bench/positions)."""
    text = f"# {header}\n" + "".join(f"{s.fen};{s.result};{s.score:g};{s.best};{s.game}"
                                     + ("" if s.hand is None else f";{s.hand:g}") + "\n" for s in samples)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text)


def load(path: Path) -> list[Sample]:
    """The samples of a ``--save`` file (its ``#`` lines, the command that made it, are skipped)."""
    return _samples(_read_text(path), path)


def _samples(text: str, path: Path) -> list[Sample]:
    """The samples of a labels file's text (``path`` names it in errors)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(";")
        try:
            out.append(Sample(parts[0], float(parts[1]), float(parts[2]), parts[3], int(parts[4]),
                              float(parts[5]) if len(parts) > 5 else None))
        except (IndexError, ValueError):
            raise ValueError(f"{path}:{n}: expected 'FEN;result;score;bestmove;game': {line!r}") from None
    return out


def load_quiet(path: Path, variant: str, max_score: int, positions: int | None = None) -> tuple[list[Sample], str]:
    """The samples of a ``--save`` (or ``bench/nnue_data.py``) file that pass the labelling's
    filters (a quiet best move, ``|score| <= max_score``), the first ``positions`` of them, and
    the command that labelled them (the file's first line)."""
    text = _read_text(path)  # read (and decompressed) once: the samples and the labelling command
    samples = _samples(text, path)
    first = text.split("\n", 1)[0]
    labelled_by = first[2:] if first.startswith("# ") else f"(labels from {path})"
    n = len(samples)  # a file of bench/nnue_data.py keeps every move: filter as the labelling does
    kept = []
    for s in tqdm(samples, desc="quiet positions", unit="pos", file=sys.stderr):
        if abs(s.score) <= max_score and _quiet(variant, s.fen, s.best):
            kept.append(s)
            if positions is not None and len(kept) >= positions:
                break
    print(f"{len(kept)} of {n} loaded positions kept (quiet best move, |score| <= {max_score})", file=sys.stderr)
    return kept, labelled_by


# ---------------------------------------------------------------------------------------------
# 3. the fit

@dataclass
class Features:
    """The sparse design of the fit: evaluation (White's side) = ``base + X @ w``.

    rows, cols, vals: the non-zero entries of X (position, column, value); a column is (mg or
    eg, piece type, square as White sees it, folded to the a..middle files when symmetric):
    ``col = part * T * S + t * S + s``; base: today's static evaluation from White's side."""

    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    base: np.ndarray
    n: int
    T: int
    S: int
    files: int
    ranks: int
    symmetric: bool
    terms: dict[str, int] = field(default_factory=dict)  # term (``TERMS``) -> entries per part and type
    seen: dict[str, np.ndarray] = field(default_factory=dict)  # term -> (T,) largest index seen, -1: none

    @property
    def p(self) -> int:
        return 2 * self.T * self.S + 2 * self.T * sum(self.terms.values())

    def offset(self, term: str) -> int:
        """The first column of a term's block (after the square tables and the terms before it)."""
        off = 2 * self.T * self.S
        for name, width in self.terms.items():
            if name == term:
                return off
            off += 2 * self.T * width
        raise KeyError(term)

    def col(self, term: str, part: int, t: int, n: int) -> int:
        """The column of a term's entry n for type t, middlegame (part 0) or endgame (1)."""
        width = self.terms[term]
        return self.offset(term) + part * self.T * width + t * width + n

    def predict(self, w: np.ndarray) -> np.ndarray:
        return self.base + np.bincount(self.rows, weights=self.vals * w[self.cols], minlength=self.n)

    def grad(self, g: np.ndarray) -> np.ndarray:
        """X^T g."""
        return np.bincount(self.cols, weights=self.vals * g[self.rows], minlength=self.p)

    def subset(self, idx: np.ndarray) -> "Features":
        keep = np.zeros(self.n, bool)
        keep[idx] = True
        new_row = np.full(self.n, -1, np.int64)
        new_row[idx] = np.arange(len(idx))
        m = keep[self.rows]
        return Features(new_row[self.rows[m]], self.cols[m], self.vals[m], self.base[idx], len(idx), self.T,
                        self.S, self.files, self.ranks, self.symmetric, self.terms, self.seen)


TERMS = ("mobility", "passed", "file", "pair")  # the count and rank terms the fit can take (--terms)
_SMOOTH = ("mobility", "passed")  # terms whose neighbouring entries are pulled together
_KIND = {FEAT_MOBILITY: "mobility", FEAT_PASSED: "passed", FEAT_FILE: "file"}


def kernel_phase(ev, cnt: np.ndarray) -> int:
    """The evaluation kernel's game phase, 256 (every piece) .. 0 (none), from the piece counts
    ``cnt`` (colour x type): the non-pawn material (``phase_w``), capped at the start's total."""
    T = ev.phase_w.shape[0]
    npm = int(((cnt[0, :T] + cnt[1, :T]) * ev.phase_w).sum())
    total = int(ev.params[evtables.P_PHASE_TOTAL])
    return min(npm, total) * 256 // total


def features(variant: str, fens: list[str], symmetric: bool = True, progress: bool = True,
             terms: tuple[str, ...] = (), squares: bool = True) -> Features:
    """The fit's design for the positions (see ``Features``), the phase and 50-move factor as the
    kernel computes them (``eval/evaluate.py``).  ``terms`` (of ``TERMS``): columns (middlegame,
    endgame) for those terms too, as the kernel finds them (``feature_rows``): mobility by count
    of target squares, passed pawns by rank, open and half-open files (for pieces that ride along
    a file), pairs (for types each side starts with two of).  ``squares=False``:
    no square-table entries (their columns stay empty, so the fit leaves them at 0)."""
    v = load_variant(variant)
    ev = eval_tables(v)
    F, R = v.files, v.ranks
    T = len(ev.value)
    H = (F + 1) // 2 if symmetric else F
    S = R * H
    fifty = int(v.tables.cfg[CFG_FIFTY])
    eng = Engine(hash_mb=1)
    rows, cols, vals = [], [], []
    base = np.zeros(len(fens))
    unknown = set(terms) - set(TERMS)
    if unknown:
        raise ValueError(f"unknown terms {sorted(unknown)} (known: {', '.join(TERMS)})")
    widths = {"mobility": MOB_N, "passed": R, "file": 2, "pair": 1}
    layout = {name: widths[name] for name in TERMS if name in terms}
    seen = {name: np.full(T, -1, np.int64) for name in layout}
    rows_buf = np.zeros((512, 4), np.int64)
    cache = new_cache(1024)
    X0 = Features(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), base, len(fens), T, S, F, R,
                  symmetric, layout)
    kinds = {k: name for k, name in _KIND.items() if name in layout}
    # files matter to pieces that ride along them (rooks); pairs to types a side starts with two of
    on_files = [any(comp.rider and any(dx == 0 for dx, _dy in comp.vectors) for comp in p.components)
                for p in v.spec.pieces]
    pairs = [int(v.tables.start_count[:, t].min()) >= 2 and not v.tables.pawnlike[t]
             and t != int(v.tables.cfg[CFG_ROYAL]) for t in range(T)]
    for i, fen in enumerate(tqdm(fens, desc="features", unit="pos", file=sys.stderr, disable=not progress)):
        pos = Position(v, fen)
        st = pos.pos.st
        val = eng.static_eval(pos)
        base[i] = val if pos.turn == 0 else -val
        cnt = pos.pos.cnt
        phase = kernel_phase(ev, cnt)
        half = int(st[K.ST_HALF])
        scale = (2 * fifty - min(half, fifty)) / (2 * fifty) if fifty > 0 and half > 0 else 1.0
        board = pos.pos.board
        for sq in np.flatnonzero(board[:F * R]) if squares else ():
            code = int(board[sq])
            t, c = (code - 1) >> 1, (code - 1) & 1
            f, r = int(sq) % F, int(sq) // F
            if c == 1:
                r = R - 1 - r
            if symmetric:
                f = min(f, F - 1 - f)
            col = t * S + r * H + f
            sign = 1.0 if c == 0 else -1.0
            rows += [i, i]
            cols += [col, T * S + col]
            vals += [sign * scale * phase / 256, sign * scale * (256 - phase) / 256]
        found = []  # (term, type, colour, index)
        if kinds:
            k = feature_rows(pack_eval(pos.pos, pos.tab, ev, cache), rows_buf)
            found += [(kinds[int(kind)], int(t), int(c), int(n)) for kind, t, c, n in rows_buf[:k]
                      if kind in kinds and (kind != FEAT_FILE or on_files[t])]
        if "pair" in layout:
            found += [("pair", t, c, 0) for t in range(T) for c in (0, 1) if pairs[t] and cnt[c, t] >= 2]
        for name, t, c, n in found:
            n = min(n, layout[name] - 1)
            seen[name][t] = max(seen[name][t], n)
            sign = 1.0 if c == 0 else -1.0
            rows += [i, i]
            cols += [X0.col(name, 0, t, n), X0.col(name, 1, t, n)]
            vals += [sign * scale * phase / 256, sign * scale * (256 - phase) / 256]
    return Features(np.array(rows, np.int64), np.array(cols, np.int64), np.array(vals), base, len(fens), T, S,
                    F, R, symmetric, layout, seen)


def fit_k(base: np.ndarray, y: np.ndarray) -> float:
    """K of the least error of the offset alone, on ``tune.py``'s grid."""
    return float(tune.KS[int(np.argmin([texel_error(base, y, k) for k in tune.KS]))])


def _lbfgs(fun, x0: np.ndarray, iters: int, m: int = 10, tol: float = 1e-10) -> np.ndarray:
    """Minimise ``fun(x) -> (value, gradient)`` by L-BFGS with a backtracking (Armijo) line search."""
    x = x0.copy()
    f, g = fun(x)
    S, Y = [], []
    for _ in range(iters):
        q = g.copy()
        alphas = []
        for s, yv in zip(reversed(S), reversed(Y)):
            a = s @ q / (yv @ s)
            alphas.append(a)
            q -= a * yv
        if S:
            q *= (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1])
        else:
            q /= max(1e-12, np.abs(g).max())  # first step: at most 1 per coordinate
        for (s, yv), a in zip(zip(S, Y), reversed(alphas)):
            b = yv @ q / (yv @ s)
            q += s * (a - b)
        d = -q
        slope = g @ d
        if slope >= 0:
            d, slope = -g, -(g @ g)
        step = 1.0
        while True:
            xn = x + step * d
            fn, gn = fun(xn)
            if fn <= f + 1e-4 * step * slope or step < 1e-12:
                break
            step *= 0.5
        s, yv = xn - x, gn - g
        if s @ yv > 1e-20:
            S.append(s)
            Y.append(yv)
            if len(S) > m:
                S.pop(0)
                Y.pop(0)
        done = f - fn < tol * max(1.0, abs(f))
        x, f, g = xn, fn, gn
        if done:
            break
    return x


def fit_tables(X: Features, y: np.ndarray, k: float, l2: float, iters: int = 500, smooth: float = 0.0) -> np.ndarray:
    """The table weights w (centipawns, ``X.p`` of them) minimising ``mean (y - sigmoid(K (base +
    X w) / 400))**2 + l2 * mean((w / 100)**2)``, plus, for the mobility and passed-pawn tables,
    ``smooth * sum over neighbouring entries of ((w[n+1] - w[n]) / 100)**2 / p`` (a curve, not
    noise per count)."""
    c = math.log(10.0) * k / 400.0
    blocks = [(X.offset(name), X.terms[name]) for name in _SMOOTH if name in X.terms]

    def fun(w):
        s = win_prob(X.predict(w), k)
        r = y - s
        f = float(np.mean(r * r)) + l2 * float(np.mean((w / 100.0) ** 2))
        g = X.grad(-2.0 * r * s * (1.0 - s) * c) / X.n + 2.0 * l2 * w / (1e4 * X.p)
        for m0, width in blocks if smooth > 0 else ():
            m1 = m0 + 2 * X.T * width
            dm = np.diff(w[m0:m1].reshape(2, X.T, width), axis=2)
            f += smooth * float((dm * dm).sum()) / (1e4 * X.p)
            gd = 2.0 * smooth * dm / (1e4 * X.p)
            gm = np.zeros((2, X.T, width))
            gm[:, :, 1:] += gd
            gm[:, :, :-1] -= gd
            g[m0:m1] += gm.ravel()
        return f, g

    return _lbfgs(fun, np.zeros(X.p), iters)


def tables_of(X: Features, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mg, eg) tables of shape (T, files * ranks), rounded, a1 first, from White's side."""
    F, R, T, S = X.files, X.ranks, X.T, X.S
    H = S // R
    out = []
    for part in range(2):
        tab = np.zeros((T, F * R), np.int64)
        for t in range(T):
            for r in range(R):
                for f in range(F):
                    ff = min(f, F - 1 - f) if X.symmetric else f
                    tab[t, r * F + f] = int(round(w[part * T * S + t * S + r * H + ff]))
        out.append(tab)
    return out[0], out[1]


_KEYS = {"mobility": ("mobility_table", "mobility_table_eg"), "passed": ("passed_table", "passed_table_eg"),
         "pair": ("pair", "pair_eg"),
         "file": ("open_file", "open_file_eg", "half_open_file", "half_open_file_eg")}  # the keys a term writes


def term_clashes(variant: str, keys_by_type: dict[int, Any] | None = None,
                 terms: tuple[str, ...] = ()) -> list[str]:
    """``pieces.X.key`` of the variant's weight file that a fit would also write to its
    ``.psqt.toml``: the engine refuses a key set in both, so such a fit must not be written.
    ``keys_by_type``: the fitted keys (``terms_of``); ``terms``: before a fit, every key of
    these terms for every piece."""
    v = load_variant(variant)
    path = evtables.weights_file(v.spec)
    if path is None:
        return []
    pieces = evtables.read_weights(path).get("pieces", {})
    every = {k for term in terms for k in _KEYS[term]}
    out = []
    for t, letter in enumerate(v.spec.letters):
        wanted = every | set((keys_by_type or {}).get(t, {}))
        out += [f"pieces.{letter}.{k}" for k in sorted(wanted & set(pieces.get(letter, {})))]
    return out


def terms_of(X: Features, w: np.ndarray) -> dict[int, dict[str, Any]]:
    """{type: {key: value}} of the fitted terms, rounded, as weight-file keys: tables with entries
    from 0 up to the largest index seen (a larger one takes the last entry), scalars as integers."""
    out: dict[int, dict[str, Any]] = {}
    for name in X.terms:
        for t in range(X.T):
            top = int(X.seen[name][t])
            if top < 0:
                continue
            keys = out.setdefault(t, {})
            val = [[int(round(w[X.col(name, part, t, n)])) for n in range(top + 1)] for part in range(2)]
            if name == "file":
                full = [[int(round(w[X.col(name, part, t, n)])) for n in range(2)] for part in range(2)]
                keys.update(zip(_KEYS["file"], (full[0][0], full[1][0], full[0][1], full[1][1])))
            elif name == "pair":
                keys.update(pair=val[0][0], pair_eg=val[1][0])
            else:
                keys.update({_KEYS[name][0]: val[0], _KEYS[name][1]: val[1]})
    return out


def _format_table(values, F: int, R: int) -> list[str]:
    width = max(len(str(int(x))) for x in values)
    lines = ["["]
    for r in range(R):
        row = ", ".join(f"{int(x):>{width}}" for x in values[r * F:(r + 1) * F])
        lines.append(f"  {row},  # rank {r + 1}")
    lines.append("]")
    return lines


def _add(old: Any, new: Any) -> Any:
    """Two values of a key added: integers, or tables entry by entry (each read past its end as its
    last entry)."""
    if old is None:
        return new
    if isinstance(new, int):
        return old + new
    n = max(len(old), len(new))
    return [old[min(i, len(old) - 1)] + new[min(i, len(new) - 1)] for i in range(n)]


def write_tables(variant: str, mg: np.ndarray, eg: np.ndarray, header: list[str],
                 terms: dict[int, dict[str, Any]] | None = None) -> Path:
    """Store the tables (added to those already in the file) in ``<variant>.psqt.toml`` beside
    the variant's weight file; pieces whose tables are all 0 are left out.  ``terms``: the
    other fitted keys by type (``terms_of``), added to those in the file too."""
    v = load_variant(variant)
    spec = v.spec
    clash = term_clashes(variant, terms)
    if clash:
        raise ValueError(f"{', '.join(clash)} already in the weight file: a fit of these terms cannot be "
                         "added beside it (take them out of the weight file, or fit without them)")
    path = evtables.psqt_file(spec)
    old = evtables.read_psqt(path) if path.exists() else {}
    F, R = v.files, v.ranks
    lines = [f"# {h}" if h else "#" for h in header]
    if path.exists():  # the values are sums: the file's earlier headers say where the rest came from
        earlier = [ln for ln in path.read_text().splitlines() if ln.startswith("#")]
        if earlier:
            lines += ["#", "# Added to the tables of:"] + earlier
    for t, letter in enumerate(spec.letters):
        prev = old.get(letter, {})
        a = np.asarray(prev.get("psqt", [0] * (F * R))) + mg[t]
        b = np.asarray(prev.get("psqt_eg", prev.get("psqt", [0] * (F * R)))) + eg[t]
        keys = {}
        for key in evtables.TABLE_KEYS[2:]:  # the old values, an _eg key defaulting to its middlegame one
            old_v = prev.get(key, prev.get(key.removesuffix("_eg")))
            if old_v is not None:
                keys[key] = old_v
        old_keys = dict(keys)
        for key, v in (terms or {}).get(t, {}).items():
            keys[key] = _add(old_keys.get(key), v)
        if not a.any() and not b.any() and not keys:
            continue
        lines += ["", f"[pieces.{letter}]"]
        if a.any() or b.any():
            lines += ["psqt = " + "\n".join(_format_table(a, F, R)), "psqt_eg = " + "\n".join(_format_table(b, F, R))]
        for key in evtables.TABLE_KEYS[2:]:
            if key in keys:
                v = keys[key]
                lines.append(f"{key} = [{', '.join(str(x) for x in v)}]" if isinstance(v, list) else f"{key} = {v}")
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# the command

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jitfish.bench.tune_psqt", description=__doc__.split("\n\n")[0],
                                 epilog="See the module's docstring (python -m pydoc jitfish.bench.tune_psqt) for "
                                        "the method.", formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--positions", type=int, help="labelled quiet positions wanted (default 12000; with --load: "
                    "the first N kept, default all)")
    ap.add_argument("--seed", type=int, default=1, help="the draw of positions, openings and held-out games")
    ap.add_argument("--pgn", action="append", metavar="GLOB",
                    help="PGN files to take positions from (repeatable; default bench/games/**/*.pgn)")
    ap.add_argument("--per-game", type=int, default=12, help="positions drawn per game at most")
    ap.add_argument("--skip-plies", type=int, default=8, help="plies of each game not sampled (the opening)")
    ap.add_argument("--games", type=int, default=0, help="jitfish self-play games to add to the PGN games")
    ap.add_argument("--nodes", type=int, default=3000, help="search nodes per move in self-play")
    ap.add_argument("--opening-plies", type=int, default=6, help="random plies opening each self-play game")
    ap.add_argument("--max-plies", type=int, default=300, help="self-play: adjudicate a draw after this many plies")
    ap.add_argument("--fsf", default=FSF, help="the labelling engine (UCI)")
    ap.add_argument("--label-depth", type=int, default=8, help="its search depth per position")
    ap.add_argument("--label-nodes", type=int, help="its node limit per position (instead of a depth)")
    ap.add_argument("--label-static", action="store_true",
                    help="label with fairy-stockfish's static evaluation (its eval command), not a search")
    ap.add_argument("--max-score", type=int, default=1500, help="drop positions it scores beyond this (cp)")
    ap.add_argument("--result-weight", type=float, default=0.0,
                    help="weight of the game's result in the label (0: search score only)")
    ap.add_argument("--l2", default="0.001,0.003,0.01,0.03,0.1",
                    help="L2 strengths to try (comma-separated); the least held-out error wins")
    ap.add_argument("--symmetric", action=argparse.BooleanOptionalAction, default=True,
                    help="tie each square to its mirror across the middle file")
    ap.add_argument("--iters", type=int, default=500, help="L-BFGS iterations at most")
    ap.add_argument("--terms", default="", help="fit these terms too (comma-separated, of: "
                    + ", ".join(TERMS) + "; see the docstring)")
    ap.add_argument("--squares", action=argparse.BooleanOptionalAction, default=True,
                    help="fit the square tables (--no-squares: only the --terms)")
    ap.add_argument("--smooth", type=float, default=1.0,
                    help="pull of neighbouring mobility- and passed-table entries towards each other (see fit_tables)")
    ap.add_argument("--save", type=Path, metavar="FILE", help="write the labelled positions to FILE")
    ap.add_argument("--load", type=Path, metavar="FILE", help="fit on FILE's labelled positions (from --save)")
    ap.add_argument("--write", action="store_true", help="store the tables in eval/weights/<variant>.psqt.toml")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    variant = load_spec(args.variant).name
    terms = tuple(x.strip() for x in args.terms.split(",") if x.strip())
    try:
        clash = term_clashes(variant, terms=tuple(t for t in terms if t in TERMS)) if args.write else []
    except ValueError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    if clash:  # before any labelling: the written file would stop the engine from loading the variant
        print(f"Error: --write: {', '.join(clash)} already in {variant}'s weight file; the fitted values would "
              "go beside them, which the engine refuses (fit without these --terms, or without --write)",
              file=sys.stderr)
        return 1
    try:
        if args.load is not None:
            samples, labelled_by = load_quiet(args.load, variant, args.max_score, args.positions)
        else:
            pool = collect(variant, args)
            if args.label_static:
                samples = label_static(variant, pool, args.fsf, args.max_score, args.positions or 12000)
            else:
                samples = label(variant, pool, args.fsf, None if args.label_nodes else args.label_depth,
                                args.label_nodes, args.max_score, args.positions or 12000)
            labelled_by = ""
    except (OSError, ValueError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    command = "python -m jitfish.bench.tune_psqt " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.save is not None:
        save(args.save, samples, command)
    if len(samples) < 100:
        print(f"Error: only {len(samples)} labelled positions", file=sys.stderr)
        return 1
    t_label = time.monotonic() - t0
    try:
        X = features(variant, [s.fen for s in samples], args.symmetric, terms=terms, squares=args.squares)
    except ValueError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    rw = args.result_weight
    y = (1 - rw) * win_prob(np.array([s.score for s in samples]), 1.0) + rw * np.array([s.result for s in samples])
    k = fit_k(X.base, y)
    games = sorted({s.game for s in samples})
    held = set(random.Random(args.seed).sample(games, max(1, len(games) // 10)))
    is_val = np.array([s.game in held for s in samples])
    tr, va = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    Xtr, Xva = X.subset(tr), X.subset(va)
    print(f"{len(samples)} positions from {len(games)} games ({len(va)} held out from {len(held)}), "
          f"K = {k:.3f}, error {texel_error(X.base, y, k):.5f} (held out {texel_error(Xva.base, y[va], k):.5f})")
    best = None
    for l2 in (float(x) for x in args.l2.split(",")):
        w = fit_tables(Xtr, y[tr], k, l2, args.iters, args.smooth)
        e_tr, e_va = texel_error(Xtr.predict(w), y[tr], k), texel_error(Xva.predict(w), y[va], k)
        print(f"  l2 {l2:g}: train {texel_error(Xtr.base, y[tr], k):.5f} -> {e_tr:.5f}, "
              f"held out {texel_error(Xva.base, y[va], k):.5f} -> {e_va:.5f}, |w| max {np.abs(w).max():.0f}")
        if best is None or e_va < best[1]:
            best = (l2, e_va)
    w = fit_tables(X, y, k, best[0], args.iters, args.smooth)
    mg, eg = tables_of(X, w)
    wr = np.concatenate([mg, eg]).ravel()
    e0, e1 = texel_error(X.base, y, k), texel_error(X.predict(w), y, k)
    elapsed = time.monotonic() - t0
    print(f"fit: l2 {best[0]:g} on all {len(samples)} positions: error {e0:.5f} -> {e1:.5f}; "
          f"table values {wr.min()}..{wr.max()} cp, mean |v| {np.abs(wr).mean():.1f}; "
          f"{t_label:.0f} s positions and labels, {elapsed:.0f} s in all")
    letters = load_spec(variant).letters
    fitted = terms_of(X, w)
    for t, ch in enumerate(letters):
        print(f"  {ch}: mg {mg[t].min():4d}..{mg[t].max():4d}   eg {eg[t].min():4d}..{eg[t].max():4d}")
        for key, v in fitted.get(t, {}).items():
            print(f"     {key} = {v}")
    if args.write:
        header = [f"Learned piece-square tables of {variant} (centipawns, from White's side, a1 first; Black's",
                  "mirrored), added to the square terms of the weight file.  Written by",
                  f"  {command}"] + ([f"on the labels of  {labelled_by}"] if labelled_by else []) + [
                  f"{len(samples)} positions labelled by fairy-stockfish, K = {k:.3f}, l2 = {best[0]:g}, "
                  f"error {e0:.5f} -> {e1:.5f}."]
        try:
            path = write_tables(variant, mg, eg, header, fitted)
        except ValueError as e:
            print(f"Error: {e}", file=sys.stderr)
            return 1
        print(f"written to {path}")
        # the kernel with the new tables against the fitted evaluation (rounding only)
        evtables._CACHE.clear()
        Xn = features(variant, [s.fen for s in samples], args.symmetric, progress=False, terms=terms,
                      squares=args.squares)
        wi = np.zeros(X.p)
        print(f"kernel check: error with the written tables {texel_error(Xn.base, y, k):.5f}, "
              f"largest difference to the fit {np.abs(Xn.predict(wi) - X.predict(w)).max():.1f} cp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
