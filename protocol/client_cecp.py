"""The GUI side of CECP v2 (XBoard protocol), as ``jitfish match`` speaks it (see client.py)."""
from __future__ import annotations

import dataclasses
import re
import time
from typing import Sequence

from jitfish.movegen import VariantError

from .client_core import (FEATURE_QUIET, Engine, EngineError, EngineRejectedMove, EngineTimeout, Limits, Reply,
                          GoRequest, SearchInfo, format_seconds, parse_cecp_thinking, parse_feature_line)
from .xboard import xboard_name

__all__ = ["CecpEngine"]


def _cecp_name(variant: str) -> str:
    """jitfish's variant name -> the CECP name (``chess`` is XBoard's ``normal``); a name jitfish
    does not know is sent as it is."""
    try:
        return xboard_name(variant)
    except VariantError:
        return variant


class CecpEngine(Engine):
    """The GUI side of CECP v2 (XBoard protocol)."""

    protocol = "xboard"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.features: dict[str, str] = {}
        self.options: dict[str, str] = {}  # announced option name -> its description
        self._ping = 0

    # feature names this client understands; "san" is refused (moves must be coordinates)
    _REFUSED = {"san"}

    def _feature(self, line: str) -> str | None:
        """Record and answer a feature line; returns the done value when it has one."""
        done = None
        for key, value in parse_feature_line(line):
            if key == "option":
                m = re.match(r"\s*(.+?)\s+-(\w+)", value)
                if m:
                    self.options[m.group(1)] = value
                self.send(f"accepted {key}")
                continue
            self.features[key] = value
            if key == "done":
                done = value
                continue
            self.send(f"{'rejected' if key in self._REFUSED and value != '0' else 'accepted'} {key}")
            if key == "myname":
                self.own_name = value
        return done

    def handshake(self, first_lines: Sequence[tuple[float, str]] = ()) -> None:
        """Read the feature lines (``xboard``/``protover 2`` already sent)."""
        start = time.monotonic()
        deadline = start + self.start_timeout
        quiet_until = None
        pending = list(first_lines)
        while True:
            if pending:
                _, line = pending.pop(0)
            else:
                limit = deadline if quiet_until is None else min(deadline, quiet_until)
                try:
                    _, line = self.read(limit, "feature done=1")
                except EngineTimeout:
                    if quiet_until is not None and time.monotonic() < deadline:
                        break  # features without done=1: go on, as XBoard does
                    raise EngineTimeout(f"no 'feature done=1' within {self.start_timeout:.0f} s",
                                        time.monotonic() - start) from None
            if line.startswith("feature"):
                done = self._feature(line)
                if done == "1":
                    break
                if done == "0":
                    quiet_until = None
                    deadline = start + self.start_timeout
                    self._done0 = True
                elif not getattr(self, "_done0", False):
                    quiet_until = time.monotonic() + FEATURE_QUIET
        if not self.config.name and self.own_name:
            self.name = self.own_name
        if self.config.variant_path and "VariantPath" in self.options:
            # the engine loads the variant file, then announces its variants again
            self.send(f"option VariantPath={self.config.variant_path}")
            for line in self._sync("VariantPath"):
                if line.startswith("feature"):
                    self._feature(line)
                elif line.startswith("Error"):
                    raise EngineError(f"{self.name} cannot load {self.config.variant_path}: {line.strip()}")
        # the variant must be one the engine announced (normal is always played)
        ev = _cecp_name(self.engine_variant)
        variants = [v.strip() for v in self.features.get("variants", "").split(",") if v.strip()]
        if ev != "normal" and ev not in variants:
            raise EngineError(f"{self.name} does not play {ev!r} (its variants: {', '.join(variants) or 'none announced'})")
        for name, value in self.config.options.items():
            if name not in self.options:
                # UCI's Hash and Threads are CECP's memory and cores commands
                if name.lower() == "hash" and self.features.get("memory") == "1":
                    self.send(f"memory {value}")
                    continue
                if name.lower() == "threads" and self.features.get("smp") == "1":
                    self.send(f"cores {value}")
                    continue
                if self.options:
                    raise EngineError(f"{self.name} has no option {name!r} (it has: {', '.join(self.options)})")
            self.send(f"option {name}={value}")

    def _sync(self, what: str) -> list[str]:
        """ping/pong (when the engine has ping): returns the lines read before the pong."""
        if self.features.get("ping") != "1":
            return self.drain()
        self._ping += 1
        n = self._ping
        self.send(f"ping {n}")
        deadline = time.monotonic() + self.start_timeout
        lines = []
        while True:
            _, line = self.read(deadline, f"pong {n} after {what}")
            if line.split()[:2] == ["pong", str(n)]:
                return lines
            lines.append(line)
            self._note_setup(line)

    def _note_setup(self, line: str) -> None:
        if line.startswith("setup "):
            m = re.match(r"setup\s+\(([^)]*)\)\s+(\S+)\s+(.*)$", line)
            if m:
                self.setup = (m.group(1), m.group(2), m.group(3).strip())
        elif line.startswith("piece "):
            parts = line.split(None, 2)
            if len(parts) == 3:
                self.pieces[parts[1].rstrip("&")] = parts[2]

    def new_game(self, limits: Limits, start_fen: str, standard_start: bool = False) -> None:
        self.limits = limits
        self.start_fen = start_fen
        self._sent = 0
        self.drain()
        self.send("new")
        ev = _cecp_name(self.engine_variant)
        if ev != "normal":
            self.send(f"variant {ev}")
        self.send_optional("easy")
        self.send_optional("post")
        if limits.has_clock:
            base = int(round(limits.base))
            base_text = f"{base // 60}:{base % 60:02d}" if base % 60 else str(base // 60)
            self.send(f"level {limits.moves} {base_text} {format_seconds(limits.inc)}")
        if limits.movetime is not None:
            self.send(f"st {format_seconds(limits.movetime)}")
        if limits.depth is not None:
            self.send(f"sd {limits.depth}")
        if limits.nodes is not None:
            if self.features.get("nps") == "0":
                raise EngineError(f"{self.name} cannot search a node count (feature nps=0)")
            self.send(f"nps {limits.nodes}")
            if limits.movetime is None and not limits.has_clock:
                self.send("st 1")
        self.send("force")
        if not standard_start:
            if self.features.get("setboard") == "1":
                self.send(f"setboard {start_fen}")
            else:
                self._edit(start_fen)
        lines = self._sync("new game")
        for line in lines:
            low = line.lower()
            if low.startswith("tellusererror") or "illegal position" in low or (
                    low.startswith("error") and ("setboard" in low or "variant" in low)):
                raise EngineError(f"{self.name} refused the position: {line.strip()}")

    def _edit(self, fen: str) -> None:
        """Set up a position with ``edit`` (engines without setboard), as XBoard does."""
        fields = fen.split()
        rows = fields[0].split("/")
        if len(fields) > 1 and fields[1] == "b":
            self.send("a2a3")  # the protocol's way to get Black to move before edit
        self.send("edit")
        self.send("#")
        placed: list[list[str]] = [[], []]
        nranks = len(rows)
        for i, row in enumerate(rows):
            rank = nranks - i
            f = 0
            for m in re.finditer(r"\d+|[A-Za-z]", row):
                tok = m.group(0)
                if tok.isdigit():
                    f += int(tok)
                    continue
                sq = "abcdefghijklmnop"[f] + str(rank)
                placed[0 if tok.isupper() else 1].append(tok.upper() + sq)
                f += 1
        for cmd in placed[0]:
            self.send(cmd)
        self.send("c")
        for cmd in placed[1]:
            self.send(cmd)
        self.send(".")

    def _move_cmd(self, move: str) -> str:
        return f"usermove {move}" if self.features.get("usermove") == "1" else move

    def go(self, req: GoRequest) -> Reply:
        self.drain()  # late lines (claims after a move, stray output) belong to nothing now
        self.send("force")
        sent = []
        for mv in req.moves[self._sent:]:
            self.send(self._move_cmd(mv))
            sent.append(mv)
        self._sent = len(req.moves)
        if req.wtime is not None and req.btime is not None:
            own, opp = (req.wtime, req.btime) if req.side == 0 else (req.btime, req.wtime)
            self.send(f"time {max(0, int(own * 100))}")
            self.send(f"otim {max(0, int(opp * 100))}")
        t0 = time.monotonic()
        self.send("go")
        self._thinking = True
        deadline = t0 + req.budget
        info = SearchInfo()
        while True:
            try:
                t, line = self.read(deadline, "move")
            except EngineTimeout as exc:
                raise EngineTimeout(f"no move within {exc.elapsed:.2f} s", exc.elapsed) from None
            s = line.strip()
            if not s:
                continue
            head = s.split()[0]
            if head == "move" and len(s.split()) >= 2:
                self._thinking = False
                self._sent += 1  # the engine knows its own move
                self.send("force")
                return Reply(s.split()[1], t - t0, info)
            if s.startswith("Illegal move") or head.startswith("Error"):
                bad = s.rsplit(":", 1)[-1].strip() if ":" in s else ""
                bad = bad.split()[-1] if bad else ""
                if bad and bad in sent:
                    self._thinking = False
                    raise EngineRejectedMove(f"{self.name} rejects the legal move {bad} ({s})", bad, s)
                continue
            if head in ("1-0", "0-1", "1/2-1/2"):
                self._thinking = False
                m = re.search(r"\{(.*)\}", s)
                return Reply(None, t - t0, info, (head, m.group(1).strip() if m else ""))
            if head == "resign":
                self._thinking = False
                return Reply(None, t - t0, info, ("0-1" if req.side == 0 else "1-0", "resign"))
            think = parse_cecp_thinking(s)
            if think is not None:
                info = think
                if req.on_info is not None:
                    req.on_info(dataclasses.replace(think))
                continue
            self._note_setup(s)

    def game_over(self, result: str, reason: str) -> None:
        if not self.alive():
            return
        try:
            if self._thinking:
                self.send("?")
            self.send_optional(f"result {result} {{{reason}}}")
            self.send("force")
        except EngineError:
            pass
        self._thinking = False


