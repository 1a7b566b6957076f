"""jitfish.movegen: variant files, Betza, tables, numba kernels, positions and perft."""
from .position import FenError, Move, MoveError, Position, Square, Variant, load_variant
from .spec import VariantError, load_spec, variant_names

__all__ = [
    "FenError", "Move", "MoveError", "Position", "Square", "Variant", "VariantError",
    "load_spec", "load_variant", "variant_names",
]
