"""The exceptions of the Position API (``VariantError`` is the spec's, in spec.py)."""
from __future__ import annotations

__all__ = ["FenError", "MoveError"]


class FenError(ValueError):
    """A FEN this variant cannot accept; the message names the problem."""


class MoveError(ValueError):
    """A move string that is malformed or not legal here; the message says which and why."""
