"""jitfish.eval: the evaluation kernels and their per-variant weights.

``tables.py`` turns a variant's weight file (``eval/weights/<variant>.toml``) into the arrays
the kernels read; ``evaluate.py`` holds the kernels (``evaluate``, ``static_eval``) and
``sf_terms.py`` their Stockfish-shaped terms.
"""
from .evaluate import (EVAL_CACHE, EvalCache, cache_for, clear_cache, eval_of, evaluate, new_cache, pack_eval,
                       static_eval, unpack_eval)
from .tables import WEIGHTS_DIR, EvalTables, eval_tables, search_settings

__all__ = [
    "EVAL_CACHE", "EvalCache", "cache_for", "clear_cache", "eval_of", "EvalTables", "WEIGHTS_DIR", "eval_tables",
    "evaluate", "new_cache", "pack_eval", "search_settings", "static_eval", "unpack_eval",
]
