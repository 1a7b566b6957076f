"""Variant files -> validated ``VariantSpec``, and the registry of known variants.

A variant is a TOML file: the shipped ones in ``movegen/variants/``, and any a user adds with
``add_variant_path`` (``--variants FILE_OR_DIR`` on the command line, the ``VariantPath``
engine option, or the ``JITFISH_VARIANTS`` environment variable: paths separated by
``os.pathsep``).  The format, every key and its default are documented once, in
``movegen/variants/FORMAT.md``; ``VARIANT_KEYS``, ``PIECE_KEYS`` and ``XBOARD_KEYS`` below are the
machine-readable copy the loader enforces.

Loading resolves ``inherits`` (the child states only how it differs: top-level keys replace the
parent's, ``[pieces.X]`` and ``[xboard]`` tables are merged key by key, ``remove = true`` drops a
parent piece), rejects unknown keys and contradictions by name, and parses every Betza string.
"""
from __future__ import annotations

import os
import threading
import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .betza import BetzaError, Component, parse_betza

__all__ = [
    "VariantError", "PieceSpec", "VariantSpec", "XBoardSpec", "load_spec", "variant_names",
    "resolve_name", "variant_file", "add_variant_path", "is_shipped", "registry_problems", "VARIANT_DIR", "VARIANTS_ENV",
    "RightsField", "Stalemate", "BareKing", "Initial", "Promotion", "WEIGHTS_SUFFIX", "PSQT_SUFFIX",
    "WEIGHT_SUFFIXES",
]

VARIANT_DIR = Path(__file__).resolve().parent / "variants"
VARIANTS_ENV = "JITFISH_VARIANTS"


class VariantError(ValueError):
    """A variant file that cannot be used; the message names the file and the key."""


class RightsField(StrEnum):
    """What a FEN's third field holds."""

    NONE = "none"
    CASTLING = "castling"
    FILES = "files"


class Stalemate(StrEnum):
    DRAW = "draw"
    LOSS = "loss"  # for the stalemated side


class BareKing(StrEnum):
    NONE = "none"
    LOSS = "loss"  # Fairy-Stockfish's bare-king rule (courier)


class Initial(StrEnum):
    """When a piece's ``i`` moves are allowed."""

    NONE = "none"
    RANK = "rank"  # while on one of its initial_ranks
    TRACKED = "tracked"  # while it has never moved (kept per square, FEN rights field)


class Promotion(StrEnum):
    MANDATORY = "mandatory"
    OPTIONAL = "optional"


# key -> (type, default).  Types: str, int, bool, list (of ints), strlist.
VARIANT_KEYS: dict[str, tuple[type, Any]] = {
    "name": (str, None),
    "aliases": (list, []),
    "description": (str, ""),
    "inherits": (str, ""),
    "files": (int, 8),
    "ranks": (int, 8),
    "start_fen": (str, None),
    "royal": (str, ""),
    "check": (bool, False),
    "extinction": (str, ""),
    "captures": (bool, True),
    "conversion": (str, ""),
    "castling": (bool, False),
    "castling_rook": (str, ""),
    "castling_king_files": (str, ""),
    "castling_checks": (bool, True),
    "rights_field": (str, "none"),
    "stalemate": (str, "draw"),
    "bare_king": (str, "none"),
    "fifty_move_plies": (int, 100),
    "insufficient_material": (bool, False),
    "pieces": (dict, {}),
    "xboard": (dict, {}),
}
# [xboard]: how XBoard shows the variant (protocol/xboard.py reads it; FORMAT.md documents it)
XBOARD_KEYS: dict[str, tuple[type, Any]] = {
    "name": (str, ""),
    "builtin": (bool, False),
    "start_fen": (str, ""),
    "parent": (str, "fairy"),
    "slots": (dict, {}),
    "promoted": (dict, {}),
    "playable": (bool, True),
    "reason": (str, ""),
}
_XBOARD_OWN = ("name", "builtin", "start_fen")  # describe one variant only: not inherited
PIECE_KEYS: dict[str, tuple[type, Any]] = {
    "name": (str, None),
    "betza": (str, None),
    "pawn": (bool, False),
    "en_passant": (bool, False),
    "initial": (str, "none"),
    "initial_ranks": (list, []),
    "unmoved_ranks": (list, []),
    "rights_ranks": (list, []),
    "promotion_ranks": (list, []),
    "promotes_to": (str, ""),
    "promotion": (str, "mandatory"),
    "promotion_limit": (bool, False),
    "remove": (bool, False),
}


@dataclass(frozen=True)
class PieceSpec:
    """One piece type.  Ranks are relative: 1 is the owner's first rank."""

    letter: str
    name: str
    betza: str
    components: tuple[Component, ...]
    pawn: bool  # its moves reset the 50-move clock
    en_passant: bool  # its 2-square straight move may be taken en passant by its fcF-type captures
    initial: Initial
    initial_ranks: tuple[int, ...]
    unmoved_ranks: tuple[int, ...]  # tracked: on these ranks the piece has surely never moved
    rights_ranks: tuple[int, ...]  # tracked: on these ranks the FEN rights field says
    promotion_ranks: tuple[int, ...]
    promotes_to: str
    promotion: Promotion
    promotion_limit: bool  # only to a type the side has fewer of than at the start


@dataclass(frozen=True)
class XBoardSpec:
    """What the variant file says about XBoard (``[xboard]``; see FORMAT.md).

    name: XBoard's name for the variant ("" = the variant's own); builtin: XBoard plays it
    itself (no ``setup``/``piece`` lines); start_fen: XBoard's own start when it differs;
    parent: the built-in variant named in ``setup`` (``fairy``, ``berolina``, ...); slots:
    piece letter -> XBoard piece slot (a name such as ``Alfil``, or its number); promoted:
    piece letter -> the letter it is the promoted form of (shown and written ``+X``);
    playable: False when XBoard cannot show the variant's rules (engines then refuse it);
    reason: why not, in words for the user.
    """

    name: str = ""
    builtin: bool = False
    start_fen: str = ""
    parent: str = "fairy"
    slots: tuple[tuple[str, str], ...] = ()
    promoted: tuple[tuple[str, str], ...] = ()
    playable: bool = True
    reason: str = ""


@dataclass(frozen=True)
class VariantSpec:
    """A validated variant definition (see FORMAT.md for each field)."""

    name: str
    aliases: tuple[str, ...]
    description: str
    files: int
    ranks: int
    start_fen: str
    pieces: tuple[PieceSpec, ...]
    royal: str
    check: bool
    extinction: str
    captures: bool
    conversion: str
    castling: bool
    castling_rook: str
    castling_king_files: str
    castling_checks: bool
    rights_field: RightsField
    stalemate: Stalemate
    bare_king: BareKing
    fifty_move_plies: int
    insufficient_material: bool = False
    xboard: XBoardSpec = XBoardSpec()
    source: str = field(default="", compare=False)

    @property
    def letters(self) -> str:
        return "".join(p.letter for p in self.pieces)

    def piece(self, letter: str) -> PieceSpec:
        for p in self.pieces:
            if p.letter == letter.upper():
                return p
        raise KeyError(letter)


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise VariantError(f"{path}: no such variant file") from None
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(f"{path.name}: not valid TOML: {exc}") from None


# The registry: canonical name -> variant file, and every name and alias -> canonical name.
# Built on first use from the shipped files and $JITFISH_VARIANTS; add_variant_path adds more.
_lock = threading.RLock()
_files: dict[str, Path] = {}
_names: dict[str, str] = {}
_shipped: set[str] = set()
_problems: list[str] = []
_ready = False


def _register(path: Path, shipped: bool) -> str:
    raw = _read(path)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise VariantError(f"{path.name}: missing key 'name'")
    name = name.strip()
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise VariantError(f"{path.name}: aliases must be a list of strings")
    key = name.lower()
    if not shipped and _names.get(key) in _shipped:
        raise VariantError(f"{path}: variant {name!r} is one of jitfish's own (rename it)")
    for alias in aliases:
        owner = _names.get(alias.lower())
        if owner is not None and owner != name and (owner in _shipped or not shipped):
            raise VariantError(f"{path}: alias {alias!r} already names the variant {owner!r}")
    _files[name] = path.resolve()
    _names[key] = name
    for alias in aliases:
        _names[alias.lower()] = name
    if shipped:
        _shipped.add(name)
    return name


def _ensure() -> None:
    global _ready
    if _ready:
        return
    with _lock:
        if _ready:
            return
        for path in sorted(VARIANT_DIR.glob("*.toml")):
            _register(path, shipped=True)
        _ready = True
        for part in os.environ.get(VARIANTS_ENV, "").split(os.pathsep):
            if part.strip():
                try:
                    add_variant_path(part.strip())
                except VariantError as exc:  # one bad file must not stop the others (or the engine)
                    _problems.append(f"${VARIANTS_ENV}: {exc}")


def registry_problems() -> list[str]:
    """Variant files named in $JITFISH_VARIANTS that could not be loaded, with the reason."""
    _ensure()
    return list(_problems)


# files a folder of variants may hold beside them that are not variants (eval/tables.py reads them,
# by these names): a variant's weights and its learned square tables
WEIGHTS_SUFFIX = ".weights.toml"
PSQT_SUFFIX = ".psqt.toml"
WEIGHT_SUFFIXES = (WEIGHTS_SUFFIX, PSQT_SUFFIX)


def add_variant_path(path: str | Path) -> list[str]:
    """Add a variant file, or every ``*.toml`` file of a folder but the weight files beside them
    (``*.weights.toml``, ``*.psqt.toml``), to the known variants; returns the names added.  Each
    file is fully checked (``load_spec``) first: VariantError names the file and the key.  A file
    may inherit from a shipped variant or from a file beside it; a user's variant may not take a
    shipped variant's name.  Adding the same file again reloads it.
    """
    _ensure()
    p = Path(path).expanduser()
    if p.is_dir():
        files = sorted(f for f in p.glob("*.toml") if not f.name.endswith(WEIGHT_SUFFIXES))
        if not files:
            raise VariantError(f"{p}: no variant files (*.toml) in this folder")
    elif p.exists():
        files = [p]
    else:
        raise VariantError(f"{p}: no such variant file or folder")
    with _lock:
        for f in files:
            load_spec(f)  # every key checked before the name is taken
        return [_register(f, shipped=False) for f in files]


def variant_names() -> list[str]:
    """Canonical names of every known variant (shipped and added), sorted."""
    _ensure()
    return sorted(_files)


def is_shipped(name: str) -> bool:
    """Whether ``name`` (canonical) is one of the variants that come with jitfish."""
    _ensure()
    return name in _shipped


def resolve_name(name: str) -> str:
    """Map a variant name or alias (``normal``) to its canonical name, or raise VariantError."""
    _ensure()
    key = name.strip().lower()
    if key not in _names:
        raise VariantError(f"unknown variant {name!r}; known: {', '.join(sorted(_names))}")
    return _names[key]


def variant_file(name: str) -> Path:
    """The file that defines a variant (by name or alias)."""
    return _files[resolve_name(name)]


def _merged(path: Path, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    raw = _read(path)
    where = path.name
    for key in raw:
        if key not in VARIANT_KEYS:
            raise VariantError(f"{where}: unknown key {key!r}")
    parent_name = raw.get("inherits", "")
    if not parent_name:
        return raw
    if not isinstance(parent_name, str):
        raise VariantError(f"{where}: inherits must be a variant name")
    if parent_name in seen:
        raise VariantError(f"{where}: inherits forms a cycle through {parent_name!r}")
    parent_path = path.parent / f"{parent_name}.toml"
    if not parent_path.exists():
        try:
            parent_path = variant_file(parent_name)
        except VariantError:
            raise VariantError(f"{where}: inherits {parent_name!r}, which is neither a file beside it "
                               f"nor a known variant") from None
    base = _merged(parent_path, seen + (parent_name,))
    out = {k: v for k, v in base.items() if k not in ("name", "aliases", "description", "inherits")}
    pieces = {k: dict(v) for k, v in base.get("pieces", {}).items()}
    xboard = {k: v for k, v in base.get("xboard", {}).items() if k not in _XBOARD_OWN}
    for key, value in raw.items():
        if key in ("pieces", "xboard"):
            continue
        out[key] = value
    if not isinstance(raw.get("xboard", {}), dict):
        raise VariantError(f"{where}: xboard must be a table")
    xboard.update(raw.get("xboard", {}))
    out["xboard"] = xboard
    for letter, table in raw.get("pieces", {}).items():
        if not isinstance(table, dict):
            raise VariantError(f"{where}: pieces.{letter} must be a table")
        if table.get("remove"):
            if letter not in pieces:
                raise VariantError(f"{where}: pieces.{letter}.remove: the parent has no piece {letter}")
            del pieces[letter]
            continue
        pieces.setdefault(letter, {}).update(table)
    out["pieces"] = pieces
    return out


def _typed(where: str, key: str, value: Any, typ: type) -> Any:
    if typ is bool and not isinstance(value, bool):
        raise VariantError(f"{where}: {key} must be true or false, not {value!r}")
    if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise VariantError(f"{where}: {key} must be an integer, not {value!r}")
    if typ is str and not isinstance(value, str):
        raise VariantError(f"{where}: {key} must be a string, not {value!r}")
    if typ is list and not isinstance(value, list):
        raise VariantError(f"{where}: {key} must be a list, not {value!r}")
    if typ is dict and not isinstance(value, dict):
        raise VariantError(f"{where}: {key} must be a table")
    return value


def _choice(key: str, value: str, enum: type[StrEnum]) -> Any:
    try:
        return enum(value)
    except ValueError:
        names = ", ".join(e.value for e in enum)
        raise VariantError(f"{key} must be one of {names}, not {value!r}") from None


def _xboard(where: str, table: dict[str, Any], letters: set[str]) -> XBoardSpec:
    xw = f"{where}: xboard"
    vals: dict[str, Any] = {}
    for key, value in table.items():
        if key not in XBOARD_KEYS:
            raise VariantError(f"{xw}: unknown key {key!r}")
        vals[key] = _typed(xw, key, value, XBOARD_KEYS[key][0])
    for key in ("slots", "promoted"):
        pairs = []
        for letter, value in vals.get(key, {}).items():
            if letter not in letters:
                raise VariantError(f"{xw}.{key}: {letter!r} is not a piece of this variant")
            if key == "slots" and not (isinstance(value, (str, int)) and not isinstance(value, bool)):
                raise VariantError(f"{xw}.slots.{letter}: a slot is a name (\"Alfil\") or a number, not {value!r}")
            if key == "promoted" and (not isinstance(value, str) or value not in letters or value == letter):
                raise VariantError(f"{xw}.promoted.{letter}: name the piece it is the promoted form of, not {value!r}")
            pairs.append((letter, str(value)))
        vals[key] = tuple(pairs)
    if not vals.get("playable", True) and not vals.get("reason"):
        raise VariantError(f"{xw}: playable = false needs a reason (shown to the user)")
    return XBoardSpec(**vals)


def _piece(where: str, letter: str, table: dict[str, Any], ranks: int) -> PieceSpec:
    pw = f"{where}: pieces.{letter}"
    if len(letter) != 1 or not letter.isalpha() or not letter.isupper():
        raise VariantError(f"{pw}: a piece is named by one uppercase letter")
    vals: dict[str, Any] = {}
    for key, value in table.items():
        if key not in PIECE_KEYS:
            raise VariantError(f"{pw}: unknown key {key!r}")
        vals[key] = _typed(pw, key, value, PIECE_KEYS[key][0])
    for key, (_, default) in PIECE_KEYS.items():
        if key not in vals:
            if default is None:
                raise VariantError(f"{pw}: missing key {key!r}")
            vals[key] = default
    try:
        comps = tuple(parse_betza(vals["betza"]))
    except BetzaError as exc:
        raise VariantError(f"{pw}.betza: {exc}") from None
    for key in ("initial_ranks", "unmoved_ranks", "rights_ranks", "promotion_ranks"):
        for r in vals[key]:
            if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= ranks:
                raise VariantError(f"{pw}.{key}: rank {r!r} is not between 1 and {ranks}")
    vals["initial"] = _choice(f"{pw}.initial", vals["initial"], Initial)
    vals["promotion"] = _choice(f"{pw}.promotion", vals["promotion"], Promotion)
    has_initial = any(c.initial for c in comps)
    if has_initial and vals["initial"] == "none":
        raise VariantError(f"{pw}: betza has initial (i) moves but initial = \"none\"")
    if vals["initial"] != "none" and not has_initial:
        raise VariantError(f"{pw}: initial = {vals['initial']!r} but the betza has no i moves")
    if vals["initial"] == "rank" and not vals["initial_ranks"]:
        raise VariantError(f"{pw}: initial = \"rank\" needs initial_ranks")
    if vals["initial"] != "tracked" and (vals["unmoved_ranks"] or vals["rights_ranks"]):
        raise VariantError(f"{pw}: unmoved_ranks and rights_ranks need initial = \"tracked\"")
    for c in comps:
        if c.initial and c.capture:
            raise VariantError(f"{pw}.betza: initial (i) moves must be move-only (write im...)")
    if vals["promotes_to"] and not vals["promotion_ranks"]:
        raise VariantError(f"{pw}: promotes_to needs promotion_ranks")
    if vals["promotion_ranks"] and not vals["promotes_to"]:
        raise VariantError(f"{pw}: promotion_ranks needs promotes_to")
    if vals["promotion_limit"] and not vals["promotes_to"]:
        raise VariantError(f"{pw}: promotion_limit needs a promotion zone (promotion_ranks, promotes_to)")
    if vals["en_passant"] and not any(c.capture and not c.rider for c in comps):
        raise VariantError(f"{pw}: en_passant needs a capturing leap")
    return PieceSpec(
        letter=letter, name=vals["name"], betza=vals["betza"], components=comps,
        pawn=vals["pawn"], en_passant=vals["en_passant"], initial=vals["initial"],
        initial_ranks=tuple(vals["initial_ranks"]), unmoved_ranks=tuple(vals["unmoved_ranks"]),
        rights_ranks=tuple(vals["rights_ranks"]), promotion_ranks=tuple(vals["promotion_ranks"]),
        promotes_to=vals["promotes_to"], promotion=vals["promotion"],
        promotion_limit=vals["promotion_limit"],
    )


def load_spec(name_or_path: str | Path) -> VariantSpec:
    """Load and validate a variant by name (``courier``, ``normal``) or by file path.

    >>> load_spec("normal").name
    'chess'
    """
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        path = p
    else:
        path = variant_file(str(name_or_path))
    data = _merged(path)
    where = path.name
    vals: dict[str, Any] = {}
    for key, (typ, default) in VARIANT_KEYS.items():
        if key in data:
            vals[key] = _typed(where, key, data[key], typ)
        elif default is None:
            raise VariantError(f"{where}: missing key {key!r}")
        else:
            vals[key] = default
    vals["rights_field"] = _choice(f"{where}: rights_field", vals["rights_field"], RightsField)
    vals["stalemate"] = _choice(f"{where}: stalemate", vals["stalemate"], Stalemate)
    vals["bare_king"] = _choice(f"{where}: bare_king", vals["bare_king"], BareKing)
    files, ranks = vals["files"], vals["ranks"]
    if not (2 <= files <= 16 and 2 <= ranks <= 16 and files * ranks <= 128):
        raise VariantError(f"{where}: board {files}x{ranks} is not supported (at most 128 squares, 16 files)")
    pieces = tuple(_piece(where, letter, tbl, ranks) for letter, tbl in vals["pieces"].items())
    if not pieces:
        raise VariantError(f"{where}: no pieces")
    if len(pieces) > 15:
        raise VariantError(f"{where}: at most 15 piece types")
    letters = {p.letter for p in pieces}

    def need_letter(key: str, value: str) -> None:
        for ch in value:
            if ch not in letters:
                raise VariantError(f"{where}: {key} names {ch!r}, which is not a piece of this variant")

    for p in pieces:
        need_letter(f"pieces.{p.letter}.promotes_to", p.promotes_to)
    need_letter("royal", vals["royal"])
    need_letter("extinction", vals["extinction"])
    need_letter("conversion", vals["conversion"])
    need_letter("castling_rook", vals["castling_rook"])
    if len(vals["royal"]) > 1 or len(vals["conversion"]) > 1 or len(vals["castling_rook"]) > 1:
        raise VariantError(f"{where}: royal, conversion and castling_rook name one piece each")
    if vals["check"] and not vals["royal"]:
        raise VariantError(f"{where}: check = true needs a royal piece")
    if vals["castling"]:
        if not vals["royal"] or not vals["castling_rook"]:
            raise VariantError(f"{where}: castling needs royal and castling_rook")
        kf = vals["castling_king_files"]
        if len(kf) != 2 or any(not ("a" <= f < chr(ord("a") + files)) for f in kf):
            raise VariantError(f"{where}: castling_king_files must be two files (king side, queen side), e.g. \"gc\"")
        if vals["rights_field"] != "castling":
            raise VariantError(f"{where}: castling needs rights_field = \"castling\"")
    elif vals["rights_field"] == "castling":
        raise VariantError(f"{where}: rights_field = \"castling\" needs castling = true")
    if vals["rights_field"] == "files" and not any(p.rights_ranks for p in pieces):
        raise VariantError(f"{where}: rights_field = \"files\" needs a piece with rights_ranks")
    if any(p.rights_ranks for p in pieces) and vals["rights_field"] != "files":
        raise VariantError(f"{where}: rights_ranks need rights_field = \"files\"")
    if vals["bare_king"] != "none" and not vals["royal"]:
        raise VariantError(f"{where}: bare_king needs a royal piece")
    if vals["check"] and vals["extinction"]:
        raise VariantError(f"{where}: check and extinction together are not supported")
    if vals["conversion"] and vals["check"]:
        raise VariantError(f"{where}: conversion with check rules is not supported")
    if not vals["captures"] and any(p.en_passant for p in pieces):
        raise VariantError(f"{where}: en_passant pieces in a variant without captures")
    for alias in vals["aliases"]:
        if not isinstance(alias, str):
            raise VariantError(f"{where}: aliases must be strings")
    return VariantSpec(
        name=vals["name"], aliases=tuple(vals["aliases"]), description=vals["description"],
        files=files, ranks=ranks, start_fen=vals["start_fen"], pieces=pieces,
        royal=vals["royal"], check=vals["check"], extinction=vals["extinction"],
        captures=vals["captures"], conversion=vals["conversion"], castling=vals["castling"],
        castling_rook=vals["castling_rook"], castling_king_files=vals["castling_king_files"],
        castling_checks=vals["castling_checks"], rights_field=vals["rights_field"],
        stalemate=vals["stalemate"], bare_king=vals["bare_king"],
        fifty_move_plies=vals["fifty_move_plies"],
        insufficient_material=vals["insufficient_material"],
        xboard=_xboard(where, vals["xboard"], letters), source=str(path.resolve()),
    )
