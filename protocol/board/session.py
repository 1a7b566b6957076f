"""One page's connection: its game, who plays each side, the engine's thinking, and the
messages to and from the page (JSON over the websocket).

From the page::

    {"type": "setup", "variant": V, "fen": F, "engine": NAME, "color": "white", "movetime": MS,
     "depth": D, "tc": "60+1", "pgn": I, "game": J, "pgn_text": TEXT, "watch": ID or "latest"}
    {"type": "move", "move": "e2e4"}   {"type": "undo"}   {"type": "goto", "ply": N}
    {"type": "go"} (the engine moves now: retry after an error, or switch sides)   {"type": "pgn"}

To the page: ``state`` (the game's ``BoardGame.state()`` plus players, mode, thinking, clocks),
``info`` (score, depth, nodes, PV in SAN while an engine thinks), ``error`` (a refused move, a
bad set-up, an engine that failed: the game stays as it was), ``pgn`` (text to download).
"""
from __future__ import annotations

import asyncio
import threading
import time

from jitfish.engine import Engine
from jitfish.engine import Limits as SearchLimits
from jitfish.movegen import FenError, MoveError, VariantError, read_pgn
from jitfish.movegen.position import COLOUR_NAMES
from jitfish.protocol.client import EngineConfig, EngineError, GoRequest
from jitfish.protocol.client import Limits as ClientLimits
from jitfish.protocol.client import open_engine

from .game import BoardGame

__all__ = ["Session", "Hub", "EngineSpec", "parse_tc"]

JITFISH = "jitfish"
HANG_MARGIN = 3.0  # seconds past its time before an engine counts as hung


class EngineSpec:
    """An engine the user named on the command line or in the config file (never the page)."""

    def __init__(self, name: str, cmd: str, proto: str = "auto"):
        self.name, self.cmd, self.proto = name, cmd, proto


def parse_tc(text: str) -> tuple[float, float]:
    """``"60+1"`` -> (60.0, 1.0) seconds; ``"5"`` -> (5.0, 0.0); ValueError otherwise."""
    base, _, inc = str(text).partition("+")
    b, i = float(base), float(inc or 0)
    if b <= 0 or i < 0:
        raise ValueError(f"bad time control {text!r}: expected BASE[+INC] in seconds, like 60+1")
    return b, i


class Hub:
    """What every session shares: the engines the user allowed, the PGN files the user named,
    and the match games being watched."""

    def __init__(self, engines: list[EngineSpec], pgn_files: list[str], hash_mb: int = 16):
        self.engines = {e.name: e for e in engines}
        self.pgn_files = list(pgn_files)
        self.hash_mb = hash_mb
        self.sessions: set[Session] = set()
        self.watched: dict[str, BoardGame] = {}
        self.watch_meta: dict[str, dict] = {}
        self.watch_order: list[str] = []

    def engine_names(self) -> list[str]:
        return [JITFISH] + list(self.engines)

    def pgn_summary(self) -> list[dict]:
        out = []
        for i, path in enumerate(self.pgn_files):
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    games = read_pgn(fh.read())
                out.append({"index": i, "file": path, "games": [
                    {"white": g.tags.get("White", "?"), "black": g.tags.get("Black", "?"),
                     "result": g.result, "variant": g.tags.get("Variant", "chess"),
                     "round": g.tags.get("Round", "")} for g in games]})
            except (OSError, ValueError) as exc:
                out.append({"index": i, "file": path, "error": str(exc), "games": []})
        return out

    # -- a match publishing its games (BoardPublisher) -----------------------------------------

    def publish(self, ev: dict) -> str:
        """A snapshot of a match game: ``{"game": id, "variant", "fen", "white", "black",
        "moves": [coordinates...], "result", "reason"}``. Moves are checked with the rules; the
        first bad one is reported and the rest ignored. Returns "" or the problem."""
        gid = str(ev.get("game", "1"))
        variant, fen = str(ev.get("variant", "chess")), ev.get("fen") or None
        problem = ""
        g = self.watched.get(gid)
        if g is None or g.variant != variant or (fen and g.start_fen != BoardGame(variant, fen).start_fen):
            g = BoardGame(variant, fen, tags={"White": str(ev.get("white", "?")), "Black": str(ev.get("black", "?")),
                                             "Event": str(ev.get("event", "jitfish match"))})
            self.watched[gid] = g
            if gid in self.watch_order:
                self.watch_order.remove(gid)
            self.watch_order.append(gid)
        moves = [str(m) for m in ev.get("moves", [])]
        g.goto(len(g.line))  # a watcher may have stepped back
        have = [n.name for n in g.line]
        if have != moves[:len(have)]:
            g.goto(0)
            del g.line[:]
            have = []
        comments = [str(c) for c in ev.get("comments", [])]
        for i, text in enumerate(moves[len(have):], start=len(have)):
            try:
                g.play(text, comments[i] if i < len(comments) else "")
            except MoveError as exc:
                problem = f"the match sent a move the rules refuse: {exc}"
                break
        if ev.get("result"):
            g.result_override = (str(ev["result"]), str(ev.get("reason", "")))
        self.watch_meta[gid] = {"white": g.tags.get("White"), "black": g.tags.get("Black"), "problem": problem}
        for s in list(self.sessions):
            s.watch_event(gid)
        return problem


class Session:
    """The server side of one open page."""

    def __init__(self, hub: Hub, loop: asyncio.AbstractEventLoop):
        self.hub, self.loop = hub, loop
        self.out: asyncio.Queue = asyncio.Queue()
        self.game: BoardGame | None = None
        self.players = ["human", "human"]  # per colour: "human" or an engine name
        self.movetime: float | None = 1.0
        self.depth: int | None = None
        self.clock: list[float] | None = None  # seconds left per side, with a time control
        self.inc = 0.0
        self.turn_started = time.monotonic()
        self.mode = "play"
        self.watching: str | None = None  # a game id, or "latest"
        self.thinking = False
        self.token = 0  # bumps on every change: a search started before it is stale
        self.engine: Engine | None = None
        self.external = None
        self.external_name = ""
        self.engine_error = ""
        self.info: dict | None = None

    # -- output ----------------------------------------------------------------------------------

    def send(self, msg: dict) -> None:
        self.out.put_nowait(msg)

    def send_threadsafe(self, msg: dict) -> None:
        self.loop.call_soon_threadsafe(self.out.put_nowait, msg)

    def error(self, text: str) -> None:
        self.send({"type": "error", "message": text})

    def send_state(self, notice: str = "") -> None:
        if self.game is None:
            return
        st = self.game.state()
        names = [self._player_name(c) for c in (0, 1)]
        st.update({"type": "state", "players": self.players, "names": names, "mode": self.mode,
                   "thinking": self.thinking, "notice": notice, "engine_error": self.engine_error,
                   "clock": self._clocks(), "watching": self.watching,
                   "watch_games": [{"id": k, "white": self.hub.watch_meta.get(k, {}).get("white"),
                                    "black": self.hub.watch_meta.get(k, {}).get("black")}
                                   for k in self.hub.watch_order]})
        self.send(st)

    def _player_name(self, colour: int) -> str:
        if self.mode == "watch" or self.mode == "replay":
            return self.game.tags.get(("White", "Black")[colour], "?") if self.game else "?"
        return "You" if self.players[colour] == "human" else self.players[colour]

    def _clocks(self) -> list[float] | None:
        if self.clock is None or self.game is None:
            return None
        out = list(self.clock)
        if self.game.outcome() is None and self.mode == "play":
            out[self.game.pos.turn] -= time.monotonic() - self.turn_started
        return [round(x, 2) for x in out]

    # -- input -----------------------------------------------------------------------------------

    async def handle(self, msg: dict) -> None:
        kind = msg.get("type")
        try:
            if kind == "setup":
                await self.setup(msg)
            elif self.game is None:
                self.error("no game: set one up first")
            elif kind == "move":
                await self.user_move(str(msg.get("move", "")))
            elif kind == "undo":
                self.undo()
            elif kind == "goto":
                self.cancel_search()
                self._close_external()  # an engine process cannot take moves back: restart it
                self.game.goto(int(msg.get("ply", 0)))
                self.send_state()
            elif kind == "go":
                self.engine_error = ""
                await self.maybe_engine(force=True)
            elif kind == "pgn":
                self.send({"type": "pgn", "text": self.game.pgn(**self._tags()),
                           "filename": f"{self.game.variant}.pgn"})
            else:
                self.error(f"unknown message {kind!r}")
        except (MoveError, FenError, VariantError, ValueError) as exc:
            self.error(str(exc))

    def _tags(self) -> dict:
        if self.mode != "play":
            return {}
        return {"Event": "jitfish board", "White": self._player_name(0), "Black": self._player_name(1)}

    async def setup(self, msg: dict) -> None:
        self.cancel_search()
        self.engine_error = ""
        self.watching = None
        if msg.get("watch"):
            self.mode, self.watching = "watch", str(msg["watch"])
            self.players = ["human", "human"]
            gid = self._watched_id()
            if gid is None:
                self.game = None
                self.send({"type": "waiting", "message": "no match game yet: start one with "
                                                        "jitfish match ... --board PORT"})
                return
            self.game = self.hub.watched[gid]
            self.send_state()
            return
        if msg.get("pgn") is not None or msg.get("pgn_text"):
            self._load_pgn(msg)
            return
        self.mode = "play"
        try:
            game = BoardGame(str(msg.get("variant") or "chess"), msg.get("fen") or None)
        except FenError as exc:
            raise ValueError(f"bad FEN {msg.get('fen')!r}: {exc}") from None
        engine = str(msg.get("engine") or "")
        if engine in ("", "none", "human"):
            players = ["human", "human"]
        elif engine in self.hub.engine_names():
            colour = 1 if str(msg.get("color", "white")).lower() in ("black", "b") else 0
            players = ["human", "human"]
            players[1 - colour] = engine
        else:
            raise ValueError(f"unknown engine {engine!r}: the page may choose among "
                             f"{', '.join(self.hub.engine_names())} (add others with jitfish board --engine)")
        movetime = msg.get("movetime")
        depth = msg.get("depth")
        self.movetime = float(movetime) / 1000 if movetime not in (None, "") else None
        self.depth = int(depth) if depth not in (None, "") else None
        if self.movetime is not None and not 0 < self.movetime <= 3600:
            raise ValueError(f"bad movetime {movetime!r}: milliseconds, more than 0")
        if self.depth is not None and not 0 < self.depth <= 64:
            raise ValueError(f"bad depth {depth!r}: 1 to 64")
        self.clock = None
        if msg.get("tc"):
            base, self.inc = parse_tc(msg["tc"])
            self.clock = [base, base]
        if self.movetime is None and self.depth is None and self.clock is None:
            self.movetime = 1.0
        self.game, self.players = game, players
        self._close_external()
        self.turn_started = time.monotonic()
        self.send_state()
        await self.maybe_engine()

    def _load_pgn(self, msg: dict) -> None:
        if msg.get("pgn_text"):
            text, where = str(msg["pgn_text"]), "the pasted PGN"
        else:
            i = int(msg["pgn"])
            if not 0 <= i < len(self.hub.pgn_files):
                raise ValueError(f"no PGN file {i}: the board was started with {len(self.hub.pgn_files)}")
            where = self.hub.pgn_files[i]
            with open(where, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        games = read_pgn(text)
        j = int(msg.get("game") or 0)
        if not 0 <= j < len(games):
            raise ValueError(f"{where} has {len(games)} games, not a game {j + 1}")
        pg = games[j]
        game = BoardGame(pg.variant, pg.tags.get("FEN") or None, tags=dict(pg.tags))
        notice = ""
        for k, tok in enumerate(pg.moves):
            try:
                game.play(tok)
            except MoveError as exc:
                notice = (f"move {k // 2 + 1}{'.' if k % 2 == 0 else '...'} {tok} cannot be read: {exc}; "
                          f"the replay stops before it")
                break
        else:
            if pg.result and pg.result != "*" and game.pos.outcome() is None:
                reason = pg.tags.get("Termination", "") or (pg.comments[-1] if pg.comments else "")
                game.result_override = (pg.result, reason)
        game.goto(0)
        self.mode, self.players, self.clock = "replay", ["human", "human"], None
        self.game = game
        self.send_state(notice)

    def _watched_id(self) -> str | None:
        if self.watching == "latest":
            return self.hub.watch_order[-1] if self.hub.watch_order else None
        return self.watching if self.watching in self.hub.watched else None

    def watch_event(self, gid: str) -> None:
        if self.mode != "watch":
            return
        if self.watching == gid or self.watching == "latest" and self._watched_id() == gid:
            self.game = self.hub.watched[gid]
            self.game.goto(len(self.game.line))
            problem = self.hub.watch_meta.get(gid, {}).get("problem", "")
            self.send_state(problem)

    async def user_move(self, text: str) -> None:
        g = self.game
        if self.mode == "watch":
            raise MoveError(f"illegal move {text}: you are watching a match game")
        if self.thinking:
            raise MoveError(f"illegal move {text}: wait, {self.players[g.pos.turn]} is thinking")
        if self.mode == "play" and self.players[g.pos.turn] != "human":
            raise MoveError(f"illegal move {text}: it is {self.players[g.pos.turn]}'s move (press 'engine, move' to let it play)")
        self._play(text)
        await self.maybe_engine()

    def _play(self, text: str, comment: str = "") -> None:
        g = self.game
        mover = g.pos.turn
        g.play(text, comment)
        if self.clock is not None and self.mode == "play":
            now = time.monotonic()
            self.clock[mover] -= now - self.turn_started
            self.turn_started = now
            if self.clock[mover] < 0:
                g.result_override = ("0-1" if mover == 0 else "1-0", f"{COLOUR_NAMES[mover]} loses on time")
                self.clock[mover] = 0.0
            else:
                self.clock[mover] += self.inc
        self.token += 1
        self.send_state()

    def undo(self) -> None:
        if self.mode == "watch":
            raise MoveError("you are watching a match game: there is nothing to take back")
        self.cancel_search()
        self._close_external()
        g = self.game
        plies = 1
        if self.mode == "play" and "human" in self.players and self.players != ["human", "human"]:
            # against an engine: back to the person's move
            if self.players[g.pos.turn] == "human" and g.cursor >= 2:
                plies = 2
        g.take_back(plies)
        self.send_state()

    # -- the engine ------------------------------------------------------------------------------

    def cancel_search(self) -> None:
        self.token += 1
        if self.thinking and self.engine is not None:
            self.engine.stop()
        self.thinking = False

    async def maybe_engine(self, force: bool = False) -> None:
        g = self.game
        if g is None or self.mode != "play" or g.outcome() is not None or self.thinking:
            return
        who = self.players[g.pos.turn]
        if who == "human":
            if not force:
                return
            # "Go" on the person's move: the engine takes over this side
            others = [p for p in self.players if p != "human"]
            who = others[0] if others else JITFISH
            self.players[g.pos.turn] = who
            self.players[1 - g.pos.turn] = "human"
        if self.engine_error and not force:
            return
        self.thinking = True
        self.info = None
        token = self.token
        self.send_state()
        t0 = time.monotonic()
        try:
            if who == JITFISH:
                move, comment = await self.loop.run_in_executor(None, self._search_jitfish, token)
            else:
                move, comment = await self.loop.run_in_executor(None, self._search_external, who, token)
        except Exception as exc:  # an engine that fails leaves the game as it was
            self._close_external()
            if token == self.token:
                self.thinking = False
                self.engine_error = f"{who} failed: {exc} (the game stays; press 'engine, move' to try again)"
                self.send_state()
            return
        if token != self.token or g is not self.game:
            return  # the person took back or started another game meanwhile
        self.thinking = False
        if move is None:
            self.engine_error = f"{who} gave no move"
            self.send_state()
            return
        try:
            self._play(move, f"{comment} {time.monotonic() - t0:.2f}s".strip())
        except MoveError as exc:
            self.engine_error = f"{who} played a move the rules refuse: {exc} (the game stays; press 'engine, move' to try again)"
            self._close_external()
            self.send_state()
            return
        await self.maybe_engine()

    def _limits_left(self) -> tuple[float | None, float | None]:
        if self.clock is None:
            return None, None
        now = self._clocks() or self.clock
        return max(0.01, now[0]), max(0.01, now[1])

    def _post_info(self, token: int, depth, score_cp, mate, nodes, pv: list[str]) -> None:
        if token != self.token or self.game is None:
            return
        self.info = {"depth": depth, "score_cp": score_cp, "mate": mate, "nodes": nodes,
                     "pv": self.game.san_line(pv), "turn": self.game.pos.turn}
        self.send_threadsafe({"type": "info", **self.info})

    def _search_jitfish(self, token: int) -> tuple[str | None, str]:
        if self.engine is None:
            self.engine = Engine(self.hub.hash_mb)
        pos = self.game.pos.copy()
        wt, bt = self._limits_left()
        lim = SearchLimits(movetime=self.movetime, depth=self.depth, wtime=wt, btime=bt,
                           winc=self.inc if wt else None, binc=self.inc if bt else None)

        def on_info(info) -> None:
            # called in this worker thread; hand the page a copy through the event loop
            self.loop.call_soon_threadsafe(self._post_info, token, info.depth, info.score_cp, info.mate,
                                           info.nodes, list(info.pv))

        res = self.engine.search(pos, lim, on_info=on_info)
        score = f"{res.score_cp / 100:+.2f}" if res.score_cp is not None else (f"#{res.mate}" if res.mate else "")
        return res.best, f"{score}/{res.depth}" if score else ""

    def _search_external(self, name: str, token: int) -> tuple[str | None, str]:
        spec = self.hub.engines[name]
        g = self.game
        if self.external is None or self.external_name != name:
            self._close_external()
            self.external = open_engine(EngineConfig(spec.cmd, name=name, proto=spec.proto), g.variant)
            self.external_name = name
            base = self.clock[0] if self.clock else 0.0
            self.external.new_game(ClientLimits(base=base, inc=self.inc if self.clock else 0.0,
                                                movetime=None if self.clock else self.movetime,
                                                depth=self.depth), g.start_fen)
        wt, bt = self._limits_left()
        budget = self.movetime + HANG_MARGIN if self.movetime else (max(wt or 0, bt or 0) + HANG_MARGIN if wt else 120.0)
        reply = self.external.go(GoRequest(moves=g.moves_played(), side=g.pos.turn, wtime=wt, btime=bt,
                                           winc=self.inc, binc=self.inc, budget=budget))
        inf = reply.info
        if token == self.token:
            self._post_info(token, inf.depth, inf.score, inf.mate, inf.nodes, inf.pv.split())
        if reply.move is None and reply.claim is not None:
            raise EngineError(f"claims {reply.claim[0]} {{{reply.claim[1]}}} instead of moving")
        score = f"{inf.score / 100:+.2f}/{inf.depth}" if inf.score is not None and inf.depth else ""
        return reply.move, score

    def _close_external(self) -> None:
        eng, self.external, self.external_name = self.external, None, ""
        if eng is not None:
            threading.Thread(target=_quietly_quit, args=(eng,), daemon=True).start()

    def close(self) -> None:
        self.cancel_search()
        self._close_external()


def _quietly_quit(eng) -> None:
    try:
        eng.quit()
    except Exception:
        pass
