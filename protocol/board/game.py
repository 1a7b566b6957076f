"""One game on the board: the position (the rules are ``Position``'s), its line of moves with a
cursor (replay and take back move the cursor; a new move cuts the line there), and what the page
is sent after each change.

>>> g = BoardGame("cleopatra", "4k3/8/8/3n4/8/8/8/3QK3 w - - 0 1")
>>> g.play("d1d4")["changes"]["converted"]
['d5']
>>> g.state()["fen"]
'4k3/8/8/3N4/3Q4/8/8/4K3 b - - 0 1'
"""
from __future__ import annotations

from dataclasses import dataclass, field

from jitfish.movegen import Move, MoveError, Position
from jitfish.movegen import kernels as K
from jitfish.movegen.position import square_name

from .pieces import describe_variant

__all__ = ["BoardGame", "MoveNote"]


@dataclass
class MoveNote:
    """One played move as the page shows it: coordinates, SAN, what it changed, the engine's
    comment (score/depth) when an engine played it."""

    move: Move
    name: str
    san: str
    changes: dict
    comment: str = ""


@dataclass
class BoardGame:
    """A game: start position, the line of moves and the cursor into it."""

    variant: str
    fen: str | None = None
    tags: dict = field(default_factory=dict)
    result_override: tuple[str, str] | None = None  # a result the rules do not see (a PGN's, a match's)

    def __post_init__(self) -> None:
        self.pos = Position(self.variant, self.fen)  # FenError / VariantError go to the caller
        self.start_fen = self.pos.fen()
        self.line: list[MoveNote] = []
        self.cursor = 0
        self.view = describe_variant(self.pos.spec)

    # -- moves ---------------------------------------------------------------------------------

    def _note(self, m: Move) -> MoveNote:
        """Play ``m`` (legal) on ``self.pos`` and say what it changed."""
        pos, spec = self.pos, self.pos.spec
        F = spec.files
        n = F * spec.ranks
        before = [pos.piece_at(s) for s in range(n)]
        san = pos.san(m)
        name = pos.move_name(m)
        mover = pos.turn
        pos.push(m)
        after = [pos.piece_at(s) for s in range(n)]
        fr, to = K.move_from(m), K.move_to(m)
        converted, captured = [], []
        for s in range(n):
            b, a = before[s], after[s]
            if b and a and s not in (fr, to) and b.lower() == a.lower() and b != a:
                converted.append(square_name(s, F))
        # pieces of the side not moving that left the board (a capture, en passant too)
        def count(board, colour):
            out: dict[str, int] = {}
            for x in board:
                if x and (x.isupper() == (colour == 0)):
                    out[x.upper()] = out.get(x.upper(), 0) + 1
            return out
        them_before, them_after = count(before, 1 - mover), count(after, 1 - mover)
        for letter, k in them_before.items():
            lost = k - them_after.get(letter, 0) - sum(1 for s in converted if before[_sq(s, F)].upper() == letter)
            for _ in range(max(0, lost)):
                captured.append(spec.piece(letter).name)
        promo = K.move_promo(m)
        changes = {"from": square_name(fr, F), "to": square_name(to, F), "converted": converted,
                   "captured": captured,
                   "promoted": spec.pieces[promo - 1].name if promo else "",
                   "mover": mover}
        return MoveNote(m, name, san, changes)

    def play(self, text: str | Move, comment: str = "") -> dict:
        """Play a move (coordinates, SAN, or an encoded legal move) at the cursor; the line after
        the cursor is dropped. MoveError (with the reason) if it is not legal here."""
        if isinstance(text, str):
            verdict = self.outcome()
            if verdict is not None:
                raise MoveError(f"illegal move {text}: the game is over ({verdict[1]})")
            m = self.pos.parse_coordinates(text) if _looks_like_coordinates(text) else self.pos.parse_san(text)
        else:
            m = int(text)
            if m not in self.pos.legal_moves():
                raise MoveError(f"illegal move {self.pos.move_name(m)}")
        if self.cursor < len(self.line):
            del self.line[self.cursor:]
            self.result_override = None
        note = self._note(m)
        note.comment = comment
        self.line.append(note)
        self.cursor += 1
        return {"changes": note.changes, "san": note.san}

    def goto(self, ply: int) -> None:
        """Move the cursor to ``ply`` (0 = the start) within the line."""
        ply = max(0, min(int(ply), len(self.line)))
        while self.cursor > ply:
            self.pos.pop()
            self.cursor -= 1
        while self.cursor < ply:
            self.pos.push(self.line[self.cursor].move)
            self.cursor += 1

    def take_back(self, plies: int = 1) -> None:
        """Take back moves: the line is cut at the new cursor."""
        if self.cursor == 0:
            raise MoveError("no move to take back")
        self.goto(self.cursor - plies)
        del self.line[self.cursor:]
        self.result_override = None

    def moves_played(self) -> list[str]:
        """Coordinate moves from the start up to the cursor (what an engine is sent)."""
        return [n.name for n in self.line[:self.cursor]]

    # -- verdicts and the page's view ----------------------------------------------------------

    def outcome(self) -> tuple[str, str] | None:
        v = self.pos.outcome()
        if v is None and self.result_override and self.cursor == len(self.line):
            return self.result_override
        return v

    def legal(self) -> dict[str, list[list[str]]]:
        """origin -> [[destination, promotion letter or ''], ...]"""
        F = self.pos.spec.files
        out: dict[str, list[list[str]]] = {}
        if self.outcome() is not None:
            return out
        for m in self.pos.legal_moves():
            promo = K.move_promo(m)
            letter = self.pos.spec.pieces[promo - 1].letter.lower() if promo else ""
            out.setdefault(square_name(K.move_from(m), F), []).append([square_name(K.move_to(m), F), letter])
        return out

    def check_square(self) -> str:
        spec = self.pos.spec
        if not spec.check or not spec.royal or not self.pos.is_check():
            return ""
        want = spec.royal if self.pos.turn == 0 else spec.royal.lower()
        for s in range(spec.files * spec.ranks):
            if self.pos.piece_at(s) == want:
                return square_name(s, spec.files)
        return ""

    def board(self) -> dict[str, str]:
        spec = self.pos.spec
        out = {}
        for s in range(spec.files * spec.ranks):
            p = self.pos.piece_at(s)
            if p:
                out[square_name(s, spec.files)] = p
        return out

    def san_line(self, pv: list[str]) -> list[str]:
        """Engine move names -> SAN from the current position (stops at the first bad one)."""
        p = self.pos.copy()
        out = []
        for text in pv:
            try:
                m = p.parse_coordinates(text)
            except MoveError:
                break
            out.append(p.san(m))
            p.push(m)
        return out

    def state(self) -> dict:
        verdict = self.outcome()
        last = self.line[self.cursor - 1].changes if self.cursor else None
        return {"variant": self.view, "fen": self.pos.fen(), "turn": self.pos.turn,
                "board": self.board(), "legal": self.legal(), "check": self.check_square(),
                "last": last, "result": list(verdict) if verdict else None,
                "moves": [{"san": n.san, "name": n.name, "comment": n.comment} for n in self.line],
                "ply": self.cursor, "start_fen": self.start_fen,
                "fullmove": int(self.start_fen.split()[-1]) if self.start_fen.split()[-1].isdigit() else 1,
                "start_turn": 0 if self.start_fen.split()[1] == "w" else 1}

    def pgn(self, **tags: str) -> str:
        """The game up to the cursor as PGN (the rules' result, else the override, else ``*``)."""
        verdict = self.outcome()
        all_tags = {**self.tags, **tags}
        all_tags.pop("Result", None)
        for k in ("Variant", "FEN", "SetUp"):
            all_tags.pop(k, None)
        return self.pos.pgn(result=verdict[0] if verdict else "*", **all_tags)


def _sq(name: str, files: int) -> int:
    return (int(name[1:]) - 1) * files + ord(name[0]) - 97


def _looks_like_coordinates(text: str) -> bool:
    t = text.strip()
    return len(t) >= 4 and t[0].isalpha() and t[0].islower() and t[1].isdigit() and "x" not in t[:3]

