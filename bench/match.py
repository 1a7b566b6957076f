"""The match: workers playing games from a queue, the tally, the SPRT and the final report.

``Match.run()`` starts ``concurrency`` workers, each with its own two engine processes; the
main thread writes the PGN, keeps the tally (with pair counts), the progress bar and the SPRT,
and stops everything on a verdict, a fatal error or Ctrl-C.
"""
from __future__ import annotations

import math
import queue
import re
import sys
import threading
import time
from dataclasses import dataclass, field

from jitfish.movegen import Position, load_spec
from jitfish.protocol.client import EngineError, MatchAborted

from .game import FatalMatchError, MatchConfig, Player, play_game
from .games import GameRecord, Termination
from .openings import Opening
from .plot import plot_history, require_matplotlib
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
    """Runs a match: workers (one per ``concurrency``), each with its own two engine processes,
    take games from a queue; the main thread writes the PGN, keeps the tally, the progress bar
    and the SPRT, and stops everything on a verdict, a fatal error or Ctrl-C."""

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

    # -- set-up ------------------------------------------------------------------------------

    def _warm_up(self) -> None:
        """Compile the rules kernels in this process before any engine starts (engines that
        import jitfish then load them from numba's cache instead of compiling them again)."""
        pos = Position(self.cfg.variant)
        for _ in range(2):
            moves = pos.legal_moves()
            if not moves:
                break
            m = moves[0]
            pos.san(m, moves)
            pos.push(m)
        pos.outcome()
        pos.fen()

    def _start_first(self) -> list[Player]:
        """Start both engines once (fail fast on a bad command or variant) and fix their names."""
        players = []
        for i, ec in enumerate(self.cfg.engines):
            p = Player(ec, ec.name or ec.default_name(), self.cfg.variant, self.stop, self._logger(),
                        self.cfg.start_timeout)
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
        self.names = [p.name for p in players]
        return players

    # -- running -----------------------------------------------------------------------------

    def run(self) -> int:
        """Play the match; returns the exit status (0 done, 2 fatal error, 130 interrupted)."""
        cfg = self.cfg
        if cfg.plot:
            require_matplotlib()
        self._warm_up()
        first = self._start_first()
        n_games = cfg.games
        openings = cfg.openings or [Opening(load_spec(cfg.variant).start_fen)]
        jobs: queue.Queue = queue.Queue()
        for i in range(n_games):
            jobs.put((i, openings[(i // 2) % len(openings)], i % 2))
        results: queue.Queue = queue.Queue()
        # appended, as cutechess-cli's -pgnout does: a second match never erases the first
        pgn_fh = open(cfg.pgn, "a", encoding="utf-8") if cfg.pgn else None
        workers = []
        n_workers = max(1, min(cfg.concurrency, n_games))
        for w in range(n_workers):
            players = first if w == 0 else [
                Player(ec, first[i].name, cfg.variant, self.stop, self._logger(), cfg.start_timeout)
                for i, ec in enumerate(cfg.engines)]
            t = threading.Thread(target=self._worker, args=(players, jobs, results), daemon=True,
                                 name=f"match-worker-{w}")
            workers.append(t)
        bar = self._bar(n_games)
        status = 0
        done_workers = 0
        try:
            for t in workers:
                t.start()
            while done_workers < len(workers):
                try:
                    kind, payload = results.get(timeout=0.2)
                except queue.Empty:
                    continue
                if kind == "done":
                    done_workers += 1
                elif kind == "fatal":
                    self.fatal = self.fatal or str(payload)
                    self.stop.set()
                elif kind == "game" and not (self.stop.is_set() and self.sprt_verdict):
                    self._record(payload, pgn_fh, bar)
        except KeyboardInterrupt:
            self.stop.set()
            print("\nInterrupted: stopping the engines; unfinished games are not counted", file=self.err)
            status = 130
        finally:
            self.stop.set()
            for t in workers:
                t.join(timeout=15)
            if bar is not None:
                bar.close()
            if pgn_fh:
                pgn_fh.close()
            if self._log_fh:
                self._log_fh.close()
        if self.fatal:
            print(f"Error: {self.fatal}", file=self.err)
            status = 2
        self._report()
        if cfg.plot and self.history:
            plot_history(self.history, cfg.plot, self.names, cfg.sprt)
            print(f"Plot written to {cfg.plot}", file=self.out)
        print(self.tally.line(*self.names), file=self.out)
        return status

    def _worker(self, players: list[Player], jobs: queue.Queue, results: queue.Queue) -> None:
        try:
            while not self.stop.is_set():
                try:
                    index, opening, white_engine = jobs.get_nowait()
                except queue.Empty:
                    break
                try:
                    rec = play_game(index, opening, players, white_engine, self.cfg, self.stop)
                except MatchAborted:
                    break
                except FatalMatchError as exc:
                    results.put(("fatal", exc))
                    break
                except Exception as exc:  # a bug here must not hang the match
                    results.put(("fatal", f"internal error in game {index + 1}: {exc!r}"))
                    break
                results.put(("game", rec))
        finally:
            for p in players:
                try:
                    if self.stop.is_set():
                        p.discard()  # aborted: engines may be mid-search, do not wait for them
                    else:
                        p.close()
                except Exception:
                    p.discard()
            results.put(("done", None))

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
