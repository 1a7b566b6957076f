"""Numba kernels: make/unmake, legal move generation, perft.

Position arrays (a ``Pos`` NamedTuple), ``T`` piece types:

=========  ===================  ========================================================
array      shape, dtype         meaning
=========  ===================  ========================================================
bb         (T + 3, 2) uint64    row 0/1: White/Black pieces, row 2: first-move rights
                                (squares whose piece has never moved, only for tracked
                                pieces, castling kings and rooks), row 3 + t: type t
board      (128,) int64         piece code per square: 0 empty, 1 + 2 * type + colour
cnt        (2, T) int64         pieces per colour and type
st         (16,) int64          ST_* scalars: side, ep square, clocks, ply, royal squares
keys       (MAXGAME,) uint64    Zobrist key after each ply; keys[st[ST_PLY]] is current
undo       (MAXGAME, U) int64   what unmake needs, one row per ply (U_* columns)
undo_bb    (MAXGAME, 4) uint64  the bitboards unmake needs (UB_* columns)
scratch    (64,) int64          kernel scratch (kernels cannot allocate)
dirty      (256, 1 + DIRTY_MAX) what make_move changed on the board, row ``ply & 255`` for the
           int64                move made from ply ``ply``: column 0 the number of changes n (-1
                                when there were more than DIRTY_MAX), then n entries
                                ``+(code << 8 | square)`` for a piece put, ``-(...)`` for one taken
                                (an incremental evaluation replays them: ``eval/network.py``)
=========  ===================  ========================================================

Move encoding (fits an int32)::

    bits  0..6   from square
    bits  7..13  to square
    bits 14..17  promotion type + 1 (0: no promotion)
    bits 18..19  kind: 0 normal, 1 en passant, 2 castling

The kernels Python and the search call take the position and the variant tables as one
bundle array ``b`` (``pack_board``, see ``_jit.bundle``): a call that passes the two
NamedTuples themselves pushes some 400 machine words.  Helpers inside take ``pos, tab``.

Kernels take no literal constants as arguments (numba compiles one copy of the callee per
literal value): constants are passed as ``np.int64(...)``.

Legality.  Variants with ``check`` generate pseudo-legal targets per piece and keep a target
when it cannot expose the royal piece: not in check and the piece is not pinned (pins are
found once per node from the enemy riders that see the king through one own piece) -> legal
without a test; king moves, pinned pieces, en passant and every move while in check are
tested with ``attacked`` on the occupancy after the move.  ``count_legal`` counts the targets
of unpinned pieces with popcounts (bulk counting, used at the last perft ply).
"""
from __future__ import annotations

import numpy as np

from ._jit import array_tuple, both, bundle, helper, kernel, lsb, msb, popcount
from .tables import (CFG_BARE_KING, CFG_CAPTURES, CFG_CASTLE_CHECKS, CFG_CASTLE_ROOK, CFG_CASTLING,
                     CFG_CHECK, CFG_CONVERSION, CFG_EXT_MASK, CFG_FILES, CFG_LAME_CAPTURE, CFG_NSQ,
                     CFG_NTYPES, CFG_ROYAL, Tables)

# the arrays of one position (see the table above), in field order with their kinds
Pos = array_tuple("Pos", "bb:u2 board:i1 cnt:i2 st:i1 keys:u1 undo:i2 undo_bb:u2 scratch:i1 dirty:i2")
pack_board, unpack_board = bundle(Pos, Tables)

ZERO = np.uint64(0)
ONE = np.uint64(1)

# st indices
ST_SIDE, ST_EP, ST_HALF, ST_FULL, ST_PLY, ST_KSQ = 0, 1, 2, 3, 4, 5  # ST_KSQ + colour
N_ST = 16
# undo columns
U_MOVE, U_CAP, U_CAPSQ, U_EP, U_HALF, U_KSQ0, U_KSQ1, U_TYPE = range(8)
N_UNDO = 8
# undo_bb columns (uint64): first-move rights before the move, pieces converted by it
UB_UNM0, UB_UNM1, UB_CONV0, UB_CONV1 = range(4)
N_UNDO_BB = 4

ROW_UNMOVED = 2
ROW_TYPE = 3

# the board changes of the last plies (``dirty``): a ring of DIRTY_RING rows
DIRTY_RING = 256
DIRTY_MAX = 32

KIND_NORMAL, KIND_EP, KIND_CASTLE = 0, 1, 2
# generate() modes: all legal moves, only their number, only captures/promotions (and, in
# conversion variants, every move of the converting piece) for quiescence, and the others (a
# staged move loop lists the tactical moves first): GEN_TACTICAL and GEN_QUIET split GEN_ALL
GEN_ALL, GEN_COUNT, GEN_TACTICAL, GEN_QUIET = 0, 1, 2, 3
MAXMOVES = 1024


@both
def encode(fr, to, promo, kind):
    return fr | (to << 7) | (promo << 14) | (kind << 18)


@both
def move_from(m):
    return m & 127


@both
def move_to(m):
    return (m >> 7) & 127


@both
def move_promo(m):
    """Promotion type + 1, 0 if none."""
    return (m >> 14) & 15


@both
def move_kind(m):
    return (m >> 18) & 3


# ---------------------------------------------------------------------------------------------
# Attacks


@helper
def ride(tab, li, s, occ0, occ1):
    """Targets of one (range-limited) ray from s: up to and including the first blocker."""
    r0 = tab.lray[li, s, 0]
    r1 = tab.lray[li, s, 1]
    b0 = r0 & occ0
    b1 = r1 & occ1
    if b0 | b1:
        if tab.lray_pos[li]:
            x = lsb(b0) if b0 else 64 + lsb(b1)
        else:
            x = 64 + msb(b1) if b1 else msb(b0)
        v = tab.lray_vec[li]
        r0 &= ~tab.ray[v, x, 0]
        r1 &= ~tab.ray[v, x, 1]
    return r0, r1


@helper
def component_targets(tab, kind, idx, s, occ0, occ1):
    if kind == 0:
        return tab.leap[idx, s, 0], tab.leap[idx, s, 1]
    if kind == 1:
        return ride(tab, idx, s, occ0, occ1)
    to = tab.lame_to[idx, s]
    if to < 0 or (tab.lame_path[idx, s, 0] & occ0) | (tab.lame_path[idx, s, 1] & occ1):
        return ZERO, ZERO
    return tab.sqbit[to, 0], tab.sqbit[to, 1]


@helper
def initial_ok(tab, bb, t, c, s):
    """1 when the type-t colour-c piece on s may use its initial moves (its zone, and unmoved where
    the type tracks that), else 0: ``piece_targets``' ``init_ok``."""
    w = s >> 6
    sh = np.uint64(s & 63)
    if ((tab.init_zone[t, c, w] >> sh) & ONE) != ZERO and (
            tab.init_tracked[t] == 0 or ((bb[ROW_UNMOVED, w] >> sh) & ONE) != ZERO):
        return np.int64(1)
    return np.int64(0)


@helper
def piece_targets(tab, t, c, s, occ0, occ1, init_ok):
    """(move targets, capture targets) of a type-t colour-c piece on s, before masking."""
    m0 = ZERO
    m1 = ZERO
    c0 = ZERO
    c1 = ZERO
    for k in range(tab.comp_lo[t, c], tab.comp_hi[t, c]):
        if tab.comp_init[k] and init_ok == 0:
            continue
        a0, a1 = component_targets(tab, tab.comp_kind[k], tab.comp_idx[k], s, occ0, occ1)
        mod = tab.comp_mod[k]
        if mod & 1:
            m0 |= a0
            m1 |= a1
        if mod & 2:
            c0 |= a0
            c1 |= a1
    return m0, m1, c0, c1


@helper
def reverse_targets(tab, t, c, s, occ0, occ1):
    """The squares from which a type-t colour-c piece attacks square s (occupancy occ)."""
    a0 = ZERO
    a1 = ZERO
    for k in range(tab.rcomp_lo[t, c], tab.rcomp_hi[t, c]):
        x0, x1 = component_targets(tab, tab.rcomp_kind[k], tab.rcomp_idx[k], s, occ0, occ1)
        a0 |= x0
        a1 |= x1
    return a0, a1


@helper
def attackers_of_type(tab, bb, t, c, s, occ0, occ1):
    """Pieces of type t and colour c that attack square s."""
    p0 = bb[ROW_TYPE + t, 0] & bb[c, 0] & tab.reach_att[t, c, s, 0]
    p1 = bb[ROW_TYPE + t, 1] & bb[c, 1] & tab.reach_att[t, c, s, 1]
    if (p0 | p1) == ZERO:
        return ZERO, ZERO
    a0, a1 = reverse_targets(tab, t, c, s, occ0, occ1)
    return a0 & p0, a1 & p1


@helper
def attacked(tab, bb, s, c, occ0, occ1, ex0, ex1):
    """Is square s attacked by colour c, with occupancy occ and c's pieces on ex removed?"""
    T = tab.cfg[CFG_NTYPES]
    for t in range(T):
        # only pieces within the type's empty-board reach of s can attack it
        p0 = bb[ROW_TYPE + t, 0] & bb[c, 0] & ~ex0 & tab.reach_att[t, c, s, 0]
        p1 = bb[ROW_TYPE + t, 1] & bb[c, 1] & ~ex1 & tab.reach_att[t, c, s, 1]
        if (p0 | p1) == ZERO:
            continue
        for k in range(tab.rcomp_lo[t, c], tab.rcomp_hi[t, c]):
            a0, a1 = component_targets(tab, tab.rcomp_kind[k], tab.rcomp_idx[k], s, occ0, occ1)
            if (a0 & p0) | (a1 & p1):
                return True
    return False


@helper
def in_check(tab, bb, st):
    """Is the side to move in check (only in variants with check)?"""
    if tab.cfg[CFG_CHECK] == 0:
        return False
    us = st[ST_SIDE]
    ksq = st[ST_KSQ + us]
    if ksq < 0:
        return False
    return attacked(tab, bb, ksq, 1 - us, bb[0, 0] | bb[1, 0], bb[0, 1] | bb[1, 1], ZERO, ZERO)


@helper
def quiet_gives_check(tab, bb, board, st, m):
    """Would the plain move m (normal kind, no promotion, onto an empty square) put the side
    not to move in check?  1 or 0 without making the move: the moved piece attacks the royal
    square from its target (direct), or another piece does once the origin is empty
    (discovered).  -1 for any other move (captures, promotions, castling, en passant, a move
    of the converting type, which may change pieces around it): the caller makes the move and
    asks ``in_check``.  Equal to make + ``in_check`` + unmake for the
    moves it answers (tests/test_gives_check.py checks every variant)."""
    if tab.cfg[CFG_CHECK] == 0:
        return 0
    fr = move_from(m)
    to = move_to(m)
    if move_kind(m) != KIND_NORMAL or move_promo(m) or board[to] != 0 \
            or ((board[fr] - 1) >> 1) == tab.cfg[CFG_CONVERSION]:
        return -1
    us = st[ST_SIDE]
    ksq = st[ST_KSQ + 1 - us]
    if ksq < 0:
        return 0
    f0 = tab.sqbit[fr, 0]
    f1 = tab.sqbit[fr, 1]
    occ0 = ((bb[0, 0] | bb[1, 0]) & ~f0) | tab.sqbit[to, 0]
    occ1 = ((bb[0, 1] | bb[1, 1]) & ~f1) | tab.sqbit[to, 1]
    t = (board[fr] - 1) >> 1
    t0 = tab.sqbit[to, 0]
    t1 = tab.sqbit[to, 1]
    if (tab.reach_att[t, us, ksq, 0] & t0) | (tab.reach_att[t, us, ksq, 1] & t1):
        a0, a1 = reverse_targets(tab, t, us, ksq, occ0, occ1)
        if (a0 & t0) | (a1 & t1):
            return 1
    return 1 if attacked(tab, bb, ksq, us, occ0, occ1, f0, f1) else 0


@helper
def verdict(tab, cnt, us):
    """A variant rule has decided the game: -1 the side to move (us) has lost, +1 it has won,
    0 the game goes on.  Such positions have no legal moves.

    Extinction: a side with no piece of the extinction types left has lost (Aces captured,
    King converted).  Bare king (courier, as Fairy-Stockfish): a side left with its king alone
    loses, except that the bared side to move may still bare a lone-piece opponent: the side
    to move wins when the other is bare and it has two pieces or more; it loses when it is
    bare and the other has three or more.
    """
    mask = tab.cfg[CFG_EXT_MASK]
    T = tab.cfg[CFG_NTYPES]
    if mask != 0:
        left_us = 0
        left_them = 0
        for t in range(T):
            if (mask >> t) & 1:
                left_us += cnt[us, t]
                left_them += cnt[1 - us, t]
        if left_us == 0:
            return -1
        if left_them == 0:
            return 1
    if tab.cfg[CFG_BARE_KING]:
        n_us = 0
        n_them = 0
        for t in range(T):
            n_us += cnt[us, t]
            n_them += cnt[1 - us, t]
        if n_them <= 1 and n_us >= 2:
            return 1
        if n_us <= 1 and n_them >= 3:
            return -1
    return 0


@helper
def is_over(tab, cnt, us):
    """The game is decided by a variant rule (see verdict)."""
    return verdict(tab, cnt, us) != 0


@helper
def pinned_pieces(tab, bb, us, ksq, occ0, occ1):
    """Own pieces that stand alone between the royal piece and an enemy rider aiming at it."""
    them = 1 - us
    pin0 = ZERO
    pin1 = ZERO
    T = tab.cfg[CFG_NTYPES]
    for t in range(T):
        p0 = bb[ROW_TYPE + t, 0] & bb[them, 0] & tab.reach_att[t, them, ksq, 0]
        p1 = bb[ROW_TYPE + t, 1] & bb[them, 1] & tab.reach_att[t, them, ksq, 1]
        if (p0 | p1) == ZERO:
            continue
        for k in range(tab.rcomp_lo[t, them], tab.rcomp_hi[t, them]):
            if tab.rcomp_kind[k] != 1:
                continue
            li = tab.rcomp_idx[k]
            s0 = tab.lray[li, ksq, 0] & p0
            s1 = tab.lray[li, ksq, 1] & p1
            for w in range(2):
                b = s0 if w == 0 else s1
                while b:
                    x = lsb(b) + 64 * w
                    b &= b - ONE
                    bt0 = tab.between[ksq, x, 0] & occ0
                    bt1 = tab.between[ksq, x, 1] & occ1
                    if popcount(bt0) + popcount(bt1) == 1 and ((bt0 & bb[us, 0]) | (bt1 & bb[us, 1])):
                        pin0 |= bt0
                        pin1 |= bt1
    return pin0, pin1


# ---------------------------------------------------------------------------------------------
# Make / unmake


@helper
def _put(pos, tab, s, code):
    """Place piece `code` on empty square s; returns the Zobrist delta."""
    t = (code - 1) >> 1
    c = (code - 1) & 1
    w = s >> 6
    bit = tab.sqbit[s, w]
    pos.board[s] = code
    pos.bb[c, w] |= bit
    pos.bb[ROW_TYPE + t, w] |= bit
    pos.cnt[c, t] += 1
    return tab.zob_piece[code, s]


@helper
def _take(pos, tab, s):
    """Remove the piece on s; returns the Zobrist delta."""
    code = pos.board[s]
    t = (code - 1) >> 1
    c = (code - 1) & 1
    w = s >> 6
    bit = tab.sqbit[s, w]
    pos.board[s] = 0
    pos.bb[c, w] &= ~bit
    pos.bb[ROW_TYPE + t, w] &= ~bit
    pos.cnt[c, t] -= 1
    return tab.zob_piece[code, s]


@helper
def _dirty(pos, row, entry):
    """Record one board change of the move being made (see ``dirty``)."""
    n = pos.dirty[row, 0]
    if n < 0:
        return
    if n >= DIRTY_MAX:
        pos.dirty[row, 0] = -1
        return
    pos.dirty[row, 1 + n] = entry
    pos.dirty[row, 0] = n + 1


@helper
def _unmoved_key(tab, u0, u1):
    h = ZERO
    for w in range(2):
        b = u0 if w == 0 else u1
        while b:
            s = lsb(b) + 64 * w
            b &= b - ONE
            h ^= tab.zob_unmoved[s]
    return h


@helper
def ep_capturable(pos, tab, s, c):
    """Could a colour-c en-passant piece capture onto s (pseudo-legally)?"""
    occ0 = pos.bb[0, 0] | pos.bb[1, 0]
    occ1 = pos.bb[0, 1] | pos.bb[1, 1]
    for t in range(tab.cfg[CFG_NTYPES]):
        if tab.ep_piece[t]:
            a0, a1 = attackers_of_type(tab, pos.bb, t, c, s, occ0, occ1)
            if a0 | a1:
                return True
    return False


@kernel
def make_move(b, m):
    """Play move m (assumed legal) and push an undo record."""
    pos, tab = unpack_board(b)
    st = pos.st
    bb = pos.bb
    us = st[ST_SIDE]
    them = 1 - us
    F = tab.cfg[CFG_FILES]
    fr = move_from(m)
    to = move_to(m)
    promo = move_promo(m)
    kind = move_kind(m)
    ply = st[ST_PLY]
    u = pos.undo[ply]
    h = pos.keys[ply]
    code = pos.board[fr]
    t = (code - 1) >> 1
    u[U_MOVE] = m
    u[U_EP] = st[ST_EP]
    u[U_HALF] = st[ST_HALF]
    ub = pos.undo_bb[ply]
    ub[UB_UNM0] = bb[ROW_UNMOVED, 0]
    ub[UB_UNM1] = bb[ROW_UNMOVED, 1]
    u[U_KSQ0] = st[ST_KSQ]
    u[U_KSQ1] = st[ST_KSQ + 1]
    u[U_TYPE] = t
    if st[ST_EP] >= 0:
        h ^= tab.zob_ep[st[ST_EP]]
        st[ST_EP] = -1
    capsq = to
    if kind == KIND_EP:
        capsq = to - F if us == 0 else to + F
    cap = pos.board[capsq]
    if kind == KIND_CASTLE:
        cap = 0
    u[U_CAP] = cap
    u[U_CAPSQ] = capsq
    row = ply & (DIRTY_RING - 1)
    pos.dirty[row, 0] = 0
    if cap:
        _dirty(pos, row, -(cap << 8 | capsq))
        h ^= _take(pos, tab, capsq)
    # first-move rights: the mover and anything taken lose theirs
    un0 = bb[ROW_UNMOVED, 0]
    un1 = bb[ROW_UNMOVED, 1]
    clr0 = tab.sqbit[fr, 0] | tab.sqbit[capsq, 0]
    clr1 = tab.sqbit[fr, 1] | tab.sqbit[capsq, 1]
    _dirty(pos, row, -(code << 8 | fr))
    h ^= _take(pos, tab, fr)
    newcode = code if promo == 0 else 1 + 2 * (promo - 1) + us
    if kind == KIND_CASTLE:
        side = 0 if to > fr else 1
        rfr = tab.castle[us, side, 2]
        rto = tab.castle[us, side, 3]
        rcode = pos.board[rfr]
        _dirty(pos, row, -(rcode << 8 | rfr))
        _dirty(pos, row, rcode << 8 | rto)
        h ^= _take(pos, tab, rfr)
        h ^= _put(pos, tab, rto, rcode)
        clr0 |= tab.sqbit[rfr, 0]
        clr1 |= tab.sqbit[rfr, 1]
    _dirty(pos, row, newcode << 8 | to)
    h ^= _put(pos, tab, to, newcode)
    nt = (newcode - 1) >> 1
    if t == tab.cfg[CFG_ROYAL]:
        st[ST_KSQ + us] = to
    if cap and ((cap - 1) >> 1) == tab.cfg[CFG_ROYAL]:
        st[ST_KSQ + them] = -1
    # clocks
    if cap or tab.pawnlike[t]:
        st[ST_HALF] = 0
    else:
        st[ST_HALF] += 1
    # en passant square after a double step
    if tab.ep_piece[t] and (to - fr == 2 * F or fr - to == 2 * F):
        eps = (fr + to) >> 1
        if ep_capturable(pos, tab, eps, them):
            st[ST_EP] = eps
            h ^= tab.zob_ep[eps]
    # conversions (Cleopatra): the piece that just moved converts the enemy pieces it attacks
    conv0 = ZERO
    conv1 = ZERO
    if nt == tab.cfg[CFG_CONVERSION]:
        occ0 = bb[0, 0] | bb[1, 0]
        occ1 = bb[0, 1] | bb[1, 1]
        m0, m1, a0, a1 = piece_targets(tab, nt, us, to, occ0, occ1, np.int64(0))
        conv0 = a0 & bb[them, 0] & ~bb[ROW_TYPE + nt, 0]
        conv1 = a1 & bb[them, 1] & ~bb[ROW_TYPE + nt, 1]
        for w in range(2):
            b = conv0 if w == 0 else conv1
            while b:
                s = lsb(b) + 64 * w
                b &= b - ONE
                ccode = pos.board[s]
                _dirty(pos, row, -(ccode << 8 | s))
                _dirty(pos, row, (((ccode - 1) ^ 1) + 1) << 8 | s)
                h ^= _take(pos, tab, s)
                h ^= _put(pos, tab, s, ((ccode - 1) ^ 1) + 1)
                if ((ccode - 1) >> 1) == tab.cfg[CFG_ROYAL]:
                    st[ST_KSQ + them] = -1
        if conv0 | conv1:
            st[ST_HALF] = 0
            clr0 |= conv0
            clr1 |= conv1
    ub[UB_CONV0] = conv0
    ub[UB_CONV1] = conv1
    if tab.cfg[CFG_CASTLING]:
        # castling bits count only in complete pairs (king and rook both unmoved), so that the
        # key depends only on what the FEN's castling field shows
        for c in range(2):
            ks = tab.castle[c, 0, 0]
            r0 = tab.castle[c, 0, 2]
            r1 = tab.castle[c, 1, 2]
            rooks0 = tab.sqbit[r0, 0] | tab.sqbit[r1, 0]
            rooks1 = tab.sqbit[r0, 1] | tab.sqbit[r1, 1]
            king_left = ((un0 & ~clr0) & tab.sqbit[ks, 0]) | ((un1 & ~clr1) & tab.sqbit[ks, 1])
            rooks_left = ((un0 & ~clr0) & rooks0) | ((un1 & ~clr1) & rooks1)
            if king_left == ZERO or rooks_left == ZERO:
                clr0 |= tab.sqbit[ks, 0] | rooks0
                clr1 |= tab.sqbit[ks, 1] | rooks1
    if (un0 & clr0) | (un1 & clr1):
        h ^= _unmoved_key(tab, un0 & clr0, un1 & clr1)
        bb[ROW_UNMOVED, 0] = un0 & ~clr0
        bb[ROW_UNMOVED, 1] = un1 & ~clr1
    if us == 1:
        st[ST_FULL] += 1
    st[ST_SIDE] = them
    h ^= tab.zob_misc[0]
    st[ST_PLY] = ply + 1
    pos.keys[ply + 1] = h


@kernel
def unmake_move(b):
    """Take back the last move made with make_move."""
    pos, tab = unpack_board(b)
    st = pos.st
    bb = pos.bb
    ply = st[ST_PLY] - 1
    u = pos.undo[ply]
    m = u[U_MOVE]
    fr = move_from(m)
    to = move_to(m)
    kind = move_kind(m)
    them = st[ST_SIDE]
    us = 1 - them
    ub = pos.undo_bb[ply]
    conv0 = ub[UB_CONV0]
    conv1 = ub[UB_CONV1]
    for w in range(2):
        b = conv0 if w == 0 else conv1
        while b:
            s = lsb(b) + 64 * w
            b &= b - ONE
            ccode = pos.board[s]
            _take(pos, tab, s)
            _put(pos, tab, s, ((ccode - 1) ^ 1) + 1)
    _take(pos, tab, to)
    _put(pos, tab, fr, 1 + 2 * u[U_TYPE] + us)
    if kind == KIND_CASTLE:
        side = 0 if to > fr else 1
        rfr = tab.castle[us, side, 2]
        rto = tab.castle[us, side, 3]
        rcode = pos.board[rto]
        _take(pos, tab, rto)
        _put(pos, tab, rfr, rcode)
    if u[U_CAP]:
        _put(pos, tab, u[U_CAPSQ], u[U_CAP])
    bb[ROW_UNMOVED, 0] = ub[UB_UNM0]
    bb[ROW_UNMOVED, 1] = ub[UB_UNM1]
    st[ST_EP] = u[U_EP]
    st[ST_HALF] = u[U_HALF]
    st[ST_KSQ] = u[U_KSQ0]
    st[ST_KSQ + 1] = u[U_KSQ1]
    if us == 1:
        st[ST_FULL] -= 1
    st[ST_SIDE] = us
    st[ST_PLY] = ply


@kernel
def make_null(b):
    """Pass the move (null-move pruning): flip the side to move, clear en passant."""
    pos, tab = unpack_board(b)
    st = pos.st
    ply = st[ST_PLY]
    u = pos.undo[ply]
    u[U_MOVE] = -1
    u[U_EP] = st[ST_EP]
    u[U_HALF] = st[ST_HALF]
    pos.dirty[ply & (DIRTY_RING - 1), 0] = 0
    h = pos.keys[ply] ^ tab.zob_misc[0]
    if st[ST_EP] >= 0:
        h ^= tab.zob_ep[st[ST_EP]]
        st[ST_EP] = -1
    st[ST_HALF] += 1
    st[ST_SIDE] = 1 - st[ST_SIDE]
    st[ST_PLY] = ply + 1
    pos.keys[ply + 1] = h


@kernel
def unmake_null(b):
    pos, tab = unpack_board(b)
    st = pos.st
    ply = st[ST_PLY] - 1
    u = pos.undo[ply]
    st[ST_EP] = u[U_EP]
    st[ST_HALF] = u[U_HALF]
    st[ST_SIDE] = 1 - st[ST_SIDE]
    st[ST_PLY] = ply


# ---------------------------------------------------------------------------------------------
# Move generation


@helper
def _emit_targets(out, n, fr, b0, b1, promo):
    for w in range(2):
        b = b0 if w == 0 else b1
        while b:
            s = lsb(b) + 64 * w
            b &= b - ONE
            out[n] = encode(fr, s, promo, KIND_NORMAL)
            n += 1
    return n


@helper
def _safe_after(tab, bb, ksq, them, occ0, occ1, fr, to, capsq):
    """Royal piece on ksq safe after a piece moves fr -> to, removing a capture on capsq?"""
    f0 = tab.sqbit[fr, 0]
    f1 = tab.sqbit[fr, 1]
    t0 = tab.sqbit[to, 0]
    t1 = tab.sqbit[to, 1]
    x0 = tab.sqbit[capsq, 0]
    x1 = tab.sqbit[capsq, 1]
    o0 = ((occ0 & ~f0) & ~x0) | t0
    o1 = ((occ1 & ~f1) & ~x1) | t1
    k = to if ksq == fr else ksq
    return not attacked(tab, bb, k, them, o0, o1, x0 | t0, x1 | t1)


@helper
def _promo_choices(pos, tab, t, us, choices):
    """Fill choices with the promotion types allowed now; returns how many."""
    n = 0
    for k in range(tab.promo_n[t]):
        p = tab.promo_types[t, k]
        if tab.promo_limit[t] and pos.cnt[us, p] >= tab.start_count[us, p]:
            continue
        choices[n] = p
        n += 1
    return n


@helper
def legal_move(b, m):
    """Is m (a move read elsewhere, e.g. from the transposition table) legal here, as ``generate``
    would list it? 1 yes, 0 no, -1 not a plain move (en passant, castling: ask ``generate``).
    The search tries the TT move before generating the others (Stockfish's staged picker)."""
    if move_kind(m) != KIND_NORMAL:
        return -1
    pos, tab = unpack_board(b)
    nsq = tab.cfg[CFG_NSQ]
    fr = move_from(m)
    to = move_to(m)
    promo = move_promo(m)
    if fr >= nsq or to >= nsq:
        return 0
    st = pos.st
    us = st[ST_SIDE]
    piece = pos.board[fr]
    if piece == 0 or ((piece - 1) & 1) != us or is_over(tab, pos.cnt, us):
        return 0
    t = (piece - 1) >> 1
    bb = pos.bb
    them = 1 - us
    occ0 = bb[0, 0] | bb[1, 0]
    occ1 = bb[0, 1] | bb[1, 1]
    m0, m1, c0, c1 = piece_targets(tab, t, us, fr, occ0, occ1, initial_ok(tab, bb, t, us, fr))
    if tab.cfg[CFG_CAPTURES]:
        m0 = (m0 & ~occ0) | (c0 & bb[them, 0])
        m1 = (m1 & ~occ1) | (c1 & bb[them, 1])
    else:
        m0 = m0 & ~occ0
        m1 = m1 & ~occ1
    w = to >> 6
    sh = np.uint64(to & 63)
    if (((m0 if w == 0 else m1) >> sh) & ONE) == ZERO:
        return 0
    if tab.promo_n[t] and ((tab.promo_zone[t, us, w] >> sh) & ONE) != ZERO:
        if promo == 0:
            if not tab.promo_optional[t]:
                return 0
        else:
            choices = pos.scratch
            ok = False
            for k in range(_promo_choices(pos, tab, t, us, choices)):
                if choices[k] + 1 == promo:
                    ok = True
            if not ok:
                return 0
    elif promo != 0:
        return 0
    ksq = st[ST_KSQ + us]
    if tab.cfg[CFG_CHECK] != 0 and ksq >= 0 and not _safe_after(tab, bb, ksq, them, occ0, occ1, fr, to, to):
        return 0
    return 1


@kernel
def generate(b, out, mode):
    """Legal moves of the side to move into out; mode GEN_COUNT only counts them, GEN_TACTICAL
    keeps captures, promotions (and moves into the promotion zone) and moves of the converting
    piece, GEN_QUIET every other move."""
    pos, tab = unpack_board(b)
    count_only = mode == GEN_COUNT
    tactical = mode == GEN_TACTICAL
    quiet = mode == GEN_QUIET
    conv = tab.cfg[CFG_CONVERSION]
    bb = pos.bb
    st = pos.st
    cfg = tab.cfg
    if is_over(tab, pos.cnt, pos.st[ST_SIDE]):
        return 0
    us = st[ST_SIDE]
    them = 1 - us
    occ0 = bb[0, 0] | bb[1, 0]
    occ1 = bb[0, 1] | bb[1, 1]
    own0 = bb[us, 0]
    own1 = bb[us, 1]
    if cfg[CFG_CAPTURES]:
        en0 = bb[them, 0]
        en1 = bb[them, 1]
    else:
        en0 = ZERO
        en1 = ZERO
    checks = cfg[CFG_CHECK] != 0 and st[ST_KSQ + us] >= 0
    royal = cfg[CFG_ROYAL]
    ksq = st[ST_KSQ + us]
    test_all = False
    pin0 = ZERO
    pin1 = ZERO
    checked = False
    if checks:
        checked = attacked(tab, bb, ksq, them, occ0, occ1, ZERO, ZERO)
        if checked or cfg[CFG_LAME_CAPTURE]:
            test_all = True
        else:
            pin0, pin1 = pinned_pieces(tab, bb, us, ksq, occ0, occ1)
    choices = pos.scratch
    n = 0
    for w in range(2):
        pieces = own0 if w == 0 else own1
        while pieces:
            fr = lsb(pieces) + 64 * w
            pieces &= pieces - ONE
            t = (pos.board[fr] - 1) >> 1
            if quiet and t == conv:
                continue
            if tactical and t != conv and ((tab.reach_cap[t, us, fr, 0] & en0) | (tab.reach_cap[t, us, fr, 1] & en1)
                                           | tab.reach_prm[t, us, fr, 0] | tab.reach_prm[t, us, fr, 1]) == ZERO:
                continue  # no capture or promotion even on an empty board
            sh = np.uint64(fr & 63)
            m0, m1, c0, c1 = piece_targets(tab, t, us, fr, occ0, occ1, initial_ok(tab, bb, t, us, fr))
            t0 = (m0 & ~occ0) | (c0 & en0)
            t1 = (m1 & ~occ1) | (c1 & en1)
            if tactical and t != conv:
                t0 = (c0 & en0) | (m0 & ~occ0 & tab.promo_zone[t, us, 0])
                t1 = (c1 & en1) | (m1 & ~occ1 & tab.promo_zone[t, us, 1])
            elif quiet:
                t0 = m0 & ~occ0 & ~tab.promo_zone[t, us, 0]
                t1 = m1 & ~occ1 & ~tab.promo_zone[t, us, 1]
            if (t0 | t1) == ZERO:
                continue
            pinned = (((pin0 if w == 0 else pin1) >> sh) & ONE) != ZERO
            tested = checks and (test_all or t == royal or pinned)
            nch = 0
            z0 = ZERO
            z1 = ZERO
            if tab.promo_n[t]:
                z0 = t0 & tab.promo_zone[t, us, 0]
                z1 = t1 & tab.promo_zone[t, us, 1]
                if z0 | z1:
                    nch = _promo_choices(pos, tab, t, us, choices)
                    if not tab.promo_optional[t]:
                        t0 &= ~z0
                        t1 &= ~z1
            if not tested:
                if count_only:
                    n += popcount(t0) + popcount(t1) + nch * (popcount(z0) + popcount(z1))
                else:
                    n = _emit_targets(out, n, fr, t0, t1, np.int64(0))
                    for k in range(nch):
                        n = _emit_targets(out, n, fr, z0, z1, choices[k] + 1)
                continue
            for w2 in range(2):
                b = t0 if w2 == 0 else t1
                while b:
                    to = lsb(b) + 64 * w2
                    b &= b - ONE
                    if _safe_after(tab, bb, ksq, them, occ0, occ1, fr, to, to):
                        if not count_only:
                            out[n] = encode(fr, to, 0, KIND_NORMAL)
                        n += 1
            for w2 in range(2):
                b = z0 if w2 == 0 else z1
                while b:
                    to = lsb(b) + 64 * w2
                    b &= b - ONE
                    if _safe_after(tab, bb, ksq, them, occ0, occ1, fr, to, to):
                        for k in range(nch):
                            if not count_only:
                                out[n] = encode(fr, to, choices[k] + 1, KIND_NORMAL)
                            n += 1
    # en passant
    eps = st[ST_EP]
    if eps >= 0 and cfg[CFG_CAPTURES] and not quiet:
        F = cfg[CFG_FILES]
        capsq = eps - F if us == 0 else eps + F
        for t in range(cfg[CFG_NTYPES]):
            if not tab.ep_piece[t]:
                continue
            a0, a1 = attackers_of_type(tab, bb, t, us, eps, occ0, occ1)
            for w in range(2):
                b = a0 if w == 0 else a1
                while b:
                    fr = lsb(b) + 64 * w
                    b &= b - ONE
                    if checks and not _safe_after(tab, bb, ksq, them, occ0, occ1, fr, eps, capsq):
                        continue
                    if not count_only:
                        out[n] = encode(fr, eps, 0, KIND_EP)
                    n += 1
    # castling
    if cfg[CFG_CASTLING] and not tactical:
        for side in range(2):
            kfr = tab.castle[us, side, 0]
            rfr = tab.castle[us, side, 2]
            if kfr < 0:
                continue
            if ((bb[ROW_UNMOVED, kfr >> 6] >> np.uint64(kfr & 63)) & ONE) == ZERO:
                continue
            if ((bb[ROW_UNMOVED, rfr >> 6] >> np.uint64(rfr & 63)) & ONE) == ZERO:
                continue
            if pos.board[kfr] != 1 + 2 * royal + us or pos.board[rfr] != 1 + 2 * cfg[CFG_CASTLE_ROOK] + us:
                continue
            if (tab.castle_empty[us, side, 0] & occ0) | (tab.castle_empty[us, side, 1] & occ1):
                continue
            ok = True
            if cfg[CFG_CASTLE_CHECKS]:
                # the king may not leave, pass or land on an attacked square; the rook has left
                # its square when the king lands
                r0 = occ0 & ~tab.sqbit[rfr, 0]
                r1 = occ1 & ~tab.sqbit[rfr, 1]
                for w in range(2):
                    b = tab.castle_path[us, side, w]
                    while b and ok:
                        s = lsb(b) + 64 * w
                        b &= b - ONE
                        if attacked(tab, bb, s, them, r0 & ~tab.sqbit[kfr, 0], r1 & ~tab.sqbit[kfr, 1], ZERO, ZERO):
                            ok = False
            if ok:
                if not count_only:
                    out[n] = encode(kfr, tab.castle[us, side, 1], 0, KIND_CASTLE)
                n += 1
    return n


@kernel
def perft(b, depth, moves, stack):
    """Leaf count of the legal-move tree to depth (bulk-counted at the last ply).

    moves: (depth, MAXMOVES) int64 scratch, stack: (2, depth) int64 scratch.
    Iterative, so no recursion in numba.
    """
    if depth <= 0:
        return np.int64(1)
    # one call site of generate (each call site costs numba/LLVM a full copy to compile)
    nodes = np.int64(0)
    counts = stack[0]
    index = stack[1]
    ply = 0
    descend = True
    while True:
        if descend:
            last = ply + 1 == depth
            n = generate(b, moves[ply], np.int64(GEN_COUNT) if last else np.int64(GEN_ALL))
            descend = False
            if last:
                nodes += n
                if ply == 0:
                    break
                unmake_move(b)
                ply -= 1
                continue
            counts[ply] = n
            index[ply] = 0
        if index[ply] >= counts[ply]:
            if ply == 0:
                break
            unmake_move(b)
            ply -= 1
            continue
        m = moves[ply, index[ply]]
        index[ply] += 1
        make_move(b, m)
        ply += 1
        descend = True
    return nodes


@kernel
def full_key(b):
    """Zobrist key recomputed from scratch (the invariant tests compare it with keys[ply])."""
    pos, tab = unpack_board(b)
    h = ZERO
    for s in range(tab.cfg[CFG_NSQ]):
        if pos.board[s]:
            h ^= tab.zob_piece[pos.board[s], s]
    if pos.st[ST_SIDE] == 1:
        h ^= tab.zob_misc[0]
    if pos.st[ST_EP] >= 0:
        h ^= tab.zob_ep[pos.st[ST_EP]]
    h ^= _unmoved_key(tab, pos.bb[ROW_UNMOVED, 0], pos.bb[ROW_UNMOVED, 1])
    return h


PROBE_CHECK, PROBE_VERDICT, PROBE_EP, PROBE_KING_EXPOSED, PROBE_GIVES_CHECK, PROBE_LEGAL = 0, 1, 2, 3, 4, 5


@kernel
def probe(b, what, arg):
    """The questions Python asks about a position, through one compiled entry point (on a
    cold start every entry point costs its own wrapper and a re-optimization of all it calls):

    PROBE_CHECK         the side to move is in check (1/0)
    PROBE_VERDICT       verdict() for the side to move (-1, 0, +1)
    PROBE_EP            a pawn of the side to move could capture en passant onto square arg
    PROBE_KING_EXPOSED  the side to move attacks square arg (the other side's king)
    PROBE_GIVES_CHECK   quiet_gives_check() of move arg (1, 0, or -1: not a plain move)
    PROBE_LEGAL         legal_move() of move arg (1, 0, or -1: not a plain move)
    """
    pos, tab = unpack_board(b)
    us = pos.st[ST_SIDE]
    if what == PROBE_CHECK:
        return np.int64(1) if in_check(tab, pos.bb, pos.st) else np.int64(0)
    if what == PROBE_VERDICT:
        return np.int64(verdict(tab, pos.cnt, us))
    if what == PROBE_EP:
        return np.int64(1) if ep_capturable(pos, tab, arg, us) else np.int64(0)
    if what == PROBE_GIVES_CHECK:
        return np.int64(quiet_gives_check(tab, pos.bb, pos.board, pos.st, arg))
    if what == PROBE_LEGAL:
        return np.int64(legal_move(b, arg))
    occ0 = pos.bb[0, 0] | pos.bb[1, 0]
    occ1 = pos.bb[0, 1] | pos.bb[1, 1]
    return np.int64(1) if attacked(tab, pos.bb, arg, us, occ0, occ1, ZERO, ZERO) else np.int64(0)
