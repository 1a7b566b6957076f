"""The GUI side of CECP v2 (XBoard) and UCI: run an engine process, set up games, ask for moves.

This is what ``jitfish match`` uses to drive engines; it knows protocols, not rules: moves are
passed through as text and the caller (the referee in ``engine/match.py``) judges them.

>>> eng = open_engine(EngineConfig("fairymax"), "courier")    # doctest: +SKIP
>>> eng.new_game(Limits(base=10, inc=0.1), START_FEN)          # doctest: +SKIP
>>> eng.go(GoRequest(moves=[], side=0, wtime=10, btime=10, winc=0.1, binc=0.1, budget=10.1))
Reply(move='g3f4', ...)                                         # doctest: +SKIP

CECP v2, as this client speaks it (``>`` to the engine, ``<`` from it)::

    > xboard                      > new
    > protover 2                  > variant courier          (not for chess: XBoard's "normal")
    < feature done=0              > easy / post
    < feature ping=1 setboard=1   > level 0 0:10 0.1 | st 2 | sd 6 | nps N
    > accepted ping ...           > force
    < feature done=1              > setboard FEN             (or ``edit`` when setboard=0)
                                  > ping 1   < pong 1
    per move: > force, usermove e2e4 (or plain e2e4), time 998, otim 1000, go   < move e7e5
    game end: > result 1-0 {White mates}, force

- ``feature done=0`` gives the engine up to ``start_timeout`` for ``done=1``; with no ``done``
  at all the client goes on 2 s after the last feature line (as XBoard does).
- ``san`` is rejected (moves must be coordinates); every other feature is accepted.
- Options: ``option NAME=VALUE``; ``Hash`` and ``Threads`` (UCI's names) become ``memory N`` and
  ``cores N`` when the engine has no option of that name but announced ``memory=1``/``smp=1``.
- An engine that answers a move with ``Illegal move...: MOVE`` or ``Error (...): MOVE`` has
  rejected a move the referee found legal: ``EngineRejectedMove``.
- ``setup (...) WxH+N_fairy FEN`` and ``piece X& BETZA`` lines (an engine defining its own
  variant) are parsed into ``Engine.setup`` and ``Engine.pieces``.
- Castling written ``O-O``/``O-O-O`` (Sjaak II's default) comes through unchanged; the referee
  maps it to the king's move.

UCI: ``uci`` -> ``id``/``option`` lines -> ``uciok``; ``setoption name UCI_Variant value V`` (when
the variant is not chess, the engine must offer it); user options; ``isready``/``readyok``.
Per game ``ucinewgame`` + ``isready``; per move ``position fen START moves ...`` and
``go wtime btime winc binc [movestogo] | movetime | depth | nodes``, answered by ``bestmove``.

Protocol detection (``proto="auto"``): ``xboard`` + ``protover 2`` first; a ``feature`` line means
CECP. With no ``feature`` line after ``detect_timeout`` (or sooner, on an ``unknown command``
reply), ``uci`` is sent and ``uciok`` means UCI. A late ``feature`` line still wins.

Failures are exceptions: ``EngineCrashed`` (the process ended), ``EngineTimeout`` (no answer
in time), ``EngineRejectedMove``, ``EngineError`` (anything else, e.g. a variant the engine
does not play). ``MatchAborted`` is raised from a wait when the caller's stop event is set.
"""
from __future__ import annotations

import threading
import time

from .client_cecp import CecpEngine
from .client_core import (DETECT_TIMEOUT, START_TIMEOUT, Engine, EngineConfig, EngineCrashed, EngineError,  # noqa: F401
                          EngineRejectedMove, EngineTimeout, GoRequest, Limits, Logger, MatchAborted, Protocol,
                          Reply, SearchInfo, _Process, format_seconds, parse_cecp_thinking, parse_feature_line,
                          parse_uci_info)
from .client_uci import UciEngine

__all__ = [
    "EngineConfig", "Limits", "GoRequest", "SearchInfo", "Reply", "Engine", "CecpEngine",
    "UciEngine", "open_engine", "EngineError", "EngineCrashed", "EngineTimeout",
    "EngineRejectedMove", "MatchAborted", "parse_feature_line", "parse_cecp_thinking",
    "parse_uci_info", "format_seconds", "Protocol",
]


def open_engine(config: EngineConfig, variant: str, *, stop: threading.Event | None = None,
                log: Logger | None = None, start_timeout: float = START_TIMEOUT,
                detect_timeout: float = DETECT_TIMEOUT) -> Engine:
    """Start the engine, detect (or take) its protocol, finish the handshake, check the variant.

    Raises EngineError (EngineCrashed, EngineTimeout) when it cannot; the process is then killed.
    """
    proto = Protocol.parse(config.proto)
    proc = _Process(config)
    args = (proc, config, variant, stop, log, start_timeout)
    try:
        if proto is Protocol.UCI:
            eng: Engine = UciEngine(*args)
            eng.send("uci")
            eng.handshake()
            return eng
        eng = CecpEngine(*args)
        eng.send("xboard")
        eng.send("protover 2")
        if proto is Protocol.XBOARD:
            eng.handshake()
            return eng
        # auto: CECP if a feature line comes, else try UCI
        seen: list[tuple[float, str]] = []
        t_end = time.monotonic() + detect_timeout
        while True:
            try:
                t, line = eng.read(t_end, "feature")
            except EngineTimeout:
                break
            seen.append((t, line))
            if line.startswith("feature"):
                eng.handshake(seen[-1:])
                return eng
            low = line.lower()
            if "unknown command" in low or low.startswith("error") or "unknown" in low and "xboard" in low:
                break
        uci = UciEngine(*args)
        uci.send("uci")
        deadline = time.monotonic() + start_timeout
        lines: list[tuple[float, str]] = []
        while True:
            try:
                t, line = uci.read(deadline, "uciok or feature")
            except EngineTimeout as exc:
                raise EngineTimeout(f"no answer to 'xboard'/'protover 2' (CECP) nor to 'uci' (UCI) "
                                    f"within {detect_timeout + exc.elapsed:.0f} s", exc.elapsed) from None
            if line.startswith("feature"):  # a slow CECP engine after all
                eng.handshake([(t, line)])
                return eng
            lines.append((t, line))
            if line.strip() == "uciok":
                uci.handshake(lines)
                return uci
    except BaseException:
        proc.kill()
        raise
