"""XBoard/CECP v2 transcripts, replayed in-process against the fake engine (protocol_harness).

Every command the issue lists has a transcript here, and so does every kind of bad input: the
engine answers ``Error (...)`` or ``Illegal move (...)`` and goes on in the last good position
(each bad-input transcript ends by checking the position with the non-standard ``fen``
command, which prints ``# fen FEN``).
"""
from __future__ import annotations

import pytest

from protocol_harness import FakeEngine, Session, replay, warm_movegen

HANDSHAKE = """
> xboard
> protover 2
< feature done=0
< feature ping=1 setboard=1 usermove=1 time=1 draw=1 sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 * memory=1 smp=1 * myname="jitfish *" variants="normal,courier,cowsandbutterflies,cowsandbutterflies-reversed,modcourier,modcourier2,modcourier3"
< feature option="Move Overhead -spin 50 0 5000"
< feature option="Clear Hash -button"
< feature option="XBoard Safe Moves -check 1"
< feature option="VariantPath -file "
< feature done=1
"""
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.fixture(scope="module", autouse=True)
def _kernels():
    warm_movegen()


@pytest.fixture
def s():
    FakeEngine.prefer = []
    sess = Session()
    yield sess
    sess.close()
    FakeEngine.prefer = []


def searches(sess):
    return [c for c in sess.host.engine.calls if c[0] == "search"]


def test_handshake_first_line_is_done0(s):
    replay(HANDSHAKE, s)
    assert s.out.lines[0] == "feature done=0"


def test_protover_1_and_bad_protover(s):
    replay("""
    > xboard
    > protover x
    < Error (bad protocol version): protover x
    > protover 1
    > ping 3
    < pong 3
    """, s)


def test_game_as_black_with_level_time_otim(s):
    replay(HANDSHAKE + """
    > new
    > random
    > level 40 5 0
    > post
    > time 30000
    > otim 29000
    > usermove e2e4
    < move a7a5
    > fen
    < # fen rnbqkbnr/1ppppppp/8/p7/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
    """, s)
    lim = searches(s)[-1][2]
    assert (lim.btime, lim.wtime, lim.binc, lim.winc, lim.movestogo) == (300.0, 290.0, 0.0, 0.0, 40)
    assert any(line.startswith("3 12 ") and line.endswith("\ta7a5 a2a3") for line in s.out.lines)


def test_level_with_increment_and_minutes_seconds(s):
    replay(HANDSHAKE + """
    > new
    > level 0 0:30 0.5
    > time 2500
    > otim 2600
    > go
    < move a2a3
    """, s)
    lim = searches(s)[-1][2]
    assert (lim.wtime, lim.btime, lim.winc, lim.binc, lim.movestogo) == (25.0, 26.0, 0.5, 0.5, None)


def test_st_sd_and_nps(s):
    replay(HANDSHAKE + """
    > new
    > st 2
    > sd 4
    > force
    > usermove e2e4
    > go
    < move a7a5
    > new
    > level 0 1 0
    > nps 1000
    > time 6000
    > otim 6000
    > go
    < move a2a3
    """, s)
    first, second = searches(s)[-2:]
    assert (first[2].movetime, first[2].depth) == (2.0, 4)
    lim = second[2]
    assert lim.depth is None  # `new` drops the sd limit
    # the soft budget of a sudden-death clock with no increment: 1/40 of (clock - 50 ms reserve)
    assert lim.nodes == int(1000 * (60 - 0.05) / 40) and lim.wtime is None and lim.movetime is None


def test_force_go_playother(s):
    replay(HANDSHAKE + """
    > new
    > force
    > usermove e2e4
    > usermove e7e5
    > fen
    < # fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
    > go
    < move a2a3
    > force
    > usermove a7a6
    > playother
    > usermove b2b3
    < move a6a5
    > fen
    < # fen rnbqkbnr/1ppp1ppp/8/p3p3/4P3/PP6/2PP1PPP/RNBQKBNR w KQkq - 0 4
    """, s)


def test_playother_then_opponent_moves(s):
    replay(HANDSHAKE + """
    > new
    > force
    > playother
    > usermove d2d4
    < move a7a5
    """, s)


def test_bare_moves_without_usermove_prefix(s):
    replay(HANDSHAKE + """
    > new
    > force
    > e2e4
    > fen
    < # fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
    """, s)


def test_illegal_and_malformed_moves_keep_the_position(s):
    replay(HANDSHAKE + f"""
    > new
    > force
    > usermove e2e5
    < Illegal move: e2e5
    > usermove e7e5
    < Illegal move (the piece on e7 is not the side to move's): e7e5
    > usermove e3e4
    < Illegal move (no piece on e3): e3e4
    > usermove zz9
    < Illegal move (expected from-square, to-square and an optional promotion letter, like e2e4 or e7e8q): zz9
    > usermove
    < Illegal move (expected from-square*):
    > usermove e7e8q
    < Illegal move (the piece on e7 is not the side to move's): e7e8q
    > usermove i2i4
    < Illegal move (square 'i2' is off the 8x8 board): i2i4
    > fen
    < # fen {START}
    """, s)


def test_move_for_the_wrong_side_is_refused(s):
    replay(HANDSHAKE + """
    > new
    > sd 1
    > go
    < move a2a3
    > usermove b2b3
    < Illegal move (the piece on b2 is not the side to move's): b2b3
    > usermove a7a6
    < move a1a2
    """, s)


def test_bad_commands_answer_error_and_change_nothing(s):
    replay(HANDSHAKE + f"""
    > new
    > bogus command
    < Error (unknown command): bogus command
    > setboard 8/8/8 w - - 0 1
    < Error (bad FEN: board has 3 ranks, chess needs 8): setboard 8/8/8 w - - 0 1
    > setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1
    < Error (bad FEN: side to move must be w or b, not 'x'): setboard *
    > setboard
    < Error (bad FEN: empty FEN): setboard
    > variant nonsense
    < Error (unknown variant): variant nonsense
    > level 1 2
    < Error (bad time control: level needs MPS BASE INC): level 1 2
    > level a b c
    < Error (bad time control: *): level a b c
    > st -1
    < Error (bad time per move): st -1
    > sd zero
    < Error (bad depth): sd zero
    > nps many
    < Error (bad nodes per second): nps many
    > time soon
    < Error (bad time): time soon
    > otim 1.5
    < Error (bad time): otim 1.5
    > memory 0
    < Error (bad memory size): memory 0
    > cores -2
    < Error (bad core count): cores -2
    > option Nope=3
    < Error (unknown option): option Nope=3
    > option Move Overhead=abc
    < Error (bad option value): option Move Overhead=abc
    > undo
    < Error (command not legal now: no move to take back): undo
    > remove
    < Error (command not legal now: no move to take back): remove
    > exit
    < Error (command not legal now: not analysing): exit
    > perft 0
    < Error (bad depth (1..12)): perft 0
    > qm
    < Error (unknown command): qm
    > fen
    < # fen {START}
    > usermove e2e4
    < move a7a5
    """, s)


def test_go_while_thinking_is_refused(s):
    replay(HANDSHAKE + """
    > new
    > st 60
    > go
    > go
    < Error (command not legal now: already thinking): go
    > playother
    < Error (command not legal now: already thinking): playother
    > ?
    < move a2a3
    """, s)


def test_move_now_and_ping_answered_after_the_move(s):
    replay(HANDSHAKE + """
    > new
    > st 60
    > go
    ~
    > ping 7
    > ?
    < move a2a3
    < pong 7
    > ping 8
    < pong 8
    """, s)


def test_force_while_thinking_drops_the_search(s):
    replay(HANDSHAKE + """
    > new
    > st 60
    > go
    ~
    > force
    > ping 1
    < pong 1
    > fen
    < # fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
    """, s)


def test_undo_and_remove(s):
    replay(HANDSHAKE + """
    > new
    > force
    > usermove e2e4
    > usermove e7e5
    > usermove g1f3
    > undo
    > fen
    < # fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
    > remove
    > fen
    < # fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
    """, s)


def test_setboard_full_and_short_fen(s):
    replay(HANDSHAKE + """
    > new
    > force
    > setboard 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1
    > fen
    < # fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1
    > setboard 4k3/8/8/8/8/8/4P3/4K3 b 3 40
    > fen
    < # fen 4k3/8/8/8/8/8/4P3/4K3 b - - 3 40
    > go
    < move e8d7
    """, s)


def test_ponder_hit_and_ping_while_pondering(s):
    replay(HANDSHAKE + """
    > new
    > hard
    > sd 2
    > usermove e2e4
    < move a7a5
    ~
    > ping 2
    < pong 2
    > usermove a2a3
    < move a5a4
    """, s)
    calls = searches(s)
    fens = [c[1] for c in calls]
    after_hit = "rnbqkbnr/1ppppppp/8/p7/4P3/P7/1PPP1PPP/RNBQKBNR b KQkq - 0 2"
    assert calls[1][2].infinite and fens[1] == after_hit  # pondered on the expected reply
    assert not calls[2][2].infinite and fens[2] == after_hit  # then searched it with limits


def test_ponder_miss_and_easy(s):
    replay(HANDSHAKE + """
    > new
    > hard
    > sd 2
    > usermove e2e4
    < move a7a5
    ~
    > usermove d2d4
    < move a5a4
    ~
    > easy
    > ping 1
    < pong 1
    """, s)
    calls = searches(s)
    assert calls[1][2].infinite and calls[1][1].split()[0] == "rnbqkbnr/1ppppppp/8/p7/4P3/P7/1PPP1PPP/RNBQKBNR"
    assert calls[2][1].split()[0] == "rnbqkbnr/1ppppppp/8/p7/3PP3/8/PPP2PPP/RNBQKBNR"
    assert calls[3][2].infinite  # pondering again after a5a4 ...
    assert len(calls) == 4  # ... until `easy` stopped it


def test_analyze_mode(s):
    replay(HANDSHAKE + """
    > new
    > post
    > analyze
    < 3 12 *	a2a3 a7a5
    > .
    < stat01: * 300 3 0 20 a2a3
    > usermove e2e4
    < 3 12 *	a7a5 a2a3
    > undo
    < 3 12 *	a2a3 a7a5
    > exit
    > fen
    < # fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
    """, s)


def test_go_ends_an_analysis(s):
    # found by the fuzz test: `go` during an analysis used to wait for the analysis forever
    replay(HANDSHAKE + """
    > new
    > analyze
    < 3 12 *	a2a3 a7a5
    > sd 1
    > go
    < move a2a3
    > ping 3
    < pong 3
    """, s)


def test_draw_offers(s):
    replay(HANDSHAKE + """
    > new
    > sd 1
    > usermove e2e4
    < move a7a5
    > draw
    """, s)
    s.host.engine.score = -300
    replay("""
    > usermove d2d4
    < move a5a4
    > draw
    < offer draw
    """, s)


def test_result_stops_and_ends_the_game(s):
    replay(HANDSHAKE + """
    > new
    > st 60
    > go
    ~
    > result 1-0 {White resigns}
    > ping 4
    < pong 4
    > go
    > ping 5
    < pong 5
    """, s)


def test_claims_mate_after_own_move(s):
    FakeEngine.prefer = ["c1c8"]
    replay(HANDSHAKE + """
    > new
    > force
    > setboard k7/8/1K6/8/8/8/8/2Q5 w - - 0 1
    > go
    < move c1c8
    < 1-0 {White mates}
    """, s)


def test_claims_stalemate_after_own_move(s):
    FakeEngine.prefer = ["c1c7"]
    replay(HANDSHAKE + """
    > new
    > force
    > setboard k7/8/1K6/8/8/8/8/2Q5 w - - 0 1
    > go
    < move c1c7
    < 1/2-1/2 {Stalemate}
    """, s)


def test_claims_when_the_opponent_ends_the_game(s):
    replay(HANDSHAKE + """
    > new
    > setboard k7/8/1K6/8/8/8/8/2Q5 w - - 0 1
    > usermove c1c8
    < 1-0 {White mates}
    > go
    > ping 1
    < pong 1
    """, s)


def test_aces_captured_winner_is_silent_loser_resigns(s):
    # XBoard cannot check extinction: a winner's claim would be a "False win claim"
    FakeEngine.prefer = ["e4e5"]
    replay(HANDSHAKE + """
    > new
    > variant cowsandbutterflies
    < setup (C......S.................A...................^C=B....^S=M.c......s.................a...................^c=b....^s=m.) 8x8+0_berolina cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w - - 0 1
    < piece A& fB2R2
    < piece S& fB3R3
    < piece C& fmFfcWifmW
    < piece +S& Q
    < piece +C& B3R3N
    > force
    > setboard 8/8/8/4a3/4C3/8/8/A7 w - - 0 1
    > go
    < move e4e5
    > ping 1
    < pong 1
    > new
    > variant cowsandbutterflies
    """ + "< *\n" * 6 + """
    > setboard 8/8/8/4a3/4C3/8/8/A7 w - - 0 1
    > usermove e4e5
    < resign
    """, s)


def test_loser_resigns_when_every_move_loses_at_once(s):
    # XBoard would call the position after the capture a stalemate (the loser has no move left,
    # -checkMates true): jitfish resigns when its search says it is mated in one
    replay(HANDSHAKE + """
    > new
    > variant cowsandbutterflies
    """ + "< *\n" * 6 + """
    > force
    > setboard 4a3/8/4A3/8/8/8/8/A7 b - - 0 1
    > ping 1
    < pong 1
    """, s)
    s.host.engine.mate = -1
    replay("""
    > go
    < resign
    > ping 2
    < pong 2
    """, s)


@pytest.mark.parametrize("name", ["modcourier", "modcourier2", "modcourier3"])
def test_variant_modcourier_family_defines_itself(s, name):
    moves = {"modcourier": ("K", "FbW", "R2"), "modcourier2": ("NAD", "FfW", "K"),
             "modcourier3": ("KNAD", "K", "NAD")}[name]
    replay(HANDSHAKE + f"""
    > new
    > variant {name}
    < setup (PNBR.FC..VMKpnbr.fc..vmk) 12x8+0_fairy rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1
    < piece P& fmWfcF
    < piece N& N
    < piece B& B
    < piece R& R
    < piece K& K
    < piece C& FA
    < piece M& {moves[0]}
    < piece F& {moves[1]}
    < piece V& {moves[2]}
    > sd 1
    > go
    < move a1a2
    > usermove k7k6
    < move a2a1
    """, s)


def test_variant_with_board_size_prefix_and_alias(s):
    replay(HANDSHAKE + """
    > new
    > variant 12x8+0_courier-modified
    < setup (*) 12x8+0_fairy *
    < piece *
    < piece *
    < piece *
    < piece *
    < piece *
    < piece *
    < piece *
    < piece *
    < piece *
    > fen
    < # fen rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1
    """, s)


def test_variant_normal_and_courier_are_xboards_own(s):
    replay(HANDSHAKE + """
    > new
    > variant normal
    > fen
    < # fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
    > variant courier
    > fen
    < # fen rnebmkfwbenr/pppppppppppp/12/12/12/12/PPPPPPPPPPPP/RNEBMKFWBENR w - - 0 1
    > setboard rnebmk1wbenr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNEBMK1WBENR w - - 0 1
    > sd 1
    > go
    < move a1a2
    """, s)


def test_cleopatra_is_refused_with_a_reason(s):
    # XBoard cannot show conversions: not in feature variants, and `variant cleopatra` gets a
    # tellusererror naming the browser board; XBoard then falls back to chess, and so does jitfish
    replay(HANDSHAKE + """
    > new
    > variant cleopatra
    < tellusererror jitfish cannot play cleopatra in XBoard: XBoard cannot show Cleopatra's conversions * 'jitfish board'*
    > force
    > usermove e2e4
    > fen
    < # fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
    """, s)


def test_memory_cores_and_options(s):
    replay(HANDSHAKE + """
    > new
    > memory 64
    > cores 2
    > option Move Overhead=200
    > option Clear Hash
    > sd 1
    > go
    < move a2a3
    """, s)
    calls = s.host.engine.calls
    assert ("set_hash", 64) in calls
    assert calls.count(("new_game",)) >= 2  # `new` and the Clear Hash button
    assert searches(s)[-1][2].move_overhead == 0.2


def test_perft_command(s):
    replay(HANDSHAKE + """
    > new
    > perft 2
    """ + "< *: 20\n" * 20 + """
    < Nodes searched: 400
    """, s)


def test_ignored_commands_are_silent(s):
    replay(HANDSHAKE + """
    > accepted ping
    > rejected exclude
    > computer
    > name Someone
    > rating 2000 1800
    > ics -
    > random
    > bk
    > hint
    > nopost
    > post
    > .
    > ?
    > ping 9
    < pong 9
    """, s)


def test_commands_before_protover_wait_for_the_kernels(s):
    # the first command after `xboard` may come before the warm-up is done: it must still work
    replay("""
    > xboard
    > new
    > ping 1
    < pong 1
    """, s)


def test_quit_ends_the_loop(s):
    replay(HANDSHAKE + """
    > new
    > st 60
    > go
    """, s)
    s.send("quit")
    s.thread.join(5)
    assert not s.thread.is_alive()


# -- moves XBoard 4.9.1 cannot show (played only with the "XBoard Safe Moves" option)


def test_every_cows_and_butterflies_move_shows_in_xboard():
    """With the Cow in XBoard's pawn slot under the Berolina parent and Butterfly/Monarch as the
    promoted Cow/Soldier, XBoard 4.9.1 can play every legal move (protocol/XBOARD-NOTES.md):
    XBoard Safe Moves narrows nothing, and promotions go out as ``+`` moves."""
    from jitfish.movegen import Position
    from jitfish.protocol.xboard import xboard_view

    for variant in ("cowsandbutterflies", "cowsandbutterflies-reversed"):
        view = xboard_view(variant)
        for fen in ("cac1m3/1c2cc1c/3c2c1/4S3/8/8/C1C1C1C1/CAC2CAC w ACEGbf - 0 15",  # the old forfeit
                    "cac1m3/1c2c3/8/2c5/4s3/8/C1C1C3/CAC2CAC b - - 0 15",
                    "4m3/8/1C6/8/8/8/8/A6a w - - 0 1", "4m3/3S4/1C6/8/8/8/8/A6a w - - 0 1"):
            p = Position(variant, fen)
            assert all(view.showable(p, m) for m in p.legal_moves()), fen
    p = Position("cowsandbutterflies", "4m3/3S4/1C6/8/8/8/8/A6a w - - 0 1")
    texts = {view.move_text(p, m) for m in p.legal_moves()}
    assert {"b6c7+", "b6a7+", "d7d8+"} <= texts and not any(t[-1] in "bm" for t in texts)
    assert view.read_move(p, "b6c7+") == "b6c7b" and view.read_move(p, "d7e8+") == "d7e8m"


def test_cows_and_butterflies_through_xboards_forms(s):
    """XBoard's own forms come back: ``c6d7+`` moves and ``+C``/``+S`` in its FENs."""
    FakeEngine.prefer = ["e7e8m"]
    replay(HANDSHAKE + """
    > new
    > variant cowsandbutterflies
    """ + "< *\n" * 6 + """
    > force
    > setboard 4a2+c/4S3/1C6/8/8/2c5/8/A7 w - - 0 1
    > usermove b6c7+
    > usermove c3b2+
    > fen
    < # fen 4a2b/2B1S3/8/8/8/8/1b6/A7 w - - 0 2
    > go
    < move e7e8+
    """, s)


def test_unshowable_moves_of_a_users_variant_are_avoided():
    """A user's variant may have moves XBoard cannot show (makruk's pawns promote on the sixth
    rank): XBoard Safe Moves, on by default, keeps jitfish from choosing them."""
    from jitfish.movegen import Position
    from jitfish.protocol.xboard import xboard_view
    from oracles import TEST_VARIANTS

    path = str(TEST_VARIANTS / "makruk.toml")
    view = xboard_view(path)
    assert view.limits and "rank(s) [6]" in view.limits[0]
    p = Position(path, "4k3/8/8/P7/8/8/8/4K3 w - - 0 1")
    bad = {p.move_name(m) for m in p.legal_moves() if not view.showable(p, m)}
    assert bad == {"a5a6m"}
