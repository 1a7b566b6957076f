"""Standard algebraic notation for every variant: writing, and reading SAN or coordinates.

SAN here is chess's, extended the way Fairy-Stockfish and XBoard write variants: the piece's
letter (none for pawn-like pieces), the origin's file, rank or square when another piece of the
same type can reach the target, ``x`` on captures, the target, ``=X`` on a promotion,
``O-O``/``O-O-O`` for castling, ``+``/``#`` only where the variant has check.  For chess this is
exactly python-chess's SAN (tests/test_san.py checks every move of random games against it).

Reading accepts SAN with or without ``x``, ``=``, check marks and annotations, and coordinate
moves (``e2e4``, ``e7e8q``, ``e7e8=Q``, ``e2-e4``), castling as ``O-O``/``0-0`` or as the king's
move.

>>> from jitfish.movegen import Position
>>> pos = Position("courier")
>>> pos.san(pos.parse_san("f3"))
'f3'
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from .errors import MoveError
from .kernels import KIND_CASTLE, KIND_EP, move_from, move_kind, move_promo, move_to

if TYPE_CHECKING:
    from .position import Move, Position

__all__ = ["san", "san_body", "parse_san", "parse_coordinates"]

FILES = "abcdefghijklmnop"
_COORD = re.compile(r"([a-p])(\d{1,2})[-x]?([a-p])(\d{1,2})=?([a-zA-Z]?)")
_CASTLES = {"O-O": False, "0-0": False, "O-O-O": True, "0-0-0": True}


def _square(s: int, files: int) -> str:
    return FILES[s % files] + str(s // files + 1)


def san_body(pos: "Position", m: "Move", legal: Sequence["Move"]) -> str:
    """SAN of the legal move m without the check suffix; ``legal`` are the position's moves."""
    spec = pos.spec
    F = spec.files
    board = pos.pos.board
    fr, to, promo, kind = move_from(m), move_to(m), move_promo(m), move_kind(m)
    if kind == KIND_CASTLE:
        return "O-O" if to % F > fr % F else "O-O-O"
    t = (int(board[fr]) - 1) >> 1
    piece = spec.pieces[t]
    capture = kind == KIND_EP or int(board[to]) != 0
    rivals = []
    for other in legal:
        if other != m and move_to(other) == to and move_kind(other) != KIND_CASTLE:
            ofr = move_from(other)
            if ofr != fr and (int(board[ofr]) - 1) >> 1 == t:
                rivals.append(ofr)
    dis = ""
    if rivals:
        if all(r % F != fr % F for r in rivals):
            dis = FILES[fr % F]
        elif all(r // F != fr // F for r in rivals):
            dis = str(fr // F + 1)
        else:
            dis = _square(fr, F)
    if piece.pawn:
        if capture and not dis:
            dis = FILES[fr % F]
        text = dis + ("x" if capture else "") + _square(to, F)
    else:
        text = piece.letter + dis + ("x" if capture else "") + _square(to, F)
    if promo:
        text += "=" + spec.pieces[promo - 1].letter
    return text


def san(pos: "Position", m: "Move", legal: Sequence["Move"] | None = None) -> str:
    """SAN of the legal move m, with ``+``/``#`` where the variant has check."""
    text = san_body(pos, m, pos.legal_moves() if legal is None else legal)
    if pos.spec.check:
        pos.push(m)
        try:
            if pos.is_check():
                text += "#" if pos.count_legal() == 0 else "+"
        finally:
            pos.pop()
    return text


def _castle_move(pos: "Position", long: bool) -> "Move | None":
    F = pos.spec.files
    for m in pos.legal_moves():
        if move_kind(m) == KIND_CASTLE and ((move_to(m) % F < move_from(m) % F) == long):
            return m
    return None


def parse_coordinates(pos: "Position", text: str) -> "Move":
    """A move in coordinates as engines write it (``e2e4``, ``e7e8q``, ``e7e8=Q``, ``e2-e4``,
    castling as ``O-O``/``O-O-O``/``0-0``) -> the legal move, else MoveError."""
    t = text.strip()
    if t in _CASTLES:
        m = _castle_move(pos, long=_CASTLES[t])
        if m is None:
            raise MoveError(f"illegal move {t}: no castling that way")
        return m
    cm = _COORD.fullmatch(t)
    if cm:
        t = f"{cm.group(1)}{cm.group(2)}{cm.group(3)}{cm.group(4)}{cm.group(5).lower()}"
    return pos.parse_move(t)


_SAN = re.compile(r"(?P<piece>\+?[A-Z])?(?P<ff>[a-p])?(?P<fr>\d{1,2})?(?P<x>[x:])?(?P<to>[a-p]\d{1,2})"
                  r"(?:=?(?P<promo>\+|[A-Za-z]))?")


def parse_san(pos: "Position", text: str) -> "Move":
    """SAN of any variant, or coordinates -> the legal move, else MoveError.

    Read by its parts, as lenient as GUIs write it: the piece letter (none for a pawn-like
    piece; ``+C`` for the piece declared the promoted form of C, as XBoard writes it), origin
    file and/or rank even where not needed (``cb3``), ``x`` optional, the promotion as ``=X``,
    ``X`` or ``=+`` (the mover's promoted form), and left out where it is forced (XBoard writes
    a Soldier's promotion as ``Sg8``).
    """
    t = text.strip().rstrip("+#!?") if not text.strip().endswith("=+") else text.strip()
    try:
        return parse_coordinates(pos, t.rstrip("+#!?"))
    except MoveError as first:
        error = first
    m = _SAN.fullmatch(t)
    if not m:
        raise MoveError(f"illegal move {text!r} in {pos.fen()}") from error
    spec = pos.spec
    promoted = dict(spec.xboard.promoted)  # letter -> the letter it is the promoted form of
    form_of = {base: letter for letter, base in promoted.items()}
    piece = m.group("piece")
    if piece and piece.startswith("+"):
        piece = form_of.get(piece[1].upper())
        if piece is None:
            raise MoveError(f"illegal move {text!r}: no piece is the promoted form of {m.group('piece')[1]!r}")
    F = spec.files
    to = m.group("to")
    ff, fr, promo = m.group("ff"), m.group("fr"), m.group("promo")
    board = pos.pos.board
    found = []
    for mv in pos.legal_moves():
        if _square(move_to(mv), F) != to or move_kind(mv) == KIND_CASTLE:
            continue
        src = move_from(mv)
        mover = spec.pieces[(int(board[src]) - 1) >> 1]
        if (piece is None and not mover.pawn) or (piece is not None and mover.letter != piece):
            continue
        if (ff and FILES[src % F] != ff) or (fr and str(src // F + 1) != fr):
            continue
        p = move_promo(mv)
        got = spec.pieces[p - 1].letter if p else None
        if promo == "+":
            if got is None or form_of.get(mover.letter) != got:
                continue
        elif promo:
            if got != promo.upper():
                continue
        found.append((mv, got, int(board[move_to(mv)]) != 0 or move_kind(mv) == KIND_EP,
                      move_from(mv) % F == move_to(mv) % F))
    # Several candidates: read the text as GUIs write it. A capture carries its "x" (when it is
    # missing, a non-capture is meant if there is one), and a pawn-like piece's move without an
    # origin file is its straight one (XBoard writes a Berolina-like diagonal step "cb3", a
    # straight step "b3").
    if len(found) > 1:
        if m.group("x"):
            found = [f for f in found if f[2]] or found
        else:
            found = [f for f in found if not f[2]] or found
    if len(found) > 1 and piece is None and not ff:
        found = [f for f in found if f[3]] or found
    if promo is None and len(found) > 1:
        plain = [f for f in found if f[1] is None]
        found = plain or found  # no promotion named: the plain move, or a forced single choice
    if len(found) == 1:
        return found[0][0]
    if not found:
        raise MoveError(f"illegal move {text!r} in {pos.fen()}") from error
    raise MoveError(f"ambiguous move {text!r} in {pos.fen()}: "
                    f"{', '.join(pos.move_name(f[0]) for f in found)}")
