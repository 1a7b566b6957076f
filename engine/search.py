"""The search kernels: principal variation search with quiescence, in numba.

``engine/api.py`` drives them (iterative deepening, aspiration windows, time) and is the typed
``Engine`` API.  Kernel arrays (``SearchTables`` NamedTuple, preallocated; kernels cannot allocate):

==============  ======================  ==============================================
array           shape, dtype            meaning
==============  ======================  ==============================================
tt_key          (N,) uint64             transposition table: full Zobrist key
tt_data         (N,) int64              the entry: move, depth, bound, on a PV (Stockfish's ttPv),
                                        score and the search that stored it, packed by tt.py
                                        (its bit layout is there alone); -1 empty
killers         (MAXPLY, 2) int64       two quiet moves that cut off at this ply
history         (2, 128, 128) int64     quiet-move history by side, from, to (kept within
                                        +/- HIST_MAX by Stockfish's "gravity" update, ordering.py)
pv              (MAXPLY+1, MAXPLY+1)    triangular principal-variation table
pvlen           (MAXPLY+1,) int64
moves, mscore   (MAXPLY, MAXMOVES)      move lists and their ordering scores per ply
ctrl            (16,) int64             C_* slots: stop flag (set from Python), nodes,
                                        node limit, seldepth, root moves to skip, the
                                        root's score; the TT's layout and generation (tt.py)
root_skip       (MAXMOVES,) int64       root moves the search leaves out (MultiPV lines
                                        already found, moves outside ``searchmoves``)
seval           (MAXPLY+2,) int64       static evaluation at each ply of the current line
                                        (NO_EVAL in check): "improving" compares ply - 2
cmove           (MAXPLY+2,) int64       the move played at each ply of the current line as a
                                        piece-square index (``cont_index``; -1: null move)
mcount          (MAXPLY+2,) int64       the move's number (1 = searched first) at each ply of
                                        the current line
sstat           (MAXPLY+4,) int64       Stockfish's statScore of the last quiet move reduced at
                                        each ply (``lmr_stat``; 0 for a node's grandchildren)
cont            (N, N) int64            continuation history: how well a quiet move (piece
                                        type, target) did after the move 1, 2, 4 (or 6) plies
                                        before it (same index), N = min(types x squares, 2048)
corr            (2, CORR_SIZE) int64    correction history (``corr_hist``): by side to move and
                                        a hash of the pawn-like pieces, how far the search's
                                        results stood from the static evaluation
==============  ======================  ==============================================

The search reads as a numbered recipe in ``negamax``.  Scores are centipawns from the side
to move; mates are ``MATE - ply`` (``mate_in``), stored in the TT relative to the node
(``value_to_tt``/``value_from_tt``).  Terminal verdicts per variant: checkmate, stalemate
(draw or loss), extinction (Aces captured / King converted: the side to move has lost),
courier's bare king, 50-move rule and repetition (draws).
"""
from __future__ import annotations

import math
import re

import numpy as np

from jitfish.eval import EvalCache, EvalTables, evaluate
from jitfish.eval.evaluate import INF, pawn_key, pawn_sets, sdiv
from jitfish.movegen import kernels as K
from jitfish.movegen._jit import array_tuple, bundle, helper, kernel
from jitfish.movegen.kernels import Pos, move_from, move_kind, move_promo, move_to
from jitfish.movegen.tables import (CFG_BARE_KING, CFG_CHECK, CFG_CONVERSION, CFG_EXT_MASK, CFG_FIFTY, CFG_NTYPES,
                                    CFG_STALEMATE_LOSS, Tables)

from .ordering import (captured_value, cont_index, cont_update, drop_move, few_pieces, has_pieces, hist_update,
                       is_tactical, passed_push, pick, piece_material, prior_refuted, prior_update, quiet_score,
                       quiet_stats, score_moves, see_ge, staged_moves, staged_quiets, staged_tactical, stat_bonus)
from .tt import (BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, entry_bound, entry_depth, entry_move, entry_on_pv,
                 entry_score, qs_store, tt_probe, tt_store)

__all__ = ["SearchTables", "pack_search", "negamax", "search_root", "PARAMS", "PARAM_NAMES", "I_ASPIRATION",
           "I_ASP_SF", "I_KILLER_CLEAR", "I_TT_BUCKET", "CORR_SIZE", "parse_params", "unknown_params", "MAXPLY",
           "MATE", "CONT_MAX",
           "MATE_BOUND", "INF", "C_STOP", "C_NODES", "C_NODE_LIMIT", "C_SELDEPTH", "C_ROOT_SCORE"]

MAXPLY = 96
MATE = 30000
MATE_BOUND = MATE - 1000
C_STOP, C_NODES, C_NODE_LIMIT, C_SELDEPTH, C_ROOT_SKIP, C_ROOT_SCORE = 0, 1, 2, 3, 4, 5  # C_ROOT_SCORE: the
# score of the root's PV move, the last one searched to its end that raised alpha
# Tuned numbers live here, in one place (the evaluation's lazy margin is eval's LAZY_MARGIN).
PARAMS = {
    "null_min_depth": 3,
    "null_reduction": 3,
    "lmr_min_depth": 3,
    "lmr_min_moves": 2,
    "lmr_cut": 2,            # LMR: plies more at a cut node
    "aspiration": 40,
    "rfp_depth": 6,          # reverse futility: static eval - margin * depth >= beta returns
    "rfp_margin": 90,
    "lmp_depth": 6,          # late-move pruning: quiet moves (checks too) beyond 3 + depth**2 at low
                             # depth (half as many where the static eval is not improving)
    "qs_delta": 200,         # delta pruning in quiescence
    "see_depth": 6,          # captures losing more than see_margin * depth (SEE) pruned at low depth
    "see_margin": 100,
    "iir_depth": 4,          # no TT move at this depth or more: search one ply less
    "se_depth": 7,           # singular extension from this depth: others below tt score - se_margin * depth
    "se_margin": 2,
    "hist_lmr_div": 12000,   # LMR: one ply less per this much quiet-move history (one more below 0)
    "cont_prune_depth": 3,   # quiet moves with bad continuation history pruned below this LMR depth
    "see_quiet": 20,         # quiet moves losing more than see_quiet * lmr_depth**2 (SEE) pruned
    "see_quiet_depth": 7,    #   below this LMR depth
    "fut_lmr_depth": 6,      # futility by LMR depth: static eval + base + margin * lmr_depth <= alpha
    "fut_lmr_base": 140,
    "fut_lmr_margin": 100,
    "lmr_base": 75,          # LMR: int(lmr_base / 100 + ln(depth) ln(move number) / (lmr_div / 100)) plies
    "lmr_div": 225,
    "null_depth_div": 6,     # null move: depth - 1 - null_reduction - depth / null_depth_div
    "null_eval_div": 0,      #   - min(3, (static eval - beta) / null_eval_div) plies (0: no eval term)
    "qs_checks": 0,          # 1: the first quiescence ply also searches quiet moves that give check
    "probcut_depth": 0,      # ProbCut from this depth (0: off): a capture that wins at least
    "probcut_margin": 100,   #   beta + margin (- probcut_improving if improving) - static eval by SEE
    "probcut_improving": 20, #   and beats that bound at quiescence, then at depth - 4, cuts
    "prune_pv": 0,           # 1: the low-depth pruning of the move loop in PV nodes too (as Stockfish);
                             #    2: in PV nodes only late-move pruning (by move count)
    "prune_check": 0,        # 1: late-move and SEE pruning in check too (not futility)
    "qs_see_fut": 0,         # 1: quiescence leaves out captures that win nothing (SEE < 1) when
                             #    stand pat + qs_delta <= alpha (Stockfish's futilityBase test)
    "qs_evasions": 0,        # 1: in check in quiescence, quiet evasions losing material (SEE) after the
                             #    first two moves are left out (Stockfish's evasionPrunable)
    "lmp_all": 0,            # 1: late-move pruning counts every move before (Stockfish's moveCount), not
                             #    only the quiet ones, and spares the killers
    "qs_recap": 0,           # n > 0: from the n-th quiescence ply on, only recaptures on the square of
                             #    the last move (Stockfish's DEPTH_QS_RECAPTURES: n = 5)
    "qs_tt_stand": 0,        # 1: quiescence's stand pat takes the TT score where its bound says it is
                             #    better (Stockfish's bestValue = ttValue)
    "hist_tt": 0,            # 1: a TT cutoff by a quiet TT move updates its killer and histories as a
                             #    searched cut would (a malus when its score cuts below alpha), as Stockfish
    "hist_pv": 0,            # 1: a PV node's quiet best move (no cut) updates killer and histories as a cut
    "hist_big": 0,           # 1: a cut that beats beta by more than 100 cp gets the next depth's bonus
    "cont6": 0,              # 1: continuation history after the move 6 plies before too (Stockfish 11)
    "lmr_escape": 0,         # n > 0: LMR n plies less for a quiet move that escapes a capture (moving back
                             #    would lose material, SEE: Stockfish 11's reverse_move test, n = 2)
    "lmr_opp": 0,            # n > 0: LMR one ply less where the previous move was the parent's n+1-th
                             #    or later (Stockfish 11: (ss-1)->moveCount > 14)
    "hist_prior": 0,         # 1: the previous ply's quiet move gets a continuation-history bonus where this
                             #    node fails low, a malus where it was searched first (or was the killer)
                             #    and is refuted here (Stockfish 11's prior-countermove updates)
    "cont_order": 100,       # the move ordering counts this percentage of the continuation histories after
                             #    the moves 1, 2 and 4 plies before (Stockfish 11: 200; the late-move
                             #    reductions' history score counts them all once)
    "lmr_ttcap": 0,          # n > 0: LMR n plies more for quiet moves where the TT move is a capture or
                             #    promotion (Stockfish 11's ttCapture, n = 1)
    "lmr_cap": 0,            # 1: LMR for captures and promotions too, with the base reduction (PV, improving,
                             #    singular and lmr_opp adjust it; no history), where the move is late
                             #    (late-move pruning's count), the node a cut node, or the static eval plus
                             #    the captured piece does not reach alpha (Stockfish 11's condition)
    "lmr_check": 0,          # 1: moves that give check are reduced as the others (Stockfish 11; 0: never)
    "lmr_ttpv": 0,           # n > 0: LMR n plies less at nodes that are or have been on a PV (a PV node, or
                             #    its TT entry was stored by one: Stockfish 11's ttPv, n = 2) instead of
                             #    one ply less at PV nodes only
    "null_margin": 0,        # n > 0: the null move only where the static eval is at least beta + n - null_slope *
    "null_slope": 15,        #    depth (n / 10 less if improving) and the TT does not bound it lower (Stockfish
                             #    11: 292 - 32 depth - 30 improving of its units: n = 137, null_slope = 15 cp)
    "lmr_stat": 0,           # 1: a quiet move's LMR one ply less where its history (statScore: history and
                             #    continuation histories - 4926) is good and the previous move's was bad, one
                             #    more where the previous move's was good and its own bad (Stockfish 11)
    "ext_lastcap": 0,        # n > 0: every move one ply deeper where the last move captured a piece that is not
                             #    pawn-like and both sides' pieces (pawns and royals not counted) are worth n cp
                             #    or less (Stockfish 11's last-captures extension: n = two rooks)
    "killer_clear": 0,       # 1: a node clears the killers two plies below it, and each search starts with none
                             #    (Stockfish 11: a killer is a cousin's cut, not one of an earlier subtree's)
    "corr_hist": 0,          # n > 0: the static evaluation (search and quiescence) plus correction history / n
                             #    (Stockfish 16's pawn correction history: entries within +/- CORR_MAX, learnt
                             #    from quiet nodes' results; n = 32 adds at most 32 cp)
    "razor": 0,              # n > 0: at depth 1 in non-PV nodes not in check, a static eval at least n below alpha
                             #    returns quiescence's score (Stockfish 11's razoring: RazorMargin 531 of its
                             #    units, n = 211 at chess's sf_scale)
    "ext_castle": 0,         # 1: a castling move one ply deeper (Stockfish 11's castling extension)
    "ext_passed": 0,         # 1: the first killer one ply deeper where it pushes a pawn-like piece from the far half
                             #    of the board that no enemy pawn-like piece stops (Stockfish 11's passed-pawn
                             #    extension: advanced_pawn_push and pawn_passed)
    "staged": 0,             # Stockfish's staged move picker: 1 a legal TT move searched before the others are
                             #    generated and scored; 2 then captures and promotions, the rest generated once no
                             #    good one is left (a cut by an early move costs no quiet moves); 0 all listed first
    "tt_bucket": 0,          # n in 2, 4, 8: the TT in buckets of n slots replaced by depth and age, as Stockfish's
                             #    clusters (engine/tt.py); 0: one slot per key, always replaced
    # the root's aspiration windows (engine/api.py, read by Python)
    "asp_sf": 0,             # 1: Stockfish 11's windows: from depth 4, +/- aspiration around the last score; a
                             #    fail low lowers beta to the middle and alpha to the score - window, a fail
                             #    high raises beta to the score + window and searches a ply less (cumulative);
                             #    the window grows by a quarter + 5 each time. 0: from depth 5, the failing
                             #    bound moves by the window, which doubles
    # time management (engine/api.py, read by Python, not by the kernels)
    "tm_stop": 45,           # no new iteration once this percentage of the soft time limit is spent
    "tm_dynamic": 1,         # 1: tm_stop scaled, as Stockfish 11 scales its optimum time, by the best
                             #    move's instability across iterations, a falling score and a stable move
                             #    (0 and 60: the fixed share played before the twenty-second session)
    "tm_mtg": 40,            # the moves to go a sudden-death clock is shared over: a move's soft limit is
                             #    what is left / tm_mtg + 0.8 increment (at most a quarter of what is left)
}
# The search reads them at run time from ``SearchTables.prm`` (an Engine's copy of this table, in
# the order of PARAM_NAMES), so a tuner can change them without recompiling the kernels:
# ``Engine.set_params``, or JITFISH_SEARCH_PARAMS="name=value,..." in an engine's environment.
PARAM_NAMES = tuple(PARAMS)
(I_NULL_MIN_DEPTH, I_NULL_R, I_LMR_MIN_DEPTH, I_LMR_MIN_MOVES, I_LMR_CUT, I_ASPIRATION, I_RFP_DEPTH, I_RFP_MARGIN,
 I_LMP_DEPTH, I_QS_DELTA, I_SEE_DEPTH, I_SEE_MARGIN, I_IIR_DEPTH, I_SE_DEPTH, I_SE_MARGIN, I_HIST_LMR_DIV,
 I_CONT_PRUNE_DEPTH, I_SEE_QUIET, I_SEE_QUIET_DEPTH, I_FUT_LMR_DEPTH, I_FUT_LMR_BASE, I_FUT_LMR_MARGIN, I_LMR_BASE,
 I_LMR_DIV, I_NULL_DEPTH_DIV, I_NULL_EVAL_DIV, I_QS_CHECKS, I_PROBCUT_DEPTH, I_PROBCUT_MARGIN,
 I_PROBCUT_IMPROVING, I_PRUNE_PV, I_PRUNE_CHECK, I_QS_SEE_FUT, I_QS_EVASIONS, I_LMP_ALL, I_QS_RECAP,
 I_QS_TT_STAND, I_HIST_TT, I_HIST_PV, I_HIST_BIG, I_CONT6, I_LMR_ESCAPE, I_LMR_OPP, I_HIST_PRIOR, I_CONT_ORDER,
 I_LMR_TTCAP, I_LMR_CAP, I_LMR_CHECK, I_LMR_TTPV, I_NULL_MARGIN, I_NULL_SLOPE, I_LMR_STAT, I_EXT_LASTCAP,
 I_KILLER_CLEAR, I_CORR_HIST, I_RAZOR, I_EXT_CASTLE, I_EXT_PASSED, I_STAGED, I_TT_BUCKET, I_ASP_SF, I_TM_STOP,
 I_TM_DYNAMIC, I_TM_MTG) = range(len(PARAM_NAMES))
assert PARAM_NAMES[I_NULL_R] == "null_reduction" and PARAM_NAMES[I_FUT_LMR_MARGIN] == "fut_lmr_margin" \
    and PARAM_NAMES[I_LMR_DIV] == "lmr_div" and PARAM_NAMES[I_QS_TT_STAND] == "qs_tt_stand" \
    and PARAM_NAMES[I_HIST_PRIOR] == "hist_prior" and PARAM_NAMES[I_CONT_ORDER] == "cont_order" \
    and PARAM_NAMES[I_LMR_TTCAP] == "lmr_ttcap" and PARAM_NAMES[I_LMR_CHECK] == "lmr_check" \
    and PARAM_NAMES[I_LMR_TTPV] == "lmr_ttpv" \
    and PARAM_NAMES[I_NULL_MARGIN] == "null_margin" and PARAM_NAMES[I_NULL_SLOPE] == "null_slope" \
    and PARAM_NAMES[I_LMR_STAT] == "lmr_stat" \
    and PARAM_NAMES[I_EXT_LASTCAP] == "ext_lastcap" and PARAM_NAMES[I_KILLER_CLEAR] == "killer_clear" \
    and PARAM_NAMES[I_CORR_HIST] == "corr_hist" and PARAM_NAMES[I_RAZOR] == "razor" \
    and PARAM_NAMES[I_EXT_CASTLE] == "ext_castle" and PARAM_NAMES[I_EXT_PASSED] == "ext_passed" \
    and PARAM_NAMES[I_STAGED] == "staged" and PARAM_NAMES[I_TT_BUCKET] == "tt_bucket" \
    and PARAM_NAMES[I_ASP_SF] == "asp_sf" \
    and PARAM_NAMES[I_TM_DYNAMIC] == "tm_dynamic" and PARAM_NAMES[I_TM_MTG] == "tm_mtg", \
    "the I_* indices follow PARAMS' order"


def parse_params(text: str) -> dict[str, int]:
    """``"name=value,name=value"`` (PARAMS' names, integer values; commas, semicolons or spaces
    between them) -> a dict; ValueError naming what is wrong."""
    out: dict[str, int] = {}
    for item in filter(None, re.split(r"[,;\s]+", text)):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in PARAMS:
            raise ValueError(f"search parameter {item!r}: expected name=integer, name one of {', '.join(PARAM_NAMES)}")
        try:
            out[name] = int(value)
        except ValueError:
            raise ValueError(f"search parameter {name}: {value.strip()!r} is not an integer") from None
    return out


def unknown_params(names) -> list[str]:
    """The names among ``names`` that are not search parameters (``PARAMS``), sorted."""
    return sorted(set(names) - set(PARAMS))


CONT_MAX = 2048  # continuation-history index range at most (a bigger variant folds its indices)
NO_EVAL = -INF - 1  # seval of a node in check
CORR_SIZE = 16384  # correction-history entries a side (a power of two)
CORR_MAX = 1024  # Stockfish's CORRECTION_HISTORY_LIMIT


SearchTables = array_tuple("SearchTables", """
    tt_key:u1 tt_data:i1 killers:i2 history:i3 pv:i2 pvlen:i1 moves:i2 mscore:i2 ctrl:i1
    root_skip:i1 seval:i1 cmove:i1 mcount:i1 sstat:i1 cont:i2 corr:i2 prm:i1
""")

# The search kernels take one bundle array ``d`` for the five tuples (see ``_jit.bundle``:
# passing the tuples themselves cost ~300 ns per call).  Its first rows are a board bundle and
# an evaluation bundle, so the movegen kernels (``K.make_move(d, m)``, ...) and ``evaluate``
# take it as it is.
pack_search, unpack_search = bundle(Pos, Tables, EvalTables, EvalCache, SearchTables)


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
# Transposition table


@helper
def tt_decode(data, ply):
    """(move, depth, bound, score relative to this ply) of a TT entry found by ``tt_probe``."""
    return entry_move(data), entry_depth(data), entry_bound(data), value_from_tt(entry_score(data), ply)


# ---------------------------------------------------------------------------------------------
# Search


@kernel
def is_draw(pos, tab):
    """50-move rule or a repetition since the last irreversible move (twofold in search)."""
    st = pos.st
    half = st[K.ST_HALF]
    if half >= tab.cfg[CFG_FIFTY]:
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
def skip_root_moves(ss, n):
    """Drop the root moves listed in ``root_skip`` (the caller leaves at least one)."""
    moves = ss.moves[0]
    kept = 0
    for i in range(n):
        m = moves[i]
        skip = False
        for j in range(ss.ctrl[C_ROOT_SKIP]):
            if ss.root_skip[j] == m:
                skip = True
                break
        if not skip:
            moves[kept] = m
            kept += 1
    return kept


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
def corr_slot(pos, tab):
    """The correction-history slot of the position's pawn-like pieces (eval's ``pawn_key``)."""
    wp0, wp1, bp0, bp1 = pawn_sets(tab, pos.bb)
    return np.int64(pawn_key(tab, pos.bb, wp0, wp1, bp0, bp1) & np.uint64(CORR_SIZE - 1))


@helper
def corr_value(ss, side, slot):
    """What correction history adds to the static eval of ``side`` to move at ``slot``: the
    entry / ``corr_hist`` (one place for the scaling, which search and quiescence share)."""
    return sdiv(ss.corr[side, slot], ss.prm[I_CORR_HIST])


@helper
def qsearch(d, alpha, beta, ply, qply, known_check):
    """Quiescence on the bundle d.  known_check is -1 for a new node; negamax passes 0 or 1
    (in check?) for the node it has already counted, polled and found undecided, so none of
    that is repeated (and the node is counted once)."""
    pos, tab, ev, _cache, ss = unpack_search(d)
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
    # the transposition table: a bound that decides, else its move first
    key = pos.keys[pos.st[K.ST_PLY]]
    data = tt_probe(ss, key)
    tt_move = 0
    bound = 0
    tscore = np.int64(0)
    pv_node = beta - alpha > 1
    if data >= 0:
        tt_move, _tdepth, bound, tscore = tt_decode(data, ply)
        if not pv_node and (bound == BOUND_EXACT or (bound == BOUND_LOWER and tscore >= beta)
                            or (bound == BOUND_UPPER and tscore <= alpha)):
            return tscore
    old_alpha = alpha
    stand = np.int64(-INF)
    if not checked or ply >= MAXPLY - 1:
        stand = evaluate(d, alpha, beta)  # one call site: each is another inlined copy to compile
        if ss.prm[I_CORR_HIST] > 0 and not checked:
            stand += corr_value(ss, pos.st[K.ST_SIDE], corr_slot(pos, tab))
        if data >= 0 and ss.prm[I_QS_TT_STAND] != 0 and not checked \
                and (bound & (BOUND_LOWER if tscore > stand else BOUND_UPPER)) != 0:
            stand = tscore
    if ply >= MAXPLY - 1:
        return stand
    if not checked:
        # stand pat, before the moves are generated: most quiescence nodes end here
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
    # quiet checks (qs_checks): at the first quiescence ply every move is generated, and a quiet
    # one is searched only if it gives check and loses no material (SEE), as in Stockfish 11
    quiet_checks = not checked and qply == 0 and ss.prm[I_QS_CHECKS] != 0 and tab.cfg[CFG_CHECK] != 0 \
        and tab.cfg[CFG_CONVERSION] < 0
    n = K.generate(d, ss.moves[ply], np.int64(K.GEN_ALL) if checked or quiet_checks else np.int64(K.GEN_TACTICAL))
    if checked and n == 0:
        return mated_in(ply)
    if quiet_checks:
        # keep the tactical moves and the quiet checks that lose no material, in their order
        k = 0
        for j in range(n):
            m = ss.moves[ply, j]
            if not is_tactical(pos, tab, m):
                gc = K.quiet_gives_check(tab, pos.bb, pos.board, pos.st, m)
                if gc < 0:
                    K.make_move(d, m)
                    gc = 1 if K.in_check(tab, pos.bb, pos.st) else 0
                    K.unmake_move(d)
                if gc == 0 or not see_ge(pos, tab, ev, m, np.int64(0)):
                    continue
            ss.moves[ply, k] = m
            k += 1
        n = k
    score_moves(pos, tab, ss, ev, ply, n, tt_move, -1, -1, -1, -1, 100)
    # losing captures score below this (quiet moves' history scores may be negative too)
    losing = np.int64(-(1 << 32)) if quiet_checks else np.int64(0)
    best = stand if not checked else -INF
    best_move = 0
    # no delta pruning where one capture can decide the game (extinction, a bare king)
    delta_ok = not checked and tab.cfg[CFG_EXT_MASK] == 0
    if delta_ok and tab.cfg[CFG_BARE_KING]:
        left = 0
        for t in range(tab.cfg[CFG_NTYPES]):
            left += pos.cnt[1 - pos.st[K.ST_SIDE], t]
        delta_ok = left > 2
    see_fut = delta_ok and ss.prm[I_QS_SEE_FUT] != 0 and stand + ss.prm[I_QS_DELTA] <= alpha
    evasion_prune = checked and ss.prm[I_QS_EVASIONS] != 0 and tab.cfg[CFG_EXT_MASK] == 0
    recap_sq = np.int64(-1)
    if not checked and ss.prm[I_QS_RECAP] > 0 and qply >= ss.prm[I_QS_RECAP] and tab.cfg[CFG_CONVERSION] < 0:
        last = pos.undo[pos.st[K.ST_PLY] - 1, K.U_MOVE]
        if last > 0:
            recap_sq = move_to(last)
    for i in range(n):
        m = pick(ss, ply, i, n)
        if recap_sq >= 0 and move_to(m) != recap_sq:
            continue  # deep in quiescence only recaptures
        if quiet_checks and not is_tactical(pos, tab, m):
            pass  # a quiet check (the others were left out above): no delta pruning
        elif delta_ok:
            # captures that lose material (SEE < 0, scored negative) are not searched
            if ss.mscore[ply, i] < losing:
                break
            # delta pruning: a capture that cannot lift the score near alpha is not searched
            victim = pos.board[move_to(m)]
            if victim != 0 and move_kind(m) != K.KIND_CASTLE and move_promo(m) == 0 \
                    and stand + ev.value[(victim - 1) >> 1] + ss.prm[I_QS_DELTA] <= alpha:
                continue
            # nor, when even a margin above stand pat does not reach alpha, one that wins nothing
            if see_fut and move_promo(m) == 0 and not see_ge(pos, tab, ev, m, np.int64(1)):
                continue
        elif evasion_prune and i > 1 and best > -MATE_BOUND and not is_tactical(pos, tab, m) \
                and not see_ge(pos, tab, ev, m, np.int64(0)):
            continue  # a quiet evasion that loses material, once two moves were searched
        K.make_move(d, m)
        if not checked and tab.cfg[CFG_CONVERSION] >= 0:
            # a Cleopatra move that converts nothing is quiet
            ub = pos.undo_bb[pos.st[K.ST_PLY] - 1]
            converts = (ub[K.UB_CONV0] | ub[K.UB_CONV1]) != K.ZERO
            if move_promo(m) == 0 and (not converts or qply >= QS_CONVERSION_PLIES):
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
                best_move = m
                if v >= beta:
                    qs_store(ss, key, m, BOUND_LOWER, value_to_tt(v, ply))
                    return v
    if best > -MATE_BOUND or not checked:
        qs_store(ss, key, best_move, BOUND_EXACT if alpha > old_alpha else BOUND_UPPER, value_to_tt(best, ply))
    return best


@kernel
def negamax(d, depth, alpha, beta, ply, allow_null, cut_node, excluded):
    """Principal variation search on the bundle d (``pack_search``) to depth; the score
    from the side to move.  ``cut_node`` (0 or 1): a null-window node expected to fail high
    (Stockfish's cutNode), where late moves are reduced more.  ``excluded``: a move left out
    (the singular-extension test searches the node again without its TT move), else 0."""
    pos, tab, ev, _cache, ss = unpack_search(d)
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
    # Step 2. Quiescence at the horizon (and at the ply limit); a check was extended by the parent
    checked = K.in_check(tab, pos.bb, pos.st)
    if depth <= 0 or ply >= MAXPLY - 2:
        return qsearch(d, alpha, beta, ply, np.int64(0), np.int64(1) if checked else np.int64(0))
    if ply > ss.ctrl[C_SELDEPTH]:
        ss.ctrl[C_SELDEPTH] = ply
    # Step 3. Transposition table
    key = pos.keys[pos.st[K.ST_PLY]]
    data = tt_probe(ss, key)
    tt_move = 0
    tscore = np.int64(0)
    bound = 0
    tdepth = 0
    # on a PV now or when the entry was stored (the singular test's node keeps the full node's)
    tt_pv = 1 if pv_node or (data >= 0 and entry_on_pv(data) != 0) else 0
    if excluded != 0:
        data = np.int64(-1)  # the TT entry is the full node's, not this one's
    c1 = ss.cmove[ply - 1] if ply >= 1 else -1
    c2 = ss.cmove[ply - 2] if ply >= 2 else -1
    c4 = ss.cmove[ply - 4] if ply >= 4 else -1
    c6 = ss.cmove[ply - 6] if ply >= 6 and ss.prm[I_CONT6] != 0 else -1
    if data >= 0:
        tt_move, tdepth, bound, tscore = tt_decode(data, ply)
        if not pv_node and tdepth >= depth:
            if bound == BOUND_EXACT or (bound == BOUND_LOWER and tscore >= beta) \
                    or (bound == BOUND_UPPER and tscore <= alpha):
                if ss.prm[I_HIST_TT] != 0 and tt_move != 0 and not is_tactical(pos, tab, tt_move):
                    # the TT move cuts (or fails low) as a searched one would have: same updates
                    us = pos.st[K.ST_SIDE]
                    if tscore >= beta:
                        quiet_stats(pos, tab, ss, ply, us, 0, tt_move, c1, c2, c4, c6, stat_bonus(depth))
                        if ss.prm[I_HIST_PRIOR] != 0:
                            prior_refuted(pos, ss, ply, stat_bonus(depth + 1), ss.prm[I_CONT6] != 0)
                    else:
                        malus = -stat_bonus(depth)
                        hist_update(ss, us, move_from(tt_move), move_to(tt_move), malus)
                        cont_update(ss, c1, c2, c4, c6, cont_index(pos, tab, ss, tt_move), malus)
                return tscore
    # Step 4. Static evaluation (every node not in check), refined by the TT score where its
    # bound allows; "improving" when better than two plies ago
    ev_static = np.int64(0)
    improving = True
    cslot = np.int64(-1)  # correction history's slot (corr_hist), where it is on
    if checked:
        ss.seval[ply] = NO_EVAL
    else:
        raw = evaluate(d, np.int64(-INF), np.int64(INF))  # the one call site in negamax
        if ss.prm[I_CORR_HIST] > 0:
            cslot = corr_slot(pos, tab)
            raw += corr_value(ss, pos.st[K.ST_SIDE], cslot)
        ss.seval[ply] = raw
        ev_static = raw
        if data >= 0 and abs(tscore) < MATE_BOUND \
                and (bound & (BOUND_LOWER if tscore > raw else BOUND_UPPER)) != 0:
            ev_static = tscore
        if ply >= 2 and ss.seval[ply - 2] != NO_EVAL:
            improving = raw > ss.seval[ply - 2]
    ss.sstat[ply + 2] = 0  # the grandchildren's first statScore (lmr_stat)
    if ss.prm[I_KILLER_CLEAR] != 0:
        ss.killers[ply + 2, 0] = 0
        ss.killers[ply + 2, 1] = 0
    # Step 5. Static pruning (not in check, not in PV): razoring, reverse futility, then null move
    if not pv_node and not checked and ply > 0 and excluded == 0:
        if depth == 1 and ss.prm[I_RAZOR] > 0 and ev_static + ss.prm[I_RAZOR] <= alpha:
            return qsearch(d, alpha, beta, ply, np.int64(0), np.int64(0))
        if depth <= ss.prm[I_RFP_DEPTH] and abs(beta) < MATE_BOUND \
                and ev_static - ss.prm[I_RFP_MARGIN] * (depth - (1 if improving else 0)) >= beta:
            return ev_static
        # the null move, then ProbCut, through one recursive call site (each call site is
        # another copy for LLVM to compile): probe -1 is the null move, probe k >= 0 the k-th
        # capture of ProbCut, searched at stage 0 by quiescence and, if that reaches its bound,
        # at stage 1 at depth - 4
        do_null = allow_null != 0 and depth >= ss.prm[I_NULL_MIN_DEPTH] and ev_static >= beta \
            and abs(beta) < MATE_BOUND and has_pieces(pos, tab)
        if do_null and ss.prm[I_NULL_MARGIN] > 0:
            # Stockfish 11: a null move only well above beta at low depth (ss.seval: the raw eval)
            nm = ss.prm[I_NULL_MARGIN]
            do_null = ev_static >= ss.seval[ply] and ss.seval[ply] >= beta + nm - ss.prm[I_NULL_SLOPE] * depth \
                - (nm // 10 if improving else 0)
        pc_beta = beta + ss.prm[I_PROBCUT_MARGIN] - (ss.prm[I_PROBCUT_IMPROVING] if improving else 0)
        do_pc = ss.prm[I_PROBCUT_DEPTH] > 0 and depth >= ss.prm[I_PROBCUT_DEPTH] and abs(beta) < MATE_BOUND \
            and pc_beta < MATE_BOUND \
            and not (data >= 0 and tdepth >= depth - 4 and tscore < pc_beta)
        pc_n = 0
        probe = -1 if do_null else 0
        stage = 0
        tried = 0
        while do_null or do_pc:
            if probe < 0:
                r_null = ss.prm[I_NULL_R] + depth // max(ss.prm[I_NULL_DEPTH_DIV], 1)
                if ss.prm[I_NULL_EVAL_DIV] > 0:
                    r_null += min(3, (ev_static - beta) // ss.prm[I_NULL_EVAL_DIV])
                ss.cmove[ply] = -1
                K.make_null(d)
                c_depth = depth - 1 - r_null
                c_beta = beta
            else:
                if not do_pc:
                    break
                if stage == 0:
                    if probe == 0:
                        pc_n = K.generate(d, ss.moves[ply], np.int64(K.GEN_TACTICAL))
                        score_moves(pos, tab, ss, ev, ply, pc_n, tt_move, -1, -1, -1, -1, 100)
                    if probe >= pc_n or tried >= 2 + 2 * cut_node:
                        break
                    m = pick(ss, ply, probe, pc_n)
                    if ss.mscore[ply, probe] < 0:
                        break  # the losing captures (SEE) are last
                    if not see_ge(pos, tab, ev, m, pc_beta - ev_static):
                        probe += 1
                        continue
                    tried += 1
                else:
                    m = ss.moves[ply, probe]
                ss.cmove[ply] = cont_index(pos, tab, ss, m)
                ss.mcount[ply] = 0  # not a move of the loop
                K.make_move(d, m)
                c_depth = 0 if stage == 0 else depth - 4
                c_beta = pc_beta
            v = -negamax(d, np.int64(c_depth), -c_beta, -c_beta + 1, ply + 1, np.int64(0 if probe < 0 else 1),
                         1 - cut_node, np.int64(0))
            if probe < 0:
                K.unmake_null(d)
            else:
                K.unmake_move(d)
            if ss.ctrl[C_STOP]:
                return 0
            if probe < 0:
                if v >= beta:
                    return beta if v >= MATE_BOUND else v
                probe = 0
            elif v >= pc_beta:
                if stage == 1:
                    tt_store(ss, key, ss.moves[ply, probe], depth - 3, BOUND_LOWER, value_to_tt(v, ply), tt_pv)
                    return v
                stage = 1  # quiescence reached the bound: now the reduced search
            else:
                stage = 0
                probe += 1
    # Step 6. Internal iterative reduction: no TT move to start with, one ply less
    if tt_move == 0 and depth >= ss.prm[I_IIR_DEPTH] and excluded == 0:
        depth -= 1
    # Step 7. Singular extension: when every other move falls well short of the TT move's
    # lower bound, the TT move is searched one ply deeper (and if they reach beta, cut)
    singular = False
    if excluded == 0 and ply > 0 and tt_move != 0 and depth >= ss.prm[I_SE_DEPTH] and bound & BOUND_LOWER \
            and tdepth >= depth - 3 and abs(tscore) < MATE_BOUND:
        sbeta = tscore - ss.prm[I_SE_MARGIN] * depth
        v = negamax(d, depth // 2, sbeta - 1, sbeta, ply, np.int64(0), cut_node, np.int64(tt_move))
        ss.pvlen[ply] = ply
        if ss.ctrl[C_STOP]:
            return 0
        if v < sbeta:
            singular = True
        elif sbeta >= beta:
            return sbeta  # multi-cut: several moves beat beta
    # Step 8. Generate (no legal move is a terminal verdict), or by stages (``staged``: 1 a legal TT
    # move alone, 2 the tactical moves, 0 all listed; an en passant or castling TT move: all first)
    staged = 0
    if ss.prm[I_STAGED] != 0 and ply > 0 and excluded == 0:
        legal = K.legal_move(d, tt_move) if tt_move != 0 else 0
        if legal >= 0 and (legal == 1 or ss.prm[I_STAGED] == 2):
            tt_move = tt_move if legal == 1 else 0
            staged = 1 if tt_move != 0 else 2
    if staged == 1:
        n = 1
        ss.moves[ply, 0] = tt_move
        ss.mscore[ply, 0] = 1 << 40
    elif staged == 2:
        n = staged_tactical(d, pos, tab, ss, ev, ply, np.int64(0), c1, c2, c4, c6, ss.prm[I_CONT_ORDER])
    else:
        n = K.generate(d, ss.moves[ply], np.int64(K.GEN_ALL))
        if n == 0:
            return mated_in(ply) if checked or tab.cfg[CFG_STALEMATE_LOSS] else 0
        if excluded != 0:
            n = drop_move(ss, ply, 0, n, excluded)
            if n == 0:
                return alpha  # the TT move was the only move: it is singular
        if ply == 0 and ss.ctrl[C_ROOT_SKIP] > 0:
            n = skip_root_moves(ss, n)
        score_moves(pos, tab, ss, ev, ply, n, tt_move, c1, c2, c4, c6, ss.prm[I_CONT_ORDER])
    # Step 9. Move loop: PVS with late-move reductions; once a move has been searched, late-move
    # pruning of quiet moves, and futility and SEE pruning of quiet moves that give no check
    best = -INF
    best_move = 0
    best_i = 0
    old_alpha = alpha
    us = pos.st[K.ST_SIDE]
    prunable = (not pv_node or ss.prm[I_PRUNE_PV] != 0) and (not checked or ss.prm[I_PRUNE_CHECK] != 0) \
        and ply > 0
    # prune_pv = 2: PV nodes prune by late-move count only (not by futility, history or SEE)
    prune_more = prunable and not (pv_node and ss.prm[I_PRUNE_PV] == 2)
    lmp_limit = 1 << 30
    if prunable and depth <= ss.prm[I_LMP_DEPTH]:
        lmp_limit = 3 + depth * depth if improving else (3 + depth * depth) // 2 + 1
    # SEE pruning is off where one capture can decide the game (extinction, a bare king)
    see_prune_ok = tab.cfg[CFG_EXT_MASK] == 0 and not (tab.cfg[CFG_BARE_KING] and few_pieces(pos, tab))
    quiets = 0
    lmp_all = ss.prm[I_LMP_ALL] != 0
    # Stockfish's ttCapture: quiet moves reduced more where the TT move is a capture (the switch
    # is read first, so a node pays for the test only when it is on)
    ttcap_r = 0
    if ss.prm[I_LMR_TTCAP] != 0 and tt_move != 0 and is_tactical(pos, tab, tt_move):
        ttcap_r = ss.prm[I_LMR_TTCAP]
    lmr_cap = ss.prm[I_LMR_CAP] != 0
    lmr_check = ss.prm[I_LMR_CHECK] != 0
    lmr_ttpv = ss.prm[I_LMR_TTPV]
    lmr_stat = ss.prm[I_LMR_STAT] != 0
    # the last-captures extension (ext_lastcap): the move before captured a piece, and few are left
    last_cap = False
    if ss.prm[I_EXT_LASTCAP] > 0 and ply >= 1:
        prev = pos.undo[pos.st[K.ST_PLY] - 1]
        if prev[K.U_MOVE] > 0 and prev[K.U_CAP] != 0 and not tab.pawnlike[(prev[K.U_CAP] - 1) >> 1]:
            last_cap = piece_material(pos, tab, ev) <= ss.prm[I_EXT_LASTCAP]
    tail = 0  # late-move pruning has begun: 1 no tactical move is left, 2 some are
    i = -1
    while True:
        i += 1
        if staged == 1 and i >= n:  # the TT move did not cut: the others, or the tactical ones
            staged = 0 if ss.prm[I_STAGED] == 1 else 2
            if staged == 0:
                n = staged_moves(d, pos, tab, ss, ev, ply, tt_move, c1, c2, c4, c6, ss.prm[I_CONT_ORDER])
            else:
                n = staged_tactical(d, pos, tab, ss, ev, ply, tt_move, c1, c2, c4, c6, ss.prm[I_CONT_ORDER])
        picked = False  # slot i already holds the best remaining move
        if staged == 2:  # no good capture or promotion left: the quiet moves too
            if i < n:
                pick(ss, ply, i, n)
                picked = True
            if i >= n or ss.mscore[ply, i] < (1 << 29):
                staged = 0
                picked = False
                n = staged_quiets(d, pos, tab, ss, ev, ply, n, tt_move, c1, c2, c4, c6, ss.prm[I_CONT_ORDER])
                if n == 0:
                    return mated_in(ply) if checked or tab.cfg[CFG_STALEMATE_LOSS] else 0
        if i >= n:
            break
        m = ss.moves[ply, i] if picked else pick(ss, ply, i, n)
        tactical = is_tactical(pos, tab, m)
        if prunable and not tactical and i > 0 and best > -MATE_BOUND \
                and ((i >= lmp_limit and m != ss.killers[ply, 0] and m != ss.killers[ply, 1]) if lmp_all
                     else quiets >= lmp_limit):
            # late-move pruning, checks included (Stockfish's moveCountPruning): every quiet move
            # from here on is skipped, so once no tactical move is left the loop is over (the
            # selection sort would pick through the quiet tail for nothing)
            if tail == 0:
                tail = 1
                for j in range(i + 1, n):
                    if is_tactical(pos, tab, ss.moves[ply, j]):
                        tail = 2
                        break
            if tail == 1:
                break
            continue
        if prune_more and tactical and depth <= ss.prm[I_SEE_DEPTH] and ss.mscore[ply, i] < 0 and i > 0 \
                and best > -MATE_BOUND and see_prune_ok \
                and not see_ge(pos, tab, ev, m, np.int64(-ss.prm[I_SEE_MARGIN] * depth)):
            continue  # a capture that loses too much at low depth (SEE)
        ci = cont_index(pos, tab, ss, m)
        # the late-move reduction this move would get, and the depth it leaves
        r = 0
        if i > 0 and depth >= ss.prm[I_LMR_MIN_DEPTH] and i >= ss.prm[I_LMR_MIN_MOVES] and not checked \
                and (not tactical or (lmr_cap and (cut_node != 0 or i >= lmp_limit
                                                   or ev_static + captured_value(pos, ev, m) <= alpha))):
            r = int(ss.prm[I_LMR_BASE] / 100.0 + math.log(depth) * math.log(i + 1) / (ss.prm[I_LMR_DIV] / 100.0))
        lmr_depth = depth - 1 - r
        may_prune = False
        stat = np.int64(0)
        if not tactical:
            quiets += 1
            stat = quiet_score(pos, tab, ss, us, m, c1, c2, c4, c6, 100)
            if prune_more and i > 0 and best > -MATE_BOUND:
                if lmr_depth < ss.prm[I_FUT_LMR_DEPTH] and abs(alpha) < MATE_BOUND and not checked \
                        and ev_static + ss.prm[I_FUT_LMR_BASE] + ss.prm[I_FUT_LMR_MARGIN] * max(lmr_depth, 0) <= alpha:
                    may_prune = True  # futility
                elif lmr_depth < ss.prm[I_CONT_PRUNE_DEPTH] and c1 >= 0 and ss.cont[c1, ci] < 0 \
                        and (c2 < 0 or ss.cont[c2, ci] < 0):
                    may_prune = True  # continuation history says it does not work here
                elif lmr_depth < ss.prm[I_SEE_QUIET_DEPTH] and see_prune_ok \
                        and not see_ge(pos, tab, ev, m, np.int64(-ss.prm[I_SEE_QUIET] * max(lmr_depth, 0) ** 2)):
                    may_prune = True  # it puts a piece where it is lost (SEE)
        # a pruned move is searched after all if it gives check: asked without making it where
        # the move is a plain one, else by making it
        if may_prune and K.quiet_gives_check(tab, pos.bb, pos.board, pos.st, m) == 0:
            continue
        ss.cmove[ply] = ci
        ss.mcount[ply] = i + 1
        K.make_move(d, m)
        gives_check = K.in_check(tab, pos.bb, pos.st)
        if may_prune and not gives_check:
            K.unmake_move(d)
            continue
        # check extension, for checks that do not lose material (SEE)
        ext = 0
        if singular and m == tt_move:
            ext = 1
        elif last_cap:
            ext = 1
        elif gives_check:
            if tactical:
                ext = 1 if ss.mscore[ply, i] >= 0 else 0
            else:
                K.unmake_move(d)
                ext = 1 if see_ge(pos, tab, ev, m, np.int64(0)) else 0
                K.make_move(d, m)
        if ext == 0 and ss.prm[I_EXT_CASTLE] != 0 and move_kind(m) == K.KIND_CASTLE:
            ext = 1
        elif ext == 0 and ss.prm[I_EXT_PASSED] != 0 and m == ss.killers[ply, 0] and passed_push(pos, tab, ev, us, m):
            ext = 1
        # PVS with LMR as a sequence of (reduction, null window?) searches through one call
        # site: every recursive call site is another inlined copy for LLVM to compile.
        if r > 0:
            if gives_check and not lmr_check:
                r = 0
            else:
                if lmr_ttpv > 0:
                    r -= lmr_ttpv if tt_pv else 0
                elif pv_node:
                    r -= 1
                if cut_node and not tactical:
                    r += ss.prm[I_LMR_CUT]
                if not improving and r > 1:
                    r += 1
                if singular:
                    r -= 2
                if not tactical:  # (a tactical move has r > 0 only with lmr_cap)
                    r += ttcap_r
                    if m == ss.killers[ply, 0] or m == ss.killers[ply, 1]:
                        r -= 1
                    else:
                        r -= sdiv(stat, ss.prm[I_HIST_LMR_DIV])
                    if lmr_stat and ply >= 1:
                        # Stockfish 11's statScore, against the previous ply's (its move's, or a sibling's)
                        sscore = stat - 4926
                        ss.sstat[ply] = sscore
                        if sscore >= -102 and ss.sstat[ply - 1] < -114:
                            r -= 1
                        elif ss.sstat[ply - 1] >= -116 and sscore < -154:
                            r += 1
                    if ss.prm[I_LMR_ESCAPE] != 0 and move_kind(m) == K.KIND_NORMAL and move_promo(m) == 0 \
                            and not see_ge(pos, tab, ev, K.encode(move_to(m), move_from(m), 0, K.KIND_NORMAL),
                                           np.int64(0)):
                        r -= ss.prm[I_LMR_ESCAPE]  # the piece was lost where it stood: it escapes a capture
                if ss.prm[I_LMR_OPP] > 0 and ply >= 1 and ss.mcount[ply - 1] > ss.prm[I_LMR_OPP]:
                    r -= 1  # the move before was a late one
                r = max(0, min(r, depth - 2))
        zw = i > 0  # the first move gets the full window, the rest a null window first
        while True:
            lo = -alpha - 1 if zw else -beta
            # the child of a reduced search is a cut node; of a full-depth null window, the opposite
            child_cut = (1 if r > 0 else 1 - cut_node) if zw else 0
            v = -negamax(d, depth - 1 - r + ext, lo, -alpha, ply + 1, np.int64(1), np.int64(child_cut),
                         np.int64(0))
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
                if ply == 0:
                    ss.ctrl[C_ROOT_SCORE] = v
                best_i = i
                if v >= beta:
                    # Step 10. Beta cutoff: remember quiet moves that refuted
                    if not tactical:
                        big = 1 if ss.prm[I_HIST_BIG] != 0 and v > beta + 100 else 0
                        quiet_stats(pos, tab, ss, ply, us, i, m, c1, c2, c4, c6, stat_bonus(depth + big))
                    if ss.prm[I_HIST_PRIOR] != 0:
                        prior_refuted(pos, ss, ply, stat_bonus(depth + 1), ss.prm[I_CONT6] != 0)
                    break
    # Step 11. Store (not for the singular test: the node's entry belongs to the full search)
    if best >= beta:
        bound = BOUND_LOWER
    elif alpha > old_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    if excluded == 0:
        tt_store(ss, key, best_move, depth, bound, value_to_tt(best, ply), tt_pv)
        if cslot >= 0 and abs(best) < MATE_BOUND and (best_move == 0 or not is_tactical(pos, tab, best_move)) \
                and not (bound == BOUND_LOWER and best <= ss.seval[ply]) \
                and not (bound == BOUND_UPPER and best >= ss.seval[ply]):
            # the result against the (corrected) static eval, where its bound says which side it is on
            cb = max(-CORR_MAX // 4, min(CORR_MAX // 4, sdiv((best - ss.seval[ply]) * depth, 8)))
            ce = ss.corr[us, cslot]
            ss.corr[us, cslot] = ce + cb - sdiv(ce * abs(cb), CORR_MAX)
        if bound == BOUND_EXACT and ss.prm[I_HIST_PV] != 0 and best_move != 0 \
                and not is_tactical(pos, tab, best_move):
            # a PV node's best move, as a cut's (Stockfish updates them wherever alpha was raised)
            quiet_stats(pos, tab, ss, ply, us, best_i, best_move, c1, c2, c4, c6, stat_bonus(depth))
        if bound == BOUND_UPPER and ss.prm[I_HIST_PRIOR] != 0 and (depth >= 3 or pv_node) and ply >= 1 \
                and c1 >= 0 and pos.undo[pos.st[K.ST_PLY] - 1, K.U_CAP] == 0:
            # the previous move (quiet) left this side nothing: a bonus for it after its own context
            prior_update(ss, ply, c1, stat_bonus(depth), ss.prm[I_CONT6] != 0)
    return best


def search_root(d, ss, depth, alpha, beta):
    """One root search from Python on the bundle d of ``ss`` and the rest.  Python calls
    ``negamax`` itself: a small compiled root wrapper would re-optimize the whole search tree
    once more on a cold start (3 s)."""
    ss.ctrl[C_SELDEPTH] = 0
    return negamax(d, np.int64(depth), np.int64(alpha), np.int64(beta), np.int64(0), np.int64(1), np.int64(0),
                   np.int64(0))
