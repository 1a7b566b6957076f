"""The evaluation kernels: static evaluation of a position from the side to move.

The terms and their weights are documented in ``tables.py`` (weights are data, in
``eval/weights/<variant>.toml``); the Stockfish-shaped terms' helpers are in ``sf_terms.py``.
The kernels take an *evaluation bundle* ``d`` (see ``movegen._jit.bundle``): the position, the
variant's tables, the ``EvalTables`` and an ``EvalCache``, in that order, so a search bundle
that starts with these four can be passed as it is.

==========  ==================  ==============================================================
array       shape, dtype        meaning
==========  ==================  ==============================================================
key, val    (2**k,) uint64,     the evaluation cache: Zobrist key and complete evaluation
            int64               (before the 50-move scaling, which the key does not hold)
acc         (256, 2, H) int64   the network's accumulators, one per ring slot (``network.py``)
acc_key     (256,) uint64       the Zobrist key of the position each slot's accumulator is for
att         (24, 2, 2) uint64   scratch: attacks by type and colour, all, twice, by pawn-like
                                pieces (``sf_king``, ``sf_threats``; rewritten by each evaluation)
pkey, pval  (2**j,) uint64,     the pawn cache: ``pawn_key`` of the pawn-like pieces, and
            (2**j, 2) int64     ``pawn_structure``'s (mg, eg) White minus Black, at ``sf_scale``
==========  ==================  ==============================================================
"""
from __future__ import annotations

import numpy as np

from jitfish.movegen import kernels as K
from jitfish.movegen._jit import array_tuple, bundle, helper, kernel, lsb
from jitfish.movegen.kernels import Pos
from jitfish.movegen.tables import CFG_CONVERSION, CFG_FIFTY, CFG_FILES, CFG_NTYPES, CFG_RANKS, CFG_ROYAL, Tables

from .network import nn_accumulator, nn_output
from .sf_terms import distance, is_passed, sdiv, sf_king, sf_passed, sf_pawns, sf_threats
from .tables import (MOB_N, P_FILE_TERMS, P_HANGING, P_KING_DANGER, P_KING_DANGER_SQ, P_KING_SCALE, P_MOB_AREA, P_MOPUP,
                     P_MOPUP_MARGIN, P_NN_B2, P_NN_MODE, P_PAIR_TERMS, P_PASSED_PATH, P_PAWN_STRUCT, P_PHASE_TOTAL,
                     P_SAFETY_PENALTY, P_SAFETY_TYPE, P_SF_SCALE, P_SHIELD, P_TEMPO, P_THREAT_PAWN,
                     EvalTables)

__all__ = ["EvalCache", "new_cache", "clear_cache", "cache_for", "eval_of", "pack_eval", "unpack_eval", "evaluate",
           "static_eval", "EVAL_CACHE", "INF", "LAZY_MARGIN"]

INF = 32000  # beyond every score (the search's window bound too)
EVAL_CACHE = 1 << 16  # entries of the evaluation cache
LAZY_MARGIN = 300  # quiescence skips mobility and king safety this far outside its window

EvalCache = array_tuple("EvalCache", "key:u1 val:i1 acc:i3 acc_key:u1 att:u3 pkey:u1 pval:i2")
PAWN_CACHE = 1 << 13  # entries of the pawn cache (a pawn structure repeats across most of a search)
SF_ROWS = 24  # rows of the attack scratch (``EvalCache.att``): a row per type, then all, twice, pawn-like
pack_eval, unpack_eval = bundle(Pos, Tables, EvalTables, EvalCache)


def new_cache(size: int = EVAL_CACHE, hidden: int = 1) -> EvalCache:
    """An empty evaluation cache (``size`` a power of two) with accumulators for a network of
    ``hidden`` units (``EvalTables.nn_b1.shape[0]``; 1 when the variant has none)."""
    return EvalCache(np.zeros(size, np.uint64), np.zeros(size, np.int64),
                     np.zeros((K.DIRTY_RING, 2, hidden), np.int64), np.zeros(K.DIRTY_RING, np.uint64),
                     np.zeros((SF_ROWS, 2, 2), np.uint64), np.zeros(PAWN_CACHE, np.uint64),
                     np.zeros((PAWN_CACHE, 2), np.int64))


def clear_cache(cache: EvalCache) -> None:
    """Forget every cached evaluation, accumulator and pawn structure (a new game, or other tables)."""
    cache.key[:] = 0
    cache.acc_key[:] = 0
    cache.pkey[:] = 0


def cache_for(cache: EvalCache | None, ev: EvalTables) -> EvalCache:
    """``cache`` when its accumulators fit ``ev``'s network, else a new cache that does."""
    hidden = ev.nn_b1.shape[0]
    if cache is not None and cache.acc.shape[2] == hidden:
        return cache
    return new_cache(cache.key.shape[0] if cache is not None else EVAL_CACHE, hidden)


@helper
def conversion_threat(tab, bb, sq, c, conv, occ0, occ1):
    """Can a colour-c converting piece (Cleopatra) move to a square from which it attacks sq?
    Only the piece that moves converts, so this, not an attack on sq now, is the threat.  The
    squares attacking sq are the converting piece's own pattern from sq (symmetric moves)."""
    q0 = bb[K.ROW_TYPE + conv, 0] & bb[c, 0]
    q1 = bb[K.ROW_TYPE + conv, 1] & bb[c, 1]
    if (q0 | q1) == K.ZERO:
        return False
    _m0, _m1, a0, a1 = K.piece_targets(tab, conv, c, sq, occ0, occ1, np.int64(0))
    for w in range(2):
        b = q0 if w == 0 else q1
        while b:
            s = lsb(b) + 64 * w
            b &= b - K.ONE
            m0, m1, _c0, _c1 = K.piece_targets(tab, conv, c, s, occ0, occ1, np.int64(0))
            if (m0 & ~occ0 & a0) | (m1 & ~occ1 & a1):
                return True
    return False


@helper
def target_count(bb, c, m0, m1, c0, c1, occ0, occ1):
    """A colour-c piece's mobility: the empty squares it moves to (m0, m1) and the enemy pieces
    it captures on (c0, c1)."""
    return K.popcount(((m0 & ~occ0) | (c0 & bb[1 - c, 0]))) + K.popcount(((m1 & ~occ1) | (c1 & bb[1 - c, 1])))


@helper
def mobility_area(tab, ev, bb, occ0, occ1):
    """Stockfish's mobility area of White and of Black, words 0 and 1: (a00, a01, a10, a11).  A
    side's area leaves out its royal piece, its pawn-like pieces that cannot move (blocked) or
    stand on their second or third rank, and the squares the enemy's pawn-like pieces attack."""
    T = tab.cfg[CFG_NTYPES]
    royal = tab.cfg[CFG_ROYAL]
    x00 = K.ZERO  # what White's area leaves out (words 0, 1), then Black's
    x01 = K.ZERO
    x10 = K.ZERO
    x11 = K.ZERO
    for t in range(T):
        if not tab.pawnlike[t] and t != royal:
            continue
        for c in range(2):
            for w in range(2):
                b = bb[K.ROW_TYPE + t, w] & bb[c, w]
                while b:
                    sq = lsb(b) + 64 * w
                    bit = b & (~b + K.ONE)
                    b &= b - K.ONE
                    if t == royal:
                        x00, x01, x10, x11 = leave_out(c, w, bit, x00, x01, x10, x11)
                    else:
                        m0, m1, c0, c1 = K.piece_targets(tab, t, c, sq, occ0, occ1, np.int64(0))
                        x00, x01, x10, x11 = pawn_leaves_out(ev, c, w, bit, m0, m1, c0, c1, occ0, occ1,
                                                             x00, x01, x10, x11)
    return ~x00, ~x01, ~x10, ~x11


@helper
def leave_out(c, w, bit, x00, x01, x10, x11):
    """Colour c's mobility area leaves out bit (word w): the sets of what White's and Black's
    areas leave out, (x00, x01, x10, x11), with it added."""
    if c == 0:
        if w == 0:
            x00 |= bit
        else:
            x01 |= bit
    elif w == 0:
        x10 |= bit
    else:
        x11 |= bit
    return x00, x01, x10, x11


@helper
def pawn_leaves_out(ev, c, w, bit, m0, m1, c0, c1, occ0, occ1, x00, x01, x10, x11):
    """What a colour-c pawn-like piece on bit (word w; its targets m, c) takes out of the mobility
    areas: the squares it attacks out of the other side's, itself out of its own when it cannot
    move or stands on a low rank."""
    if c == 0:
        x10 |= c0
        x11 |= c1
    else:
        x00 |= c0
        x01 |= c1
    if ((m0 & ~occ0) | (m1 & ~occ1)) == K.ZERO or (ev.lowrank[c, w] & bit) != K.ZERO:
        x00, x01, x10, x11 = leave_out(c, w, bit, x00, x01, x10, x11)
    return x00, x01, x10, x11


@helper
def area_count(m0, m1, c0, c1, occ0, occ1, a0, a1):
    """A piece's mobility within an area: the squares it attacks (own pieces included) and the
    empty squares it moves to."""
    return K.popcount(((c0 & occ0) | (m0 & ~occ0)) & a0) + K.popcount(((c1 & occ1) | (m1 & ~occ1)) & a1)


@helper
def pawn_sets(tab, bb):
    """White's and Black's pawn-like pieces, words 0 and 1: (wp0, wp1, bp0, bp1)."""
    wp0 = K.ZERO
    wp1 = K.ZERO
    bp0 = K.ZERO
    bp1 = K.ZERO
    for t in range(tab.cfg[CFG_NTYPES]):
        if tab.pawnlike[t]:
            wp0 |= bb[K.ROW_TYPE + t, 0] & bb[0, 0]
            wp1 |= bb[K.ROW_TYPE + t, 1] & bb[0, 1]
            bp0 |= bb[K.ROW_TYPE + t, 0] & bb[1, 0]
            bp1 |= bb[K.ROW_TYPE + t, 1] & bb[1, 1]
    return wp0, wp1, bp0, bp1


@helper
def mix64(h, x):
    """One step of a multiplicative hash of 64-bit words."""
    h = (h ^ x) * np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(29))


@helper
def pawn_key(tab, bb, wp0, wp1, bp0, bp1):
    """A 64-bit hash of where the pawn-like pieces stand (each colour's, and each pawn-like type's
    squares), never 0 (an empty slot of the pawn cache)."""
    h = mix64(mix64(mix64(mix64(np.uint64(0x243F6A8885A308D3), wp0), wp1), bp0), bp1)
    for t in range(tab.cfg[CFG_NTYPES]):
        if tab.pawnlike[t]:
            h = mix64(mix64(h, bb[K.ROW_TYPE + t, 0]), bb[K.ROW_TYPE + t, 1])
    return h | K.ONE


@helper
def file_state(ev, tab, c, sq, wp0, wp1, bp0, bp1):
    """The file of sq for a colour-c piece: 0 open (no pawn-like piece), 1 half-open (only the
    enemy's), -1 neither."""
    f = sq % tab.cfg[CFG_FILES]
    m0 = ev.filemask[f, 0]
    m1 = ev.filemask[f, 1]
    own = ((m0 & wp0) | (m1 & wp1)) if c == 0 else ((m0 & bp0) | (m1 & bp1))
    if own != K.ZERO:
        return -1
    enemy = ((m0 & bp0) | (m1 & bp1)) if c == 0 else ((m0 & wp0) | (m1 & wp1))
    return 1 if enemy != K.ZERO else 0


FEAT_MOBILITY, FEAT_PASSED, FEAT_FILE = 0, 1, 2  # the kinds of ``feature_rows``


@kernel
def feature_rows(d, out):
    """Rows (kind, type, colour, index) into ``out`` (shape (n, 4)) for the evaluation's count and
    rank terms, of every piece they can apply to: FEAT_MOBILITY (pieces neither pawn-like nor
    royal: index = target squares as ``mobility`` counts them), FEAT_PASSED (passed pawn-like
    pieces: index = ranks beyond the second), FEAT_FILE (pieces neither pawn-like nor royal on an
    open (0) or half-open (1) file).  Returns the number of rows.  For the tools that fit these
    tables (``bench/tune_psqt.py``); the search never calls it."""
    pos, tab, ev, _cache = unpack_eval(d)
    bb = pos.bb
    occ0 = bb[0, 0] | bb[1, 0]
    occ1 = bb[0, 1] | bb[1, 1]
    T = tab.cfg[CFG_NTYPES]
    R = tab.cfg[CFG_RANKS]
    wp0, wp1, bp0, bp1 = pawn_sets(tab, bb)
    area = ev.params[P_MOB_AREA] != 0
    ma00, ma01, ma10, ma11 = mobility_area(tab, ev, bb, occ0, occ1)
    k = 0
    for t in range(T):
        if t == tab.cfg[CFG_ROYAL]:
            continue
        for c in range(2):
            for w in range(2):
                b = bb[K.ROW_TYPE + t, w] & bb[c, w]
                while b and k < out.shape[0] - 1:
                    sq = lsb(b) + 64 * w
                    b &= b - K.ONE
                    if tab.pawnlike[t]:
                        if is_passed(ev, c, sq, wp0, wp1, bp0, bp1):
                            r = sq // tab.cfg[CFG_FILES]
                            out[k, 0] = FEAT_PASSED
                            out[k, 1] = t
                            out[k, 2] = c
                            out[k, 3] = max(0, (r if c == 0 else R - 1 - r) - 1)
                            k += 1
                        continue
                    m0, m1, c0, c1 = K.piece_targets(tab, t, c, sq, occ0, occ1, np.int64(0))
                    out[k, 0] = FEAT_MOBILITY
                    out[k, 1] = t
                    out[k, 2] = c
                    if area:
                        out[k, 3] = area_count(m0, m1, c0, c1, occ0, occ1, ma00 if c == 0 else ma10,
                                               ma01 if c == 0 else ma11)
                    else:
                        out[k, 3] = target_count(bb, c, m0, m1, c0, c1, occ0, occ1)
                    k += 1
                    fs = file_state(ev, tab, c, sq, wp0, wp1, bp0, bp1)
                    if fs >= 0:
                        out[k, 0] = FEAT_FILE
                        out[k, 1] = t
                        out[k, 2] = c
                        out[k, 3] = fs
                        k += 1
    return k


def fifty_scaled(s: int, half: int, fifty: int) -> int:
    """``evaluate``'s 50-move scaling of a score in Python (tools and tests that predict the
    kernel's output)."""
    if fifty > 0 and half > 0:
        num, den = s * (2 * fifty - min(half, fifty)), 2 * fifty
        return num // den if num >= 0 else -((-num) // den)
    return s


@helper
def evaluate(d, alpha, beta):
    """Static evaluation from the side to move, on an evaluation bundle ``d`` (``pack_eval``,
    or any bundle that starts with the same tuples, as the search's does).

    Full evaluations go through the evaluation cache (``EvalCache``, by Zobrist key).  Lazy evaluation: when the cheap terms (material, squares, passed pawns) already lie
    ``LAZY_MARGIN`` outside (alpha, beta), mobility and king safety are not computed (quiescence
    passes its window; the main search passes an infinite one).  The 50-move scaling comes
    last, as the key does not hold the counter."""
    pos, tab, _ev, cache = unpack_eval(d)
    key = pos.keys[pos.st[K.ST_PLY]]
    slot = key & np.uint64(cache.key.shape[0] - 1)
    if cache.key[slot] == key:
        s = cache.val[slot]
    else:
        s, full = evaluate_terms(d, alpha, beta)
        if full:
            cache.key[slot] = key
            cache.val[slot] = s
    # as the 50-move counter runs, the evaluation shrinks towards a draw
    fifty = tab.cfg[CFG_FIFTY]
    half = pos.st[K.ST_HALF]
    if fifty > 0 and half > 0:
        s = sdiv(s * (2 * fifty - min(half, fifty)), 2 * fifty)
    return s


@helper
def evaluate_terms(d, alpha, beta):
    """(evaluation from the side to move, complete?) -- see ``evaluate``."""
    pos, tab, ev, cache = unpack_eval(d)
    us = pos.st[K.ST_SIDE]
    nn_mode = ev.params[P_NN_MODE]
    nn = np.int64(0)
    if nn_mode != 0:
        nn = nn_output(ev, cache.acc[nn_accumulator(pos, ev, cache)], us, ev.params[P_NN_B2])
        if nn_mode == 1:
            return nn, True
    bb = pos.bb
    cnt = pos.cnt
    occ0 = bb[0, 0] | bb[1, 0]
    occ1 = bb[0, 1] | bb[1, 1]
    T = tab.cfg[CFG_NTYPES]
    # pawn-like pieces of each colour (words 0 and 1), the phase and the material balance
    wp0, wp1, bp0, bp1 = pawn_sets(tab, bb)
    npm = np.int64(0)
    mat = np.int64(0)
    for t in range(T):
        npm += (cnt[0, t] + cnt[1, t]) * ev.phase_w[t]
        mat += (cnt[0, t] - cnt[1, t]) * ev.value[t]
    total = ev.params[P_PHASE_TOTAL]
    phase = min(npm, total) * 256 // total
    k0 = pos.st[K.ST_KSQ]
    k1 = pos.st[K.ST_KSQ + 1]
    if tab.cfg[CFG_ROYAL] < 0:
        k0 = -1
        k1 = -1
    # Pass 1: square values, passed pawns, files
    files_on = ev.params[P_FILE_TERMS] != 0
    mg = np.int64(0)
    eg = np.int64(0)
    for w in range(2):
        b = bb[0, w] | bb[1, w]
        while b:
            sq = lsb(b) + 64 * w
            b &= b - K.ONE
            code = pos.board[sq]
            mg += ev.psq[code, sq]
            eg += ev.psq_eg[code, sq]
            pb = ev.passed[code, sq]
            pm = ev.passed_mg[code, sq]
            if (pb != 0 or pm != 0) and is_passed(ev, (code - 1) & 1, sq, wp0, wp1, bp0, bp1):
                mg += pm
                eg += pb
            if files_on:
                t = (code - 1) >> 1
                fs = -1
                if ev.openf[t, 0] != 0 or ev.openf[t, 1] != 0 or ev.openf[t, 2] != 0 or ev.openf[t, 3] != 0:
                    fs = file_state(ev, tab, (code - 1) & 1, sq, wp0, wp1, bp0, bp1)
                if fs >= 0:
                    sign = 1 if (code - 1) & 1 == 0 else -1
                    mg += sign * ev.openf[t, 2 * fs]
                    eg += sign * ev.openf[t, 2 * fs + 1]
    if ev.params[P_PAWN_STRUCT] != 0:
        # a function of the pawn-like pieces alone, so cached by their placement
        pk = pawn_key(tab, bb, wp0, wp1, bp0, bp1)
        ps = pk & np.uint64(cache.pkey.shape[0] - 1)
        if cache.pkey[ps] != pk:
            sfs = ev.params[P_SF_SCALE]
            pw_mg, pw_eg = sf_pawns(tab, ev, pos.board, 0, wp0, wp1, bp0, bp1, occ0, occ1)
            pb_mg, pb_eg = sf_pawns(tab, ev, pos.board, 1, bp0, bp1, wp0, wp1, occ0, occ1)
            cache.pval[ps, 0] = sdiv((pw_mg - pb_mg) * sfs, 256)
            cache.pval[ps, 1] = sdiv((pw_eg - pb_eg) * sfs, 256)
            cache.pkey[ps] = pk
        mg += cache.pval[ps, 0]
        eg += cache.pval[ps, 1]
    # pairs: two or more of a type (the bishop pair)
    for t in range(T if ev.params[P_PAIR_TERMS] != 0 else 0):
        both = (1 if cnt[0, t] >= 2 else 0) - (1 if cnt[1, t] >= 2 else 0)
        mg += both * ev.pair[t, 0]
        eg += both * ev.pair[t, 1]
    # mop-up: drive the bare or pawnless weak king to the edge and bring the strong one near
    mu = ev.params[P_MOPUP]
    if mu != 0 and k0 >= 0 and k1 >= 0:
        margin = ev.params[P_MOPUP_MARGIN]
        F = tab.cfg[CFG_FILES]
        dist = distance(F, k0, k1)
        if mat >= margin and (bp0 | bp1) == K.ZERO:
            eg += mu * (2 * (4 - min(ev.near[k1], 4)) + max(0, 12 - dist))
        elif mat <= -margin and (wp0 | wp1) == K.ZERO:
            eg -= mu * (2 * (4 - min(ev.near[k0], 4)) + max(0, 12 - dist))
    sh = ev.params[P_SHIELD]
    if sh != 0:
        if k0 >= 0:
            mg += sh * (K.popcount(ev.shield[0, k0, 0] & wp0) + K.popcount(ev.shield[0, k0, 1] & wp1))
        if k1 >= 0:
            mg -= sh * (K.popcount(ev.shield[1, k1, 0] & bp0) + K.popcount(ev.shield[1, k1, 1] & bp1))
    lazy = sdiv(mg * phase + eg * (256 - phase), 256)
    if us == 1:
        lazy = -lazy
    lazy += nn
    if lazy - LAZY_MARGIN >= beta or lazy + LAZY_MARGIN <= alpha:
        return lazy + ev.params[P_TEMPO], False
    # Pass 2: mobility and attacks on the squares next to each royal piece
    z00 = ev.zone[k0, 0] if k0 >= 0 else K.ZERO  # the white king's zone
    z01 = ev.zone[k0, 1] if k0 >= 0 else K.ZERO
    z10 = ev.zone[k1, 0] if k1 >= 0 else K.ZERO  # the black king's zone
    z11 = ev.zone[k1, 1] if k1 >= 0 else K.ZERO
    units0 = np.int64(0)  # attack units against White's king, and the number of attackers
    natt0 = np.int64(0)
    units1 = np.int64(0)
    natt1 = np.int64(0)
    mob_s = np.int64(0)  # threats (middlegame and endgame alike)
    mob_mg = np.int64(0)  # mobility by count (tables)
    mob_eg = np.int64(0)
    # attack maps (words 0, 1 per colour) of every piece and of the pawn-like pieces, for threats
    thr_pawn = ev.params[P_THREAT_PAWN]
    hang = ev.params[P_HANGING]
    threats = thr_pawn != 0 or hang != 0
    aw0 = K.ZERO  # squares White attacks (words 0, 1), Black attacks, and the pawn-like pieces' ones
    aw1 = K.ZERO
    ab0 = K.ZERO
    ab1 = K.ZERO
    pw0 = K.ZERO
    pw1 = K.ZERO
    pb0 = K.ZERO
    pb1 = K.ZERO
    # Stockfish's king safety and threats (sf_king, sf_threats): attacks by type and colour in
    # the scratch rows 0..T-1, all attacks in row T, squares attacked twice in T + 1, the
    # pawn-like pieces' attacks in T + 2
    sfs = ev.params[P_SF_SCALE]
    royal = tab.cfg[CFG_ROYAL]
    sf = sfs != 0 and k0 >= 0 and k1 >= 0
    A = cache.att
    nkw = np.int64(0)  # White's attackers of Black's king zone, their weights, their attacks next to it
    wkw = np.int64(0)
    acw = np.int64(0)
    nkb = np.int64(0)
    wkb = np.int64(0)
    acb = np.int64(0)
    adj00 = K.ZERO  # the squares next to White's king (words 0, 1), and next to Black's
    adj01 = K.ZERO
    adj10 = K.ZERO
    adj11 = K.ZERO
    if sf:
        for r in range(T + 3):
            for c in range(2):
                A[r, c, 0] = K.ZERO
                A[r, c, 1] = K.ZERO
        adj00 = z00 & ~(K.ONE << np.uint64(k0)) if k0 < 64 else z00
        adj01 = z01 & ~(K.ONE << np.uint64(k0 - 64)) if k0 >= 64 else z01
        adj10 = z10 & ~(K.ONE << np.uint64(k1)) if k1 < 64 else z10
        adj11 = z11 & ~(K.ONE << np.uint64(k1 - 64)) if k1 >= 64 else z11
    # Stockfish's mobility area (``mobility_area``), built from the pawn-like pieces' targets of
    # this loop's first pass rather than computed again: the pawn-like types go first (pass 0),
    # the area is complete before the other types' mobility is counted (pass 1).  A pawn-like
    # type with mobility of its own (no seed variant has one) needs the whole area before pass 0:
    # then ``mobility_area`` computes it first (``P_MOB_AREA`` 2, set with the tables).
    area = ev.params[P_MOB_AREA] != 0
    build = ev.params[P_MOB_AREA] == 1  # the area built by pass 0 (ma: what it leaves out until pass 1)
    ma00 = K.ZERO
    ma01 = K.ZERO
    ma10 = K.ZERO
    ma11 = K.ZERO
    if ev.params[P_MOB_AREA] == 2:
        ma00, ma01, ma10, ma11 = mobility_area(tab, ev, bb, occ0, occ1)
    elif build and royal >= 0:  # a side's area leaves out its royal pieces
        ma00 = bb[K.ROW_TYPE + royal, 0] & bb[0, 0]
        ma01 = bb[K.ROW_TYPE + royal, 1] & bb[0, 1]
        ma10 = bb[K.ROW_TYPE + royal, 0] & bb[1, 0]
        ma11 = bb[K.ROW_TYPE + royal, 1] & bb[1, 1]
    for p in range(2):
        if p == 1 and build:
            ma00 = ~ma00
            ma01 = ~ma01
            ma10 = ~ma10
            ma11 = ~ma11
        for t in range(T):
            if (tab.pawnlike[t] != 0) != (p == 0):
                continue
            mob = ev.mobility[t]
            ka = ev.katt[t]
            pawn_area = build and p == 0
            if mob == 0 and ka == 0 and not threats and not sf and not pawn_area:
                continue
            for c in range(2):
                for w in range(2):
                    b = bb[K.ROW_TYPE + t, w] & bb[c, w]
                    while b:
                        sq = lsb(b) + 64 * w
                        bit = b & (~b + K.ONE)
                        b &= b - K.ONE
                        m0, m1, c0, c1 = K.piece_targets(tab, t, c, sq, occ0, occ1, np.int64(0))
                        if pawn_area:
                            ma00, ma01, ma10, ma11 = pawn_leaves_out(ev, c, w, bit, m0, m1, c0, c1, occ0, occ1,
                                                                     ma00, ma01, ma10, ma11)
                        if sf:
                            A[T + 1, c, 0] |= A[T, c, 0] & c0
                            A[T + 1, c, 1] |= A[T, c, 1] & c1
                            A[T, c, 0] |= c0
                            A[T, c, 1] |= c1
                            A[t, c, 0] |= c0
                            A[t, c, 1] |= c1
                            if tab.pawnlike[t]:
                                A[T + 2, c, 0] |= c0
                                A[T + 2, c, 1] |= c1
                            elif t != royal:
                                if c == 0:
                                    if ((c0 & z10) | (c1 & z11)) != K.ZERO:
                                        nkw += 1
                                        wkw += ev.kaw[t]
                                        acw += K.popcount(c0 & adj10) + K.popcount(c1 & adj11)
                                elif ((c0 & z00) | (c1 & z01)) != K.ZERO:
                                    nkb += 1
                                    wkb += ev.kaw[t]
                                    acb += K.popcount(c0 & adj00) + K.popcount(c1 & adj01)
                        if threats:
                            if c == 0:
                                aw0 |= c0
                                aw1 |= c1
                                if tab.pawnlike[t]:
                                    pw0 |= c0
                                    pw1 |= c1
                            else:
                                ab0 |= c0
                                ab1 |= c1
                                if tab.pawnlike[t]:
                                    pb0 |= c0
                                    pb1 |= c1
                        if mob != 0:
                            if area:
                                n = min(area_count(m0, m1, c0, c1, occ0, occ1, ma00 if c == 0 else ma10,
                                                   ma01 if c == 0 else ma11), MOB_N - 1)
                            else:
                                n = min(target_count(bb, c, m0, m1, c0, c1, occ0, occ1), MOB_N - 1)
                            if c == 0:
                                mob_mg += ev.mob_mg[t, n]
                                mob_eg += ev.mob_eg[t, n]
                            else:
                                mob_mg -= ev.mob_mg[t, n]
                                mob_eg -= ev.mob_eg[t, n]
                        if ka != 0:
                            if c == 0:
                                a = K.popcount(c0 & z10) + K.popcount(c1 & z11)
                                if a:
                                    units1 += ka * a
                                    natt1 += 1
                            else:
                                a = K.popcount(c0 & z00) + K.popcount(c1 & z01)
                                if a:
                                    units0 += ka * a
                                    natt0 += 1
    if threats:
        royal = tab.cfg[CFG_ROYAL]
        for t in range(T):
            if tab.pawnlike[t] or t == royal:
                continue
            w0 = bb[K.ROW_TYPE + t, 0] & bb[0, 0]  # White's pieces of type t, then Black's
            w1 = bb[K.ROW_TYPE + t, 1] & bb[0, 1]
            b0 = bb[K.ROW_TYPE + t, 0] & bb[1, 0]
            b1 = bb[K.ROW_TYPE + t, 1] & bb[1, 1]
            mob_s -= thr_pawn * (K.popcount(w0 & pb0) + K.popcount(w1 & pb1)) \
                + hang * (K.popcount(w0 & ab0 & ~aw0 & ~pb0) + K.popcount(w1 & ab1 & ~aw1 & ~pb1))
            mob_s += thr_pawn * (K.popcount(b0 & pw0) + K.popcount(b1 & pw1)) \
                + hang * (K.popcount(b0 & aw0 & ~ab0 & ~pw0) + K.popcount(b1 & aw1 & ~ab1 & ~pw1))
    mg += mob_s + mob_mg
    eg += mob_s + mob_eg
    if sf:
        nkw += K.popcount(A[T + 2, 0, 0] & z10) + K.popcount(A[T + 2, 0, 1] & z11)
        nkb += K.popcount(A[T + 2, 1, 0] & z00) + K.popcount(A[T + 2, 1, 1] & z01)
        md = sdiv(mob_mg * 256, sfs)  # White's mobility minus Black's, in Stockfish's units
        kw_mg, kw_eg = sf_king(tab, ev, bb, cnt, A, 0, k0, T, royal, nkb, wkb, acb, -md, occ0, occ1, wp0 | bp0,
                               wp1 | bp1)
        kb_mg, kb_eg = sf_king(tab, ev, bb, cnt, A, 1, k1, T, royal, nkw, wkw, acw, md, occ0, occ1, wp0 | bp0,
                               wp1 | bp1)
        tw_mg, tw_eg = sf_threats(tab, ev, bb, pos.board, A, 0, T, royal, wp0, wp1, bp0, bp1, occ0, occ1)
        tb_mg, tb_eg = sf_threats(tab, ev, bb, pos.board, A, 1, T, royal, bp0, bp1, wp0, wp1, occ0, occ1)
        ks = ev.params[P_KING_SCALE]
        mg += sdiv((kb_mg - kw_mg) * ks + (tw_mg - tb_mg) * sfs, 256)
        eg += sdiv((kb_eg - kw_eg) * ks + (tw_eg - tb_eg) * sfs, 256)
        if ev.params[P_PASSED_PATH] != 0:
            pw_mg, pw_eg = sf_passed(tab, ev, A, T, 0, k0, k1, wp0, wp1, bp0, bp1, occ0, occ1)
            pb_mg, pb_eg = sf_passed(tab, ev, A, T, 1, k1, k0, bp0, bp1, wp0, wp1, occ0, occ1)
            ps = ev.params[P_PASSED_PATH] * sfs  # scaled by the promotion's worth (tables.py)
            mg += sdiv((pw_mg - pb_mg) * ps, 65536)
            eg += sdiv((pw_eg - pb_eg) * ps, 65536)
    # king danger (Fruit's scale: 2 attackers count 1/2, 3 count 3/4, ...)
    # (king_danger per unit, and king_danger_sq on the square of the scaled units: a few attackers
    # together are worth more than the sum of each)
    kd = ev.params[P_KING_DANGER]
    kq = ev.params[P_KING_DANGER_SQ]
    if kd != 0 or kq != 0:
        if natt0 >= 2:
            su = units0 * (256 - (256 >> (min(natt0, 9) - 1)))
            mg -= (su * kd >> 16) + ((su >> 8) * (su >> 8) * kq >> 8)
        if natt1 >= 2:
            su = units1 * (256 - (256 >> (min(natt1, 9) - 1)))
            mg += (su * kd >> 16) + ((su >> 8) * (su >> 8) * kq >> 8)
    s = sdiv(mg * phase + eg * (256 - phase), 256)
    if us == 1:
        s = -s
    st_type = ev.params[P_SAFETY_TYPE]
    if st_type >= 0:
        conv = tab.cfg[CFG_CONVERSION]
        for c in range(2):
            p0 = bb[K.ROW_TYPE + st_type, 0] & bb[c, 0]
            p1 = bb[K.ROW_TYPE + st_type, 1] & bb[c, 1]
            for w in range(2):
                b = p0 if w == 0 else p1
                while b:
                    sq = lsb(b) + 64 * w
                    b &= b - K.ONE
                    if conv >= 0:
                        hit = conversion_threat(tab, bb, sq, 1 - c, conv, occ0, occ1)
                    else:
                        hit = K.attacked(tab, bb, sq, 1 - c, occ0, occ1, K.ZERO, K.ZERO)
                    if hit:
                        pen = ev.params[P_SAFETY_PENALTY]
                        if c == us:
                            s -= pen
                        else:
                            s += pen // 2
    return s + nn + ev.params[P_TEMPO], True


@kernel
def static_eval(d):
    """The static evaluation from Python (tests and tools; the search never calls this, so it
    costs no compile time at start-up)."""
    return evaluate(d, np.int64(-INF), np.int64(INF))


def eval_of(pos: Pos, tab: Tables, ev: EvalTables, cache: EvalCache | None = None) -> int:
    """``static_eval`` of a position's arrays from Python, through ``cache`` (a new one when None).
    A bundle holds only the addresses of its arrays, so a cache made inside a ``pack_eval(...)``
    call would be freed before the kernel reads it; this keeps it alive for the call."""
    cache = cache_for(cache, ev)
    return int(static_eval(pack_eval(pos, tab, ev, cache)))
