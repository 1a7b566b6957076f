"""The typed ``Engine`` API: search a ``Position`` within ``Limits``, report ``SearchInfo``.

``Engine.search`` runs iterative deepening with aspiration windows over the search kernel
(``search.py``, one kernel call per iteration and line), MultiPV and ``searchmoves`` included
(both by leaving root moves out inside the kernel), and stops on the time budget
(``time_budget``), a node or depth limit, or ``stop()`` from any thread.

>>> from jitfish.movegen import Position
>>> eng = Engine(hash_mb=8)
>>> eng.search(Position("chess"), Limits(depth=3)).best is not None
True
"""
from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from jitfish.eval import cache_for, clear_cache, eval_tables, new_cache, pack_eval, search_settings, static_eval
from jitfish.movegen import kernels as K
from jitfish.movegen.position import Position, load_variant
from jitfish.movegen.tables import CFG_NSQ, CFG_NTYPES

from .search import (CONT_MAX, CORR_SIZE, C_NODE_LIMIT, C_NODES, C_ROOT_SCORE, C_ROOT_SKIP, C_SELDEPTH, C_STOP,
                     I_ASP_SF, I_ASPIRATION, I_KILLER_CLEAR, I_TM_DYNAMIC, I_TM_MTG, I_TM_STOP, I_TT_BUCKET, INF, MATE,
                     MATE_BOUND, MAXPLY, PARAM_NAMES, PARAMS, SearchTables, pack_search, parse_params, search_root,
                     unknown_params)
from .tt import C_TT_GEN, C_TT_WAYS, TT_WAYS

__all__ = ["Engine", "Limits", "SearchInfo", "SearchResult", "time_budget"]


@dataclass
class Limits:
    """What bounds one search; times are in seconds.  Nothing set means depth 8."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float | None = None
    binc: float | None = None
    movestogo: int | None = None
    infinite: bool = False
    move_overhead: float = 0.05
    searchmoves: list[str] | None = None


@dataclass
class SearchInfo:
    """One iteration's report (``on_info``): depth, score from the side to move (centipawns,
    or moves to mate), nodes, speed, seconds since the start, the line as move names;
    ``multipv`` is the line's rank when several are searched."""

    depth: int
    seldepth: int
    score_cp: int | None
    mate: int | None
    nodes: int
    nps: int
    time: float
    pv: list[str]
    hashfull: int
    multipv: int = 1


@dataclass
class SearchResult:
    """What a search found: the best move (None when there is no legal move), the expected
    reply, the score, the depth reached, the nodes searched and the principal variation."""

    best: str | None
    ponder: str | None
    score_cp: int | None
    mate: int | None
    depth: int
    nodes: int
    pv: list[str] = field(default_factory=list)
    lines: list[list[str]] = field(default_factory=list)  # MultiPV: every line's moves, best first


def _score_fields(v: int) -> tuple[int | None, int | None]:
    if v >= MATE_BOUND:
        return None, (MATE - v + 1) // 2
    if v <= -MATE_BOUND:
        return None, -((MATE + v) // 2)
    return int(v), None


def time_budget(turn: int, lim: Limits, mtg: int = PARAMS["tm_mtg"]) -> tuple[float | None, float | None]:
    """(soft, hard) thinking time in seconds for the side ``turn``, or (None, None): no clock.

    The soft limit is where iterative deepening stops starting new iterations; the hard limit
    stops the search.  ``move_overhead`` is kept in reserve on the clock (pipe and GUI
    latency).  On a sudden-death clock a move may take 1/``mtg`` of what is left (the search's
    ``tm_mtg``, 40 unless a variant's table says otherwise) plus most of the increment, never more
    than a quarter of what is left; once the clock is down to the
    reserve, the engine plays at once (a depth-1 answer in about a millisecond), so the
    increment refills the clock.  This is what keeps 1 s + 0.01 s games free of time losses.
    """
    if lim.infinite:
        return None, None
    if lim.movetime is not None:
        t = max(0.001, lim.movetime - lim.move_overhead)
        return t, t
    clock = lim.wtime if turn == 0 else lim.btime
    inc = (lim.winc if turn == 0 else lim.binc) or 0.0
    if clock is None:
        return None, None
    usable = max(0.0, clock - lim.move_overhead)
    if lim.movestogo == 1:  # the last move before the time control: most of what is left
        return max(0.001, usable * 0.5), max(0.002, usable * 0.8)
    # A GUI's moves to go is capped at 50 (a long repeating control is not spread thinner than that);
    # the search's own tm_mtg is taken as it is (before the forty-fifth session it was capped too, so
    # tm_mtg = 65 played as 50).
    mtg = max(2, min(lim.movestogo, 50) if lim.movestogo else mtg)
    soft = min(usable / mtg + inc * 0.8, usable * 0.25)
    hard = min(soft * 3.0, usable * 0.4)
    return max(0.001, soft), max(0.002, hard)


def _put_params(prm: np.ndarray, values: dict[str, int]) -> None:
    """Write search numbers (``search.PARAMS`` names) into ``prm``; ValueError naming an unknown one."""
    unknown = unknown_params(values)
    if unknown:
        raise ValueError(f"unknown search parameters {unknown}")
    if "tt_bucket" in values and int(values["tt_bucket"]) not in TT_WAYS:
        raise ValueError(f"tt_bucket must be one of {', '.join(map(str, TT_WAYS))}, not {values['tt_bucket']}")
    for name, v in values.items():
        prm[PARAM_NAMES.index(name)] = int(v)


class _Watchdog:
    """One long-lived timer thread per Engine: ``arm(seconds)`` calls ``fire`` once after that
    long unless ``disarm()`` came first.  (A ``threading.Timer`` per move cost a thread start,
    about a millisecond, on every move of a bullet game.)"""

    def __init__(self, fire: Callable[[], None]):
        self._fire = fire
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> None:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="jitfish-clock", daemon=True)
                self._thread.start()
            self._deadline = time.monotonic() + seconds
            self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._deadline = None
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left <= 0:
                    self._deadline = None
                    self._fire()
                else:
                    self._cond.wait(left)


class _IterationClock:
    """Whether iterative deepening on a clock starts another iteration.

    Fixed (``tm_dynamic = 0``): no new iteration once ``tm_stop`` percent of the soft limit is
    spent.  Dynamic (``tm_dynamic = 1``): that share is scaled after every iteration as
    Stockfish 11 scales its optimum time (search.cpp, ``fallingEval * reduction *
    bestMoveInstability``), each factor divided by its value for a steady score and a move
    that changed lately, so that such a move keeps the fixed share:

    - a falling score: ``(296 + 12 (previous move's score - score) + 12 (score four iterations
      ago - score)) / 725``, between 0.5 and 1.5 (Stockfish's 6 per internal unit is about 12
      per centipawn), over its floor 0.5: up to three times the time when the score drops;
    - a stable best move, unchanged for more than 7 iterations (Stockfish: 10; jitfish reaches
      about three plies less in the same time): ``(1.47 + previous move's factor) / (2.22 *
      t)`` with t 1.92 if stable, 0.95 if not, over its value (about 1.147) for two unstable moves;
    - instability: ``1 + changes``, where changes halves every iteration and counts one for
      each iteration whose best move differs from the one before (Stockfish counts every
      change within the iteration too).

    The hard limit (``time_budget``) still stops the search wherever it is.
    """

    UNSTABLE = (1.47 + 0.95) / (2.22 * 0.95)  # the stability factor after two unstable moves

    def __init__(self, soft: float | None, stop_pct: int, dynamic: bool,
                 prev_score: int | None, prev_reduction: float):
        self.base = None if soft is None else soft * stop_pct / 100.0
        self.dynamic = dynamic
        self.prev_score = prev_score
        self.prev_reduction = prev_reduction
        self.reduction = 0.95
        self.changes = 0.0
        self.best: str | None = None
        self.best_depth = 0
        self.values = [prev_score] * 4
        self.idx = 0
        self.last_limit = self.base

    def done(self, depth: int, best: str, score: int, elapsed: float) -> bool:
        if self.base is None:
            return False
        if not self.dynamic:
            return elapsed >= self.base
        self.changes /= 2
        if best != self.best:
            if self.best is not None:
                self.changes += 1
            self.best, self.best_depth = best, depth
        falling = 0.5
        old = self.values[self.idx]
        if self.prev_score is not None and old is not None and abs(score) < MATE_BOUND \
                and abs(self.prev_score) < MATE_BOUND and abs(old) < MATE_BOUND:
            falling = min(1.5, max(0.5, (296 + 12 * (self.prev_score - score) + 12 * (old - score)) / 725))
        self.values[self.idx] = score
        self.idx = (self.idx + 1) & 3
        self.reduction = 1.92 if self.best_depth + 7 < depth else 0.95
        reduction = (1.47 + self.prev_reduction) / (2.22 * self.reduction)
        self.last_limit = self.base * (falling / 0.5) * (reduction / self.UNSTABLE) * (1 + self.changes)
        return elapsed >= self.last_limit


class Engine:
    """Search positions of any jitfish variant.

    >>> eng = Engine(hash_mb=8)
    >>> r = eng.search(Position("courier"), Limits(depth=2), multipv=2)
    >>> r.best is not None and len(r.lines) == 2
    True
    """

    def __init__(self, hash_mb: int = 16):
        self._lock = threading.Lock()
        # the search's tuned numbers (search.PARAMS), read by the kernels at run time; the
        # environment's JITFISH_SEARCH_PARAMS="name=value,..." overrides them (for tuners)
        self.prm = np.array([PARAMS[k] for k in PARAM_NAMES], np.int64)
        self._explicit: dict[str, int] = {}  # set_params' values, which win over a variant's own
        self._variant_prm: dict[object, np.ndarray] = {}
        self.set_params(parse_params(os.environ.get("JITFISH_SEARCH_PARAMS", "")))
        self.ctrl = np.zeros(16, np.int64)
        self.set_hash(hash_mb)
        self.killers = np.zeros((MAXPLY + 2, 2), np.int64)
        self.history = np.zeros((2, 128, 128), np.int64)
        self.pv = np.zeros((MAXPLY + 2, MAXPLY + 2), np.int64)
        self.pvlen = np.zeros(MAXPLY + 2, np.int64)
        self.moves = np.zeros((MAXPLY + 2, K.MAXMOVES), np.int64)
        self.mscore = np.zeros((MAXPLY + 2, K.MAXMOVES), np.int64)
        self.root_skip = np.zeros(K.MAXMOVES, np.int64)
        self.seval = np.zeros(MAXPLY + 2, np.int64)
        self.cmove = np.full(MAXPLY + 2, -1, np.int64)
        self.mcount = np.zeros(MAXPLY + 2, np.int64)
        self.sstat = np.zeros(MAXPLY + 4, np.int64)
        self.cont = np.zeros((1, 1), np.int64)  # sized for the variant by the first search
        self.corr = np.zeros((2, CORR_SIZE), np.int64)
        self.eval_cache = new_cache()
        self._eval_for = None  # the EvalTables the cache's entries were computed with
        self._clock = _Watchdog(self.stop)
        self._tm_score: int | None = None  # the last clocked search's score and stability factor
        self._tm_reduction = 0.95
        self._searches = 0

    def set_hash(self, mb: int) -> None:
        """Resize the transposition table (a power of two of 16-byte entries, at most mb MB)."""
        mb = max(1, int(mb))
        n = 1 << max(10, int(math.log2(mb * 1024 * 1024 // 16)))
        self.tt_key = np.zeros(n, np.uint64)
        self.tt_data = np.full(n, -1, np.int64)

    def set_params(self, values: dict[str, int]) -> None:
        """Set some of the search's numbers (``search.PARAMS`` names) for the next searches, in
        every variant (over a variant's own ``[search]`` table)."""
        _put_params(self.prm, values)
        self._explicit.update({name: int(v) for name, v in values.items()})
        self._variant_prm.clear()

    def params(self, variant: str | None = None) -> dict[str, int]:
        """The search's numbers this Engine uses (in ``variant``: with that variant's
        ``[search]`` table from its weight file)."""
        prm = self.prm if variant is None else self._params_for(load_variant(variant))
        return {k: int(v) for k, v in zip(PARAM_NAMES, prm)}

    def _params_for(self, variant) -> np.ndarray:
        """The defaults, then the variant's ``[search]`` table, then ``set_params``' values."""
        key = (variant.spec, variant.spec.source)
        prm = self._variant_prm.get(key)
        if prm is None:
            own = search_settings(variant)
            prm = self.prm
            if own:
                prm = self.prm.copy()
                try:
                    _put_params(prm, {k: v for k, v in own.items() if k not in self._explicit})
                except ValueError as exc:
                    raise ValueError(f"weights of {variant.spec.name}: [search]: {exc}") from None
            self._variant_prm[key] = prm
        return prm

    def new_game(self) -> None:
        self.tt_key[:] = 0
        self.tt_data[:] = -1
        self.history[:] = 0
        self.killers[:] = 0
        clear_cache(self.eval_cache)
        self.cont[:] = 0
        self.corr[:] = 0
        self._tm_score, self._tm_reduction = None, 0.95

    def stop(self) -> None:
        """Ask a running search to return (safe from any thread)."""
        self.ctrl[C_STOP] = 1

    def _tables(self, prm: np.ndarray | None = None) -> SearchTables:
        return SearchTables(self.tt_key, self.tt_data, self.killers, self.history, self.pv, self.pvlen, self.moves,
                            self.mscore, self.ctrl, self.root_skip, self.seval, self.cmove, self.mcount,
                            self.sstat, self.cont, self.corr,
                            self.prm if prm is None else prm)

    def warmup(self, variant: str = "chess") -> None:
        """Compile or load every kernel the search uses (blocking)."""
        self.search(Position(variant), Limits(depth=2))

    def search(self, position: Position, limits: Limits | None = None,
               on_info: Callable[[SearchInfo], None] | None = None, multipv: int = 1) -> SearchResult:
        """Search a copy of ``position`` within ``limits``; blocks until done or ``stop()``.

        ``multipv`` > 1 searches that many best lines at every depth (each line leaves out the
        first moves of the lines before it); ``on_info`` hears every line of every depth, and
        the result's ``lines`` holds the last complete depth's lines, best first."""
        lim = limits or Limits()
        with self._lock:
            return self._search(position, lim, on_info, max(1, int(multipv)))

    def _skip(self, moves: list[int]) -> None:
        self.root_skip[:len(moves)] = moves
        self.ctrl[C_ROOT_SKIP] = len(moves)

    def _root(self, d: np.ndarray, ss: SearchTables, depth: int, guess: int) -> int:
        """One root search to ``depth``: aspiration windows around ``guess`` from depth 5,
        widened until the score falls inside (Stockfish 11's windows with ``asp_sf``)."""
        window = int(ss.prm[I_ASPIRATION])
        if ss.prm[I_ASP_SF]:
            return self._root_sf(d, ss, depth, guess, window)
        alpha, beta = (-INF, INF) if depth < 5 else (guess - window, guess + window)
        while True:
            v = int(search_root(d, ss, depth, alpha, beta))
            if self.ctrl[C_STOP]:
                return v
            if v <= alpha:
                alpha = max(-INF, alpha - window)
                window *= 2
            elif v >= beta:
                beta = min(INF, beta + window)
                window *= 2
            else:
                return v
            if window > 1000:
                alpha, beta = -INF, INF

    def _root_sf(self, d: np.ndarray, ss: SearchTables, depth: int, guess: int, window: int) -> int:
        """``asp_sf = 1``: Stockfish 11's aspiration windows (search.cpp, ``Thread::search``): a
        fail low keeps half the window above and reopens below the score, a fail high reopens
        above the score and searches one ply less for each fail high in a row."""
        if depth < 4:
            return int(search_root(d, ss, depth, -INF, INF))
        alpha, beta = max(guess - window, -INF), min(guess + window, INF)
        failed_high = 0
        while True:
            v = int(search_root(d, ss, max(1, depth - failed_high), alpha, beta))
            if self.ctrl[C_STOP]:
                return v
            if v <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(v - window, -INF)
                failed_high = 0
            elif v >= beta:
                beta = min(v + window, INF)
                failed_high += 1
            else:
                return v
            window += window // 4 + 5

    def _search(self, position: Position, lim: Limits, on_info, multipv: int) -> SearchResult:
        pos = position.copy()
        legal = pos.legal_moves()
        self.ctrl[:] = 0
        if not legal:
            return SearchResult(None, None, None, None, 0, 0)
        pool = legal
        if lim.searchmoves:
            pool = [m for m in legal if pos.move_name(m) in lim.searchmoves] or legal
        if len(pool) == 1 and not lim.infinite and lim.depth is None and lim.nodes is None:
            name = pos.move_name(pool[0])
            return SearchResult(name, None, None, None, 0, 0, [name], [[name]])
        outside = [m for m in legal if m not in pool]
        n_pv = min(multipv, len(pool))
        ev = eval_tables(pos.variant)
        n_cont = min(int(pos.tab.cfg[CFG_NTYPES]) * int(pos.tab.cfg[CFG_NSQ]), CONT_MAX)
        if self.cont.shape[0] != n_cont:  # continuation history: one table per variant size
            self.cont = np.zeros((n_cont, n_cont), np.int64)
        self._fit_cache(ev)
        ss = self._tables(self._params_for(pos.variant))
        self._searches += 1  # the TT's generation: entries of earlier searches age (tt.py)
        self.ctrl[C_TT_WAYS] = ss.prm[I_TT_BUCKET]
        self.ctrl[C_TT_GEN] = self._searches & 63
        if ss.prm[I_KILLER_CLEAR]:
            self.killers[:] = 0  # Stockfish's search starts with none
        d = pack_search(pos.pos, pos.tab, ev, self.eval_cache, ss)  # raw addresses: pos, ev, ss stay alive here
        soft, hard = time_budget(pos.turn, lim, int(ss.prm[I_TM_MTG]))
        max_depth = lim.depth if lim.depth is not None else (MAXPLY - 8 if (lim.infinite or soft or lim.nodes) else 8)
        max_depth = max(1, min(max_depth, MAXPLY - 8))
        if lim.nodes:
            self.ctrl[C_NODE_LIMIT] = lim.nodes
        t0 = time.perf_counter()
        if hard is not None:
            self._clock.arm(hard)
        best: SearchResult | None = None
        best_v = 0
        guesses = [0] * n_pv
        clocked = soft is not None and lim.movetime is None  # a clock, not a fixed time a move
        # a fixed time a move is spent to its end, as Stockfish spends it (the hard limit stops the
        # search; an iteration stopped part way still gives its best move): no soft stop
        iclock = _IterationClock(soft if lim.movetime is None else None, int(ss.prm[I_TM_STOP]),
                                 clocked and bool(ss.prm[I_TM_DYNAMIC]),
                                 self._tm_score, self._tm_reduction)
        try:
            for depth in range(1, max_depth + 1):
                lines: list[tuple[int, list[int]]] = []  # (score, pv) per line, in search order
                for k in range(n_pv):
                    skip = outside + [pv[0] for _v, pv in lines]
                    self._skip(skip)
                    v = self._root(d, ss, depth, guesses[k])
                    if self.ctrl[C_STOP] and (best is not None or lines):
                        if n_pv == 1 and best is not None:
                            best = self._stopped_iteration(pos, pool, best)
                        break
                    pv = self._root_pv()
                    if not pv or pv[0] not in pool or pv[0] in skip:
                        if best is not None or lines:
                            break
                        pv = [next(m for m in pool if m not in skip)]
                    lines.append((v, pv))
                    if self.ctrl[C_STOP]:
                        break
                if self.ctrl[C_STOP] and best is not None or not lines:
                    break
                lines.sort(key=lambda line: line[0], reverse=True)
                guesses[:len(lines)] = [v for v, _pv in lines]
                elapsed = time.perf_counter() - t0
                nodes = int(self.ctrl[C_NODES])
                named = [self._pv_names(pos, pv) for _v, pv in lines]
                v = lines[0][0]
                cp, mate = _score_fields(v)
                best_v = v
                best = SearchResult(named[0][0], named[0][1] if len(named[0]) > 1 else None,
                                    cp, mate, depth, nodes, named[0], named)
                if on_info:
                    for k, ((lv, _pv), names) in enumerate(zip(lines, named), 1):
                        lcp, lmate = _score_fields(lv)
                        on_info(SearchInfo(depth, int(self.ctrl[C_SELDEPTH]), lcp, lmate, nodes,
                                           int(nodes / elapsed) if elapsed > 0 else 0, elapsed,
                                           names, self.hashfull(), k if n_pv > 1 else 1))
                if self.ctrl[C_STOP] or len(lines) < n_pv:
                    break
                if iclock.done(depth, best.best, v, elapsed):
                    break
                if mate is not None and not lim.infinite and lim.depth is None and abs(mate) * 2 <= depth:
                    break
            if lim.infinite:
                # an infinite search only returns when stopped
                while not self.ctrl[C_STOP]:
                    time.sleep(0.002)
        finally:
            if hard is not None:
                self._clock.disarm()
            self._skip([])
        assert best is not None
        best.nodes = int(self.ctrl[C_NODES])
        if clocked:
            self._tm_score, self._tm_reduction = best_v, iclock.reduction
        return best

    def _root_pv(self) -> list[int]:
        """The root's principal variation as the last root search left it (move codes)."""
        return [int(self.pv[0, j]) for j in range(int(self.pvlen[0]))]

    def _stopped_iteration(self, pos: Position, pool: list[int], done: SearchResult) -> SearchResult:
        """The result of a search stopped inside an iteration: that iteration's PV where a root
        move was searched to its end and beat the aspiration window's alpha (better than the
        first move's bound, so better than the last complete iteration's move: Stockfish plays it
        too), with its score; else ``done``, the last complete iteration's."""
        pv = self._root_pv()
        if not pv or pv[0] not in pool:
            return done
        named = self._pv_names(pos, pv)
        if not named or named[0] == done.best:
            return done
        cp, mate = _score_fields(int(self.ctrl[C_ROOT_SCORE]))
        return SearchResult(named[0], named[1] if len(named) > 1 else None, cp, mate, done.depth, done.nodes,
                            named, [named])

    def _pv_names(self, pos: Position, pv: list[int]) -> list[str]:
        """Move names of the PV, cut where a move is not legal (a stale TT line)."""
        q = pos.copy()
        out = []
        for m in pv:
            if m not in q.legal_moves():
                break
            out.append(q.move_name(m))
            q.push(m)
        return out

    def static_eval(self, position: Position) -> int:
        """The static evaluation of ``position`` in centipawns from the side to move."""
        ev = eval_tables(position.variant)
        self._fit_cache(ev)
        return int(static_eval(pack_eval(position.pos, position.tab, ev, self.eval_cache)))

    def _fit_cache(self, ev) -> None:
        """Evaluation cache entries and accumulators hold only for the tables (weights,
        network) they were computed with: emptied when the variant's tables change."""
        if ev is not self._eval_for:
            self.eval_cache = cache_for(self.eval_cache, ev)
            clear_cache(self.eval_cache)
            self._eval_for = ev

    def hashfull(self) -> int:
        sample = self.tt_data[:1000]
        return int((sample >= 0).sum() * 1000 // len(sample))
