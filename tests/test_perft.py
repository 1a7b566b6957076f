"""Perft against the suites in ``tests/perft/*.epd``.

Every ``.epd`` file is found by glob, so new suites are picked up without editing this file.
A file names its variant (``# variant: NAME``) and its oracle (``# oracle: ...``); each data
line is ``<fen> ;D1 n ;D2 n ... [# label]``. One test per line and depth; the id is
``<file>:<line>:<label>:D<depth>``.

Cost control: a depth whose expected count exceeds ``JITFISH_PERFT_MAX_NODES`` (default
5,000,000) is not collected, except the benchmark lines in ``ALWAYS`` (chess start D5,
Kiwipete D4, courier start D5), which are the numbers everybody compares.

On a mismatch the failure shows the divide (the count below each root move) against an
independent oracle where one is cheap enough: python-chess for chess, slow_rules.py for
cleopatra and the cows variants, pyffish for the courier family; otherwise ours alone.
"""
from __future__ import annotations

import os
import re

import pytest

from jitfish.movegen import Position, VariantError, load_spec
from oracles import divide_report, epd_files, oracle_divide, variant_source

MAX_NODES = int(os.environ.get("JITFISH_PERFT_MAX_NODES", "5000000"))

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R"
CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
COURIER_START = "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR"
# (variant, board field, side to move, depth): run whatever the count
ALWAYS = {
    ("chess", CHESS_START, "w", 5),
    ("chess", KIWIPETE, "w", 4),
    ("courier", COURIER_START, "w", 5),
}

FILES = epd_files()


def _slug(text: str, limit: int = 48) -> str:
    s = re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-")
    return s[:limit].rstrip("-")


def _cases():
    out = []
    for ef in FILES:
        if ef.variant is None:
            continue
        for ln in ef.lines:
            fields = ln.fen.split()
            key = (ef.variant, fields[0], fields[1] if len(fields) > 1 else "w")
            label = _slug(ln.label) or "L"
            for depth, nodes in sorted(ln.counts.items()):
                if nodes > MAX_NODES and key + (depth,) not in ALWAYS:
                    continue
                tid = f"{ef.path.stem}:{ln.lineno}:{label}:D{depth}"
                out.append(pytest.param(ef.variant, ln.fen, depth, nodes, id=tid))
    return out


CASES = _cases()


@pytest.mark.parametrize("path", [ef.path for ef in FILES], ids=[ef.path.name for ef in FILES])
def test_epd_file_is_well_formed(path):
    ef = next(f for f in FILES if f.path == path)
    assert not ef.errors, "\n".join(ef.errors)
    try:
        load_spec(variant_source(ef.variant))
    except VariantError as exc:
        pytest.fail(f"{path.name}: '# variant: {ef.variant}' is neither a variant we ship nor a test "
                    f"variant in tests/variants ({exc})")
    assert ef.lines, f"{path.name}: no data lines"


def test_some_suites_exist():
    assert CASES, "no tests/perft/*.epd data lines found"


@pytest.mark.parametrize("variant,fen,depth,expected", CASES)
def test_perft(variant, fen, depth, expected):
    pos = Position(variant_source(variant), fen)
    got = pos.perft(depth)
    if got == expected:
        return
    ours = pos.divide(depth)
    theirs, oracle = oracle_divide(variant, fen, depth, expected)
    report = divide_report(ours, theirs, oracle)
    pytest.fail(f"{variant} perft({depth}) of {fen!r}: ours {got}, expected {expected} "
                f"(difference {got - expected:+d})\n{report}", pytrace=False)
