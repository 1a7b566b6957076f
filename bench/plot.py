"""``jitfish match --plot``: the Elo estimate with its error band (and the SPRT's LLR) over the
games, drawn with matplotlib (an optional dependency: ``pip install 'jitfish[plot]'``)."""
from __future__ import annotations

import math
from typing import Sequence

from .stats import Sprt

__all__ = ["plot_history", "require_matplotlib"]


def require_matplotlib():
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
    matplotlib = require_matplotlib()
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
