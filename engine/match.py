"""``jitfish match``: engine-vs-engine matches in every jitfish variant, refereed by jitfish's rules.

    jitfish match --variant courier --games 20 --tc 10+0.1 --concurrency 2 --pgn out.pgn \\
        --engine cmd=fairymax --engine cmd=jitfish,option.Hash=64
    jitfish match --replay out.pgn          # re-check a PGN with jitfish's rules

In the spirit of cutechess-cli and fastchess: two engines given as command lines (UCI or CECP,
see ``jitfish.protocol.client``) play N games, in pairs with the same opening and the colours
swapped. Every move is checked with ``jitfish.movegen.Position``; the game ends on the rules'
verdict (``Position.outcome()``: checkmate, stalemate, Aces captured, King converted, bare king,
repetition, 50-move rule), on adjudication, or on a fault: an illegal move, a timeout, a crash or
a hang loses the game with the reason in the PGN, the faulty engine is restarted and the match
goes on.

Parts, in order: statistics (Elo, error bars, LOS, SPRT), move text (SAN), PGN writing and
reading, openings, adjudication, one game, the match, the command line.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import math
import queue
import random
import re
import secrets
import shlex
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Callable, Sequence

from jitfish.protocol.client import (
    Engine, EngineConfig, EngineCrashed, EngineError, EngineRejectedMove, EngineTimeout,
    GoRequest, Limits, MatchAborted, SearchInfo, format_seconds, open_engine,
)

__all__ = [
    "elo_from_score", "score_from_elo", "EloEstimate", "elo_wdl", "elo_pentanomial", "los",
    "Sprt", "sprt_llr", "move_san", "parse_move_text", "parse_engine_move", "PgnGame",
    "read_pgn", "replay_pgn", "load_openings", "random_opening", "Adjudication", "GameRecord",
    "MatchConfig", "Match", "add_match_parser", "run_match",
]

COLOUR = ("White", "Black")
Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054, fastchess's CI95ZSCORE


# =============================================================================================
# Statistics
#
# Formulas as cutechess-cli (projects/lib/src/elo.cpp, sprt.cpp) and fastchess
# (app/src/matchmaking/elo/elo_wdl.cpp, elo_pentanomial.cpp, sprt/sprt.cpp) document them.
# Results are from the first engine's point of view: W wins, L losses, D draws.


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of a score fraction: ``-400 log10(1/score - 1)``
    (cutechess ``Elo::diff``, fastchess ``scoreToEloDiff``); +-inf at 1 and 0.

    >>> round(elo_from_score(0.75), 1)
    190.8
    """
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a logistic Elo difference: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """An Elo estimate with its 95% error bar.

    score: the mean score; elo, error: logistic Elo and half the width of its 95% interval;
    nelo, nerror: normalized Elo (fastchess) and its error; los: likelihood of superiority (0-1);
    n: games (or pairs); variance: per-game (per-pair) variance of the score; lower, upper: the
    95% interval in Elo (infinite where the score interval reaches 0 or 1, and then error is
    nan: a one-sided bound is all the games can say).
    """

    n: int
    score: float
    variance: float
    elo: float
    error: float
    nelo: float
    nerror: float
    los: float
    lower: float = math.nan
    upper: float = math.nan


def _estimate(n: int, values: Sequence[float], counts: Sequence[int], nelo_scale: float) -> EloEstimate:
    """Shared by the trinomial and pentanomial estimates (fastchess EloWDL / EloPentanomial):

    score = sum p_i a_i; variance = sum p_i (a_i - score)^2; the score's standard error is
    sqrt(variance / n); the interval is score -+ 1.96 standard errors mapped through
    ``elo_from_score``, and the error is half its width. Normalized Elo is
    ``(score - 0.5) / sqrt(nelo_scale * variance) * 800 / ln 10``. LOS is fastchess's
    ``(1 - erf(-(score - 0.5) / sqrt(2 variance / n))) / 2``.
    """
    if n == 0:
        return EloEstimate(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    p = [c / n for c in counts]
    score = sum(pi * a for pi, a in zip(p, values))
    var = sum(pi * (a - score) ** 2 for pi, a in zip(p, values))
    se = math.sqrt(var / n)
    lo, hi = score - Z95 * se, score + Z95 * se
    elo = elo_from_score(score)
    with_err = 0.0 < lo and hi < 1.0
    error = (elo_from_score(hi) - elo_from_score(lo)) / 2.0 if with_err else math.nan
    lower = elo_from_score(lo) if lo > 0.0 else -math.inf
    upper = elo_from_score(hi) if hi < 1.0 else math.inf
    k = 800.0 / math.log(10.0)
    if var > 0:
        nelo = (score - 0.5) / math.sqrt(nelo_scale * var) * k
        nerror = ((hi - 0.5) - (lo - 0.5)) / math.sqrt(nelo_scale * var) * k / 2.0
        los_ = (1.0 - math.erf(-(score - 0.5) / math.sqrt(2.0 * var / n))) / 2.0
    else:
        nelo = math.copysign(math.inf, score - 0.5) if score != 0.5 else 0.0
        nerror = math.nan
        los_ = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return EloEstimate(n, score, var, elo, error, nelo, nerror, los_, lower, upper)


def elo_wdl(wins: int, losses: int, draws: int) -> EloEstimate:
    """Trinomial (per game) Elo estimate, as cutechess ``Elo`` and fastchess ``EloWDL``.

    >>> e = elo_wdl(136, 96, 111); round(e.elo, 2), round(e.error, 2)
    (40.7, 30.43)
    """
    return _estimate(wins + losses + draws, (1.0, 0.0, 0.5), (wins, losses, draws), 1.0)


def elo_pentanomial(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> EloEstimate:
    """Pentanomial (per game pair) estimate, as fastchess ``EloPentanomial``: pair scores
    0, 1/4, 1/2, 3/4, 1 for LL, LD, WL+DD, WD, WW; normalized Elo scales by sqrt(2 variance).

    >>> e = elo_pentanomial(34, 54, 31, 32, 64, 75); round(e.elo, 2), round(e.error, 2)
    (55.58, 27.65)
    """
    return _estimate(ll + ld + wl + dd + wd + ww, (0.0, 0.25, 0.5, 0.75, 1.0),
                     (ll, ld, wl + dd, wd, ww), 2.0)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from decisive games, cutechess's ``Elo::LOS``:
    ``0.5 + 0.5 erf((W - L) / sqrt(2 (W + L)))`` (0.5 with no decisive game).

    >>> round(los(136, 96), 4)
    0.9957
    """
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


def _bisect(f: Callable[[float], float], a: float, b: float, tol: float = 1e-12) -> float:
    """A root of increasing-or-decreasing ``f`` on the open interval (a, b)."""
    fa = f(a)
    for _ in range(300):
        m = (a + b) / 2.0
        fm = f(m)
        if fm == 0.0 or (b - a) / 2.0 < tol:
            return m
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    return (a + b) / 2.0


def _mle_mean(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution nearest (Kullback-Leibler) the empirical ``probs`` with mean ``s``:
    ``p_i = phat_i / (1 + theta (a_i - s))`` with theta solving ``sum phat_i (a_i - s) /
    (1 + theta (a_i - s)) = 0`` (M. Van den Bergh, *Comments on Normalized Elo*, prop. 1.1; as
    fastchess ``getLLR_logistic``)."""
    lo = -1.0 / (scores[-1] - s)
    hi = -1.0 / (scores[0] - s)
    eps = 1e-15 * (hi - lo)

    def f(x: float) -> float:
        return sum(p * (a - s) / (1.0 + x * (a - s)) for a, p in zip(scores, probs))

    theta = _bisect(f, lo + eps, hi - eps)
    return [p / (1.0 + theta * (a - s)) for a, p in zip(scores, probs)]


def _mle_t(scores: Sequence[float], probs: Sequence[float], t_star: float) -> list[float]:
    """The distribution nearest ``probs`` with ``(mu - 1/2) / sigma = t_star`` (Van den Bergh,
    section 4.1; fastchess ``getLLR_normalized``): iterate from the uniform distribution,
    ``phi_i = a_i - 1/2 - t sigma (1 + ((a_i - mu)/sigma)^2) / 2``, theta solving
    ``sum phat_i phi_i / (1 + theta phi_i) = 0``, ``p_i = phat_i / (1 + theta phi_i)``."""
    n = len(scores)
    p = [1.0 / n] * n
    for _ in range(1000):
        mu = sum(a * q for a, q in zip(scores, p))
        var = sum(q * (a - mu) ** 2 for a, q in zip(scores, p))
        sigma = math.sqrt(var)
        phi = [a - 0.5 - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        u, v = min(phi), max(phi)
        lo, hi = -1.0 / v, -1.0 / u
        eps = 1e-15 * (hi - lo)

        def f(x: float) -> float:
            return sum(q * ph / (1.0 + x * ph) for q, ph in zip(probs, phi))

        theta = _bisect(f, lo + eps, hi - eps)
        new = [q / (1.0 + theta * ph) for q, ph in zip(probs, phi)]
        diff = max(abs(x - y) for x, y in zip(new, p))
        p = new
        if diff < 1e-9:
            break
    return p


def sprt_llr(counts: Sequence[int], elo0: float, elo1: float, model: str = "logistic") -> float:
    """Generalized SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), fastchess's
    ``SPRT::getLLR``: counts are trinomial ``(W, L, D)`` or pentanomial
    ``(LL, LD, WL, DD, WD, WW)``; zero counts are taken as 1e-3.

    LLR = N * sum phat_i ln(p1_i / p0_i), where p0, p1 are the distributions nearest the observed
    one under each hypothesis. Models: ``logistic`` (elo is logistic Elo: expected score
    ``1/(1+10^(-elo/400))``), ``normalized`` (elo is normalized Elo: ``t = elo / (800/ln 10)``,
    times sqrt(2) for pairs), ``bayesian`` (BayesElo with the draw Elo of the sample, trinomial
    only). ``cutechess`` is cutechess-cli's ``Sprt::status`` (trinomial; 0 until there are wins,
    losses and draws): draw Elo from the sample, elo0/elo1 divided by its scale
    ``4x/(1+x)^2, x = 10^(-drawelo/400)`` into BayesElo, and the exact trinomial
    ``LLR = W ln(pw1/pw0) + L ln(pl1/pl0) + D ln(pd1/pd0)``.

    >>> round(sprt_llr((36433, 36027, 68692), 0, 2, "normalized"), 2)
    0.92
    """
    def reg(x: int) -> float:
        return float(x) if x else 1e-3

    if len(counts) == 3:
        w, l_, d = (reg(x) for x in counts)
        total = w + l_ + d
        scores = (0.0, 0.5, 1.0)
        probs = (l_ / total, d / total, w / total)
        penta = False
    elif len(counts) == 6:
        ll, ld, wl, dd, wd, ww = counts
        vals = [reg(ll), reg(ld), reg(wl + dd), reg(wd), reg(ww)]
        total = sum(vals)
        scores = (0.0, 0.25, 0.5, 0.75, 1.0)
        probs = tuple(v / total for v in vals)
        penta = True
    else:
        raise ValueError("counts must be (W, L, D) or (LL, LD, WL, DD, WD, WW)")
    if model == "normalized":
        k = 800.0 / math.log(10.0)
        f = math.sqrt(2.0) if penta else 1.0
        p0 = _mle_t(scores, probs, f * elo0 / k)
        p1 = _mle_t(scores, probs, f * elo1 / k)
    elif model == "logistic":
        p0 = _mle_mean(scores, probs, score_from_elo(elo0))
        p1 = _mle_mean(scores, probs, score_from_elo(elo1))
    elif model == "bayesian":
        if penta:
            raise ValueError("the bayesian model is trinomial only")
        if counts[0] == 0 or counts[1] == 0:
            return 0.0
        pl, pw = probs[0], probs[2]
        drawelo = 200.0 * math.log10((1 - pl) / pl * (1 - pw) / pw)

        def bayes_score(be: float) -> float:
            win = 1.0 / (1.0 + 10.0 ** ((-be + drawelo) / 400.0))
            loss = 1.0 / (1.0 + 10.0 ** ((be + drawelo) / 400.0))
            return win + 0.5 * (1.0 - win - loss)

        p0 = _mle_mean(scores, probs, bayes_score(elo0))
        p1 = _mle_mean(scores, probs, bayes_score(elo1))
    elif model == "cutechess":
        if penta:
            raise ValueError("the cutechess model is trinomial only")
        w_, l_, d_ = counts
        if not (w_ and l_ and d_):
            return 0.0
        n = w_ + l_ + d_
        pw, pl = w_ / n, l_ / n
        drawelo = 200.0 * math.log10((1 - pl) / pl * (1 - pw) / pw)
        x = 10.0 ** (-drawelo / 400.0)
        scale = 4.0 * x / ((1.0 + x) ** 2)

        def wld(be: float) -> tuple[float, float, float]:
            win = 1.0 / (1.0 + 10.0 ** ((drawelo - be) / 400.0))
            loss = 1.0 / (1.0 + 10.0 ** ((drawelo + be) / 400.0))
            return win, loss, 1.0 - win - loss

        q0, q1 = wld(elo0 / scale), wld(elo1 / scale)
        return sum(c * math.log(b / a) for c, a, b in zip((w_, l_, d_), q0, q1))
    else:
        raise ValueError(f"unknown SPRT model {model!r} (logistic, normalized, bayesian, cutechess)")
    return total * sum(ph * (math.log(b) - math.log(a)) for ph, a, b in zip(probs, p0, p1))


SPRT_MODELS = ("logistic", "normalized", "bayesian", "cutechess")


@dataclass(frozen=True)
class Sprt:
    """An SPRT of H0: elo = elo0 against H1: elo = elo1 with error rates alpha, beta.

    Bounds (Wald; cutechess and fastchess): lower = ln(beta / (1 - alpha)),
    upper = ln((1 - beta) / alpha). LLR >= upper accepts H1, LLR <= lower accepts H0.

    >>> s = Sprt(0, 5, 0.05, 0.05); round(s.lower, 2), round(s.upper, 2)
    (-2.94, 2.94)
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self):
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT: alpha and beta must be in (0, 1) with alpha + beta < 1")
        if self.model not in SPRT_MODELS:
            raise ValueError(f"SPRT: unknown model {self.model!r} ({', '.join(SPRT_MODELS)})")

    @staticmethod
    def parse(text: str, model: str = "logistic") -> "Sprt":
        """``elo0,elo1[,alpha,beta]``."""
        parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
        if len(parts) not in (2, 4):
            raise ValueError(f"bad --sprt {text!r}: expected elo0,elo1[,alpha,beta]")
        vals = [float(p) for p in parts]
        return Sprt(*vals, model=model) if len(vals) == 4 else Sprt(vals[0], vals[1], model=model)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        return sprt_llr(counts, self.elo0, self.elo1, self.model)

    def verdict(self, llr: float) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or None (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def _fmt_elo_error(e: EloEstimate) -> str:
    """``+/- 66.3``, or the one-sided 95% bound when the interval reaches a score of 0 or 1."""
    if not math.isnan(e.error) or math.isnan(e.lower):
        return f"+/- {_fmt_elo(e.error, False)}"
    if e.variance == 0:
        return "(every game the same result: no error bar)"
    if math.isinf(e.upper) and not math.isinf(e.lower):
        return f"(95%: > {_fmt_elo(e.lower)})"
    if math.isinf(e.lower) and not math.isinf(e.upper):
        return f"(95%: < {_fmt_elo(e.upper)})"
    return "(95%: unbounded)"


def _fmt_elo(x: float, sign: bool = True) -> str:
    """``+12.3``; an even score prints ``+0.0``, not ``-0.0`` (-400 log10(1) is -0.0).

    >>> _fmt_elo(elo_from_score(0.5)), _fmt_elo(-0.04)
    ('+0.0', '+0.0')
    """
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return ("+" if x > 0 else "-") + "inf" if sign else "inf"
    x = round(x, 1) + 0.0  # -0.0 + 0.0 is +0.0
    return f"{x:+.1f}" if sign else f"{x:.1f}"


# =============================================================================================
# Move text


# Move encoding (movegen/kernels.py): bits 0-6 from, 7-13 to, 14-17 promotion type + 1, 18-19 kind.
# Decoded here in plain Python (a numba call per field costs more than the whole SAN);
# tests/test_match.py checks these against the kernels' own decoders.
KIND_EP, KIND_CASTLE = 1, 2


def _decode(m: int) -> tuple[int, int, int, int]:
    """(from, to, promotion type + 1, kind) of an encoded move."""
    return m & 127, (m >> 7) & 127, (m >> 14) & 15, (m >> 18) & 3


def _sq(s: int, files: int) -> str:
    return "abcdefghijklmnop"[s % files] + str(s // files + 1)


def _san_body(pos, m: int, legal: Sequence[int]) -> str:
    """SAN without the check suffix."""
    spec = pos.spec
    F = spec.files
    board = pos.pos.board
    fr, to, promo, kind = _decode(m)
    if kind == KIND_CASTLE:
        return "O-O" if to % F > fr % F else "O-O-O"
    t = (int(board[fr]) - 1) >> 1
    piece = spec.pieces[t]
    capture = kind == KIND_EP or int(board[to]) != 0
    rivals = []
    for other in legal:
        if other != m and (other >> 7) & 127 == to and (other >> 18) & 3 != KIND_CASTLE:
            ofr = other & 127
            if ofr != fr and (int(board[ofr]) - 1) >> 1 == t:
                rivals.append(ofr)
    dis = ""
    if rivals:
        if all(r % F != fr % F for r in rivals):
            dis = "abcdefghijklmnop"[fr % F]
        elif all(r // F != fr // F for r in rivals):
            dis = str(fr // F + 1)
        else:
            dis = _sq(fr, F)
    if piece.pawn:
        if capture and not dis:
            dis = "abcdefghijklmnop"[fr % F]
        san = dis + ("x" if capture else "") + _sq(to, F)
    else:
        san = piece.letter + dis + ("x" if capture else "") + _sq(to, F)
    if promo:
        san += "=" + spec.pieces[promo - 1].letter
    return san


def move_san(pos, m: int, legal: Sequence[int] | None = None) -> str:
    """Standard algebraic notation of a legal move, for any variant.

    Piece letter (none for pawns), disambiguation by file, then rank, then both, ``x`` on
    captures, ``=X`` on promotion, ``O-O``/``O-O-O`` for castling, ``+``/``#`` where the variant
    has check. For chess it is exactly python-chess's SAN.
    """
    san = _san_body(pos, m, pos.legal_moves() if legal is None else legal)
    if pos.spec.check:
        pos.push(m)
        try:
            if pos.is_check():
                san += "#" if pos.count_legal() == 0 else "+"
        finally:
            pos.pop()
    return san


_COORD = re.compile(r"([a-p])(\d{1,2})[-x]?([a-p])(\d{1,2})=?([a-zA-Z]?)")


def _castle_move(pos, long: bool) -> int | None:
    F = pos.spec.files
    for m in pos.legal_moves():
        fr, to, _, kind = _decode(m)
        if kind == KIND_CASTLE and ((to % F < fr % F) == long):
            return m
    return None


def parse_engine_move(pos, text: str) -> int:
    """An engine's move text -> the legal move, else MoveError. Coordinates (``e2e4``,
    ``e7e8q``, also ``e7e8=Q``) and castling as ``O-O``/``O-O-O``/``0-0``."""
    from jitfish.movegen import MoveError

    t = text.strip()
    if t in ("O-O", "0-0", "O-O-O", "0-0-0"):
        m = _castle_move(pos, long=len(t) == 5)
        if m is None:
            raise MoveError(f"illegal move {t}: no castling that way")
        return m
    cm = _COORD.fullmatch(t)
    if cm:
        t = f"{cm.group(1)}{cm.group(2)}{cm.group(3)}{cm.group(4)}{cm.group(5).lower()}"
    return pos.parse_move(t)


def parse_move_text(pos, text: str) -> int:
    """Move text from a PGN (SAN of any variant, or coordinates) -> the legal move, else MoveError."""
    from jitfish.movegen import MoveError

    t = text.strip().rstrip("+#!?")
    try:
        return parse_engine_move(pos, t)
    except MoveError as first:
        legal = pos.legal_moves()
        want = t.replace("=", "").replace("x", "")
        for m in legal:
            san = _san_body(pos, m, legal)
            if san == t or san.replace("=", "").replace("x", "") == want:
                return m
        raise MoveError(f"illegal move {text!r} in {pos.fen()}") from first


# =============================================================================================
# Games and PGN

TERMINATIONS = ("normal", "adjudication", "time forfeit", "rules infraction", "abandoned", "unterminated")


@dataclass
class MoveRecord:
    """One move of a game: coordinate text, SAN, and the comment (score/depth/time or book)."""

    uci: str
    san: str
    comment: str = ""


@dataclass
class GameRecord:
    """A finished game. result: ``1-0``/``0-1``/``1/2-1/2``/``*``; reason: the words
    (``White mates``); termination: a PGN Termination value; index: 0-based game number;
    white_engine: 0 when the first engine played White."""

    index: int
    white: str
    black: str
    white_engine: int
    variant: str
    start_fen: str
    moves: list[MoveRecord]
    result: str = "*"
    reason: str = ""
    termination: str = "unterminated"
    time_control: str = "-"
    event: str = "jitfish match"
    started: _dt.datetime = field(default_factory=_dt.datetime.now)
    duration: float = 0.0

    def score_first(self) -> float | None:
        """The first engine's score in this game (1, 0.5, 0), None when unfinished."""
        s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(self.result)
        if s is None:
            return None
        return s if self.white_engine == 0 else 1.0 - s

    def to_pgn(self) -> str:
        """The game as PGN: tags (Variant, FEN, SetUp, TimeControl, Termination, ...), SAN moves
        with ``{score/depth time}`` comments, the reason in the last comment, then the result."""
        def esc(v: str) -> str:
            return v.replace("\\", "\\\\").replace('"', '\\"')

        d = int(self.duration)
        tags = [
            ("Event", self.event), ("Site", "?"), ("Date", self.started.strftime("%Y.%m.%d")),
            ("Round", str(self.index + 1)), ("White", self.white), ("Black", self.black),
            ("Result", self.result), ("Variant", self.variant), ("FEN", self.start_fen),
            ("SetUp", "1"), ("TimeControl", self.time_control), ("Termination", self.termination),
            ("PlyCount", str(len(self.moves))),
            ("GameDuration", f"{d // 3600:02d}:{d // 60 % 60:02d}:{d % 60:02d}"),
        ]
        out = [f'[{k} "{esc(v)}"]' for k, v in tags]
        fields = self.start_fen.split()
        black_first = len(fields) > 1 and fields[1] == "b"
        fullmove = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
        tokens: list[str] = []
        ply_side = 1 if black_first else 0
        n = fullmove
        for i, mv in enumerate(self.moves):
            if ply_side == 0:
                tokens.append(f"{n}.")
            elif i == 0:
                tokens.append(f"{n}...")
            tokens.append(mv.san)
            comment = mv.comment
            if i == len(self.moves) - 1 and self.reason:
                comment = f"{comment}, {self.reason}" if comment else self.reason
            if comment:
                tokens.append("{" + _comment_text(comment) + "}")
            if ply_side == 1:
                n += 1
            ply_side ^= 1
        if not self.moves and self.reason:
            tokens.append("{" + _comment_text(self.reason) + "}")
        tokens.append(self.result)
        lines, cur = [], ""
        for tok in tokens:
            if cur and len(cur) + 1 + len(tok) > 79:
                lines.append(cur)
                cur = tok
            else:
                cur = f"{cur} {tok}" if cur else tok
        lines.append(cur)
        return "\n".join(out) + "\n\n" + "\n".join(lines) + "\n"


def _comment_text(text: str) -> str:
    """Comment text safe inside PGN braces (a comment cannot hold ``{`` or ``}``)."""
    return text.replace("{", "(").replace("}", ")").replace("\n", " ")


@dataclass
class PgnGame:
    """A game read from PGN: its tags, the move tokens (comments dropped), the result token."""

    tags: dict[str, str]
    moves: list[str]
    result: str
    comments: list[str] = field(default_factory=list)


_TAG = re.compile(r'^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE_NUMBER = re.compile(r"^\d+\.+$")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


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
            if tok in _RESULTS:
                result = tok
                continue
            if tok.startswith("$"):
                continue
            tok = re.sub(r"^\d+\.+", "", tok)  # "1.e4" and "1...e5"
            if not tok or _MOVE_NUMBER.match(tok):
                continue
            moves.append(tok)
    return moves, comments, result


def _variant_of_tag(tag: str | None) -> str:
    from jitfish.movegen import load_spec

    if not tag or tag.lower() in ("standard", "chess", "normal", "from position"):
        return "chess"
    return load_spec(tag.lower()).name


@dataclass
class ReplayReport:
    """What ``replay_pgn`` found in one game: ok, the verdict, and any problems."""

    index: int
    ok: bool
    message: str
    notes: list[str] = field(default_factory=list)


def _left_to_a_claim(verdict: tuple[str, str]) -> bool:
    """Verdicts other programs may not apply by themselves (XBoard leaves repetition and the
    50-move rule to claims, and material draws and courier's bare king to options)."""
    return verdict[1] in ("Threefold repetition", "50-move rule", "Insufficient material") \
        or "bare king" in verdict[1]


def replay_game(game: PgnGame, index: int = 0, variant: str | None = None) -> ReplayReport:
    """Re-check one PGN game with jitfish's rules: every move legal, no move after the game was
    decided by checkmate/stalemate/extinction, and a final position with a rules verdict must
    carry that result. Games still going on by the rules (resignation, time, adjudication) pass
    when their Termination or last comment says so; draws by repetition, the 50-move rule or
    insufficient material, and courier's bare king, that the players did not stop at are noted,
    not failed (other programs leave them to a claim or an option)."""
    from jitfish.movegen import FenError, MoveError, Position, VariantError

    try:
        name = variant or _variant_of_tag(game.tags.get("Variant"))
        pos = Position(name, game.tags.get("FEN") or None)
    except (FenError, VariantError) as exc:
        return ReplayReport(index, False, f"cannot set up: {exc}")
    notes: list[str] = []
    first_rule_draw = None
    for i, tok in enumerate(game.moves):
        verdict = pos.outcome()
        if verdict is not None:
            if _left_to_a_claim(verdict):
                if first_rule_draw is None:
                    first_rule_draw = (i, verdict)
            else:
                return ReplayReport(index, False, f"move {i + 1} ({tok}) after the game ended: {verdict[1]}")
        try:
            pos.push(parse_move_text(pos, tok))
        except MoveError as exc:
            return ReplayReport(index, False, f"ply {i + 1}: {exc}")
    verdict = pos.outcome()
    term = game.tags.get("Termination", "normal").lower()
    if first_rule_draw is not None:
        notes.append(f"{first_rule_draw[1][1]} (a draw by the rules) at ply {first_rule_draw[0]} was not stopped at")
    if verdict is not None:
        if game.result != verdict[0] and _left_to_a_claim(verdict):
            notes.append(f"jitfish's rules end the final position ({verdict[0]}, {verdict[1]}); "
                         f"the PGN says {game.result}")
        elif game.result != verdict[0]:
            return ReplayReport(index, False, f"result {game.result} but jitfish's rules say {verdict[0]} ({verdict[1]})", notes)
        return ReplayReport(index, True, f"{game.result} {verdict[1]}", notes)
    if game.result == "*":
        return ReplayReport(index, True, "* unfinished", notes)
    last = game.comments[-1] if game.comments else ""
    if term == "normal" and first_rule_draw is None and not re.search(
            r"resign|adjudicat|time|forfeit|disconnect|stall|illegal|crash|claim|agree|abandon|rules|loses|wins",
            last, re.I):
        return ReplayReport(index, False, f"result {game.result} with Termination normal, but the position is not over by the rules", notes)
    return ReplayReport(index, True, f"{game.result} not a rules verdict ({term}{': ' + last if last else ''})", notes)


def replay_pgn(path: str, variant: str | None = None, out=None) -> int:
    """``jitfish match --replay``: re-check every game of a PGN file; 0 when all pass, else 1."""
    out = out or sys.stdout
    with open(path, encoding="utf-8", errors="replace") as fh:
        games = read_pgn(fh.read())
    bad = 0
    for i, g in enumerate(games):
        rep = replay_game(g, i, variant)
        label = f"game {i + 1} ({g.tags.get('White', '?')} vs {g.tags.get('Black', '?')}, {len(g.moves)} plies)"
        print(f"{label}: {'ok' if rep.ok else 'FAIL'}: {rep.message}", file=out)
        for note in rep.notes:
            print(f"  note: {note}", file=out)
        bad += not rep.ok
    print(f"Replayed {len(games)} games: {len(games) - bad} ok, {bad} failed", file=out)
    return 1 if bad or not games else 0


# =============================================================================================
# Openings


@dataclass(frozen=True)
class Opening:
    """A start position and book moves played from it (coordinates)."""

    fen: str
    moves: tuple[str, ...] = ()


def load_openings(path: str, variant: str) -> list[str]:
    """FENs from an EPD or FEN file, one position a line (EPD operations after the fourth field
    are dropped; ``#`` starts a comment line). Each is checked with jitfish's rules."""
    from jitfish.movegen import FenError, Position

    out = []
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            f = line.split(";")[0].split()
            if len(f) < 2:
                raise ValueError(f"{path}:{n}: not a FEN/EPD line: {line!r}")
            fen = " ".join(f[:6]) if len(f) >= 6 and f[4].isdigit() and f[5].isdigit() else " ".join(f[:4]) + " 0 1"
            if len(f) < 4:
                fen = " ".join(f)
            try:
                pos = Position(variant, fen)
            except FenError as exc:
                raise ValueError(f"{path}:{n}: {exc}") from None
            if pos.outcome() is not None:
                raise ValueError(f"{path}:{n}: the game is already over in {fen!r}")
            out.append(pos.fen())
    if not out:
        raise ValueError(f"{path}: no positions")
    return out


def random_opening(variant: str, plies: int, rng: random.Random, fen: str | None = None,
                   tries: int = 200) -> Opening:
    """K random legal plies from the start (or ``fen``) ending in a balanced position: the game
    not over and both sides with the same number of pieces of every type. Falls back to the
    least unbalanced line found when ``tries`` attempts find none."""
    from jitfish.movegen import Position

    base = Position(variant, fen)
    start = base.fen()
    best: tuple[int, tuple[str, ...]] | None = None
    for _ in range(tries):
        pos = base.copy()
        line: list[str] = []
        for _ in range(plies):
            if pos.outcome() is not None:
                break
            moves = pos.legal_moves()
            m = moves[rng.randrange(len(moves))]
            line.append(pos.move_name(m))
            pos.push(m)
        if len(line) < plies or pos.outcome() is not None:
            continue
        cnt = pos.pos.cnt
        imbalance = int(abs(cnt[0] - cnt[1]).sum())
        if imbalance == 0:
            return Opening(start, tuple(line))
        if best is None or imbalance < best[0]:
            best = (imbalance, tuple(line))
    if best is None:
        return Opening(start, ())
    return Opening(start, best[1])


# =============================================================================================
# Adjudication


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


class _AdjudicationState:
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


# =============================================================================================
# One game


@dataclass
class MatchConfig:
    """Everything a match needs; ``run_match`` builds it from the command line."""

    engines: list[EngineConfig]
    variant: str = "chess"
    games: int = 2
    limits: Limits = field(default_factory=lambda: Limits(base=10, inc=0.1))
    openings: list[Opening] = field(default_factory=list)
    concurrency: int = 1
    pgn: str | None = None
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: Sprt | None = None
    timemargin: float = 0.1  # seconds past the clock (or movetime) before a time forfeit
    hang_timeout: float = 60.0  # seconds without a move when no clock bounds it
    start_timeout: float = 120.0
    event: str = "jitfish match"
    debug: str | None = None
    plot: str | None = None
    progress: bool | None = None  # None: when stderr is a terminal
    quiet: bool = False
    command: str = ""


class _Player:
    """One engine of one worker: starts it when needed, restarts it after a fault."""

    def __init__(self, cfg: EngineConfig, name: str, variant: str, stop: threading.Event, log, start_timeout: float):
        self.cfg = cfg
        self.name = name
        self.variant = variant
        self.stop = stop
        self.log = log
        self.start_timeout = start_timeout
        self.engine: Engine | None = None
        self.started_once = False
        self.failed_starts = 0

    def ensure(self) -> Engine:
        if self.engine is not None and not self.engine.alive():
            self.discard()
        if self.engine is None:
            try:
                self.engine = open_engine(self.cfg, self.variant, stop=self.stop, log=self.log,
                                          start_timeout=self.start_timeout)
            except EngineError:
                self.failed_starts += 1
                raise
            self.engine.name = self.name
            self.started_once = True
            self.failed_starts = 0
        return self.engine

    def discard(self) -> None:
        if self.engine is not None:
            self.engine.kill()
            self.engine = None

    def close(self) -> None:
        if self.engine is not None:
            self.engine.quit()
            self.engine = None


class FatalMatchError(Exception):
    """The match cannot go on (an engine cannot be started at all)."""


def _comment(info: SearchInfo, elapsed: float) -> str:
    parts = []
    if info.mate is not None:
        parts.append(f"{'+' if info.mate > 0 else '-'}M{abs(info.mate)}")
    elif info.score is not None:
        parts.append(f"{info.score / 100:+.2f}")
    if parts and info.depth is not None:
        parts[-1] += f"/{info.depth}"
    parts.append(f"{elapsed:.3f}s")
    return " ".join(parts)


def play_game(index: int, opening: Opening, players: Sequence[_Player], white_engine: int,
              cfg: MatchConfig, stop: threading.Event) -> GameRecord:
    """Play one game; ``players[white_engine]`` has White. Faults lose the game and discard the
    faulty engine (it is restarted for the next game). Raises MatchAborted when ``stop`` is set."""
    from jitfish.movegen import MoveError, Position

    white, black = players[white_engine], players[1 - white_engine]
    by_side = (white, black)
    pos = Position(cfg.variant, opening.fen)
    start_fen = pos.fen()
    standard = cfg.variant == "chess" and start_fen == pos.spec.start_fen
    limits = [p.cfg.limits or cfg.limits for p in by_side]
    rec = GameRecord(index, white.name, black.name, white_engine, cfg.variant, start_fen, [],
                     time_control=limits[0].pgn_tag() if limits[0] == limits[1]
                     else f"{limits[0].pgn_tag()}:{limits[1].pgn_tag()}", event=cfg.event)
    t_start = time.monotonic()
    uci_moves: list[str] = []
    for text in opening.moves:
        m = pos.parse_move(text)
        rec.moves.append(MoveRecord(pos.move_name(m), move_san(pos, m), "book"))
        uci_moves.append(pos.move_name(m))
        pos.push(m)

    def finish(result: str, reason: str, termination: str, faulty: _Player | None = None) -> GameRecord:
        rec.result, rec.reason, rec.termination = result, reason, termination
        rec.duration = time.monotonic() - t_start
        if faulty is not None:
            faulty.discard()
        for p in by_side:
            if p.engine is not None:
                p.engine.game_over(result, reason)
                reuse = getattr(p.engine, "features", {}).get("reuse")
                if reuse == "0":
                    p.close()
        return rec

    def lose(side: int, reason: str, termination: str, faulty: bool) -> GameRecord:
        return finish("0-1" if side == 0 else "1-0", reason, termination, by_side[side] if faulty else None)

    for side in (0, 1):
        p = by_side[side]
        try:
            p.ensure().new_game(limits[side], start_fen, standard_start=standard)
        except EngineError as exc:
            if not p.started_once or p.failed_starts >= 3:
                p.discard()
                raise FatalMatchError(f"{p.name} cannot be started: {exc}") from None
            return lose(side, f"{COLOUR[side]}'s engine failed to start: {exc}", "abandoned", True)

    clock = [l.base if l.has_clock else None for l in limits]
    in_period = [0, 0]
    adj = _AdjudicationState(cfg.adjudication)
    while True:
        if stop.is_set():
            raise MatchAborted()
        verdict = pos.outcome()
        if verdict is not None:
            return finish(verdict[0], verdict[1], "normal")
        side = pos.turn
        p = by_side[side]
        lim = limits[side]
        eng = p.engine
        if clock[side] is not None:
            budget = clock[side] + cfg.timemargin
        elif lim.movetime is not None:
            budget = lim.movetime + cfg.timemargin
        else:
            budget = cfg.hang_timeout
        if clock[side] is not None and lim.movetime is not None:
            budget = min(budget, lim.movetime + cfg.timemargin)
        movestogo = lim.moves - in_period[side] if lim.moves else None
        req = GoRequest(list(uci_moves), side, clock[0], clock[1], limits[0].inc, limits[1].inc,
                        movestogo, budget)
        try:
            reply = eng.go(req)
        except EngineTimeout:
            if clock[side] is not None or lim.movetime is not None:
                return lose(side, f"{COLOUR[side]} loses on time", "time forfeit", True)
            return lose(side, f"{COLOUR[side]}'s engine stopped answering (no move in {cfg.hang_timeout:g} s)",
                        "abandoned", True)
        except EngineCrashed as exc:
            return lose(side, f"{COLOUR[side]}'s engine crashed: {exc}", "abandoned", True)
        except EngineRejectedMove as exc:
            return lose(side, f"{COLOUR[side]}'s engine rejected the legal move {exc.move}: {exc.line.strip()}",
                        "rules infraction", True)
        except EngineError as exc:
            return lose(side, f"{COLOUR[side]}'s engine failed: {exc}", "abandoned", True)
        elapsed = reply.elapsed
        if reply.move is None:
            if reply.claim is not None:
                res, text = reply.claim
                own_loss = "0-1" if side == 0 else "1-0"
                if res == own_loss:
                    return lose(side, f"{COLOUR[side]} resigns", "normal", False)
                return lose(side, f"{COLOUR[side]} makes an invalid result claim: {res} {{{text}}}",
                            "rules infraction", True)
            return lose(side, f"{COLOUR[side]}'s engine gave no move", "rules infraction", True)
        try:
            m = parse_engine_move(pos, reply.move)
        except MoveError:
            return lose(side, f"{COLOUR[side]} makes an illegal move: {reply.move}", "rules infraction", True)
        name = pos.move_name(m)
        san = move_san(pos, m)
        rec.moves.append(MoveRecord(name, san, _comment(reply.info, elapsed)))
        uci_moves.append(name)
        pos.push(m)
        if clock[side] is not None:
            left = clock[side] - elapsed
            if left < -cfg.timemargin:  # late but the answer slipped in before the wait ended
                return lose(side, f"{COLOUR[side]} loses on time", "time forfeit", False)
            left = max(left, 0.0) + lim.inc
            in_period[side] += 1
            if lim.moves and in_period[side] >= lim.moves:
                left += lim.base
                in_period[side] = 0
            clock[side] = left
        elif lim.movetime is not None and elapsed > lim.movetime + cfg.timemargin:
            return lose(side, f"{COLOUR[side]} loses on time", "time forfeit", False)
        if pos.outcome() is None:
            fullmoves_done = (len(rec.moves) + (1 if start_fen.split()[1] == "b" else 0)) // 2
            decided = adj.after_move(side, reply.info.score_cp(), fullmoves_done)
            if decided is not None:
                return finish(decided[0], decided[1], "adjudication")


# =============================================================================================
# The match


@dataclass
class Tally:
    """Results from the first engine's point of view, with pair (pentanomial) counts."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: list[int] = field(default_factory=lambda: [0] * 6)  # LL LD WL DD WD WW
    pending: dict[int, float] = field(default_factory=dict)
    terminations: dict[str, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.n if self.n else math.nan

    def add(self, rec: GameRecord) -> None:
        s = rec.score_first()
        if s is None:
            return
        if s == 1.0:
            self.wins += 1
        elif s == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        if rec.termination == "normal":
            key = re.sub(r"^(White|Black)('s)? ", "", rec.reason)
            key = {"mates": "checkmate", "resigns": "resignation"}.get(key, key)
        else:
            key = rec.termination
        self.terminations[key] = self.terminations.get(key, 0) + 1
        pair = rec.index // 2
        if pair in self.pending:
            a, b = sorted((self.pending.pop(pair), s))
            idx = {(0.0, 0.0): 0, (0.0, 0.5): 1, (0.0, 1.0): 2, (0.5, 0.5): 3, (0.5, 1.0): 4, (1.0, 1.0): 5}[(a, b)]
            self.penta[idx] += 1
        else:
            self.pending[pair] = s

    def elo(self) -> EloEstimate:
        return elo_wdl(self.wins, self.losses, self.draws)

    def line(self, a: str, b: str) -> str:
        """cutechess-cli's score line: ``Score of A vs B: W - L - D  [0.550] N``."""
        sc = f"{self.score:.3f}" if self.n else "0.000"
        return f"Score of {a} vs {b}: {self.wins} - {self.losses} - {self.draws}  [{sc}] {self.n}"


class Match:
    """Runs a match: workers (one per ``concurrency``), each with its own two engine processes,
    take games from a queue; the main thread writes the PGN, keeps the tally, the progress bar
    and the SPRT, and stops everything on a verdict, a fatal error or Ctrl-C."""

    def __init__(self, cfg: MatchConfig, out=None, err=None):
        if len(cfg.engines) != 2:
            raise ValueError("a match needs exactly two engines")
        self.cfg = cfg
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.stop = threading.Event()
        self.tally = Tally()
        self.history: list[tuple[int, float, float, float | None]] = []  # n, elo, error, llr
        self.records: list[GameRecord] = []
        self.names = ["", ""]
        self.sprt_verdict: str | None = None
        self.llr: float | None = None
        self.fatal: str | None = None
        self._log_lock = threading.Lock()
        self._log_fh = open(cfg.debug, "w", encoding="utf-8") if cfg.debug else None
        self._t0 = time.monotonic()

    # -- logging ---------------------------------------------------------------------------

    def _log(self, name: str, direction: str, line: str) -> None:
        if self._log_fh is None:
            return
        with self._log_lock:
            self._log_fh.write(f"{time.monotonic() - self._t0:10.3f} {name} {direction} {line}\n")
            self._log_fh.flush()

    def _logger(self):
        return self._log if self._log_fh is not None else None

    # -- set-up ------------------------------------------------------------------------------

    def _warm_up(self) -> None:
        """Compile the rules kernels in this process before any engine starts (engines that
        import jitfish then load them from numba's cache instead of compiling them again)."""
        from jitfish.movegen import Position

        pos = Position(self.cfg.variant)
        for _ in range(2):
            moves = pos.legal_moves()
            if not moves:
                break
            m = moves[0]
            move_san(pos, m, moves)
            pos.push(m)
        pos.outcome()
        pos.fen()

    def _start_first(self) -> list[_Player]:
        """Start both engines once (fail fast on a bad command or variant) and fix their names."""
        players = []
        for i, ec in enumerate(self.cfg.engines):
            p = _Player(ec, ec.name or ec.default_name(), self.cfg.variant, self.stop, self._logger(),
                        self.cfg.start_timeout)
            try:
                eng = p.ensure()
            except EngineError as exc:
                for q in players:
                    q.close()
                raise FatalMatchError(f"engine {i + 1} ({ec.cmd}) cannot be started: {exc}") from None
            p.name = ec.name or eng.own_name or ec.default_name()
            players.append(p)
        if players[0].name == players[1].name:
            players[1].name += "-2"
        for p in players:
            p.engine.name = p.name
        self.names = [p.name for p in players]
        return players

    # -- running -----------------------------------------------------------------------------

    def run(self) -> int:
        """Play the match; returns the exit status (0 done, 2 fatal error, 130 interrupted)."""
        cfg = self.cfg
        if cfg.plot:
            _require_matplotlib()
        self._warm_up()
        first = self._start_first()
        n_games = cfg.games
        openings = cfg.openings or [Opening(_start_fen(cfg.variant))]
        jobs: queue.Queue = queue.Queue()
        for i in range(n_games):
            jobs.put((i, openings[(i // 2) % len(openings)], i % 2))
        results: queue.Queue = queue.Queue()
        # appended, as cutechess-cli's -pgnout does: a second match never erases the first
        pgn_fh = open(cfg.pgn, "a", encoding="utf-8") if cfg.pgn else None
        workers = []
        n_workers = max(1, min(cfg.concurrency, n_games))
        for w in range(n_workers):
            players = first if w == 0 else [
                _Player(ec, first[i].name, cfg.variant, self.stop, self._logger(), cfg.start_timeout)
                for i, ec in enumerate(cfg.engines)]
            t = threading.Thread(target=self._worker, args=(players, jobs, results), daemon=True,
                                 name=f"match-worker-{w}")
            workers.append(t)
        bar = self._bar(n_games)
        status = 0
        done_workers = 0
        try:
            for t in workers:
                t.start()
            while done_workers < len(workers):
                try:
                    kind, payload = results.get(timeout=0.2)
                except queue.Empty:
                    continue
                if kind == "done":
                    done_workers += 1
                elif kind == "fatal":
                    self.fatal = self.fatal or str(payload)
                    self.stop.set()
                elif kind == "game" and not (self.stop.is_set() and self.sprt_verdict):
                    self._record(payload, pgn_fh, bar)
        except KeyboardInterrupt:
            self.stop.set()
            print("\nInterrupted: stopping the engines; unfinished games are not counted", file=self.err)
            status = 130
        finally:
            self.stop.set()
            for t in workers:
                t.join(timeout=15)
            if bar is not None:
                bar.close()
            if pgn_fh:
                pgn_fh.close()
            if self._log_fh:
                self._log_fh.close()
        if self.fatal:
            print(f"Error: {self.fatal}", file=self.err)
            status = 2
        self._report()
        if cfg.plot and self.history:
            plot_history(self.history, cfg.plot, self.names, cfg.sprt)
            print(f"Plot written to {cfg.plot}", file=self.out)
        print(self.tally.line(*self.names), file=self.out)
        return status

    def _worker(self, players: list[_Player], jobs: queue.Queue, results: queue.Queue) -> None:
        try:
            while not self.stop.is_set():
                try:
                    index, opening, white_engine = jobs.get_nowait()
                except queue.Empty:
                    break
                try:
                    rec = play_game(index, opening, players, white_engine, self.cfg, self.stop)
                except MatchAborted:
                    break
                except FatalMatchError as exc:
                    results.put(("fatal", exc))
                    break
                except Exception as exc:  # a bug here must not hang the match
                    results.put(("fatal", f"internal error in game {index + 1}: {exc!r}"))
                    break
                results.put(("game", rec))
        finally:
            for p in players:
                try:
                    if self.stop.is_set():
                        p.discard()  # aborted: engines may be mid-search, do not wait for them
                    else:
                        p.close()
                except Exception:
                    p.discard()
            results.put(("done", None))

    def _bar(self, total: int):
        show = self.cfg.progress if self.cfg.progress is not None else self.err.isatty()
        if not show:
            return None
        from tqdm import tqdm

        return tqdm(total=total, desc=f"{self.names[0]} vs {self.names[1]}", unit="game",
                    file=self.err, dynamic_ncols=True, leave=False)

    def _record(self, rec: GameRecord, pgn_fh, bar) -> None:
        self.records.append(rec)
        self.tally.add(rec)
        if pgn_fh:
            pgn_fh.write(rec.to_pgn() + "\n")
            pgn_fh.flush()
        e = self.tally.elo()
        counts = (self.tally.wins, self.tally.losses, self.tally.draws)
        if self.cfg.sprt is not None:
            self.llr = self.cfg.sprt.llr(counts)
            verdict = self.cfg.sprt.verdict(self.llr)
            if verdict and not self.sprt_verdict:
                self.sprt_verdict = verdict
                self.stop.set()
        self.history.append((self.tally.n, e.elo, e.error, self.llr))
        line = f"Finished game {rec.index + 1} ({rec.white} vs {rec.black}): {rec.result} {{{rec.reason}}}"
        if not self.cfg.quiet:
            if bar is not None:
                bar.write(line, file=self.out)
            else:
                print(line, file=self.out, flush=True)
        if bar is not None:
            post = f"{self.tally.wins}-{self.tally.losses}-{self.tally.draws} [{self.tally.score:.3f}] " \
                   f"Elo {_fmt_elo(e.elo)} +/- {_fmt_elo(e.error, False)}"
            if self.llr is not None:
                post += f" LLR {self.llr:.2f}"
            bar.set_postfix_str(post, refresh=False)
            bar.update(1)

    def _report(self) -> None:
        t, cfg, out = self.tally, self.cfg, self.out
        a, b = self.names
        print(f"\nResults of {a} vs {b} ({cfg.variant}, {cfg.limits.describe()}, {t.n} games):", file=out)
        rows = [("engine", "games", "wins", "losses", "draws", "score"),
                (a, str(t.n), str(t.wins), str(t.losses), str(t.draws),
                 f"{t.wins + 0.5 * t.draws:g} ({100 * t.score:.1f}%)" if t.n else "0"),
                (b, str(t.n), str(t.losses), str(t.wins), str(t.draws),
                 f"{t.losses + 0.5 * t.draws:g} ({100 * (1 - t.score):.1f}%)" if t.n else "0")]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))),
                  file=out)
        if t.n:
            e = t.elo()
            print(f"Elo difference: {_fmt_elo(e.elo)} {_fmt_elo_error(e)}, "
                  f"LOS: {100 * los(t.wins, t.losses):.1f} %, DrawRatio: {100 * t.draws / t.n:.1f} %, "
                  f"nElo: {_fmt_elo(e.nelo)} +/- {_fmt_elo(e.nerror, False)}", file=out)
            pairs = sum(t.penta)
            if pairs:
                pe = elo_pentanomial(*t.penta)
                ll, ld, wl, dd, wd, ww = t.penta
                print(f"Ptnml(0-2): [{ll}, {ld}, {wl + dd}, {wd}, {ww}] (WL/DD {wl}/{dd}), "
                      f"pair Elo: {_fmt_elo(pe.elo)} {_fmt_elo_error(pe)}", file=out)
            if t.terminations:
                print("Terminations: " + ", ".join(f"{k}: {v}" for k, v in sorted(t.terminations.items(),
                                                                                 key=lambda kv: -kv[1])), file=out)
        if cfg.sprt is not None:
            s = cfg.sprt
            llr = self.llr if self.llr is not None else 0.0
            verdict = {"H1": "H1 was accepted", "H0": "H0 was accepted", None: "no verdict yet"}[self.sprt_verdict]
            print(f"SPRT ({s.model}): elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g}: "
                  f"LLR {llr:.2f} ({100 * llr / s.upper if llr > 0 else 100 * llr / -s.lower:.1f}%), "
                  f"lbound {s.lower:.2f}, ubound {s.upper:.2f} - {verdict}", file=out)
        if cfg.pgn:
            print(f"Games written to {cfg.pgn}", file=out)
        if cfg.command:
            print(f"Command: {cfg.command}", file=out)


def _start_fen(variant: str) -> str:
    from jitfish.movegen import load_spec

    return load_spec(variant).start_fen


# =============================================================================================
# Plot


def _require_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("Error: --plot needs matplotlib: pip install 'jitfish[plot]' "
                         "(or pip install matplotlib)") from None
    return matplotlib


def plot_history(history: Sequence[tuple[int, float, float, float | None]], path: str,
                 names: Sequence[str], sprt: Sprt | None = None) -> None:
    """Draw the Elo estimate with its 95% band over the games (and the LLR with its bounds in
    SPRT mode) to a PNG file."""
    matplotlib = _require_matplotlib()
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def finite(x: float) -> float:
        return x if x is not None and math.isfinite(x) else math.nan

    n = [h[0] for h in history]
    elo = [finite(h[1]) for h in history]
    err = [finite(h[2]) for h in history]
    lo = [e - r for e, r in zip(elo, err)]
    hi = [e + r for e, r in zip(elo, err)]
    rows = 2 if sprt is not None else 1
    fig, axes = plt.subplots(rows, 1, figsize=(8, 4.5 * rows), squeeze=False)
    ax = axes[0][0]
    ax.fill_between(n, lo, hi, alpha=0.25, color="tab:blue", label="95% interval")
    ax.plot(n, elo, color="tab:blue", marker="." if len(n) < 50 else None, label="Elo estimate")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("games")
    ax.set_ylabel(f"Elo of {names[0]} against {names[1]}")
    ax.set_title(f"{names[0]} vs {names[1]}")
    ax.legend(loc="best")
    ax.grid(alpha=0.3)
    if sprt is not None:
        ax2 = axes[1][0]
        ax2.plot(n, [finite(h[3]) for h in history], color="tab:red", label="LLR")
        ax2.axhline(sprt.upper, color="tab:green", ls="--", label=f"H1 bound {sprt.upper:.2f}")
        ax2.axhline(sprt.lower, color="tab:orange", ls="--", label=f"H0 bound {sprt.lower:.2f}")
        ax2.set_xlabel("games")
        ax2.set_ylabel("log-likelihood ratio")
        ax2.set_title(f"SPRT [{sprt.elo0:g}, {sprt.elo1:g}] ({sprt.model})")
        ax2.legend(loc="best")
        ax2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# =============================================================================================
# Command line

_ENGINE_KEYS = ("cmd", "name", "proto", "dir", "stderr", "variant", "tc", "st", "depth", "nodes")


def _split_engine_spec(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """``cmd=fairymax,name=FM option.Hash=64`` -> key/value pairs. A comma starts a new pair
    only when ``key=`` follows it, so commands may contain commas."""
    pairs = []
    for tok in tokens:
        for part in re.split(r",(?=(?:option\.[^=,]+|[a-z]+)=)", tok):
            if not part:
                continue
            if "=" not in part:
                raise ValueError(f"bad engine setting {part!r}: expected key=value")
            k, v = part.split("=", 1)
            pairs.append((k.strip(), v))
    return pairs


def engine_config(tokens: Sequence[str], each: Sequence[str] = ()) -> EngineConfig:
    """Build an EngineConfig from ``--engine`` settings (``--each`` settings first)."""
    cfg = EngineConfig(cmd="")
    limits: dict = {}
    for k, v in _split_engine_spec(list(each) + list(tokens)):
        if k.startswith("option."):
            cfg.options[k[7:]] = v
        elif k == "cmd":
            cfg.cmd = v
        elif k in ("name", "proto", "dir", "stderr", "variant"):
            setattr(cfg, k, v)
        elif k == "tc":
            limits["tc"] = Limits.parse(v)
        elif k == "st":
            limits["movetime"] = float(v)
        elif k == "depth":
            limits["depth"] = int(v)
        elif k == "nodes":
            limits["nodes"] = int(v)
        else:
            raise ValueError(f"unknown engine setting {k!r} (known: {', '.join(_ENGINE_KEYS)}, option.NAME)")
    if not cfg.cmd:
        raise ValueError("an engine needs cmd=COMMAND")
    if limits:
        base = limits.pop("tc", Limits())
        cfg.limits = base.with_(**limits)
    return cfg


def add_match_parser(sub) -> argparse.ArgumentParser:
    """Add ``jitfish match`` to the ``jitfish`` command's subparsers."""
    p = sub.add_parser(
        "match", help="engine-vs-engine matches in any variant, refereed by jitfish's rules",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play engine-vs-engine matches (UCI or CECP engines) in any jitfish variant,\n"
                    "every move checked by jitfish's rules. Games come in pairs: the same opening\n"
                    "with the colours swapped.",
        epilog="engine settings (--engine/--each, comma- or space-separated key=value):\n"
               "  cmd=COMMAND  name=NAME  proto=auto|uci|xboard  dir=DIR  option.NAME=VALUE\n"
               "  stderr=FILE  variant=NAME (name sent to the engine)  tc=TC st=SEC depth=N nodes=N\n\n"
               "examples:\n"
               "  jitfish match --variant courier --games 20 --tc 10+0.1 --concurrency 2 \\\n"
               "      --pgn out.pgn --engine cmd=fairymax --engine cmd=jitfish,option.Hash=64\n"
               "  jitfish match --replay out.pgn")
    p.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                   help="an engine (give it twice): cmd=COMMAND[,name=...,proto=...,option.X=Y]")
    p.add_argument("--each", nargs="+", default=[], metavar="KEY=VALUE", help="settings for both engines")
    p.add_argument("--variant", "-v", default="chess", help="variant name or alias (default: chess)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--games", type=int, help="number of games (colours alternate; default 2)")
    g.add_argument("--rounds", type=int, help="number of game pairs (2 games each, colours swapped)")
    p.add_argument("--tc", default=None, help="time control [MOVES/]SECONDS[+INC], e.g. 10+0.1, 40/60, 1:30+1, inf "
                                              "(default 10+0.1 unless --st, --depth or --nodes is given)")
    p.add_argument("--st", type=float, default=None, help="seconds per move (UCI movetime, CECP st)")
    p.add_argument("--depth", type=int, default=None, help="search depth per move")
    p.add_argument("--nodes", type=int, default=None, help="nodes per move (UCI nodes, CECP nps)")
    p.add_argument("--timemargin", type=float, default=100, metavar="MS",
                   help="milliseconds an engine may overstep its clock or movetime (default 100)")
    p.add_argument("--hang-timeout", type=float, default=60, metavar="SEC",
                   help="seconds to wait for a move with no clock (depth/nodes); then the engine loses (default 60)")
    p.add_argument("--start-timeout", type=float, default=120, metavar="SEC",
                   help="seconds an engine may take to start or answer ping/isready (default 120)")
    p.add_argument("--openings", metavar="FILE", help="EPD/FEN file of start positions (one per game pair)")
    p.add_argument("--openings-order", choices=("sequential", "random"), default="sequential")
    p.add_argument("--random-plies", type=int, default=0, metavar="K",
                   help="start each pair from K random plies ending in a balanced position (after --openings if given)")
    p.add_argument("--seed", type=int, default=None, help="seed for the openings (printed; default random)")
    p.add_argument("--concurrency", "-j", type=int, default=1, help="games played at once")
    p.add_argument("--pgn", metavar="FILE", help="append the games to this PGN file (created if missing)")
    p.add_argument("--draw", metavar="SPEC", help="draw adjudication: movenumber=N,movecount=M,score=CP")
    p.add_argument("--resign", metavar="SPEC", help="resign adjudication: movecount=M,score=CP[,twosided=true]")
    p.add_argument("--maxmoves", type=int, help="adjudicate a draw after this many full moves")
    p.add_argument("--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]", help="stop when the SPRT reaches a verdict")
    p.add_argument("--sprt-model", choices=SPRT_MODELS, default="logistic",
                   help="what elo0/elo1 mean and how the LLR is computed: logistic Elo as in the table "
                        "(default), normalized Elo or bayesian (fastchess), cutechess (cutechess-cli's BayesElo)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the Elo estimate and its error band (needs matplotlib)")
    p.add_argument("--debug", metavar="FILE", help="log every protocol line to this file")
    p.add_argument("--event", default="jitfish match", help="PGN Event tag")
    prog = p.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="show the progress bar even when stderr is not a terminal")
    prog.add_argument("--no-progress", dest="progress", action="store_false")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per finished game")
    p.add_argument("--replay", metavar="PGN", help="re-check the games of a PGN with jitfish's rules and exit")
    p.set_defaults(func=run_match)
    return p


def _command_line(args: argparse.Namespace, seed: int | None) -> str:
    """The command that repeats this match (the seed made explicit)."""
    argv = ["jitfish", "match", "--variant", args.variant]
    for tokens in args.engine:
        argv += ["--engine", *tokens]
    if args.each:
        argv += ["--each", *args.each]
    if args.rounds is not None:
        argv += ["--rounds", str(args.rounds)]
    else:
        argv += ["--games", str(args.games if args.games is not None else 2)]
    for opt in ("tc", "st", "depth", "nodes", "openings", "draw", "resign", "maxmoves", "sprt", "plot", "pgn"):
        v = getattr(args, opt)
        if v is not None:
            argv += [f"--{opt}", format_seconds(v) if isinstance(v, float) else str(v)]
    if args.openings:
        argv += ["--openings-order", args.openings_order]
    if args.random_plies:
        argv += ["--random-plies", str(args.random_plies)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if args.sprt:
        argv += ["--sprt-model", args.sprt_model]
    if args.concurrency != 1:
        argv += ["--concurrency", str(args.concurrency)]
    if args.timemargin != 100:
        argv += ["--timemargin", format_seconds(args.timemargin)]
    if args.hang_timeout != 60:
        argv += ["--hang-timeout", format_seconds(args.hang_timeout)]
    return shlex.join(argv)


def build_config(args: argparse.Namespace) -> MatchConfig:
    """A MatchConfig from parsed ``jitfish match`` arguments (ValueError on bad input)."""
    from jitfish.movegen import load_spec

    variant = load_spec(args.variant).name
    if len(args.engine) != 2:
        raise ValueError(f"give exactly two engines with --engine (got {len(args.engine)})")
    engines = [engine_config(tokens, args.each) for tokens in args.engine]
    if args.tc is not None:
        limits = Limits.parse(args.tc)
    elif args.st is None and args.depth is None and args.nodes is None:
        limits = Limits(base=10, inc=0.1)
    else:
        limits = Limits()
    limits = limits.with_(movetime=args.st, depth=args.depth, nodes=args.nodes)
    if limits == Limits() and not all(e.limits for e in engines):
        raise ValueError("--tc inf needs --st, --depth or --nodes: nothing would end a search")
    for v, what in ((args.st, "--st"), (args.depth, "--depth"), (args.nodes, "--nodes")):
        if v is not None and v <= 0:
            raise ValueError(f"{what} must be > 0")
    if args.rounds is not None:
        games = 2 * args.rounds
    else:
        games = args.games if args.games is not None else 2
    if games < 1:
        raise ValueError("play at least one game")
    if args.concurrency < 1:
        raise ValueError("--concurrency must be >= 1")
    needs_seed = args.random_plies > 0 or args.openings_order == "random"
    seed = args.seed if args.seed is not None else (secrets.randbelow(2**31) if needs_seed else None)
    pairs = (games + 1) // 2
    rng = random.Random(seed)
    bases: list[str | None]
    if args.openings:
        fens = load_openings(args.openings, variant)
        if args.openings_order == "random":
            rng.shuffle(fens)
        bases = [fens[i % len(fens)] for i in range(pairs)]
    else:
        bases = [None] * pairs
    openings = []
    if args.random_plies < 0:
        raise ValueError("--random-plies must be >= 0")
    seen: set[tuple[str | None, tuple[str, ...]]] = set()
    for fen in bases:
        if args.random_plies:
            op = random_opening(variant, args.random_plies, rng, fen)
            for _ in range(20):
                if (op.fen, op.moves) not in seen:
                    break
                op = random_opening(variant, args.random_plies, rng, fen)
            seen.add((op.fen, op.moves))
        else:
            op = Opening(fen or load_spec(variant).start_fen)
        openings.append(op)
    sprt = Sprt.parse(args.sprt, args.sprt_model) if args.sprt else None
    return MatchConfig(
        engines=engines, variant=variant, games=games, limits=limits, openings=openings,
        concurrency=args.concurrency, pgn=args.pgn,
        adjudication=Adjudication.build(args.draw, args.resign, args.maxmoves), sprt=sprt,
        timemargin=args.timemargin / 1000.0, hang_timeout=args.hang_timeout,
        start_timeout=args.start_timeout, event=args.event, debug=args.debug, plot=args.plot,
        progress=args.progress, quiet=args.quiet, command=_command_line(args, seed))


def run_match(args: argparse.Namespace) -> int:
    """``jitfish match``: run a match (or ``--replay`` a PGN); returns the exit status."""
    if args.replay:
        try:
            return replay_pgn(args.replay, None if args.variant == "chess" else args.variant)
        except OSError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    from jitfish.movegen import VariantError

    try:
        cfg = build_config(args)
    except (ValueError, VariantError, OSError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print(f"# {cfg.command}", flush=True)
    old_term = None
    if threading.current_thread() is threading.main_thread():
        def on_term(signum, frame):
            raise KeyboardInterrupt

        old_term = signal.signal(signal.SIGTERM, on_term)  # SIGTERM stops the match as Ctrl-C does
    try:
        return Match(cfg).run()
    except FatalMatchError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nInterrupted before the first game", file=sys.stderr)
        return 130
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
