"""Variant files and the Betza parser.

- The loader rejects a bad variant file with ``VariantError`` whose message names the key.
- Betza strings parse into the expected vectors, ranges, directions and modalities.
- Every shipped variant loads, its aliases resolve, and its start FEN round-trips.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from jitfish.movegen import Position, VariantError, load_spec, load_variant, variant_names
from jitfish.movegen.betza import BetzaError, lame_path, parse_betza

# A small complete variant (kings and a rook on 4x4) that each case below breaks in one way.
BASE = """\
name = "tiny"
files = 4
ranks = 4
start_fen = "k3/1r2/2R1/3K w - - 0 1"
royal = "K"
check = true

[pieces.K]
name = "king"
betza = "K"

[pieces.R]
name = "rook"
betza = "R"
"""

PAWN = """
[pieces.P]
name = "pawn"
betza = "fmWfcF"
pawn = true
promotion_ranks = [4]
promotes_to = "R"
"""


def _write(tmp_path: Path, text: str, name: str = "tiny") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def test_base_file_is_valid(tmp_path):
    spec = load_spec(_write(tmp_path, BASE + PAWN))
    assert spec.name == "tiny" and spec.files == 4 and spec.letters == "KRP"
    p = Position(load_variant(str(_write(tmp_path, BASE + PAWN, "tiny2"))))
    assert p.fen() == "k3/1r2/2R1/3K w - - 0 1"
    assert p.perft(1) == len(p.legal_moves()) > 0


# (id, file text, words the message must contain)
BAD_FILES = [
    ("unknown-key", BASE.replace('check = true\n', 'check = true\ncolour_of_board = "green"\n'),
     ["colour_of_board"]),
    ("unknown-piece-key", BASE.replace('betza = "R"\n', 'betza = "R"\nspeed = 3\n'), ["pieces.R", "speed"]),
    ("bad-betza-atom", BASE.replace('betza = "R"', 'betza = "fmX"'), ["pieces.R.betza", "X"]),
    ("bad-betza-modifier", BASE.replace('betza = "R"', 'betza = "qW"'), ["pieces.R.betza"]),
    ("betza-without-atom", BASE.replace('betza = "R"', 'betza = "fm"'), ["pieces.R.betza"]),
    ("empty-betza", BASE.replace('betza = "R"', 'betza = ""'), ["pieces.R.betza"]),
    ("missing-betza", BASE.replace('betza = "R"\n', ''), ["betza"]),
    ("promotes-to-missing-piece", BASE + PAWN.replace('promotes_to = "R"', 'promotes_to = "Q"'),
     ["promotes_to", "Q"]),
    ("promotion-limit-without-zone",
     BASE + '\n[pieces.P]\nname = "pawn"\nbetza = "fmW"\npromotion_limit = true\n', ["promotion_limit"]),
    ("promotes-to-without-ranks",
     BASE + '\n[pieces.P]\nname = "pawn"\nbetza = "fmW"\npromotes_to = "R"\n', ["promotes_to", "promotion_ranks"]),
    ("promotion-rank-off-board", BASE + PAWN.replace("[4]", "[9]"), ["promotion_ranks"]),
    ("check-without-royal", BASE.replace('royal = "K"\n', ''), ["check", "royal"]),
    ("royal-not-a-piece", BASE.replace('royal = "K"', 'royal = "Q"'), ["royal"]),
    ("castling-without-rook", BASE.replace('check = true\n', 'check = true\ncastling = true\n'
                                           'castling_king_files = "cb"\nrights_field = "castling"\n'),
     ["castling_rook"]),
    ("castling-without-rights-field", BASE.replace('check = true\n', 'check = true\ncastling = true\n'
                                                   'castling_rook = "R"\ncastling_king_files = "cb"\n'),
     ["rights_field"]),
    ("missing-start-fen", BASE.replace('start_fen = "k3/1r2/2R1/3K w - - 0 1"\n', ''), ["start_fen"]),
    ("missing-name", BASE.replace('name = "tiny"\n', '', 1), ["name"]),
    ("files-not-integer", BASE.replace('files = 4', 'files = "four"'), ["files"]),
    ("check-not-bool", BASE.replace('check = true', 'check = "yes"'), ["check"]),
    ("board-too-big", BASE.replace('files = 4', 'files = 17'), ["board"]),
    ("lowercase-piece-letter", BASE.replace('[pieces.R]', '[pieces.r]'), ["pieces.r"]),
    ("stalemate-value", BASE.replace('check = true\n', 'check = true\nstalemate = "win"\n'), ["stalemate"]),
    ("bare-king-value", BASE.replace('check = true\n', 'check = true\nbare_king = "draw"\n'), ["bare_king"]),
    ("initial-without-i-moves", BASE.replace('betza = "R"\n', 'betza = "R"\ninitial = "rank"\ninitial_ranks = [1]\n'),
     ["initial"]),
    ("not-toml", "name = \n", ["TOML"]),
]


@pytest.mark.parametrize("text,words", [pytest.param(t, w, id=i) for i, t, w in BAD_FILES])
def test_loader_rejects_by_key(tmp_path, text, words):
    path = _write(tmp_path, text)
    with pytest.raises(VariantError) as info:
        load_spec(path)
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{msg!r} does not name {w!r}"
    assert "tiny.toml" in msg or "TOML" in msg, f"{msg!r} does not name the file"


def test_bad_start_fen_is_reported_by_key(tmp_path):
    path = _write(tmp_path, BASE.replace("k3/1r2/2R1/3K", "k3/1r2/2R1/3KK"))
    with pytest.raises(VariantError) as info:
        load_variant(str(path))
    assert "start_fen" in str(info.value)


def test_inherits_cycle(tmp_path):
    _write(tmp_path, 'name = "a"\ninherits = "b"\n', "a")
    _write(tmp_path, 'name = "b"\ninherits = "a"\n', "b")
    with pytest.raises(VariantError, match="inherits"):
        load_spec(tmp_path / "a.toml")


def test_inherits_self(tmp_path):
    path = _write(tmp_path, 'name = "tiny"\ninherits = "tiny"\n')
    with pytest.raises(VariantError, match="inherits"):
        load_spec(path)


def test_inherits_unknown_parent(tmp_path):
    path = _write(tmp_path, 'name = "tiny"\ninherits = "no-such-parent"\n')
    with pytest.raises(VariantError, match="no-such-parent"):
        load_spec(path)


def test_inherit_from_shipped_variant(tmp_path):
    """A child states only its differences (here: chess without castling, knights as camels)."""
    path = _write(tmp_path, 'name = "tiny"\ninherits = "chess"\ncastling = false\nrights_field = "none"\n'
                            'start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"\n'
                            '[pieces.N]\nbetza = "C"\n')
    spec = load_spec(path)
    assert spec.piece("N").betza == "C" and spec.piece("N").name == "knight"
    # 16 pawn moves; camels b1-a4, b1-c4, g1-f4, g1-h4 (b1-e2 and g1-d2 land on own pawns)
    assert Position(load_variant(str(path))).perft(1) == 20


def test_remove_unknown_parent_piece(tmp_path):
    path = _write(tmp_path, 'name = "tiny"\ninherits = "chess"\n[pieces.Z]\nremove = true\n')
    with pytest.raises(VariantError, match="pieces.Z"):
        load_spec(path)


def test_remove_piece_still_in_use(tmp_path):
    path = _write(tmp_path, 'name = "tiny"\ninherits = "chess"\n[pieces.Q]\nremove = true\n')
    with pytest.raises(VariantError, match="promotes_to"):
        load_spec(path)


def test_missing_file():
    with pytest.raises(VariantError):
        load_spec("/nonexistent/dir/none.toml")


def test_unknown_variant_name():
    with pytest.raises(VariantError, match="no-such-variant"):
        load_spec("no-such-variant")


# ---------------------------------------------------------------------------------------------
# Betza

def vecs(text: str, i: int = 0) -> set[tuple[int, int]]:
    return set(parse_betza(text)[i].vectors)


KING8 = {(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)}
KNIGHT = {(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)}


@pytest.mark.parametrize("atom,vector", [
    ("W", (1, 0)), ("F", (1, 1)), ("D", (2, 0)), ("A", (2, 2)), ("N", (2, 1)), ("H", (3, 0)),
    ("C", (3, 1)), ("L", (3, 1)), ("Z", (3, 2)), ("J", (3, 2)), ("G", (3, 3)),
])
def test_atoms(atom, vector):
    (c,) = parse_betza(atom)
    a, b = vector
    expected = {(x * sx, y * sy) for x, y in ((a, b), (b, a)) for sx in (1, -1) for sy in (1, -1)}
    assert set(c.vectors) == expected
    assert len(c.vectors) == len(expected)  # no duplicates
    assert not c.rider and c.move and c.capture and not c.initial and not c.lame


def test_compound_atoms():
    (k,) = parse_betza("K")
    assert set(k.vectors) == KING8 and not k.rider
    (r,) = parse_betza("R")
    assert set(r.vectors) == {(1, 0), (-1, 0), (0, 1), (0, -1)} and r.rider and r.range_ == 0
    (b,) = parse_betza("B")
    assert set(b.vectors) == {(1, 1), (1, -1), (-1, 1), (-1, -1)} and b.rider and b.range_ == 0
    (q,) = parse_betza("Q")
    assert set(q.vectors) == KING8 and q.rider
    assert [set(c.vectors) for c in parse_betza("NAD")] == [KNIGHT, vecs("A"), vecs("D")]


def test_ranges_and_riders():
    (c,) = parse_betza("W2")
    assert c.rider and c.range_ == 2 and set(c.vectors) == vecs("W")
    (c,) = parse_betza("R2")
    assert c.rider and c.range_ == 2
    (c,) = parse_betza("B3")
    assert c.rider and c.range_ == 3 and set(c.vectors) == vecs("F")
    (c,) = parse_betza("WW")
    assert c.rider and c.range_ == 0
    (c,) = parse_betza("NN")
    assert c.rider and set(c.vectors) == KNIGHT
    (c,) = parse_betza("W1")
    assert not c.rider
    (c,) = parse_betza("R1")
    assert not c.rider and set(c.vectors) == vecs("W")
    (c,) = parse_betza("Q12")
    assert c.rider and c.range_ == 12


@pytest.mark.parametrize("text,expected", [
    ("fW", {(0, 1)}),
    ("bW", {(0, -1)}),
    ("lW", {(-1, 0)}),
    ("rW", {(1, 0)}),
    ("sW", {(1, 0), (-1, 0)}),
    ("vW", {(0, 1), (0, -1)}),
    ("fsW", {(0, 1), (1, 0), (-1, 0)}),
    ("fF", {(1, 1), (-1, 1)}),
    ("bF", {(1, -1), (-1, -1)}),
    ("lF", {(-1, 1), (-1, -1)}),
    ("flF", {(-1, 1)}),
    ("frF", {(1, 1)}),
    ("brF", {(1, -1)}),
    ("fN", {(1, 2), (-1, 2), (2, 1), (-2, 1)}),
    ("ffN", {(1, 2), (-1, 2)}),
    ("fsN", {(2, 1), (-2, 1)}),
    ("bbN", {(1, -2), (-1, -2)}),
    ("vN", {(1, 2), (-1, 2), (1, -2), (-1, -2)}),
    ("sN", {(2, 1), (-2, 1), (2, -1), (-2, -1)}),
    ("llN", {(-2, 1), (-2, -1)}),
    ("fD", {(0, 2)}),
    ("fB", {(1, 1), (-1, 1)}),
    ("fR", {(0, 1)}),
    ("bR", {(0, -1)}),
    ("fK", {(0, 1), (1, 1), (-1, 1)}),
])
def test_directions(text, expected):
    assert vecs(text) == expected


def test_chiral_halves():
    left, right = vecs("hlN"), vecs("hrN")
    assert len(left) == len(right) == 4
    assert left | right == KNIGHT and not left & right


def test_modality_initial_lame():
    move, cap = parse_betza("fmWfcF")
    assert move.move and not move.capture and move.vectors == ((0, 1),)
    assert cap.capture and not cap.move and set(cap.vectors) == {(1, 1), (-1, 1)}
    *_, dbl = parse_betza("fmWfcFifmnD")
    assert dbl.initial and dbl.lame and dbl.move and not dbl.capture and dbl.vectors == ((0, 2),)
    (plain,) = parse_betza("D")
    assert not plain.lame and not plain.initial
    (n,) = parse_betza("nN")
    assert n.lame
    (nw,) = parse_betza("nW")  # a one-square step passes nothing: not lame
    assert not nw.lame
    (nr,) = parse_betza("nR")  # riders are never lame (they stop at blockers anyway)
    assert not nr.lame
    cow = parse_betza("mfFcfWifmW")
    assert [(c.move, c.capture, c.initial) for c in cow] == [(True, False, False), (False, True, False),
                                                             (True, False, True)]
    (both,) = parse_betza("mcW")
    assert both.move and both.capture


def test_lame_paths():
    assert lame_path((0, 2)) == [(0, 1)]
    assert lame_path((2, 2)) == [(1, 1)]
    assert lame_path((1, 2)) == [(0, 1)]
    assert lame_path((-2, -1)) == [(-1, 0)]
    assert lame_path((0, 3)) == [(0, 1), (0, 2)]
    assert lame_path((1, 1)) == []


@pytest.mark.parametrize("text", ["", "   ", "X", "fm", "qW", "fW f", "sF", "vF", "hW", "hfN", "2W"])
def test_betza_errors(text):
    with pytest.raises(BetzaError):
        parse_betza(text)


def test_shipped_betza_strings():
    """The pieces of RULES.md parse to the moves it describes."""
    ace, _, butterfly, soldier, cow = (load_spec("cowsandbutterflies").piece(x) for x in "AMBSC")
    (fb2, r2) = ace.components
    assert set(fb2.vectors) == {(1, 1), (-1, 1)} and fb2.range_ == 2
    assert set(r2.vectors) == vecs("W") and r2.range_ == 2
    assert [c.range_ for c in butterfly.components] == [3, 3, 0]
    assert {v for c in soldier.components for v in c.vectors} == vecs("fF") | vecs("W")
    assert cow.components[2].initial
    vizier = load_spec("modcourier").piece("V")
    assert vizier.components[0].rider and vizier.components[0].range_ == 2
    assert set(load_spec("modcourier").piece("F").components[1].vectors) == {(0, -1)}
    assert {v for c in load_spec("modcourier2").piece("F").components for v in c.vectors} == \
        vecs("F") | {(0, 1)}
    assert load_spec("modcourier3").piece("M").betza == "KNAD"


# ---------------------------------------------------------------------------------------------
# shipped variants

def test_shipped_names():
    assert set(variant_names()) >= {"chess", "courier", "modcourier", "modcourier2", "modcourier3",
                                    "cowsandbutterflies", "cowsandbutterflies-reversed", "cleopatra"}


@pytest.mark.parametrize("variant", variant_names())
def test_shipped_variant_loads_and_start_round_trips(variant):
    spec = load_spec(variant)
    assert spec.name == variant
    p = Position(variant)
    assert p.fen() == spec.start_fen
    assert Position(variant, p.fen()).fen() == spec.start_fen
    assert len(spec.start_fen.split()[0].split("/")) == spec.ranks
    assert p.perft(1) == len(p.legal_moves()) > 0


@pytest.mark.parametrize("alias,name", [
    ("normal", "chess"), ("standard", "chess"), ("courier-modified", "modcourier"),
    ("courier-mod2", "modcourier2"), ("courier-mod3", "modcourier3"), ("COURIER", "courier"),
])
def test_aliases(alias, name):
    assert load_spec(alias).name == name
    assert Position(alias).spec.name == name


def test_start_positions_of_rules_md():
    expected = {
        "modcourier": "rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1",
        "cowsandbutterflies": "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGbdfh - 0 1",
        "cowsandbutterflies-reversed": "cacbmcac/cscscscs/8/8/8/8/SCSCSCSC/CACMBCAC w BDFHaceg - 0 1",
        "cleopatra": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "courier": "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1",
    }
    for v, fen in expected.items():
        assert Position(v).fen() == fen, v
