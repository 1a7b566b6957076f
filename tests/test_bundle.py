"""Bundles (``movegen/_jit.py``): the one int64 array that kernels take instead of the
NamedTuples of arrays (a call passing the tuples pushed hundreds of machine words).

A wrong layout would let a kernel read one array as another, so ``pack`` must refuse arrays
that do not match the declared kinds, and the declared kinds must match the real arrays of
every shipped variant.
"""
from __future__ import annotations

import numba
import numpy as np
import pytest

from jitfish.engine import Engine
from jitfish.engine.search import pack_search
from jitfish.eval import eval_tables, pack_eval
from jitfish.movegen import Position, variant_names
from jitfish.movegen import kernels as K
from jitfish.movegen._jit import array_tuple, bundle

Two = array_tuple("Two", "a:i1 b:u3")
One = array_tuple("One", "c:i2")

pack2, unpack2 = bundle(Two, One)
pack_prefix, unpack_prefix = bundle(Two)


@numba.njit(_nrt=False)
def _touch(d):
    two, one = unpack2(d)
    (again,) = unpack_prefix(d)  # a bundle of more classes unpacks with its prefix's unpack
    two.a[2] += 10
    one.c[1, 0] = 7
    return again.a[2] + np.int64(two.b[1, 2, 3]) + two.b.shape[0] * 100 + one.c.shape[1] * 1000


def test_round_trip_reads_and_writes_the_same_arrays():
    two = Two(np.arange(5), np.arange(24, dtype=np.uint64).reshape(2, 3, 4))
    one = One(np.zeros((2, 6), np.int64))
    d = pack2(two, one)
    assert _touch(d) == (2 + 10) + 23 + 200 + 6000
    assert two.a[2] == 12 and one.c[1, 0] == 7


@pytest.mark.parametrize("bad, field", [
    ((np.arange(5, dtype=np.uint64), np.zeros((2, 3, 4), np.uint64)), "Two.a"),
    ((np.arange(5), np.zeros((2, 3), np.uint64)), "Two.b"),
    ((np.arange(10)[::2], np.zeros((2, 3, 4), np.uint64)), "Two.a"),
])
def test_pack_refuses_arrays_that_do_not_match(bad, field):
    with pytest.raises(ValueError, match=field):
        pack2(Two(*bad), One(np.zeros((2, 2), np.int64)))


@pytest.mark.parametrize("fields", ["a:i1 b", "a:x1", "a:i", "1a:i1"])
def test_array_tuple_refuses_a_bad_field(fields):
    with pytest.raises(ValueError, match="bad field"):
        array_tuple("Bad", fields)


@pytest.mark.parametrize("variant", variant_names())
def test_declared_kinds_match_every_variant(variant):
    p = Position(variant)
    K.pack_board(p.pos, p.tab)
    eng = Engine(hash_mb=1)
    pack_search(p.pos, p.tab, eval_tables(p.variant), eng.eval_cache, eng._tables())
    pack_eval(p.pos, p.tab, eval_tables(p.variant), eng.eval_cache)


def test_a_copied_position_gets_its_own_bundle():
    p = Position("chess")
    q = p.copy()
    assert p.b[0, 0] != q.b[0, 0]  # the bb array of each position
    q.push("e2e4")
    assert p.fen().split()[0] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    import copy
    r = copy.deepcopy(q)
    r.push("e7e5")
    assert q.fen() != r.fen() and r.b[0, 0] != q.b[0, 0]
