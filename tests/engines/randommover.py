"""A random legal mover for every jitfish variant, speaking CECP v2 or UCI: the test engine of
``jitfish match`` (and the model of the misbehaving test engines, which are this with a flag).

    python3 randommover.py [--proto xboard|uci] [--seed N] [--deterministic] [--no-setboard] [--greedy]
                           [--illegal-at N] [--crash-at N] [--hang-at N] [--resign-at N]
                           [--claim-at N] [--reject-at N] [--name NAME] [--think MS]

``--greedy`` plays a move that wins at once when there is one. ``--deterministic`` draws each
move from a generator seeded by the position (and ``--seed``), so a game depends only on its
opening, whichever process plays it and whatever it played before (tests of ``--resume``). The ``--X-at N`` flags misbehave
at the engine's N-th move of a game (counting from 1): play an illegal move, exit with code 3,
stop answering for good (``--hang-at 0``: never answer anything, not even the handshake), resign,
claim a false draw, or answer the opponent's (legal) move with ``Illegal move``.
``--no-setboard`` announces ``setboard=0`` and takes positions through ``edit``, as Fairy-Max
(and, as Fairy-Max, starts courier from XBoard's full-pawn-rows position).
CECP engines define the non-XBoard variants with ``setup``/``piece`` lines, as XBoard expects.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
import zlib

VARIANTS = ("chess", "courier", "modcourier", "modcourier2", "modcourier3", "cowsandbutterflies",
            "cowsandbutterflies-reversed", "cleopatra")


XB_COURIER_START = "rnebmkfwbenr/pppppppppppp/12/12/12/12/PPPPPPPPPPPP/RNEBMKFWBENR w - - 0 1"


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Mover:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed if args.seed is not None else os.getpid() ^ int(time.time()))
        self.variant = "chess"
        self.pos = None
        self.own_moves = 0
        self.hung = False

    def load(self):
        """Import the rules (numba: slow) and run every kernel a move will need once, so that
        no compiling or cache loading happens on the clock."""
        global Position, MoveError
        from jitfish.movegen import MoveError, Position  # noqa: F401

        pos = Position("chess")
        for text in ("e2e4", "e7e5"):
            pos.push(text)
            pos.outcome()
        pos.pop()
        pos.move_name(pos.legal_moves()[0])
        pos.fen()

    def reset(self, fen=None):
        if fen is None and self.variant == "courier" and self.args.no_setboard:
            fen = XB_COURIER_START  # as Fairy-Max: XBoard's courier start, full pawn rows
        self.pos = Position(self.variant, fen)
        self.own_moves = 0

    def misbehaviour(self):
        """What to do at this move, by the flags: None or a word."""
        a = self.args
        n = self.own_moves
        for word in ("illegal", "crash", "hang", "resign", "claim"):
            at = getattr(a, f"{word}_at")
            if at is not None and at == n:
                return word
        return None

    def hang(self):
        self.hung = True
        while True:  # deaf and mute, even to quit
            time.sleep(1)

    def choose(self):
        if self.args.think:
            time.sleep(self.args.think / 1000)
        pos = self.pos
        moves = pos.legal_moves()
        if not moves:
            return None
        if self.args.greedy:
            me = "1-0" if pos.turn == 0 else "0-1"
            for m in moves:
                pos.push(m)
                verdict = pos.outcome()
                pos.pop()
                if verdict and verdict[0] == me:
                    return pos.move_name(m)
        rng = self.rng
        if self.args.deterministic:
            rng = random.Random(zlib.crc32(f"{self.args.seed or 0} {pos.fen()}".encode()))
        return pos.move_name(moves[rng.randrange(len(moves))])

    def illegal_move(self):
        """A move from one of our pieces onto another of ours: never legal."""
        pos = self.pos
        F = pos.spec.files
        ours = [s for s in range(F * pos.spec.ranks)
                if pos.pos.board[s] and (int(pos.pos.board[s]) - 1) & 1 == pos.turn]
        a, b = ours[0], ours[-1]
        name = lambda s: "abcdefghijkl"[s % F] + str(s // F + 1)  # noqa: E731
        return name(a) + name(b)

    def think(self):
        """The move text to send, after any misbehaviour."""
        self.own_moves += 1
        what = self.misbehaviour()
        if what == "crash":
            sys.stderr.write("randommover: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if what == "hang":
            self.hang()
        if what == "illegal":
            return "illegal", self.illegal_move()
        if what in ("resign", "claim"):
            return what, None
        return "move", self.choose()


# ---------------------------------------------------------------------------------------------


def cecp(m: Mover, first: str | None) -> None:
    force = False
    pending = [first] if first else []
    edit_colour = 0
    editing = False
    edit_board: dict[str, str] = {}

    def lines():
        while True:
            if pending:
                yield pending.pop(0)
                continue
            line = sys.stdin.readline()
            if not line:
                return
            yield line.strip()

    def engine_move():
        kind, text = m.think()
        if kind == "resign":
            out("resign")
            return
        if kind == "claim":
            out("1/2-1/2 {Draw by repetition}")
            return
        if text is None:
            return
        out(f"1 0 0 {m.own_moves} {text}")
        out(f"move {text}")
        if kind == "move":
            m.pos.push(text)

    for line in lines():
        if not line:
            continue
        cmd, _, rest = line.partition(" ")
        if editing:
            if line == ".":
                editing = False
                m.pos.set_fen(edit_board_fen(m, edit_board))
            elif line == "#":
                edit_board.clear()
            elif line == "c":
                edit_colour ^= 1
            elif len(line) >= 3:
                edit_board[line[1:]] = line[0].upper() if edit_colour == 0 else line[0].lower()
            continue
        if cmd == "xboard":
            continue
        if cmd == "protover":
            out("feature done=0")
            m.load()
            m.reset()
            setboard = 0 if m.args.no_setboard else 1
            names = ",".join("normal" if v == "chess" else v for v in VARIANTS)
            out(f'feature ping=1 setboard={setboard} usermove=1 time=1 sigint=0 sigterm=0 reuse=1 memory=1 '
                f'myname="{m.args.name or "RandomMover"}" variants="{names}"')
            out('feature option="Dummy -spin 1 0 10"')
            out("feature done=1")
        elif cmd in ("accepted", "rejected", "easy", "hard", "post", "nopost", "random", "computer",
                     "level", "st", "sd", "nps", "time", "otim", "option", "result", "?", "memory", "cores"):
            if cmd == "result":
                force = True
            continue
        elif cmd == "new":
            m.variant = "chess"
            m.reset()
            force = False
        elif cmd == "variant":
            m.variant = "chess" if rest == "normal" else rest
            m.reset()
            if m.variant not in ("chess", "courier"):
                from jitfish.movegen import load_spec

                spec = load_spec(m.variant)
                letters = "".join(p.letter for p in spec.pieces)
                out(f"setup ({letters}{letters.lower()}) {spec.files}x{spec.ranks}+0_fairy {spec.start_fen}")
                for p in spec.pieces:
                    out(f"piece {p.letter}& {p.betza}")
        elif cmd == "force":
            force = True
        elif cmd == "setboard":
            m.pos.set_fen(rest)
        elif cmd == "edit":
            editing = True
            edit_colour = 0
            edit_board = board_of(m)
        elif cmd == "ping":
            out(f"pong {rest}")
        elif cmd == "go":
            force = False
            engine_move()
        elif cmd == "quit":
            return
        else:
            text = rest if cmd == "usermove" else line
            if m.args.reject_at is not None and m.own_moves + 1 >= m.args.reject_at:
                out(f"Illegal move: {text}")
                continue
            try:
                m.pos.push(text)
            except Exception as exc:  # MoveError or a bad command
                if cmd == "usermove" or len(text) in (4, 5, 6):
                    out(f"Illegal move ({exc}): {text}")
                else:
                    out(f"Error (unknown command): {line}")
                continue
            if not force:
                engine_move()


def board_of(m: Mover) -> dict[str, str]:
    pos = m.pos
    F = pos.spec.files
    board = {}
    for s in range(F * pos.spec.ranks):
        code = int(pos.pos.board[s])
        if code:
            letter = pos.spec.pieces[(code - 1) >> 1].letter
            board["abcdefghijkl"[s % F] + str(s // F + 1)] = letter if (code - 1) & 1 == 0 else letter.lower()
    return board


def edit_board_fen(m: Mover, board: dict[str, str]) -> str:
    spec = m.pos.spec
    rows = []
    for r in range(spec.ranks, 0, -1):
        row, empty = "", 0
        for f in range(spec.files):
            p = board.get("abcdefghijkl"[f] + str(r))
            if p is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += p
        rows.append(row + (str(empty) if empty else ""))
    side = "w" if m.pos.turn == 0 else "b"
    rights = "KQkq" if spec.rights_field == "castling" else "-"
    fen = f"{'/'.join(rows)} {side} {rights} - 0 1"
    try:
        Position(m.variant, fen)
        return fen
    except Exception:
        return f"{'/'.join(rows)} {side} - - 0 1"


def uci(m: Mover) -> None:
    last_fen, last_moves = "", []  # the position already set up: only new moves are played
    for raw in sys.stdin:
        line = raw.strip()
        cmd, _, rest = line.partition(" ")
        if cmd == "uci":
            m.load()
            out(f"id name {m.args.name or 'RandomMover UCI'}")
            out("id author jitfish tests")
            out("option name UCI_Variant type combo default chess " + " ".join(f"var {v}" for v in VARIANTS))
            out("option name Hash type spin default 16 min 1 max 1024")
            out("uciok")
        elif cmd == "setoption":
            parts = rest.split()
            if parts[:2] == ["name", "UCI_Variant"] and "value" in parts:
                m.variant = parts[parts.index("value") + 1]
        elif cmd == "isready":
            out("readyok")
        elif cmd == "ucinewgame":
            m.reset()
            last_fen, last_moves = "", []
        elif cmd == "position":
            tok = rest.split()
            if tok[0] == "startpos":
                fen, i = None, 1
            else:
                i = tok.index("moves") if "moves" in tok else len(tok)
                fen, i = " ".join(tok[1:i]), i
            moves = tok[i + 1:] if i < len(tok) and tok[i] == "moves" else []
            if (fen, moves[:len(last_moves)]) != (last_fen, last_moves) or m.pos is None:
                own = m.own_moves
                m.reset(fen)
                m.own_moves = own
                last_moves = []
            for mv in moves[len(last_moves):]:
                m.pos.push(mv)
            last_fen, last_moves = fen, moves
        elif cmd == "go":
            kind, text = m.think()
            if kind in ("resign", "claim"):
                out("bestmove (none)")
                continue
            out(f"info depth 1 score cp 0 nodes {m.own_moves} time 0 pv {text}")
            out(f"bestmove {text}")
        elif cmd == "quit":
            return


def main(argv=None, **defaults) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto", choices=("xboard", "uci", "auto"), default="auto")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--name")
    ap.add_argument("--no-setboard", action="store_true")
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("--deterministic", action="store_true")
    ap.add_argument("--think", type=int, default=0, help="milliseconds to wait before each move")
    for word in ("illegal", "crash", "hang", "resign", "claim", "reject"):
        ap.add_argument(f"--{word}-at", type=int)
    ap.set_defaults(**defaults)
    args = ap.parse_args(argv)
    m = Mover(args)
    if args.hang_at == 0:
        m.hang()
    if args.proto == "uci":
        uci(m)
        return
    if args.proto == "xboard":
        cecp(m, None)
        return
    first = sys.stdin.readline().strip()  # auto: the first line decides
    if first == "uci":
        sys.stdin = _Prepend(first, sys.stdin)
        uci(m)
    else:
        cecp(m, first)


class _Prepend:
    def __init__(self, first, stream):
        self.first, self.stream = first, stream

    def __iter__(self):
        yield self.first
        yield from self.stream


if __name__ == "__main__":
    main()
