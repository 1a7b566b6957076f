"""Match statistics: Elo with error bars, LOS, pentanomial Elo and the SPRT.

Formulas as cutechess-cli (projects/lib/src/elo.cpp, sprt.cpp) and fastchess
(app/src/matchmaking/elo/elo_wdl.cpp, elo_pentanomial.cpp, sprt/sprt.cpp) document them.
Results are from the first engine's point of view: W wins, L losses, D draws.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum
from statistics import NormalDist
from typing import Callable, Sequence

__all__ = [
    "elo_from_score", "score_from_elo", "EloEstimate", "elo_wdl", "elo_pentanomial", "los",
    "SprtModel", "Sprt", "sprt_llr", "fmt_elo", "fmt_elo_error",
]

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054, fastchess's CI95ZSCORE

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


class SprtModel(StrEnum):
    """What elo0/elo1 mean and how the LLR is computed."""

    LOGISTIC = "logistic"  # logistic Elo, as the Elo table prints it
    NORMALIZED = "normalized"  # normalized Elo (fastchess)
    BAYESIAN = "bayesian"  # BayesElo with a draw Elo (fastchess)
    CUTECHESS = "cutechess"  # cutechess-cli's BayesElo


def sprt_llr(counts: Sequence[int], elo0: float, elo1: float, model: str = SprtModel.LOGISTIC) -> float:
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
    try:
        model = SprtModel(model)
    except ValueError:
        raise ValueError(f"unknown SPRT model {model!r} ({', '.join(SprtModel)})") from None

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
    if model is SprtModel.NORMALIZED:
        k = 800.0 / math.log(10.0)
        f = math.sqrt(2.0) if penta else 1.0
        p0 = _mle_t(scores, probs, f * elo0 / k)
        p1 = _mle_t(scores, probs, f * elo1 / k)
    elif model is SprtModel.LOGISTIC:
        p0 = _mle_mean(scores, probs, score_from_elo(elo0))
        p1 = _mle_mean(scores, probs, score_from_elo(elo1))
    elif model is SprtModel.BAYESIAN:
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
    else:  # SprtModel.CUTECHESS
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
    return total * sum(ph * (math.log(b) - math.log(a)) for ph, a, b in zip(probs, p0, p1))


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
    model: SprtModel = SprtModel.LOGISTIC

    def __post_init__(self):
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT: alpha and beta must be in (0, 1) with alpha + beta < 1")
        try:
            object.__setattr__(self, "model", SprtModel(self.model))
        except ValueError:
            raise ValueError(f"SPRT: unknown model {self.model!r} ({', '.join(SprtModel)})") from None

    @staticmethod
    def parse(text: str, model: str = SprtModel.LOGISTIC) -> "Sprt":
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


def fmt_elo_error(e: EloEstimate) -> str:
    """``+/- 66.3``, or the one-sided 95% bound when the interval reaches a score of 0 or 1."""
    if not math.isnan(e.error) or math.isnan(e.lower):
        return f"+/- {fmt_elo(e.error, False)}"
    if e.variance == 0:
        return "(every game the same result: no error bar)"
    if math.isinf(e.upper) and not math.isinf(e.lower):
        return f"(95%: > {fmt_elo(e.lower)})"
    if math.isinf(e.lower) and not math.isinf(e.upper):
        return f"(95%: < {fmt_elo(e.upper)})"
    return "(95%: unbounded)"


def fmt_elo(x: float, sign: bool = True) -> str:
    """``+12.3``; an even score prints ``+0.0``, not ``-0.0`` (-400 log10(1) is -0.0).

    >>> fmt_elo(elo_from_score(0.5)), fmt_elo(-0.04)
    ('+0.0', '+0.0')
    """
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return ("+" if x > 0 else "-") + "inf" if sign else "inf"
    x = round(x, 1) + 0.0  # -0.0 + 0.0 is +0.0
    return f"{x:+.1f}" if sign else f"{x:.1f}"
