"""Per-variant evaluation weights (data) -> the arrays the evaluation kernel reads.

Weights live in ``eval/weights/<variant>.toml`` (``inherits = "other"`` to start from another
file).  The evaluation is tapered: every square term has a middlegame and an endgame value,
blended by the game phase (the non-pawn, non-royal material left on the board, against the
start position's).  Keys:

- ``tempo``: bonus for the side to move.
- ``[pieces.X]``:
  ``value`` (material), ``centre`` (per step nearer the board's centre, Chebyshev distance),
  ``advance`` (per rank beyond the piece's own second rank); ``value_eg``, ``centre_eg``,
  ``advance_eg`` are their endgame values (each defaults to its middlegame value);
  ``mobility`` (per square the piece can move to or capture on, own pieces excluded);
  ``mobility_table``, ``mobility_table_eg``: a list of centipawns by that number of squares
  (0, 1, 2, ...; a count beyond the list takes its last entry), added to ``mobility`` times the
  count in the middlegame and the endgame (``mobility_table_eg`` defaults to
  ``mobility_table``): the curve a linear weight cannot give (a piece with no square is worth
  much less than one with two; the tenth square adds little).  Learned ones usually live in
  ``<variant>.psqt.toml`` with the square tables;
  ``king_attack`` (per square next to the enemy royal piece that this piece attacks);
  ``passed`` (pawn-like pieces only: a pawn with no enemy pawn-like piece ahead of it on its
  own or a neighbouring file earns ``passed * n * (n + 1) / 2`` in the endgame, n = ranks
  advanced beyond its second rank; half of it in the middlegame); ``passed_table``,
  ``passed_table_eg``: centipawns by that n (0, 1, 2, ...; beyond the list its last entry) added
  for a passed pawn in the middlegame and the endgame (``_eg`` defaults to the middlegame list);
  ``pair``, ``pair_eg``: for a side with two or more pieces of the type (the bishop pair);
  ``open_file``, ``open_file_eg``: a piece on a file with no pawn-like piece;
  ``half_open_file``, ``half_open_file_eg``: on a file with none of its own but an enemy one
  (a rook on an open file).  Learned values of these keys usually live in
  ``<variant>.psqt.toml`` too.
- ``safety_piece``, ``safety_penalty``: each piece of that type standing attacked by the enemy
  costs the penalty (Aces in Cows and Butterflies).  In variants with conversion (Cleopatra),
  where only the piece that moves converts, the test is instead whether an enemy converting
  piece can move to a square from which it attacks the piece (the King one move from
  conversion).
- ``pawn_shield``: per own pawn-like piece on the three squares in front of the royal piece
  (middlegame only).
- ``king_danger``: scale (per 256) of the summed ``king_attack`` units, which grow with the
  number of attackers as in Fruit (two attackers count half, three 3/4, ...); middlegame only.
  ``king_danger_sq``: per 256 of the square of those scaled units (so an attack of several
  pieces costs more than the sum of its parts, as in Stockfish's quadratic king danger).
- ``threat_pawn``: per piece (not pawn-like, not royal) that an enemy pawn-like piece
  attacks; ``hanging``: per such piece attacked by any other enemy piece and defended by none
  of its own (both counted for each side, middlegame and endgame alike).
- ``sf_scale``: Stockfish's king safety and threats (``sf_king``, ``sf_threats`` in
  sf_terms.py, after Stockfish 11 and Fairy-Stockfish's classical evaluation), computed in
  Stockfish's internal units and added at ``sf_scale`` / 256 of them (102, about 0.4, brings
  a Stockfish knight of 781 to a jitfish knight of about 320); 0 switches them off.  King
  danger of a side: the attackers of its king zone times the sum of their
  ``king_attack_weight``, 185 per zone square the enemy attacks and it guards at most once
  (or only with the king), 148 per square from which an enemy piece could check if that square
  is not safe, 69 per enemy attack on a square next to the king, the attacks on the king's
  flank (3 n^2 / 8, and 8 each in the middlegame), the enemy's mobility minus its own, minus 4
  per own attack on the flank, plus 37; plus, for each enemy type that can check from a safe
  square (not guarded, or guarded once and attacked twice), ``safe_check`` (``[one square,
  more]``); minus ``king_no_major`` when the enemy has no piece of value ``king_major_value``
  or more (a queen in chess).  Above 100 units it costs ``d * min(d, 3500) / 4096`` in the
  middlegame and ``d / 16`` in the endgame; a king on a flank with no pawn-like piece costs
  (17, 95).  Threats of a side: an enemy piece that is attacked and not strongly protected (by
  a pawn-like piece, or twice when attacked at most once), or a non-pawn piece defended that
  way, attacked by a piece of ``threat_class = "minor"`` earns the victim's ``threat_minor``
  (``[mg, eg]``); a weak one attacked by a ``"rook"`` its ``threat_rook``; (24, 89) when the
  king attacks a weak piece; (69, 36) per weak piece that is undefended or a non-pawn piece
  attacked twice; 7 per enemy-attacked square it also attacks that is not strongly protected;
  (173, 94) per non-pawn piece attacked by a pawn-like piece standing safe.  The numbers in
  this paragraph are Stockfish's, in the kernel; what depends on the pieces is in the weights.
- ``king_scale`` (needs ``sf_scale``; default ``sf_scale``): the king danger above at
  ``king_scale`` / 256 instead, the threats staying at ``sf_scale`` / 256.
- ``mobility_area = true``: ``mobility`` counts as Stockfish does: the squares a piece attacks
  (own pieces included) and the empty squares it moves to, within its side's mobility area:
  not its own royal piece, not its own pawn-like pieces that are blocked or on their second or
  third rank, not a square an enemy pawn-like piece attacks.  (Stockfish also leaves out its
  own queen and pinned pieces, and counts a bishop's and a rook's x-rays through queens: these
  are not kept.)  The values are then the weights' ``mobility_table`` lists, by that count.
- ``pawn_structure = true`` (needs ``sf_scale``): Stockfish's pawn structure as Fairy-Stockfish
  11.1 evaluates it (``sf_pawns`` in sf_terms.py), in its units at ``sf_scale`` / 256, for every
  pawn-like piece with the pawn-like pieces of both sides as the pawns.  A pawn with an own
  pawn beside it (phalanx) or one rank behind on a neighbouring file (support) earns
  ``Connected[r] * (2 + phalanx - opposed) + 21 * supporters`` in the middlegame and that times
  ``(r - 2) / 4`` in the endgame (``Connected`` = 0, 7, 8, 12, 29, 48, 86 by the pawn's rank from
  its side's first rank; opposed: an enemy pawn ahead on its file); otherwise a pawn with no own
  pawn on a neighbouring file costs (5, 15), plus (13, 27) when unopposed; a backward one
  (blocked by an enemy pawn, with no own pawn on a neighbouring file level or behind) (9, 24),
  plus (13, 27) unopposed; and an unsupported pawn costs (11, 56) when an own pawn stands right
  behind it (doubled) and (0, 56) when it attacks two enemy pawns or more.  Fairy-Stockfish's
  horde rule (a side with pawns on more than a quarter of the board) is not kept.  It depends
  on the pawn-like pieces alone, so the evaluation caches it by a hash of their placement
  (``pawn_key``, the cache's ``pkey``/``pval``), as Stockfish's pawn hash does.
- ``passed_path = true`` (needs ``sf_scale``): Stockfish 11's passed-pawn terms beyond the rank
  (which ``passed`` and ``passed_table`` give): for a passed pawn-like piece (``is_passed``) on
  relative rank r > 3 (from 1), w = 5 (r - 1) - 13 and the square in front of it b, in the
  endgame ``(19/4 min(5, enemy king to b) - 2 min(5, own king to b)) * w``, less ``min(5, own
  king to the square beyond b) * w`` below the last rank but one; and when b is empty, ``k * w``
  in both phases, k 35 when the enemy attacks no square of the pawn's span ahead (its own and the
  neighbouring files), 20 when it attacks none on the pawn's file, 9 when it does not attack b,
  else 0, and 5 more when the own side attacks b.  In Stockfish's units at ``sf_scale`` / 256,
  times (the best promotion's value - the pawn's) / 800, at most 1, as Fairy-Stockfish scales it.
  (Stockfish's x-ray of a rook or queen behind the pawn, and its halving for candidate passers,
  are not kept.)
- ``psqt``, ``psqt_eg`` (in ``[pieces.X]``): a learned piece-square table, one integer per
  square of the board from White's side (a1 first, rank by rank: ``files * ranks`` numbers),
  added to the square values above in the middlegame and the endgame (``psqt_eg`` defaults to
  ``psqt``); Black reads the table mirrored top to bottom.  Learned tables usually live in their
  own file, ``<variant>.psqt.toml`` beside the weight file, with only these two keys per piece
  (``python -m jitfish.bench.tune_psqt`` writes it); it applies to that variant only (a weight
  file that inherits from it does not inherit its tables).  An evaluation network,
  ``<variant>.nnue.npz`` in the same folder, is loaded here too (``network.py``: its format,
  and how ``mode`` combines it with these terms).
- ``mopup``: in the endgame, when one side is ahead by at least ``mopup_margin`` material and
  the other has no pawn-like piece left, the stronger side earns ``mopup`` per step the weak
  royal piece stands from the centre and per step the two royal pieces are closer together
  (how mates and bare kings are forced).
- ``[search]``: not evaluation weights but the search numbers this variant plays with, by the
  names of ``PARAMS`` in engine/search.py (``prune_pv = 1``); the engine checks the names and
  applies them over its defaults, and its own ``set_params`` (``JITFISH_SEARCH_PARAMS``) over
  them.  A file that inherits takes its parent's table and adds or replaces names
  (``search_settings``).

The evaluation is also scaled down as the 50-move counter runs (``x (2F - halfmoves) / 2F``
with F the variant's limit), so a side that is ahead prefers moves that make progress.

Layout handed to the kernel (``EvalTables``):

==========  ==================  ==============================================================
array       shape, dtype        meaning
==========  ==================  ==============================================================
psq         (2T + 2, 128) int64 middlegame value of piece code on square, White's side
psq_eg      (2T + 2, 128) int64 endgame value, the same way
passed      (2T + 2, 128) int64 passed-pawn bonus in the endgame, signed
passed_mg   (2T + 2, 128) int64 the same in the middlegame
pair        (T, 2) int64        pair bonus (middlegame, endgame)
openf       (T, 4) int64        open file (mg, eg), half-open file (mg, eg)
filemask    (16, 2) uint64      the squares of each file
value       (T,) int64          material, for move ordering and the phase
mobility    (T,) int64          1 where the piece's target squares are counted (mobility), else 0
mob_mg      (T, MOB_N) int64    middlegame mobility value by count of target squares (clipped)
mob_eg      (T, MOB_N) int64    endgame mobility value, the same way
katt        (T,) int64          king-attack units per attacked square next to the enemy king
phase_w     (T,) int64          material counted in the phase (0 for pawns and the royal)
front       (2, 128, 2) uint64  squares ahead on the same and neighbouring files (passed test)
zone        (128, 2) uint64     the squares one king step from a square
shield      (2, 128, 2) uint64  the three squares in front of a square
near        (128,) int64        steps from the board's edge ring towards the centre
params      (32,) int64         P_* slots below (P_FILE_TERMS, P_PAIR_TERMS: 1 where some type has them)
kaw         (T,) int64          king_attack_weight
safe_check  (T, 2) int64        safe_check (one square, more)
tclass      (T,) int64          threat_class: 0 none, 1 minor, 2 rook
tminor      (T, 2) int64        threat_minor (mg, eg) of the type as the victim
trook       (T, 2) int64        threat_rook (mg, eg), the same way
flank       (16, 2) uint64      the king flank of a king on each file
camp        (2, 2) uint64       each side's camp (its half of the board and a rank beyond)
lowrank     (2, 2) uint64       each side's second and third ranks
adjfile     (16, 2) uint64      the squares of the files next to each file
rankmask    (16, 2) uint64      the squares of each rank
behind      (2, 16, 2) uint64   a side's ranks level with and behind each rank
==========  ==================  ==============================================================
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from jitfish.movegen._jit import array_tuple
from jitfish.movegen.position import Variant
from jitfish.movegen.spec import PSQT_SUFFIX, WEIGHTS_SUFFIX, VariantSpec
from jitfish.movegen.tables import CFG_ROYAL, set_bit

from .network import MODES, feature_table, read_network

__all__ = ["EvalTables", "eval_tables", "search_settings", "tables_from", "variant_weights", "derived_weights",
           "weights_file", "read_weights", "psqt_file", "read_psqt", "network_file", "without_network", "WEIGHTS_DIR", "MOB_N"]

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
(P_TEMPO, P_SAFETY_TYPE, P_SAFETY_PENALTY, P_PHASE_TOTAL, P_SHIELD, P_KING_DANGER,
 P_MOPUP, P_MOPUP_MARGIN, P_THREAT_PAWN, P_HANGING, P_NN_MODE, P_NN_B2, P_KING_DANGER_SQ, P_FILE_TERMS,
 P_PAIR_TERMS, P_SF_SCALE, P_KS_NO_MAJOR, P_KS_MAJOR_VALUE, P_MOB_AREA, P_PAWN_STRUCT, P_PASSED_PATH,
 P_KING_SCALE) = range(22)
N_PARAMS = 32

PIECE_KEYS = {"value", "centre", "advance", "value_eg", "centre_eg", "advance_eg", "mobility",
              "king_attack", "passed", "psqt", "psqt_eg", "mobility_table", "mobility_table_eg", "passed_table",
              "passed_table_eg", "pair", "pair_eg", "open_file", "open_file_eg", "half_open_file",
              "half_open_file_eg", "king_attack_weight", "safe_check", "threat_class", "threat_minor", "threat_rook"}
# the only keys of a <variant>.psqt.toml (learned values)
TABLE_KEYS = ("psqt", "psqt_eg", "mobility_table", "mobility_table_eg", "passed_table", "passed_table_eg", "pair",
              "pair_eg", "open_file", "open_file_eg", "half_open_file", "half_open_file_eg")
SCALAR_KEYS = ("pair", "pair_eg", "open_file", "open_file_eg", "half_open_file", "half_open_file_eg")
MOB_N = 32  # mobility tables' length in the kernel (a count beyond it takes the last entry)
TOP_KEYS = {"tempo", "safety_piece", "safety_penalty", "pawn_shield", "king_danger", "king_danger_sq", "mopup",
            "mopup_margin", "threat_pawn", "hanging", "pieces", "sf_scale", "king_no_major", "king_major_value",
            "mobility_area", "pawn_structure", "passed_path", "king_scale", "search"}
THREAT_CLASSES = {"": 0, "minor": 1, "rook": 2}


EvalTables = array_tuple("EvalTables", """
    psq:i2 psq_eg:i2 passed:i2 passed_mg:i2 value:i1 mobility:i1 mob_mg:i2 mob_eg:i2 pair:i2 openf:i2 filemask:u2
    katt:i1 phase_w:i1 front:u3 zone:u2 shield:u3 near:i1 params:i1 nn_idx:i3 nn_w1:i2 nn_b1:i1 nn_w2:i1
    kaw:i1 safe_check:i2 tclass:i1 tminor:i2 trook:i2 flank:u2 camp:u2 lowrank:u2 adjfile:u2 rankmask:u2
    behind:u3
""")


def _toml(path: Path) -> dict[str, Any]:
    """A weight or table file's contents (ValueError naming the file when it is not TOML)."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path.name}: not valid TOML: {exc}") from None


def _read_weights(path: Path, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """A weight file with its ``inherits`` chain resolved (a parent is looked for beside the
    file, then among the shipped weights)."""
    data = _toml(path)
    parent = data.pop("inherits", "")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    if not parent:
        return data
    if parent in seen:
        raise ValueError(f"{path.name}: inherits forms a cycle")
    parent_path = next((p for p in (path.parent / f"{parent}{WEIGHTS_SUFFIX}", path.parent / f"{parent}.toml",
                                    WEIGHTS_DIR / f"{parent}.toml") if p.exists() and p != path), None)
    if parent_path is None:
        raise ValueError(f"{path.name}: inherits {parent!r}, but there are no weights of that name")
    base = _read_weights(parent_path, seen + (path.stem,))
    pieces = {k: dict(v) for k, v in base.get("pieces", {}).items()}
    for k, v in data.get("pieces", {}).items():
        pieces.setdefault(k, {}).update(v)
    search = dict(base.get("search", {}))
    search.update(data.get("search", {}))
    base.update({k: v for k, v in data.items() if k not in ("pieces", "search")})
    base["pieces"] = pieces
    if search:
        base["search"] = search
    return base


def read_weights(path: Path) -> dict[str, Any]:
    """A weight file as the engine reads it before its ``.psqt.toml`` is added (``inherits`` resolved)."""
    return _read_weights(path)


def _weights(name: str) -> dict[str, Any]:
    """The shipped weight file of a variant (ValueError when there is none)."""
    path = WEIGHTS_DIR / f"{name}.toml"
    if not path.exists():
        raise ValueError(f"no evaluation weights for {name!r} (expected {path})")
    return _read_weights(path)


def weights_file(spec: VariantSpec) -> Path | None:
    """Where a variant's weights are: ``<name>.weights.toml`` beside its variant file, else
    ``eval/weights/<name>.toml``; None when neither exists (the weights are then derived)."""
    beside = Path(spec.source).parent / f"{spec.name}{WEIGHTS_SUFFIX}" if spec.source else None
    for path in (beside, WEIGHTS_DIR / f"{spec.name}.toml"):
        if path is not None and path.exists():
            return path
    return None


def derived_weights(variant: Variant) -> dict[str, Any]:
    """First-guess weights from the pieces, for a variant without a weight file.

    A piece's value grows with its mobility: the squares it reaches from an average square of
    the empty board, a rider's k-th step counted with weight (2/3)^(k-1) as if a third of the
    squares were taken (``value = 51 * mobility ** 1.107``, which gives chess N 320, B 350,
    R 487, Q 901).  Pawn-like pieces are worth 100, the royal piece 0; riders get a mobility
    weight, every piece a centre bonus, pawn-like pieces an advance bonus; where a side loses
    when a piece type is gone (extinction of one type), standing attacked costs that piece.
    """
    spec = variant.spec
    F, R = spec.files, spec.ranks
    pieces: dict[str, dict[str, Any]] = {}
    for p in spec.pieces:
        if p.pawn:
            pieces[p.letter] = {"value": 100, "centre": 3, "advance": 6, "passed": 4}
            continue
        if p.letter == spec.royal:
            pieces[p.letter] = {"value": 0, "centre": -6, "centre_eg": 8}
            continue
        total = 0.0
        for s in range(F * R):
            f, r = s % F, s // F
            for comp in p.components:
                if comp.initial:
                    continue
                for dx, dy in comp.vectors:
                    k, x, y = 1, f + dx, r + dy
                    while 0 <= x < F and 0 <= y < R and (comp.range_ == 0 or k <= comp.range_):
                        total += (2 / 3) ** (k - 1) if comp.rider else 1.0
                        if not comp.rider:
                            break
                        k, x, y = k + 1, x + dx, y + dy
        mob = total / (F * R)
        rider = any(c.rider for c in p.components)
        pieces[p.letter] = {"value": int(round(51 * mob ** 1.107)), "centre": 4, "mobility": 3 if rider else 0,
                            "king_attack": 2 if spec.royal else 0}
    out: dict[str, Any] = {"tempo": 10, "pieces": pieces}
    if spec.royal and spec.check:
        out.update(pawn_shield=10, king_danger=1024, mopup=10, mopup_margin=300)
    if len(spec.extinction) == 1 and spec.extinction != spec.royal:
        out.update(safety_piece=spec.extinction, safety_penalty=150)
    return out


def psqt_file(spec: VariantSpec, weights: Path | None = None) -> Path:
    """Where a variant's learned piece-square tables are (the file may not exist):
    ``<name>.psqt.toml`` beside its weight file (or the shipped weights' folder)."""
    if weights is None:
        weights = weights_file(spec)
    folder = weights.parent if weights is not None else WEIGHTS_DIR
    return folder / f"{spec.name}{PSQT_SUFFIX}"


def network_file(spec: VariantSpec, weights: Path | None = None) -> Path:
    """Where a variant's evaluation network is (the file may not exist): ``<name>.nnue.npz``
    beside its weight file (or in the shipped weights' folder); see ``network.py``."""
    if weights is None:
        weights = weights_file(spec)
    folder = weights.parent if weights is not None else WEIGHTS_DIR
    return folder / f"{spec.name}.nnue.npz"


def read_psqt(path: Path) -> dict[str, dict[str, Any]]:
    """The tables of a ``<variant>.psqt.toml``: ``{letter: {"psqt": [...], "psqt_eg": [...]}}``
    (only those keys; their length and type are checked against the variant in ``eval_tables``)."""
    data = _toml(path)
    unknown = set(data) - {"pieces"}
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)} (only [pieces.X] tables)")
    out = {}
    for letter, keys in data.get("pieces", {}).items():
        bad = set(keys) - set(TABLE_KEYS)
        if bad:
            raise ValueError(f"{path.name}: pieces.{letter}: unknown keys {sorted(bad)} "
                             f"(only {', '.join(TABLE_KEYS)})")
        out[letter] = dict(keys)
    return out


def variant_weights(variant: Variant) -> tuple[dict[str, Any], Path | None]:
    """(weights, the file they came from); derived from the pieces when there is no file.
    A ``<name>.psqt.toml`` beside the weight file adds its tables to the pieces."""
    path = weights_file(variant.spec)
    if path is None:
        return derived_weights(variant), None
    w = _read_weights(path)
    tables = psqt_file(variant.spec, path)
    if tables.exists():
        pieces = w.setdefault("pieces", {})
        for letter, keys in read_psqt(tables).items():
            if letter not in variant.spec.letters:
                raise ValueError(f"{tables.name}: pieces.{letter}: no such piece in {variant.spec.name}")
            pw = pieces.setdefault(letter, {})
            for k, v in keys.items():
                if k in pw:
                    raise ValueError(f"{tables.name}: pieces.{letter}.{k} is also in {path.name}")
                pw[k] = v
    return w, path


def _square_table(pw: dict[str, Any], key: str, where: str, n: int) -> list[int] | None:
    """A ``psqt``-style list of n integers, or None when the key is absent (ValueError naming
    the key when it is not such a list)."""
    if key not in pw:
        return None
    v = pw[key]
    if not isinstance(v, list) or len(v) != n or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        what = f"a list of {len(v)} items" if isinstance(v, list) else type(v).__name__
        raise ValueError(f"{where}.{key}: expected {n} integers (one per square from White's side, a1 first, "
                         f"rank by rank), got {what}")
    return v


def _int(pw: dict[str, Any], key: str, where: str) -> int:
    """An integer key of a piece (0 when absent; ValueError naming the key otherwise)."""
    v = pw.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{where}.{key}: expected an integer, got {v!r:.40}")
    return v


def _pair(pw: dict[str, Any], key: str, where: str) -> tuple[int, int]:
    """A ``[middlegame, endgame]`` (or ``[one, more]``) pair of integers; an integer alone is
    both; (0, 0) when absent."""
    v = pw.get(key, 0)
    if isinstance(v, int) and not isinstance(v, bool):
        return v, v
    if isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return v[0], v[1]
    raise ValueError(f"{where}.{key}: expected an integer or a list of two integers, got {v!r:.40}")


def _count_table(pw: dict[str, Any], key: str, where: str) -> list[int] | None:
    """A ``mobility_table``-style list of integers by count (at least one), or None when the key is
    absent (ValueError naming the key when it is not such a list)."""
    if key not in pw:
        return None
    v = pw[key]
    if not isinstance(v, list) or not v or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise ValueError(f"{where}.{key}: expected a list of integers (centipawns for 0, 1, 2, ... target "
                         f"squares), got {v!r:.60}")
    return v


def _by_count(linear: int, table: list[int] | None) -> np.ndarray:
    """``linear * n`` plus the table's entry for n (its last entry beyond its end), n < MOB_N."""
    out = linear * np.arange(MOB_N, dtype=np.int64)
    if table is not None:
        out += np.array([table[min(n, len(table) - 1)] for n in range(MOB_N)], np.int64)
    return out


_CACHE: dict[tuple[VariantSpec, str], EvalTables] = {}
_SEARCH: dict[tuple[VariantSpec, str], dict[str, int]] = {}


def search_settings(variant: Variant) -> dict[str, int]:
    """The ``[search]`` table of a variant's weight file: search numbers (``engine.search.PARAMS``
    names, which the engine checks) that this variant plays with instead of the defaults; empty
    when the file has none (read once per variant definition and process)."""
    key = (variant.spec, variant.spec.source)
    if key not in _SEARCH:
        w, path = variant_weights(variant)
        table = w.get("search", {})
        where = path.name if path is not None else variant.spec.name
        if not isinstance(table, dict):
            raise ValueError(f"{where}: search must be a table of name = integer")
        for name, v in table.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{where}: search.{name} must be an integer, not {v!r}")
        _SEARCH[key] = dict(table)
    return _SEARCH[key]


def eval_tables(variant: Variant) -> EvalTables:
    """The evaluation arrays of a variant (built once per variant definition and process)."""
    key = (variant.spec, variant.spec.source)
    if key not in _CACHE:
        _CACHE[key] = _build(variant)
    return _CACHE[key]


def _build(variant: Variant) -> EvalTables:
    return tables_from(variant, *variant_weights(variant))


def _switch(w: dict[str, Any], key: str, sf_scale: int | None = None) -> bool:
    """A weight file's true/false key (false when absent); ``sf_scale`` given: a term in Stockfish's
    units, which needs it non-zero when on."""
    on = w.get(key, False)
    if not isinstance(on, bool):
        raise ValueError(f"{key}: expected true or false, got {on!r}")
    if on and sf_scale is not None and not sf_scale:
        raise ValueError(f"{key}: needs sf_scale (its values are Stockfish's units at sf_scale / 256)")
    return on


def tables_from(variant: Variant, w: dict[str, Any], _path: Path | None = None) -> EvalTables:
    """The evaluation arrays of a variant for the weights ``w`` (a weight file's contents, as
    ``variant_weights`` returns them; the network is looked for beside ``_path``).  Not cached:
    ``eval_tables`` is what the engine uses; this is for tools that try other weights."""
    spec = variant.spec
    tab = variant.tables
    F, R = spec.files, spec.ranks
    T = len(spec.pieces)
    psq = np.zeros((2 * T + 2, 128), np.int64)
    psq_eg = np.zeros((2 * T + 2, 128), np.int64)
    passed = np.zeros((2 * T + 2, 128), np.int64)
    passed_mg = np.zeros((2 * T + 2, 128), np.int64)
    pair = np.zeros((T, 2), np.int64)
    openf = np.zeros((T, 4), np.int64)
    filemask = np.zeros((16, 2), np.uint64)
    for s in range(F * R):
        set_bit(filemask[s % F], s)
    value = np.zeros(T, np.int64)
    mobility = np.zeros(T, np.int64)
    mob_mg = np.zeros((T, MOB_N), np.int64)
    mob_eg = np.zeros((T, MOB_N), np.int64)
    katt = np.zeros(T, np.int64)
    kaw = np.zeros(T, np.int64)
    safe_check = np.zeros((T, 2), np.int64)
    tclass = np.zeros(T, np.int64)
    tminor = np.zeros((T, 2), np.int64)
    trook = np.zeros((T, 2), np.int64)
    phase_w = np.zeros(T, np.int64)
    cx, cy = (F - 1) / 2, (R - 1) / 2
    far = max(cx, cy)
    royal = int(tab.cfg[CFG_ROYAL])
    for t, p in enumerate(spec.pieces):
        pw = w.get("pieces", {}).get(p.letter)
        if pw is None:
            raise ValueError(f"weights for {spec.name}: no entry for piece {p.letter}")
        unknown = set(pw) - PIECE_KEYS
        if unknown:
            raise ValueError(f"weights for {spec.name}: pieces.{p.letter}: unknown keys {sorted(unknown)}")
        for key in ("passed", "passed_table", "passed_table_eg"):
            if pw.get(key) and not tab.pawnlike[t]:
                raise ValueError(f"weights for {spec.name}: pieces.{p.letter}: {key} is for pawn-like pieces")
        where = f"weights for {spec.name}: pieces.{p.letter}"
        table = _square_table(pw, "psqt", where, F * R)
        table_eg = _square_table(pw, "psqt_eg", where, F * R)
        if table_eg is None:
            table_eg = table
        value[t] = int(pw.get("value", 0))
        mob_table = _count_table(pw, "mobility_table", where)
        mob_table_eg = _count_table(pw, "mobility_table_eg", where)
        if mob_table_eg is None:
            mob_table_eg = mob_table
        mob_mg[t] = _by_count(int(pw.get("mobility", 0)), mob_table)
        mob_eg[t] = _by_count(int(pw.get("mobility", 0)), mob_table_eg)
        mobility[t] = int(mob_mg[t].any() or mob_eg[t].any())
        pass_table = _count_table(pw, "passed_table", where)
        pass_table_eg = _count_table(pw, "passed_table_eg", where)
        if pass_table_eg is None:
            pass_table_eg = pass_table
        for key in SCALAR_KEYS:
            if key in pw and (isinstance(pw[key], bool) or not isinstance(pw[key], int)):
                raise ValueError(f"{where}.{key}: expected an integer (centipawns), got {pw[key]!r:.40}")
        pair[t] = int(pw.get("pair", 0)), int(pw.get("pair_eg", pw.get("pair", 0)))
        openf[t] = (int(pw.get("open_file", 0)), int(pw.get("open_file_eg", pw.get("open_file", 0))),
                    int(pw.get("half_open_file", 0)), int(pw.get("half_open_file_eg", pw.get("half_open_file", 0))))
        katt[t] = int(pw.get("king_attack", 0))
        kaw[t] = _int(pw, "king_attack_weight", where)
        safe_check[t] = _pair(pw, "safe_check", where)
        tminor[t] = _pair(pw, "threat_minor", where)
        trook[t] = _pair(pw, "threat_rook", where)
        tc = pw.get("threat_class", "")
        if tc not in THREAT_CLASSES:
            raise ValueError(f"{where}.threat_class: expected one of {sorted(k for k in THREAT_CLASSES if k)}, got {tc!r:.40}")
        tclass[t] = THREAT_CLASSES[tc]
        if not tab.pawnlike[t] and t != royal:
            phase_w[t] = value[t]
        for s in range(F * R):
            f, r = s % F, s // F
            near = far - max(abs(f - cx), abs(r - cy))
            for c in (0, 1):
                sign = 1 if c == 0 else -1
                rel = max(0, (r if c == 0 else R - 1 - r) - 1)
                mg = pw.get("value", 0) + pw.get("centre", 0) * near + pw.get("advance", 0) * rel
                eg = (pw.get("value_eg", pw.get("value", 0)) + pw.get("centre_eg", pw.get("centre", 0)) * near
                      + pw.get("advance_eg", pw.get("advance", 0)) * rel)
                own = s if c == 0 else (R - 1 - r) * F + f  # the square as its owner sees it
                learned = table[own] if table is not None else 0
                learned_eg = table_eg[own] if table_eg is not None else 0
                psq[1 + 2 * t + c, s] = (int(round(mg)) + learned) * sign
                psq_eg[1 + 2 * t + c, s] = (int(round(eg)) + learned_eg) * sign
                pb = int(pw.get("passed", 0)) * rel * (rel + 1) // 2
                pt = pass_table[min(rel, len(pass_table) - 1)] if pass_table else 0
                pt_eg = pass_table_eg[min(rel, len(pass_table_eg) - 1)] if pass_table_eg else 0
                passed[1 + 2 * t + c, s] = (pb + pt_eg) * sign
                passed_mg[1 + 2 * t + c, s] = (int(pb / 2) + pt) * sign  # half, towards 0 as before
    front = np.zeros((2, 128, 2), np.uint64)
    zone = np.zeros((128, 2), np.uint64)
    shield = np.zeros((2, 128, 2), np.uint64)
    near_t = np.zeros(128, np.int64)
    for s in range(F * R):
        f, r = s % F, s // F
        near_t[s] = min(f, F - 1 - f, r, R - 1 - r)
        for df in (-1, 0, 1):
            if not 0 <= f + df < F:
                continue
            for dr in (-1, 0, 1):
                if 0 <= r + dr < R:
                    set_bit(zone[s], (r + dr) * F + f + df)
            for c, d in ((0, 1), (1, -1)):
                if 0 <= r + d < R:
                    set_bit(shield[c, s], (r + d) * F + f + df)
                rr = r + d
                while 0 <= rr < R:
                    set_bit(front[c, s], rr * F + f + df)
                    rr += d
    # the king's flank (Stockfish's KingFlank on 8 files: 3 or 4 files towards the king's
    # side; on other boards the king's file and its neighbours) and each side's camp (its
    # half of the board and one rank beyond)
    flank = np.zeros((16, 2), np.uint64)
    camp = np.zeros((2, 2), np.uint64)
    for kf in range(F):
        if F == 8:
            lo, hi = ((0, 2), (0, 3), (0, 3), (2, 5), (2, 5), (4, 7), (4, 7), (5, 7))[kf]
        else:
            c = min(max(kf, 1), F - 2)
            lo, hi = max(c - 1, 0), min(c + 1, F - 1)
        for s in range(F * R):
            if lo <= s % F <= hi:
                set_bit(flank[kf], s)
    top = min((R - 1) // 2 + 1, R - 1)
    for s in range(F * R):
        r = s // F
        if r <= top:
            set_bit(camp[0], s)
        if R - 1 - r <= top:
            set_bit(camp[1], s)
    # each side's second and third ranks (Stockfish's LowRanks: a pawn there leaves the mobility area)
    lowrank = np.zeros((2, 2), np.uint64)
    for s in range(F * R):
        if 1 <= s // F <= 2:
            set_bit(lowrank[0], s)
        if 1 <= R - 1 - s // F <= 2:
            set_bit(lowrank[1], s)
    # the pawn structure's masks (Stockfish's adjacent_files_bb, rank_bb and forward_ranks_bb of the
    # other side)
    adjfile = np.zeros((16, 2), np.uint64)
    rankmask = np.zeros((16, 2), np.uint64)
    behind = np.zeros((2, 16, 2), np.uint64)
    for s in range(F * R):
        f, r = s % F, s // F
        set_bit(rankmask[r], s)
        for g in (f - 1, f + 1):
            if 0 <= g < F:
                set_bit(adjfile[g], s)
        for rk in range(R):
            if r <= rk:
                set_bit(behind[0, rk], s)
            if r >= rk:
                set_bit(behind[1, rk], s)
    params = np.zeros(N_PARAMS, np.int64)
    params[P_TEMPO] = int(w.get("tempo", 0))
    sp = w.get("safety_piece", "")
    params[P_SAFETY_TYPE] = spec.letters.index(sp) if sp else -1
    params[P_SAFETY_PENALTY] = int(w.get("safety_penalty", 0))
    params[P_PHASE_TOTAL] = max(1, int((tab.start_count.sum(axis=0) * phase_w).sum()))
    params[P_SHIELD] = int(w.get("pawn_shield", 0))
    params[P_KING_DANGER] = int(w.get("king_danger", 0))
    params[P_KING_DANGER_SQ] = int(w.get("king_danger_sq", 0))
    params[P_FILE_TERMS] = int(openf.any())  # the evaluation skips these terms where no type has them
    params[P_PAIR_TERMS] = int(pair.any())
    params[P_MOPUP] = int(w.get("mopup", 0))
    params[P_MOPUP_MARGIN] = int(w.get("mopup_margin", 300))
    params[P_THREAT_PAWN] = int(w.get("threat_pawn", 0))
    params[P_HANGING] = int(w.get("hanging", 0))
    params[P_SF_SCALE] = int(w.get("sf_scale", 0))
    params[P_KING_SCALE] = int(w.get("king_scale", params[P_SF_SCALE]))
    if params[P_KING_SCALE] and not params[P_SF_SCALE]:
        raise ValueError("king_scale: needs sf_scale (it scales sf_king, which sf_scale switches on)")
    params[P_KS_NO_MAJOR] = int(w.get("king_no_major", 0))
    params[P_KS_MAJOR_VALUE] = int(w.get("king_major_value", 1 << 40))
    area = _switch(w, "mobility_area")
    # 1: the evaluation's pawn pass builds the area; 2: a pawn-like type has mobility of its own,
    # which needs the whole area first, so ``mobility_area`` computes it up front
    params[P_MOB_AREA] = 0 if not area else 2 if any(mobility[t] and tab.pawnlike[t] for t in range(T)) else 1
    params[P_PAWN_STRUCT] = int(_switch(w, "pawn_structure", params[P_SF_SCALE]))
    if _switch(w, "passed_path", params[P_SF_SCALE]):
        # Fairy-Stockfish scales a passed pawn by what it promotes to: (best promotion - pawn) over
        # (queen - pawn), here at chess's 900 and 100 (1/256 units; courier's Ferz makes it 22)
        gain = max((int(value[spec.letters.index(q)]) - int(value[t])
                    for t, p in enumerate(spec.pieces) if tab.pawnlike[t] for q in p.promotes_to
                    if q in spec.letters), default=0)
        params[P_PASSED_PATH] = max(1, min(256, gain * 256 // 800))
    nn_idx = np.zeros((2, 1, 1), np.int64)
    nn_w1 = np.zeros((1, 1), np.int64)
    nn_b1 = np.zeros(1, np.int64)
    nn_w2 = np.zeros(2, np.int64)
    path = network_file(spec, _path)
    if path.exists():
        net = read_network(path, spec.letters, F, R)
        nn_idx = feature_table(T, F, R)
        nn_w1, nn_b1, nn_w2 = net.w1, net.b1, net.w2
        params[P_NN_MODE] = MODES[net.mode]
        params[P_NN_B2] = net.b2
    return EvalTables(psq, psq_eg, passed, passed_mg, value, mobility, mob_mg, mob_eg, pair, openf, filemask, katt,
                      phase_w, front, zone, shield, near_t, params, nn_idx, nn_w1, nn_b1, nn_w2, kaw, safe_check, tclass,
                      tminor, trook, flank, camp, lowrank, adjfile, rankmask, behind)


def without_network(ev: EvalTables) -> EvalTables:
    """The same tables with the network switched off (the hand-written evaluation alone: the
    offset a residual network is trained on)."""
    params = ev.params.copy()
    params[P_NN_MODE] = 0
    return ev._replace(params=params)

