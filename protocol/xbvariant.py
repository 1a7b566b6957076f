"""How jitfish's variants look to XBoard: names, piece-to-char tables, Betza in XBoard's dialect.

XBoard 4.9.1 knows ``normal`` and ``courier``; every other variant is *engine-defined*: on
``variant NAME`` the engine answers, before move 1, with::

    setup (PIECETOCHAR) WxH+0_fairy START-FEN
    piece P& fmWfcF
    ...                       one line per piece letter, kings and pawns included

PIECETOCHAR has one character per XBoard piece *slot* (white half, then black half, ``.`` for
an unused slot); the slot picks the image and some built-in behaviour (only slot 0 promotes,
the last character of each half is the royal King). Only the first 22 slots are used here;
their order is the same in every XBoard since 4.5::

    0 Pawn  1 Knight  2 Bishop  3 Rook  4 Queen  5 Ferz  6 Alfil  7 Archbishop  8 Chancellor
    9 Wazir  10 Man  11 Cannon  12 Nightrider  13 Cardinal  14 Dragon  15 Grasshopper
    16 Silver  17 Falcon  18 Lance  19 Cobra  20 Unicorn  21 Lion

XBoard reads Betza with the modifiers in a fixed order (``/work/shared/XBOARD.md``): ``i``
first, then direction letters, then modality letters in the order ``m c d e t p g o y n j a``
(``fmW`` works, ``mfW`` silently loses the ``f``). ``xboard_betza`` rewrites our strings to it.

>>> xboard_betza("mfFcfWifmW")
'fmFfcWifmW'
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "XB_SLOTS", "XB_BUILTIN", "XbVariant", "xboard_betza", "xboard_variant", "xboard_names",
    "engine_variant_name", "XB_COURIER_START", "unshowable", "read_xboard_fen", "xboard_pawn",
]

XB_SLOTS = (
    "Pawn", "Knight", "Bishop", "Rook", "Queen", "Ferz", "Alfil", "Archbishop", "Chancellor",
    "Wazir", "Man", "Cannon", "Nightrider", "Cardinal", "Dragon", "Grasshopper", "Silver",
    "Falcon", "Lance", "Cobra", "Unicorn", "Lion",
)

# XBoard's own name -> our canonical variant, for the variants XBoard plays itself
XB_BUILTIN = {"normal": "chess", "courier": "courier"}

# XBoard's (and Fairy-Max's) built-in courier start: full pawn rows, Ferz on g1. Sjaak II and
# Fairy-Stockfish (our courier.toml) start with the a-, g- and l-pawns and the Ferz advanced.
XB_COURIER_START = "rnebmkfwbenr/pppppppppppp/12/12/12/12/PPPPPPPPPPPP/RNEBMKFWBENR w - - 0 1"

# For each engine-defined variant: piece letter -> XBoard slot (the King is always last).
# The slots are chosen for their images; moves always come from our own `piece` lines.
_SLOT_CHOICE: dict[str, dict[str, int]] = {
    # courier family: Courier (ferz+alfil jumps) shows as the Alfil (elephant), the Ferz as
    # the advisor, the Vizier as the Wazir, the Man as the commoner
    "modcourier": {"P": 0, "N": 1, "B": 2, "R": 3, "F": 5, "C": 6, "V": 9, "M": 10},
    # Cows and Butterflies: only slot 0 promotes (on the last rank), so the Soldier, which
    # promotes there, takes the pawn slot; the Cow (its 7th-rank promotion cannot be shown,
    # see ``unshowable``) the Alfil; Monarch = Queen, Butterfly = Archbishop, and the Ace,
    # the piece to protect, the Man (a crowned, non-royal image)
    "cowsandbutterflies": {"S": 0, "M": 4, "C": 6, "B": 7, "A": 10},
    # Cleopatra: the chess set; the Cleopatra shows as the Queen
    "cleopatra": {"P": 0, "N": 1, "B": 2, "R": 3, "Q": 4},
}
_SLOT_CHOICE["modcourier2"] = _SLOT_CHOICE["modcourier"]
_SLOT_CHOICE["modcourier3"] = _SLOT_CHOICE["modcourier"]
_SLOT_CHOICE["cowsandbutterflies-reversed"] = _SLOT_CHOICE["cowsandbutterflies"]

_DIRECTION = "fblrvsh"
_MODALITY_ORDER = "mcdetpgoynja"
_TOKEN = re.compile(r"([a-z]*)([A-Z])(\2?)(\d*)")


def xboard_betza(betza: str, captures: bool = True) -> str:
    """Rewrite a Betza string into XBoard's dialect: per atom ``i``, directions, then modality.

    ``captures=False`` (a variant where nothing captures) makes every atom move-only.

    >>> xboard_betza("ifmnD"), xboard_betza("mfF"), xboard_betza("fB2R2"), xboard_betza("Q", False)
    ('ifmnD', 'fmF', 'fB2R2', 'mQ')
    """
    out = []
    pos = 0
    for m in _TOKEN.finditer(betza):
        if m.start() != pos:
            raise ValueError(f"cannot read Betza {betza!r} at position {pos}")
        mods, atom, double, rng = m.groups()
        initial = "i" if "i" in mods else ""
        dirs = "".join(ch for ch in mods if ch in _DIRECTION)
        modal = "".join(sorted((ch for ch in mods if ch in _MODALITY_ORDER), key=_MODALITY_ORDER.index))
        if not captures:
            modal = "m" + modal.replace("m", "").replace("c", "")
        unknown = set(mods) - set(_DIRECTION) - set(_MODALITY_ORDER) - {"i"}
        if unknown:
            raise ValueError(f"Betza {betza!r}: modifier {''.join(sorted(unknown))!r} unknown to XBoard")
        out.append(f"{initial}{dirs}{modal}{atom}{double}{rng}")
        pos = m.end()
    if pos != len(betza):
        raise ValueError(f"cannot read Betza {betza!r} at position {pos}")
    return "".join(out)


@dataclass(frozen=True)
class XbVariant:
    """What to tell XBoard about one of our variants.

    name: the name XBoard uses (``normal`` for chess); canonical: ours.
    builtin: XBoard plays it itself (no setup, no piece lines).
    start_fen: the start position as XBoard has it.
    setup_lines: ``setup ...`` then ``piece ...`` lines, sent in answer to ``variant NAME``.
    """

    name: str
    canonical: str
    builtin: bool
    start_fen: str
    setup_lines: tuple[str, ...]


def engine_variant_name(canonical: str) -> str:
    """Our canonical name -> the name XBoard sees (``chess`` is XBoard's ``normal``)."""
    return "normal" if canonical == "chess" else canonical


def xboard_names() -> list[str]:
    """The ``variants=`` feature list, in our variant order, ``normal`` first."""
    from jitfish.movegen import variant_names

    names = [engine_variant_name(v) for v in variant_names()]
    return sorted(names, key=lambda n: (n != "normal", n))


def piece_to_char(canonical: str) -> str:
    """The PIECETOCHAR string for an engine-defined variant (white half, then black half)."""
    from jitfish.movegen import load_spec

    spec = load_spec(canonical)
    slots = _SLOT_CHOICE[canonical]
    royal = spec.royal
    table = ["."] * len(XB_SLOTS)
    for p in spec.pieces:
        if p.letter == royal:
            continue
        if p.letter not in slots:
            raise ValueError(f"{canonical}: no XBoard slot chosen for piece {p.letter}")
        s = slots[p.letter]
        if table[s] != ".":
            raise ValueError(f"{canonical}: XBoard slot {s} given to {table[s]} and {p.letter}")
        table[s] = p.letter
    while table and table[-1] == ".":
        table.pop()
    # the last character of each half is the King; with no royal piece it stays unused
    white = "".join(table) + (royal or ".")
    # XBoard wants at least 6 characters a half
    if len(white) < 6:
        white = white[:-1] + "." * (6 - len(white)) + white[-1]
    return white + white.lower()


def xboard_variant(canonical: str) -> XbVariant:
    """The XBoard view of one of our variants (by canonical name)."""
    from jitfish.movegen import load_spec

    spec = load_spec(canonical)
    name = engine_variant_name(canonical)
    if name in XB_BUILTIN:
        start = XB_COURIER_START if canonical == "courier" else spec.start_fen
        return XbVariant(name, canonical, True, start, ())
    fen = spec.start_fen
    if spec.rights_field == "files":
        # XBoard reads file letters in the rights field as castling rooks and then writes junk
        # (``w - b6 0 1``); it keeps first-move rights itself (a piece on its start square)
        f = fen.split()
        f[2] = "-"
        fen = " ".join(f)
    lines = [f"setup ({piece_to_char(canonical)}) {spec.files}x{spec.ranks}+0_fairy {fen}"]
    for p in spec.pieces:
        lines.append(f"piece {p.letter}& {xboard_betza(p.betza, spec.captures)}")
    return XbVariant(name, canonical, False, spec.start_fen, tuple(lines))


def xboard_pawn(canonical: str) -> str | None:
    """The piece XBoard treats as the pawn (slot 0) in this variant."""
    if canonical in XB_BUILTIN.values():
        return "P"
    for letter, slot in _SLOT_CHOICE[canonical].items():
        if slot == 0:
            return letter
    return None


def unshowable(pos, move) -> bool:
    """True if XBoard 4.9.1 cannot play this legal move as it is (it would call it illegal, or
    play something else).

    - XBoard promotes only its pawn slot, and only on the last rank: a Cows and Butterflies cow
      promoting on the 7th rank cannot be shown.
    - XBoard takes any sideways or diagonal non-capture of its pawn slot for an en-passant
      capture and removes the piece behind the destination square. The Soldier of Cows and
      Butterflies sits in that slot (it is the piece that promotes on the last rank) and moves
      diagonally and sideways without capturing: after such a move with a piece behind its
      target, XBoard's board had lost that piece and it forfeited the next legal move of (or
      onto) that square. Reproduced with a scripted engine replaying a CI game: the Soldier's
      e5g7 removed XBoard's black cow on g6, then "g6f5" was "invalid".
    (Cleopatra's conversions cannot be shown either; that is a side effect of ordinary moves.)
    """
    from jitfish.movegen import kernels as K

    spec = pos.spec
    canonical = spec.name
    fr, to = K.move_from(move), K.move_to(move)
    board = pos.pos.board
    letter = spec.pieces[(int(board[fr]) - 1) >> 1].letter
    pawn_slot = letter == xboard_pawn(canonical)
    F = spec.files
    if pawn_slot and fr % F != to % F and board[to] == 0 and K.move_kind(move) != K.KIND_EP:
        behind = to - F if pos.turn == 0 else to + F
        if 0 <= behind < F * spec.ranks and board[behind] != 0:
            return True
    if not K.move_promo(move):
        return False
    last = spec.ranks - 1 if pos.turn == 0 else 0
    return not pawn_slot or to // F != last


def read_xboard_fen(canonical: str, fen: str):
    """A Position from a FEN as XBoard writes it for our variants.

    XBoard may add an en-passant square or castling letters to variants that have neither,
    and it cannot write first-move rights kept per piece (Cows and Butterflies' second-rank
    cows): it decides them itself, a piece standing on its start square has not moved. So when
    the rights field of such a variant is ``-`` (or unreadable), the rights follow XBoard's
    rule. A FEN that is fine as it is is taken as it is.
    """
    from jitfish.movegen import FenError, Position, load_spec

    spec = load_spec(canonical)
    try:
        pos = Position(canonical, fen)
        fields = fen.split()
        if spec.rights_field != "files" or len(fields) < 3 or fields[2] != "-":
            return pos
    except FenError as exc:
        first_error = exc
        fields = fen.split()
        if len(fields) < 4:
            raise
        if not any(p.en_passant for p in spec.pieces):
            fields[3] = "-"
        if spec.rights_field != "castling":
            fields[2] = "-"
        try:
            pos = Position(canonical, " ".join(fields))
        except FenError:
            raise first_error from None
        if spec.rights_field != "files":
            return pos
    # first-move rights by XBoard's rule: a tracked piece on a start square holding its type
    start = Position(canonical).pos.board
    board = pos.pos.board
    rights = ""
    for colour in (0, 1):
        files = []
        for p in spec.pieces:
            for rr in p.rights_ranks:
                r = rr - 1 if colour == 0 else spec.ranks - rr
                for f in range(spec.files):
                    sq = r * spec.files + f
                    code = 1 + 2 * spec.letters.index(p.letter) + colour
                    if int(board[sq]) == code and int(start[sq]) == code:
                        files.append("abcdefghijklmnop"[f])
        part = "".join(sorted(files))
        rights += part.upper() if colour == 0 else part
    fields = pos.fen().split()
    fields[2] = rights or "-"
    return Position(canonical, " ".join(fields))
