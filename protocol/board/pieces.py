"""What the page shows of a variant's pieces: the picture, the name, the moves in Betza and in words.

Pictures are chosen by the piece's *name* (letters differ between variants: courier's alfil is
``E``, modcourier's courier is ``C``); a piece whose name has no picture gets the fallback, its
letter in a hexagon, drawn by the page.

>>> from jitfish.movegen import load_spec
>>> d = describe(load_spec("cowsandbutterflies").piece("C"))
>>> d["picture"], d["words"]
('cow', 'one square diagonally forward, not capturing; one square forward, capturing only; one square forward, not capturing, on its first move')
"""
from __future__ import annotations

from jitfish.movegen.betza import parse_betza
from jitfish.movegen.spec import PieceSpec, VariantSpec

__all__ = ["PICTURES", "describe", "describe_variant", "moves_in_words"]

# piece name -> SVG file in static/pieces/ (without .svg)
PICTURES: dict[str, str] = {
    "pawn": "pawn", "knight": "knight", "bishop": "bishop", "rook": "rook", "queen": "queen",
    "king": "king", "cleopatra": "cleopatra", "alfil": "alfil", "elephant": "alfil",
    "courier": "alfil", "ferz": "ferz", "man": "man", "commoner": "man", "wazir": "wazir",
    "vizier": "wazir", "ace": "ace", "monarch": "monarch", "butterfly": "butterfly",
    "soldier": "soldier", "cow": "cow",
}

_SHAPES = {(1, 0): "one square", (1, 1): "one square", (2, 0): "a leap of 2", (2, 2): "a leap of 2",
           (2, 1): "a knight's leap", (3, 0): "a leap of 3", (3, 1): "a camel's leap",
           (3, 2): "a zebra's leap", (3, 3): "a leap of 3"}


def _direction(vectors) -> str:
    """Words for a set of step vectors of one shape: 'orthogonally', 'diagonally forward'..."""
    ortho = all(dx == 0 or dy == 0 for dx, dy in vectors)
    diag = all(abs(dx) == abs(dy) for dx, dy in vectors)
    kind = "orthogonally" if ortho else "diagonally" if diag else ""
    ys = {(dy > 0) - (dy < 0) for _dx, dy in vectors}
    full = {(1, 0): 4, (1, 1): 4, (2, 1): 8}
    shape = tuple(sorted((abs(vectors[0][0]), abs(vectors[0][1])), reverse=True))
    if len(vectors) >= full.get(shape, 4) or ys == {-1, 0, 1}:
        return kind or "any way"
    if ys == {1}:
        where = "forward"
    elif ys == {-1}:
        where = "backward"
    elif ys == {0}:
        where = "sideways"
    elif ys == {0, 1}:
        where = "forward or sideways"
    else:
        where = "forward or backward"
    if ortho and ys == {1} and len(vectors) == 1:
        return "forward"
    if ortho and ys == {-1} and len(vectors) == 1:
        return "backward"
    return f"{kind} {where}".strip()


def moves_in_words(betza: str) -> str:
    """A Betza string in words, one clause per component, joined by '; '."""
    try:
        comps = parse_betza(betza)
    except Exception:  # a spec validated it; words are a courtesy
        return betza
    out: list[str] = []
    for c in comps:
        if not c.vectors:
            continue
        groups: dict[tuple[int, int], list] = {}
        for dx, dy in c.vectors:
            groups.setdefault(tuple(sorted((abs(dx), abs(dy)), reverse=True)), []).append((dx, dy))
        for shape, vecs in groups.items():
            where = _direction(vecs)
            if c.rider:
                n = c.range_
                what = f"up to {n} squares {where}" if n else f"any distance {where}"
                if shape not in ((1, 0), (1, 1)):
                    what = f"repeated {_SHAPES.get(shape, 'leaps')} {where}"
            else:
                what = f"{_SHAPES.get(shape, 'a leap')} {where}"
                if shape[0] > 1 and shape != (2, 1):
                    what += " (blocked by a piece in between)" if c.lame else " (jumping)"
            if c.move and not c.capture:
                what += ", not capturing"
            elif c.capture and not c.move:
                what += ", capturing only"
            if c.initial:
                what += ", on its first move"
            out.append(what)
    # merge the same clause found twice (``W`` and ``F`` of one component stay apart)
    seen: list[str] = []
    for w in out:
        if w not in seen:
            seen.append(w)
    return "; ".join(seen)


def describe(p: PieceSpec) -> dict:
    """The page's view of one piece type."""
    return {"letter": p.letter, "name": p.name, "betza": p.betza, "words": moves_in_words(p.betza),
            "picture": PICTURES.get(p.name.lower(), ""), "promotes_to": p.promotes_to,
            "promotion_ranks": list(p.promotion_ranks)}


def describe_variant(spec: VariantSpec) -> dict:
    """The page's view of a variant: board size and pieces."""
    return {"name": spec.name, "description": spec.description, "files": spec.files, "ranks": spec.ranks,
            "pieces": [describe(p) for p in spec.pieces], "royal": spec.royal, "extinction": spec.extinction,
            "conversion": spec.conversion}
