"""Stockfish-shaped terms of the evaluation: the kernels' helpers for ``sf_scale``'s king safety
and threats, ``pawn_structure`` and ``passed_path``, in Stockfish's internal units (tables.py
documents each term; ``evaluate.py`` calls them)."""
from __future__ import annotations

import numpy as np

from jitfish.movegen import kernels as K
from jitfish.movegen._jit import helper, lsb
from jitfish.movegen.tables import CFG_FILES, CFG_RANKS

from .tables import P_KS_MAJOR_VALUE, P_KS_NO_MAJOR

@helper
def is_passed(ev, c, sq, wp0, wp1, bp0, bp1):
    """No enemy pawn-like piece ahead of the colour-c piece on sq, on its file or a neighbouring one."""
    e0 = bp0 if c == 0 else wp0
    e1 = bp1 if c == 0 else wp1
    return ((ev.front[c, sq, 0] & e0) | (ev.front[c, sq, 1] & e1)) == K.ZERO


@helper
def sdiv(a, b):
    """a / b rounded towards zero (floor division would favour Black by a centipawn)."""
    return a // b if a >= 0 else -((-a) // b)


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
