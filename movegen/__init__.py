"""jitfish.movegen: the rules. Variant files, Betza, tables, numba kernels, and the ``Position``
API above them (FEN, coordinate moves, SAN, PGN, verdicts, perft)."""
from .pgn import PgnGame, read_pgn, write_pgn
from .position import FenError, Move, MoveError, Position, Square, Variant, load_variant
from .spec import VariantError, add_variant_path, load_spec, resolve_name, variant_names

__all__ = [
    "FenError", "Move", "MoveError", "PgnGame", "Position", "Square", "Variant", "VariantError",
    "add_variant_path", "load_spec", "load_variant", "read_pgn", "resolve_name", "variant_names",
    "write_pgn",
]
