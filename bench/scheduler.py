"""Where the games of a match are played: the work units, the engines a worker keeps, the local
(thread) scheduler and the state file of ``--resume``.

The unit of work is a game *pair* (one opening, colours swapped; the last pair of an odd match
has one game). ``Match`` hands work units to a ``concurrent.futures.Executor``:

- ``LocalScheduler`` (the default, no new dependency): a ``ThreadPoolExecutor`` in the match's
  own process, one task per game so that ``--concurrency N`` plays N games at once, as before;
- ``DaskScheduler`` (``bench/cluster.py``, ``pip install 'jitfish[cluster]'``): one task per
  pair on the workers of a Dask cluster (``--scheduler tcp://HOST:PORT`` or ``local:N``).

A worker process keeps its engines between work units (an ``EnginePool`` per match), so each
worker starts and warms its engines (numba cache) once, not once per pair. Results come back
keyed by game index; the match records each pair once, in pair order.

``MatchState`` is the JSON file beside the PGN (``PGN.state.json``) that ``--resume`` reads:
written atomically after every recorded pair, it holds the match's fingerprint (engines,
variant, limits, openings: the seed's work), the PGN's size after the last recorded pair, the
tally and SPRT state of the recorded games, and the full records of games finished ahead of
their pair's turn (recorded when their turn comes, never played again).
"""
from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import datetime as _dt
import hashlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jitfish.movegen import Position, load_spec
from jitfish.protocol.client import EngineError, MatchAborted

from .game import FatalMatchError, MatchConfig, Player, play_game
from .games import GameRecord, MoveRecord, Termination
from .openings import Opening

__all__ = ["GameJob", "work_units", "EnginePool", "play_jobs", "probe_names", "LocalScheduler",
           "warm_rules", "MatchState", "fingerprint", "state_path", "record_to_json", "record_from_json"]


@dataclass(frozen=True)
class GameJob:
    """One game of a match: its 0-based index, the opening and which engine has White."""

    index: int
    opening: Opening
    white_engine: int

    @property
    def pair(self) -> int:
        return self.index // 2


def work_units(cfg: MatchConfig, games_per_unit: int, skip: set[int] = frozenset()) -> list[tuple[GameJob, ...]]:
    """The games of the match in work units of one game or one pair (``games_per_unit`` 1 or 2),
    in game order, leaving out the games in ``skip`` (already played, when resuming)."""
    openings = cfg.openings or [Opening(load_spec(cfg.variant).start_fen)]
    jobs = [GameJob(i, openings[(i // 2) % len(openings)], i % 2) for i in range(cfg.games)
            if i not in skip]
    if games_per_unit == 1:
        return [(j,) for j in jobs]
    units: dict[int, list[GameJob]] = {}
    for j in jobs:
        units.setdefault(j.pair, []).append(j)
    return [tuple(u) for _, u in sorted(units.items())]


def warm_rules(variant: str) -> None:
    """Compile (or load from numba's cache) the rules kernels in this process before any engine
    starts: engines that import jitfish then load them from the cache instead of compiling them
    again, and no compiling happens between the moves of the first game."""
    pos = Position(variant)
    for _ in range(2):
        moves = pos.legal_moves()
        if not moves:
            break
        m = moves[0]
        pos.san(m, moves)
        pos.push(m)
    pos.outcome()
    pos.fen()


class EnginePool:
    """The idle engine pairs of one match in one process: a work unit takes a pair of players
    (starting the engines when there is none) and gives it back, so a worker thread or process
    reuses its engines from unit to unit."""

    def __init__(self, cfg: MatchConfig, names: list[str], stop: threading.Event, log=None):
        self.cfg = cfg
        self.names = names
        self.stop = stop
        self.log = log
        self._idle: list[list[Player]] = []
        self._lock = threading.Lock()

    def add(self, players: list[Player]) -> None:
        with self._lock:
            self._idle.append(players)

    def take(self) -> list[Player]:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return [Player(ec, self.names[i], self.cfg.variant, self.stop, self.log, self.cfg.start_timeout)
                for i, ec in enumerate(self.cfg.engines)]

    def give(self, players: list[Player], broken: bool = False) -> None:
        if broken or self.stop.is_set():
            for p in players:
                p.discard()  # aborted: engines may be mid-search, do not wait for them
            return
        with self._lock:
            self._idle.append(players)

    def close(self, kill: bool = False) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for players in idle:
            for p in players:
                try:
                    p.discard() if kill else p.close()
                except Exception:
                    p.discard()


def start_players(cfg: MatchConfig, stop: threading.Event, log=None) -> list[Player]:
    """Start both engines once (fail fast on a bad command or variant) and fix their names."""
    players: list[Player] = []
    for i, ec in enumerate(cfg.engines):
        p = Player(ec, ec.name or ec.default_name(), cfg.variant, stop, log, cfg.start_timeout)
        try:
            eng = p.ensure()
        except EngineError as exc:
            for q in players:
                q.close()
            raise FatalMatchError(f"engine {i + 1} ({ec.cmd}) cannot be started: {exc}") from None
        p.name = ec.name or eng.own_name or ec.default_name()
        players.append(p)
    if players[0].name == players[1].name:
        players[1].name += "-2"
    for p in players:
        p.engine.name = p.name
    return players


def probe_names(pool_of: Callable[[list[str]], EnginePool], cfg: MatchConfig, stop: threading.Event,
                log=None) -> list[str]:
    """Start the engines where the games will be played, return their names and keep the
    started engines in that place's pool (``pool_of(names)``)."""
    players = start_players(cfg, stop, log)
    names = [p.name for p in players]
    pool_of(names).add(players)
    return names


def play_jobs(pool: EnginePool, jobs: tuple[GameJob, ...]) -> list[GameRecord]:
    """Play a work unit with engines from ``pool``; the records in game order. Raises
    MatchAborted when the pool's stop event is set, FatalMatchError when an engine cannot start."""
    players = pool.take()
    broken = True
    try:
        out = [play_game(j.index, j.opening, players, j.white_engine, pool.cfg, pool.stop) for j in jobs]
        broken = False
        return out
    except (MatchAborted, FatalMatchError):
        raise
    except Exception as exc:  # a bug here must not hang the match
        raise FatalMatchError(f"internal error in game {jobs[0].index + 1}: {exc!r}") from None
    finally:
        pool.give(players, broken)


class LocalScheduler:
    """Games on threads of this process (the default): ``--concurrency`` games at once, each
    thread with its own two engine processes, as ``jitfish match`` always did."""

    games_per_unit = 1
    where = "local threads"

    def __init__(self, concurrency: int):
        self.concurrency = max(1, concurrency)
        self.pool: EnginePool | None = None
        self.executor: cf.Executor | None = None

    def open(self, match) -> list[str]:
        cfg = match.cfg
        names = probe_names(lambda names: self._pool(cfg, names, match), cfg, match.stop, match._logger())
        n_units = len(work_units(cfg, 1))
        self.executor = cf.ThreadPoolExecutor(max_workers=max(1, min(self.concurrency, n_units)),
                                              thread_name_prefix="match-worker")
        return names

    def _pool(self, cfg, names, match) -> EnginePool:
        self.pool = EnginePool(cfg, names, match.stop, match._logger())
        return self.pool

    def submit(self, jobs: tuple[GameJob, ...]) -> cf.Future:
        return self.executor.submit(play_jobs, self.pool, jobs)

    def close(self, aborted: bool) -> None:
        """Wait for the threads (the pool's stop event is the match's: when the match is aborted
        they stop at their next move) and close the engines, or kill them when aborted."""
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
        if self.pool is not None:
            self.pool.close(kill=aborted)


# -- the state file of --resume ------------------------------------------------------------------


def state_path(pgn: str) -> Path:
    return Path(pgn + ".state.json")


def fingerprint(cfg: MatchConfig) -> str:
    """What makes two runs the same match: engines, variant, games, limits, openings (the seed's
    work), adjudication and SPRT; not the concurrency or the scheduler."""
    def plain(x):
        if dataclasses.is_dataclass(x):
            return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        if isinstance(x, dict):
            return {str(k): plain(v) for k, v in sorted(x.items())}
        return x if isinstance(x, (int, float, str, bool, type(None))) else str(x)

    what = {"engines": plain(cfg.engines), "variant": cfg.variant, "games": cfg.games,
            "limits": plain(cfg.limits), "openings": plain(cfg.openings),
            "adjudication": plain(cfg.adjudication), "sprt": plain(cfg.sprt), "timemargin": cfg.timemargin,
            "hang_timeout": cfg.hang_timeout}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def record_to_json(rec: GameRecord) -> dict:
    d = dataclasses.asdict(rec)
    d["started"] = rec.started.isoformat()
    d["termination"] = str(rec.termination)
    return d


def record_from_json(d: dict) -> GameRecord:
    d = dict(d)
    d["moves"] = [MoveRecord(**m) for m in d.get("moves", [])]
    d["started"] = _dt.datetime.fromisoformat(d["started"]) if d.get("started") else _dt.datetime.now()
    d["termination"] = Termination(d.get("termination", Termination.UNTERMINATED))
    return GameRecord(**d)


@dataclass
class MatchState:
    """The state file of a match with a PGN (see the module's docstring)."""

    fingerprint: str
    command: str
    seed: int | None
    games: int
    pgn_start: int = 0  # the PGN's size before this match's first game (earlier matches' games)
    pgn_size: int = 0  # the PGN's size after the last recorded pair
    next_pair: int = 0  # every pair before it is recorded (in the PGN and the tally)
    names: list[str] = dataclasses.field(default_factory=list)
    tally: dict = dataclasses.field(default_factory=dict)
    llr: float | None = None
    verdict: str | None = None
    history: list[list] = dataclasses.field(default_factory=list)  # with --plot only
    ahead: dict[str, dict] = dataclasses.field(default_factory=dict)  # game index -> full record
    finished: bool = False

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(dataclasses.asdict(self)))
        os.replace(tmp, path)  # atomic: a crash leaves the old state or the new one

    @classmethod
    def load(cls, path: Path) -> MatchState:
        d = json.loads(path.read_text())
        return cls(**{f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d})
