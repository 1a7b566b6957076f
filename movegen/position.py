"""Typed Python API over the kernels: variants, positions, FEN, moves, perft.

>>> from jitfish.movegen import Position
>>> pos = Position("courier")
>>> pos.perft(2)
678
>>> _ = pos.push("f2f3"); pos.fen()
'rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/5PF5/1PPPP2PPPP1/RNEBMK1WBENR b - - 0 1'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import chess
import numpy as np

from . import kernels as K
from . import san as _san
from .errors import FenError, MoveError
from .kernels import Pos
from .pgn import PgnGame, variant_of_tag, write_pgn
from .spec import VariantError, VariantSpec, load_spec, variant_file
from .tables import MAXSQ, Tables, build_tables

__all__ = [
    "Square", "Move", "Variant", "Pos", "Position", "load_variant",
    "FenError", "MoveError", "square_name", "parse_square", "MAXGAME", "COLOUR_NAMES",
]

Square = int
Move = int  # encoded as in kernels.py
COLOUR_NAMES = ("White", "Black")
MAXGAME = 8192  # plies of history a Position can hold


def square_name(s: Square, files: int) -> str:
    return "abcdefghijklmnop"[s % files] + str(s // files + 1)


_DIGITS = "0123456789"
_SQ = re.compile(r"([a-p])(\d{1,2})$")


def parse_square(text: str, files: int, ranks: int) -> Square:
    m = _SQ.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a square")
    f, r = ord(m.group(1)) - 97, int(m.group(2)) - 1
    if not (0 <= f < files and 0 <= r < ranks):
        raise ValueError(f"square {text!r} is off the {files}x{ranks} board")
    return r * files + f


def _parse_placement(text: str, spec: VariantSpec) -> dict[Square, tuple[int, int]]:
    """Board field -> {square: (type, colour)}; FenError on any fault."""
    letters = {p.letter: i for i, p in enumerate(spec.pieces)}
    promoted = {base: letter for letter, base in spec.xboard.promoted}  # base -> its promoted form
    rows = text.split("/")
    if len(rows) != spec.ranks:
        raise FenError(f"board has {len(rows)} ranks, {spec.name} needs {spec.ranks}")
    out: dict[Square, tuple[int, int]] = {}
    for i, row in enumerate(rows):
        rank = spec.ranks - 1 - i
        f = 0
        j = 0
        while j < len(row):
            ch = row[j]
            if ch in _DIGITS:
                k = j
                while k < len(row) and row[k] in _DIGITS:
                    k += 1
                n = int(row[j:k])
                if n == 0:
                    raise FenError(f"rank {rank + 1}: empty-square count 0")
                f += n
                j = k
                continue
            if ch == "+" and j + 1 < len(row):
                # a promoted form as XBoard writes it: "+C" is the piece declared the promoted C
                base = row[j + 1]
                target = promoted.get(base.upper())
                if target is None:
                    raise FenError(f"'+{base}': no piece of {spec.name} is the promoted form of {base.upper()!r}")
                j += 1
                ch = target if base.isupper() else target.lower()
            up = ch.upper()
            if not ch.isalpha() or up not in letters:
                raise FenError(f"unknown piece letter {ch!r} for {spec.name} (knows {''.join(letters)})")
            if f >= spec.files:
                raise FenError(f"rank {rank + 1} has more than {spec.files} squares")
            out[rank * spec.files + f] = (letters[up], 0 if ch.isupper() else 1)
            f += 1
            j += 1
        if f != spec.files:
            raise FenError(f"rank {rank + 1} has {f} squares, {spec.name} needs {spec.files}")
    return out


@dataclass(frozen=True)
class Variant:
    """A loaded variant: its validated spec and the tables its kernels read."""

    spec: VariantSpec
    tables: Tables

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def files(self) -> int:
        return self.spec.files

    @property
    def ranks(self) -> int:
        return self.spec.ranks

    def type_of(self, letter: str) -> int:
        return self.spec.letters.index(letter.upper())


@lru_cache(maxsize=None)
def _load(path: str, _mtime_ns: int) -> Variant:
    spec = load_spec(path)
    try:
        start = _parse_placement(spec.start_fen.split()[0], spec)
    except FenError as exc:
        raise VariantError(f"{spec.name}: start_fen: {exc}") from None
    return Variant(spec, build_tables(spec, start))


def load_variant(name: str) -> Variant:
    """Load a known variant by name or alias, or a variant file by path (cached; a file
    changed on disk since is loaded again)."""
    p = Path(name)
    path = p if p.suffix == ".toml" or (p.parent != Path(".") and p.exists()) else variant_file(name)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        raise VariantError(f"{path}: no such variant file") from None
    return _load(str(path.resolve()), mtime)


class Position:
    """A position of some variant, with its move history (for unmake and repetition).

    Raises FenError for a bad FEN and MoveError for a bad move, never anything else.
    """

    def __init__(self, variant: str | Variant = "chess", fen: str | None = None):
        self.variant = variant if isinstance(variant, Variant) else load_variant(variant)
        self.tab = self.variant.tables
        self.spec = self.variant.spec
        self.set_fen(self.spec.start_fen if fen is None else fen)

    @property
    def pos(self) -> Pos:
        """The position's arrays; kernels take them with the tables as the bundle ``b``."""
        return self._pos

    @pos.setter
    def pos(self, value: Pos) -> None:
        self._pos = value
        self.b = K.pack_board(value, self.tab)  # addresses of value's arrays, which self keeps

    def __deepcopy__(self, memo) -> "Position":
        return self.copy()  # a copied bundle would still point at this position's arrays

    # -- FEN -------------------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Set the position from a FEN (the rights and en-passant fields may be left out)."""
        self.pos = self._parse_fen(fen)
        self.history: list[Move] = []
        self.start_fen = self.fen()

    def _parse_fen(self, fen: str) -> Pos:
        spec, tab = self.spec, self.tab
        if not isinstance(fen, str) or not fen.strip():
            raise FenError("empty FEN")
        parts = fen.split()
        if len(parts) > 6:
            raise FenError(f"FEN has {len(parts)} fields, at most 6")
        if len(parts) < 2:
            raise FenError("FEN needs at least the board and the side to move")
        # XBoard may send "board side half full" without rights and en passant
        if len(parts) == 4 and re.fullmatch(r"[0-9]+", parts[2]) and re.fullmatch(r"[0-9]+", parts[3]):
            parts = [parts[0], parts[1], "-", "-", parts[2], parts[3]]
        while len(parts) < 6:
            parts.append(["-", "-", "0", "1"][len(parts) - 2])
        placement, side, rights, ep, half, full = parts
        pieces = _parse_placement(placement, spec)
        if side not in ("w", "b"):
            raise FenError(f"side to move must be w or b, not {side!r}")
        if not re.fullmatch(r"[0-9]+", half):
            raise FenError(f"halfmove clock must be a number >= 0, not {half!r}")
        if not re.fullmatch(r"[0-9]+", full) or int(full) < 1:
            raise FenError(f"fullmove number must be a number >= 1, not {full!r}")
        F, R = spec.files, spec.ranks
        T = len(spec.pieces)
        bb = np.zeros((T + 3, 2), np.uint64)
        board = np.zeros(MAXSQ, np.int64)
        cnt = np.zeros((2, T), np.int64)
        for s, (t, c) in pieces.items():
            board[s] = 1 + 2 * t + c
            bb[c, s >> 6] |= np.uint64(1) << np.uint64(s & 63)
            bb[K.ROW_TYPE + t, s >> 6] |= np.uint64(1) << np.uint64(s & 63)
            cnt[c, t] += 1

        def rel_rank(s: Square, c: int) -> int:
            return s // F + 1 if c == 0 else R - s // F

        colour_name = COLOUR_NAMES
        # pieces where they cannot stand
        for s, (t, c) in sorted(pieces.items()):
            p = spec.pieces[t]
            rr = rel_rank(s, c)
            if p.promotes_to and p.promotion == "mandatory" and rr in p.promotion_ranks:
                raise FenError(f"{colour_name[c]} {p.name} on {square_name(s, F)}, a promotion rank")
            if p.initial == "rank" and p.initial_ranks and rr < min(p.initial_ranks):
                raise FenError(f"{colour_name[c]} {p.name} on {square_name(s, F)}, behind its first rank")
        ksq = [-1, -1]
        if spec.royal:
            rt = spec.letters.index(spec.royal)
            for c in (0, 1):
                sqs = [s for s, tc in pieces.items() if tc == (rt, c)]
                if spec.check and len(sqs) != 1:
                    what = "no" if not sqs else f"{len(sqs)}"
                    raise FenError(f"{what} {colour_name[c]} {spec.piece(spec.royal).name}"
                                   f"{'s' if len(sqs) != 1 else ''}; {spec.name} needs exactly one")
                if len(sqs) == 1:
                    ksq[c] = sqs[0]
        # rights field
        unmoved = set()
        if spec.rights_field == "none":
            if rights != "-":
                raise FenError(f"bad rights field {rights!r}: {spec.name} has none (write '-')")
        elif spec.rights_field == "castling":
            if rights != "-":
                if len(set(rights)) != len(rights) or any(ch not in "KQkq" for ch in rights):
                    raise FenError(f"bad rights field {rights!r}: castling rights are a subset of KQkq or '-'")
                for ch in rights:
                    c = 0 if ch.isupper() else 1
                    side_ = 0 if ch.upper() == "K" else 1
                    kfr, _, rfr, _ = (int(x) for x in tab.castle[c, side_])
                    if board[kfr] != 1 + 2 * spec.letters.index(spec.royal) + c:
                        raise FenError(f"bad rights field {rights!r}: {ch!r} but no {colour_name[c]} king on {square_name(kfr, F)}")
                    if board[rfr] != 1 + 2 * spec.letters.index(spec.castling_rook) + c:
                        raise FenError(f"bad rights field {rights!r}: {ch!r} but no {colour_name[c]} rook on {square_name(rfr, F)}")
                    unmoved.update((kfr, rfr))
        else:  # files: second-rank tracked pieces that have not moved
            listed: set[tuple[int, int]] = set()
            if rights != "-":
                for ch in rights:
                    if not ch.isalpha() or not ("a" <= ch.lower() < chr(97 + F)):
                        raise FenError(f"bad rights field {rights!r}: {ch!r} is not a file of this board")
                    c = 0 if ch.isupper() else 1
                    f = ord(ch.lower()) - 97
                    if (f, c) in listed:
                        raise FenError(f"bad rights field {rights!r}: {ch!r} given twice")
                    listed.add((f, c))
                    ok = False
                    for t, p in enumerate(spec.pieces):
                        for rr in p.rights_ranks:
                            r = rr - 1 if c == 0 else R - rr
                            if pieces.get(r * F + f) == (t, c):
                                unmoved.add(r * F + f)
                                ok = True
                    if not ok:
                        raise FenError(f"bad rights field {rights!r}: no {colour_name[c]} piece with a first-move right on the {ch.lower()}-file")
        for s, (t, c) in pieces.items():
            p = spec.pieces[t]
            if p.initial == "tracked" and rel_rank(s, c) in p.unmoved_ranks:
                unmoved.add(s)
        for s in unmoved:
            bb[K.ROW_UNMOVED, s >> 6] |= np.uint64(1) << np.uint64(s & 63)
        st = np.zeros(K.N_ST, np.int64)
        st[K.ST_SIDE] = 0 if side == "w" else 1
        st[K.ST_EP] = -1
        st[K.ST_HALF] = int(half)
        st[K.ST_FULL] = int(full)
        st[K.ST_KSQ] = ksq[0]
        st[K.ST_KSQ + 1] = ksq[1]
        pos = Pos(bb, board, cnt, st, np.zeros(MAXGAME, np.uint64),
                  np.zeros((MAXGAME, K.N_UNDO), np.int64), np.zeros((MAXGAME, K.N_UNDO_BB), np.uint64),
                  np.zeros(64, np.int64), np.zeros((K.DIRTY_RING, 1 + K.DIRTY_MAX), np.int64))
        if ep != "-":
            if not any(p.en_passant for p in spec.pieces):
                raise FenError(f"bad en-passant field {ep!r}: {spec.name} has no en passant")
            try:
                eps = parse_square(ep, F, R)
            except ValueError as exc:
                raise FenError(f"bad en-passant field: {exc}") from None
            us = st[K.ST_SIDE]
            behind = eps - F if us == 0 else eps + F  # where the double-stepped piece stands
            mover = 1 - us
            if rel_rank(eps, mover) != 3 or board[eps] != 0 or not (0 <= behind < F * R) \
                    or board[behind] == 0 or (board[behind] - 1) & 1 != mover \
                    or not spec.pieces[(board[behind] - 1) >> 1].en_passant:
                raise FenError(f"bad en-passant field {ep!r}: no {colour_name[mover]} pawn just passed it")
            if K.probe(K.pack_board(pos, tab), K.PROBE_EP, np.int64(eps)):
                st[K.ST_EP] = eps
        if spec.check:
            them = 1 - st[K.ST_SIDE]
            if K.probe(K.pack_board(pos, tab), K.PROBE_KING_EXPOSED, np.int64(ksq[them])):
                raise FenError(f"the side to move can capture the {colour_name[them]} {spec.piece(spec.royal).name}")
        pos.keys[0] = K.full_key(K.pack_board(pos, tab))
        return pos

    def fen(self) -> str:
        """The position as FEN; en passant is written only when a legal capture exists."""
        spec, tab, pos = self.spec, self.tab, self.pos
        F, R = spec.files, spec.ranks
        rows = []
        for r in range(R - 1, -1, -1):
            row, empty = "", 0
            for f in range(F):
                code = int(pos.board[r * F + f])
                if code == 0:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                ch = spec.pieces[(code - 1) >> 1].letter
                row += ch if (code - 1) & 1 == 0 else ch.lower()
            if empty:
                row += str(empty)
            rows.append(row)
        un = self._unmoved()
        rights = ""
        if spec.rights_field == "castling":
            for c, letters in ((0, "KQ"), (1, "kq")):
                for side_ in (0, 1):
                    kfr, _, rfr, _ = (int(x) for x in tab.castle[c, side_])
                    if kfr in un and rfr in un:
                        rights += letters[side_]
        elif spec.rights_field == "files":
            for c in (0, 1):
                files = []
                for s in sorted(un):
                    code = int(pos.board[s])
                    if code and (code - 1) & 1 == c:
                        p = spec.pieces[(code - 1) >> 1]
                        rr = s // F + 1 if c == 0 else R - s // F
                        if rr in p.rights_ranks:
                            files.append("abcdefghijklmnop"[s % F])
                rights += "".join(sorted(files)).upper() if c == 0 else "".join(sorted(files))
        ep = "-"
        eps = int(pos.st[K.ST_EP])
        if eps >= 0 and any(K.move_kind(m) == K.KIND_EP for m in self.legal_moves()):
            ep = square_name(eps, F)
        side = "w" if pos.st[K.ST_SIDE] == 0 else "b"
        return f"{'/'.join(rows)} {side} {rights or '-'} {ep} {int(pos.st[K.ST_HALF])} {int(pos.st[K.ST_FULL])}"

    def _unmoved(self) -> set[Square]:
        out = set()
        for w in range(2):
            b = int(self.pos.bb[K.ROW_UNMOVED, w])
            while b:
                low = b & -b
                out.add(low.bit_length() - 1 + 64 * w)
                b ^= low
        return out

    def piece_at(self, square: Square) -> str | None:
        """The FEN letter of the piece on ``square`` (upper case White), None if empty."""
        code = int(self.pos.board[square])
        if code == 0:
            return None
        letter = self.spec.pieces[(code - 1) >> 1].letter
        return letter if (code - 1) & 1 == 0 else letter.lower()

    def piece_count(self) -> int:
        """Pieces on the board, both colours."""
        return int(self.pos.cnt.sum())

    # -- moves -----------------------------------------------------------------------------

    @property
    def turn(self) -> int:
        """0 White, 1 Black."""
        return int(self.pos.st[K.ST_SIDE])

    def legal_moves(self) -> list[Move]:
        out = np.zeros(K.MAXMOVES, np.int64)
        n = K.generate(self.b, out, K.GEN_ALL)
        return [int(m) for m in out[:n]]

    def count_legal(self) -> int:
        return int(K.generate(self.b, np.zeros(1, np.int64), K.GEN_COUNT))

    def move_name(self, m: Move) -> str:
        F = self.spec.files
        text = square_name(K.move_from(m), F) + square_name(K.move_to(m), F)
        promo = K.move_promo(m)
        if promo:
            text += self.spec.pieces[promo - 1].letter.lower()
        return text

    def parse_move(self, text: str) -> Move:
        """Coordinate move text -> the legal move it names, or MoveError saying why not."""
        spec, F = self.spec, self.spec.files
        raw = text.strip() if isinstance(text, str) else ""
        m = re.fullmatch(r"([a-p]\d{1,2})([a-p]\d{1,2})([a-z]?)", raw)
        if not m:
            raise MoveError(f"malformed move {text!r}: expected from-square, to-square and an optional promotion letter, like e2e4 or e7e8q")
        try:
            fr = parse_square(m.group(1), F, spec.ranks)
            to = parse_square(m.group(2), F, spec.ranks)
        except ValueError as exc:
            raise MoveError(f"malformed move {text!r}: {exc}") from None
        letter = m.group(3)
        code = int(self.pos.board[fr])
        if code == 0:
            raise MoveError(f"illegal move {raw}: no piece on {m.group(1)}")
        if (code - 1) & 1 != self.turn:
            raise MoveError(f"illegal move {raw}: the piece on {m.group(1)} is not the side to move's")
        if letter and letter.upper() not in spec.letters:
            raise MoveError(f"illegal move {raw}: {letter!r} is not a piece of {spec.name}")
        matches = [mv for mv in self.legal_moves() if K.move_from(mv) == fr and K.move_to(mv) == to]
        if not matches:
            if self.is_over():
                raise MoveError(f"illegal move {raw}: the game is over")
            raise MoveError(f"illegal move {raw}")
        if letter:
            t = spec.letters.index(letter.upper())
            for mv in matches:
                if K.move_promo(mv) == t + 1:
                    return mv
            raise MoveError(f"illegal move {raw}: cannot promote to {letter!r} here")
        plain = [mv for mv in matches if K.move_promo(mv) == 0]
        if plain:
            return plain[0]
        if len(matches) == 1:  # forced single promotion choice: the letter may be left out
            return matches[0]
        opts = ",".join(sorted(self.move_name(mv)[-1] for mv in matches))
        raise MoveError(f"illegal move {raw}: a promotion letter is needed ({opts})")

    @classmethod
    def from_pgn(cls, game: PgnGame, variant: str | None = None) -> "Position":
        """The start of a PGN game: its ``FEN`` tag (else the variant's start), in its
        ``Variant`` tag's variant unless ``variant`` is given; FenError/VariantError."""
        return cls(variant or variant_of_tag(game.tags.get("Variant")), game.tags.get("FEN") or None)

    def san(self, move: Move, legal: list[Move] | None = None) -> str:
        """Standard algebraic notation of a legal move (``jitfish.movegen.san``)."""
        return _san.san(self, move, legal)

    def parse_san(self, text: str) -> Move:
        """SAN of this variant or coordinates -> the legal move, else MoveError."""
        return _san.parse_san(self, text)

    def parse_coordinates(self, text: str) -> Move:
        """Coordinates as engines send them (``e7e8=Q``, ``O-O`` too) -> the legal move."""
        return _san.parse_coordinates(self, text)

    def push_san(self, text: str) -> Move:
        """Play a move given in SAN or coordinates; returns it."""
        return self.push(self.parse_san(text))

    def pgn(self, result: str | None = None, **tags: str) -> str:
        """The game from ``start_fen`` through the moves played, as PGN: the seven standard
        tags (``?`` unless given), then ``Variant``, ``FEN``/``SetUp`` and any others given.
        ``result`` defaults to the rules' verdict, else ``*``."""
        if result is None:
            verdict = self.outcome()
            result = verdict[0] if verdict else "*"
        head = [(k, tags.pop(k, "?")) for k in ("Event", "Site", "Date", "Round", "White", "Black")]
        head[2] = ("Date", head[2][1] if head[2][1] != "?" else "????.??.??")
        head += [("Result", result), ("Variant", self.spec.name)]
        if self.start_fen != self.spec.start_fen or self.spec.name != "chess":
            head += [("FEN", self.start_fen), ("SetUp", "1")]
        head += list(tags.items())
        replay = Position(self.variant, self.start_fen)
        moves = []
        for m in self.history:
            moves.append(replay.san(m))
            replay.push(m)
        return write_pgn(head, moves, result, self.start_fen)

    def push(self, move: str | Move) -> Move:
        """Play a move given as text (checked) or as a legal encoded move."""
        m = self.parse_move(move) if isinstance(move, str) else int(move)
        if len(self.history) >= MAXGAME - 2:
            raise MoveError("game too long for this position's history")
        K.make_move(self.b, m)
        self.history.append(m)
        return m

    def pop(self) -> Move:
        if not self.history:
            raise MoveError("no move to take back")
        K.unmake_move(self.b)
        return self.history.pop()

    # -- state -----------------------------------------------------------------------------

    @property
    def key(self) -> int:
        return int(self.pos.keys[self.pos.st[K.ST_PLY]])

    def is_check(self) -> bool:
        return bool(K.probe(self.b, K.PROBE_CHECK, np.int64(0)))

    def is_over(self) -> bool:
        """Decided by a variant rule (no Ace left, King converted, courier's bare king):
        no legal moves."""
        return K.probe(self.b, K.PROBE_VERDICT, np.int64(0)) != 0

    def repetitions(self) -> int:
        """How often the current position (pieces, side, rights, en passant) occurred before,
        within the plies since the last irreversible move."""
        st, keys = self.pos.st, self.pos.keys
        ply = int(st[K.ST_PLY])
        now = keys[ply]
        back = min(int(st[K.ST_HALF]), ply)
        return sum(1 for i in range(ply - 2, ply - back - 1, -2) if keys[i] == now)

    def outcome(self) -> tuple[str, str] | None:
        """The game's verdict under this variant's rules, or None while it goes on.

        Returns (result, reason), result "1-0", "0-1" or "1/2-1/2":
        checkmate, stalemate (draw or loss per variant), extinction (Aces captured, King
        converted), courier's bare king, the 50-move rule and threefold repetition.
        """
        spec = self.spec
        us = self.turn
        colour = COLOUR_NAMES
        win = ("1-0", "0-1")
        v = int(K.probe(self.b, K.PROBE_VERDICT, np.int64(0)))
        if v:
            winner = us if v > 0 else 1 - us
            loser = 1 - winner
            if spec.extinction:
                left = sum(int(self.pos.cnt[loser, spec.letters.index(ch)]) for ch in spec.extinction)
                if left == 0:
                    what = "/".join(spec.piece(ch).name.capitalize() + "s" for ch in spec.extinction)
                    verb = "converted" if spec.conversion else "captured"
                    return win[winner], f"{colour[loser]}'s {what} {verb}"
            return win[winner], f"{colour[loser]} has a bare king"
        if self.count_legal() == 0:
            if self.is_check():
                return win[1 - us], f"{colour[1 - us]} mates"
            if spec.stalemate == "loss":
                return win[1 - us], f"{colour[us]} is stalemated"
            return "1/2-1/2", "Stalemate"
        if spec.insufficient_material:
            # python-chess decides FIDE's insufficient material (RULES.md: chess as python-chess)
            if chess.Board(self.fen()).is_insufficient_material():
                return "1/2-1/2", "Insufficient material"
        if int(self.pos.st[K.ST_HALF]) >= spec.fifty_move_plies:
            return "1/2-1/2", "50-move rule"
        if self.repetitions() >= 2:
            return "1/2-1/2", "Threefold repetition"
        return None

    def copy(self) -> "Position":
        other = Position.__new__(Position)
        other.variant, other.tab, other.spec = self.variant, self.tab, self.spec
        other.pos = Pos(*(a.copy() for a in self.pos))
        other.history = list(self.history)
        other.start_fen = self.start_fen
        return other

    # -- perft -----------------------------------------------------------------------------

    def perft(self, depth: int) -> int:
        """Leaf nodes of the legal move tree (game-end rules of the variant apply)."""
        if depth < 0:
            raise ValueError("depth must be >= 0")
        moves = np.zeros((max(depth, 1), K.MAXMOVES), np.int64)
        stack = np.zeros((2, max(depth, 1)), np.int64)
        return int(K.perft(self.b, np.int64(depth), moves, stack))

    def divide_iter(self, depth: int):
        """``(move name, perft below it)`` for each legal root move in turn (the one loop
        behind ``divide``, ``jitfish perft --divide`` and both protocols' perft commands, which
        print or stop between root moves)."""
        if depth < 1:
            raise ValueError("divide needs depth >= 1")
        for m in self.legal_moves():
            self.push(m)
            try:
                n = self.perft(depth - 1)
            finally:
                self.pop()
            yield self.move_name(m), n

    def divide(self, depth: int) -> dict[str, int]:
        """Perft below each legal root move, keyed by move text."""
        return dict(self.divide_iter(depth))
