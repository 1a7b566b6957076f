"""``jitfish match --scheduler``: matches on a Dask cluster, a worker killed mid-match, a client
interrupted and resumed.

A Dask scheduler and two worker processes (``dask worker --nthreads 1 --no-nanny``) run on
127.0.0.1 only; the engines are the random movers of ``tests/engines/`` with
``--deterministic`` (each move a function of the position), so a game depends only on its
opening and the statistics of a resumed match can be compared with an uninterrupted run.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from jitfish.bench.scheduler import MatchState, state_path, warm_rules
from jitfish.bench.tune import self_play
from jitfish.movegen.pgn import read_pgn

ENGINES = Path(__file__).resolve().parent / "engines"
PY = shlex.quote(sys.executable)
SCORE_LINE = re.compile(r"^Score of (.+) vs (.+): (\d+) - (\d+) - (\d+)  \[(\d\.\d{3})\] (\d+)$")
FINISHED = re.compile(r"^Finished game (\d+) ")


def eng(script: str, *flags: str) -> str:
    return " ".join([PY, shlex.quote(str(ENGINES / script)), *flags])


ENGINE_ARGS = ["--engine", f"cmd={eng('random_uci.py', '--greedy', '--deterministic', '--seed', '1')},name=u,proto=uci",
               "--engine", f"cmd={eng('random_cecp.py', '--greedy', '--deterministic', '--seed', '2')},name=x"]
# no clock (random movers are instant): no time forfeit on a loaded machine, so results repeat
MATCH_ARGS = ["--variant", "chess", "--depth", "1", "--maxmoves", "60", "--random-plies", "4", "--no-progress",
              *ENGINE_ARGS]


def jitfish(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "jitfish.cli", "match", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


class Cluster:
    """A ``dask scheduler`` and its ``dask worker`` processes, all on 127.0.0.1."""

    def __init__(self, root: Path):
        self.root = root
        self.file = root / "scheduler.json"
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        self.scheduler = self._spawn("scheduler", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                     "--port", "0", "--no-dashboard", "--scheduler-file", str(self.file))
        deadline = time.monotonic() + 60
        while not self.file.exists() or not self.file.read_text().strip():
            assert self.scheduler.poll() is None, (root / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the Dask scheduler did not start"
            time.sleep(0.1)
        time.sleep(0.2)
        self.address = json.loads(self.file.read_text())["address"]
        assert self.address.startswith("tcp://127.0.0.1:"), self.address

    def _spawn(self, name: str, module: str, *args: str) -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "a")
        p = subprocess.Popen([sys.executable, "-m", module, *args], stdout=log, stderr=subprocess.STDOUT,
                             cwd=self.root)
        log.close()
        self.procs.append(p)
        return p

    def start_worker(self) -> subprocess.Popen:
        w = self._spawn(f"worker{len(self.workers)}", "distributed.cli.dask_worker", "--scheduler-file",
                        str(self.file), "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
                        "--no-dashboard", "--name", f"w{len(self.workers)}")
        self.workers.append(w)
        return w

    def alive_workers(self) -> list[subprocess.Popen]:
        return [w for w in self.workers if w.poll() is None]

    def wait_for_workers(self, n: int, timeout: float = 90) -> None:
        import distributed

        with distributed.Client(self.address, timeout=timeout) as client:
            client.wait_for_workers(n, timeout=timeout)
            # workers that were killed leave the scheduler's list a moment later
            deadline = time.monotonic() + timeout
            while len(client.scheduler_info(n_workers=-1)["workers"]) != n:
                assert time.monotonic() < deadline
                time.sleep(0.2)

    def close(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    warm_rules("chess")  # the rules kernels in numba's cache before workers and engines load them
    c = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        for _ in range(2):
            c.start_worker()
        c.wait_for_workers(2)
        yield c
    finally:
        c.close()


def watch(proc: subprocess.Popen, on_game=None, timeout: float = 120) -> tuple[int, list[str], str]:
    """Read a running match's stdout line by line, calling ``on_game(n_finished)`` after each
    ``Finished game`` line; (exit status, stdout lines, stderr)."""
    lines: list[str] = []
    err: list[str] = []
    t = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    t.start()
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        n = 0
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if FINISHED.match(line):
                n += 1
                if on_game is not None:
                    on_game(n)
        rc = proc.wait()
    finally:
        killer.cancel()
    t.join(timeout=10)
    return rc, lines, "".join(err)


def score(lines: list[str]) -> tuple[int, int, int, int]:
    m = SCORE_LINE.match(lines[-1])
    assert m, f"last line is not a score line: {lines[-1:]!r}"
    return int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(7))


def rounds(pgn: Path) -> list[int]:
    return sorted(int(g.tags["Round"]) for g in read_pgn(pgn.read_text()))


def finished(lines: list[str]) -> list[int]:
    return [int(m.group(1)) for m in map(FINISHED.match, lines) if m]


def stats(lines: list[str]) -> list[str]:
    """The report's statistics (not the paths or the command)."""
    start = next(i for i, s in enumerate(lines) if s.startswith("Results of "))
    return [s for s in lines[start:] if not s.startswith(("Games written", "Command:"))]


def test_a_worker_killed_mid_match_loses_no_game_and_counts_none_twice(cluster, tmp_path):
    pgn = tmp_path / "g.pgn"
    games = 16
    victim = cluster.alive_workers()[0]

    def on_game(n):
        if n == 2:  # the first pair is in: both workers are in the middle of a pair
            victim.send_signal(signal.SIGKILL)

    proc = jitfish(*MATCH_ARGS, "--games", str(games), "--seed", "3", "--pgn", str(pgn),
                   "--scheduler", cluster.address)
    rc, lines, err = watch(proc, on_game)
    assert victim.poll() is not None, "the worker was not killed during the match"
    assert rc == 0, err
    assert score(lines)[3] == games
    assert finished(lines) == list(range(1, games + 1))  # in game order, each once
    assert rounds(pgn) == list(range(1, games + 1))
    st = MatchState.load(state_path(str(pgn)))
    assert st.finished and st.next_pair == games // 2 and not st.ahead
    cluster.start_worker()  # two workers again for the next test
    cluster.wait_for_workers(2)


# movers that think 15 ms a move (about 1 s a game): with instant ones, on a loaded machine the two workers had
# finished every game before the client saw game 4 and its Ctrl-C, and nothing was left to resume
SLOW_ENGINE_ARGS = [a.replace("--deterministic", "--deterministic --think 15") for a in ENGINE_ARGS]


def test_an_interrupted_client_resumes_without_replaying_a_pair(cluster, tmp_path):
    games = 20
    common = [*MATCH_ARGS[:MATCH_ARGS.index("--engine")], *SLOW_ENGINE_ARGS, "--games", str(games)]
    # the same match, uninterrupted, on local threads: the statistics to reach
    ref = tmp_path / "ref.pgn"
    rc, ref_lines, err = watch(jitfish(*common, "--seed", "7", "--pgn", str(ref), "-j", "2"))
    assert rc == 0, err
    assert score(ref_lines)[3] == games

    pgn = tmp_path / "g.pgn"
    proc = jitfish(*common, "--seed", "7", "--pgn", str(pgn), "--scheduler", cluster.address)

    def on_game(n):
        if n == 4:
            proc.send_signal(signal.SIGINT)

    rc, lines1, err = watch(proc, on_game)
    assert rc == 130, err
    assert "--resume continues" in err
    st = MatchState.load(state_path(str(pgn)))
    assert not st.finished and st.seed == 7
    recorded = set(range(1, 2 * st.next_pair + 1))  # in the PGN and the tally
    ahead = {int(i) + 1 for i in st.ahead}  # finished ahead of their pair's turn: kept, not replayed
    assert len(recorded) >= 4 and len(recorded | ahead) < games, (st.next_pair, st.ahead)
    assert set(finished(lines1)) >= recorded
    assert rounds(pgn)[:len(recorded)] == sorted(recorded)

    # --resume without --seed: the seed comes from the state file, the openings with it
    rc, lines2, err = watch(jitfish(*common, "--pgn", str(pgn), "--resume", "--scheduler", cluster.address))
    assert rc == 0, err
    assert "Resuming" in err
    second = finished(lines2)
    assert not recorded & set(second), "a recorded game was played again"
    assert sorted(recorded | set(second)) == list(range(1, games + 1))
    assert rounds(pgn) == list(range(1, games + 1))
    assert score(lines2)[3] == games
    assert stats(lines2) == stats(ref_lines)
    # the PGN's games are the uninterrupted run's, move for move
    a, b = read_pgn(ref.read_text()), read_pgn(pgn.read_text())
    assert [(g.tags["Round"], g.moves, g.result) for g in a] == [(g.tags["Round"], g.moves, g.result) for g in b]
    # and a finished match has nothing left to resume
    rc, lines3, err = watch(jitfish(*common, "--pgn", str(pgn), "--resume", "--scheduler", cluster.address))
    assert rc == 0 and "nothing to resume" in err, err
    assert stats(lines3) == stats(ref_lines)
    assert rounds(pgn) == list(range(1, games + 1))


def test_resume_refuses_another_match(tmp_path, capsys):
    from jitfish import cli

    pgn = tmp_path / "g.pgn"
    state_path(str(pgn)).write_text(json.dumps({"fingerprint": "0" * 64, "command": "jitfish match ...",
                                                "seed": 1, "games": 2}))
    rc = cli.main(["match", *MATCH_ARGS, "--games", "2", "--pgn", str(pgn), "--resume"])
    assert rc == 2 and "belongs to another match" in capsys.readouterr().err
    os.remove(state_path(str(pgn)))
    rc = cli.main(["match", *MATCH_ARGS, "--games", "2", "--pgn", str(pgn), "--resume"])
    assert rc == 2 and "cannot read" in capsys.readouterr().err


def test_tuner_self_play_on_the_cluster_gives_the_same_samples(cluster):
    """``python -m jitfish.bench.tune --scheduler``: the same openings and games on the workers as
    in this process (a node limit per move, tables cleared per game)."""
    here = self_play("courier", 3, 200, 4, 24, 5)
    there = self_play("courier", 3, 200, 4, 24, 5, scheduler=cluster.address)
    assert here and there == here


def test_resume_of_a_local_match_terminated_mid_match(tmp_path):
    """--resume needs no cluster: local threads, stopped by SIGTERM, with an odd number of games
    (the last pair has one game)."""
    games = 11
    common = [*MATCH_ARGS, "--games", str(games), "-j", "2", "--seed", "5"]
    ref = tmp_path / "ref.pgn"
    rc, ref_lines, err = watch(jitfish(*common, "--pgn", str(ref)))
    assert rc == 0, err
    pgn = tmp_path / "g.pgn"
    proc = jitfish(*common, "--pgn", str(pgn))
    rc, lines1, err = watch(proc, lambda n: n == 3 and proc.terminate())
    assert rc == 130, err
    st = MatchState.load(state_path(str(pgn)))
    assert 2 <= 2 * st.next_pair < games and not st.finished
    rc, lines2, err = watch(jitfish(*common, "--pgn", str(pgn), "--resume"))
    assert rc == 0, err
    assert not set(range(1, 2 * st.next_pair + 1)) & set(finished(lines2))
    assert rounds(pgn) == list(range(1, games + 1))
    assert score(lines2)[3] == games and stats(lines2) == stats(ref_lines)
