"""jitfish.engine: the search (``search.py``, numba kernels) and the typed ``Engine`` API
(``api.py``: ``Engine``, ``Limits``, ``SearchInfo``, ``SearchResult``, ``time_budget``)."""
from .api import Engine, Limits, SearchInfo, SearchResult, time_budget

__all__ = ["Engine", "Limits", "SearchInfo", "SearchResult", "time_budget"]
