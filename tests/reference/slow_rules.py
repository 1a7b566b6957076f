"""Slow reference rules for ``cleopatra`` and ``cowsandbutterflies``: a test oracle.

This module is deliberately simple and slow. It shares no code with the engine (no bitboards,
no tables, no numba): the board is a dict from ``(file, rank)`` to a FEN letter, every move is
found by walking squares one at a time, and every position is a fresh copy. It exists so that
the fast move generator can be checked against a second implementation of the rules that no
outside engine implements (see ``/work/shared/RULES.md``, sections *cleopatra* and
*cowsandbutterflies*).

Public API (variant names as in RULES.md)::

    >>> legal_moves("cleopatra", START_FEN["cleopatra"])[:3]
    ['a2a3', 'a2a4', 'b1a3']
    >>> play("cowsandbutterflies", START_FEN["cowsandbutterflies"], "c2c3")
    'cacbmcac/scscscsc/8/8/8/2C5/CS1SCSCS/CACMBCAC b AEGbdfh - 0 1'
    >>> perft("cleopatra", START_FEN["cleopatra"], 2)
    400

Conventions:
- Squares are ``(file, rank)`` with both in ``0..7``; ``(0, 0)`` is a1.
- Pieces are FEN letters, uppercase for White. Colours are ``"w"`` and ``"b"``.
- Moves are coordinate strings, ``e2e4``, with a lowercase promotion letter (``e7e8q``).
  Castling is the king's move (``e1g1``).
- Rights (the FEN castling slot): in cleopatra a set of the letters ``KQkq``; in
  cowsandbutterflies a set of squares of second-rank cows that have not moved yet.
"""

from __future__ import annotations

from dataclasses import dataclass

Square = tuple[int, int]
Board = dict[Square, str]

FILES = "abcdefgh"

CLEOPATRA = "cleopatra"
COWS = "cowsandbutterflies"
COWS_REVERSED = "cowsandbutterflies-reversed"
VARIANTS = (CLEOPATRA, COWS, COWS_REVERSED)

START_FEN = {
    CLEOPATRA: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    COWS: "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGbdfh - 0 1",
    COWS_REVERSED: "cacbmcac/cscscscs/8/8/8/8/SCSCSCSC/CACMBCAC w BDFHaceg - 0 1",
}

ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (-1, 1), (1, -1), (-1, -1))
ALL_LINES = ORTHOGONAL + DIAGONAL
KNIGHT_LEAPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------

def square_name(sq: Square) -> str:
    return FILES[sq[0]] + str(sq[1] + 1)


def parse_square(name: str) -> Square:
    if len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
        raise ValueError(f"bad square {name!r}")
    return FILES.index(name[0]), int(name[1]) - 1


def on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def colour_of(piece: str) -> str:
    return "w" if piece.isupper() else "b"


def other(colour: str) -> str:
    return "b" if colour == "w" else "w"


def forward(colour: str) -> int:
    """Rank step of a forward move: White goes up the board, Black down."""
    return 1 if colour == "w" else -1


def relative_rank(colour: str, rank_number: int) -> int:
    """Board rank (0..7) of the owner's ``rank_number``-th rank (1..8)."""
    return rank_number - 1 if colour == "w" else 8 - rank_number


def flip_colour(piece: str) -> str:
    return piece.lower() if piece.isupper() else piece.upper()


def check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {VARIANTS}")


def is_cows(variant: str) -> bool:
    return variant in (COWS, COWS_REVERSED)


# ---------------------------------------------------------------------------------------------
# Position and FEN
# ---------------------------------------------------------------------------------------------

@dataclass
class Position:
    variant: str
    board: Board          # only occupied squares are keys
    turn: str             # "w" or "b"
    rights: frozenset     # KQkq letters (cleopatra) or unmoved second-rank cow squares (cows)
    halfmove: int
    fullmove: int

    def copy(self) -> "Position":
        return Position(self.variant, dict(self.board), self.turn, self.rights,
                        self.halfmove, self.fullmove)


# Castling in cleopatra: right letter -> (king square, rook square, king target, rook target,
# squares that must be empty).
CASTLING = {
    "K": ((4, 0), (7, 0), (6, 0), (5, 0), ((5, 0), (6, 0))),
    "Q": ((4, 0), (0, 0), (2, 0), (3, 0), ((1, 0), (2, 0), (3, 0))),
    "k": ((4, 7), (7, 7), (6, 7), (5, 7), ((5, 7), (6, 7))),
    "q": ((4, 7), (0, 7), (2, 7), (3, 7), ((1, 7), (2, 7), (3, 7))),
}


def castling_right_holds(board: Board, right: str) -> bool:
    """True when the own king and rook of this right stand on their start squares."""
    king_sq, rook_sq = CASTLING[right][0], CASTLING[right][1]
    king, rook = ("K", "R") if right.isupper() else ("k", "r")
    return board.get(king_sq) == king and board.get(rook_sq) == rook


def cow_right_holds(board: Board, sq: Square) -> bool:
    """True when ``sq`` is on a cow-owner's second rank and holds that owner's cow."""
    piece = board.get(sq)
    if piece == "C":
        return sq[1] == 1
    if piece == "c":
        return sq[1] == 6
    return False


def clean_rights(pos_board: Board, variant: str, rights) -> frozenset:
    if is_cows(variant):
        return frozenset(sq for sq in rights if cow_right_holds(pos_board, sq))
    return frozenset(r for r in rights if castling_right_holds(pos_board, r))


def parse_fen(variant: str, fen: str) -> Position:
    check_variant(variant)
    fields = fen.split()
    if len(fields) != 6:
        raise ValueError(f"need 6 FEN fields in {fen!r}")
    placement, turn, rights_field, ep, halfmove, fullmove = fields
    rows = placement.split("/")
    if len(rows) != 8:
        raise ValueError(f"need 8 ranks in {fen!r}")
    letters = "ACMBSacmbs" if is_cows(variant) else "PNBRQKpnbrqk"
    board: Board = {}
    for i, row in enumerate(rows):
        rank = 7 - i
        file = 0
        digits = ""
        for ch in row + " ":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch == " ":
                break
            if ch not in letters:
                raise ValueError(f"bad piece {ch!r} in {fen!r}")
            if file > 7:
                raise ValueError(f"rank {rank + 1} too long in {fen!r}")
            board[(file, rank)] = ch
            file += 1
        if file != 8:
            raise ValueError(f"rank {rank + 1} has {file} files in {fen!r}")
    if turn not in ("w", "b"):
        raise ValueError(f"bad side to move in {fen!r}")
    if ep != "-":
        raise ValueError(f"en-passant field must be '-' in {fen!r}")
    rights = set()
    if rights_field != "-":
        for ch in rights_field:
            if is_cows(variant):
                if ch.lower() not in FILES:
                    raise ValueError(f"bad cow right {ch!r} in {fen!r}")
                rights.add((FILES.index(ch.lower()), 1 if ch.isupper() else 6))
            else:
                if ch not in "KQkq":
                    raise ValueError(f"bad castling right {ch!r} in {fen!r}")
                rights.add(ch)
    return Position(variant, board, turn, clean_rights(board, variant, rights),
                    int(halfmove), int(fullmove))


def board_fen(board: Board) -> str:
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = board.get((file, rank))
            if piece is None:
                empty += 1
            else:
                if empty:
                    row += str(empty)
                    empty = 0
                row += piece
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


def rights_text(pos: Position) -> str:
    if is_cows(pos.variant):
        white = sorted(FILES[f].upper() for (f, r) in pos.rights if r == 1)
        black = sorted(FILES[f] for (f, r) in pos.rights if r == 6)
        text = "".join(white) + "".join(black)
    else:
        text = "".join(r for r in "KQkq" if r in pos.rights)
    return text or "-"


def to_fen(pos: Position) -> str:
    return " ".join((board_fen(pos.board), pos.turn, rights_text(pos), "-",
                     str(pos.halfmove), str(pos.fullmove)))


# ---------------------------------------------------------------------------------------------
# Move generation. A move is (from, to, promotion letter or "").
# ---------------------------------------------------------------------------------------------

Move = tuple[Square, Square, str]


def move_text(move: Move) -> str:
    return square_name(move[0]) + square_name(move[1]) + move[2]


def is_game_over(pos: Position) -> bool:
    """Decided by a variant rule: a side lost both Aces (cows) or its King (cleopatra)."""
    royal = "A" if is_cows(pos.variant) else "K"
    pieces = set(pos.board.values())
    return royal not in pieces or royal.lower() not in pieces


def slide(board: Board, sq: Square, direction: tuple[int, int], max_steps: int,
          can_capture: bool, colour: str) -> list[Square]:
    """Targets along one line: empty squares, then the first enemy piece if capturing."""
    targets = []
    f, r = sq
    for _ in range(max_steps):
        f, r = f + direction[0], r + direction[1]
        if not on_board(f, r):
            break
        piece = board.get((f, r))
        if piece is None:
            targets.append((f, r))
            continue
        if can_capture and colour_of(piece) != colour:
            targets.append((f, r))
        break
    return targets


def leap(board: Board, sq: Square, offsets, can_capture: bool, colour: str) -> list[Square]:
    targets = []
    for df, dr in offsets:
        f, r = sq[0] + df, sq[1] + dr
        if not on_board(f, r):
            continue
        piece = board.get((f, r))
        if piece is None or (can_capture and colour_of(piece) != colour):
            targets.append((f, r))
    return targets


def forward_diagonals(colour: str) -> tuple[tuple[int, int], ...]:
    d = forward(colour)
    return ((1, d), (-1, d))


# ----- cleopatra -----

def cleopatra_moves(pos: Position) -> list[Move]:
    board, us = pos.board, pos.turn
    moves: list[Move] = []
    for sq, piece in sorted(board.items()):
        if colour_of(piece) != us:
            continue
        kind = piece.upper()
        targets: list[Square] = []
        if kind == "P":
            # Straight ahead only, never a capture; two steps from the owner's second rank.
            d = forward(us)
            one = (sq[0], sq[1] + d)
            if on_board(*one) and one not in board:
                if one[1] == relative_rank(us, 8):
                    for promo in "nbrq":
                        moves.append((sq, one, promo))
                else:
                    moves.append((sq, one, ""))
                    two = (sq[0], sq[1] + 2 * d)
                    if sq[1] == relative_rank(us, 2) and two not in board:
                        moves.append((sq, two, ""))
            continue
        if kind == "N":
            targets = leap(board, sq, KNIGHT_LEAPS, False, us)
        elif kind == "K":
            targets = leap(board, sq, ALL_LINES, False, us)
        else:
            lines = {"B": DIAGONAL, "R": ORTHOGONAL, "Q": ALL_LINES}[kind]
            for line in lines:
                targets += slide(board, sq, line, 7, False, us)
        moves += [(sq, t, "") for t in targets]
    # Castling: only unmoved king and rook (the right) and empty squares between. No check rules.
    for right in sorted(pos.rights):
        if (right.isupper()) != (us == "w"):
            continue
        king_sq, _rook_sq, king_to, _rook_to, between = CASTLING[right]
        if all(s not in board for s in between):
            moves.append((king_sq, king_to, ""))
    return moves


def cleopatra_converts(board: Board, cleo_sq: Square) -> list[Square]:
    """Squares of the pieces the Cleopatra on ``cleo_sq`` converts: on each of its eight lines
    the first piece, when it belongs to the opponent and is not a Cleopatra."""
    us = colour_of(board[cleo_sq])
    converted = []
    for df, dr in ALL_LINES:
        f, r = cleo_sq[0] + df, cleo_sq[1] + dr
        while on_board(f, r) and (f, r) not in board:
            f, r = f + df, r + dr
        if on_board(f, r):
            piece = board[(f, r)]
            if colour_of(piece) != us and piece.upper() != "Q":
                converted.append((f, r))
    return converted


def cleopatra_play(pos: Position, move: Move) -> Position:
    new = pos.copy()
    board = new.board
    frm, to, promo = move
    piece = board.pop(frm)
    us = pos.turn
    assert to not in pos.board, "cleopatra has no captures"
    board[to] = (promo.upper() if us == "w" else promo) if promo else piece
    rights = set(pos.rights)
    # Castling: the king moves two files; bring the rook of that side over.
    if piece.upper() == "K" and abs(to[0] - frm[0]) == 2:
        for right, (king_sq, rook_sq, king_to, rook_to, _) in CASTLING.items():
            if king_sq == frm and king_to == to:
                board[rook_to] = board.pop(rook_sq)
    # A right is lost when its king or rook leaves its start square.
    for right, (king_sq, rook_sq, *_rest) in CASTLING.items():
        if frm in (king_sq, rook_sq):
            rights.discard(right)
    # Conversions by the Cleopatra that just moved (a pawn promoted to Q included).
    converted = []
    if board[to].upper() == "Q":
        converted = cleopatra_converts(board, to)
        for sq in converted:
            board[sq] = flip_colour(board[sq])
            # A converted king or rook loses its right; the new owner gains none.
            for right, (king_sq, rook_sq, *_rest) in CASTLING.items():
                if sq in (king_sq, rook_sq):
                    rights.discard(right)
    new.rights = clean_rights(board, pos.variant, rights)
    new.halfmove = 0 if (piece.upper() == "P" or converted) else pos.halfmove + 1
    new.fullmove = pos.fullmove + (1 if us == "b" else 0)
    new.turn = other(us)
    return new


# ----- cowsandbutterflies -----

def cow_is_unmoved(pos: Position, sq: Square, colour: str) -> bool:
    if sq[1] == relative_rank(colour, 1):
        return True   # cows only move forward: one on its first rank has never moved
    return sq in pos.rights


def cows_moves(pos: Position) -> list[Move]:
    board, us = pos.board, pos.turn
    d = forward(us)
    last_rank = relative_rank(us, 8)
    cow_promotion_rank = relative_rank(us, 7)
    moves: list[Move] = []
    for sq, piece in sorted(board.items()):
        if colour_of(piece) != us:
            continue
        kind = piece.upper()
        targets: list[Square] = []
        if kind == "A":      # fB2R2, non-jumping
            for line in ORTHOGONAL + forward_diagonals(us):
                targets += slide(board, sq, line, 2, True, us)
        elif kind == "M":    # Q, not royal
            for line in ALL_LINES:
                targets += slide(board, sq, line, 7, True, us)
        elif kind == "B":    # B3R3N
            for line in ALL_LINES:
                targets += slide(board, sq, line, 3, True, us)
            targets += leap(board, sq, KNIGHT_LEAPS, True, us)
        elif kind == "S":    # fB3R3, non-jumping; promotes to Monarch on the last rank
            for line in ORTHOGONAL + forward_diagonals(us):
                targets += slide(board, sq, line, 3, True, us)
            for t in targets:
                moves.append((sq, t, "m" if t[1] == last_rank else ""))
            continue
        elif kind == "C":    # mfF, cfW, and mfW while unmoved
            for df, dr in forward_diagonals(us):
                t = (sq[0] + df, sq[1] + dr)
                if on_board(*t) and t not in board:
                    targets.append(t)
            t = (sq[0], sq[1] + d)
            if on_board(*t):
                if t in board:
                    if colour_of(board[t]) != us:
                        targets.append(t)
                elif cow_is_unmoved(pos, sq, us):
                    targets.append(t)
            for t in targets:
                moves.append((sq, t, "b" if t[1] == cow_promotion_rank else ""))
            continue
        moves += [(sq, t, "") for t in targets]
    return moves


def cows_play(pos: Position, move: Move) -> Position:
    new = pos.copy()
    board = new.board
    frm, to, promo = move
    us = pos.turn
    piece = board.pop(frm)
    captured = board.get(to)
    board[to] = (promo.upper() if us == "w" else promo) if promo else piece
    # A cow that moves loses its first-move right, and so does a captured one.
    new.rights = clean_rights(board, pos.variant, pos.rights - {frm, to})
    new.halfmove = 0 if (captured is not None or piece.upper() == "C") else pos.halfmove + 1
    new.fullmove = pos.fullmove + (1 if us == "b" else 0)
    new.turn = other(us)
    return new


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------

def generate(pos: Position) -> list[Move]:
    if is_game_over(pos):
        return []
    return cows_moves(pos) if is_cows(pos.variant) else cleopatra_moves(pos)


def make(pos: Position, move: Move) -> Position:
    return cows_play(pos, move) if is_cows(pos.variant) else cleopatra_play(pos, move)


def legal_moves(variant: str, fen: str) -> list[str]:
    """All legal moves of the position, as sorted coordinate strings."""
    return sorted(move_text(m) for m in generate(parse_fen(variant, fen)))


def play(variant: str, fen: str, move: str) -> str:
    """FEN after ``move``. A promotion letter may be left out when the promotion is forced
    (only one legal move starts with the given text); anything else illegal raises ValueError."""
    pos = parse_fen(variant, fen)
    by_text = {move_text(m): m for m in generate(pos)}
    if move not in by_text:
        completions = [t for t in by_text if t.startswith(move) and len(t) == len(move) + 1]
        if len(completions) != 1:
            raise ValueError(f"illegal move {move!r} in {variant} position {fen!r}")
        move = completions[0]
    return to_fen(make(pos, by_text[move]))


def perft_position(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    moves = generate(pos)
    if depth == 1:
        return len(moves)
    return sum(perft_position(make(pos, m), depth - 1) for m in moves)


def perft(variant: str, fen: str, depth: int) -> int:
    """Leaf nodes of the legal-move tree; decided positions have no children."""
    return perft_position(parse_fen(variant, fen), depth)


def divide(variant: str, fen: str, depth: int) -> dict[str, int]:
    """Perft split by root move, for finding where two implementations disagree."""
    pos = parse_fen(variant, fen)
    return {move_text(m): perft_position(make(pos, m), depth - 1)
            for m in sorted(generate(pos), key=move_text)}
