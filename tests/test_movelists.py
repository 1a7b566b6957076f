"""Hand-derived move lists (``tests/data/movelists.txt``) equal our sorted legal moves.

Line format: ``variant | fen | sorted moves, space separated (empty = none) | what it shows``;
lines starting with ``#`` are comments. The file may not exist yet: then nothing is collected.
"""
from __future__ import annotations

import pytest

from jitfish.movegen import Position
from oracles import MOVELISTS


def _cases():
    if not MOVELISTS.exists():
        return []
    out = []
    for lineno, raw in enumerate(MOVELISTS.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [x.strip() for x in line.split("|")]
        if len(parts) < 3:
            out.append(pytest.param(None, line, None, "", id=f"L{lineno}-malformed"))
            continue
        variant, fen, moves = parts[:3]
        comment = "|".join(parts[3:])
        out.append(pytest.param(variant, fen, sorted(moves.split()), comment, id=f"L{lineno}-{variant}"))
    return out


CASES = _cases()


@pytest.mark.skipif(not CASES, reason="tests/data/movelists.txt not present yet")
@pytest.mark.parametrize("variant,fen,expected,comment", CASES)
def test_movelist(variant, fen, expected, comment):
    assert variant is not None, f"malformed line: {fen!r}"
    p = Position(variant, fen)
    ours = sorted(p.move_name(m) for m in p.legal_moves())
    assert ours == expected, (f"{variant} {fen}: {comment}\n  only ours: {sorted(set(ours) - set(expected))}"
                              f"\n  only expected: {sorted(set(expected) - set(ours))}")
    assert p.count_legal() == len(expected)
