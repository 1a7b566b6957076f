"""The evaluation kernels: static evaluation of a position from the side to move.

The terms and their weights are documented in ``tables.py`` (weights are data, in
``eval/weights/<variant>.toml``).  The kernels take an *evaluation bundle* ``d`` (see
``movegen._jit.bundle``): the position, the variant's tables, the ``EvalTables`` and an
``EvalCache``, in that order, so a search bundle that starts with these four can be passed as it
is.

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
from .tables import (MOB_N, P_FILE_TERMS, P_HANGING, P_KING_DANGER, P_KING_DANGER_SQ, P_MOPUP, P_MOPUP_MARGIN,
                     P_NN_B2, P_NN_MODE, P_KS_MAJOR_VALUE, P_KS_NO_MAJOR, P_PAIR_TERMS, P_PHASE_TOTAL,
                     P_MOB_AREA, P_PASSED_PATH, P_PAWN_STRUCT, P_SF_SCALE, P_SAFETY_PENALTY, P_SAFETY_TYPE, P_SHIELD,
                     P_TEMPO, P_THREAT_PAWN, EvalTables)

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
def is_passed(ev, c, sq, wp0, wp1, bp0, bp1):
    """No enemy pawn-like piece ahead of the colour-c piece on sq, on its file or a neighbouring one."""
    e0 = bp0 if c == 0 else wp0
    e1 = bp1 if c == 0 else wp1
    return ((ev.front[c, sq, 0] & e0) | (ev.front[c, sq, 1] & e1)) == K.ZERO


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


@helper
def sdiv(a, b):
    """a / b rounded towards zero (floor division would favour Black by a centipawn)."""
    return a // b if a >= 0 else -((-a) // b)


def fifty_scaled(s: int, half: int, fifty: int) -> int:
    """``evaluate``'s 50-move scaling of a score in Python (tools and tests that predict the
    kernel's output)."""
    if fifty > 0 and half > 0:
        num, den = s * (2 * fifty - min(half, fifty)), 2 * fifty
        return num // den if num >= 0 else -((-num) // den)
    return s

# Stockfish's king safety and threats, in Stockfish's internal units (a pawn is 128 in the
# middlegame, 213 in the endgame; ``sf_scale`` per 256 brings them to centipawns; tables.py).
# The constants are Stockfish's; what depends on the pieces is data (``king_attack_weight``,
# ``safe_check``, ``threat_class``, ``threat_minor``, ``threat_rook`` in the weight files).
SF_WEAK_RING = 185
SF_UNSAFE_CHECK = 148
SF_KING_ATTACKS = 69
SF_FLANK_DEFENCE = 4
SF_DANGER_OFFSET = 37
SF_FLANK_ATTACK_MG = 8
SF_PAWNLESS_FLANK_MG = 17
SF_PAWNLESS_FLANK_EG = 95
SF_THREAT_KING_MG = 24
SF_THREAT_KING_EG = 89
SF_HANGING_MG = 69
SF_HANGING_EG = 36
SF_RESTRICTED = 7
SF_SAFE_PAWN_MG = 173
SF_SAFE_PAWN_EG = 94


# Fairy-Stockfish 11.1's pawn structure (pawns.cpp), its units: (mg, eg)
SF_CONNECTED = np.array([0, 7, 8, 12, 29, 48, 86, 0, 0, 0, 0, 0, 0, 0, 0, 0], np.int64)
SF_ISOLATED_MG, SF_ISOLATED_EG = 5, 15
SF_BACKWARD_MG, SF_BACKWARD_EG = 9, 24
SF_UNOPPOSED_MG, SF_UNOPPOSED_EG = 13, 27
SF_DOUBLED_MG, SF_DOUBLED_EG = 11, 56
SF_WEAK_LEVER_EG = 56
SF_SUPPORT = 21


@helper
def has_bit(b0, b1, sq):
    """Is square sq in the two-word set (b0, b1)?"""
    if sq < 64:
        return ((b0 >> np.uint64(sq)) & K.ONE) != K.ZERO
    return ((b1 >> np.uint64(sq - 64)) & K.ONE) != K.ZERO


@helper
def sf_pawns(tab, ev, board, c, o0, o1, t0, t1, occ0, occ1):
    """(mg, eg) of colour c's pawn structure, Stockfish's shape as Fairy-Stockfish 11.1 scores
    it (o: c's pawn-like pieces, t: the enemy's; occ: the occupancy, which a pawn's attacks do
    not depend on)."""
    F = tab.cfg[CFG_FILES]
    R = tab.cfg[CFG_RANKS]
    nsq = F * R
    up = F if c == 0 else -F
    mg = np.int64(0)
    eg = np.int64(0)
    for w in range(2):
        b = o0 if w == 0 else o1
        while b:
            s = lsb(b) + 64 * w
            b &= b - K.ONE
            f = s % F
            rk = s // F
            r = rk if c == 0 else R - 1 - rk
            # an enemy pawn ahead on the file: the passed-pawn span on the pawn's own file
            opposed = ((t0 & ev.front[c, s, 0] & ev.filemask[f, 0])
                       | (t1 & ev.front[c, s, 1] & ev.filemask[f, 1])) != K.ZERO
            u = s + up
            blocked = 0 <= u < nsq and has_bit(t0, t1, u)
            _m0, _m1, a0, a1 = K.piece_targets(tab, (board[s] - 1) >> 1, c, s, occ0, occ1, np.int64(0))
            levers = K.popcount(a0 & t0) + K.popcount(a1 & t1)
            doubled = r > 0 and has_bit(o0, o1, s - up)
            n0 = o0 & ev.adjfile[f, 0]
            n1 = o1 & ev.adjfile[f, 1]
            phalanx = ((n0 & ev.rankmask[rk, 0]) | (n1 & ev.rankmask[rk, 1])) != K.ZERO
            support = 0
            if r > 0:
                support = K.popcount(n0 & ev.rankmask[rk - up // F, 0]) + K.popcount(n1 & ev.rankmask[rk - up // F, 1])
            unopposed = 0 if opposed else 1
            if (support > 0 or phalanx) and r < R - 1:
                v = SF_CONNECTED[r] * (2 + (1 if phalanx else 0) - (1 if opposed else 0)) + SF_SUPPORT * support
                mg += v
                eg += sdiv(v * (r - 2), 4)
            elif (n0 | n1) == K.ZERO:
                mg -= SF_ISOLATED_MG + SF_UNOPPOSED_MG * unopposed
                eg -= SF_ISOLATED_EG + SF_UNOPPOSED_EG * unopposed
            elif blocked and ((n0 & ev.behind[c, rk, 0]) | (n1 & ev.behind[c, rk, 1])) == K.ZERO:
                mg -= SF_BACKWARD_MG + SF_UNOPPOSED_MG * unopposed
                eg -= SF_BACKWARD_EG + SF_UNOPPOSED_EG * unopposed
            if support == 0:
                if doubled:
                    mg -= SF_DOUBLED_MG
                    eg -= SF_DOUBLED_EG
                if levers > 1:
                    eg -= SF_WEAK_LEVER_EG
    return mg, eg


@helper
def distance(F, a, b):
    """King steps between squares a and b on a board F files wide."""
    return max(abs(a % F - b % F), abs(a // F - b // F))


@helper
def king_near(F, k, s):
    """Stockfish's king_proximity: the king on k's distance to square s, at most 5."""
    return min(5, distance(F, k, s))


@helper
def sf_passed(tab, ev, A, T, c, ksq, esq, o0, o1, t0, t1, occ0, occ1):
    """(mg, eg) of colour c's passed pawn-like pieces beyond their rank, Stockfish 11's
    ``passed()`` (``passed_path`` in tables.py): the kings' distance to the square in front, and
    a free path to promotion.  A: the attack maps of ``sf_king`` (row T: all of a colour's
    attacks); ksq, esq: c's royal piece and the enemy's (-1: none); o, t: c's pawn-like pieces
    and the enemy's."""
    F = tab.cfg[CFG_FILES]
    R = tab.cfg[CFG_RANKS]
    up = F if c == 0 else -F
    mg = np.int64(0)
    eg = np.int64(0)
    wp0, wp1, bp0, bp1 = (o0, o1, t0, t1) if c == 0 else (t0, t1, o0, o1)
    for w in range(2):
        b = o0 if w == 0 else o1
        while b:
            s = lsb(b) + 64 * w
            b &= b - K.ONE
            rk = s // F
            r = rk if c == 0 else R - 1 - rk  # Stockfish's relative rank, RANK_1 = 0
            if r <= 2 or r >= R - 1 or not is_passed(ev, c, s, wp0, wp1, bp0, bp1):
                continue
            wt = 5 * r - 13
            blk = s + up
            if ksq >= 0 and esq >= 0:
                prox = king_near(F, esq, blk) * 19 // 4 - king_near(F, ksq, blk) * 2
                if r < R - 2:
                    prox -= king_near(F, ksq, blk + up)
                eg += prox * wt
            if not has_bit(occ0, occ1, blk):
                # the span ahead (own and neighbouring files), and the pawn's own file ahead
                sp0 = ev.front[c, s, 0]
                sp1 = ev.front[c, s, 1]
                f = s % F
                un0 = sp0 & A[T, 1 - c, 0]
                un1 = sp1 & A[T, 1 - c, 1]
                k = np.int64(0)
                if (un0 | un1) == K.ZERO:
                    k = 35
                elif ((un0 & ev.filemask[f, 0]) | (un1 & ev.filemask[f, 1])) == K.ZERO:
                    k = 20
                elif not has_bit(un0, un1, blk):
                    k = 9
                if has_bit(A[T, c, 0], A[T, c, 1], blk):
                    k += 5
                mg += k * wt
                eg += k * wt
    return mg, eg


@helper
def sf_king(tab, ev, bb, cnt, A, k, ksq, T, royal, nk, wk, ac, mobdiff, occ0, occ1, pawns0, pawns1):
    """(mg, eg) cost to colour k of the danger to its royal piece on ksq, Stockfish's shape
    (``A``: the attack scratch; nk, wk, ac: the attackers of k's king zone, their summed
    ``king_attack_weight``, their attacks on the squares next to it; mobdiff: the attacker's
    mobility minus k's, middlegame, Stockfish's units; occ: the occupancy; pawns: both sides'
    pawn-like pieces)."""
    ALL = T
    TWO = T + 1
    them = 1 - k
    kr0 = A[royal, k, 0]
    kr1 = A[royal, k, 1]
    weak0 = A[ALL, them, 0] & ~A[TWO, k, 0] & (~A[ALL, k, 0] | kr0)
    weak1 = A[ALL, them, 1] & ~A[TWO, k, 1] & (~A[ALL, k, 1] | kr1)
    safe0 = ~bb[them, 0] & (~A[ALL, k, 0] | (weak0 & A[TWO, them, 0]))
    safe1 = ~bb[them, 1] & (~A[ALL, k, 1] | (weak1 & A[TWO, them, 1]))
    kd = np.int64(0)
    un0 = K.ZERO
    un1 = K.ZERO
    major = False
    for u in range(T):
        if cnt[them, u] == 0 or u == royal or tab.pawnlike[u]:
            continue
        if ev.value[u] >= ev.params[P_KS_MAJOR_VALUE]:
            major = True
        if (A[u, them, 0] | A[u, them, 1]) == K.ZERO:
            continue
        r0, r1 = K.reverse_targets(tab, u, them, ksq, occ0, occ1)  # squares from which a u attacks ksq
        ch0 = r0 & A[u, them, 0]
        ch1 = r1 & A[u, them, 1]
        n = K.popcount(ch0 & safe0) + K.popcount(ch1 & safe1)
        if n:
            kd += ev.safe_check[u, 1 if n > 1 else 0]
        else:
            un0 |= ch0
            un1 |= ch1
    F = tab.cfg[CFG_FILES]
    kf = ksq % F
    f0 = ev.flank[kf, 0]
    f1 = ev.flank[kf, 1]
    c0 = f0 & ev.camp[k, 0]
    c1 = f1 & ev.camp[k, 1]
    b10 = A[ALL, them, 0] & c0
    b11 = A[ALL, them, 1] & c1
    kfa = K.popcount(b10) + K.popcount(b11) + K.popcount(b10 & A[TWO, them, 0]) + K.popcount(b11 & A[TWO, them, 1])
    kfd = K.popcount(A[ALL, k, 0] & c0) + K.popcount(A[ALL, k, 1] & c1)
    z0 = ev.zone[ksq, 0]
    z1 = ev.zone[ksq, 1]
    kd += (nk * wk + SF_WEAK_RING * (K.popcount(z0 & weak0) + K.popcount(z1 & weak1))
           + SF_UNSAFE_CHECK * (K.popcount(un0) + K.popcount(un1)) + SF_KING_ATTACKS * ac + 3 * kfa * kfa // 8
           + mobdiff - SF_FLANK_DEFENCE * kfd + SF_DANGER_OFFSET)
    if not major:
        kd -= ev.params[P_KS_NO_MAJOR]
    mg = SF_FLANK_ATTACK_MG * kfa
    eg = np.int64(0)
    if kd > 100:
        mg += min(kd, 3500) * kd // 4096
        eg += kd // 16
    if (pawns0 & f0) == K.ZERO and (pawns1 & f1) == K.ZERO:
        mg += SF_PAWNLESS_FLANK_MG
        eg += SF_PAWNLESS_FLANK_EG
    return mg, eg


@helper
def victims_sum(board, b, w, table):
    """(mg, eg): ``table``'s entries for the type of each piece on the squares of b (word w)."""
    mg = np.int64(0)
    eg = np.int64(0)
    while b:
        sq = lsb(b) + 64 * w
        b &= b - K.ONE
        t = (board[sq] - 1) >> 1
        mg += table[t, 0]
        eg += table[t, 1]
    return mg, eg


@helper
def sf_threats(tab, ev, bb, board, A, us, T, royal, p0, p1, q0, q1, occ0, occ1):
    """(mg, eg) of colour us's threats, Stockfish's shape (p: us's pawn-like pieces, q: the
    enemy's; ``A`` the attack scratch; occ: the occupancy)."""
    ALL = T
    TWO = T + 1
    PAWN = T + 2
    them = 1 - us
    mg = np.int64(0)
    eg = np.int64(0)
    strong0 = A[PAWN, them, 0] | (A[TWO, them, 0] & ~A[TWO, us, 0])
    strong1 = A[PAWN, them, 1] | (A[TWO, them, 1] & ~A[TWO, us, 1])
    npe0 = bb[them, 0] & ~q0
    npe1 = bb[them, 1] & ~q1
    weak0 = bb[them, 0] & ~strong0 & A[ALL, us, 0]
    weak1 = bb[them, 1] & ~strong1 & A[ALL, us, 1]
    mi0 = K.ZERO
    mi1 = K.ZERO
    ro0 = K.ZERO
    ro1 = K.ZERO
    for u in range(T):
        if ev.tclass[u] == 1:
            mi0 |= A[u, us, 0]
            mi1 |= A[u, us, 1]
        elif ev.tclass[u] == 2:
            ro0 |= A[u, us, 0]
            ro1 |= A[u, us, 1]
    for w in range(2):
        if w == 0:
            b = ((npe0 & strong0) | weak0) & mi0
            r = weak0 & ro0
        else:
            b = ((npe1 & strong1) | weak1) & mi1
            r = weak1 & ro1
        vm, ve = victims_sum(board, b, w, ev.tminor)
        mg += vm
        eg += ve
        vm, ve = victims_sum(board, r, w, ev.trook)
        mg += vm
        eg += ve
    if royal >= 0 and ((weak0 & A[royal, us, 0]) | (weak1 & A[royal, us, 1])) != K.ZERO:
        mg += SF_THREAT_KING_MG
        eg += SF_THREAT_KING_EG
    h = K.popcount(weak0 & (~A[ALL, them, 0] | (npe0 & A[TWO, us, 0]))) + \
        K.popcount(weak1 & (~A[ALL, them, 1] | (npe1 & A[TWO, us, 1])))
    mg += SF_HANGING_MG * h
    eg += SF_HANGING_EG * h
    rs = K.popcount(A[ALL, them, 0] & ~strong0 & A[ALL, us, 0]) + K.popcount(A[ALL, them, 1] & ~strong1 & A[ALL, us, 1])
    mg += SF_RESTRICTED * rs
    eg += SF_RESTRICTED * rs
    if ((A[PAWN, us, 0] & npe0) | (A[PAWN, us, 1] & npe1)) != K.ZERO:
        # pawns that are safe (not attacked, or defended) and attack a piece
        n = 0
        for w in range(2):
            b = (p0 & (~A[ALL, them, 0] | A[ALL, us, 0])) if w == 0 else (p1 & (~A[ALL, them, 1] | A[ALL, us, 1]))
            while b:
                sq = lsb(b) + 64 * w
                b &= b - K.ONE
                t = (board[sq] - 1) >> 1
                m0, m1, c0, c1 = K.piece_targets(tab, t, us, sq, occ0, occ1, np.int64(0))
                n += K.popcount(c0 & npe0) + K.popcount(c1 & npe1)
        mg += SF_SAFE_PAWN_MG * n
        eg += SF_SAFE_PAWN_EG * n
    return mg, eg


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
        mg += sdiv((kb_mg - kw_mg + tw_mg - tb_mg) * sfs, 256)
        eg += sdiv((kb_eg - kw_eg + tw_eg - tb_eg) * sfs, 256)
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
