"""Move ordering for the search kernels: which moves are tactical (and which push a passed pawn,
for the search's ``ext_passed``), static exchange evaluation, the ordering scores, and the
quiet-move histories with their updates (Stockfish's "gravity"); and the material counts the
pruning asks (``few_pieces``, ``piece_material``, ``has_pieces``).

``engine/search.py`` calls these on its ``SearchTables`` (``ss``): ``killers``, ``history``,
``cont`` (continuation history), ``cmove`` and ``mcount`` (the move played at each ply of the
current line, and its number in its move loop), ``moves``/``mscore`` (move lists and scores).
"""
from __future__ import annotations

import numpy as np

from jitfish.eval.evaluate import pawn_sets
from jitfish.eval.sf_terms import is_passed
from jitfish.movegen import kernels as K
from jitfish.movegen._jit import helper
from jitfish.movegen.kernels import move_from, move_kind, move_promo, move_to
from jitfish.movegen.tables import CFG_CHECK, CFG_CONVERSION, CFG_FILES, CFG_NSQ, CFG_NTYPES, CFG_RANKS, CFG_ROYAL

__all__ = ["is_tactical", "captured_value", "see_ge", "score_moves", "cont_index", "quiet_score", "pick", "quiet_stats",
           "stat_bonus", "prior_update", "prior_refuted", "hist_update", "cont_update", "passed_push", "HIST_MAX",
           "SEE_ROYAL"]

HIST_MAX = 16384  # history values stay within +/- this (gravity)
SEE_ROYAL = 20000  # the royal piece's value in an exchange: it captures last


@helper
def is_tactical(pos, tab, m):
    """Captures, promotions and (Cleopatra) Cleopatra moves: the moves quiescence searches."""
    if move_promo(m):
        return True
    kind = move_kind(m)
    if kind == K.KIND_EP:
        return True
    if pos.board[move_to(m)] != 0 and kind != K.KIND_CASTLE:
        return True
    conv = tab.cfg[CFG_CONVERSION]
    if conv >= 0 and ((pos.board[move_from(m)] - 1) >> 1) == conv:
        return True
    return False


@helper
def captured_value(pos, ev, m):
    """The value (``ev.value``) of the piece a move captures where it lands; 0 for a quiet move, a
    castling or an en-passant capture (Stockfish's PieceValue[captured_piece()], for LMR)."""
    victim = pos.board[move_to(m)]
    if victim == 0 or move_kind(m) == K.KIND_CASTLE:
        return np.int64(0)
    return np.int64(ev.value[(victim - 1) >> 1])


@helper
def see_value(tab, ev, t):
    return SEE_ROYAL if t == tab.cfg[CFG_ROYAL] else ev.value[t]


@helper
def see_ge(pos, tab, ev, m, threshold):
    """Static exchange evaluation: does the normal move m win at least ``threshold`` once the
    captures on its target square are played out, each side taking with its cheapest piece
    and free to stop?  Stockfish's ``see_ge`` on the generic tables: the attackers are found
    again on the reduced occupancy at every step (so x-rays count).  En passant, castling
    and promotions are taken as even trades (``0 >= threshold``)."""
    if move_kind(m) != K.KIND_NORMAL or move_promo(m):
        return threshold <= 0
    fr = move_from(m)
    to = move_to(m)
    victim = pos.board[to]
    swap = (see_value(tab, ev, (victim - 1) >> 1) if victim != 0 else 0) - threshold
    if swap < 0:
        return False
    swap = see_value(tab, ev, (pos.board[fr] - 1) >> 1) - swap
    if swap <= 0:
        return True
    bb = pos.bb
    occ0 = (bb[0, 0] | bb[1, 0]) & ~tab.sqbit[fr, 0]
    occ1 = (bb[0, 1] | bb[1, 1]) & ~tab.sqbit[fr, 1]
    stm = (pos.board[fr] - 1) & 1
    res = 1
    T = tab.cfg[CFG_NTYPES]
    while True:
        stm ^= 1
        # the cheapest attacker of stm still on the board
        best_v = np.int64(1 << 40)
        b0 = K.ZERO
        b1 = K.ZERO
        for t in range(T):
            a0, a1 = K.attackers_of_type(tab, bb, t, stm, to, occ0, occ1)
            a0 &= occ0
            a1 &= occ1
            if (a0 | a1) != K.ZERO:
                v = see_value(tab, ev, t)
                if v < best_v:
                    best_v = v
                    b0 = a0
                    b1 = a1
        if (b0 | b1) == K.ZERO:
            break
        res ^= 1
        if best_v == SEE_ROYAL and tab.cfg[CFG_CHECK]:
            # a royal piece takes only if the other side has nothing left to take back
            if K.attacked(tab, bb, to, 1 - stm, occ0, occ1, ~occ0, ~occ1):
                return res ^ 1 == 1
            return res == 1
        swap = best_v - swap
        if swap < res:
            break
        if b0 != K.ZERO:
            occ0 &= ~(b0 & (~b0 + K.ONE))
        else:
            occ1 &= ~(b1 & (~b1 + K.ONE))
    return res == 1


@helper
def score_moves(pos, tab, ss, ev, ply, n, tt_move, c1, c2, c4, c6, cont_w):
    """Ordering scores: TT move, captures that do not lose material (SEE) by MVV-LVA,
    promotions, killers, quiet moves by history (``cont_w`` percent of the continuation histories),
    then losing captures (negative scores, which quiescence and the low-depth pruning read as
    "SEE < 0")."""
    score_range(pos, tab, ss, ev, ply, 0, n, tt_move, c1, c2, c4, c6, cont_w)


@helper
def score_range(pos, tab, ss, ev, ply, lo, hi, tt_move, c1, c2, c4, c6, cont_w):
    """``score_moves`` of the moves lo to hi - 1 of the list."""
    moves = ss.moves[ply]
    sc = ss.mscore[ply]
    us = pos.st[K.ST_SIDE]
    for i in range(lo, hi):
        m = moves[i]
        fr = move_from(m)
        to = move_to(m)
        promo = move_promo(m)
        if m == tt_move:
            sc[i] = 1 << 40
            continue
        victim = pos.board[to]
        if victim != 0 and move_kind(m) != K.KIND_CASTLE:
            mvv_lva = ev.value[(victim - 1) >> 1] * 64 - ev.value[(pos.board[fr] - 1) >> 1]
            if see_ge(pos, tab, ev, m, np.int64(0)):
                sc[i] = (1 << 30) + mvv_lva
            else:
                sc[i] = -(1 << 34) + mvv_lva
        elif promo:
            sc[i] = (1 << 29) + ev.value[promo - 1]
        elif move_kind(m) == K.KIND_EP:
            sc[i] = (1 << 30) + 100 * 64
        elif m == ss.killers[ply, 0]:
            sc[i] = 1 << 28
        elif m == ss.killers[ply, 1]:
            sc[i] = (1 << 28) - 1
        else:
            sc[i] = quiet_score(pos, tab, ss, us, m, c1, c2, c4, c6, cont_w)


@helper
def staged_moves(d, pos, tab, ss, ev, ply, tt_move, c1, c2, c4, c6, cont_w):
    """The moves after a TT move searched before any generation (``staged = 1``): every legal move
    generated and scored now (with the histories its search left), the TT move in slot 0 as
    ``pick`` puts it there; returns their number."""
    n = K.generate(d, ss.moves[ply], np.int64(K.GEN_ALL))
    score_moves(pos, tab, ss, ev, ply, n, tt_move, c1, c2, c4, c6, cont_w)
    pick(ss, ply, 0, n)
    return n


@helper
def staged_tactical(d, pos, tab, ss, ev, ply, tt_move, c1, c2, c4, c6, cont_w):
    """``staged = 2``: the tactical moves (``GEN_TACTICAL``) listed and scored, and a TT move (0: none,
    else searched already) in slot 0 whether it is one of them or not; returns the list's length."""
    moves = ss.moves[ply]
    n = K.generate(d, moves, np.int64(K.GEN_TACTICAL))
    if tt_move != 0:
        found = False
        for k in range(n):
            if moves[k] == tt_move:
                found = True
                break
        if not found:
            moves[n] = tt_move
            n += 1
    score_range(pos, tab, ss, ev, ply, 0, n, tt_move, c1, c2, c4, c6, cont_w)
    if tt_move != 0:
        pick(ss, ply, 0, n)
    return n


@helper
def staged_quiets(d, pos, tab, ss, ev, ply, n, tt_move, c1, c2, c4, c6, cont_w):
    """``staged = 2``, once no good capture or promotion is left: the other moves (``GEN_QUIET``, the
    TT move left out) appended to the list of n and scored; returns the new length."""
    hi = n + K.generate(d, ss.moves[ply, n:], np.int64(K.GEN_QUIET))
    if tt_move != 0:
        hi = drop_move(ss, ply, n, hi, tt_move)
    score_range(pos, tab, ss, ev, ply, n, hi, tt_move, c1, c2, c4, c6, cont_w)
    return hi


@helper
def drop_move(ss, ply, lo, n, m):
    """Leave move m out of the moves lo to n - 1 of the list at ply (the last one takes its slot);
    the new length."""
    moves = ss.moves[ply]
    for i in range(lo, n):
        if moves[i] == m:
            moves[i] = moves[n - 1]
            return n - 1
    return n


@helper
def cont_index(pos, tab, ss, m):
    """The continuation-history index of move m in this position: moving piece type, target."""
    t = (pos.board[move_from(m)] - 1) >> 1
    return (t * tab.cfg[CFG_NSQ] + move_to(m)) % ss.cont.shape[0]


@helper
def quiet_score(pos, tab, ss, us, m, c1, c2, c4, c6, w):
    """A quiet move's history: by side, from and to, plus w percent of its continuation history
    after the moves 1, 2 and 4 plies before and all of it after (``cont6``) 6 plies before
    (index -1: none)."""
    s = ss.history[us, move_from(m), move_to(m)]
    if c1 >= 0 or c2 >= 0 or c4 >= 0 or c6 >= 0:
        ci = cont_index(pos, tab, ss, m)
        c = np.int64(0)
        if c1 >= 0:
            c += ss.cont[c1, ci]
        if c2 >= 0:
            c += ss.cont[c2, ci]
        if c4 >= 0:
            c += ss.cont[c4, ci]
        s += c if w == 100 else c * w // 100
        if c6 >= 0:
            s += ss.cont[c6, ci]
    return s


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
def quiet_stats(pos, tab, ss, ply, us, i, m, c1, c2, c4, c6, bonus):
    """The quiet move m, the i-th of the move list at ply, cut (searched, or as the TT move of a
    TT cutoff, i = 0) or was a PV node's best: it becomes the first killer, its histories get the
    bonus and the quiet moves before it a malus."""
    if ss.killers[ply, 0] != m:
        ss.killers[ply, 1] = ss.killers[ply, 0]
        ss.killers[ply, 0] = m
    hist_update(ss, us, move_from(m), move_to(m), bonus)
    cont_update(ss, c1, c2, c4, c6, cont_index(pos, tab, ss, m), bonus)
    for j in range(i):
        q = ss.moves[ply, j]
        if not is_tactical(pos, tab, q):
            hist_update(ss, us, move_from(q), move_to(q), -bonus)
            cont_update(ss, c1, c2, c4, c6, cont_index(pos, tab, ss, q), -bonus)


@helper
def stat_bonus(depth):
    """Stockfish 11's history bonus for a cut at this depth."""
    return min(19 * depth * depth + 155 * depth - 132, 4000)


@helper
def prior_update(ss, ply, c1, bonus, with6):
    """The continuation histories of the previous ply's move (index c1) after the moves 1, 2,
    4 and (with6) 6 plies before it."""
    cont_update(ss, ss.cmove[ply - 2] if ply >= 2 else -1, ss.cmove[ply - 3] if ply >= 3 else -1,
                ss.cmove[ply - 5] if ply >= 5 else -1, ss.cmove[ply - 7] if ply >= 7 and with6 else -1, c1, bonus)


@helper
def prior_refuted(pos, ss, ply, malus, with6):
    """The previous ply's quiet move, searched first there or its killer, is refuted here: a
    continuation-history malus (Stockfish 11's "extra penalty")."""
    if ply < 1:
        return
    c1 = ss.cmove[ply - 1]
    u = pos.undo[pos.st[K.ST_PLY] - 1]
    if c1 < 0 or u[K.U_CAP] != 0:
        return
    if ss.mcount[ply - 1] == 1 or u[K.U_MOVE] == ss.killers[ply - 1, 0]:
        prior_update(ss, ply, c1, -malus, with6)


@helper
def gravity(h, bonus):
    """Stockfish's history "gravity": a history entry h moves by bonus, less as it nears
    HIST_MAX, so it stays within +/- HIST_MAX."""
    return h + bonus - h * abs(bonus) // HIST_MAX


@helper
def hist_update(ss, us, fr, to, bonus):
    ss.history[us, fr, to] = gravity(ss.history[us, fr, to], bonus)


@helper
def cont_update(ss, c1, c2, c4, c6, ci, bonus):
    """The same update in the continuation histories after the moves 1, 2, 4 and (``cont6``) 6 plies before
    (index -1: none)."""
    for c in (c1, c2, c4, c6):
        if c >= 0:
            ss.cont[c, ci] = gravity(ss.cont[c, ci], bonus)


@helper
def passed_push(pos, tab, ev, us, m):
    """The move m of side us, just made, pushed a pawn-like piece from the far half of the board
    (Stockfish's advanced_pawn_push: from beyond the fourth rank of eight) to a square where no enemy
    pawn-like piece stands ahead of it on its own or a neighbouring file (its pawn_passed)."""
    code = pos.board[move_to(m)]
    if code == 0 or not tab.pawnlike[(code - 1) >> 1]:
        return False
    R = tab.cfg[CFG_RANKS]
    r = move_from(m) // tab.cfg[CFG_FILES]
    if (r if us == 0 else R - 1 - r) < R // 2:
        return False
    wp0, wp1, bp0, bp1 = pawn_sets(tab, pos.bb)
    return is_passed(ev, us, move_to(m), wp0, wp1, bp0, bp1)


@helper
def few_pieces(pos, tab):
    """The side not to move has two pieces or fewer (one capture from a bare king)."""
    left = 0
    for t in range(tab.cfg[CFG_NTYPES]):
        left += pos.cnt[1 - pos.st[K.ST_SIDE], t]
    return left <= 2


@helper
def piece_material(pos, tab, ev):
    """Both sides' pieces that are not pawn-like or royal, in ``ev.value`` (Stockfish's
    non_pawn_material())."""
    total = 0
    for t in range(tab.cfg[CFG_NTYPES]):
        if not tab.pawnlike[t] and t != tab.cfg[CFG_ROYAL]:
            total += (pos.cnt[0, t] + pos.cnt[1, t]) * ev.value[t]
    return total


@helper
def has_pieces(pos, tab):
    """The side to move has a piece that is not pawn-like or royal (null move is then safe)."""
    us = pos.st[K.ST_SIDE]
    for t in range(tab.cfg[CFG_NTYPES]):
        if tab.pawnlike[t] or t == tab.cfg[CFG_ROYAL]:
            continue
        if pos.cnt[us, t] > 0:
            return True
    return False
