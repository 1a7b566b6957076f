"""jitfish: a chess-variant engine with numba-compiled bitboard move generation."""
__version__ = "0.1.0"
