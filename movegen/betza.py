"""Betza notation: parse a piece's move string into move components.

Grammar (one component per atom, modifiers bind to the atom that follows them)::

    piece     := component+
    component := modifier* ATOM range?        e.g. ``fmW``, ``fcF``, ``ifmnD``, ``B3``
    modifier  := f b l r s v h                direction (see below)
               | m c                          modality: move only / capture only
               | i                            initial: only while the piece is unmoved
               | n                            lame: a leap blocked by any piece on its path
    range     := digits                       ride up to N steps (0 = unlimited)

Atoms, as (dx, dy) leaps in White's view (dy > 0 is forward); every atom means all 8 (or 4)
symmetric images of its vector:

    W (1,0) wazir     F (1,1) ferz      D (2,0) dabbaba   A (2,2) alfil   N (2,1) knight
    H (3,0)           C, L (3,1) camel  Z, J (3,2) zebra  G (3,3)
    K = WF (leaper)   R = WW (rider)    B = FF (rider)    Q = RB (rider)

A doubled atom (``WW``, ``NN``) or an atom with a range (``W2`` = ``R2``) rides: it repeats its
step and stops at the first occupied square, so range-limited riders never jump.

Directions: ``f``/``b`` keep the vectors going forward/backward, ``l``/``r`` those going
left/right, ``v`` the vertical-dominant ones, ``s`` the sideways-dominant ones.  Two letters
in a row form one direction when their intersection is non-empty for the atom (``fl`` is the
forward-left diagonal of ``F``; ``ff`` are the two narrow forward knight moves; ``fs`` the two
wide ones); otherwise they are a union (``fsW`` = forward and sideways wazir).  ``hl``/``hr``
pick a chiral half of an oblique atom (the four moves turning left / right).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Component", "parse_betza", "BetzaError"]

Vector = tuple[int, int]


class BetzaError(ValueError):
    """A Betza string that cannot be parsed; the message names the offending part."""


@dataclass(frozen=True)
class Component:
    """One move component of a piece.

    vectors: the leap or step vectors, in White's view (dy > 0 is forward).
    rider: repeats the step until blocked; range_ is the step limit (0 = unlimited).
    move, capture: whether it may go to an empty square / capture an enemy piece.
    initial: only while the piece has its first-move right.
    lame: a leaper blocked by any piece on the squares it passes (see ``lame_path``).
    """

    vectors: tuple[Vector, ...]
    rider: bool
    range_: int
    move: bool
    capture: bool
    initial: bool
    lame: bool


_BASE: dict[str, Vector] = {
    "W": (1, 0), "F": (1, 1), "D": (2, 0), "A": (2, 2), "N": (2, 1), "H": (3, 0),
    "C": (3, 1), "L": (3, 1), "Z": (3, 2), "J": (3, 2), "G": (3, 3),
}
# compound atoms: (base atoms, rides)
_COMPOUND: dict[str, tuple[str, bool]] = {
    "K": ("WF", False), "R": ("W", True), "B": ("F", True), "Q": ("WF", True),
}
_DIRS = set("fblrsvh")


def _images(v: Vector) -> list[Vector]:
    a, b = v
    out: list[Vector] = []
    for x, y in ((a, b), (b, a)):
        for sx in (1, -1):
            for sy in (1, -1):
                w = (x * sx, y * sy)
                if w not in out:
                    out.append(w)
    return out


def _single(letter: str, v: Vector) -> bool:
    dx, dy = v
    if letter == "f":
        return dy > 0
    if letter == "b":
        return dy < 0
    if letter == "l":
        return dx < 0
    if letter == "r":
        return dx > 0
    if letter == "v":
        return abs(dy) > abs(dx) or (dx == 0)
    if letter == "s":
        return abs(dx) > abs(dy) or (dy == 0)
    raise BetzaError(f"direction {letter!r} needs a partner (hl, hr)")


def _pair(a: str, b: str, v: Vector) -> bool:
    dx, dy = v
    if a == "h" or b == "h":
        other = b if a == "h" else a
        # chirality: the sign of the cross product of the vector with its dominant axis
        turn = dx * dy > 0 if abs(dy) > abs(dx) else dx * dy < 0
        if other == "l":
            return turn if dx * dy != 0 else False
        if other == "r":
            return (not turn) if dx * dy != 0 else False
        raise BetzaError(f"'h' must pair with l or r, not {other!r}")
    if a == b:
        # ff, bb: narrow forward/backward; ll, rr: wide left/right
        if a in "fb":
            return _single(a, v) and abs(dy) > abs(dx)
        if a in "lr":
            return _single(a, v) and abs(dx) > abs(dy)
        return _single(a, v)
    return _single(a, v) and _single(b, v)


def _select(dirs: str, vectors: list[Vector]) -> list[Vector]:
    if not dirs:
        return vectors
    chosen: set[Vector] = set()
    i = 0
    while i < len(dirs):
        a = dirs[i]
        if i + 1 < len(dirs):
            b = dirs[i + 1]
            combo = [v for v in vectors if _pair(a, b, v)] if (a == "h" or b == "h" or a in "fblr") else []
            if combo or a == "h" or b == "h":
                chosen.update(combo)
                i += 2
                continue
        chosen.update(v for v in vectors if _single(a, v))
        i += 1
    return [v for v in vectors if v in chosen]


def lame_path(v: Vector) -> list[Vector]:
    """Squares a lame (``n``) leap passes: straight along the long axis, then diagonally."""
    dx, dy = v
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    ax, ay = abs(dx), abs(dy)
    path: list[Vector] = []
    x = y = 0
    while (ax - abs(x)) != (ay - abs(y)):  # straight steps until the rest is diagonal
        if ax - abs(x) > ay - abs(y):
            x += sx
        else:
            y += sy
        path.append((x, y))
    while (x, y) != (dx, dy):
        x += sx
        y += sy
        path.append((x, y))
    return path[:-1]


def parse_betza(text: str) -> list[Component]:
    """Parse a Betza move string.

    >>> [c.vectors for c in parse_betza("fmW")]
    [((0, 1),)]
    >>> parse_betza("R2")[0].range_
    2
    """
    if not text or not text.strip():
        raise BetzaError("empty Betza string")
    comps: list[Component] = []
    i, n = 0, len(text)
    while i < n:
        start = i
        dirs, mods = "", ""
        while i < n and text[i].islower():
            ch = text[i]
            if ch in _DIRS:
                dirs += ch
            elif ch in "mcin":
                mods += ch
            else:
                raise BetzaError(f"unknown modifier {ch!r} at position {i} of {text!r}")
            i += 1
        if i >= n:
            raise BetzaError(f"modifiers {text[start:]!r} at the end of {text!r} have no atom")
        atom = text[i]
        if atom not in _BASE and atom not in _COMPOUND:
            raise BetzaError(f"unknown atom {atom!r} at position {i} of {text!r}")
        i += 1
        rider = False
        if atom in _COMPOUND:
            bases, rider = _COMPOUND[atom]
        else:
            bases = atom
            if i < n and text[i] == atom:  # doubled atom: rider
                rider = True
                i += 1
        digits = ""
        while i < n and text[i].isdigit():
            digits += text[i]
            i += 1
        range_ = 0
        if digits:
            range_ = int(digits)
            if not rider and range_ == 1:
                range_ = 0  # W1 is just W
            elif range_ != 1:
                rider = True
        if rider and range_ == 1:
            rider, range_ = False, 0
        vectors: list[Vector] = []
        for b in bases:
            vectors.extend(_images(_BASE[b]))
        picked = _select(dirs, vectors)
        if not picked:
            raise BetzaError(f"directions {dirs!r} leave no move of {atom!r} in {text!r}")
        move = "m" in mods or "c" not in mods
        capture = "c" in mods or "m" not in mods
        comps.append(
            Component(
                vectors=tuple(picked),
                rider=rider,
                range_=range_,
                move=move,
                capture=capture,
                initial="i" in mods,
                lame="n" in mods and not rider and any(max(abs(x), abs(y)) > 1 for x, y in picked),
            )
        )
    return comps
