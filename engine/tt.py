"""The transposition table's kernels: probe and store (``search.py`` calls them).

The table is two arrays of ``SearchTables`` (``tt_key``: the full Zobrist key, ``tt_data``: the
entry, -1 when empty).  An entry packs the move (bits 0..19), the depth (20..27), the bound
(28..29), whether a PV node stored it (30: Stockfish's ttPv), the score + 2**15 (32..47) and the
search that stored it (48..53: the generation, mod 64).

Two layouts, chosen per search by the ``tt_bucket`` search number (the Engine copies it into
``ctrl[C_TT_WAYS]``, and its search count into ``ctrl[C_TT_GEN]``):

- 0 or 1: one slot per key, always replaced, except by a shallower non-exact entry for the same key
  (jitfish's table up to the forty-third session);
- 2, 4, 8: buckets of that many slots, as Stockfish's clusters: a key may stand in any slot of its
  bucket, and a new key takes the empty slot, else the one worth least, its depth less 8 per search
  since it was stored (an old deep entry gives way, a current one stays).

Quiescence stores depth 0 and never over the main search's entries of the current search.
"""
from __future__ import annotations

import numpy as np

from jitfish.movegen._jit import helper

__all__ = ["BOUND_EXACT", "BOUND_LOWER", "BOUND_UPPER", "C_TT_WAYS", "C_TT_GEN", "TT_WAYS", "tt_probe",
           "tt_store", "qs_store", "entry_move", "entry_depth", "entry_bound", "entry_on_pv", "entry_score"]

BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 3, 1, 2
C_TT_WAYS, C_TT_GEN = 6, 7  # the slots of SearchTables.ctrl this module reads (search.py's C_* are 0..5)
TT_WAYS = (0, 1, 2, 4, 8)  # the layouts ``tt_bucket`` may name
GEN_SHIFT = 48
GEN_MASK = 63
AGE_WEIGHT = 8  # a search's age is worth this many plies of depth (Stockfish's GENERATION_DELTA)


@helper
def bucket(ss, key):
    """(first slot, slots) of key's bucket: one slot in the one-slot layout."""
    n = ss.tt_key.shape[0]
    ways = max(ss.ctrl[C_TT_WAYS], 1)
    return np.int64(key & np.uint64(n - ways)), ways


@helper
def tt_slot(ss, key):
    """The slot that holds key, or -1."""
    base, ways = bucket(ss, key)
    for j in range(ways):
        if ss.tt_key[base + j] == key:
            return base + j
    return np.int64(-1)


@helper
def tt_probe(ss, key):
    """The entry stored for key, or -1."""
    i = tt_slot(ss, key)
    return ss.tt_data[i] if i >= 0 else np.int64(-1)


@helper
def entry_age(ss, data):
    """Searches since the entry was stored (mod 64)."""
    return (ss.ctrl[C_TT_GEN] - (data >> GEN_SHIFT)) & GEN_MASK


# The entry's fields: tt_write packs them, these read them (the layout lives only in this module).
MOVE_MASK = 0xFFFFF
DEPTH_SHIFT, BOUND_SHIFT, PV_SHIFT, SCORE_SHIFT = 20, 28, 30, 32
SCORE_BIAS = 32768


@helper
def entry_move(data):
    return data & MOVE_MASK


@helper
def entry_depth(data):
    return (data >> DEPTH_SHIFT) & 255


@helper
def entry_bound(data):
    return (data >> BOUND_SHIFT) & 3


@helper
def entry_on_pv(data):
    """1 if a node on a PV stored the entry (Stockfish's ttPv), else 0."""
    return (data >> PV_SHIFT) & 1


@helper
def entry_score(data):
    """The stored score, as the storing node saw it (search.value_from_tt makes it this ply's)."""
    return ((data >> SCORE_SHIFT) & 0xFFFF) - SCORE_BIAS


@helper
def of_this_search(ss, data):
    """Does the entry hold against shallower stores: stored by this search, or any entry in the
    one-slot layout (which keeps no age)?"""
    return ss.ctrl[C_TT_WAYS] <= 1 or entry_age(ss, data) == 0


@helper
def victim(ss, key):
    """The slot a store for key goes to: the key's own slot, else its bucket's empty slot or the
    one worth least (depth - AGE_WEIGHT x age)."""
    base, ways = bucket(ss, key)
    best = base
    worth = np.int64(1 << 20)
    for j in range(ways):
        i = base + j
        if ss.tt_key[i] == key:
            return i
        d = ss.tt_data[i]
        v = np.int64(-(1 << 20)) if d < 0 else entry_depth(d) - AGE_WEIGHT * entry_age(ss, d)
        if v < worth:
            best = i
            worth = v
    return best


@helper
def tt_write(ss, i, key, move, depth, bound, score, on_pv):
    """Slot i takes the entry (on_pv: 1 if stored by a node on a PV); without a move of its own
    it keeps the move the slot held for the same key."""
    old = ss.tt_data[i]
    if move == 0 and ss.tt_key[i] == key and old >= 0:
        move = entry_move(old)
    ss.tt_key[i] = key
    ss.tt_data[i] = (move & MOVE_MASK) | (max(depth, 0) << DEPTH_SHIFT) | (bound << BOUND_SHIFT) \
        | (on_pv << PV_SHIFT) | ((score + SCORE_BIAS) << SCORE_SHIFT) \
        | ((ss.ctrl[C_TT_GEN] & GEN_MASK) << GEN_SHIFT)


@helper
def tt_store(ss, key, move, depth, bound, score, on_pv):
    """The main search's store: over the same key's entry unless that one is deeper, of this
    search, and this is no exact bound."""
    i = victim(ss, key)
    old = ss.tt_data[i]
    if ss.tt_key[i] == key and old >= 0 and entry_depth(old) > depth and bound != BOUND_EXACT \
            and of_this_search(ss, old):
        return
    tt_write(ss, i, key, move, depth, bound, score, on_pv)


@helper
def qs_store(ss, key, move, bound, score):
    """Quiescence's store (depth 0): into an empty slot or one that holds depth 0 (or, with
    buckets, a main-search entry of an earlier search), never over one of the main search's."""
    i = victim(ss, key)
    old = ss.tt_data[i]
    if old >= 0 and entry_depth(old) > 0 and of_this_search(ss, old):
        return
    tt_write(ss, i, key, move, 0, bound, score, 0)
