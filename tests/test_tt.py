"""The transposition table's store and probe (``engine/tt.py``) on a table of 16 slots: one slot
per key (``tt_bucket`` 0, the default) and buckets replaced by depth and age (``tt_bucket`` 4),
driven through the kernels the search calls, and the search number's checks."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from jitfish.engine import Engine, Limits
from jitfish.engine.tt import (BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, C_TT_GEN, C_TT_WAYS, entry_bound, entry_depth,
                               entry_move, entry_on_pv, entry_score, qs_store, tt_probe, tt_store)
from jitfish.movegen import Position

SLOTS = 16


@numba.njit(cache=False)
def _store(ss, key, move, depth, bound, score, on_pv=0):
    tt_store(ss, np.uint64(key), move, depth, bound, score, on_pv)


@numba.njit(cache=False)
def _fields(data):
    return entry_move(data), entry_depth(data), entry_bound(data), entry_on_pv(data), entry_score(data)


@numba.njit(cache=False)
def _qs_store(ss, key, move, score):
    qs_store(ss, np.uint64(key), move, BOUND_LOWER, score)


@numba.njit(cache=False)
def _probe(ss, key):
    return tt_probe(ss, np.uint64(key))


class Table:
    """An Engine's search tables with a 16-slot TT, its layout and generation set by hand."""

    def __init__(self, ways: int, gen: int = 1):
        self.eng = Engine(hash_mb=1)
        self.eng.tt_key = np.zeros(SLOTS, np.uint64)
        self.eng.tt_data = np.full(SLOTS, -1, np.int64)
        self.ss = self.eng._tables()
        self.ss.ctrl[C_TT_WAYS] = ways
        self.ss.ctrl[C_TT_GEN] = gen

    def store(self, key: int, depth: int, move: int = 1, bound: int = BOUND_LOWER, score: int = 10) -> None:
        _store(self.ss, key, move, depth, bound, score)

    def qs(self, key: int, move: int = 1) -> None:
        _qs_store(self.ss, key, move, 5)

    def depth(self, key: int) -> int | None:
        """The stored entry's depth for key, None when the table does not hold it."""
        data = int(_probe(self.ss, key))
        return None if data < 0 else _fields(data)[1]

    def fields(self, key: int) -> tuple[int, int, int, int, int]:
        """(move, depth, bound, on a PV, score) of key's entry, read as the search reads them."""
        data = int(_probe(self.ss, key))
        assert data >= 0
        return tuple(int(f) for f in _fields(data))

    def age(self) -> None:
        self.ss.ctrl[C_TT_GEN] += 1


def bucket0(j: int) -> int:
    """Keys j = 0, 1, ... that all fall into the first bucket of 4 (and onto slot 0 alone of a
    one-slot table when j is a multiple of 4)."""
    return (j + 1) << 4


@pytest.mark.parametrize("ways", [0, 4])
@pytest.mark.parametrize("move,depth,bound,on_pv,score", [
    (0xFFFFF, 255, BOUND_EXACT, 1, 32767), (1, 0, BOUND_UPPER, 0, -32768), (0x12345, 17, BOUND_LOWER, 1, -5)])
def test_every_field_of_an_entry_reads_back_as_stored(ways, move, depth, bound, on_pv, score) -> None:
    t = Table(ways, gen=63)
    _store(t.ss, bucket0(1), move, depth, bound, score, on_pv)
    assert t.fields(bucket0(1)) == (move, depth, bound, on_pv, score)


def test_a_store_without_a_move_keeps_the_keys_move() -> None:
    t = Table(0)
    t.store(bucket0(0), 3, move=777)
    t.store(bucket0(0), 5, move=0, score=-40)
    assert t.fields(bucket0(0)) == (777, 5, BOUND_LOWER, 0, -40)
    t.store(bucket0(4), 6, move=0)  # another key in the slot: nothing of the old entry's move
    assert t.fields(bucket0(4))[0] == 0


def test_one_slot_per_key_is_always_replaced_by_another_key() -> None:
    t = Table(0)
    t.store(bucket0(0), 9)
    t.store(bucket0(4), 2)  # the same slot: a shallower entry of another key replaces it
    assert t.depth(bucket0(0)) is None and t.depth(bucket0(4)) == 2
    t.store(bucket0(4), 1)  # the same key shallower, not exact: kept
    assert t.depth(bucket0(4)) == 2
    t.store(bucket0(4), 1, bound=BOUND_EXACT)
    assert t.depth(bucket0(4)) == 1


def test_a_bucket_holds_four_keys_and_gives_up_the_shallowest() -> None:
    t = Table(4)
    for j, d in enumerate((5, 8, 6, 7)):
        t.store(bucket0(j), d)
    assert [t.depth(bucket0(j)) for j in range(4)] == [5, 8, 6, 7]
    t.store(bucket0(4), 3)  # a fifth key: the depth-5 entry goes, even for a shallower one
    assert [t.depth(bucket0(j)) for j in range(5)] == [None, 8, 6, 7, 3]
    t.store(bucket0(1), 2)  # the same key, shallower, of this search: kept
    assert t.depth(bucket0(1)) == 8


def test_older_searches_entries_give_way() -> None:
    t = Table(4)
    for j, d in enumerate((9, 10, 11, 12)):
        t.store(bucket0(j), d)
    t.age()
    t.store(bucket0(1), 4)  # an entry of the last search gives way to a shallower one of this search
    assert t.depth(bucket0(1)) == 4
    t.age()  # now 9 - 16, 4 - 8, 11 - 16, 12 - 16: the depth-9 entry is worth least
    t.store(bucket0(5), 1)
    assert [t.depth(bucket0(j)) for j in (0, 1, 2, 3, 5)] == [None, 4, 11, 12, 1]


def test_quiescence_never_replaces_the_main_searchs_entries_of_this_search() -> None:
    t = Table(4)
    for j in range(4):
        t.store(bucket0(j), 1 + j)
    t.qs(bucket0(4))
    assert t.depth(bucket0(4)) is None and all(t.depth(bucket0(j)) == 1 + j for j in range(4))
    t.qs(bucket0(2))  # nor the same key's
    assert t.depth(bucket0(2)) == 3
    t.age()
    t.qs(bucket0(4))  # an earlier search's entry may go
    assert t.depth(bucket0(4)) == 0 and t.depth(bucket0(0)) is None
    t.qs(bucket0(5))  # the one worth least: depth 2 a search ago (-6) before this search's depth 0
    assert t.depth(bucket0(5)) == 0 and t.depth(bucket0(1)) is None and t.depth(bucket0(4)) == 0
    one = Table(0)
    one.store(bucket0(0), 3)
    one.qs(bucket0(4))
    assert one.depth(bucket0(0)) == 3 and one.depth(bucket0(4)) is None


def test_tt_bucket_takes_only_the_layouts_it_knows() -> None:
    eng = Engine(hash_mb=1)
    with pytest.raises(ValueError, match="tt_bucket"):
        eng.set_params({"tt_bucket": 3})
    eng.set_params({"tt_bucket": 8})
    res = eng.search(Position("chess"), Limits(depth=5))
    assert res.best is not None and eng.ctrl[C_TT_WAYS] == 8 and eng.ctrl[C_TT_GEN] == 1
    eng.search(Position("chess"), Limits(depth=3))
    assert eng.ctrl[C_TT_GEN] == 2
