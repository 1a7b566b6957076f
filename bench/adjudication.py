"""Adjudication of match games from the engines' scores (cutechess's ``-draw``, ``-resign``,
``-maxmoves``)."""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Adjudication", "AdjudicationState"]

COLOUR = ("White", "Black")


@dataclass(frozen=True)
class Adjudication:
    """Optional early ends from the engines' scores (cutechess's ``-draw``/``-resign``/``-maxmoves``).

    draw: after full move ``draw_movenumber``, when both engines' scores stayed within
    +-``draw_score`` cp for ``draw_movecount`` consecutive moves each; resign: when an engine's
    own score was <= -``resign_score`` for ``resign_movecount`` consecutive moves of its own
    (``twosided``: and its opponent's >= ``resign_score``); maxmoves: a draw after that many
    full moves.
    """

    draw_movenumber: int | None = None
    draw_movecount: int = 0
    draw_score: int = 0
    resign_movecount: int | None = None
    resign_score: int = 0
    resign_twosided: bool = False
    maxmoves: int | None = None

    @staticmethod
    def _kv(text: str, keys: set[str], what: str) -> dict[str, str]:
        out = {}
        for part in re.split(r"[,\s]+", text.strip()):
            if not part:
                continue
            if "=" not in part:
                raise ValueError(f"bad --{what} {text!r}: expected key=value pairs ({', '.join(sorted(keys))})")
            k, v = part.split("=", 1)
            if k not in keys:
                raise ValueError(f"bad --{what}: unknown key {k!r} ({', '.join(sorted(keys))})")
            out[k] = v
        return out

    @staticmethod
    def build(draw: str | None, resign: str | None, maxmoves: int | None) -> "Adjudication":
        kw: dict = {"maxmoves": maxmoves}
        if draw:
            d = Adjudication._kv(draw, {"movenumber", "movecount", "score"}, "draw")
            kw.update(draw_movenumber=int(d.get("movenumber", 0)), draw_movecount=int(d.get("movecount", 1)),
                      draw_score=int(d.get("score", 0)))
        if resign:
            r = Adjudication._kv(resign, {"movecount", "score", "twosided"}, "resign")
            kw.update(resign_movecount=int(r.get("movecount", 1)), resign_score=int(r.get("score", 0)),
                      resign_twosided=r.get("twosided", "false").lower() in ("1", "true", "yes"))
        return Adjudication(**kw)


class AdjudicationState:
    """The running counts of one game's adjudication."""

    def __init__(self, adj: Adjudication):
        self.adj = adj
        self.draw_run = 0
        self.resign_run = [0, 0]
        self.last = [None, None]

    def after_move(self, side: int, score: int | None, fullmove_done: int) -> tuple[str, str] | None:
        a = self.adj
        self.last[side] = score
        if a.draw_movenumber is not None:
            self.draw_run = self.draw_run + 1 if score is not None and abs(score) <= a.draw_score else 0
            if fullmove_done >= a.draw_movenumber and self.draw_run >= 2 * a.draw_movecount:
                return "1/2-1/2", "Draw by adjudication"
        if a.resign_movecount is not None:
            self.resign_run[side] = self.resign_run[side] + 1 if score is not None and score <= -a.resign_score else 0
            opp = self.last[1 - side]
            if self.resign_run[side] >= a.resign_movecount and (
                    not a.resign_twosided or (opp is not None and opp >= a.resign_score)):
                return ("0-1" if side == 0 else "1-0"), f"{COLOUR[1 - side]} wins by adjudication"
        if a.maxmoves is not None and fullmove_done >= a.maxmoves:
            return "1/2-1/2", f"Draw by adjudication: {a.maxmoves} moves"
        return None
