"""Validated spec -> numpy tables the kernels read.

Array layout (``S = MAXSQ = 128`` squares, bitboards are two uint64 words, square ``s`` is bit
``s % 64`` of word ``s // 64``; ``s = rank * files + file``, rank 0 is White's first rank):

=================  ========================  =================================================
table              shape, dtype              meaning
=================  ========================  =================================================
cfg                (N_CFG,) int64            scalars, indexed by the CFG_* constants
sqbit              (S, 2) uint64             one-square bitboards
board_mask         (2,) uint64               squares on the board
leap               (NL, S, 2) uint64         leaper target sets, one table per vector set
ray                (NV, S, 2) uint64         full ray from a square along vector v (square excluded)
lray               (NR, S, 2) uint64         ray cut to a range; lray_vec/lray_pos give its vector
                                             and whether it runs to higher squares (first blocker
                                             is then the lowest bit)
lame_to, lame_path (NM, S) int64, (NM,S,2)   lame leap: target (-1 off board) and squares passed
comp_*             (K,) int64                move components: kind (0 leap, 1 ray, 2 lame), idx
                                             into its table, mod (1 move, 2 capture, 3 both),
                                             init (only with the first-move right)
comp_lo/comp_hi    (T, 2) int64              component range of piece type t for colour c
rcomp_*            same, reversed            capture components seen from the target square:
                                             squares from which (t, c) attacks s
reach_att          (T, 2, S, 2) uint64       empty-board union of the rcomp targets: a (t, c)
                                             piece outside it cannot attack s (skip the type)
reach_cap          (T, 2, S, 2) uint64       empty-board capture targets of (t, c) on s
reach_prm          (T, 2, S, 2) uint64       empty-board non-capture targets in the promotion
                                             zone: a piece with no enemy in reach_cap and an
                                             empty reach_prm has no capture or promotion
between            (S, S, 2) uint64          squares strictly between two squares on a rider line
init_zone          (T, 2, 2) uint64          where type t of colour c may use initial moves
promo_zone         (T, 2, 2) uint64          promotion squares of type t for colour c
promo_types        (T, 16) int64             promotion choices (type indices), promo_n of them
start_count        (2, T) int64              pieces per colour and type in the start position
castle             (2, 2, 4) int64           [colour, side]: king from, king to, rook from, rook to
castle_empty/path  (2, 2, 2) uint64          squares that must be empty / not attacked
zob_piece          (2T+2, S) uint64          Zobrist keys by piece code and square
zob_misc           (1,) uint64               side to move
zob_ep, zob_unmoved (S,) uint64              en-passant square, first-move right on a square
=================  ========================  =================================================

Piece codes on the board: 0 empty, else ``1 + 2 * type + colour`` (colour 0 White, 1 Black).
"""
from __future__ import annotations

import numpy as np

from ._jit import array_tuple
from .betza import lame_path
from .spec import VariantError, VariantSpec

MAXSQ = 128

# cfg indices (the kernels import them from here)
(CFG_FILES, CFG_RANKS, CFG_NSQ, CFG_NTYPES, CFG_CHECK, CFG_ROYAL, CFG_CAPTURES, CFG_CONVERSION,
 CFG_CASTLING, CFG_CASTLE_CHECKS, CFG_LAME_CAPTURE, CFG_EXT_MASK, CFG_EP, CFG_CASTLE_ROOK,
 CFG_STALEMATE_LOSS, CFG_BARE_KING, CFG_FIFTY, N_CFG) = range(18)

__all__ = [
    "Tables", "build_tables", "MAXSQ", "set_bit", "N_CFG", "CFG_FILES", "CFG_RANKS", "CFG_NSQ",
    "CFG_NTYPES", "CFG_CHECK", "CFG_ROYAL", "CFG_CAPTURES", "CFG_CONVERSION", "CFG_CASTLING",
    "CFG_CASTLE_CHECKS", "CFG_LAME_CAPTURE", "CFG_EXT_MASK", "CFG_EP", "CFG_CASTLE_ROOK",
    "CFG_STALEMATE_LOSS", "CFG_BARE_KING", "CFG_FIFTY",
]

# every array of the table above, in field order, with its kind (see _jit.array_tuple)
Tables = array_tuple("Tables", """
    cfg:i1 sqbit:u2 board_mask:u1 leap:u3 ray:u3 lray:u3 lray_vec:i1 lray_pos:i1 lame_to:i2
    lame_path:u3 comp_kind:i1 comp_idx:i1 comp_mod:i1 comp_init:i1 comp_lo:i2 comp_hi:i2
    rcomp_kind:i1 rcomp_idx:i1 rcomp_lo:i2 rcomp_hi:i2 reach_att:u4 reach_cap:u4 reach_prm:u4
    between:u3 init_zone:u3 init_tracked:i1 promo_zone:u3 promo_types:i2 promo_n:i1
    promo_optional:i1 promo_limit:i1 start_count:i2 pawnlike:i1 ep_piece:i1 castle:i3
    castle_empty:u3 castle_path:u3 zob_piece:u2 zob_misc:u1 zob_ep:u1 zob_unmoved:u1
""")


def set_bit(bb: np.ndarray, s: int) -> None:
    """Set square s in a two-word bitboard (words of 64 squares)."""
    bb[s >> 6] |= np.uint64(1) << np.uint64(s & 63)


class _Builder:
    def __init__(self, spec: VariantSpec, start_board: dict[int, tuple[int, int]]):
        self.spec = spec
        self.F, self.R = spec.files, spec.ranks
        self.nsq = self.F * self.R
        self.leap_keys: dict[frozenset, int] = {}
        self.leaps: list[np.ndarray] = []
        self.vec_index: dict[tuple[int, int], int] = {}
        self.lray_keys: dict[tuple[int, int], int] = {}
        self.lame_keys: dict[tuple[tuple[int, int], bool], int] = {}
        self.lame_tos: list[np.ndarray] = []
        self.lame_paths: list[np.ndarray] = []
        self.start_board = start_board

    def on(self, f: int, r: int) -> bool:
        return 0 <= f < self.F and 0 <= r < self.R

    def leap_table(self, vectors: list[tuple[int, int]], reverse: bool) -> int:
        key = frozenset((v, reverse) for v in vectors)
        if key not in self.leap_keys:
            tab = np.zeros((MAXSQ, 2), np.uint64)
            for s in range(self.nsq):
                f, r = s % self.F, s // self.F
                for dx, dy in vectors:
                    if reverse:
                        dx, dy = -dx, -dy
                    if self.on(f + dx, r + dy):
                        set_bit(tab[s], (r + dy) * self.F + f + dx)
            self.leap_keys[key] = len(self.leaps)
            self.leaps.append(tab)
        return self.leap_keys[key]

    def vector(self, v: tuple[int, int]) -> int:
        if v not in self.vec_index:
            self.vec_index[v] = len(self.vec_index)
        return self.vec_index[v]

    def lray_index(self, v: tuple[int, int], rng: int) -> int:
        self.vector(v)
        key = (v, rng)
        if key not in self.lray_keys:
            self.lray_keys[key] = len(self.lray_keys)
        return self.lray_keys[key]

    def lame_index(self, v: tuple[int, int], reverse: bool) -> int:
        key = (v, reverse)
        if key not in self.lame_keys:
            to = np.full(MAXSQ, -1, np.int64)
            path = np.zeros((MAXSQ, 2), np.uint64)
            legs = lame_path(v)
            for s in range(self.nsq):
                f, r = s % self.F, s // self.F
                if reverse:  # from target s back to the origin x = s - v
                    ox, oy = f - v[0], r - v[1]
                    if not self.on(ox, oy):
                        continue
                    to[s] = oy * self.F + ox
                    for lx, ly in legs:
                        set_bit(path[s], (oy + ly) * self.F + ox + lx)
                else:
                    if not self.on(f + v[0], r + v[1]):
                        continue
                    to[s] = (r + v[1]) * self.F + f + v[0]
                    for lx, ly in legs:
                        set_bit(path[s], (r + ly) * self.F + f + lx)
            self.lame_keys[key] = len(self.lame_tos)
            self.lame_tos.append(to)
            self.lame_paths.append(path)
        return self.lame_keys[key]


def build_tables(spec: VariantSpec, start_board: dict[int, tuple[int, int]]) -> Tables:
    """Build every table of a variant; ``start_board`` maps square -> (type, colour)."""
    b = _Builder(spec, start_board)
    F, R, nsq = b.F, b.R, b.nsq
    T = len(spec.pieces)
    letter_index = {p.letter: i for i, p in enumerate(spec.pieces)}

    comps: list[tuple[int, int, int, int]] = []
    rcomps: list[tuple[int, int]] = []
    comp_lo = np.zeros((T, 2), np.int64)
    comp_hi = np.zeros((T, 2), np.int64)
    rcomp_lo = np.zeros((T, 2), np.int64)
    rcomp_hi = np.zeros((T, 2), np.int64)
    lame_capture = False
    for t, p in enumerate(spec.pieces):
        for c in (0, 1):
            comp_lo[t, c] = len(comps)
            rcomp_lo[t, c] = len(rcomps)
            # merge plain leaps by (modality, initial) into one table each
            merged: dict[tuple[int, int], list[tuple[int, int]]] = {}
            for comp in p.components:
                mod = (1 if comp.move else 0) | (2 if comp.capture else 0)
                init = 1 if comp.initial else 0
                vecs = [(dx, dy if c == 0 else -dy) for dx, dy in comp.vectors]
                if comp.rider:
                    for v in vecs:
                        comps.append((1, b.lray_index(v, comp.range_), mod, init))
                        if comp.capture and not comp.initial:
                            rcomps.append((1, b.lray_index((-v[0], -v[1]), comp.range_)))
                elif comp.lame:
                    for v in vecs:
                        if max(abs(v[0]), abs(v[1])) > 1:
                            comps.append((2, b.lame_index(v, False), mod, init))
                            if comp.capture and not comp.initial:
                                rcomps.append((2, b.lame_index(v, True)))
                                lame_capture = True
                        else:
                            merged.setdefault((mod, init), []).extend([v])
                else:
                    merged.setdefault((mod, init), []).extend(vecs)
            for (mod, init), vecs in merged.items():
                comps.append((0, b.leap_table(vecs, False), mod, init))
            rev_vecs = [v for (mod, init), vecs in merged.items() if mod & 2 and not init for v in vecs]
            if rev_vecs:
                rcomps.append((0, b.leap_table(rev_vecs, True)))
            comp_hi[t, c] = len(comps)
            rcomp_hi[t, c] = len(rcomps)

    NV = max(1, len(b.vec_index))
    ray = np.zeros((NV, MAXSQ, 2), np.uint64)
    for v, vi in b.vec_index.items():
        for s in range(nsq):
            f, r = s % F + v[0], s // F + v[1]
            while b.on(f, r):
                set_bit(ray[vi, s], r * F + f)
                f, r = f + v[0], r + v[1]
    NR = max(1, len(b.lray_keys))
    lray = np.zeros((NR, MAXSQ, 2), np.uint64)
    lray_vec = np.zeros(NR, np.int64)
    lray_pos = np.zeros(NR, np.int64)
    for (v, rng), li in b.lray_keys.items():
        lray_vec[li] = b.vec_index[v]
        lray_pos[li] = 1 if v[1] * F + v[0] > 0 else 0
        for s in range(nsq):
            f, r, k = s % F + v[0], s // F + v[1], 1
            while b.on(f, r) and (rng == 0 or k <= rng):
                set_bit(lray[li, s], r * F + f)
                f, r, k = f + v[0], r + v[1], k + 1

    # squares between two squares on one rider line (for pins); parallel riders of different
    # step lengths would make "between" ambiguous
    between = np.zeros((MAXSQ, MAXSQ, 2), np.uint64)
    owner: dict[tuple[int, int], tuple[int, int]] = {}
    for v in b.vec_index:
        for s in range(nsq):
            f, r = s % F + v[0], s // F + v[1]
            acc = np.zeros(2, np.uint64)
            while b.on(f, r):
                e = r * F + f
                if (s, e) in owner and owner[(s, e)] != v:
                    raise VariantError(
                        f"{spec.name}: riders along {owner[(s, e)]} and {v} share lines; not supported"
                    )
                owner[(s, e)] = v
                between[s, e] = acc
                set_bit(acc, e)
                f, r = f + v[0], r + v[1]

    NL = max(1, len(b.leaps))
    leap = np.zeros((NL, MAXSQ, 2), np.uint64)
    for i, tab in enumerate(b.leaps):
        leap[i] = tab
    NM = max(1, len(b.lame_tos))
    lame_to = np.full((NM, MAXSQ), -1, np.int64)
    lame_pth = np.zeros((NM, MAXSQ, 2), np.uint64)
    for i, (to, pth) in enumerate(zip(b.lame_tos, b.lame_paths)):
        lame_to[i] = to
        lame_pth[i] = pth

    def arr(items: list, k: int) -> np.ndarray:
        return np.array([it[k] for it in items] or [0], np.int64)

    sqbit = np.zeros((MAXSQ, 2), np.uint64)
    for s in range(MAXSQ):
        set_bit(sqbit[s], s)
    board_mask = np.zeros(2, np.uint64)
    for s in range(nsq):
        set_bit(board_mask, s)

    def rank_zone(c: int, rel_ranks) -> np.ndarray:
        z = np.zeros(2, np.uint64)
        for rr in rel_ranks:
            r = rr - 1 if c == 0 else R - rr
            for f in range(F):
                set_bit(z, r * F + f)
        return z

    init_zone = np.zeros((T, 2, 2), np.uint64)
    init_tracked = np.zeros(T, np.int64)
    promo_zone = np.zeros((T, 2, 2), np.uint64)
    promo_types = np.zeros((T, 16), np.int64)
    promo_n = np.zeros(T, np.int64)
    promo_optional = np.zeros(T, np.int64)
    promo_limit = np.zeros(T, np.int64)
    pawnlike = np.zeros(T, np.int64)
    ep_piece = np.zeros(T, np.int64)
    for t, p in enumerate(spec.pieces):
        for c in (0, 1):
            if p.initial == "rank":
                init_zone[t, c] = rank_zone(c, p.initial_ranks)
            elif p.initial == "tracked":
                init_zone[t, c] = board_mask
            promo_zone[t, c] = rank_zone(c, p.promotion_ranks)
        init_tracked[t] = 1 if p.initial == "tracked" else 0
        promo_n[t] = len(p.promotes_to)
        for k, ch in enumerate(p.promotes_to):
            promo_types[t, k] = letter_index[ch]
        promo_optional[t] = 1 if p.promotion == "optional" else 0
        promo_limit[t] = 1 if p.promotion_limit else 0
        pawnlike[t] = 1 if p.pawn else 0
        ep_piece[t] = 1 if p.en_passant else 0

    start_count = np.zeros((2, T), np.int64)
    for s, (t, c) in start_board.items():
        start_count[c, t] += 1

    castle = np.full((2, 2, 4), -1, np.int64)
    castle_empty = np.zeros((2, 2, 2), np.uint64)
    castle_path = np.zeros((2, 2, 2), np.uint64)
    royal = letter_index[spec.royal] if spec.royal else -1
    rook = letter_index[spec.castling_rook] if spec.castling_rook else -1
    if spec.castling:
        for c in (0, 1):
            kings = [s for s, tc in start_board.items() if tc == (royal, c)]
            if len(kings) != 1:
                raise VariantError(f"{spec.name}: castling needs one royal piece per side in start_fen")
            ks = kings[0]
            kr = ks // F
            rooks = sorted(s for s, tc in start_board.items() if tc == (rook, c) and s // F == kr)
            for side, kfile in enumerate(spec.castling_king_files):
                kto = kr * F + ord(kfile) - ord("a")
                cand = [s for s in rooks if (s > ks if side == 0 else s < ks)]
                if not cand:
                    raise VariantError(f"{spec.name}: no castling rook on the {'king' if side == 0 else 'queen'} side")
                rs = cand[-1] if side == 0 else cand[0]
                rto = kto - 1 if side == 0 else kto + 1
                castle[c, side] = (ks, kto, rs, rto)
                lo, hi = min(ks, rs, kto, rto), max(ks, rs, kto, rto)
                for s in range(lo, hi + 1):
                    if s not in (ks, rs):
                        set_bit(castle_empty[c, side], s)
                for s in range(min(ks, kto), max(ks, kto) + 1):
                    set_bit(castle_path[c, side], s)

    # empty-board reach of every component: supersets that let the kernels skip a piece type
    # (attack tests) or a piece (captures and promotions only) without computing its targets
    def empty_targets(kind: int, idx: int, s: int) -> np.ndarray:
        if kind == 0:
            return leap[idx, s]
        if kind == 1:
            return lray[idx, s]
        out = np.zeros(2, np.uint64)
        if lame_to[idx, s] >= 0:
            set_bit(out, int(lame_to[idx, s]))
        return out

    reach_att = np.zeros((T, 2, MAXSQ, 2), np.uint64)
    reach_cap = np.zeros((T, 2, MAXSQ, 2), np.uint64)
    reach_prm = np.zeros((T, 2, MAXSQ, 2), np.uint64)
    for t in range(T):
        for c in (0, 1):
            for s in range(nsq):
                for k in range(rcomp_lo[t, c], rcomp_hi[t, c]):
                    reach_att[t, c, s] |= empty_targets(rcomps[k][0], rcomps[k][1], s)
                for k in range(comp_lo[t, c], comp_hi[t, c]):
                    kind, idx, mod, _init = comps[k]
                    e = empty_targets(kind, idx, s)
                    if mod & 2:
                        reach_cap[t, c, s] |= e
                    if mod & 1:
                        reach_prm[t, c, s] |= e & promo_zone[t, c]

    ext_mask = 0
    for ch in spec.extinction:
        ext_mask |= 1 << letter_index[ch]
    cfg = np.zeros(N_CFG, np.int64)
    cfg[CFG_FILES], cfg[CFG_RANKS], cfg[CFG_NSQ], cfg[CFG_NTYPES] = F, R, nsq, T
    cfg[CFG_CHECK] = int(spec.check)
    cfg[CFG_ROYAL] = royal
    cfg[CFG_CAPTURES] = int(spec.captures)
    cfg[CFG_CONVERSION] = letter_index[spec.conversion] if spec.conversion else -1
    cfg[CFG_CASTLING] = int(spec.castling)
    cfg[CFG_CASTLE_CHECKS] = int(spec.castling_checks)
    cfg[CFG_LAME_CAPTURE] = int(lame_capture)
    cfg[CFG_EXT_MASK] = ext_mask
    cfg[CFG_EP] = int(any(p.en_passant for p in spec.pieces))
    cfg[CFG_CASTLE_ROOK] = rook
    cfg[CFG_STALEMATE_LOSS] = int(spec.stalemate == "loss")
    cfg[CFG_BARE_KING] = int(spec.bare_king == "loss")
    cfg[CFG_FIFTY] = spec.fifty_move_plies

    rng = np.random.default_rng(0x6A17F15)
    zob_piece = rng.integers(0, 2**64 - 1, size=(2 * T + 2, MAXSQ), dtype=np.uint64, endpoint=True)
    zob_piece[0] = 0
    zob_misc = rng.integers(0, 2**64 - 1, size=1, dtype=np.uint64, endpoint=True)
    zob_ep = rng.integers(0, 2**64 - 1, size=MAXSQ, dtype=np.uint64, endpoint=True)
    zob_unmoved = rng.integers(0, 2**64 - 1, size=MAXSQ, dtype=np.uint64, endpoint=True)

    return Tables(
        cfg=cfg, sqbit=sqbit, board_mask=board_mask, leap=leap, ray=ray, lray=lray,
        lray_vec=lray_vec, lray_pos=lray_pos, lame_to=lame_to, lame_path=lame_pth,
        comp_kind=arr(comps, 0), comp_idx=arr(comps, 1), comp_mod=arr(comps, 2),
        comp_init=arr(comps, 3), comp_lo=comp_lo, comp_hi=comp_hi,
        rcomp_kind=arr(rcomps, 0), rcomp_idx=arr(rcomps, 1), rcomp_lo=rcomp_lo, rcomp_hi=rcomp_hi,
        reach_att=reach_att, reach_cap=reach_cap, reach_prm=reach_prm,
        between=between, init_zone=init_zone, init_tracked=init_tracked, promo_zone=promo_zone,
        promo_types=promo_types, promo_n=promo_n, promo_optional=promo_optional,
        promo_limit=promo_limit, start_count=start_count, pawnlike=pawnlike, ep_piece=ep_piece,
        castle=castle, castle_empty=castle_empty, castle_path=castle_path,
        zob_piece=zob_piece, zob_misc=zob_misc, zob_ep=zob_ep, zob_unmoved=zob_unmoved,
    )
