"""Search: iterative-deepening PVS in numba, and the typed ``Engine`` API above it.

Kernel arrays (``SearchTables`` NamedTuple, preallocated; kernels cannot allocate):

==============  ======================  ==============================================
array           shape, dtype            meaning
==============  ======================  ==============================================
tt_key          (N,) uint64             transposition table: full Zobrist key
tt_data         (N,) int64              move (bits 0..19), depth (20..27), bound (28..29),
                                        score + 2**15 (32..47)
killers         (MAXPLY, 2) int64       two quiet moves that cut off at this ply
history         (2, 128, 128) int64     quiet-move history by side, from, to
pv              (MAXPLY+1, MAXPLY+1)    triangular principal-variation table
pvlen           (MAXPLY+1,) int64
moves, mscore   (MAXPLY, MAXMOVES)      move lists and their ordering scores per ply
ctrl            (16,) int64             C_* slots: stop flag (set from Python), nodes,
                                        node limit, seldepth
ev_key, ev_val  (2**16,) uint64, int64  evaluation cache: Zobrist key, static evaluation
==============  ======================  ==============================================

The search reads as a numbered recipe in ``negamax``.  Scores are centipawns from the side
to move; mates are ``MATE - ply`` (``mate_in``), stored in the TT relative to the node
(``value_to_tt``/``value_from_tt``).  Terminal verdicts per variant: checkmate, stalemate
(draw or loss), extinction (Aces captured / King converted: the side to move has lost),
courier's bare king, 50-move rule and repetition (draws).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np

from jitfish.eval import (EVAL_KINDS, EvalTables, P_KING_DANGER, P_MOPUP, P_MOPUP_MARGIN, P_PHASE_TOTAL,
                          P_SAFETY_PENALTY, P_SAFETY_TYPE, P_SHIELD, P_TEMPO, eval_tables)
from jitfish.movegen import kernels as K
from jitfish.movegen._jit import bundle, helper, kernel, lsb
from jitfish.movegen.position import Pos, Position, load_variant
from jitfish.movegen.tables import TABLES_KINDS, Tables

__all__ = ["Engine", "Limits", "SearchInfo", "SearchResult", "PARAMS"]

MAXPLY = 96
MATE = 30000
MATE_BOUND = MATE - 1000
INF = 32000
BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 3, 1, 2
C_STOP, C_NODES, C_NODE_LIMIT, C_SELDEPTH = 0, 1, 2, 3
EVAL_CACHE = 1 << 16  # entries of the evaluation cache

# Tuned numbers live here, in one place.
PARAMS = {
    "null_min_depth": 3,
    "null_reduction": 3,
    "lmr_min_depth": 3,
    "lmr_min_moves": 3,
    "aspiration": 40,
    "rfp_depth": 6,          # reverse futility: static eval - margin * depth >= beta returns
    "rfp_margin": 90,
    "futility_depth": 3,     # quiet moves pruned when static eval + margin * depth <= alpha
    "futility_margin": 110,
    "lmp_depth": 3,          # late-move pruning: quiet moves beyond 3 + depth**2 at low depth
    "lazy_margin": 300,      # quiescence skips mobility and king safety this far outside its window
    "qs_delta": 200,         # delta pruning in quiescence
}
NULL_MIN_DEPTH = PARAMS["null_min_depth"]
NULL_R = PARAMS["null_reduction"]
LMR_MIN_DEPTH = PARAMS["lmr_min_depth"]
LMR_MIN_MOVES = PARAMS["lmr_min_moves"]
RFP_DEPTH = PARAMS["rfp_depth"]
RFP_MARGIN = PARAMS["rfp_margin"]
FUT_DEPTH = PARAMS["futility_depth"]
FUT_MARGIN = PARAMS["futility_margin"]
LMP_DEPTH = PARAMS["lmp_depth"]
LAZY_MARGIN = PARAMS["lazy_margin"]
QS_DELTA = PARAMS["qs_delta"]


class SearchTables(NamedTuple):
    tt_key: np.ndarray
    tt_data: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    pv: np.ndarray
    pvlen: np.ndarray
    moves: np.ndarray
    mscore: np.ndarray
    ctrl: np.ndarray
    ev_key: np.ndarray
    ev_val: np.ndarray


SEARCH_KINDS = "u1 i1 i2 i3 i2 i1 i2 i2 i1 u1 i1"  # dtype and dimensions of each array above

# The search kernels take one bundle array ``d`` for the four tuples (see ``_jit.bundle``:
# passing the tuples themselves cost ~300 ns per call).  Its first rows are a board bundle, so
# the movegen kernels (``K.make_move(d, m)``, ...) take it as it is.
pack_search, unpack_search = bundle((Pos, Tables, SearchTables, EvalTables),
                                    (K.POS_KINDS, TABLES_KINDS, SEARCH_KINDS, EVAL_KINDS))


# ---------------------------------------------------------------------------------------------
# Score helpers


@helper
def mate_in(ply):
    return MATE - ply


@helper
def mated_in(ply):
    return -MATE + ply


@helper
def value_to_tt(v, ply):
    if v >= MATE_BOUND:
        return v + ply
    if v <= -MATE_BOUND:
        return v - ply
    return v


@helper
def value_from_tt(v, ply):
    if v >= MATE_BOUND:
        return v - ply
    if v <= -MATE_BOUND:
        return v + ply
    return v


# ---------------------------------------------------------------------------------------------
# Evaluation


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
def sdiv(a, b):
    """a / b rounded towards zero (floor division would favour Black by a centipawn)."""
    return a // b if a >= 0 else -((-a) // b)


@helper
def evaluate(d, pos, tab, ev, ss, alpha, beta):
    """Static evaluation from the side to move (terms and layout: ``jitfish.eval``).

    Full evaluations go through the evaluation cache (``ss.ev_key``/``ss.ev_val``, by Zobrist
    key).  Lazy evaluation: when the cheap terms (material, squares, passed pawns) already lie
    ``LAZY_MARGIN`` outside (alpha, beta), mobility and king safety are not computed (quiescence
    passes its window; the main search passes an infinite one).  The 50-move scaling comes
    last, as the key does not hold the counter."""
    key = pos.keys[pos.st[K.ST_PLY]]
    slot = key & np.uint64(ss.ev_key.shape[0] - 1)
    if ss.ev_key[slot] == key:
        s = ss.ev_val[slot]
    else:
        s, full = evaluate_terms(d, alpha, beta)
        if full:
            ss.ev_key[slot] = key
            ss.ev_val[slot] = s
    # as the 50-move counter runs, the evaluation shrinks towards a draw
    fifty = tab.cfg[K.CFG_FIFTY]
    half = pos.st[K.ST_HALF]
    if fifty > 0 and half > 0:
        s = sdiv(s * (2 * fifty - min(half, fifty)), 2 * fifty)
    return s


@helper
def evaluate_terms(d, alpha, beta):
    """(evaluation from the side to move, complete?) -- see ``evaluate``."""
    pos, tab, _ss, ev = unpack_search(d)
    bb = pos.bb
    cnt = pos.cnt
    occ0 = bb[0, 0] | bb[1, 0]
    occ1 = bb[0, 1] | bb[1, 1]
    T = tab.cfg[K.CFG_NTYPES]
    us = pos.st[K.ST_SIDE]
    # pawn-like pieces of each colour (words 0 and 1), the phase and the material balance
    wp0 = K.ZERO
    wp1 = K.ZERO
    bp0 = K.ZERO
    bp1 = K.ZERO
    npm = np.int64(0)
    mat = np.int64(0)
    for t in range(T):
        if tab.pawnlike[t]:
            wp0 |= bb[K.ROW_TYPE + t, 0] & bb[0, 0]
            wp1 |= bb[K.ROW_TYPE + t, 1] & bb[0, 1]
            bp0 |= bb[K.ROW_TYPE + t, 0] & bb[1, 0]
            bp1 |= bb[K.ROW_TYPE + t, 1] & bb[1, 1]
        npm += (cnt[0, t] + cnt[1, t]) * ev.phase_w[t]
        mat += (cnt[0, t] - cnt[1, t]) * ev.value[t]
    total = ev.params[P_PHASE_TOTAL]
    phase = min(npm, total) * 256 // total
    k0 = pos.st[K.ST_KSQ]
    k1 = pos.st[K.ST_KSQ + 1]
    if tab.cfg[K.CFG_ROYAL] < 0:
        k0 = -1
        k1 = -1
    # Pass 1: square values and passed pawns
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
            if pb != 0:
                c = (code - 1) & 1
                e0 = bp0 if c == 0 else wp0
                e1 = bp1 if c == 0 else wp1
                if ((ev.front[c, sq, 0] & e0) | (ev.front[c, sq, 1] & e1)) == K.ZERO:
                    mg += sdiv(pb, 2)
                    eg += pb
    # mop-up: drive the bare or pawnless weak king to the edge and bring the strong one near
    mu = ev.params[P_MOPUP]
    if mu != 0 and k0 >= 0 and k1 >= 0:
        margin = ev.params[P_MOPUP_MARGIN]
        F = tab.cfg[K.CFG_FILES]
        dist = max(abs(k0 % F - k1 % F), abs(k0 // F - k1 // F))
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
    mob_s = np.int64(0)
    for t in range(T):
        mob = ev.mobility[t]
        ka = ev.katt[t]
        if mob == 0 and ka == 0:
            continue
        for c in range(2):
            for w in range(2):
                b = bb[K.ROW_TYPE + t, w] & bb[c, w]
                while b:
                    sq = lsb(b) + 64 * w
                    b &= b - K.ONE
                    m0, m1, c0, c1 = K.piece_targets(tab, t, c, sq, occ0, occ1, np.int64(0))
                    if mob != 0:
                        n = K.popcount(((m0 & ~occ0) | (c0 & bb[1 - c, 0]))) \
                            + K.popcount(((m1 & ~occ1) | (c1 & bb[1 - c, 1])))
                        mob_s += mob * n if c == 0 else -mob * n
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
    mg += mob_s
    eg += mob_s
    # king danger (Fruit's scale: 2 attackers count 1/2, 3 count 3/4, ...)
    kd = ev.params[P_KING_DANGER]
    if kd != 0:
        if natt0 >= 2:
            mg -= units0 * (256 - (256 >> (min(natt0, 9) - 1))) * kd >> 16
        if natt1 >= 2:
            mg += units1 * (256 - (256 >> (min(natt1, 9) - 1))) * kd >> 16
    s = sdiv(mg * phase + eg * (256 - phase), 256)
    if us == 1:
        s = -s
    st_type = ev.params[P_SAFETY_TYPE]
    if st_type >= 0:
        conv = tab.cfg[K.CFG_CONVERSION]
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
    return s + ev.params[P_TEMPO], True


@kernel
def static_eval(d):
    """The static evaluation from Python (tests and tools; the search never calls this, so it
    costs no compile time at start-up)."""
    pos, tab, ss, ev = unpack_search(d)
    return evaluate(d, pos, tab, ev, ss, np.int64(-INF), np.int64(INF))


# ---------------------------------------------------------------------------------------------
# Transposition table


@helper
def tt_probe(ss, key):
    i = key & np.uint64(ss.tt_key.shape[0] - 1)
    if ss.tt_key[i] == key:
        return ss.tt_data[i]
    return np.int64(-1)


@helper
def tt_store(ss, key, move, depth, bound, score):
    i = key & np.uint64(ss.tt_key.shape[0] - 1)
    old = ss.tt_data[i]
    # replace unless the old entry is for the same key and deeper (and this is no exact bound)
    if ss.tt_key[i] == key and old >= 0 and ((old >> 20) & 255) > depth and bound != BOUND_EXACT:
        return
    if move == 0 and ss.tt_key[i] == key and old >= 0:
        move = old & 0xFFFFF
    ss.tt_key[i] = key
    ss.tt_data[i] = (move & 0xFFFFF) | (max(depth, 0) << 20) | (bound << 28) | ((score + 32768) << 32)


# ---------------------------------------------------------------------------------------------
# Search


@kernel
def is_draw(pos, tab):
    """50-move rule or a repetition since the last irreversible move (twofold in search)."""
    st = pos.st
    half = st[K.ST_HALF]
    if half >= tab.cfg[K.CFG_FIFTY]:
        return True
    ply = st[K.ST_PLY]
    key = pos.keys[ply]
    i = ply - 4
    stop = ply - half
    while i >= stop and i >= 0:
        if pos.keys[i] == key:
            return True
        i -= 2
    return False


@helper
def is_tactical(pos, tab, m):
    """Captures, promotions and (Cleopatra) Cleopatra moves: the moves quiescence searches."""
    if (m >> 14) & 15:
        return True
    kind = (m >> 18) & 3
    if kind == K.KIND_EP:
        return True
    to = (m >> 7) & 127
    if pos.board[to] != 0 and kind != K.KIND_CASTLE:
        return True
    conv = tab.cfg[K.CFG_CONVERSION]
    if conv >= 0 and ((pos.board[m & 127] - 1) >> 1) == conv:
        return True
    return False


@helper
def score_moves(pos, tab, ss, ev, ply, n, tt_move):
    moves = ss.moves[ply]
    sc = ss.mscore[ply]
    us = pos.st[K.ST_SIDE]
    for i in range(n):
        m = moves[i]
        fr = m & 127
        to = (m >> 7) & 127
        promo = (m >> 14) & 15
        if m == tt_move:
            sc[i] = 1 << 40
            continue
        victim = pos.board[to]
        if victim != 0 and ((m >> 18) & 3) != K.KIND_CASTLE:
            sc[i] = (1 << 30) + ev.value[(victim - 1) >> 1] * 64 - ev.value[(pos.board[fr] - 1) >> 1]
        elif promo:
            sc[i] = (1 << 29) + ev.value[promo - 1]
        elif ((m >> 18) & 3) == K.KIND_EP:
            sc[i] = (1 << 30) + 100 * 64
        elif m == ss.killers[ply, 0]:
            sc[i] = 1 << 28
        elif m == ss.killers[ply, 1]:
            sc[i] = (1 << 28) - 1
        else:
            sc[i] = ss.history[us, fr, to]


@helper
def pick(ss, ply, i, n):
    """Move the best-scored remaining move to slot i (selection sort, one step)."""
    moves = ss.moves[ply]
    sc = ss.mscore[ply]
    best = i
    for j in range(i + 1, n):
        if sc[j] > sc[best]:
            best = j
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        sc[i], sc[best] = sc[best], sc[i]
    return moves[i]


@helper
def poll(ss):
    """Count a node; True when the search must stop (flag from Python or node limit)."""
    ss.ctrl[C_NODES] += 1
    if ss.ctrl[C_STOP]:
        return True
    lim = ss.ctrl[C_NODE_LIMIT]
    if lim > 0 and ss.ctrl[C_NODES] >= lim:
        ss.ctrl[C_STOP] = 1
        return True
    return False


QS_CONVERSION_PLIES = 2  # conversions (which never end) are searched this deep in quiescence


@helper
def qsearch(d, alpha, beta, ply, qply, known_check):
    """Quiescence on the bundle d.  known_check is -1 for a new node; negamax passes 0 or 1
    (in check?) for the node it has already counted, polled and found undecided, so none of
    that is repeated (and the node is counted once)."""
    pos, tab, ss, ev = unpack_search(d)
    if ply > ss.ctrl[C_SELDEPTH]:
        ss.ctrl[C_SELDEPTH] = ply
    if known_check < 0:
        if poll(ss):
            return 0
        v = K.verdict(tab, pos.cnt, pos.st[K.ST_SIDE])
        if v != 0:
            return mate_in(ply) if v > 0 else mated_in(ply)
        checked = K.in_check(tab, pos.bb, pos.st)
    else:
        checked = known_check == 1
    stand = np.int64(-INF)
    if not checked or ply >= MAXPLY - 1:
        stand = evaluate(d, pos, tab, ev, ss, alpha, beta)  # one call site: each is another inlined copy to compile
    if ply >= MAXPLY - 1:
        return stand
    if not checked:
        # stand pat, before the moves are generated: most quiescence nodes end here
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
    n = K.generate(d, ss.moves[ply], np.int64(K.GEN_ALL) if checked else np.int64(K.GEN_TACTICAL))
    if checked and n == 0:
        return mated_in(ply)
    score_moves(pos, tab, ss, ev, ply, n, 0)
    best = stand if not checked else -INF
    # no delta pruning where one capture can decide the game (extinction, a bare king)
    delta_ok = not checked and tab.cfg[K.CFG_EXT_MASK] == 0
    if delta_ok and tab.cfg[K.CFG_BARE_KING]:
        left = 0
        for t in range(tab.cfg[K.CFG_NTYPES]):
            left += pos.cnt[1 - pos.st[K.ST_SIDE], t]
        delta_ok = left > 2
    for i in range(n):
        m = pick(ss, ply, i, n)
        if delta_ok:
            # delta pruning: a capture that cannot lift the score near alpha is not searched
            victim = pos.board[(m >> 7) & 127]
            if victim != 0 and ((m >> 18) & 3) != K.KIND_CASTLE and (m >> 14) & 15 == 0 \
                    and stand + ev.value[(victim - 1) >> 1] + QS_DELTA <= alpha:
                continue
        K.make_move(d, m)
        if not checked and tab.cfg[K.CFG_CONVERSION] >= 0:
            # a Cleopatra move that converts nothing is quiet
            ub = pos.undo_bb[pos.st[K.ST_PLY] - 1]
            converts = (ub[K.UB_CONV0] | ub[K.UB_CONV1]) != K.ZERO
            if ((m >> 14) & 15) == 0 and (not converts or qply >= QS_CONVERSION_PLIES):
                K.unmake_move(d)
                continue
        v = -qsearch(d, -beta, -alpha, ply + 1, qply + 1, np.int64(-1))
        K.unmake_move(d)
        if ss.ctrl[C_STOP]:
            return 0
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    return v
    return best


@kernel
def negamax(d, depth, alpha, beta, ply, allow_null):
    """Principal variation search on the bundle d (``pack_search``) to depth; the score
    from the side to move."""
    pos, tab, ss, ev = unpack_search(d)
    pv_node = beta - alpha > 1
    ss.pvlen[ply] = ply
    # Step 1. Stop, draws and decided positions
    if poll(ss):
        return 0
    if ply > 0:
        if is_draw(pos, tab):
            return 0
        # mate distance pruning
        alpha = max(alpha, mated_in(ply))
        beta = min(beta, mate_in(ply + 1))
        if alpha >= beta:
            return alpha
    v = K.verdict(tab, pos.cnt, pos.st[K.ST_SIDE])
    if v != 0:
        return mate_in(ply) if v > 0 else mated_in(ply)
    # Step 2. Check extension, then quiescence at the horizon (and at the ply limit)
    checked = K.in_check(tab, pos.bb, pos.st)
    if checked:
        depth += 1
    if depth <= 0 or ply >= MAXPLY - 2:
        return qsearch(d, alpha, beta, ply, np.int64(0), np.int64(1) if checked else np.int64(0))
    if ply > ss.ctrl[C_SELDEPTH]:
        ss.ctrl[C_SELDEPTH] = ply
    # Step 3. Transposition table
    key = pos.keys[pos.st[K.ST_PLY]]
    data = tt_probe(ss, key)
    tt_move = 0
    if data >= 0:
        tt_move = data & 0xFFFFF
        tdepth = (data >> 20) & 255
        bound = (data >> 28) & 3
        tscore = value_from_tt(((data >> 32) & 0xFFFF) - 32768, ply)
        if not pv_node and tdepth >= depth:
            if bound == BOUND_EXACT or (bound == BOUND_LOWER and tscore >= beta) \
                    or (bound == BOUND_UPPER and tscore <= alpha):
                return tscore
    # Step 4. Static pruning (not in check, not in PV): reverse futility, then null move
    ev_static = np.int64(0)
    if not pv_node and not checked and ply > 0:
        ev_static = evaluate(d, pos, tab, ev, ss, np.int64(-INF), np.int64(INF))  # the one call site in negamax
        if depth <= RFP_DEPTH and abs(beta) < MATE_BOUND and ev_static - RFP_MARGIN * depth >= beta:
            return ev_static
        if allow_null != 0 and depth >= NULL_MIN_DEPTH and ev_static >= beta and abs(beta) < MATE_BOUND \
                and has_pieces(pos, tab):
            K.make_null(d)
            v = -negamax(d, depth - 1 - NULL_R - depth // 6, -beta, -beta + 1, ply + 1, np.int64(0))
            K.unmake_null(d)
            if ss.ctrl[C_STOP]:
                return 0
            if v >= beta:
                return beta if v >= MATE_BOUND else v
    # Step 5. Generate; no legal move is a terminal verdict
    n = K.generate(d, ss.moves[ply], np.int64(K.GEN_ALL))
    if n == 0:
        if checked or tab.cfg[K.CFG_STALEMATE_LOSS]:
            return mated_in(ply)
        return 0
    score_moves(pos, tab, ss, ev, ply, n, tt_move)
    # Step 6. Move loop: PVS with late-move reductions; futility and late-move pruning of
    # quiet moves that give no check, once a move has been searched
    best = -INF
    best_move = 0
    old_alpha = alpha
    us = pos.st[K.ST_SIDE]
    prunable = not pv_node and not checked and ply > 0
    futile = prunable and depth <= FUT_DEPTH and abs(alpha) < MATE_BOUND \
        and ev_static + FUT_MARGIN * depth <= alpha
    lmp_limit = 3 + depth * depth if (prunable and depth <= LMP_DEPTH) else 1 << 30
    quiets = 0
    for i in range(n):
        m = pick(ss, ply, i, n)
        tactical = is_tactical(pos, tab, m)
        K.make_move(d, m)
        gives_check = False  # asked only where pruning or a reduction depends on it
        if not tactical:
            quiets += 1
            may_prune = i > 0 and best > -MATE_BOUND and (futile or quiets > lmp_limit)
            if may_prune or (i >= LMR_MIN_MOVES and depth >= LMR_MIN_DEPTH and not checked):
                gives_check = K.in_check(tab, pos.bb, pos.st)
            if may_prune and not gives_check:
                K.unmake_move(d)
                continue
        # PVS with LMR as a sequence of (reduction, null window?) searches through one call
        # site: every recursive call site is another inlined copy for LLVM to compile.
        r = 0
        if i > 0 and depth >= LMR_MIN_DEPTH and i >= LMR_MIN_MOVES and not tactical and not checked \
                and not gives_check:
            r = int(0.75 + math.log(depth) * math.log(i + 1) / 2.25)
            if pv_node:
                r -= 1
            if m == ss.killers[ply, 0] or m == ss.killers[ply, 1]:
                r -= 1
            r = max(0, min(r, depth - 2))
        zw = i > 0  # the first move gets the full window, the rest a null window first
        while True:
            lo = -alpha - 1 if zw else -beta
            v = -negamax(d, depth - 1 - r, lo, -alpha, ply + 1, np.int64(1))
            if ss.ctrl[C_STOP] or v <= alpha:
                break
            if r > 0:  # a reduced search beat alpha: again at full depth, null window
                r = 0
                continue
            if zw and v < beta:  # a null-window search landed inside the window: full window
                zw = False
                continue
            break
        K.unmake_move(d)
        if ss.ctrl[C_STOP]:
            return 0
        if v > best:
            best = v
            best_move = m
            if v > alpha:
                alpha = v
                # update the PV
                ss.pv[ply, ply] = m
                for j in range(ply + 1, ss.pvlen[ply + 1]):
                    ss.pv[ply, j] = ss.pv[ply + 1, j]
                ss.pvlen[ply] = max(ss.pvlen[ply + 1], ply + 1)
                if v >= beta:
                    # Step 7. Beta cutoff: remember quiet moves that refuted
                    if not tactical:
                        if ss.killers[ply, 0] != m:
                            ss.killers[ply, 1] = ss.killers[ply, 0]
                            ss.killers[ply, 0] = m
                        fr = m & 127
                        to = (m >> 7) & 127
                        bonus = depth * depth
                        ss.history[us, fr, to] += bonus
                        # the quiet moves searched before it failed to cut: a malus
                        for j in range(i):
                            q = ss.moves[ply, j]
                            if not is_tactical(pos, tab, q):
                                ss.history[us, q & 127, (q >> 7) & 127] -= bonus
                        if abs(ss.history[us, fr, to]) > (1 << 26):
                            for a in range(128):
                                for b in range(128):
                                    ss.history[us, a, b] //= 2
                    break
    # Step 8. Store
    if best >= beta:
        bound = BOUND_LOWER
    elif alpha > old_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    tt_store(ss, key, best_move, depth, bound, value_to_tt(best, ply))
    return best


@helper
def has_pieces(pos, tab):
    """The side to move has a piece that is not pawn-like or royal (null move is then safe)."""
    us = pos.st[K.ST_SIDE]
    for t in range(tab.cfg[K.CFG_NTYPES]):
        if tab.pawnlike[t] or t == tab.cfg[K.CFG_ROYAL]:
            continue
        if pos.cnt[us, t] > 0:
            return True
    return False


def search_root(d, ss, depth, alpha, beta):
    """One root search from Python on the bundle d of ``ss`` and the rest.  Python calls
    ``negamax`` itself: a small compiled root wrapper would re-optimize the whole search tree
    once more on a cold start (3 s)."""
    ss.ctrl[C_SELDEPTH] = 0
    return negamax(d, np.int64(depth), np.int64(alpha), np.int64(beta), np.int64(0), np.int64(1))


# ---------------------------------------------------------------------------------------------
# Typed API


@dataclass
class Limits:
    """What bounds one search; times are in seconds.  Nothing set means depth 8."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float | None = None
    binc: float | None = None
    movestogo: int | None = None
    infinite: bool = False
    move_overhead: float = 0.05
    searchmoves: list[str] | None = None


@dataclass
class SearchInfo:
    depth: int
    seldepth: int
    score_cp: int | None
    mate: int | None
    nodes: int
    nps: int
    time: float
    pv: list[str]
    hashfull: int


@dataclass
class SearchResult:
    best: str | None
    ponder: str | None
    score_cp: int | None
    mate: int | None
    depth: int
    nodes: int
    pv: list[str] = field(default_factory=list)


def _score_fields(v: int) -> tuple[int | None, int | None]:
    if v >= MATE_BOUND:
        return None, (MATE - v + 1) // 2
    if v <= -MATE_BOUND:
        return None, -((MATE + v) // 2)
    return int(v), None


def time_budget(turn: int, lim: Limits) -> tuple[float | None, float | None]:
    """(soft, hard) thinking time in seconds for the side ``turn``, or (None, None): no clock.

    The soft limit is where iterative deepening stops starting new iterations; the hard limit
    stops the search.  ``move_overhead`` is kept in reserve on the clock (pipe and GUI
    latency).  On a sudden-death clock a move may take 1/40 of what is left plus most of the
    increment, never more than a quarter of what is left; once the clock is down to the
    reserve, the engine plays at once (a depth-1 answer in about a millisecond), so the
    increment refills the clock.  This is what keeps 1 s + 0.01 s games free of time losses.
    """
    if lim.infinite:
        return None, None
    if lim.movetime is not None:
        t = max(0.001, lim.movetime - lim.move_overhead)
        return t, t
    clock = lim.wtime if turn == 0 else lim.btime
    inc = (lim.winc if turn == 0 else lim.binc) or 0.0
    if clock is None:
        return None, None
    usable = max(0.0, clock - lim.move_overhead)
    if lim.movestogo == 1:  # the last move before the time control: most of what is left
        return max(0.001, usable * 0.5), max(0.002, usable * 0.8)
    mtg = max(2, min(lim.movestogo or 40, 50))
    soft = min(usable / mtg + inc * 0.8, usable * 0.25)
    hard = min(soft * 3.0, usable * 0.4)
    return max(0.001, soft), max(0.002, hard)


class _Watchdog:
    """One long-lived timer thread per Engine: ``arm(seconds)`` calls ``fire`` once after that
    long unless ``disarm()`` came first.  (A ``threading.Timer`` per move cost a thread start,
    about a millisecond, on every move of a bullet game.)"""

    def __init__(self, fire: Callable[[], None]):
        self._fire = fire
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> None:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="jitfish-clock", daemon=True)
                self._thread.start()
            self._deadline = time.monotonic() + seconds
            self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._deadline = None
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left <= 0:
                    self._deadline = None
                    self._fire()
                else:
                    self._cond.wait(left)


class Engine:
    """Search positions of any jitfish variant.

    >>> eng = Engine(hash_mb=8)
    >>> eng.search(Position("chess"), Limits(depth=3)).best is not None
    True
    """

    def __init__(self, hash_mb: int = 16):
        self._lock = threading.Lock()
        self.ctrl = np.zeros(16, np.int64)
        self.set_hash(hash_mb)
        self.killers = np.zeros((MAXPLY + 2, 2), np.int64)
        self.history = np.zeros((2, 128, 128), np.int64)
        self.pv = np.zeros((MAXPLY + 2, MAXPLY + 2), np.int64)
        self.pvlen = np.zeros(MAXPLY + 2, np.int64)
        self.moves = np.zeros((MAXPLY + 2, K.MAXMOVES), np.int64)
        self.mscore = np.zeros((MAXPLY + 2, K.MAXMOVES), np.int64)
        self.ev_key = np.zeros(EVAL_CACHE, np.uint64)
        self.ev_val = np.zeros(EVAL_CACHE, np.int64)
        self._clock = _Watchdog(self.stop)

    def set_hash(self, mb: int) -> None:
        """Resize the transposition table (a power of two of 16-byte entries, at most mb MB)."""
        mb = max(1, int(mb))
        n = 1 << max(10, int(math.log2(mb * 1024 * 1024 // 16)))
        self.tt_key = np.zeros(n, np.uint64)
        self.tt_data = np.full(n, -1, np.int64)

    def new_game(self) -> None:
        self.tt_key[:] = 0
        self.tt_data[:] = -1
        self.history[:] = 0
        self.killers[:] = 0
        self.ev_key[:] = 0

    def stop(self) -> None:
        """Ask a running search to return (safe from any thread)."""
        self.ctrl[C_STOP] = 1

    def _tables(self) -> SearchTables:
        return SearchTables(self.tt_key, self.tt_data, self.killers, self.history, self.pv,
                            self.pvlen, self.moves, self.mscore, self.ctrl, self.ev_key, self.ev_val)

    def warmup(self, variant: str = "chess") -> None:
        """Compile or load every kernel the search uses (blocking)."""
        self.search(Position(variant), Limits(depth=2))

    def search(self, position: Position, limits: Limits | None = None,
               on_info: Callable[[SearchInfo], None] | None = None) -> SearchResult:
        """Search a copy of ``position`` within ``limits``; blocks until done or ``stop()``."""
        lim = limits or Limits()
        with self._lock:
            return self._search(position, lim, on_info)

    def _search(self, position: Position, lim: Limits, on_info) -> SearchResult:
        pos = position.copy()
        legal = all_legal = pos.legal_moves()
        self.ctrl[:] = 0
        if not legal:
            return SearchResult(None, None, None, None, 0, 0)
        if lim.searchmoves:
            chosen = [m for m in legal if pos.move_name(m) in lim.searchmoves]
            legal = chosen or legal
        if len(legal) == 1 and not lim.infinite and lim.depth is None and lim.nodes is None:
            return SearchResult(pos.move_name(legal[0]), None, None, None, 0, 0, [pos.move_name(legal[0])])
        ev = eval_tables(pos.variant)
        ss = self._tables()
        d = pack_search(pos.pos, pos.tab, ss, ev)  # raw addresses: pos, ss and ev stay alive here
        soft, hard = time_budget(pos.turn, lim)
        max_depth = lim.depth if lim.depth is not None else (MAXPLY - 8 if (lim.infinite or soft or lim.nodes) else 8)
        max_depth = max(1, min(max_depth, MAXPLY - 8))
        if lim.nodes:
            self.ctrl[C_NODE_LIMIT] = lim.nodes
        t0 = time.perf_counter()
        if hard is not None:
            self._clock.arm(hard)
        best: SearchResult | None = None
        score = 0
        try:
            for depth in range(1, max_depth + 1):
                if lim.searchmoves and len(legal) < len(all_legal):
                    v = self._root_subset(pos, d, ss, depth, legal)
                else:
                    window = PARAMS["aspiration"]
                    alpha, beta = (-INF, INF) if depth < 5 else (score - window, score + window)
                    while True:
                        v = int(search_root(d, ss, depth, alpha, beta))
                        if self.ctrl[C_STOP]:
                            break
                        if v <= alpha:
                            alpha = max(-INF, alpha - window)
                            window *= 2
                        elif v >= beta:
                            beta = min(INF, beta + window)
                            window *= 2
                        else:
                            break
                        if window > 1000:
                            alpha, beta = -INF, INF
                if self.ctrl[C_STOP] and best is not None:
                    break
                pv = [int(self.pv[0, j]) for j in range(int(self.pvlen[0]))]
                if not pv or pv[0] not in legal:
                    if best is not None:
                        break
                    pv = [legal[0]]
                score = v
                pv_names = self._pv_names(pos, pv)
                elapsed = time.perf_counter() - t0
                nodes = int(self.ctrl[C_NODES])
                cp, mate = _score_fields(v)
                best = SearchResult(pv_names[0], pv_names[1] if len(pv_names) > 1 else None,
                                    cp, mate, depth, nodes, pv_names)
                if on_info:
                    on_info(SearchInfo(depth, int(self.ctrl[C_SELDEPTH]), cp, mate, nodes,
                                       int(nodes / elapsed) if elapsed > 0 else 0, elapsed,
                                       pv_names, self.hashfull()))
                if self.ctrl[C_STOP]:
                    break
                if soft is not None and elapsed >= soft * 0.6:
                    break
                if mate is not None and not lim.infinite and lim.depth is None and abs(mate) * 2 <= depth:
                    break
            if lim.infinite:
                # an infinite search only returns when stopped
                while not self.ctrl[C_STOP]:
                    time.sleep(0.002)
        finally:
            if hard is not None:
                self._clock.disarm()
        assert best is not None
        best.nodes = int(self.ctrl[C_NODES])
        return best

    def _root_subset(self, pos: Position, d: np.ndarray, ss: SearchTables, depth: int, moves: list[int]) -> int:
        best_v, best_pv = -INF, [moves[0]]
        for m in moves:
            K.make_move(pos.b, m)
            v = -int(search_root(d, ss, max(depth - 1, 0), -INF, INF))
            K.unmake_move(pos.b)
            if self.ctrl[C_STOP]:
                break
            if v > best_v:
                best_v = v
                best_pv = [m] + [int(self.pv[0, j]) for j in range(int(self.pvlen[0]))]
        self.pv[0, :len(best_pv)] = best_pv
        self.pvlen[0] = len(best_pv)
        return best_v

    def _pv_names(self, pos: Position, pv: list[int]) -> list[str]:
        """Move names of the PV, cut where a move is not legal (a stale TT line)."""
        q = pos.copy()
        out = []
        for m in pv:
            if m not in q.legal_moves():
                break
            out.append(q.move_name(m))
            q.push(m)
        return out

    def static_eval(self, position: Position) -> int:
        """The static evaluation of ``position`` in centipawns from the side to move."""
        return int(static_eval(pack_search(position.pos, position.tab, self._tables(), eval_tables(position.variant))))

    def hashfull(self) -> int:
        sample = self.tt_data[:1000]
        return int((sample >= 0).sum() * 1000 // len(sample))
