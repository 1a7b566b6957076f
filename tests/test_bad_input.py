"""Bad input is refused with the documented exception and a message that names the problem.

- A bad FEN raises ``FenError`` (never another exception, not even another ``ValueError``), and
  the message contains a keyword for the fault (checked case-insensitively).
- A bad move raises ``MoveError``.
- The CLI turns both a bad FEN and a bad variant name into exit code 2 and one ``Error:`` line
  on stderr, without a traceback.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from jitfish.movegen import FenError, MoveError, Position, VariantError

CHESS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
COURIER = "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1"
MODCOURIER = "rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1"
COWS = "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGbdfh - 0 1"

# (id, variant, FEN, keyword the message must contain)
BAD_FENS = [
    # board: rank count
    ("7-ranks", "chess", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    ("9-ranks", "chess", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    ("courier-7-ranks", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "ranks"),
    ("cows-9-ranks", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/8/CSCSCSCS/CACMBCAC w - - 0 1", "ranks"),
    # board: rank length
    ("rank-too-long-pieces", "chess", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("rank-too-short-pieces", "chess", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("rank-too-long-digit", "chess", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("rank-too-short-digit", "chess", "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("two-digit-on-8-files", "chess", "rnbqkbnr/pppppppp/10/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("digits-and-pieces-too-long", "chess", "rnbqkbnr/pppppppp/4p4/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("empty-rank-field", "chess", "rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("zero-count", "chess", "rnbqkbnr/pppppppp/8/0/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "count"),
    ("courier-13", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/13/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "squares"),
    ("courier-11", "courier", "rnebmk1wbenr/1ppppp1pppp1/11/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "squares"),
    ("courier-p11p", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p11p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "squares"),
    ("courier-long-pieces", "courier", "rnebmk1wbenrr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "squares"),
    ("courier-8-wide", "courier", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "squares|letter"),
    ("modcourier-10", "modcourier", "rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/10/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1", "squares"),
    # board: letters
    ("unknown-x", "chess", "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "letter"),
    ("courier-has-no-q", "courier", "rnebqk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "letter"),
    ("chess-has-no-alfil", "chess", "rnbqkbnr/pppppppp/8/8/8/4E3/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "letter"),
    ("modcourier-has-no-e", "modcourier", "rnebmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1", "letter"),
    ("cows-has-no-pawn", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/3p4/8/CSCSCSCS/CACMBCAC w ACEGbdfh - 0 1", "letter"),
    ("cleopatra-has-no-c", "cleopatra", "rnbqkbnr/pppppppp/8/8/2C5/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "letter"),
    ("punctuation", "chess", "rnbqkbnr/pppp?ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "letter"),
    ("unicode-digit-in-board", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN\u00b2 w - - 0 1", "squares|letter|digit"),
    # kings
    ("no-white-king", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "king"),
    ("no-black-king", "chess", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "king"),
    ("two-white-kings", "chess", "rnbqkbnr/pppppppp/8/8/8/5K2/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "king"),
    ("two-black-kings", "chess", "rnbqkbnr/pppppppp/2k5/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "king"),
    ("courier-no-king", "courier", "rnebm2wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1", "king"),
    ("modcourier-two-kings", "modcourier", "rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F4K/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1", "king"),
    # pieces where they cannot stand
    ("white-pawn-rank-8", "chess", "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "promotion"),
    ("black-pawn-rank-1", "chess", "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNp w Qkq - 0 1", "promotion"),
    ("white-pawn-rank-1", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBPR w KQkq - 0 1", "first rank"),
    ("black-pawn-rank-8", "chess", "rnbqkbpr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "first rank"),
    ("courier-pawn-rank-8", "courier", "rnebmk1wbenP/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPP2/RNEBMK1WBENR w - - 0 1", "promotion"),
    ("cleopatra-pawn-rank-8", "cleopatra", "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "promotion"),
    ("cows-soldier-rank-8", "cowsandbutterflies", "cacbmcaS/scscscsc/8/8/8/8/CSCSCSC1/CACMBCAC w ACEGbdfh - 0 1", "promotion"),
    ("cows-cow-rank-7", "cowsandbutterflies", "cacbmcac/scscscsC/8/8/8/8/CSCSCSC1/CACMBCAC w ACEGbdf - 0 1", "promotion"),
    ("cows-black-cow-rank-2", "cowsandbutterflies", "cacbmcac/scscscs1/8/8/8/8/CSCSCSCc/CACMBCAC w ACEGbdf - 0 1", "promotion"),
    # side to move
    ("side-x", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side"),
    ("side-uppercase", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", "side"),
    ("side-word", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR white - - 0 1", "side"),
    ("board-only", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "side"),
    # rights field
    ("castling-letter-x", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling"),
    ("castling-twice", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKq - 0 1", "castling"),
    ("castling-file-letters", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1", "castling"),
    ("castling-no-h1-rook", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "rook"),
    ("castling-no-a8-rook", "chess", "1nbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rook"),
    ("castling-king-moved", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR w Q - 0 1", "king"),
    ("cleopatra-castling-no-rook", "cleopatra", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Q - 0 1", "rook"),
    ("courier-has-no-rights", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w KQkq - 0 1", "rights"),
    ("cows-file-without-cow", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ABCEGbdfh - 0 1", "rights"),
    ("cows-black-file-without-cow", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGabdfh - 0 1", "rights"),
    ("cows-file-off-board", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGIbdfh - 0 1", "rights"),
    ("cows-file-twice", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w AACEGbdfh - 0 1", "twice"),
    ("cows-castling-letters", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w KQkq - 0 1", "rights"),
    ("cows-reversed-right-on-soldier", "cowsandbutterflies-reversed", "cacbmcac/cscscscs/8/8/8/8/SCSCSCSC/CACMBCAC w ABDFHaceg - 0 1", "rights"),
    # en passant
    ("ep-off-board", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en-passant"),
    ("ep-not-a-square", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z3 0 1", "en-passant"),
    ("ep-no-pawn-passed", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en-passant"),
    ("ep-wrong-rank", "chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en-passant"),
    ("ep-wrong-side", "chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "en-passant"),
    ("courier-has-no-ep", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR b - e3 0 1", "en-passant|en passant"),
    ("cows-has-no-ep", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGbdfh c3 0 1", "en-passant|en passant"),
    # clocks
    ("halfmove-negative", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove"),
    ("halfmove-word", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove"),
    ("halfmove-float", "courier", "rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 1.5 1", "halfmove"),
    ("halfmove-unicode-digit", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - \u00b2 1", "halfmove"),
    ("fullmove-zero", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove"),
    ("fullmove-negative", "cowsandbutterflies", "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGbdfh - 0 -3", "fullmove"),
    ("fullmove-word", "cleopatra", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 one", "fullmove"),
    # the side to move could take the king
    ("chess-king-en-prise", "chess", "4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "capture"),
    ("chess-king-en-prise-black", "chess", "4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "capture"),
    ("courier-king-en-prise", "courier", "5k6/12/12/12/12/12/12/5R4K1 w - - 0 1", "capture"),
    ("modcourier3-king-en-prise", "modcourier3", "5k6/12/5M6/12/12/12/12/10K1 w - - 0 1", "capture"),
    # whole string
    ("empty", "chess", "", "empty"),
    ("blank", "courier", "   ", "empty"),
    ("seven-fields", "chess", CHESS + " extra", "fields"),
    ("nine-fields", "cowsandbutterflies", COWS + " 1 2 3", "fields"),
]


@pytest.mark.parametrize("variant,fen,keyword", [pytest.param(*c[1:], id=c[0]) for c in BAD_FENS])
def test_bad_fen(variant, fen, keyword):
    with pytest.raises(FenError) as info:  # any other exception fails the test as an error
        Position(variant, fen)
    msg = str(info.value)
    assert any(k.lower() in msg.lower() for k in keyword.split("|")), \
        f"message {msg!r} does not name the problem ({keyword})"


def test_enough_fen_cases():
    assert len(BAD_FENS) >= 50
    assert len({c[0] for c in BAD_FENS}) == len(BAD_FENS)


def test_set_fen_keeps_the_old_position_on_error():
    p = Position("chess")
    p.push("e2e4")
    before = p.fen()
    with pytest.raises(FenError):
        p.set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1")
    assert p.fen() == before


def test_good_fens_with_short_forms_are_accepted():
    """Not errors: missing trailing fields (defaults), XBoard's 4-field form, two-digit counts."""
    assert Position("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w").fen() == \
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
    assert Position("courier", "12/12/4k7/12/12/4K7/5R6/12 b 3 40").fen() == \
        "12/12/4k7/12/12/4K7/5R6/12 b - - 3 40"
    p = Position("chess", "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3")
    assert p.fen().split()[3] == "d3"
    # an en-passant square nobody can use is accepted and dropped (python-chess's default)
    assert Position("chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").fen() == \
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


# ---------------------------------------------------------------------------------------------
# moves

PROMO_CHESS = "8/P7/8/8/8/8/8/k1K5 w - - 0 1"
PROMO_COURIER = "5k5f/P11/12/12/12/12/12/5K6 w - - 0 1"  # Black not bare: the game goes on
# White has lost nothing (all of R N C B M K V B C N R and F on the board): a pawn may not step
# onto the last rank; b7b8 and b7xa8 are both illegal
NOTHING_LOST = "r1cbmk1vbcnr/1Ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1"
COWS_OVER = "c7/S7/8/8/8/8/8/7A b - - 0 1"  # Black has no Ace
CLEO_OVER = "7K/8/8/8/8/8/1Q6/K7 b - - 0 1"  # Black's king was converted

BAD_MOVES = [
    ("empty", "chess", CHESS, ""),
    ("blank", "chess", CHESS, "   "),
    ("one-square", "chess", CHESS, "e2"),
    ("three-squares", "chess", CHESS, "e2e4e5"),
    ("uppercase", "chess", CHESS, "E2E4"),
    ("dash", "chess", CHESS, "e2-e4"),
    ("san", "chess", CHESS, "Nf3"),
    ("two-letters-promo", "chess", PROMO_CHESS, "a7a8qq"),
    ("rank-0", "chess", CHESS, "e0e1"),
    ("rank-9", "chess", CHESS, "e9e8"),
    ("file-i-on-8-files", "chess", CHESS, "i2i3"),
    ("file-m-on-12-files", "courier", COURIER, "m2m3"),
    ("rank-10-on-12x8", "courier", COURIER, "a2a10"),
    ("no-piece", "chess", CHESS, "e3e4"),
    ("no-piece-courier", "courier", COURIER, "g1g2"),
    ("wrong-side", "chess", CHESS, "e7e5"),
    ("wrong-side-cows", "cowsandbutterflies", COWS, "b7b6"),
    ("pawn-three-steps", "chess", CHESS, "e2e5"),
    ("knight-straight", "chess", CHESS, "g1g3"),
    ("castle-through-pieces", "chess", CHESS, "e1g1"),
    ("courier-no-double-step", "courier", COURIER, "b2b4"),
    ("letter-on-plain-move", "chess", CHESS, "e2e4q"),
    ("missing-promotion-letter", "chess", PROMO_CHESS, "a7a8"),
    ("promote-to-king", "chess", PROMO_CHESS, "a7a8k"),
    ("promote-to-pawn", "chess", PROMO_CHESS, "a7a8p"),
    ("promote-to-unknown", "chess", PROMO_CHESS, "a7a8x"),
    ("courier-promote-to-q", "courier", PROMO_COURIER, "a7a8q"),
    ("courier-promote-to-rook", "courier", PROMO_COURIER, "a7a8r"),
    ("king-into-check", "chess", "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "e1e2"),
    ("pinned-piece", "chess", "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "e2c3"),
    ("ignore-check", "chess", "4k3/8/8/8/8/8/PP5N/r3K3 w - - 0 1", "a2a3"),
    ("courier-king-next-to-man", "courier", "5k6/12/12/12/12/12/12/3m1K6 w - - 0 1", "f1e2"),
    ("modcourier-nothing-lost-step", "modcourier", NOTHING_LOST, "b7b8"),
    ("modcourier-nothing-lost-capture", "modcourier", NOTHING_LOST, "b7a8"),
    ("modcourier-nothing-lost-letter", "modcourier", NOTHING_LOST, "b7b8n"),
    ("cows-after-game-over", "cowsandbutterflies", COWS_OVER, "a8b7"),
    ("cleopatra-after-game-over", "cleopatra", CLEO_OVER, "h8g8"),
    ("cleopatra-no-captures", "cleopatra", "4k3/8/8/8/3p4/8/8/3QK3 w - - 0 1", "d1d4"),
    ("cleopatra-pawn-diagonal", "cleopatra", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"),
    ("cows-cow-straight-no-capture", "cowsandbutterflies", "a7/8/8/8/8/8/2C5/A7 w - - 0 1", "c2c3"),
]


@pytest.mark.parametrize("variant,fen,move", [pytest.param(*c[1:], id=c[0]) for c in BAD_MOVES])
def test_bad_move(variant, fen, move):
    p = Position(variant, fen)
    assert p.is_over() == ("over" in move_case_id(variant, fen, move)), "the position is not what the case means"
    before = p.fen()
    with pytest.raises(MoveError):
        p.parse_move(move)
    with pytest.raises(MoveError):
        p.push(move)
    assert p.fen() == before and not p.history


def move_case_id(variant: str, fen: str, move: str) -> str:
    return next(c[0] for c in BAD_MOVES if c[1:] == (variant, fen, move))


def test_enough_move_cases():
    assert len(BAD_MOVES) >= 20


def test_game_over_says_so():
    p = Position("cowsandbutterflies", COWS_OVER)
    assert p.is_over() and p.legal_moves() == []
    with pytest.raises(MoveError, match="over"):
        p.push("a8b7")


def test_missing_letter_lists_choices():
    with pytest.raises(MoveError, match="promotion"):
        Position("chess", PROMO_CHESS).parse_move("a7a8")


def test_forced_promotion_letter_may_be_left_out():
    p = Position("courier", PROMO_COURIER)
    assert not p.is_over()
    assert p.move_name(p.parse_move("a7a8")) == "a7a8f"
    p = Position("cowsandbutterflies", "a7/4s3/4C3/8/8/8/8/A7 w - - 0 1")
    assert p.move_name(p.parse_move("e6e7")) == "e6e7b"


def test_modcourier_promotes_to_lost_pieces_only():
    # White lost a knight (b1 empty): b7b8 must promote, and only to N (b7a8, b7c8 capture)
    fen = NOTHING_LOST.replace("RNCBMK1VBCNR", "R1CBMK1VBCNR")
    p = Position("modcourier", fen)
    assert sorted(p.move_name(m) for m in p.legal_moves() if p.move_name(m).startswith("b7")) == \
        ["b7a8n", "b7b8n", "b7c8n"]
    assert p.move_name(p.parse_move("b7b8")) == "b7b8n"


def test_pop_without_history():
    with pytest.raises(MoveError):
        Position("courier").pop()


def test_parse_move_of_a_non_string():
    with pytest.raises(MoveError):
        Position("chess").parse_move(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# CLI

def _cli() -> list[str]:
    exe = shutil.which("jitfish")
    return [exe] if exe else [sys.executable, "-m", "jitfish.cli"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(_cli() + list(args), capture_output=True, text=True, timeout=300,
                          env=dict(os.environ))


@pytest.mark.parametrize("args", [
    pytest.param(["perft", "1", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"], id="bad-fen"),
    pytest.param(["perft", "1", "--variant", "no-such-variant"], id="bad-variant"),
])
def test_cli_bad_input_real_process(args):
    r = _run(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), r.stderr
    assert "Nodes searched" not in r.stdout


CLI_FENS = [c for c in BAD_FENS[::4] if c[2].strip() and "unicode" not in c[0]]


@pytest.mark.parametrize("variant,fen,keyword", [pytest.param(*c[1:], id=c[0]) for c in CLI_FENS])
def test_cli_bad_fen_in_process(variant, fen, keyword, capsys):
    from jitfish.cli import main

    code = main(["perft", "1", "--variant", variant, "--fen", fen])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("Error:") and err.count("\n") == 1, err
    assert "Nodes searched" not in out


def test_cli_unknown_variant_in_process(capsys):
    from jitfish.cli import main

    assert main(["perft", "1", "--variant", "xiangqi-of-doom"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("Error:") and "xiangqi-of-doom" in err


def test_unknown_variant_raises_variant_error():
    with pytest.raises(VariantError):
        Position("no-such-variant")
