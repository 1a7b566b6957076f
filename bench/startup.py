"""Start-up time of the engine as a GUI sees it: ``protover 2`` to ``feature done=1``.

    jitfish bench startup [--runs 3] [--command jitfish]

Each run starts the engine command with a fresh, empty numba cache (cold: every kernel is
compiled) and then twice more on the cache that run wrote (warm: the kernels load).  Prints
every time and the medians.  Run it on an idle machine: compiling uses both cores.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

__all__ = ["main", "time_to_done"]


def time_to_done(command: list[str], cache_dir: str, timeout: float = 600.0) -> float:
    """Seconds from starting ``command`` (after ``xboard``/``protover 2`` are written) to its
    ``feature ... done=1`` line."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, JITFISH_LOG=os.devnull)
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
    try:
        proc.stdin.write("xboard\nprotover 2\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if "done=1" in line:
                return time.perf_counter() - t0
            if time.perf_counter() - t0 > timeout:
                break
        raise RuntimeError(f"{shlex.join(command)} gave no 'feature done=1'")
    finally:
        try:
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            proc.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="jitfish bench startup", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="cold starts, each followed by two warm ones (default 3)")
    ap.add_argument("--command", default=shutil.which("jitfish") or "jitfish", help="the engine command")
    args = ap.parse_args(argv)
    command = shlex.split(args.command)
    cold, warm = [], []
    for i in range(args.runs):
        cache = tempfile.mkdtemp(prefix="jitfish-startup-")
        try:
            cold.append(time_to_done(command, cache))
            warm += [time_to_done(command, cache) for _ in range(2)]
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        print(f"run {i + 1}: cold {cold[-1]:.2f} s, warm {warm[-2]:.2f} s and {warm[-1]:.2f} s", flush=True)
    print(f"median: cold {statistics.median(cold):.2f} s, warm {statistics.median(warm):.2f} s "
          f"({args.runs} cold, {len(warm)} warm starts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
