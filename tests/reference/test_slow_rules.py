"""Tests of the slow reference rules themselves (tests/reference/slow_rules.py).

Three kinds of evidence that the oracle is right before anything is checked against it:
1. Hand-reasoned positions: few pieces, the expected move list worked out square by square
   in the comment above each case.
2. Known counts: start-position perft where another engine (Fairy-Stockfish, see
   /work/shared/oracle/README.md) or a simple argument gives the number.
3. Cross-checks on seeded random positions against code that shares nothing with the oracle:
   python-chess for Cleopatra's piece moves and lines, pyffish for Cows and Butterflies
   (allowing exactly its two documented differences).

Also checks /work/main/tests/data/movelists.txt (hand-derived lists) and the perft EPD files
written by make_data.py (first two depths).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from slow_rules import (  # noqa: E402
    START_FEN, legal_moves, play, perft, divide, parse_fen, to_fen, generate, make,
    move_text, is_game_over,
)

TESTS = Path(__file__).resolve().parent.parent
MOVELISTS = TESTS / "data" / "movelists.txt"
PERFT_DIR = TESTS / "perft"
FSF_INI = Path("/work/shared/oracle/fsf-variants.ini")

COWS = "cowsandbutterflies"
CLEO = "cleopatra"


def moves(text: str) -> list[str]:
    return sorted(text.split())


# =============================================================================================
# Cows and Butterflies: hand-reasoned move lists
# =============================================================================================

def test_cows_moved_and_unmoved_cow_on_second_rank():
    # White: Ace a1, Cows c2 (moved: not in the rights field) and f2 (unmoved: right F).
    # Ace a1 (fB2R2): up a2 a3; right b1 c1; forward diagonal b2 c3.      -> 6
    # Cow c2, moved: diagonal forward b3 d3; no straight step.              -> 2
    # Cow f2, unmoved: diagonal forward e3 g3, and the first step f3.       -> 3
    fen = "a7/8/8/8/8/8/2C2C2/A7 w F - 0 1"
    assert legal_moves(COWS, fen) == moves(
        "a1a2 a1a3 a1b1 a1c1 a1b2 a1c3 c2b3 c2d3 f2e3 f2g3 f2f3")
    # The moving cow loses its right; the other cow's move leaves it.
    assert play(COWS, fen, "f2f3") == "a7/8/8/8/8/5C2/2C5/A7 b - - 0 1"
    assert play(COWS, fen, "c2b3") == "a7/8/8/8/8/1C6/5C2/A7 b F - 0 1"
    assert play(COWS, fen, "a1a2") == "a7/8/8/8/8/8/A1C2C2/8 b F - 1 1"


def test_cows_moved_and_unmoved_cow_black():
    # Black mirror: Ace a8 goes forward = down: a7 a6; b8 c8; diagonal b7 c6.   -> 6
    # Cow c7 unmoved (right c): b6 d6 c6.  Cow f7 moved: e6 g6.                 -> 5
    fen = "a7/2c2c2/8/8/8/8/8/A7 b c - 0 1"
    assert legal_moves(COWS, fen) == moves(
        "a8a7 a8a6 a8b8 a8c8 a8b7 a8c6 c7b6 c7d6 c7c6 f7e6 f7g6")
    assert play(COWS, fen, "c7c6") == "a7/5c2/2c5/8/8/8/8/A7 w - - 0 2"


def test_cows_first_rank_cow_is_unmoved_and_loses_right_on_arrival():
    # Cow c1 on White's first rank has never moved: b2 d2 and the straight step c2.
    # Ace a1: a2 a3; b1 (c1 is own); b2 c3.
    fen = "a7/8/8/8/8/8/8/A1C5 w - - 0 1"
    assert legal_moves(COWS, fen) == moves("a1a2 a1a3 a1b1 a1b2 a1c3 c1b2 c1c2 c1d2")
    after = play(COWS, fen, "c1c2")
    assert after == "a7/8/8/8/8/8/2C5/A7 b - - 0 1"      # arrives on rank 2 already moved
    after = play(COWS, after, "a8b8")
    assert [m for m in legal_moves(COWS, after) if m.startswith("c2")] == ["c2b3", "c2d3"]


def test_cows_rights_field_is_cleaned():
    # A right naming a file without an own cow on the second rank means nothing.
    fen = "a7/8/8/8/8/8/2S5/A7 w CDe - 0 1"
    assert play(COWS, fen, "a1b1") == "a7/8/8/8/8/8/2S5/1A6 b - - 1 1"


def test_cows_capture_of_unmoved_cow_removes_its_right():
    # Black Monarch e1 takes the unmoved cow e2: right E goes, clock resets.
    fen = "a7/8/8/8/8/8/4C3/A3m3 b E - 5 9"
    assert play(COWS, fen, "e1e2") == "a7/8/8/8/8/8/4m3/A7 w - - 0 10"


def test_cows_cow_captures_straight_only():
    # Cow d3 (moved): c4 holds an enemy -> no (diagonal is move-only); e4 empty -> move;
    # d4 holds an enemy -> capture (straight is capture-only here).
    # Ace a1: a2 a3 b1 c1 b2 c3.
    fen = "a7/8/8/8/2ss4/3C4/8/A7 w - - 0 1"
    assert legal_moves(COWS, fen) == moves("a1a2 a1a3 a1b1 a1c1 a1b2 a1c3 d3d4 d3e4")


def test_cows_cow_promotes_to_butterfly_on_seventh():
    # Cow e6: d7 and f7 empty (moves), e7 enemy soldier (capture) -- all three promote.
    fen = "a7/4s3/4C3/8/8/8/8/A7 w - - 0 1"
    assert legal_moves(COWS, fen) == moves("a1a2 a1a3 a1b1 a1c1 a1b2 a1c3 e6d7b e6f7b e6e7b")
    assert play(COWS, fen, "e6f7b") == "a7/4sB2/8/8/8/8/8/A7 b - - 0 1"
    assert play(COWS, fen, "e6f7") == "a7/4sB2/8/8/8/8/8/A7 b - - 0 1"   # forced letter
    assert play(COWS, fen, "e6e7b") == "a7/4B3/8/8/8/8/8/A7 b - - 0 1"


def test_cows_black_cow_promotes_on_second_rank():
    # Black forward is down. Ace a8: a7 a6 b8 c8 b7 c6. Cow d3 (moved): c2 e2 promote; no d2.
    fen = "a7/8/8/8/8/3c4/8/7A b - - 0 1"
    assert legal_moves(COWS, fen) == moves("a8a7 a8a6 a8b8 a8c8 a8b7 a8c6 d3c2b d3e2b")
    assert play(COWS, fen, "d3e2b") == "a7/8/8/8/8/8/4b3/7A w - - 0 2"


def test_cows_soldier_promotes_to_monarch():
    # Soldier b7 (fB3R3): b8 promotes; down b6 b5 b4; a7; c7 d7 e7 (range 3);
    # forward diagonals a8 c8 (promote); no backward diagonals.   Ace a1: 6 moves.
    fen = "4a3/1S6/8/8/8/8/8/A7 w - - 0 1"
    assert legal_moves(COWS, fen) == moves(
        "a1a2 a1a3 a1b1 a1c1 a1b2 a1c3 b7b8m b7b6 b7b5 b7b4 b7a7 b7c7 b7d7 b7e7 b7a8m b7c8m")
    assert play(COWS, fen, "b7b8") == "1M2a3/8/8/8/8/8/8/A7 b - - 1 1"


def test_cows_ace_blocked():
    # Ace d4 with own cows d5 and d3, enemy soldier e5:
    # up: d5 own -> none; down: d3 own -> none (cannot jump to d2);
    # left c4 b4; right e4 f4; forward-left c5 b6; forward-right e5 (capture, stop). -> 7
    # Cow d3: c4 e4 (d4 own).  Cow d5: c6 e6 (moved, no straight step).             -> 4
    fen = "7a/8/8/3Cs3/3A4/3C4/8/8 w - - 0 1"
    assert legal_moves(COWS, fen) == moves(
        "d4b4 d4c4 d4e4 d4f4 d4c5 d4b6 d4e5 d3c4 d3e4 d5c6 d5e6")


def test_cows_butterfly_slides_three_and_leaps():
    # Butterfly a1: a2 a3 a4 (range 3), b1 c1 d1, diagonal blocked by own cow b2,
    # knight leaps b3 c2.  Cow b2 (moved): a3 c3.  Ace h8: h7 h6 g8 f8.
    fen = "a6A/8/8/8/8/8/1C6/B7 w - - 0 1"
    assert legal_moves(COWS, fen) == moves(
        "a1a2 a1a3 a1a4 a1b1 a1c1 a1d1 a1b3 a1c2 b2a3 b2c3 h8h7 h8h6 h8g8 h8f8")


def test_cows_capturing_last_ace_ends_game():
    # Soldier a6: a7 takes the last black Ace; a5 a4 a3; b6 c6 d6; b7 then c8 (promotes).
    # Ace h1: h2 h3 g1 f1 g2 f3.
    fen = "8/a7/S7/8/8/8/8/7A w - - 0 1"
    assert legal_moves(COWS, fen) == moves(
        "a6a7 a6a5 a6a4 a6a3 a6b6 a6c6 a6d6 a6b7 a6c8m h1h2 h1h3 h1g1 h1f1 h1g2 h1f3")
    over = play(COWS, fen, "a6a7")
    assert over == "8/S7/8/8/8/8/8/7A b - - 0 1"
    assert legal_moves(COWS, over) == []
    assert perft(COWS, over, 3) == 0
    d = divide(COWS, fen, 2)
    assert d["a6a7"] == 0 and all(n > 0 for m, n in d.items() if m != "a6a7")
    # Either side without an Ace: over, whoever is to move.
    assert legal_moves(COWS, "8/8/8/8/8/8/8/A7 w - - 0 1") == []


def test_cows_start_perft():
    # Fairy-Stockfish agrees to depth 4 from the start (oracle/README.md).
    fen = START_FEN[COWS]
    assert [perft(COWS, fen, d) for d in (1, 2, 3)] == [43, 1837, 90323]
    rev = START_FEN["cowsandbutterflies-reversed"]
    assert [perft("cowsandbutterflies-reversed", rev, d) for d in (1, 2, 3)] == [43, 1837, 90279]


@pytest.mark.skipif(not os.environ.get("SLOW_RULES_DEEP"), reason="about 10 s; SLOW_RULES_DEEP=1")
def test_cows_start_perft_4():
    assert perft(COWS, START_FEN[COWS], 4) == 4398942


# =============================================================================================
# Cleopatra: hand-reasoned positions
# =============================================================================================

def test_cleopatra_start_perft():
    # Depth 1-2 as chess. Depth 3 = chess 8902 minus its 34 captures: no check can bind White
    # at ply 3, no Cleopatra can move in the first two plies, and the only chess moves that
    # are not Cleopatra moves at ply 3 are the captures.
    fen = START_FEN[CLEO]
    assert [perft(CLEO, fen, d) for d in (1, 2, 3)] == [20, 400, 8868]


def test_cleopatra_pawns_never_capture():
    # Pawn d3 blocked by d4 (knights on c4 d4 not capturable); pawn g2: g3, not g4 (occupied).
    # King a1: a2 b1 b2.
    fen = "7k/8/8/8/2nn2n1/3P4/6P1/K7 w - - 0 1"
    assert legal_moves(CLEO, fen) == moves("a1a2 a1b1 a1b2 g2g3")


def test_cleopatra_castling_ignores_cleopatra_lines():
    # Black Cleopatra g3 sees e1 (g3-f2-e1) and g1 (g3-g2-g1): no check exists, castle anyway.
    # King e1: d1 d2 e2 f1 f2 and e1g1.  Rook h1: h2..h8 (7), g1 f1.
    fen = "k7/8/8/8/8/6q1/8/4K2R w K - 0 1"
    assert legal_moves(CLEO, fen) == moves(
        "e1d1 e1d2 e1e2 e1f1 e1f2 e1g1 h1f1 h1g1 h1h2 h1h3 h1h4 h1h5 h1h6 h1h7 h1h8")
    assert play(CLEO, fen, "e1g1") == "k7/8/8/8/8/6q1/8/5RK1 b - - 1 1"
    # The standing Cleopatra converts nothing: only one that has just moved does.
    assert play(CLEO, fen, "e1f2") == "k7/8/8/8/8/6q1/5K2/7R b - - 1 1"


def test_cleopatra_castling_queenside_and_rights():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    assert {"e1c1", "e1g1"} <= set(legal_moves(CLEO, fen))
    assert play(CLEO, fen, "e1c1") == "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"
    assert play(CLEO, fen, "a1a2") == "r3k2r/8/8/8/8/8/R7/4K2R b Kkq - 1 1"
    # b8 occupied blocks black's long castling; the a-rook need not be "safe".
    fen = "rn2k2r/8/8/8/8/8/8/4K3 b kq - 0 1"
    assert "e8c8" not in legal_moves(CLEO, fen) and "e8g8" in legal_moves(CLEO, fen)


def test_cleopatra_converts_several_at_once():
    # White Cleopatra d1-d4. Lines from d4: up d5 d6 d7 = black knight -> converts;
    # right e4 f4 g4 = black rook -> converts; up-left c5 b6 = black bishop -> converts;
    # down-right e3 f2 = black pawn -> converts (g1 bishop behind it stays black);
    # left c4 b4 a4 = black Cleopatra -> never converted; down-left c3 b2 = own king
    # (black knight a1 behind it stays black); up-right e5..h8 and down d3..d1 empty.
    fen = "8/3n3k/1b6/8/q5r1/8/1K3p2/n2Q2b1 w - - 0 1"
    after = play(CLEO, fen, "d1d4")
    assert after == "8/3N3k/1B6/8/q2Q2R1/8/1K3P2/n5b1 b - - 0 1"
    # The converted pawn now double-steps from White's second rank.
    after = play(CLEO, after, "h7h8")
    assert {"f2f3", "f2f4"} <= set(legal_moves(CLEO, after))


def test_cleopatra_opening_a_line_converts_nothing():
    # Knight b2 leaves the long diagonal of the Cleopatra a1; rook e5 stays black.
    fen = "7k/8/8/4r3/8/8/1N6/Q1K5 w - - 0 1"
    assert play(CLEO, fen, "b2d3") == "7k/8/8/4r3/8/3N4/8/Q1K5 b - - 1 1"
    # Whereas the Cleopatra itself moving along the line converts the rook.
    assert play(CLEO, "7k/8/8/4r3/8/8/8/Q1K5 w - - 0 1", "a1b2") == \
        "7k/8/8/4R3/8/8/1Q6/2K5 b - - 0 1"


def test_cleopatra_promotion_to_cleopatra_converts():
    # Pawn d7: four promotions. King a1: a2 b1 b2.
    # d7d8q: from d8, a8 rook (c8 b8 empty), d2 bishop (d7..d3 now empty), h4 knight
    # (e7 f6 g5) all convert; black king h1 is on no line of d8.
    fen = "r7/3P4/8/8/7n/8/3b4/K6k w - - 0 1"
    assert legal_moves(CLEO, fen) == moves("a1a2 a1b1 a1b2 d7d8n d7d8b d7d8r d7d8q")
    assert play(CLEO, fen, "d7d8q") == "R2Q4/8/8/8/7N/8/3B4/K6k b - - 0 1"
    assert play(CLEO, fen, "d7d8r") == "r2R4/8/8/8/7n/8/3b4/K6k b - - 0 1"


def test_cleopatra_king_conversion_ends_game():
    # Cleopatra b1 reaches a line of h8 (nothing between) with b2 (diagonal), b8 (rank 8),
    # h1 (h-file) and h7 (adjacent): those four moves win; the others do not.
    fen = "7k/8/8/8/8/8/8/KQ6 w - - 0 1"
    assert len(legal_moves(CLEO, fen)) == 22           # king a2 b2; Cleopatra 7+6+1+6
    d = divide(CLEO, fen, 2)
    assert sorted(m for m, n in d.items() if n == 0) == ["b1b2", "b1b8", "b1h1", "b1h7"]
    over = play(CLEO, fen, "b1b2")
    assert over == "7K/8/8/8/8/8/1Q6/K7 b - - 0 1"
    assert legal_moves(CLEO, over) == [] and perft(CLEO, over, 2) == 0


def test_cleopatra_converted_rook_has_no_castling_right():
    # Black Cleopatra d7-h3: h-file h2 h1 -> white rook converts; White loses right K.
    fen = "k7/3q4/8/8/8/8/8/4K2R b K - 0 1"
    after = play(CLEO, fen, "d7h3")
    assert after == "k7/8/8/8/8/7q/8/4K2r w - - 0 2"
    assert legal_moves(CLEO, after) == moves("e1d1 e1d2 e1e2 e1f1 e1f2")
    # Converted back to White on h1, the rook still gives no right: White Cleopatra a2-g2
    # sees h1 (down-right) and converts it; h3 is a Cleopatra, b8's king is off every line.
    fen = "1k6/8/8/8/8/7q/Q7/4K2r w - - 0 2"
    after = play(CLEO, fen, "a2g2")
    assert after == "1k6/8/8/8/8/7q/6Q1/4K2R b - - 0 2"
    after = play(CLEO, after, "b8a8")
    assert "e1g1" not in legal_moves(CLEO, after)


def test_cleopatra_converted_pawns_change_direction():
    # Black Cleopatra a3-e3: e-file up e4 e5 e6 e7 -> white pawn converts; down-left d2 ->
    # white pawn converts. White king a1 is on no line of e3.
    fen = "7k/4P3/8/8/8/q7/3P4/K7 b - - 0 1"
    after = play(CLEO, fen, "a3e3")
    assert after == "7k/4p3/8/8/8/4q3/3p4/K7 w - - 0 2"
    assert legal_moves(CLEO, after) == moves("a1a2 a1b1 a1b2")
    after = play(CLEO, after, "a1b1")
    black = set(legal_moves(CLEO, after))
    # e7: Black's second rank -> single and double step down; d2: down, promoting on rank 1.
    assert {"e7e6", "e7e5", "d2d1n", "d2d1b", "d2d1r", "d2d1q"} <= black
    assert not {m for m in black if m[:2] in ("e7", "d2")} - \
        {"e7e6", "e7e5", "d2d1n", "d2d1b", "d2d1r", "d2d1q"}
    # d2d1q: the new Cleopatra on d1 sees c1 b1 = white king -> White has lost.
    over = play(CLEO, after, "d2d1q")
    assert over == "7k/4p3/8/8/8/4q3/8/1k1q4 w - - 0 3"
    assert legal_moves(CLEO, over) == []


# =============================================================================================
# Cross-checks on seeded random positions
# =============================================================================================

def random_positions(variant: str, games: int, plies: int, seed: int):
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pos = parse_fen(variant, START_FEN[variant])
        for _ in range(plies):
            ms = generate(pos)
            if not ms:
                break
            pos = make(pos, rng.choice(ms))
            out.append(pos)
    return out


def test_cleopatra_piece_moves_match_python_chess():
    chess = pytest.importorskip("chess")
    checked = 0
    for pos in random_positions(CLEO, 30, 80, seed=11):
        if is_game_over(pos):
            continue
        fen = to_fen(pos)
        ours = {move_text(m) for m in generate(pos)}
        board = chess.Board(fen)
        theirs = set()
        for m in board.generate_pseudo_legal_moves():
            if board.is_capture(m) or board.is_castling(m):
                continue
            theirs.add(m.uci())
        castles = {m for m in ours if pos.board[(ord(m[0]) - 97, int(m[1]) - 1)] in "Kk"
                   and abs(ord(m[0]) - ord(m[2])) == 2}
        assert ours - castles == theirs, fen
        # Castling: exactly the rights whose squares between are empty.
        expected = set()
        for right, (ksq, between, target) in {
                "K": ("e1", "f1 g1", "e1g1"), "Q": ("e1", "b1 c1 d1", "e1c1"),
                "k": ("e8", "f8 g8", "e8g8"), "q": ("e8", "b8 c8 d8", "e8c8")}.items():
            mine = right.isupper() == (pos.turn == "w")
            if mine and right in fen.split()[2] and all(
                    board.piece_at(chess.parse_square(s)) is None for s in between.split()):
                expected.add(target)
        assert castles == expected, fen
        checked += 1
    assert checked > 500


def test_cleopatra_conversions_match_python_chess_attacks():
    chess = pytest.importorskip("chess")
    checked = 0
    for pos in random_positions(CLEO, 20, 80, seed=12):
        fen = to_fen(pos)
        for m in generate(pos):
            text = move_text(m)
            after = chess.Board(fen)
            move = chess.Move.from_uci(text)
            mover = after.turn
            piece = after.remove_piece_at(move.from_square)
            if move.promotion:
                piece = chess.Piece(move.promotion, mover)
            after.set_piece_at(move.to_square, piece)
            if piece.piece_type == chess.KING and abs(move.to_square - move.from_square) == 2:
                rook_from, rook_to = ((move.from_square + 3, move.from_square + 1)
                                      if move.to_square > move.from_square
                                      else (move.from_square - 4, move.from_square - 1))
                after.set_piece_at(rook_to, after.remove_piece_at(rook_from))
            if piece.piece_type == chess.QUEEN:
                for sq in after.attacks(move.to_square):
                    p = after.piece_at(sq)
                    if p and p.color != mover and p.piece_type != chess.QUEEN:
                        after.set_piece_at(sq, chess.Piece(p.piece_type, mover))
            ours = play(CLEO, fen, text)
            assert ours.split()[0] == after.board_fen(), (fen, text)
            checked += 1
    assert checked > 3000


def fsf():
    pyffish = pytest.importorskip("pyffish")
    pyffish.load_variant_config(FSF_INI.read_text())
    return pyffish


def test_cows_match_fairy_stockfish_up_to_its_two_differences():
    pyffish = fsf()
    checked = 0
    for pos in random_positions(COWS, 25, 120, seed=13):
        if is_game_over(pos):
            continue
        fen = to_fen(pos)
        fields = fen.split()
        fields[2] = "-"
        theirs = set(pyffish.legal_moves(COWS, " ".join(fields), []))
        ours = set()
        for m in generate(pos):
            text = move_text(m)
            # (2) FSF has no Cow->Butterfly promotion: its cow just steps onto rank 7 / 2.
            ours.add(text[:4] if text.endswith("b") else text)
        # (1) FSF lets any cow on its first two ranks take the straight step.
        d = 1 if pos.turn == "w" else -1
        second = 1 if pos.turn == "w" else 6
        cow = "C" if pos.turn == "w" else "c"
        for (f, r), piece in pos.board.items():
            ahead = (f, r + d)
            if piece == cow and r == second and (f, r) not in pos.rights and ahead not in pos.board:
                ours.add("abcdefgh"[f] + str(r + 1) + "abcdefgh"[f] + str(r + 1 + d))
        assert ours == theirs, fen
        checked += 1
    assert checked > 1000


# =============================================================================================
# Data files
# =============================================================================================

def movelist_lines():
    if not MOVELISTS.exists():
        return []
    out = []
    for line in MOVELISTS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        variant, fen, mvs, why = (part.strip() for part in line.split("|"))
        out.append((variant, fen, mvs.split(), why))
    return out


@pytest.mark.parametrize("variant,fen,expected,why", movelist_lines())
def test_movelists_file(variant, fen, expected, why):
    assert expected == sorted(expected), "lists are written sorted"
    if variant == "modcourier":
        pyffish = fsf()
        assert sorted(pyffish.legal_moves("courier-modified", fen, [])) == expected
    else:
        assert legal_moves(variant, fen) == expected


def epd_lines():
    out = []
    for path in sorted(PERFT_DIR.glob("*.epd")):
        lines = path.read_text().splitlines()
        if not lines or not lines[0].startswith("# variant:"):
            continue
        variant = lines[0].split(":", 1)[1].strip()
        if variant not in (CLEO, COWS):
            continue
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            body = line.split(" # ", 1)[0]  # a trailing comment names the line's witness
            fen, *depths = (p.strip() for p in body.split(";"))
            counts = {int(d.split()[0][1:]): int(d.split()[1]) for d in depths}
            out.append((variant, fen, counts))
    return out


@pytest.mark.parametrize("variant,fen,counts", epd_lines())
def test_epd_first_depths(variant, fen, counts):
    for depth in sorted(counts)[:2]:
        assert perft(variant, fen, depth) == counts[depth]
