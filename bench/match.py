"""The match: work units handed to a scheduler, the tally, the SPRT and the final report.

``Match.run()`` hands the games (one per unit on local threads, a pair per unit on a Dask
cluster: ``scheduler.py``, ``cluster.py``) to a ``concurrent.futures.Executor``; the main thread
records the games in game order, pair by pair (``_record``: the PGN, the tally with pair counts,
the progress bar and the SPRT), keeps the state file of ``--resume`` beside the PGN, and stops
everything on a verdict, a fatal error or Ctrl-C.
"""
from __future__ import annotations

import concurrent.futures as cf
import math
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

from jitfish.protocol.client import MatchAborted

from .cluster import DaskScheduler
from .game import FatalMatchError, MatchConfig
from .games import GameRecord, Termination
from .plot import plot_history, require_matplotlib
from .scheduler import (
    LocalScheduler, MatchState, fingerprint, record_from_json, record_to_json, state_path, warm_rules, work_units,
)
from .stats import EloEstimate, elo_pentanomial, elo_wdl, fmt_elo, fmt_elo_error, los

__all__ = ["Tally", "Match"]


@dataclass
class Tally:
    """Results from the first engine's point of view, with pair (pentanomial) counts."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: list[int] = field(default_factory=lambda: [0] * 6)  # LL LD WL DD WD WW
    pending: dict[int, float] = field(default_factory=dict)
    terminations: dict[str, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.n if self.n else math.nan

    def add(self, rec: GameRecord) -> None:
        s = rec.score_first()
        if s is None:
            return
        if s == 1.0:
            self.wins += 1
        elif s == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        if rec.termination == Termination.NORMAL:
            key = re.sub(r"^(White|Black)('s)? ", "", rec.reason)
            key = {"mates": "checkmate", "resigns": "resignation"}.get(key, key)
        else:
            key = rec.termination
        self.terminations[key] = self.terminations.get(key, 0) + 1
        pair = rec.index // 2
        if pair in self.pending:
            a, b = sorted((self.pending.pop(pair), s))
            idx = {(0.0, 0.0): 0, (0.0, 0.5): 1, (0.0, 1.0): 2, (0.5, 0.5): 3, (0.5, 1.0): 4, (1.0, 1.0): 5}[(a, b)]
            self.penta[idx] += 1
        else:
            self.pending[pair] = s

    def elo(self) -> EloEstimate:
        return elo_wdl(self.wins, self.losses, self.draws)

    def line(self, a: str, b: str) -> str:
        """cutechess-cli's score line: ``Score of A vs B: W - L - D  [0.550] N``."""
        sc = f"{self.score:.3f}" if self.n else "0.000"
        return f"Score of {a} vs {b}: {self.wins} - {self.losses} - {self.draws}  [{sc}] {self.n}"


class Match:
    """Runs a match: a scheduler's workers, each with its own two engine processes, play the
    work units; the main thread records every game once, in game order (the PGN, the tally, the
    progress bar and the SPRT), and stops everything on a verdict, a fatal error or Ctrl-C."""

    def __init__(self, cfg: MatchConfig, out=None, err=None):
        if len(cfg.engines) != 2:
            raise ValueError("a match needs exactly two engines")
        self.cfg = cfg
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.stop = threading.Event()
        self.tally = Tally()
        self.history: list[tuple[int, float, float, float | None]] = []  # n, elo, error, llr
        self.records: list[GameRecord] = []
        self.names = ["", ""]
        self.sprt_verdict: str | None = None
        self.llr: float | None = None
        self.fatal: str | None = None
        self.state: MatchState | None = None  # the state file's contents (with --pgn)
        self.resumed = False
        self._ahead: dict[int, GameRecord] = {}  # finished games waiting for their pair's turn
        self._next_pair = 0  # every pair before it is recorded
        self._critical = False
        self._interrupted = False
        self._log_lock = threading.Lock()
        self._log_fh = open(cfg.debug, "w", encoding="utf-8") if cfg.debug else None
        self._t0 = time.monotonic()

    # -- logging ---------------------------------------------------------------------------

    def _log(self, name: str, direction: str, line: str) -> None:
        if self._log_fh is None:
            return
        with self._log_lock:
            self._log_fh.write(f"{time.monotonic() - self._t0:10.3f} {name} {direction} {line}\n")
            self._log_fh.flush()

    def _logger(self):
        return self._log if self._log_fh is not None else None

    # -- running -----------------------------------------------------------------------------

    def _scheduler(self):
        if self.cfg.scheduler:
            return DaskScheduler(self.cfg.scheduler)
        return LocalScheduler(self.cfg.concurrency)

    def _load_state(self) -> set[int]:
        """The games already played (recorded, or finished ahead of their turn) when resuming;
        sets up the tally, the PGN and ``self.state``."""
        cfg = self.cfg
        if not cfg.pgn:
            if cfg.resume:
                raise FatalMatchError("--resume needs the --pgn of the interrupted match")
            return set()
        path = state_path(cfg.pgn)
        fp = fingerprint(cfg)
        if not cfg.resume:
            size = os.path.getsize(cfg.pgn) if os.path.exists(cfg.pgn) else 0
            self.state = MatchState(fp, cfg.command, cfg.seed, cfg.games, pgn_start=size, pgn_size=size)
            return set()
        try:
            st = MatchState.load(path)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise FatalMatchError(f"--resume: cannot read the state file {path}: {exc}") from None
        if st.fingerprint != fp:
            raise FatalMatchError(f"--resume: {path} belongs to another match (engines, variant, games, limits, "
                                  f"openings or seed differ): {st.command}")
        # games written after the last saved state (a crash between the two) are played again
        if os.path.exists(cfg.pgn) and os.path.getsize(cfg.pgn) > st.pgn_size:
            with open(cfg.pgn, "r+b") as fh:
                fh.truncate(st.pgn_size)
        t = st.tally
        if t:
            self.tally = Tally(t["wins"], t["losses"], t["draws"], list(t["penta"]),
                               {int(k): v for k, v in t["pending"].items()}, dict(t["terminations"]))
        self.history = [tuple(h) for h in st.history]
        self.llr, self.sprt_verdict = st.llr, st.verdict
        self.state = st
        self.resumed = True
        played = set(range(min(cfg.games, 2 * st.next_pair)))
        for k, d in st.ahead.items():
            self._ahead[int(k)] = record_from_json(d)
        return played | set(self._ahead)

    def _save_state(self, pgn_fh) -> None:
        st = self.state
        if st is None:
            return
        if pgn_fh is not None:
            st.pgn_size = pgn_fh.tell()
        t = self.tally
        st.tally = {"wins": t.wins, "losses": t.losses, "draws": t.draws, "penta": t.penta,
                    "pending": {str(k): v for k, v in t.pending.items()}, "terminations": t.terminations}
        st.history = [list(h) for h in self.history] if self.cfg.plot else []
        st.llr, st.verdict = self.llr, self.sprt_verdict
        st.next_pair = self._next_pair
        st.ahead = {str(i): record_to_json(r) for i, r in sorted(self._ahead.items())}
        st.finished = self.sprt_verdict is not None or 2 * self._next_pair >= self.cfg.games
        st.save(state_path(self.cfg.pgn))

    def _record_ready(self, pgn_fh, bar) -> bool:
        """Record, in game order, every pair whose games have all arrived; True when one was."""
        n_pairs = (self.cfg.games + 1) // 2
        any_recorded = False
        while self._next_pair < n_pairs and not self.sprt_verdict:
            p = self._next_pair
            idx = [i for i in (2 * p, 2 * p + 1) if i < self.cfg.games]
            if not all(i in self._ahead for i in idx):
                break
            self._critical = True  # a Ctrl-C waits until the pair and its state are written
            try:
                for i in idx:
                    if not self.sprt_verdict:  # nothing is counted after the SPRT's verdict
                        self._record(self._ahead[i], pgn_fh, bar)
                for i in idx:
                    del self._ahead[i]
                self._next_pair += 1
                self._save_state(pgn_fh)
            finally:
                self._critical = False
            any_recorded = True
            if self._interrupted:
                raise KeyboardInterrupt
        return any_recorded

    def _on_signal(self, signum, frame) -> None:
        """SIGINT and SIGTERM: stop the match, but never between the games of a pair and the
        state file that counts them."""
        self._interrupted = True
        if not self._critical:
            raise KeyboardInterrupt

    def run(self) -> int:
        """Play the match; returns the exit status (0 done, 2 fatal error, 130 interrupted)."""
        cfg = self.cfg
        if cfg.plot:
            require_matplotlib()
        played = self._load_state()
        self._next_pair = self.state.next_pair if self.state is not None else 0
        if self.state is not None and self.state.finished and cfg.resume:
            self.names = [self.state.names[0], self.state.names[1]] if self.state.names else self.names
            print(f"The match of {cfg.pgn} is complete: nothing to resume", file=self.err)
            if self._log_fh:
                self._log_fh.close()
            return self._finish(0)
        warm_rules(cfg.variant)
        sched = self._scheduler()
        try:
            self.names = sched.open(self)
        except BaseException:
            sched.close(aborted=True)
            raise
        if self.state is not None:
            self.state.names = list(self.names)
        units = work_units(cfg, sched.games_per_unit, played)
        # appended, as cutechess-cli's -pgnout does: a second match never erases the first
        pgn_fh = open(cfg.pgn, "a", encoding="utf-8") if cfg.pgn else None
        bar = self._bar(cfg.games)
        if bar is not None and self.tally.n:
            bar.update(self.tally.n)
        if self.resumed:
            print(f"Resuming {cfg.pgn}: {self.tally.n} games recorded, {len(self._ahead)} finished ahead, "
                  f"{sum(len(u) for u in units)} to play", file=self.err)
        status = 0
        pending: set[cf.Future] = set()
        old_handlers = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                old_handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            self._save_state(pgn_fh)
            pending = {sched.submit(u) for u in units}
            self._record_ready(pgn_fh, bar)
            while pending and not self.stop.is_set():
                done, pending = cf.wait(pending, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                arrived = False
                for f in done:
                    try:
                        recs = f.result()
                    except (MatchAborted, cf.CancelledError):
                        continue
                    except FatalMatchError as exc:
                        self.fatal = self.fatal or str(exc)
                        self.stop.set()
                        continue
                    except Exception as exc:  # a Dask worker that died too often (KilledWorker), ...
                        self.fatal = self.fatal or f"{sched.where}: {type(exc).__name__}: {exc}"
                        self.stop.set()
                        continue
                    for r in recs:  # keyed by game index: a game that comes twice is counted once
                        if r.index >= 2 * self._next_pair and r.index not in self._ahead:
                            self._ahead[r.index] = r
                            arrived = True
                if arrived and not self._record_ready(pgn_fh, bar):
                    self._save_state(pgn_fh)  # games finished ahead of their turn are kept too
        except KeyboardInterrupt:
            self.stop.set()
            print("\nInterrupted: stopping the engines; unfinished games are not counted"
                  + (f" (--resume continues from {state_path(cfg.pgn)})" if cfg.pgn else ""), file=self.err)
            status = 130
        finally:
            for sig, h in old_handlers.items():
                signal.signal(sig, h)
            aborted = self.stop.is_set()
            self.stop.set()
            for f in pending:
                f.cancel()
            sched.close(aborted=aborted)  # aborted: the games in play are stopped, their engines killed
            if bar is not None:
                bar.close()
            if pgn_fh:
                # no state saved here: the last one was saved at a pair's end (a Ctrl-C in the
                # middle of a pair leaves its first game past the state's PGN size: --resume cuts it)
                pgn_fh.close()
            if self._log_fh:
                self._log_fh.close()
        if self.fatal:
            print(f"Error: {self.fatal}", file=self.err)
            status = 2
        return self._finish(status)

    def _finish(self, status: int) -> int:
        cfg = self.cfg
        self._report()
        if cfg.plot and self.history:
            plot_history(self.history, cfg.plot, self.names, cfg.sprt)
            print(f"Plot written to {cfg.plot}", file=self.out)
        print(self.tally.line(*self.names), file=self.out)
        return status

    def _bar(self, total: int):
        show = self.cfg.progress if self.cfg.progress is not None else self.err.isatty()
        if not show:
            return None
        from tqdm import tqdm

        return tqdm(total=total, desc=f"{self.names[0]} vs {self.names[1]}", unit="game",
                    file=self.err, dynamic_ncols=True, leave=False)

    def _record(self, rec: GameRecord, pgn_fh, bar) -> None:
        self.records.append(rec)
        self.tally.add(rec)
        if self.cfg.board is not None and self.cfg.scheduler:
            self.cfg.board.update(rec)  # games on Dask workers reach the board when recorded
        if pgn_fh:
            pgn_fh.write(rec.to_pgn() + "\n")
            pgn_fh.flush()
        e = self.tally.elo()
        counts = (self.tally.wins, self.tally.losses, self.tally.draws)
        if self.cfg.sprt is not None:
            self.llr = self.cfg.sprt.llr(counts)
            verdict = self.cfg.sprt.verdict(self.llr)
            if verdict and not self.sprt_verdict:
                self.sprt_verdict = verdict
                self.stop.set()
        self.history.append((self.tally.n, e.elo, e.error, self.llr))
        line = f"Finished game {rec.index + 1} ({rec.white} vs {rec.black}): {rec.result} {{{rec.reason}}}"
        if not self.cfg.quiet:
            if bar is not None:
                bar.write(line, file=self.out)
            else:
                print(line, file=self.out, flush=True)
        if bar is not None:
            post = f"{self.tally.wins}-{self.tally.losses}-{self.tally.draws} [{self.tally.score:.3f}] " \
                   f"Elo {fmt_elo(e.elo)} +/- {fmt_elo(e.error, False)}"
            if self.llr is not None:
                post += f" LLR {self.llr:.2f}"
            bar.set_postfix_str(post, refresh=False)
            bar.update(1)

    def _report(self) -> None:
        t, cfg, out = self.tally, self.cfg, self.out
        a, b = self.names
        print(f"\nResults of {a} vs {b} ({cfg.variant}, {cfg.limits.describe()}, {t.n} games):", file=out)
        rows = [("engine", "games", "wins", "losses", "draws", "score"),
                (a, str(t.n), str(t.wins), str(t.losses), str(t.draws),
                 f"{t.wins + 0.5 * t.draws:g} ({100 * t.score:.1f}%)" if t.n else "0"),
                (b, str(t.n), str(t.losses), str(t.wins), str(t.draws),
                 f"{t.losses + 0.5 * t.draws:g} ({100 * (1 - t.score):.1f}%)" if t.n else "0")]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))),
                  file=out)
        if t.n:
            e = t.elo()
            print(f"Elo difference: {fmt_elo(e.elo)} {fmt_elo_error(e)}, "
                  f"LOS: {100 * los(t.wins, t.losses):.1f} %, DrawRatio: {100 * t.draws / t.n:.1f} %, "
                  f"nElo: {fmt_elo(e.nelo)} +/- {fmt_elo(e.nerror, False)}", file=out)
            pairs = sum(t.penta)
            if pairs:
                pe = elo_pentanomial(*t.penta)
                ll, ld, wl, dd, wd, ww = t.penta
                print(f"Ptnml(0-2): [{ll}, {ld}, {wl + dd}, {wd}, {ww}] (WL/DD {wl}/{dd}), "
                      f"pair Elo: {fmt_elo(pe.elo)} {fmt_elo_error(pe)}", file=out)
            if t.terminations:
                print("Terminations: " + ", ".join(f"{k}: {v}" for k, v in sorted(t.terminations.items(),
                                                                                 key=lambda kv: -kv[1])), file=out)
        if cfg.sprt is not None:
            s = cfg.sprt
            llr = self.llr if self.llr is not None else 0.0
            verdict = {"H1": "H1 was accepted", "H0": "H0 was accepted", None: "no verdict yet"}[self.sprt_verdict]
            print(f"SPRT ({s.model}): elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g}: "
                  f"LLR {llr:.2f} ({100 * llr / s.upper if llr > 0 else 100 * llr / -s.lower:.1f}%), "
                  f"lbound {s.lower:.2f}, ubound {s.upper:.2f} - {verdict}", file=out)
        if cfg.pgn:
            print(f"Games written to {cfg.pgn}", file=out)
        if cfg.command:
            print(f"Command: {cfg.command}", file=out)
