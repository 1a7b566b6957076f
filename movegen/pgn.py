"""PGN for every variant: reading (jitfish's own files and XBoard's) and writing.

Tags follow the PGN standard and what variant GUIs add: ``Variant`` (jitfish's name; XBoard's
names such as ``normal`` are read too), ``FEN`` and ``SetUp`` for the start.  Moves are SAN
(``jitfish.movegen.san``); reading also takes coordinates.  Comments ``{...}`` are kept per
game, in order; variations ``(...)``, NAGs ``$n`` and ``;`` comments are skipped.

>>> from jitfish.movegen import Position
>>> pos = Position("modcourier"); _ = pos.push_san("e3")
>>> [g] = read_pgn(pos.pgn(White="a", Black="b"))
>>> g.tags["Variant"], g.moves
('modcourier', ['e3'])
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from .spec import resolve_name

__all__ = ["PgnGame", "read_pgn", "write_pgn", "variant_of_tag", "comment_text", "RESULTS"]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_TAG = re.compile(r'^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE_NUMBER = re.compile(r"^\d+\.+$")
_LINE = 79  # movetext line length, as the PGN standard asks (< 80)


@dataclass
class PgnGame:
    """A game read from PGN: its tags, the main-line move tokens, the result token and the
    comments in the order they came."""

    tags: dict[str, str]
    moves: list[str]
    result: str
    comments: list[str] = field(default_factory=list)

    @property
    def variant(self) -> str:
        """jitfish's name for the game's variant (from the ``Variant`` tag; chess without one)."""
        return variant_of_tag(self.tags.get("Variant"))


def variant_of_tag(tag: str | None) -> str:
    """A ``Variant`` tag -> jitfish's canonical name (``normal``/``standard``/none: chess)."""
    if not tag or tag.strip().lower() in ("standard", "chess", "normal", "from position"):
        return "chess"
    return resolve_name(tag)


def comment_text(text: str) -> str:
    """Text safe inside PGN braces (a comment cannot hold ``{`` or ``}``)."""
    return text.replace("{", "(").replace("}", ")").replace("\n", " ")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pgn(tags: Sequence[tuple[str, str]], moves: Sequence[str], result: str,
              start_fen: str | None = None, comments: Sequence[str] | None = None) -> str:
    """One game as PGN text: the tags in the order given, then the SAN moves numbered from
    ``start_fen``'s side to move and full-move number, each followed by its comment (when not
    empty), then the result.  ``comments`` may hold one more entry than ``moves``: a comment
    before the first move (used for a game with no moves)."""
    out = [f'[{k} "{_escape(v)}"]' for k, v in tags]
    fields = (start_fen or "").split()
    ply_side = 1 if len(fields) > 1 and fields[1] == "b" else 0
    n = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    comments = list(comments or [])
    tokens: list[str] = []
    if len(comments) > len(moves) and comments[len(moves)]:
        tokens.append("{" + comment_text(comments[len(moves)]) + "}")
    for i, mv in enumerate(moves):
        if ply_side == 0:
            tokens.append(f"{n}.")
        elif i == 0:
            tokens.append(f"{n}...")
        tokens.append(mv)
        if i < len(comments) and comments[i]:
            tokens.append("{" + comment_text(comments[i]) + "}")
        if ply_side == 1:
            n += 1
        ply_side ^= 1
    tokens.append(result)
    lines, cur = [], ""
    for tok in tokens:
        if cur and len(cur) + 1 + len(tok) > _LINE:
            lines.append(cur)
            cur = tok
        else:
            cur = f"{cur} {tok}" if cur else tok
    lines.append(cur)
    return "\n".join(out) + "\n\n" + "\n".join(lines) + "\n"


def read_pgn(text: str) -> list[PgnGame]:
    """Every game of a PGN text (tags, main-line moves, result); variations and NAGs skipped."""
    games: list[PgnGame] = []
    tags: dict[str, str] = {}
    body: list[str] = []

    def flush() -> None:
        if not tags and not "".join(body).strip():
            return
        moves, comments, result = _movetext("\n".join(body))
        games.append(PgnGame(dict(tags), moves, result or tags.get("Result", "*"), comments))

    in_body = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("%"):
            continue
        m = _TAG.match(line)
        if m and not _open_comment("\n".join(body)):
            if in_body:
                flush()
                tags, body, in_body = {}, [], False
            tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
            continue
        if line:
            in_body = True
        body.append(raw)
        if in_body and re.search(r"(^|\s)(1-0|0-1|1/2-1/2|\*)\s*$", line) and not _open_comment("\n".join(body)):
            flush()
            tags, body, in_body = {}, [], False
    flush()
    return games


def _open_comment(text: str) -> bool:
    """Whether ``text`` ends inside a ``{...}`` comment (comments do not nest: the first ``}``
    closes one, a ``{`` inside it is text)."""
    inside = False
    for ch in text:
        if ch == "{" and not inside:
            inside = True
        elif ch == "}" and inside:
            inside = False
    return inside


def _movetext(text: str) -> tuple[list[str], list[str], str]:
    moves: list[str] = []
    comments: list[str] = []
    result = ""
    i, n, depth = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == "{":
            j = text.find("}", i)
            j = n if j < 0 else j
            if depth == 0:
                comments.append(text[i + 1:j].strip())
            i = j + 1
        elif c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif c == "(":
            depth += 1
            i += 1
        elif c == ")":
            depth = max(0, depth - 1)
            i += 1
        elif c.isspace():
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "{};()":
                j += 1
            tok = text[i:j]
            i = j
            if depth:
                continue
            if tok in RESULTS:
                result = tok
                continue
            if tok.startswith("$"):
                continue
            tok = re.sub(r"^\d+\.+", "", tok)  # "1.e4" and "1...e5"
            if not tok or _MOVE_NUMBER.match(tok):
                continue
            moves.append(tok)
    return moves, comments, result
