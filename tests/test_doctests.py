"""The examples in docstrings are checked: a docstring example that drifts from the code fails here."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "jitfish.bench.stats", "jitfish.movegen.pgn", "jitfish.movegen.san", "jitfish.movegen.spec",
    "jitfish.movegen._jit", "jitfish.movegen.position", "jitfish.protocol.xboard", "jitfish.protocol.cecp",
    "jitfish.protocol.uci", "jitfish.protocol.client_core", "jitfish.engine.api",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name) -> None:
    module = importlib.import_module(name)
    res = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert res.attempted > 0
    assert res.failed == 0
