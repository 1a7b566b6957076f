"""A small perft with ``NUMBA_DISABLE_JIT=1``: the pure-Python fallbacks of the bit tricks
(``movegen/_jit.py``) must keep giving the same answers as the compiled kernels."""
from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import json
from jitfish.movegen import Position
from jitfish.movegen import _jit
p = Position("chess")
out = {
    "disabled": bool(_jit.JIT_DISABLED),
    "chess2": p.perft(2),
    "courier1": Position("courier").perft(1),
    "cows1": Position("cowsandbutterflies").perft(1),
    "cleopatra1": Position("cleopatra").perft(1),
    "divide": p.divide(1)["e2e4"],
    "count": Position("modcourier").count_legal(),
}
p.push("e2e4")
out["fen"] = p.fen()
print(json.dumps(out))
"""


def test_perft_without_jit():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got == {
        "disabled": True,
        "chess2": 400,
        "courier1": 26,
        "cows1": 43,
        "cleopatra1": 20,
        "divide": 1,
        "count": 27,
        "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    }
