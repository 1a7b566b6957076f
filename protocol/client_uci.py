"""The GUI side of UCI, as ``jitfish match`` and the benchmarks speak it (see client.py)."""
from __future__ import annotations

import dataclasses
import re
import time
from typing import Sequence

from .client_core import Engine, EngineError, EngineTimeout, GoRequest, Limits, Reply, SearchInfo, parse_uci_info

__all__ = ["UciEngine"]


class UciEngine(Engine):
    """The GUI side of UCI."""

    protocol = "uci"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.options: dict[str, str] = {}  # name -> the option line

    def handshake(self, first_lines: Sequence[tuple[float, str]] = ()) -> None:
        """Read ``id``/``option`` lines up to ``uciok`` (``uci`` already sent), set options."""
        deadline = time.monotonic() + self.start_timeout
        pending = list(first_lines)
        while True:
            if pending:
                _, line = pending.pop(0)
            else:
                _, line = self.read(deadline, "uciok")
            s = line.strip()
            if s == "uciok":
                break
            if s.startswith("id name "):
                self.own_name = s[8:].strip()
            elif s.startswith("option name "):
                m = re.match(r"option name (.+?) type ", s)
                if m:
                    self.options[m.group(1)] = s
        if not self.config.name and self.own_name:
            self.name = self.own_name
        if self.config.variant_path and "VariantPath" in self.options:
            # the engine loads the variant file; its new UCI_Variant choices come before readyok
            self.send(f"setoption name VariantPath value {self.config.variant_path}")
            for line in self._isready("VariantPath"):
                if line.startswith("option name "):
                    m = re.match(r"option name (.+?) type ", line)
                    if m:
                        self.options[m.group(1)] = line
                elif line.startswith("info string VariantPath"):
                    raise EngineError(f"{self.name} cannot load {self.config.variant_path}: {line[12:].strip()}")
        ev = self.engine_variant
        if "UCI_Variant" in self.options:
            choices = re.findall(r"\bvar (\S+)", self.options["UCI_Variant"])
            if choices and ev not in choices:
                raise EngineError(f"{self.name} does not play {ev!r} (UCI_Variant choices: {', '.join(choices)})")
            self.send(f"setoption name UCI_Variant value {ev}")
        elif self.variant != "chess" and not self.config.variant:
            raise EngineError(f"{self.name} has no UCI_Variant option: it plays only chess")
        for name, value in self.config.options.items():
            if self.options and name not in self.options:
                raise EngineError(f"{self.name} has no option {name!r} (it has: {', '.join(self.options)})")
            if " type button" in self.options.get(name, ""):
                self.send(f"setoption name {name}")
            else:
                self.send(f"setoption name {name} value {value}")
        self._isready("the options")

    def _isready(self, what: str) -> list[str]:
        """isready/readyok; returns the lines read before readyok."""
        self.send("isready")
        deadline = time.monotonic() + self.start_timeout
        lines = []
        while True:
            _, line = self.read(deadline, f"readyok after {what}")
            if line.strip() == "readyok":
                return lines
            lines.append(line.strip())

    def perft(self, depth: int) -> tuple[int, float]:
        """``go perft DEPTH`` from the game's start FEN (a Fairy-Stockfish and jitfish
        extension): (nodes, seconds from go to the answer)."""
        self.send(f"position fen {self.start_fen}")
        self._isready("position")
        t0 = time.monotonic()
        self.send(f"go perft {depth}")
        while True:
            t, line = self.read(t0 + self.start_timeout * 10, "Nodes searched")
            if line.startswith("Nodes searched"):
                return int(line.split(":")[1]), t - t0

    def new_game(self, limits: Limits, start_fen: str, standard_start: bool = False) -> None:
        self.limits = limits
        self.start_fen = start_fen
        self.drain()
        self.send("ucinewgame")
        self._isready("ucinewgame")

    def go(self, req: GoRequest) -> Reply:
        self.drain()
        moves = " ".join(req.moves)
        self.send(f"position fen {self.start_fen}" + (f" moves {moves}" if moves else ""))
        parts = ["go"]
        lim = self.limits
        if req.wtime is not None and req.btime is not None:
            parts += ["wtime", str(max(0, int(req.wtime * 1000))), "btime", str(max(0, int(req.btime * 1000))),
                      "winc", str(int(req.winc * 1000)), "binc", str(int(req.binc * 1000))]
            if req.movestogo:
                parts += ["movestogo", str(req.movestogo)]
        if lim.movetime is not None:
            parts += ["movetime", str(max(1, int(lim.movetime * 1000)))]
        if lim.depth is not None:
            parts += ["depth", str(lim.depth)]
        if lim.nodes is not None:
            parts += ["nodes", str(lim.nodes)]
        if len(parts) == 1:
            parts.append("infinite")  # nothing limits it: only the hang timeout ends the wait
        t0 = time.monotonic()
        self.send(" ".join(parts))
        self._thinking = True
        deadline = t0 + req.budget
        info = SearchInfo()
        while True:
            try:
                t, line = self.read(deadline, "bestmove")
            except EngineTimeout as exc:
                raise EngineTimeout(f"no bestmove within {exc.elapsed:.2f} s", exc.elapsed) from None
            s = line.strip()
            if s.startswith("bestmove"):
                self._thinking = False
                tok = s.split()
                mv = tok[1] if len(tok) >= 2 else ""
                return Reply(mv if mv not in ("", "(none)", "0000", "none") else None, t - t0, info)
            if s.startswith("info ") and " string " not in s[:12]:
                parse_uci_info(s, info)
                if req.on_info is not None and info.depth is not None and " depth " in s:
                    req.on_info(dataclasses.replace(info))

    def game_over(self, result: str, reason: str) -> None:
        if self._thinking and self.alive():
            try:
                self.send("stop")
            except EngineError:
                pass
        self._thinking = False


