"""How a variant looks to XBoard, derived from its variant file (``[xboard]``, FORMAT.md).

XBoard 4.9.1 plays a few variants itself (``normal``, ``courier``); every other variant is
*engine-defined*: on ``variant NAME`` the engine answers, before move 1, with::

    setup (PIECETOCHAR) WxH+0_PARENT START-FEN
    piece P& fmWfcF
    piece +C& B3R3N           (a promoted form: the piece a C becomes with a "+" move)
    ...                       one line per piece letter, kings and pawns included

PIECETOCHAR has one character per XBoard piece *slot* (white half, then black half, ``.`` for
an unused slot; ``^X`` marks the slot of X's promoted form, ``=Y`` after it gives that slot the
letter Y as well); the slot picks the image and some built-in behaviour, and the last character
of each half is the royal King.  What XBoard can and cannot express, with the source lines of
4.9.1, is in ``protocol/XBOARD-NOTES.md``.  The facts this module relies on:

- only the pawn slot promotes by letter, and only on the last rank; a piece in slots 0-10
  whose promoted form has a slot promotes on any rank by a move with a trailing ``+``
  (``c6d7+``), and XBoard writes the promoted piece ``+C`` in FENs;
- XBoard reads Betza with ``i`` first, then direction letters, then modality letters in the
  order ``m c d e t p g o y n j a`` (``fmW`` works, ``mfW`` loses the ``f``): ``xboard_betza``;
- XBoard's 50-move count resets on captures and on its pawn slot's moves only;
- the parent variant switches built-in behaviour on: ``berolina`` turns off the en-passant
  branch that would delete the piece behind a pawn-slot piece's sideways non-capture.

>>> view = xboard_view("modcourier")
>>> view.name, view.setup_lines[0][:32]
('modcourier', 'setup (PNBR.FC..VMKpnbr.fc..vmk)')
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from jitfish.movegen import FenError, Position, VariantError, load_spec, variant_names
from jitfish.movegen.kernels import KIND_EP, move_from, move_kind, move_promo, move_to
from jitfish.movegen.spec import VariantSpec, resolve_name

__all__ = [
    "XB_SLOTS", "XBoardView", "xboard_view", "xboard_betza", "xboard_names", "xboard_name",
    "variant_from_xboard", "slot_index",
]

# XBoard 4.9.1's piece slots (common.h, WhitePawn .. WhiteCrown); the King is the last
# character of each half.  Names in XBOARD.md's spelling; Angel and Marshall are also
# Archbishop and Chancellor.
XB_SLOTS = (
    "Pawn", "Knight", "Bishop", "Rook", "Queen", "Ferz", "Alfil", "Archbishop", "Chancellor",
    "Wazir", "Man", "Cannon", "Nightrider", "Cardinal", "Dragon", "Grasshopper", "Silver",
    "Falcon", "Lance", "Cobra", "Unicorn", "Lion", "Sword", "Zebra", "Camel", "Tower", "Wolf",
    "Hat", "Duck", "Amazon", "Flying", "Gnu", "Cub", "Shield", "Horse", "Wizard", "Copper",
    "Iron", "Viking", "Flag", "Axe", "Dolphin", "Cat", "Claw", "Wheel", "Butterfly", "PBishop",
    "PRook", "HCrown", "Shierd", "Monarch", "Mother", "Nothing", "Drunk", "Wheer", "Tokin",
    "PKnight", "PCardinal", "PDragon", "PLance", "PSilver", "Dagger", "PSword", "PDagger", "Crown",
)
_SLOT_ALIASES = {"angel": 7, "marshall": 8, "commoner": 10, "gold": 9, "elephant": 6}
PAWN_SLOT, LANCE_SLOT = 0, 18
PLUS_PROMOTING = 11  # pieces in slots below this promote with "+" when their promoted form has a slot

# First choices for a piece without a slot in its file, by its Betza: the usual image.
_BY_BETZA = {
    "N": "Knight", "B": "Bishop", "R": "Rook", "Q": "Queen", "F": "Ferz", "A": "Alfil",
    "FA": "Alfil", "AF": "Alfil", "W": "Wazir", "K": "Man", "BN": "Archbishop", "NB": "Archbishop",
    "RN": "Chancellor", "NR": "Chancellor", "QN": "Amazon", "NQ": "Amazon", "NN": "Nightrider",
    "WF": "Man", "FW": "Man", "D": "Dragon", "H": "Horse", "Z": "Zebra", "C": "Camel", "L": "Camel",
    "G": "Gnu",
}
# then these, in order (the lance slot is left out: XBoard treats a lance like a pawn)
_SPARE = ("Cannon", "Unicorn", "Cardinal", "Dragon", "Grasshopper", "Falcon", "Cobra", "Lion",
          "Sword", "Zebra", "Camel", "Tower", "Wolf", "Hat", "Duck", "Amazon", "Gnu", "Shield",
          "Horse", "Wizard", "Viking", "Flag", "Axe", "Dolphin", "Cat", "Claw", "Wheel")

_DIRECTION = "fblrvsh"
_MODALITY_ORDER = "mcdetpgoynja"
_TOKEN = re.compile(r"([a-z]*)([A-Z])(\2?)(\d*)")
_SIZE_PREFIX = re.compile(r"^\d+x\d+(\+\d+)?_")


def slot_index(value: str | int, where: str = "slot") -> int:
    """An XBoard slot given by name (``Alfil``) or number -> its number (VariantError if none)."""
    if isinstance(value, int) or str(value).isdigit():
        n = int(value)
        if 0 <= n < len(XB_SLOTS):
            return n
    else:
        key = str(value).strip().lower()
        for i, name in enumerate(XB_SLOTS):
            if name.lower() == key:
                return i
        if key in _SLOT_ALIASES:
            return _SLOT_ALIASES[key]
    raise VariantError(f"{where}: {value!r} is not an XBoard piece slot (names: {', '.join(XB_SLOTS)})")


def xboard_betza(betza: str, captures: bool = True) -> str:
    """Rewrite a Betza string into XBoard's dialect: per atom ``i``, directions, then modality.

    ``captures=False`` (a variant where nothing captures) makes every atom move-only.

    >>> xboard_betza("ifmnD"), xboard_betza("mfF"), xboard_betza("fB2R2"), xboard_betza("Q", False)
    ('ifmnD', 'fmF', 'fB2R2', 'mQ')
    >>> xboard_betza("mfFcfWifmW")
    'fmFfcWifmW'
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
class XBoardView:
    """What XBoard is told about one variant, and how to translate between the two.

    name: XBoard's name (``normal`` for chess); canonical: ours; builtin: XBoard plays it
    itself; playable: False when XBoard cannot show its rules (``reason`` says why);
    start_fen: the start as XBoard has it; setup_lines: ``setup`` then ``piece`` lines, sent on
    ``variant NAME``; pawn: the letter in XBoard's pawn slot; promoted: letter -> the letter it
    is the promoted form of (sent as a ``+`` move, written ``+X`` in XBoard's FENs);
    berolina: the parent is ``berolina`` (no phantom en passant); limits: what XBoard cannot
    do with this variant, in words (``jitfish check`` prints them).
    """

    name: str
    canonical: str
    builtin: bool
    playable: bool
    reason: str
    start_fen: str
    setup_lines: tuple[str, ...]
    pawn: str | None
    promoted: dict[str, str] = field(default_factory=dict)
    berolina: bool = False
    limits: tuple[str, ...] = ()

    # -- moves ----------------------------------------------------------------------------

    def move_text(self, pos: Position, move: int) -> str:
        """A legal move as XBoard takes it: coordinates, ``+`` for a promotion to a promoted
        form, the lower-case letter for a pawn-slot promotion."""
        text = pos.move_name(move)
        promo = move_promo(move)
        if promo:
            letter = pos.spec.pieces[promo - 1].letter
            if letter in self.promoted:
                return text[:-1] + "+"
        return text

    def read_move(self, pos: Position, text: str) -> str:
        """XBoard's move text -> ours: ``c6d7+`` becomes the promotion to the promoted form of
        the moving piece (left as it is when that is not a legal move here)."""
        t = text.strip()
        if not t.endswith("+") or not self.promoted:
            return t
        body = t[:-1]
        for m in pos.legal_moves():
            name = pos.move_name(m)
            promo = move_promo(m)
            if promo and name[:-1] == body and self.promoted.get(pos.spec.pieces[promo - 1].letter) \
                    == pos.spec.pieces[(int(pos.pos.board[move_from(m)]) - 1) >> 1].letter:
                return name
        return t

    def showable(self, pos: Position, move: int) -> bool:
        """Can XBoard 4.9.1 play and show this legal move as it is?

        - A promotion shows when it is a ``+`` move to the mover's promoted form, or a
          pawn-slot piece's promotion on the last rank to a piece that is no promoted form.
        - Without the ``berolina`` parent, XBoard takes a sideways or diagonal non-capture of
          its pawn-slot piece for an en-passant capture and deletes the piece behind the
          target square (a CI game lost a cow that way).
        (Cleopatra's conversions cannot be shown at all: that variant is not playable.)
        """
        spec = pos.spec
        fr, to = move_from(move), move_to(move)
        board = pos.pos.board
        letter = spec.pieces[(int(board[fr]) - 1) >> 1].letter
        pawn_slot = letter == self.pawn
        F = spec.files
        if pawn_slot and not self.berolina and fr % F != to % F and board[to] == 0 and move_kind(move) != KIND_EP:
            behind = to - F if pos.turn == 0 else to + F
            if 0 <= behind < F * spec.ranks and board[behind] != 0:
                return False
        promo = move_promo(move)
        if not promo:
            return True
        target = spec.pieces[promo - 1].letter
        if self.promoted.get(target) == letter:
            return True
        last = spec.ranks - 1 if pos.turn == 0 else 0
        return pawn_slot and to // F == last and target not in self.promoted

    # -- positions ------------------------------------------------------------------------

    def read_fen(self, fen: str) -> Position:
        """A Position from a FEN as XBoard writes it for this variant.

        XBoard writes promoted forms as ``+X`` (Position reads those itself, from the same
        ``[xboard] promoted`` table), may add an en-passant square or castling
        letters to variants that have neither, and cannot write first-move rights kept per
        piece (Cows and Butterflies' second-rank cows): it decides them itself, a piece on a
        square that held the same piece at the start has not moved.  So when the rights field
        of such a variant is ``-`` (or unreadable), the rights follow XBoard's rule.  A FEN that
        is fine as it is is taken as it is.
        """
        canonical = self.canonical
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
        return _xboard_rights(pos)


def _xboard_rights(pos: Position) -> Position:
    """The position with first-move rights by XBoard's rule: a tracked piece on a start square
    that held its type has not moved."""
    spec = pos.spec
    start = Position(spec.name).pos.board
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
    return Position(spec.name, " ".join(fields))


def xboard_name(canonical: str) -> str:
    """Our variant name -> the name XBoard sees (``chess`` is XBoard's ``normal``)."""
    spec = load_spec(canonical)
    return spec.xboard.name or spec.name


def xboard_names() -> list[str]:
    """The ``variants=`` feature list: every variant XBoard can play, ``normal`` first."""
    names = []
    for v in variant_names():
        view = xboard_view(v)
        if view.playable:
            names.append(view.name)
    return sorted(names, key=lambda n: (n != "normal", n))


def variant_from_xboard(name: str) -> str:
    """XBoard's ``variant`` argument -> our canonical name (VariantError if unknown).  A board
    size prefix (``12x8+0_``) is dropped."""
    text = _SIZE_PREFIX.sub("", name.strip())
    for v in variant_names():
        if xboard_name(v) == text:
            return v
    return resolve_name(text)


def _choose_slots(spec: VariantSpec) -> tuple[dict[str, int], list[str]]:
    """Slot per piece letter (royal excluded): the file's choice, else derived from the
    pieces. Also returns what XBoard cannot express."""
    where = f"{spec.name}: xboard"
    given = dict(spec.xboard.slots)
    promoted = dict(spec.xboard.promoted)
    slots: dict[str, int] = {}
    limits: list[str] = []
    for letter, value in given.items():
        slots[letter] = slot_index(value, f"{where}.slots.{letter}")
    pieces = [p for p in spec.pieces if p.letter != spec.royal]
    if PAWN_SLOT not in slots.values():
        # the pawn slot: a pawn-like piece that promotes on the last rank, else any pawn-like one
        cands = [p for p in pieces if p.letter not in slots and p.pawn]
        cands.sort(key=lambda p: (list(p.promotion_ranks) != [spec.ranks], not p.promotes_to))
        if cands:
            slots[cands[0].letter] = PAWN_SLOT
    for p in pieces:
        if p.letter in slots:
            continue
        taken = set(slots.values())
        first = _BY_BETZA.get(p.betza)
        choice = slot_index(first) if first and slot_index(first) not in taken else None
        if choice is None:
            choice = next((slot_index(n) for n in _SPARE if slot_index(n) not in taken), None)
        if choice is None:
            choice = next(i for i in range(len(XB_SLOTS)) if i not in taken and i != LANCE_SLOT)
        slots[p.letter] = choice
    seen: dict[int, str] = {}
    for letter, s in slots.items():
        if s in seen:
            raise VariantError(f"{where}.slots: {seen[s]} and {letter} both take the slot {XB_SLOTS[s]}")
        seen[s] = letter
    for p in pieces:
        if not p.promotes_to:
            continue
        for target in p.promotes_to:
            if promoted.get(target) == p.letter:
                if slots[p.letter] >= PLUS_PROMOTING:
                    limits.append(f"{p.name} ({p.letter}) promotes with '+' only from a slot below {PLUS_PROMOTING}")
            elif slots[p.letter] != PAWN_SLOT:
                limits.append(f"{p.name} ({p.letter}) promotes, but XBoard promotes only its pawn slot "
                              f"(or a '+' move to a promoted form)")
            elif list(p.promotion_ranks) != [spec.ranks]:
                limits.append(f"{p.name} ({p.letter}) promotes on rank(s) {list(p.promotion_ranks)}; "
                              f"XBoard promotes a pawn only on the last rank")
    return slots, limits


def _piece_to_char(spec: VariantSpec, slots: dict[str, int]) -> str:
    promoted = dict(spec.xboard.promoted)
    width = max(slots.values(), default=0) + 1
    cells = ["."] * width
    for letter, s in slots.items():
        base = promoted.get(letter)
        cells[s] = f"^{base}={letter}" if base else letter
    while len(cells) < 5:  # XBoard wants at least 6 characters a half, the King's included
        cells.append(".")
    white = "".join(cells) + (spec.royal or ".")
    return white + white.lower()


@lru_cache(maxsize=None)
def _view(spec: VariantSpec) -> XBoardView:
    xb = spec.xboard
    name = xb.name or spec.name
    slots, limits = ({}, []) if xb.builtin else _choose_slots(spec)
    pawn = next((letter for letter, s in slots.items() if s == PAWN_SLOT), None)
    if xb.builtin:
        pawn = next((p.letter for p in spec.pieces if p.pawn), None)
        return XBoardView(name, spec.name, True, xb.playable, xb.reason, xb.start_fen or spec.start_fen,
                          (), pawn, {}, False, ())
    fen = spec.start_fen
    if spec.rights_field == "files":
        # XBoard reads file letters in the rights field as castling rooks and then writes junk
        # (``w - b6 0 1``); it keeps first-move rights itself (a piece on its start square)
        f = fen.split()
        f[2] = "-"
        fen = " ".join(f)
    promoted = dict(xb.promoted)
    lines = [f"setup ({_piece_to_char(spec, slots)}) {spec.files}x{spec.ranks}+0_{xb.parent} {fen}"]
    # the pieces, then the promoted forms (the order of XBoard's runs)
    for p in sorted(spec.pieces, key=lambda p: p.letter in promoted):
        try:
            betza = xboard_betza(p.betza, spec.captures)
        except ValueError as exc:
            raise VariantError(f"{spec.name}: pieces.{p.letter}.betza: {exc}") from None
        letter = f"+{promoted[p.letter]}" if p.letter in promoted else p.letter
        lines.append(f"piece {letter}& {betza}")
    return XBoardView(name, spec.name, False, xb.playable, xb.reason, spec.start_fen, tuple(lines), pawn,
                      promoted, xb.parent == "berolina", tuple(limits))


def xboard_view(canonical: str) -> XBoardView:
    """The XBoard view of a known variant (by name or alias)."""
    return _view(load_spec(canonical))
