"""The examples in docstrings are checked: a docstring example that drifts from the code fails here."""
from __future__ import annotations

import doctest

import pytest

import jitfish.engine.match


@pytest.mark.parametrize("module", [jitfish.engine.match])
def test_docstring_examples(module) -> None:
    res = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert res.attempted > 0
    assert res.failed == 0
