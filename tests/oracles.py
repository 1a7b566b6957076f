"""Test helpers: the perft EPD files and the outside oracles (python-chess, pyffish, slow_rules).

Nothing here imports jitfish, so the oracles stay independent of the code under test.

Oracle per variant (RULES.md, "Verifying"):
- chess: python-chess.
- courier, modcourier, modcourier2, modcourier3: pyffish 0.0.90 with ``tests/perft/fsf-variants.ini``
  (Fairy-Stockfish names ``courier``, ``courier-modified``, ``courier-mod2``, ``courier-mod3``).
- cleopatra, cowsandbutterflies, cowsandbutterflies-reversed: ``tests/reference/slow_rules.py``.
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Optional

TESTS = Path(__file__).resolve().parent
PERFT_DIR = Path(os.environ.get("JITFISH_PERFT_DIR", TESTS / "perft"))  # where the *.epd suites are
FSF_INI = TESTS / "perft" / "fsf-variants.ini"
SLOW_RULES = TESTS / "reference" / "slow_rules.py"
TEST_VARIANTS = TESTS / "variants"  # variant files that only the tests use (written from FORMAT.md)
MOVELISTS = TESTS / "data" / "movelists.txt"

# our variant name -> Fairy-Stockfish variant name (pyffish)
FSF_NAMES = {
    "courier": "courier",
    "modcourier": "courier-modified",
    "modcourier2": "courier-mod2",
    "modcourier3": "courier-mod3",
}
# the test variants are Fairy-Stockfish built-ins of the same name
FSF_NAMES.update({p.stem: p.stem for p in TEST_VARIANTS.glob("*.toml")})
# our variant name -> {Fairy-Stockfish promotion letter: ours}; letters not listed map to themselves.
# The fsf-variants.ini sections use our letters (c = courier via fersAlfil, m = man, f, v custom);
# built-in courier promotes to f (ferz), also ours.
FSF_PROMOTION_LETTERS: dict[str, dict[str, str]] = {v: {} for v in FSF_NAMES}
SLOW_RULES_VARIANTS = ("cleopatra", "cowsandbutterflies", "cowsandbutterflies-reversed")

_MOVE = re.compile(r"([a-p])(\d{1,2})([a-p])(\d{1,2})(.*)")


# ---------------------------------------------------------------------------------------------
# EPD perft files


@dataclass
class EpdLine:
    path: Path
    lineno: int
    fen: str
    counts: dict[int, int]
    label: str


@dataclass
class EpdFile:
    path: Path
    variant: Optional[str] = None
    oracle: Optional[str] = None
    lines: list[EpdLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_epd(path: Path) -> EpdFile:
    """Read one perft file; format problems go to ``errors`` instead of raising."""
    out = EpdFile(path)
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = re.match(r"#\s*(variant|oracle)\s*:\s*(.*)$", line)
            if m and m.group(1) == "variant" and out.variant is None:
                out.variant = m.group(2).strip()
            elif m and m.group(1) == "oracle" and out.oracle is None:
                out.oracle = m.group(2).strip()
            continue
        body, _, label = line.partition("#")
        fen, *fields = body.split(";")
        counts: dict[int, int] = {}
        for f in fields:
            m = re.fullmatch(r"\s*D(\d+)\s+(\d+)\s*", f)
            if not m:
                out.errors.append(f"{path.name}:{lineno}: bad depth field {f.strip()!r}")
                continue
            counts[int(m.group(1))] = int(m.group(2))
        if not fen.strip() or not counts:
            out.errors.append(f"{path.name}:{lineno}: no FEN or no ;Dn counts")
            continue
        out.lines.append(EpdLine(path, lineno, fen.strip(), counts, label.strip()))
    if out.variant is None:
        out.errors.append(f"{path.name}: no '# variant: NAME' header")
    if out.oracle is None:
        out.errors.append(f"{path.name}: no '# oracle: ...' header")
    return out


def variant_source(name: str) -> str:
    """What to hand to ``Position`` for a variant: a shipped name as it is, a test variant
    (``tests/variants/NAME.toml``) as its file path."""
    path = TEST_VARIANTS / f"{name}.toml"
    return str(path) if path.exists() else name


def epd_files() -> list[EpdFile]:
    return [parse_epd(p) for p in sorted(PERFT_DIR.glob("*.epd"))]


# ---------------------------------------------------------------------------------------------
# slow_rules (tests/reference)


@lru_cache(maxsize=None)
def slow_rules() -> Optional[ModuleType]:
    """tests/reference/slow_rules.py as a module, or None while it does not exist."""
    if not SLOW_RULES.exists():
        return None
    spec = importlib.util.spec_from_file_location("jitfish_tests_slow_rules", SLOW_RULES)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# pyffish


@lru_cache(maxsize=None)
def pyffish() -> Optional[ModuleType]:
    """pyffish with fsf-variants.ini loaded, or None if either is missing."""
    try:
        import pyffish as sf
    except ImportError:
        return None
    if FSF_INI.exists():
        sf.load_variant_config(FSF_INI.read_text())
    return sf


def fsf_available(variant: str) -> bool:
    sf = pyffish()
    if sf is None or variant not in FSF_NAMES:
        return False
    return FSF_NAMES[variant] in sf.variants()


def fsf_move_to_ours(variant: str, move: str) -> str:
    """A pyffish move string in our notation (promotion letter mapped, lowercase)."""
    m = _MOVE.fullmatch(move)
    if not m:
        raise ValueError(f"pyffish move {move!r} not understood")
    promo = re.sub(r"[^A-Za-z]", "", m.group(5)).lower()
    promo = FSF_PROMOTION_LETTERS.get(variant, {}).get(promo, promo)
    return f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(4)}{promo}"


def ours_to_fsf(variant: str, move: str) -> str:
    back = {v: k for k, v in FSF_PROMOTION_LETTERS.get(variant, {}).items()}
    m = _MOVE.fullmatch(move)
    assert m, move
    promo = back.get(m.group(5), m.group(5))
    return f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(4)}{promo}"


def fsf_legal(variant: str, fen: str, moves: list[str] = ()) -> list[str]:
    """Sorted legal moves (our notation) by pyffish after ``moves`` (our notation) from ``fen``."""
    sf = pyffish()
    assert sf is not None
    raw = sf.legal_moves(FSF_NAMES[variant], fen, [ours_to_fsf(variant, m) for m in moves])
    return sorted(fsf_move_to_ours(variant, m) for m in raw)


def fsf_fen(variant: str, fen: str, moves: list[str]) -> str:
    sf = pyffish()
    assert sf is not None
    return sf.get_fen(FSF_NAMES[variant], fen, [ours_to_fsf(variant, m) for m in moves])


def fsf_divide(variant: str, fen: str, depth: int) -> dict[str, int]:
    """Perft below each root move by recursive pyffish legal_moves calls (about 2 ms each)."""

    def count(moves: list[str], d: int) -> int:
        legal = fsf_legal(variant, fen, moves)
        if d == 1:
            return len(legal)
        return sum(count(moves + [m], d - 1) for m in legal)

    root = fsf_legal(variant, fen)
    if depth == 1:
        return {m: 1 for m in root}
    return {m: count([m], depth - 1) for m in root}


# ---------------------------------------------------------------------------------------------
# python-chess


def chess_divide(fen: str, depth: int) -> dict[str, int]:
    import chess

    board = chess.Board(fen)

    def count(d: int) -> int:
        if d == 0:
            return 1
        if d == 1:
            return board.legal_moves.count()
        n = 0
        for mv in list(board.legal_moves):
            board.push(mv)
            n += count(d - 1)
            board.pop()
        return n

    out: dict[str, int] = {}
    for mv in list(board.legal_moves):
        board.push(mv)
        out[mv.uci()] = count(depth - 1)
        board.pop()
    return out


# ---------------------------------------------------------------------------------------------
# divide oracle per variant


def oracle_divide(variant: str, fen: str, depth: int, nodes: int) -> tuple[Optional[dict[str, int]], str]:
    """(divide by an independent oracle, oracle name), or (None, why not) when too costly."""
    if variant == "chess":
        if nodes > 1_500_000:
            return None, f"python-chess divide skipped ({nodes} nodes is too many)"
        return chess_divide(fen, depth), "python-chess"
    if variant in SLOW_RULES_VARIANTS:
        sr = slow_rules()
        if sr is None:
            return None, "tests/reference/slow_rules.py not present"
        if nodes > 300_000:
            return None, f"slow_rules divide skipped ({nodes} nodes is too many)"
        return sr.divide(variant, fen, depth), "slow_rules"
    if variant in FSF_NAMES:
        if not fsf_available(variant):
            return None, "pyffish (with fsf-variants.ini) not available"
        if nodes > 60_000:
            return None, f"pyffish divide skipped ({nodes} nodes is too many for ~2 ms per call)"
        return fsf_divide(variant, fen, depth), "pyffish"
    return None, f"no oracle known for {variant}"


def divide_report(ours: dict[str, int], theirs: Optional[dict[str, int]], oracle: str) -> str:
    """A per-move table: ours vs the oracle's, differing rows marked."""
    lines = []
    if theirs is None:
        lines.append(f"our divide ({oracle}):")
        for m in sorted(ours):
            lines.append(f"  {m:8} {ours[m]}")
        lines.append(f"  total    {sum(ours.values())}")
        return "\n".join(lines)
    lines.append(f"divide, ours vs {oracle} ('<<' marks a difference):")
    for m in sorted(set(ours) | set(theirs)):
        a, b = ours.get(m), theirs.get(m)
        mark = "" if a == b else "  <<"
        a_s = "-" if a is None else str(a)
        b_s = "-" if b is None else str(b)
        lines.append(f"  {m:8} {a_s:>10} {b_s:>10}{mark}")
    lines.append(f"  {'total':8} {sum(ours.values()):>10} {sum(theirs.values()):>10}")
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    if only_ours:
        lines.append(f"  moves only we generate: {' '.join(only_ours)}")
    if only_theirs:
        lines.append(f"  moves only {oracle} generates: {' '.join(only_theirs)}")
    return "\n".join(lines)


def movelist_diff(ours: list[str], theirs: list[str], oracle: str) -> str:
    a, b = set(ours), set(theirs)
    return (f"only ours: {sorted(a - b)}; only {oracle}: {sorted(b - a)}"
            + ("; duplicates in ours" if len(ours) != len(a) else ""))


def fairy_stockfish_path() -> str:
    """Debian's fairy-stockfish engine (``tests/install-peers.sh`` installs it); a test that needs it
    fails, not skips, without it."""
    import shutil

    import pytest

    path = shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish"
    if not os.path.exists(path):
        pytest.fail("fairy-stockfish is not installed: apt-get install -y fairy-stockfish (.ci/run installs it)")
    return path
