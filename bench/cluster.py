"""Matches on a Dask cluster: ``jitfish match --scheduler tcp://HOST:PORT`` or ``local:N``.

Needs ``distributed`` (``pip install 'jitfish[cluster]'``), imported only when a cluster is
asked for. Every work unit is a game pair, played by a Dask worker with its own engine
processes: the engine commands (and any ``--variants`` file) must exist on every worker, at the
same paths. A worker keeps its engines from pair to pair (an ``EnginePool`` per match in the
worker process), so it starts and warms them once; run workers with one thread
(``dask worker --nthreads 1``) so that one game at a time shares a core, as on the clock.

Faults: a worker that dies mid-game loses its pair's task, which Dask's scheduler runs again on
another worker; results are keyed by game index and the client records each game once.

``tcp://`` work runs on the workers of a scheduler started elsewhere (``dask scheduler``);
``local:N`` starts a ``LocalCluster`` of N worker processes bound to 127.0.0.1 and stops it at
the end of the match.
"""
from __future__ import annotations

import atexit
import concurrent.futures as cf
import dataclasses
import logging
import threading
import uuid

from jitfish.movegen import VariantError, add_variant_path, load_spec
from jitfish.movegen.spec import is_shipped, variant_file

from .game import FatalMatchError, MatchConfig
from .scheduler import EnginePool, GameJob, play_jobs, probe_names, warm_rules

__all__ = ["DaskScheduler", "require_distributed", "connect", "remote_play", "remote_probe"]


def require_distributed():
    """The ``distributed`` module, or a clear exit naming the extra to install."""
    try:
        import distributed
    except ImportError:
        raise SystemExit("--scheduler needs Dask's distributed: pip install 'jitfish[cluster]'") from None
    return distributed


def connect(address: str, n_workers_wait: int = 1, timeout: float = 60):
    """(client, cluster or None) for ``tcp://HOST:PORT`` or ``local:N``."""
    distributed = require_distributed()
    cluster = None
    if address.startswith("local:"):
        try:
            n = int(address[len("local:"):])
        except ValueError:
            raise ValueError(f"bad --scheduler {address!r}: local:N wants a number of workers") from None
        if n < 1:
            raise ValueError("--scheduler local:N needs N >= 1")
        cluster = distributed.LocalCluster(host="127.0.0.1", n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.ERROR)
        client = distributed.Client(cluster)
        client.wait_for_workers(n, timeout=timeout)
    elif "://" in address:
        client = distributed.Client(address, timeout=timeout)
        client.wait_for_workers(n_workers_wait, timeout=timeout)
    else:
        raise ValueError(f"bad --scheduler {address!r}: give tcp://HOST:PORT or local:N")
    return client, cluster


# -- on the workers ------------------------------------------------------------------------------

_POOLS: dict[str, EnginePool] = {}
_STOPS: dict[str, threading.Event] = {}
_LOCK = threading.Lock()


def _stop_of(key: str) -> threading.Event:
    with _LOCK:
        return _STOPS.setdefault(key, threading.Event())


def _pool(key: str, cfg: MatchConfig, names: list[str]) -> EnginePool:
    with _LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = EnginePool(cfg, names, _STOPS.setdefault(key, threading.Event()))
        return pool


def _prepare(cfg: MatchConfig, vfile: str | None) -> None:
    """The variant known in this worker process (a user's file: at the same path) and the rules
    kernels loaded before the first game."""
    try:
        load_spec(cfg.variant)
    except VariantError:
        if not vfile:
            raise
        add_variant_path(vfile)
    warm_rules(cfg.variant)


def remote_probe(key: str, cfg: MatchConfig, vfile: str | None) -> list[str]:
    """On a worker: start both engines, return their names, keep them for this match's pairs."""
    _prepare(cfg, vfile)
    return probe_names(lambda names: _pool(key, cfg, names), cfg, _stop_of(key))


def remote_play(key: str, cfg: MatchConfig, names: list[str], vfile: str | None, jobs: tuple[GameJob, ...]):
    """On a worker: play one work unit; the records keyed by their game index."""
    _prepare(cfg, vfile)
    return play_jobs(_pool(key, cfg, names), jobs)


def remote_end(key: str, kill: bool) -> None:
    """On a worker: the match is over; stop its games (``kill``) and close its engines."""
    with _LOCK:
        stop = _STOPS.setdefault(key, threading.Event())
        pool = _POOLS.pop(key, None)
    if kill:
        stop.set()
    if pool is not None:
        pool.close(kill=kill)


@atexit.register
def _close_all() -> None:
    for pool in list(_POOLS.values()):
        pool.close(kill=True)


# -- on the client -------------------------------------------------------------------------------


class DaskScheduler:
    """Game pairs on the workers of a Dask cluster."""

    games_per_unit = 2

    def __init__(self, address: str):
        self.address = address
        self.where = f"Dask scheduler {address}"
        self.client = self.cluster = self.executor = None
        self.key = uuid.uuid4().hex
        self.names: list[str] = []
        self.wcfg: MatchConfig | None = None
        self.vfile: str | None = None

    def open(self, match) -> list[str]:
        cfg = match.cfg
        self.client, self.cluster = connect(self.address)
        self.executor = self.client.get_executor(pure=False)
        # what a worker needs: no openings list (each unit carries its own), no local files
        self.wcfg = dataclasses.replace(cfg, openings=[], debug=None, plot=None, pgn=None, progress=False,
                                        board=None)  # the board is shown the games as they are recorded
        self.vfile = None if is_shipped(cfg.variant) else str(variant_file(cfg.variant))
        try:
            self.names = self.executor.submit(remote_probe, self.key, self.wcfg, self.vfile).result()
        except FatalMatchError as exc:
            raise FatalMatchError(f"{exc} (on a Dask worker: the engine commands must exist on every worker)") \
                from None
        return self.names

    def submit(self, jobs: tuple[GameJob, ...]) -> cf.Future:
        return self.executor.submit(remote_play, self.key, self.wcfg, self.names, self.vfile, jobs)

    def _end(self, kill: bool) -> None:
        if self.client is None:
            return
        try:
            self.client.run(remote_end, self.key, kill, wait=True)
        except Exception:
            pass

    def close(self, aborted: bool) -> None:
        """Cancel the units not started, stop the games in play when aborted, close the engines
        on every worker, and the client (and a local:N cluster)."""
        if self.client is None:
            return
        try:
            if self.executor is not None:
                self.executor.shutdown(wait=False)  # cancels the units not yet finished
        except Exception:
            pass
        self._end(kill=aborted)
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()
            self.client = None
