"""Fuzz: thousands of random and mutated command lines into a live engine process.

Phase A throws seeded chaos at the engine: valid commands with random arguments, every command
at the wrong time, mutated FENs and moves, random bytes, very long lines. Phase B then sets a
known position and sends only bad input (malformed and illegal moves, bad FENs, unknown
commands, bad parameters); the position must not move. Finally the engine must answer
``ping``/``isready`` and play a legal move in that position, must still be running, and its
log must hold no traceback (an internal error on any line is a bug).

``JITFISH_FUZZ_LINES`` scales phase A (default 3000 per protocol); the inputs are written to
the test's temporary folder, and the seed is in the test id, for replaying a failure.
"""
from __future__ import annotations

import os
import random
import re

import pytest

from engine_process import EngineProcess, warm_kernels

N_LINES = int(os.environ.get("JITFISH_FUZZ_LINES", "3000"))
VARIANTS = ["normal", "chess", "courier", "modcourier", "modcourier2", "modcourier3",
            "cowsandbutterflies", "cowsandbutterflies-reversed", "cleopatra", "courier-modified",
            "12x8_modcourier", "shogi", "", "normal normal"]
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rncbmk1vbcnr/1ppppp1pppp1/6f5/p5p4p/P5P4P/6F5/1PPPPP1PPPP1/RNCBMK1VBCNR w - - 0 1",
    "rnebmkfwbenr/pppppppppppp/12/12/12/12/PPPPPPPPPPPP/RNEBMKFWBENR w - - 0 1",
    "cacbmcac/scscscsc/8/8/8/8/CSCSCSCS/CACMBCAC w ACEGbdfh - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
]
PHASE_B_FEN = "r3k2r/pp3ppp/2n5/3p4/3P4/2N5/PP3PPP/R3K2R w KQkq - 4 12"


def _number(rng: random.Random) -> str:
    return rng.choice([str(rng.randint(-5, 5)), str(rng.randint(0, 100)), str(rng.randint(0, 10**6)),
                       "0", "-1", "1e9", "0.5", "abc", "", "99999999999999999999", "1:30", "0:00", "nan"])


def _square(rng: random.Random) -> str:
    return rng.choice("abcdefghijklmnopz") + str(rng.randint(0, 13))


def _move(rng: random.Random) -> str:
    return _square(rng) + _square(rng) + rng.choice(["", "", "q", "n", "m", "b", "x", "F", "qq"])


def _fen(rng: random.Random) -> str:
    return _mutate(rng, rng.choice(FENS)) if rng.random() < 0.7 else rng.choice(FENS)


def _mutate(rng: random.Random, line: str) -> str:
    chars = list(line)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 /-=:.?\t\x00\x7fé♞{}()"))
        elif op == 2 and chars:
            chars[min(i, len(chars) - 1)] = rng.choice("0123456789KQkqwb-/ ")
        elif op == 3:
            chars = chars[:i]
        elif op == 4:
            chars = chars + chars[: rng.randint(0, len(chars))]
        elif op == 5:
            chars = [c.swapcase() for c in chars]
        else:
            chars.insert(i, " " * rng.randint(1, 3))
    return "".join(chars)


def cecp_line(rng: random.Random) -> str:
    templates = [
        lambda: "new", lambda: "force", lambda: "go", lambda: "playother", lambda: "?", lambda: ".",
        lambda: "post", lambda: "nopost", lambda: "hard", lambda: "easy", lambda: "undo",
        lambda: "remove", lambda: "analyze", lambda: "exit", lambda: "draw", lambda: "random",
        lambda: "computer", lambda: "bk", lambda: "hint", lambda: "fen", lambda: "xboard",
        lambda: f"protover {_number(rng)}", lambda: f"result {rng.choice(['1-0', '0-1', '1/2-1/2', '*'])} {{x}}",
        lambda: f"ping {_number(rng)}", lambda: f"level {_number(rng)} {_number(rng)} {_number(rng)}",
        lambda: f"st {_number(rng)}", lambda: f"sd {_number(rng)}", lambda: f"nps {_number(rng)}",
        lambda: f"time {_number(rng)}", lambda: f"otim {_number(rng)}",
        lambda: f"memory {rng.choice(['1', '8', '16', '0', '-3', 'x'])}", lambda: f"cores {_number(rng)}",
        lambda: f"option Move Overhead={_number(rng)}", lambda: "option Clear Hash",
        lambda: f"option XBoard Safe Moves={rng.choice('01x')}", lambda: f"option {_number(rng)}",
        lambda: f"variant {rng.choice(VARIANTS)}", lambda: f"setboard {_fen(rng)}",
        lambda: f"usermove {_move(rng)}", lambda: _move(rng), lambda: f"perft {rng.choice(['1', '2', '0', 'x', '13'])}",
        lambda: f"accepted {rng.choice(['ping', 'x', ''])}", lambda: f"rejected {_number(rng)}",
        lambda: f"name {_number(rng)}", lambda: f"rating {_number(rng)} {_number(rng)}",
    ]
    return rng.choice(templates)()


def uci_line(rng: random.Random) -> str:
    def position() -> str:
        head = "startpos" if rng.random() < 0.5 else f"fen {_fen(rng)}"
        moves = " ".join(_move(rng) for _ in range(rng.randint(0, 4)))
        if rng.random() < 0.5:
            moves = " ".join(rng.choice(["e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "a2a3", "k2k3"])
                             for _ in range(rng.randint(0, 6)))
        return f"position {head}" + (f" moves {moves}" if moves or rng.random() < 0.2 else "")

    def go() -> str:
        parts = ["go"]
        for _ in range(rng.randint(0, 4)):
            key = rng.choice(["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes",
                              "movetime", "infinite", "ponder", "searchmoves", "mate", "perft", "bogus"])
            if key == "perft":
                parts += ["perft", rng.choice(["1", "2", "0", "x"])]
            elif key in ("infinite", "ponder", "bogus"):
                parts.append(key)
            elif key == "searchmoves":
                parts += ["searchmoves"] + [_move(rng) for _ in range(rng.randint(0, 3))]
            elif key in ("movetime", "wtime", "btime"):
                parts += [key, rng.choice(["10", "100", "500", "0", "-5", "x", "99999"])]
            else:
                parts += [key, _number(rng)]
        return " ".join(parts)

    templates = [
        lambda: "uci", lambda: "isready", lambda: "ucinewgame", lambda: "stop", lambda: "ponderhit",
        lambda: f"debug {rng.choice(['on', 'off', 'x'])}", lambda: "register later", lambda: "fen",
        position, position, position, go, go, go,
        lambda: f"setoption name UCI_Variant value {rng.choice(VARIANTS)}",
        lambda: f"setoption name Hash value {rng.choice(['1', '8', '16', '0', 'x', '-4'])}",
        lambda: f"setoption name {rng.choice(['Ponder', 'MultiPV', 'Threads', 'Move Overhead', 'Nope', 'Clear Hash'])}"
                f" value {rng.choice(['true', 'false', '1', '3', '0', 'x', ''])}",
        lambda: "setoption", lambda: f"setoption name", lambda: _move(rng),
    ]
    return rng.choice(templates)()


def _safe(line: str) -> bool:
    """Lines the fuzz leaves out: quitting, and perft too deep to finish in a test."""
    low = line.strip().lower()
    if low.split()[:1] == ["quit"] or line.strip() == "quit":
        return False
    m = re.search(r"perft\s+(\d+)", line)
    if m and int(m.group(1)) > 2:
        return False
    if re.search(r"(memory|hash value)\s+\d{3,}", low):
        return False
    return True


def chaos(rng: random.Random, gen, n: int) -> list[bytes]:
    out = []
    while len(out) < n:
        r = rng.random()
        if r < 0.55:
            line = gen(rng)
        elif r < 0.9:
            line = _mutate(rng, gen(rng))
        elif r < 0.95:
            line = "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(0, 40)))
        elif r < 0.98:
            line = gen(rng) + " " + "x" * rng.randint(1000, 20000)
        else:
            out.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 60))).replace(b"\n", b"") + b"\n")
            continue
        line = line.replace("\n", " ").replace("\r", " ")
        if _safe(line):
            out.append(line.encode("utf-8", "surrogatepass") + b"\n")
    return out


BAD_CECP = ["usermove e2e5", "usermove e7e5", "usermove zz", "usermove e1g1", "usermove a1a9",
            "e2e9", "setboard 8/8/8 w - - 0 1", "setboard rnbqkbnr w", "setboard", "variant bogus",
            "bogus", "level 1", "st x", "sd -1", "undo undo", "perft 0", "time x", "option Nope=1",
            "usermove", "usermove d4d5", "usermove c3e5", "exit", "usermove e1c1q"]
BAD_UCI = ["position startpos moves e2e5", "position fen 8/8/8 w - - 0 1", "position fen", "position",
           "position startpos moves e2e4 e2e4", "setoption name UCI_Variant value bogus",
           "setoption name Hash value x", "bogus", "ponderhit", "stop", "debug maybe",
           "setoption name Threads value 2", "position startpos extra moves e2e4"]


@pytest.fixture(scope="module", autouse=True)
def _warm():
    warm_kernels()


def _check_log(path) -> None:
    text = path.read_text(errors="replace") if path.exists() else ""
    assert "Traceback" not in text, "internal error during the fuzz:\n" + text[text.index("Traceback") - 500:][:4000]


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzz_cecp(tmp_path, seed):
    from jitfish.movegen import Position

    rng = random.Random(seed)
    lines = chaos(rng, cecp_line, N_LINES)
    (tmp_path / "input.txt").write_bytes(b"".join(lines))
    eng = EngineProcess(tmp_path / "jitfish.log")
    try:
        eng.xboard_handshake()
        for raw in lines:
            eng.send_raw(raw)
        # phase B: a known position, then only bad input
        for line in ("?", "exit", "force", "new", "force", "nps 0", "easy", "ping 424242"):
            eng.send(line)
        eng.expect_line("pong 424242", 120)
        eng.send(f"setboard {PHASE_B_FEN}")
        for line in BAD_CECP * 4:
            eng.send(line)
        eng.send("fen")
        eng.expect_line(f"# fen {PHASE_B_FEN}", 30)
        eng.send("ping 5")
        eng.expect_line("pong 5", 30)
        eng.send("st 0.5")
        eng.send("go")
        _, line = eng.expect_prefix("move ", 60)
        move = line.split()[1]
        pos = Position("chess", PHASE_B_FEN)
        assert move in {pos.move_name(m) for m in pos.legal_moves()}
        assert eng.proc.poll() is None
        assert eng.close() == 0
    finally:
        eng.close()
    _check_log(tmp_path / "jitfish.log")
    out = [x for _, x in eng.all]
    assert not any("Traceback" in x or x.startswith("  File ") for x in out)


@pytest.mark.parametrize("seed", [3])
def test_fuzz_uci(tmp_path, seed):
    from jitfish.movegen import Position

    rng = random.Random(seed)
    lines = chaos(rng, uci_line, N_LINES)
    (tmp_path / "input.txt").write_bytes(b"uci\n" + b"".join(lines))
    eng = EngineProcess(tmp_path / "jitfish.log")
    try:
        eng.send("uci")
        eng.expect_line("uciok", 30)
        for raw in lines:
            eng.send_raw(raw)
        for line in ("stop", "setoption name UCI_Variant value chess", "setoption name MultiPV value 1",
                     "ucinewgame", "isready"):
            eng.send(line)
        eng.expect_line("readyok", 120)
        eng.send(f"position fen {PHASE_B_FEN}")
        for line in BAD_UCI * 4:
            eng.send(line)
        eng.send("fen")
        eng.expect_line(f"info string fen {PHASE_B_FEN}", 30)
        eng.send("isready")
        eng.expect_line("readyok", 30)
        eng.send("go movetime 300")
        _, line = eng.expect_prefix("bestmove ", 60)
        move = line.split()[1]
        pos = Position("chess", PHASE_B_FEN)
        assert move in {pos.move_name(m) for m in pos.legal_moves()}
        assert eng.close() == 0
    finally:
        eng.close()
    _check_log(tmp_path / "jitfish.log")
