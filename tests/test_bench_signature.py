"""``jitfish bench``'s node signature is the number the README states.

A commit that changes the search or the evaluation changes the signature and must say the new
one in the README ("Current signature: `Nodes: N`"); a restructuring must leave it as it is.
"""
from __future__ import annotations

import re
from pathlib import Path

from jitfish.bench.search_bench import run

README = Path(__file__).resolve().parent.parent / "README.md"


def test_bench_nodes_equal_the_readme() -> None:
    m = re.search(r"Current signature: `Nodes: (\d+)`", README.read_text())
    assert m, "README.md does not state the bench signature ('Current signature: `Nodes: N`')"
    nodes, _elapsed = run(hash_mb=16, verbose=False)
    assert nodes == int(m.group(1)), f"jitfish bench gives Nodes: {nodes}, the README says {m.group(1)}"
